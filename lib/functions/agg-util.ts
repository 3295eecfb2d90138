// Building blocks of aggregate states: per-group typed arrays grown by
// doubling, a typed-array hash set of (group, value) pairs, text interning,
// and the DISTINCT wrapper that feeds an aggregate each group's new values once.
import { Buffer } from 'node:buffer';
import type { ColumnVector } from '../core/column-vector.js';
import type { AggregateState } from './registry.js';
import { asDoubles, fromDoubles, nullFlags, textVector } from '../core/vec.js';
import { TextIds } from '../core/key-ids.js';
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

/** Text -> a stable id per distinct value, on the UTF-8 bytes (symbol keys and dictionary codes mapped once per entry). */
export class Interner {
  private readonly text = new TextIds();
  private scratch = new Int32Array(0);

  /** Ids for each row (NaN for NULL). */
  keys(v: ColumnVector, n: number): Float64Array {
    const out = new Float64Array(n);
    const ids = this.ids(v, n);
    const nullId = this.text.ids.peekNullId();
    for (let i = 0; i < n; i++) {
      const k = ids[i]!;
      out[i] = k === nullId ? NaN : k;
    }
    return out;
  }

  /** Ids for each row, NULL's among them (nullId()); the array is reused by the next call. */
  ids(v: ColumnVector, n: number): Int32Array {
    if (this.scratch.length < n) this.scratch = new Int32Array(n);
    this.text.assign(v, n, this.scratch);
    return this.scratch;
  }

  /** Ids given so far (NULL's included). */
  get size(): number {
    return this.text.size;
  }

  /** The id NULL has, or -1 while no NULL was seen. */
  nullId(): number {
    return this.text.ids.peekNullId();
  }

  bytes(): number {
    return this.text.bytes() + this.scratch.byteLength;
  }
}

/**
 * count_distinct(x) and count(DISTINCT x): per group, the number of distinct
 * non-NULL values. Text is counted by its ids (a bit per id without GROUP BY
 * keys), other values as (group, value) pairs.
 */
export class CountDistinctState implements AggregateState {
  private readonly seen = new PairSet();
  private readonly interner = new Interner();
  private counts = new Float64Array(0);
  /** While there is one group (always, without GROUP BY keys): the text ids it has seen (1 each). */
  private seenIds = new Uint8Array(0);

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.counts = growF64(this.counts, groups);
    const counts = this.counts;
    const v = args[0]!;
    if (TEXT_KINDS.has(v.type)) {
      const keys = this.interner.ids(v, n);
      const nullId = this.interner.nullId();
      if (groups === 1) {
        const need = this.interner.size;
        if (this.seenIds.length < need) this.seenIds = growU8(this.seenIds, need);
        const seen = this.seenIds;
        let added = 0;
        for (let i = 0; i < n; i++) {
          const k = keys[i]!;
          if (seen[k] === 0 && k !== nullId) {
            seen[k] = 1;
            added++;
          }
        }
        counts[0]! += added;
        return;
      }
      // More groups than one now: the ids seen while there was one join the pairs, as group 0's.
      if (this.seenIds.length > 0) {
        for (let k = 0; k < this.seenIds.length; k++) if (this.seenIds[k] === 1) this.seen.add(0, k);
        this.seenIds = new Uint8Array(0);
      }
      for (let i = 0; i < n; i++) {
        const k = keys[i]!;
        if (k !== nullId && this.seen.add(ids[i]!, k)) counts[ids[i]!]!++;
      }
      return;
    }
    const keys = distinctKeys(v, n, this.interner);
    for (let i = 0; i < n; i++) {
      const k = keys[i]!;
      const g = groups === 1 ? 0 : ids[i]!;
      if (k === k && this.seen.add(g, k)) counts[g]!++;
    }
  }

  result(groups: number): ColumnVector {
    this.counts = growF64(this.counts, groups);
    return fromDoubles('LONG', this.counts.slice(0, groups));
  }

  bytes(): number {
    return this.seen.bytes() + this.interner.bytes() + this.counts.byteLength + this.seenIds.byteLength;
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
