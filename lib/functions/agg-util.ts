// Building blocks of aggregate states: per-group typed arrays grown by
// doubling, a typed-array hash set of (group, value) pairs, text interning,
// and the DISTINCT wrapper that feeds an aggregate each group's new values once.
import { Buffer } from 'node:buffer';
import type { ColumnVector } from '../core/column-vector.js';
import type { AggregateState } from './registry.js';
import { asDoubles, nullFlags, textAt, textVector } from '../core/vec.js';
import { gatherVector } from '../core/vector-ops.js';
import { isByteRows, typeInfo } from '../core/column-type.js';

/** `arr` with room for `need` entries (doubling), new slots set to `fill`. */
export function growF64(arr: Float64Array<ArrayBuffer>, need: number, fill = 0): Float64Array<ArrayBuffer> {
  if (arr.length >= need) return arr;
  const next = new Float64Array(Math.max(need, arr.length * 2, 16));
  next.set(arr);
  if (fill !== 0) next.fill(fill, arr.length);
  return next;
}

export function growU8(arr: Uint8Array<ArrayBuffer>, need: number): Uint8Array<ArrayBuffer> {
  if (arr.length >= need) return arr;
  const next = new Uint8Array(Math.max(need, arr.length * 2, 16));
  next.set(arr);
  return next;
}

export function growI32(arr: Int32Array<ArrayBuffer>, need: number, fill = 0): Int32Array<ArrayBuffer> {
  if (arr.length >= need) return arr;
  const next = new Int32Array(Math.max(need, arr.length * 2, 16));
  next.set(arr);
  if (fill !== 0) next.fill(fill, arr.length);
  return next;
}

const bitsF = new Float64Array(1);
const bitsI = new Int32Array(bitsF.buffer);

/** Open-addressing set of (group, value) pairs on typed arrays; values are doubles (NaN never stored). */
export class PairSet {
  private groups = new Int32Array(64).fill(-1);
  private values = new Float64Array(64);
  private size = 0;

  /** Adds the pair; true when it was not there yet. */
  add(g: number, v: number): boolean {
    if ((this.size + 1) * 2 > this.groups.length) this.rehash(this.groups.length * 2);
    const mask = this.groups.length - 1;
    bitsF[0] = v === 0 ? 0 : v; // -0 and 0 are one value
    let h = Math.imul(bitsI[0]! ^ Math.imul(bitsI[1]!, 0x9e3779b1) ^ Math.imul(g + 1, 0x85ebca6b), 0xc2b2ae35);
    h ^= h >>> 15;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const gi = this.groups[i]!;
      if (gi === -1) {
        this.groups[i] = g;
        this.values[i] = v === 0 ? 0 : v;
        this.size++;
        return true;
      }
      if (gi === g && this.values[i] === v) return false;
    }
  }

  bytes(): number {
    return this.groups.byteLength + this.values.byteLength;
  }

  private rehash(cap: number): void {
    const og = this.groups,
      ov = this.values;
    this.groups = new Int32Array(cap).fill(-1);
    this.values = new Float64Array(cap);
    this.size = 0;
    for (let i = 0; i < og.length; i++) if (og[i]! >= 0) this.add(og[i]!, ov[i]!);
  }
}

/** Text -> a stable id per distinct string (symbol dictionaries mapped once per dictionary). */
export class Interner {
  private ids = new Map<string, number>();
  private dictMap: { dict: readonly string[]; map: Float64Array } | null = null;
  private chars = 0;

  private id(s: string): number {
    let k = this.ids.get(s);
    if (k === undefined) {
      k = this.ids.size;
      this.ids.set(s, k);
      this.chars += s.length;
    }
    return k;
  }

  /** Ids for each row (NaN for NULL). */
  keys(v: ColumnVector, n: number): Float64Array {
    const out = new Float64Array(n);
    if (v.kind === 'symbol') {
      if (!this.dictMap || this.dictMap.dict !== v.dict || this.dictMap.map.length !== v.dict.length) {
        this.dictMap = { dict: v.dict, map: Float64Array.from(v.dict, (s) => this.id(s)) };
      }
      const map = this.dictMap.map;
      for (let i = 0; i < n; i++) {
        const k = v.keys[i]!;
        out[i] = k < 0 ? NaN : map[k]!;
      }
      return out;
    }
    for (let i = 0; i < n; i++) {
      const s = textAt(v, i);
      out[i] = s === null ? NaN : this.id(s);
    }
    return out;
  }

  bytes(): number {
    return this.ids.size * 48 + this.chars * 2;
  }
}

const TEXT_KINDS = new Set(['STRING', 'VARCHAR', 'SYMBOL', 'CHAR']);

/** Values of one argument as distinct-able doubles: numbers as they are, text (and UUID / LONG256 bytes) interned. */
export function distinctKeys(v: ColumnVector, n: number, interner: Interner): Float64Array {
  if (TEXT_KINDS.has(v.type)) return interner.keys(v, n);
  if (v.kind === 'fixed' && isByteRows(v.type)) {
    const w = typeInfo(v.type).stride;
    const isNull = nullFlags(v);
    const hex = Array.from({ length: n }, (_, i) =>
      isNull[i] ? null : Buffer.from((v.data as Uint8Array).subarray(i * w, i * w + w)).toString('hex'),
    );
    return interner.keys(textVector('STRING', hex), n);
  }
  return asDoubles(v);
}

/** Passes each group's first occurrence of every non-NULL value to `inner` (DISTINCT aggregates). */
export class DistinctState implements AggregateState {
  private readonly seen = new PairSet();
  private readonly interner = new Interner();

  constructor(private readonly inner: AggregateState) {}

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    const v = args[0]!;
    const keys = distinctKeys(v, n, this.interner);
    const keep = new Int32Array(n);
    let m = 0;
    for (let i = 0; i < n; i++) {
      const k = keys[i]!;
      if (k === k && this.seen.add(ids[i]!, k)) keep[m++] = i;
    }
    const keptIds = new Int32Array(m);
    for (let j = 0; j < m; j++) keptIds[j] = ids[keep[j]!]!;
    this.inner.update(keptIds, [gatherVector(v, keep.subarray(0, m))], m, groups);
  }

  result(groups: number): ColumnVector {
    return this.inner.result(groups);
  }

  bytes(): number {
    return this.seen.bytes() + this.interner.bytes() + this.inner.bytes();
  }
}
