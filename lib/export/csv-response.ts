// The /exp CSV body (SPEC.md "GET /exp", QUESTDB-NOTES.md "/exp"): a quoted
// header row unless nm=true, then one line per row, streamed in ChunkWriter
// chunks. CRLF-free: lines end with \n.
import type { Field } from '../sql/bound.js';
import type { Batch } from '../storage/table-reader.js';
import { ChunkWriter } from './chunk-writer.js';
import { windowRows, type RowStats, type RowWindow } from './row-window.js';
import { csvValueWriter } from './value-writers.js';

export interface CsvResponseOptions {
  /** Omit the header row. */
  readonly nm: boolean;
  readonly window: RowWindow | null;
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
  const width = writers.length;
  for await (const [b, from, to] of windowRows(rows, opts.window, false, stats)) {
    const cols = b.columns;
    for (let i = from; i < to; i++) {
      for (let c = 0; c < width; c++) {
        if (c > 0) w.byte(44);
        writers[c]!(w, cols[c]!, i);
      }
      w.byte(10);
      if (w.full) yield w.take();
    }
  }
  yield w.take();
}
