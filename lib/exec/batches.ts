// Whole-result helpers for operators that materialize (sort, aggregate output,
// joins): concatenate batches, gather rows, and cut a big batch into
// DEFAULT_BATCH_ROWS pieces again.
import { DEFAULT_BATCH_ROWS, type Batch } from '../storage/table-reader.js';
import type { ColumnVector } from '../storage/column-vector.js';
import { concatMany, gatherVector } from '../storage/vector-ops.js';
import { checkMemory, vectorBytes, type ExecContext } from './context.js';

/** Concatenates a stream into one batch (memory-limited). */
export async function collect(input: AsyncIterable<Batch>, width: number, cx: ExecContext, what: string): Promise<Batch> {
  const parts: Batch[] = [];
  let bytes = 0;
  for await (const b of input) {
    if (b.rowCount === 0) continue;
    parts.push(b);
    bytes += b.columns.reduce((s, c) => s + vectorBytes(c as never), 0);
    checkMemory(cx, bytes, what);
  }
  return concatBatches(parts, width);
}

export function concatBatches(parts: readonly Batch[], width: number): Batch {
  if (parts.length === 1) return parts[0]!;
  if (parts.length === 0) return { rowCount: 0, columns: [] };
  const columns: ColumnVector[] = [];
  for (let c = 0; c < width; c++) columns.push(concatMany(parts.map((p) => p.columns[c]!)));
  return { rowCount: parts.reduce((s, p) => s + p.rowCount, 0), columns };
}

export function gatherBatch(b: Batch, idx: Int32Array): Batch {
  return { rowCount: idx.length, columns: b.columns.map((c) => gatherVector(c, idx)) };
}

/** Rows [lo, hi) of a batch as batches of at most DEFAULT_BATCH_ROWS rows. */
export function* sliceBatches(b: Batch, lo = 0, hi = b.rowCount): Generator<Batch> {
  for (let s = lo; s < hi; s += DEFAULT_BATCH_ROWS) {
    const e = Math.min(hi, s + DEFAULT_BATCH_ROWS);
    if (s === 0 && e === b.rowCount) { yield b; return; }
    const idx = new Int32Array(e - s);
    for (let i = 0; i < idx.length; i++) idx[i] = s + i;
    yield gatherBatch(b, idx);
  }
}
