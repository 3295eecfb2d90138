// Batches -> bytes in the writers' formats (CSV as /exp, the /exec JSON
// document, JSON lines, Parquet as /exp?fmt=parquet): the one place the
// library's batchesTo* writers and `svcdb export` (Database.export) pick them.
import type { Batch } from '../core/batch.js';
import type { Field } from '../sql/bound.js';
import { ChunkWriter } from './chunk-writer.js';
import { csvBody } from './csv-response.js';
import type { FormatPool } from './format-pool.js';
import { jsonQueryBody } from './json-response.js';
import type { ParquetOptions } from './parquet/options.js';
import { parquetBody, planParquet } from './parquet/parquet-writer.js';
import { formatSlices, jsonLineKeys } from './row-slices.js';
import type { RowStats } from './row-window.js';

export const BATCH_FORMATS = ['csv', 'json', 'jsonl', 'parquet'] as const;
export type BatchFormat = (typeof BATCH_FORMATS)[number];

/** The columns of a stream of batches, and its designated timestamp (-1 for none). */
export interface BatchSchema {
  readonly fields: readonly Field[];
  readonly timestamp: number;
}

export interface BatchFormatOptions {
  /** CSV: the quoted header line (default true). */
  readonly header?: boolean;
  /** JSON: the "query" member (default ""). */
  readonly query?: string;
  /** JSON: LONG values as strings (default false). */
  readonly quoteLargeNum?: boolean;
  /** Parquet: the parsed /exp parameters. */
  readonly parquet?: ParquetOptions;
  /** CSV and Parquet: the pool rows are formatted and pages compressed on (its owner's: a Database's, or the library's); none: this thread. */
  readonly pool?: FormatPool | null;
}

/**
 * The bytes of `batches` in `format`; `schema` is null when the stream had no
 * batch at all (CSV and JSON lines are then empty, JSON has no columns).
 * Rows written are counted in `stats.sent`.
 */
export function formatBatches(
  format: BatchFormat,
  schema: BatchSchema | null,
  batches: AsyncIterable<Batch>,
  o: BatchFormatOptions,
  stats: RowStats,
): AsyncIterable<Buffer> | Iterable<Buffer> {
  switch (format) {
    case 'csv':
      return schema === null
        ? []
        : csvBody(schema.fields, batches, { nm: o.header === false, window: null, pool: o.pool ?? null }, stats);
    case 'json':
      return jsonQueryBody(
        { fields: schema?.fields ?? [], timestamp: schema?.timestamp ?? -1 },
        batches,
        {
          query: o.query ?? '',
          nm: false,
          count: true,
          timings: false,
          explain: false,
          quoteLargeNum: o.quoteLargeNum === true,
          window: null,
          compileNanos: 0,
          pool: null,
        },
        stats,
      );
    case 'jsonl':
      return schema === null ? [] : jsonLines(schema.fields, batches, stats);
    case 'parquet':
      if (schema === null || o.parquet === undefined)
        throw new Error('a Parquet file needs the columns and the options');
      return parquetBody(
        planParquet(schema.fields, schema.timestamp, null, o.parquet),
        batches,
        null,
        stats,
        o.pool ?? null,
      );
  }
}

/** JSON lines: one object per row, keys the column names, values as /exec prints them. */
async function* jsonLines(
  fields: readonly Field[],
  batches: AsyncIterable<Batch>,
  stats: RowStats,
): AsyncGenerator<Buffer> {
  const w = new ChunkWriter();
  const format = { kind: 'jsonl', keys: jsonLineKeys(fields.map((f) => f.name)) } as const;
  async function* slices(): AsyncGenerator<readonly [Batch, number, number]> {
    for await (const b of batches) {
      stats.sent += b.rowCount;
      yield [b, 0, b.rowCount] as const;
    }
  }
  yield* formatSlices(
    slices(),
    format,
    fields.map((f) => f.type),
    w,
    null,
  );
  yield w.take();
}
