// Rows of a result as CSV lines or JSON arrays, slice by slice, with large
// slices shared between this thread and the worker pool's threads
// (format-pool.ts): the pool takes a slice whenever it holds fewer than
// HELPER_DEPTH per thread, this thread formats the others meanwhile, so they
// split the work by how fast each goes; a queue keeps the output in row order.
import type { SqlType } from '../core/sql-type.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { Batch } from '../core/batch.js';
import type { ChunkWriter } from './chunk-writer.js';
import type { FormatPool } from './format-pool.js';
import { csvValueWriter, jsonValueWriter, type ValueWriter } from './value-writers.js';

/**
 * How rows are written: CSV lines (fields separated by the byte `delimiter`,
 * default a comma), JSON arrays separated by commas, or JSON
 * lines (one object per line; `keys[c]` is column c's `"name":` with the comma
 * before it for c > 0, as UTF-8). JSON lines are never sent to the helper thread.
 */
export type RowFormat =
  | { readonly kind: 'csv'; readonly delimiter?: number }
  | { readonly kind: 'json'; readonly quoteLargeNum: boolean }
  | { readonly kind: 'jsonl'; readonly keys: readonly Uint8Array[] };

/** The keys of a JSON-lines RowFormat for these column names. */
export function jsonLineKeys(names: readonly string[]): Uint8Array[] {
  const enc = new TextEncoder();
  return names.map((n, c) => enc.encode(`${c > 0 ? ',' : ''}${JSON.stringify(n)}:`));
}

export function rowWriters(format: RowFormat, types: readonly SqlType[]): ValueWriter[] {
  return types.map((t) =>
    format.kind === 'csv'
      ? csvValueWriter(t, format.delimiter)
      : jsonValueWriter(t, { quoteLargeNum: format.kind === 'json' && format.quoteLargeNum }),
  );
}

/**
 * Rows [from, to) into `w`. JSON rows are `[...]` with a comma before each but
 * the result's first (`first`). With `chunked`, returns after the row that
 * fills a chunk: the next row to write.
 */
export function writeRows(
  w: ChunkWriter,
  format: RowFormat,
  writers: readonly ValueWriter[],
  cols: readonly ColumnVector[],
  from: number,
  to: number,
  first: boolean,
  chunked: boolean,
): number {
  const width = writers.length;
  if (format.kind === 'jsonl') {
    const keys = format.keys;
    for (let i = from; i < to; i++) {
      w.byte(123);
      for (let c = 0; c < width; c++) {
        w.bytes(keys[c]!);
        writers[c]!(w, cols[c]!, i);
      }
      w.byte(125);
      w.byte(10);
      if (chunked && w.full) return i + 1;
    }
    return to;
  }
  const json = format.kind === 'json';
  const sep = format.kind === 'csv' ? (format.delimiter ?? 44) : 44;
  for (let i = from; i < to; i++) {
    if (json) {
      if (i > from || !first) w.byte(44);
      w.byte(91);
    }
    for (let c = 0; c < width; c++) {
      if (c > 0) w.byte(sep);
      writers[c]!(w, cols[c]!, i);
    }
    w.byte(json ? 93 : 10);
    if (chunked && w.full) return i + 1;
  }
  return to;
}

/** Slices smaller than this are formatted here: a round trip to the helper would cost more than it saves. */
const MIN_HELPER_ROWS = 2048;
/** Slices each pool thread holds at once. */
const HELPER_DEPTH = 4;
/** Formatted slices kept waiting for an earlier one beyond those the pool holds (bounds memory to a few batches). */
const MAX_QUEUED = 4;

interface Slot {
  bytes: Buffer | null;
  done: Promise<void> | null;
}

/**
 * The formatted rows of `slices` after whatever `w` holds already, as chunks
 * in order; `w` is left holding the tail (the caller adds its end and takes it).
 */
export async function* formatSlices(
  slices: AsyncIterable<readonly [Batch, number, number]>,
  format: RowFormat,
  types: readonly SqlType[],
  w: ChunkWriter,
  pool: FormatPool | null,
): AsyncGenerator<Buffer> {
  const writers = rowWriters(format, types);
  const depth = HELPER_DEPTH * (pool?.threads ?? 1);
  const queue: Slot[] = [];
  let inHelper = 0;
  let bytesPerRow = 64;
  let first = true;
  try {
    for await (const [b, from, to] of slices) {
      if (to <= from) continue;
      const cols = b.columns;
      const isFirst = first;
      first = false;
      if (pool !== null && pool.usable && format.kind !== 'jsonl' && to - from >= MIN_HELPER_ROWS) {
        if (w.pos > 0) queue.push({ bytes: w.take(), done: null });
        if (inHelper < depth) {
          inHelper++;
          const slot: Slot = { bytes: null, done: null };
          slot.done = pool
            .format(format, types, cols, from, to, isFirst)
            .then((x) => {
              slot.bytes = x;
            })
            .finally(() => {
              inHelper--;
            });
          // Observed now: a pool thread that dies fails several slices at once, and only the first is awaited.
          slot.done.catch(() => undefined);
          queue.push(slot);
        } else {
          // Room for the whole slice up front (from the last slice's bytes per row): no regrowth copies.
          w.ensure(Math.ceil((to - from) * bytesPerRow * 1.25));
          writeRows(w, format, writers, cols, from, to, isFirst, false);
          const out = w.take();
          bytesPerRow = out.length / (to - from);
          queue.push({ bytes: out, done: null });
        }
        while (queue.length > 0 && queue[0]!.bytes !== null) yield queue.shift()!.bytes!;
        yield* drain(queue, depth + MAX_QUEUED);
        continue;
      }
      // Small slices: in order after whatever is queued, streamed in chunks when nothing is.
      yield* drain(queue, 0);
      for (let i = from; i < to;) {
        i = writeRows(w, format, writers, cols, i, to, isFirst && i === from, true);
        if (w.full) yield w.take();
      }
    }
    yield* drain(queue, 0);
  } finally {
    // A query that stops early (error, client gone) leaves no rejection unobserved.
    for (const q of queue) q.done?.catch(() => undefined);
  }
}

/** Yields queued slices in order, waiting for the helper where needed, until `keep` are left. */
async function* drain(queue: Slot[], keep: number): AsyncGenerator<Buffer> {
  while (queue.length > keep) {
    const head = queue[0]!;
    await head.done; // a failed slice throws here; the rest stay queued for the caller's finally
    queue.shift();
    yield head.bytes!;
  }
}
