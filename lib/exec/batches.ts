// Whole-result helpers for operators that materialize (sort, aggregate output,
// joins): collect a stream (charged to the statement's budget), concatenate
// batches, gather rows, slice without copying, and cut a big batch into
// DEFAULT_BATCH_ROWS pieces again.
import { DEFAULT_BATCH_ROWS, type Batch } from '../core/batch.js';
import { INT_NULL, type ColumnType } from '../core/column-type.js';
import { nullVector, rowsOf, type ColumnVector, type FixedArray, type FixedVector, type SymbolVector, type VarVector } from '../core/column-vector.js';
import { concatMany, gatherVector } from '../core/vector-ops.js';
import { batchBytes, pace, type ExecContext, type Held } from './context.js';
import { sliceVector } from './vectors.js';

/**
 * Concatenates a stream into one batch, charging it to `held` as it grows (and
 * the copy concatenation makes while both exist); `held` keeps the result's bytes.
 */
export async function collect(input: AsyncIterable<Batch>, width: number, cx: ExecContext, held: Held): Promise<Batch> {
  const parts: Batch[] = [];
  const base = held.bytes;
  let bytes = 0;
  for await (const b of input) {
    if (b.rowCount === 0) continue;
    parts.push(b);
    bytes += batchBytes(b);
    held.set(base + bytes);
    await pace(cx);
  }
  if (parts.length <= 1) return concatBatches(parts, width);
  held.set(base + 2 * bytes);
  const all = concatBatches(parts, width);
  held.set(base + batchBytes(all));
  return all;
}

export function concatBatches(parts: readonly Batch[], width: number): Batch {
  if (parts.length === 1) return parts[0]!;
  if (parts.length === 0) return { rowCount: 0, columns: [] };
  const columns: ColumnVector[] = [];
  for (let c = 0; c < width; c++) columns.push(concatColumn(parts.map((p) => p.columns[c]!)));
  return { rowCount: parts.reduce((s, p) => s + p.rowCount, 0), columns };
}

/**
 * One column's vectors end to end: fixed-width ones (without exact int64 pairs)
 * and symbols of one dictionary in a single copy; others through concatMany.
 */
function concatColumn(vs: readonly ColumnVector[]): ColumnVector {
  const v0 = vs[0]!;
  if (v0.kind === 'fixed' && vs.every((v) => v.kind === 'fixed' && v.type === v0.type && v.exact === undefined)) {
    const C = v0.data.constructor as { new(n: number): FixedArray };
    let total = 0;
    for (const v of vs) total += (v as FixedVector).data.length;
    const data = new C(total);
    let at = 0;
    for (const v of vs) { const d = (v as FixedVector).data; data.set(d as never, at); at += d.length; }
    return { kind: 'fixed', type: v0.type, data };
  }
  if (v0.kind === 'symbol' && vs.every((v) => v.kind === 'symbol' && v.dict === v0.dict)) {
    let total = 0;
    for (const v of vs) total += (v as SymbolVector).keys.length;
    const keys = new Int32Array(total);
    let at = 0;
    for (const v of vs) { keys.set((v as SymbolVector).keys, at); at += (v as SymbolVector).keys.length; }
    return { kind: 'symbol', type: 'SYMBOL', keys, dict: v0.dict };
  }
  return concatMany(vs);
}

export function gatherBatch(b: Batch, idx: Int32Array): Batch {
  return { rowCount: idx.length, columns: b.columns.map((c) => gatherVector(c, idx)) };
}

/** Rows [lo, hi) of a batch, sharing its arrays. */
export function sliceBatch(b: Batch, lo: number, hi: number): Batch {
  if (lo === 0 && hi === b.rowCount) return b;
  return { rowCount: hi - lo, columns: b.columns.map((c) => sliceVector(c, lo, hi)) };
}

/** Rows [lo, hi) of a batch as batches of at most DEFAULT_BATCH_ROWS rows. */
export function* sliceBatches(b: Batch, lo = 0, hi = b.rowCount): Generator<Batch> {
  for (let s = lo; s < hi; s += DEFAULT_BATCH_ROWS) {
    const e = Math.min(hi, s + DEFAULT_BATCH_ROWS);
    yield sliceBatch(b, s, e);
  }
}

/**
 * Rows `idx[i]` of `v`, NULL where `idx[i]` is negative (the right side of a
 * LEFT JOIN without a match); `type` is the column's, for its NULL.
 */
export function gatherOrNull(v: ColumnVector, idx: Int32Array, type: ColumnType): ColumnVector {
  const n = idx.length;
  let missing = 0;
  for (let i = 0; i < n; i++) if (idx[i]! < 0) missing++;
  if (missing === 0) return gatherVector(v, idx);
  if (missing === n || rowsOf(v) === 0) return nullVector(type, n, v.kind === 'symbol' ? v.dict : []);
  if (v.kind === 'var') return gatherVarOrNull(v, idx);
  const safe = new Int32Array(n);
  for (let i = 0; i < n; i++) { const r = idx[i]!; safe[i] = r < 0 ? 0 : r; }
  const g = gatherVector(v, safe);
  if (g.kind === 'symbol') {
    const keys = g.keys;
    for (let i = 0; i < n; i++) if (idx[i]! < 0) keys[i] = -1;
    return g;
  }
  const fixed = g as FixedVector;
  const none = nullVector(fixed.type, 1) as FixedVector;
  const w = fixed.data.length / n;
  for (let i = 0; i < n; i++) {
    if (idx[i]! >= 0) continue;
    if (w === 1) fixed.data[i] = none.data[0]!;
    else (fixed.data as Uint8Array).set(none.data as Uint8Array, i * w);
    if (fixed.exact) { fixed.exact[2 * i] = 0; fixed.exact[2 * i + 1] = INT_NULL; }
  }
  return fixed;
}

function gatherVarOrNull(v: VarVector, idx: Int32Array): VarVector {
  const n = idx.length;
  const offs = v.offsets, src = v.bytes, srcNulls = v.nulls;
  let total = 0;
  for (let i = 0; i < n; i++) { const r = idx[i]!; if (r >= 0) total += offs[r + 1]! - offs[r]!; }
  const bytes = new Uint8Array(total);
  const offsets = new Int32Array(n + 1);
  const nulls = new Uint8Array(n);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const r = idx[i]!;
    if (r < 0 || (srcNulls !== null && srcNulls[r] === 1)) { nulls[i] = 1; offsets[i + 1] = at; continue; }
    const s = offs[r]!, e = offs[r + 1]!;
    bytes.set(src.subarray(s, e), at);
    at += e - s;
    offsets[i + 1] = at;
  }
  return { kind: 'var', type: v.type, bytes, offsets, nulls };
}
