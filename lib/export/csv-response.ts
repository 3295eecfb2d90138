// The /exp CSV body (SPEC.md "GET /exp", QUESTDB-NOTES.md "/exp"): a quoted
// header row unless nm=true, then one line per row, streamed in ChunkWriter
// chunks. CRLF-free: lines end with \n.
import type { Field } from '../sql/bound.js';
import type { Batch } from '../storage/table-reader.js';
import { ChunkWriter } from './chunk-writer.js';
import { windowRows, type RowStats, type RowWindow } from './row-window.js';
import { csvValueWriter } from './value-writers.js';
import type { FormatPool } from './format-pool.js';

/** Slices smaller than this are formatted here: a round trip to the helper thread would cost more than it saves. */
const MIN_HELPER_ROWS = 2048;
/** Slices the helper holds at once. */
const HELPER_DEPTH = 2;
/** Formatted slices kept waiting for an earlier one (bounds memory to a few batches). */
const MAX_QUEUED = 6;

export interface CsvResponseOptions {
  /** Omit the header row. */
  readonly nm: boolean;
  readonly window: RowWindow | null;
  /** A helper thread that formats large slices alongside this one (null: all here). */
  readonly pool?: FormatPool | null;
}

export async function* csvBody(
  fields: readonly Field[], rows: AsyncIterable<Batch>, opts: CsvResponseOptions, stats: RowStats,
): AsyncGenerator<Buffer> {
  const w = new ChunkWriter();
  if (!opts.nm) {
    w.utf8(fields.map((f) => `"${f.name.replace(/"/g, '""')}"`).join(','));
    w.byte(10);
  }
  const writers = fields.map((f) => csvValueWriter(f.type));
  const types = fields.map((f) => f.type);
  const width = writers.length;
  const pool = opts.pool ?? null;
  // Slices in output order: bytes formatted here, or the helper's promise of them. The helper gets a
  // slice whenever it has fewer than HELPER_DEPTH in hand, this thread formats the rest meanwhile:
  // the two share the work by how fast each goes.
  const queue: Slot[] = [];
  let inHelper = 0;
  let bytesPerRow = 64;
  /** Rows [from, to) into `w`; with `chunked`, stops after the row that fills a chunk and returns the next row. */
  const writeRows = (cols: Batch['columns'], from: number, to: number, chunked: boolean): number => {
    for (let i = from; i < to; i++) {
      for (let c = 0; c < width; c++) {
        if (c > 0) w.byte(44);
        writers[c]!(w, cols[c]!, i);
      }
      w.byte(10);
      if (chunked && w.full) return i + 1;
    }
    return to;
  };
  try {
    for await (const [b, from, to] of windowRows(rows, opts.window, false, stats)) {
      const cols = b.columns;
      if (pool !== null && pool.usable && to - from >= MIN_HELPER_ROWS) {
        if (w.pos > 0) queue.push({ bytes: w.take(), done: null });
        if (inHelper < HELPER_DEPTH) {
          inHelper++;
          const slot: Slot = { bytes: null, done: null };
          slot.done = pool.csv(types, cols, from, to).then((x) => { slot.bytes = x; }).finally(() => { inHelper--; });
          queue.push(slot);
        } else {
          // Room for the whole slice up front (from the last slice's bytes per row): no regrowth copies.
          w.ensure(Math.ceil((to - from) * bytesPerRow * 1.25));
          writeRows(cols, from, to, false);
          const out = w.take();
          bytesPerRow = out.length / (to - from);
          queue.push({ bytes: out, done: null });
        }
        while (queue.length > 0 && queue[0]!.bytes !== null) yield queue.shift()!.bytes!;
        yield* drain(queue, MAX_QUEUED);
        continue;
      }
      // Small slices: in order after whatever is queued, streamed in chunks when nothing is.
      yield* drain(queue, 0);
      for (let i = from; i < to;) {
        i = writeRows(cols, i, to, true);
        if (w.full) yield w.take();
      }
    }
    yield* drain(queue, 0);
  } finally {
    // A query that stops early (error, client gone) leaves no rejection unobserved.
    for (const q of queue) q.done?.catch(() => undefined);
  }
  yield w.take();
}

interface Slot {
  bytes: Buffer | null;
  done: Promise<void> | null;
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
