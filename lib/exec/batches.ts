// Collecting a stream into one batch for the operators that materialize (sort,
// aggregate output, joins), charged to the statement's budget. Slicing,
// concatenating and gathering batches is core/vector-ops.ts.
import type { Batch } from '../core/batch.js';
import { concatBatches } from '../core/vector-ops.js';
import { batchBytes, pace, type ExecContext, type Held } from './context.js';

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
