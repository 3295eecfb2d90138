// The /exp CSV body (SPEC.md "GET /exp", QUESTDB-NOTES.md "/exp"): a quoted
// header row unless nm=true, then one line per row, streamed in ChunkWriter
// chunks. CRLF-free: lines end with \n. Fields are separated by `delimiter`
// (default a comma); text is escaped as QuestDB escapes it (value-writers.ts).
import type { Field } from '../sql/bound.js';
import type { Batch } from '../core/batch.js';
import { ChunkWriter } from './chunk-writer.js';
import { windowRows, type RowStats, type RowWindow } from './row-window.js';
import type { FormatPool } from './format-pool.js';
import { formatSlices } from './row-slices.js';
import { csvQuotedText } from './value-writers.js';

export interface CsvResponseOptions {
  /** Omit the header row. */
  readonly nm: boolean;
  readonly window: RowWindow | null;
  /** The field delimiter, one ASCII byte (default 0x2c, a comma). */
  readonly delimiter?: number;
  /** A helper thread that formats large slices alongside this one (null: all here). */
  readonly pool?: FormatPool | null;
}

export async function* csvBody(
  fields: readonly Field[],
  rows: AsyncIterable<Batch>,
  opts: CsvResponseOptions,
  stats: RowStats,
): AsyncGenerator<Buffer> {
  const w = new ChunkWriter();
  const delimiter = opts.delimiter ?? 0x2c;
  if (!opts.nm) {
    w.utf8(fields.map((f) => csvQuotedText(f.name)).join(String.fromCharCode(delimiter)));
    w.byte(10);
  }
  yield* formatSlices(
    windowRows(rows, opts.window, false, stats),
    { kind: 'csv', delimiter },
    fields.map((f) => f.type),
    w,
    opts.pool ?? null,
  );
  yield w.take();
}
