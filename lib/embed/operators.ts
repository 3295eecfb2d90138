// The library's stream operators: the pieces the server composes, as Node
// streams usable in stream.pipeline (or stream-chain) with backpressure.
// Each is a GeneratorStage (a Duplex running an async generator over its
// input, one object waiting each side), so a slow consumer stops the producer.
//
//   bytes -> csvToBatches -> RecordBatch -> where / select -> RecordBatch
//         -> batchesToCsv | batchesToJson | batchesToJsonLines | batchesToParquet -> bytes
//
// The writers are the /exp and /exec writers; csvToBatches is /imp's
// detection, tokenizer and row rules (CsvBatcher); where() and select() are
// the SQL engine's binder and filter/project operators over the batches.
import type { Duplex } from 'node:stream';
import { SvcError } from '../errors/svc-error.js';
import { compileOverInputs, runOverInputs, transformEngine } from '../db/batch-transform.js';
import type { StatementEngine } from '../db/database.js';
import type { SelectStatement } from '../exec/engine.js';
import { formatBatches } from '../export/batch-formats.js';
import { sharedFormatPool } from '../export/format-pool.js';
import { PARQUET_PARAMETERS, parseParquetOptions } from '../export/parquet/options.js';
import { copySlice } from '../core/vector-ops.js';
import type { RowStats } from '../export/row-window.js';
import { CsvBatcher, type CsvLayout } from '../ingest/csv-batcher.js';
import { maybeGunzip } from '../ingest/gunzip.js';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../ingest/import-limits.js';
import { parseImportParams } from '../ingest/import-params.js';
import { parseSchema } from '../ingest/schema.js';
import type { BoundExpr, Field, Plan } from '../sql/bound.js';
import { parseStatement } from '../sql/parser.js';
import { toVector } from '../core/column-vector.js';
import type { ColumnType } from '../core/column-type.js';
import type { Batch } from '../core/batch.js';
import { emptyBatch, type RecordBatch } from './record-batch.js';
import { GeneratorStage } from './generator-stage.js';

// ---------------------------------------------------------------------------
// Shared plumbing

/** Progress of a writer: rows written and bytes produced so far. */
export interface Progress {
  readonly rows: number;
  readonly bytes: number;
}

export interface WriterOptions {
  /** Called after each chunk of output with the totals so far. */
  readonly onProgress?: (p: Progress) => void;
}

/** Options for the writers, as /exp and /imp take them: scalars, turned into URL parameters. */
type ParamValue = string | number | boolean | readonly string[] | undefined;

function toParams(options: object, skip: readonly string[]): URLSearchParams {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(options) as Array<[string, ParamValue]>) {
    if (v === undefined || skip.includes(k)) continue;
    p.set(k, Array.isArray(v) ? v.join(',') : String(v));
  }
  return p;
}

/** Refuses option names `what` does not know (a typo would otherwise be ignored silently). */
function checkKeys(what: string, options: object, known: readonly string[]): void {
  for (const k of Object.keys(options)) {
    if (!known.includes(k))
      throw new SvcError('BAD_REQUEST', `unknown ${what} option: ${k} [expected one of ${known.join(', ')}]`);
  }
}

/** The first batch (for the schema) and then every batch again, as one stream. */
async function schemaAndBatches(
  source: AsyncIterable<RecordBatch>,
): Promise<{ first: RecordBatch | null; all: AsyncIterable<Batch> }> {
  const it = source[Symbol.asyncIterator]();
  const r = await it.next();
  if (r.done)
    return {
      first: null,
      all: (async function* () {
        /* empty */
      })(),
    };
  const first = checkBatch(r.value);
  return {
    first,
    all: (async function* () {
      yield first;
      for (let n = await it.next(); !n.done; n = await it.next()) {
        const b = checkBatch(n.value);
        if (b.fields.length !== first.fields.length || b.fields.some((f, i) => f.type !== first.fields[i]!.type)) {
          throw new SvcError('BAD_REQUEST', 'the batches of one stream must all have the same columns');
        }
        yield b;
      }
    })(),
  };
}

function checkBatch(b: unknown): RecordBatch {
  const r = b as RecordBatch;
  if (
    r === null ||
    typeof r !== 'object' ||
    !Array.isArray(r.fields) ||
    !Array.isArray(r.columns) ||
    typeof r.rowCount !== 'number'
  ) {
    throw new SvcError(
      'BAD_REQUEST',
      'expected RecordBatch objects ({fields, timestamp, rowCount, columns}), as csvToBatches and Database.query produce',
    );
  }
  return r;
}

/** A byte writer: fields from the first batch, then the body generator's chunks, with progress. */
function byteWriter(
  options: WriterOptions,
  body: (
    first: RecordBatch | null,
    batches: AsyncIterable<Batch>,
    stats: RowStats,
  ) => AsyncIterable<Buffer> | Iterable<Buffer>,
): Duplex {
  return new GeneratorStage(
    async function* (source: AsyncIterable<RecordBatch>) {
      const { first, all } = await schemaAndBatches(source);
      const stats: RowStats = { sent: 0, matched: 0 };
      let bytes = 0;
      for await (const chunk of body(first, all, stats)) {
        if (chunk.length === 0) continue;
        bytes += chunk.length;
        yield chunk;
        options.onProgress?.({ rows: stats.sent, bytes });
      }
    },
    { writableObjectMode: true, readableObjectMode: false },
  );
}

// ---------------------------------------------------------------------------
// CSV in

export interface CsvToBatchesOptions {
  /** One character; detected when absent (comma, tab, pipe, semicolon). */
  readonly delimiter?: string;
  /** The first line is a header (detected when absent). */
  readonly forceHeader?: boolean;
  /** Types (and date patterns) by column name, over detection: [{name, type, pattern?}]. */
  readonly schema?: ReadonlyArray<{ readonly name: string; readonly type: string; readonly pattern?: string }>;
  /** What a value that does not convert does: skipCol (NULL, default), skipRow, abort. */
  readonly atomicity?: 'skipCol' | 'skipRow' | 'abort';
  /** Keep lines with extra values (their extras are dropped) instead of rejecting them. */
  readonly skipLev?: boolean;
  /** A TIMESTAMP column that becomes the batches' designated timestamp; rows without it are rejected. */
  readonly timestamp?: string;
  /** Lines detection looks at (default 1000). */
  readonly analysisLines?: number;
  /** Rows per batch at most (default 65,536; fewer when rows are wide). */
  readonly batchRows?: number;
  /** Names the input in messages (default "csv"); a name ending in .gz also means gzip. */
  readonly name?: string;
  /** Bytes the stage may hold: builders, the lines detection waits for, SYMBOL dictionaries (default 1 GiB, as import.memory.limit). */
  readonly memoryLimit?: number;
  /** Columns the input may have (default 2048, as import.max.columns). */
  readonly maxColumns?: number;
  /** The longest line held for detection, and value held across chunks (default 4 MiB, as http.text.roll.buffer.limit). */
  readonly maxLineBytes?: number;
}

/** What csvToBatches read, once its input ended (as /imp reports it). */
export interface CsvResult {
  readonly rowsAccepted: number;
  readonly rowsRejected: number;
  readonly header: boolean;
  readonly columns: ReadonlyArray<{ readonly name: string; readonly type: string; readonly errors: number }>;
}

export interface CsvToBatchesStream extends Duplex {
  /** Set when the input has been read to its end. */
  readonly result: CsvResult | null;
}

const CSV_OPTION_KEYS = [
  'delimiter',
  'forceHeader',
  'schema',
  'atomicity',
  'skipLev',
  'timestamp',
  'analysisLines',
  'batchRows',
  'name',
  'memoryLimit',
  'maxColumns',
  'maxLineBytes',
];

/**
 * CSV bytes (gzip too) -> RecordBatches: delimiter, header and types detected
 * as /imp does, schema entries over detection, /imp's row rules.
 */
export function csvToBatches(options: CsvToBatchesOptions = {}): CsvToBatchesStream {
  checkKeys('csvToBatches', options, CSV_OPTION_KEYS);
  const analysisLines = options.analysisLines ?? 1000;
  if (!Number.isInteger(analysisLines) || analysisLines < 2)
    throw new SvcError(
      'BAD_REQUEST',
      `invalid value for option analysisLines: ${analysisLines} [expected an integer of at least 2]`,
    );
  const batchRows = options.batchRows ?? 1 << 16;
  if (!Number.isInteger(batchRows) || batchRows < 1)
    throw new SvcError('BAD_REQUEST', `invalid value for option batchRows: ${batchRows} [expected a positive integer]`);
  const limit = (name: 'memoryLimit' | 'maxColumns' | 'maxLineBytes', def: number): number => {
    const v = options[name] ?? def;
    if (!Number.isInteger(v) || v < 1)
      throw new SvcError('BAD_REQUEST', `invalid value for option ${name}: ${v} [expected a positive integer]`);
    return v;
  };
  const limits: ImportLimits = {
    memory: limit('memoryLimit', DEFAULT_IMPORT_LIMITS.memory),
    maxColumns: limit('maxColumns', DEFAULT_IMPORT_LIMITS.maxColumns),
    lineBytes: limit('maxLineBytes', DEFAULT_IMPORT_LIMITS.lineBytes),
    segmentBytes: DEFAULT_IMPORT_LIMITS.segmentBytes, // csvToBatches parses on its caller's thread
    keys: { memory: 'memoryLimit option', maxColumns: 'maxColumns option', lineBytes: 'maxLineBytes option' },
  };
  // The same parser (and messages) as /imp's parameters.
  const p = parseImportParams(
    toParams(options, ['schema', 'analysisLines', 'batchRows', 'name', 'memoryLimit', 'maxColumns', 'maxLineBytes']),
    analysisLines,
    true,
  ).opts;
  const schema = options.schema ? parseSchema(JSON.stringify(options.schema)) : [];
  const label = options.name ?? 'csv';
  const state: { result: CsvResult | null } = { result: null };

  const stream = new GeneratorStage(
    async function* (source: AsyncIterable<Uint8Array | string>) {
      let fields: Field[] = [];
      let types: ColumnType[] = [];
      let ts = -1;
      const ready: RecordBatch[] = [];
      const batcher = new CsvBatcher(
        {
          label,
          atomicity: p.atomicity,
          delimiter: p.delimiter,
          forceHeader: p.forceHeader,
          skipLev: p.skipLev,
          schema,
          analysisLines,
          batchRows,
          abortNote: '; the stream stops here (the batches before this line were passed on)',
          limits,
        },
        {
          prepare: (layout: CsvLayout) => {
            types = layout.types;
            fields = layout.names.map((name, i) => ({ name, type: layout.types[i]! }));
            if (p.timestamp !== null) {
              ts = layout.names.findIndex((n) => n.toLowerCase() === p.timestamp!.toLowerCase());
              if (ts < 0)
                throw new SvcError(
                  'BAD_REQUEST',
                  `timestamp column does not exist in the file [column=${p.timestamp}]`,
                );
              if (layout.types[ts] !== 'TIMESTAMP') {
                throw new SvcError(
                  'BAD_REQUEST',
                  `timestamp column must be a TIMESTAMP [column=${layout.names[ts]}, detected=${layout.types[ts]}]; give its type and pattern in the schema option`,
                );
              }
            }
            return { types: layout.types, patterns: layout.patterns, names: layout.names, tsColumn: ts };
          },
          batch: (rows, inputs) => {
            const columns = inputs.map((input, i) =>
              copySlice(toVector(fields[i]!.name, types[i]!, input, rows), 0, rows),
            );
            ready.push({ fields, timestamp: ts, rowCount: rows, columns });
          },
        },
      );
      async function* bytes(): AsyncGenerator<Uint8Array> {
        for await (const c of source) yield typeof c === 'string' ? Buffer.from(c) : c;
      }
      for await (const chunk of maybeGunzip(bytes(), label)) {
        await batcher.push(chunk);
        while (ready.length > 0) yield ready.shift()!;
      }
      await batcher.finish();
      while (ready.length > 0) yield ready.shift()!;
      state.result = {
        rowsAccepted: batcher.rowsAccepted,
        rowsRejected: batcher.rowsRejected,
        header: batcher.header,
        columns: fields.map((f, i) => ({ name: f.name, type: f.type, errors: batcher.errors[i] ?? 0 })),
      };
    },
    { writableObjectMode: false, readableObjectMode: true },
  );
  Object.defineProperty(stream, 'result', { get: () => state.result, enumerable: true });
  return stream as unknown as CsvToBatchesStream;
}

// ---------------------------------------------------------------------------
// Transforms

/** The input's name inside where() and select(): not a name a user would pick. */
const INPUT = 'batches';

/** Plan nodes that work on each batch on its own. */
const PER_BATCH = new Set<Plan['kind']>(['input', 'filter', 'project']);

function checkPerBatch(plan: Plan, what: string): void {
  if (!PER_BATCH.has(plan.kind)) {
    throw new SvcError(
      'SQL',
      `${what} works on each batch on its own, so ${plan.kind === 'aggregate' ? 'aggregate functions' : `'${plan.kind}'`} cannot be used here; load the rows into a table and query it`,
      { position: 0 },
    );
  }
  const exprs = plan.kind === 'filter' ? [plan.predicate] : plan.kind === 'project' ? plan.exprs : [];
  for (const e of exprs) {
    const sub = subqueryIn(e);
    if (sub !== null)
      throw new SvcError(
        'SQL',
        `${what} works on each batch on its own, so subqueries cannot be used here; load the rows into a table and query it`,
        { position: sub },
      );
  }
  if (plan.kind === 'filter' || plan.kind === 'project') checkPerBatch(plan.input, what);
}

/** The position of a subquery inside `e`, or null. */
function subqueryIn(e: BoundExpr): number | null {
  switch (e.kind) {
    case 'subquery':
    case 'inSubquery':
      return e.pos;
    case 'call': {
      for (const a of e.args) {
        const p = subqueryIn(a);
        if (p !== null) return p;
      }
      return null;
    }
    default:
      return null;
  }
}

/** `prefix + text` parsed (errors with positions into `text`): syntax errors show when the operator is made. */
function parseFor(what: string, prefix: string, text: string): void {
  try {
    parseStatement(prefix + text);
  } catch (e) {
    throw placeIn(what, prefix, e);
  }
}

/** An error of the SQL svcdb wrapped around the user's text, moved to a position in that text. */
function placeIn(what: string, prefix: string, e: unknown): unknown {
  if (e instanceof SvcError && e.position !== undefined) {
    return new SvcError(e.code, `${what}: ${e.message}`, { position: Math.max(0, e.position - prefix.length) });
  }
  return e;
}

/**
 * A per-batch SQL transform: `prefix + text` compiled against the batches'
 * columns (again when the columns change); errors point into `text`. The
 * stage is a small database of its own: its function registry and yield
 * clock, made on first use.
 */
function sqlTransform(what: string, prefix: string, text: string): Duplex {
  if (typeof text !== 'string' || text.trim() === '')
    throw new SvcError('BAD_REQUEST', `${what} needs a SQL expression string`);
  parseFor(what, prefix, text);
  let engine: StatementEngine | null = null;
  let compiled: { fields: readonly Field[]; stmt: SelectStatement; engine: StatementEngine } | null = null;
  const compileFor = (b: RecordBatch): { fields: readonly Field[]; stmt: SelectStatement; engine: StatementEngine } => {
    if (compiled !== null && compiled.fields === b.fields) return compiled;
    const inputs = new Map([[INPUT, { fields: b.fields, timestamp: b.timestamp }]]);
    engine ??= transformEngine();
    let stmt;
    try {
      stmt = compileOverInputs(prefix + text, inputs, engine);
      if (stmt.kind !== 'select')
        throw new SvcError('SQL', `${what} takes an expression, not a statement`, { position: 0 });
      checkPerBatch(stmt.plan, what);
    } catch (e) {
      throw placeIn(what, prefix, e);
    }
    compiled = { fields: b.fields, stmt, engine };
    return compiled;
  };
  return new GeneratorStage(
    async function* (source: AsyncIterable<RecordBatch>, signal: AbortSignal) {
      for await (const item of source) {
        const b = checkBatch(item);
        const { stmt, engine: e } = compileFor(b);
        const plan = stmt.plan;
        const one = (async function* () {
          yield b as Batch;
        })();
        let rows = 0;
        for await (const out of runOverInputs(stmt, e, signal, new Map([[INPUT, one]]))) {
          if (out.rowCount === 0) continue;
          rows += out.rowCount;
          yield { fields: plan.fields, timestamp: plan.timestamp, rowCount: out.rowCount, columns: out.columns };
        }
        // A batch with no rows left still carries the columns downstream (a writer needs them for an empty result).
        if (rows === 0) yield emptyBatch(plan.fields, plan.timestamp);
      }
    },
    { writableObjectMode: true, readableObjectMode: true },
  );
}

/** Keeps the rows for which `condition` (a SQL boolean expression over the batches' columns) is true. */
export function where(condition: string): Duplex {
  return sqlTransform('where()', `SELECT * FROM ${INPUT} WHERE `, condition);
}

/** Computes a SQL select list over each batch: `select("ts, price * 2 AS p, upper(sym) s")`. */
export function select(list: string): Duplex {
  return sqlTransform('select()', 'SELECT ', `${list} FROM ${INPUT}`);
}

// ---------------------------------------------------------------------------
// Writers

export interface BatchesToCsvOptions extends WriterOptions {
  /** Write the quoted header line (default true). */
  readonly header?: boolean;
}

/** RecordBatches -> CSV as /exp writes it (quoted header, quoted text and timestamps, NULL empty). */
export function batchesToCsv(options: BatchesToCsvOptions = {}): Duplex {
  checkKeys('batchesToCsv', options, ['header', 'onProgress']);
  return byteWriter(options, (first, all, stats) =>
    formatBatches('csv', first, all, { header: options.header }, stats),
  );
}

export interface BatchesToJsonOptions extends WriterOptions {
  /** The "query" member (default ""). */
  readonly query?: string;
  /** LONG values as strings (default false). */
  readonly quoteLargeNum?: boolean;
}

/** RecordBatches -> the /exec JSON document: {query, columns, timestamp, dataset, count}. */
export function batchesToJson(options: BatchesToJsonOptions = {}): Duplex {
  checkKeys('batchesToJson', options, ['query', 'quoteLargeNum', 'onProgress']);
  return byteWriter(options, (first, all, stats) =>
    formatBatches('json', first, all, { query: options.query, quoteLargeNum: options.quoteLargeNum }, stats),
  );
}

/** RecordBatches -> JSON lines: one object per row, keys the column names, values as /exec prints them. */
export function batchesToJsonLines(options: WriterOptions = {}): Duplex {
  checkKeys('batchesToJsonLines', options, ['onProgress']);
  return byteWriter(options, (first, all, stats) => formatBatches('jsonl', first, all, {}, stats));
}

/** The /exp Parquet parameters, by their names (README "Parquet export" has their meanings and defaults). */
export interface BatchesToParquetOptions extends WriterOptions {
  /** UNCOMPRESSED, SNAPPY, GZIP, LZO, BROTLI, LZ4, ZSTD (default), LZ4_RAW; any case. */
  readonly compression_codec?: string;
  readonly compression_level?: number | string;
  readonly row_group_size?: number | string;
  readonly data_page_size?: number | string;
  readonly statistics_enabled?: boolean | string;
  readonly parquet_version?: 1 | 2 | '1' | '2';
  /** NONE, HOUR, DAY, WEEK, MONTH, YEAR: row groups never span two periods of the designated timestamp. */
  readonly partition_by?: string;
  readonly raw_array_encoding?: boolean | string;
  /** Column names (an array or a comma-separated string). */
  readonly bloom_filter_columns?: string | readonly string[];
  readonly bloom_filter_fpp?: number | string;
}

/** RecordBatches -> a Parquet file, written as /exp?fmt=parquet writes it; bad options throw naming the parameter. */
export function batchesToParquet(options: BatchesToParquetOptions = {}): Duplex {
  checkKeys('batchesToParquet', options, ['onProgress', ...PARQUET_PARAMETERS]);
  const parquet = parseParquetOptions(toParams(options, ['onProgress']));
  return byteWriter(options, (first, all, stats) => {
    if (first === null)
      throw new SvcError(
        'BAD_REQUEST',
        'batchesToParquet got no batches: a Parquet file needs the columns of at least one batch',
      );
    return formatBatches('parquet', first, all, { parquet, pool: sharedFormatPool() }, stats);
  });
}
