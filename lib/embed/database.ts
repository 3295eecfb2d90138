// The embedded database: a database folder opened in-process, no server.
// The same catalog (with its lock: a root a server holds is refused, and a
// server cannot start on a root held here), the same SQL engine, the same
// importer as POST /imp. Queries stream RecordBatches with backpressure.
import { Readable } from 'node:stream';
import * as db from '../db/database.js';
import { SvcError } from '../errors/svc-error.js';
import type { ImportResult } from '../ingest/importer.js';
import { sanitizeName, tableNameFromFile } from '../ingest/import-names.js';
import { parseSchema } from '../ingest/schema.js';
import { batchRows, emptyBatch, type RecordBatch, type Row } from './record-batch.js';

export type { ImportResult, ExecuteResult } from '../db/database.js';

export interface DatabaseOptions {
  /** Bytes a sort or hash table of one query may hold (default: server.conf's query.memory.limit). */
  readonly memoryLimit?: number;
  /** Threads of work in all, this one included (default: server.conf's shared.worker.count, the machine's cores); 1: no helper threads. */
  readonly workerCount?: number;
}

export interface QueryOptions {
  /** Stops the query (the stream then fails with the abort reason). */
  readonly signal?: AbortSignal;
}

/** A query's result: a Readable of RecordBatches (object mode), in the result's order. */
export interface QueryStream extends Readable {
  /** The result's columns (known before any row is read). */
  readonly fields: RecordBatch['fields'];
  /** Index of the designated timestamp among fields, or -1. */
  readonly timestamp: number;
  /** The rows one by one as plain objects (reads this stream). */
  rows(): AsyncGenerator<Row>;
  [Symbol.asyncIterator](): AsyncIterableIterator<RecordBatch>;
}

/** Where importCsv reads from: a file path, bytes, or a stream / async iterable of bytes. */
export type CsvSource = string | Uint8Array | Readable | AsyncIterable<Uint8Array | string>;

/** The /imp parameters, by their names. */
export interface ImportCsvOptions {
  /** Table name (default: from the file name; required for other sources). */
  readonly name?: string;
  readonly overwrite?: boolean;
  readonly atomicity?: 'skipCol' | 'skipRow' | 'abort';
  readonly delimiter?: string;
  readonly forceHeader?: boolean;
  readonly partitionBy?: 'NONE' | 'HOUR' | 'DAY' | 'WEEK' | 'MONTH' | 'YEAR';
  readonly timestamp?: string;
  readonly skipLev?: boolean;
  readonly create?: boolean;
  readonly maxUncommittedRows?: number;
  /** Microseconds, or a duration such as "10s". */
  readonly o3MaxLag?: number | string;
  /** Types by column name, over detection: [{name, type, pattern?}]. */
  readonly schema?: ReadonlyArray<{ readonly name: string; readonly type: string; readonly pattern?: string }>;
  readonly signal?: AbortSignal;
}

const IMPORT_KEYS = [
  'name',
  'overwrite',
  'atomicity',
  'delimiter',
  'forceHeader',
  'partitionBy',
  'timestamp',
  'skipLev',
  'create',
  'maxUncommittedRows',
  'o3MaxLag',
  'schema',
  'signal',
];

/** The library's face of lib/db's Database: its statements as Node streams of RecordBatches, its errors in the library's words. */
export class Database {
  readonly root: string;
  readonly #db: db.Database;

  private constructor(inner: db.Database) {
    this.root = inner.root;
    this.#db = inner;
  }

  /** Opens (creating if needed) the database folder `root`: its server.conf and its tables under db/. */
  static open(root: string, options: DatabaseOptions = {}): Database {
    try {
      return new Database(
        db.Database.open(root, { memoryLimit: options.memoryLimit, workerCount: options.workerCount }),
      );
    } catch (e) {
      throw db.openError(root, e);
    }
  }

  /** Tables that could not be opened (each fails with its error when used). */
  get problems(): ReadonlyArray<{ readonly table: string; readonly error: string }> {
    return this.#db.problems;
  }

  /** Runs a SELECT (or SHOW, EXPLAIN); SQL errors throw here with their position. */
  query(sql: string, options: QueryOptions = {}): QueryStream {
    const run = this.#db.query(
      sql,
      (stmt) =>
        new SvcError('SQL', `query() runs SELECT statements; use execute() for ${stmt.kind.toUpperCase()}`, {
          position: 0,
        }),
      options,
    );
    const stream = Readable.from(recordBatches(run), { objectMode: true, highWaterMark: 1 }) as QueryStream;
    stream.once('close', () => run.stop());
    Object.defineProperties(stream, {
      fields: { value: run.fields, enumerable: true },
      timestamp: { value: run.timestamp, enumerable: true },
      rows: {
        value: async function* rows(this: QueryStream): AsyncGenerator<Row> {
          for await (const b of this as AsyncIterable<RecordBatch>) yield* batchRows(b);
        },
      },
    });
    return stream;
  }

  /** Runs DDL, INSERT or UPDATE, committed when the promise resolves. */
  execute(sql: string, options: QueryOptions = {}): Promise<db.ExecuteResult> {
    return this.#db.execute(
      sql,
      () => new SvcError('SQL', 'execute() runs DDL, INSERT and UPDATE; use query() for SELECT', { position: 0 }),
      options,
    );
  }

  /**
   * Imports CSV (gzip too) into a table as POST /imp does, with the same
   * options, limits (server.conf's import.memory.limit, import.max.columns,
   * http.text.roll.buffer.limit) and result; all of it becomes visible at the
   * end, or none.
   */
  async importCsv(source: CsvSource, options: ImportCsvOptions = {}): Promise<ImportResult> {
    if (this.#db.closed) throw new SvcError('UNAVAILABLE', `the database ${this.root} is closed`);
    for (const k of Object.keys(options)) {
      if (!IMPORT_KEYS.includes(k))
        throw new SvcError('BAD_REQUEST', `unknown importCsv option: ${k} [expected one of ${IMPORT_KEYS.join(', ')}]`);
    }
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(options)) {
      if (v === undefined || k === 'schema' || k === 'signal') continue;
      params.set(k, String(v));
    }
    const p = this.#db.importParams(params, true);
    const schema = options.schema ? parseSchema(JSON.stringify(options.schema)) : [];
    const isPath = typeof source === 'string';
    let table: string;
    if (p.name !== null) table = sanitizeName(p.name, 'import');
    else if (isPath) table = tableNameFromFile(source);
    else throw new SvcError('BAD_REQUEST', 'importCsv needs the name option when the source is not a file path');
    const from: db.ImportSource = isPath
      ? { path: source }
      : source instanceof Uint8Array
        ? Readable.from([source])
        : source;
    return this.#db.importStream(from, {
      opts: p.opts,
      table,
      schema,
      location: isPath ? source : 'data',
      signal: options.signal,
    });
  }

  /** Stops what is still running and releases the folder. */
  close(): Promise<void> {
    return this.#db.close();
  }
}

/** The query's batches as RecordBatches; an empty result still tells a writer downstream its columns. */
async function* recordBatches(run: db.QueryRun): AsyncGenerator<RecordBatch> {
  let any = false;
  for await (const b of run.batches) {
    any = true;
    yield { fields: run.fields, timestamp: run.timestamp, rowCount: b.rowCount, columns: b.columns };
  }
  if (!any) yield emptyBatch(run.fields, run.timestamp);
}

/** Opens (creating if needed) a database folder in this process; refused while a server (or another process) holds it. */
export function openDatabase(root: string, options: DatabaseOptions = {}): Database {
  return Database.open(root, options);
}
