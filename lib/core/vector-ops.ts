// Whole-vector operations the writer needs: concatenate two vectors of a
// column, and gather rows by an index array (O3 sorting and merging).
import { typeInfo } from './column-type.js';
import { f64ToInt64, type ColumnVector, type FixedArray, type FixedVector, type VarVector } from './column-vector.js';

function concatTyped<T extends FixedArray | Int32Array>(a: T, b: T): T {
  const C = a.constructor as { new(n: number): T };
  const out = new C(a.length + b.length);
  out.set(a as never, 0);
  out.set(b as never, a.length);
  return out;
}

export function concatVectors(a: ColumnVector, b: ColumnVector): ColumnVector {
  if (a.kind === 'fixed' && b.kind === 'fixed') {
    // Exact int64 pairs survive when either side has them (the other side's come from its doubles).
    const pairs = (v: FixedVector): Int32Array => v.exact ?? f64ToInt64(v.data as Float64Array);
    const exact = a.exact || b.exact ? concatTyped(pairs(a), pairs(b)) : undefined;
    return { kind: 'fixed', type: a.type, data: concatTyped(a.data, b.data), exact };
  }
  if (a.kind === 'symbol' && b.kind === 'symbol') {
    // Same dictionary (a table's, growing in place): keys carry over; otherwise b's keys are remapped.
    if (a.dict === b.dict) return { kind: 'symbol', type: 'SYMBOL', keys: concatTyped(a.keys, b.keys), dict: a.dict };
    const dict = [...a.dict];
    const index = new Map(dict.map((v, i) => [v, i]));
    const map = new Int32Array(b.dict.length);
    b.dict.forEach((v, i) => {
      let k = index.get(v);
      if (k === undefined) { k = dict.length; dict.push(v); index.set(v, k); }
      map[i] = k;
    });
    const keys = new Int32Array(a.keys.length + b.keys.length);
    keys.set(a.keys, 0);
    for (let i = 0; i < b.keys.length; i++) { const k = b.keys[i]!; keys[a.keys.length + i] = k < 0 ? -1 : map[k]!; }
    return { kind: 'symbol', type: 'SYMBOL', keys, dict };
  }
  if (a.kind === 'var' && b.kind === 'var') {
    // Only the bytes the rows use: a vector may be a prefix with slack after its last row.
    const na = a.offsets.length - 1, nb = b.offsets.length - 1;
    const aS = a.offsets[0]!, aE = a.offsets[na]!, bS = b.offsets[0]!, bE = b.offsets[nb]!;
    const bytes = new Uint8Array(aE - aS + (bE - bS));
    bytes.set(a.bytes.subarray(aS, aE), 0);
    bytes.set(b.bytes.subarray(bS, bE), aE - aS);
    const offsets = new Int32Array(na + nb + 1);
    for (let i = 0; i <= na; i++) offsets[i] = a.offsets[i]! - aS;
    for (let i = 1; i <= nb; i++) offsets[na + i] = b.offsets[i]! - bS + (aE - aS);
    let nulls: Uint8Array | null = null;
    if (a.nulls || b.nulls) {
      nulls = new Uint8Array(na + nb);
      if (a.nulls) nulls.set(a.nulls.subarray(0, na), 0);
      if (b.nulls) nulls.set(b.nulls.subarray(0, nb), na);
    }
    return { kind: 'var', type: a.type, bytes, offsets, nulls };
  }
  throw new Error(`cannot concatenate ${a.kind} and ${b.kind} vectors`);
}

/** Concatenates many vectors of one column in one pass per kind. */
export function concatMany(vs: readonly ColumnVector[]): ColumnVector {
  if (vs.length === 1) return vs[0]!;
  // Pairwise concatenation in a balanced tree: each byte is copied log2(k) times at most.
  let level = [...vs];
  while (level.length > 1) {
    const next: ColumnVector[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(i + 1 < level.length ? concatVectors(level[i]!, level[i + 1]!) : level[i]!);
    level = next;
  }
  return level[0]!;
}

/** Rows `idx[0], idx[1], ...` of `v`, in that order. */
export function gatherVector(v: ColumnVector, idx: Int32Array): ColumnVector {
  const n = idx.length;
  if (v.kind === 'symbol') {
    const keys = new Int32Array(n);
    gather32(v.keys, idx, keys);
    return { kind: 'symbol', type: 'SYMBOL', keys, dict: v.dict };
  }
  if (v.kind === 'fixed') return gatherFixed(v, idx);
  return gatherVar(v, idx);
}

// One gather loop per element width, each always called with the same array
// types, so every loop stays monomorphic (one loop over the FixedArray union
// runs several times slower). Values are copied as bit patterns: FLOAT through
// an Int32Array view, int64 as two int32 words.

function gather8(src: Float64Array, idx: Int32Array, out: Float64Array): void {
  for (let i = 0; i < idx.length; i++) out[i] = src[idx[i]!]!;
}

function gather32(src: Int32Array, idx: Int32Array, out: Int32Array): void {
  for (let i = 0; i < idx.length; i++) out[i] = src[idx[i]!]!;
}

function gather16(src: Uint16Array, idx: Int32Array, out: Uint16Array): void {
  for (let i = 0; i < idx.length; i++) out[i] = src[idx[i]!]!;
}

function gather8Bit(src: Uint8Array, idx: Int32Array, out: Uint8Array): void {
  for (let i = 0; i < idx.length; i++) out[i] = src[idx[i]!]!;
}

function gatherPairs(src: Int32Array, idx: Int32Array, out: Int32Array): void {
  for (let i = 0; i < idx.length; i++) {
    const r = 2 * idx[i]!;
    out[2 * i] = src[r]!;
    out[2 * i + 1] = src[r + 1]!;
  }
}

function gatherFixed(v: FixedVector, idx: Int32Array): FixedVector {
  const n = idx.length;
  const w = typeInfo(v.type).stride;
  if (w > 1) {
    const src = v.data as Uint8Array;
    const out = new Uint8Array(n * w);
    for (let i = 0; i < n; i++) out.set(src.subarray(idx[i]! * w, idx[i]! * w + w), i * w);
    return { kind: 'fixed', type: v.type, data: out };
  }
  const C = v.data.constructor as { new(n: number): FixedArray };
  const data = new C(n);
  const src = v.data;
  if (src instanceof Float64Array) gather8(src, idx, data as Float64Array);
  else if (src.BYTES_PER_ELEMENT === 4) gather32(view(src, Int32Array), idx, view(data, Int32Array));
  else if (src.BYTES_PER_ELEMENT === 2) gather16(view(src, Uint16Array), idx, view(data, Uint16Array));
  else gather8Bit(view(src, Uint8Array), idx, view(data, Uint8Array));
  let exact: Int32Array | undefined;
  if (v.exact) {
    exact = new Int32Array(n * 2);
    gatherPairs(v.exact, idx, exact);
  }
  return { kind: 'fixed', type: v.type, data, exact };
}

/** The same memory as another typed array of the same element width. */
function view<T>(a: FixedArray, C: { new(b: ArrayBufferLike, off: number, len: number): T }): T {
  return a.constructor === C ? (a as T) : new C(a.buffer, a.byteOffset, a.length);
}

function gatherVar(v: VarVector, idx: Int32Array): VarVector {
  const n = idx.length;
  const offs = v.offsets;
  const src = v.bytes;
  const srcNulls = v.nulls;
  let total = 0;
  for (let i = 0; i < n; i++) { const r = idx[i]!; total += offs[r + 1]! - offs[r]!; }
  const bytes = new Uint8Array(total);
  const offsets = new Int32Array(n + 1);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const r = idx[i]!;
    const s = offs[r]!, e = offs[r + 1]!;
    // Short values are copied byte by byte: cheaper than a subarray object per row.
    if (e - s <= 32) for (let k = s; k < e; k++) bytes[at++] = src[k]!;
    else { bytes.set(src.subarray(s, e), at); at += e - s; }
    offsets[i + 1] = at;
  }
  let nulls: Uint8Array | null = null;
  if (srcNulls !== null) {
    for (let i = 0; i < n; i++) {
      if (srcNulls[idx[i]!] === 1) { nulls ??= new Uint8Array(n); nulls[i] = 1; }
    }
  }
  return { kind: 'var', type: v.type, bytes, offsets, nulls };
}
