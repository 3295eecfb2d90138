// The embedded database: a database folder opened in-process, no server.
// The same catalog (with its lock: a root a server holds is refused, and a
// server cannot start on a root held here), the same SQL engine, the same
// importer as POST /imp. Queries stream RecordBatches with backpressure.
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { loadConfig } from '../config/config.js';
import { SvcError, isSvcError } from '../errors/svc-error.js';
import { compile, type SelectStatement } from '../exec/engine.js';
import { Pacer } from '../exec/pacer.js';
import { createFunctionRegistry } from '../functions/index.js';
import { maybeGunzip } from '../ingest/gunzip.js';
import { importLimitsFromConfig, type ImportLimits } from '../ingest/import-limits.js';
import { parseImportParams } from '../ingest/import-params.js';
import { sanitizeName, tableNameFromFile } from '../ingest/import-names.js';
import { Importer, type ImportResult } from '../ingest/importer.js';
import { parseSchema } from '../ingest/schema.js';
import { Catalog, catalogOptions } from '../storage/catalog.js';
import { columnNamingFromConfig, type ColumnNaming } from '../sql/column-alias.js';
import { queryMemoryTotal, type MemoryBudget } from '../limits/memory-budget.js';
import { batchRows, emptyBatch, type RecordBatch, type Row } from './record-batch.js';

export type { ImportResult };

export interface DatabaseOptions {
  /** Bytes a sort or hash table of one query may hold (default: server.conf's query.memory.limit). */
  readonly memoryLimit?: number;
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

export interface ExecuteResult {
  /** ddl: CREATE/DROP/ALTER/TRUNCATE/RENAME; insert: INSERT; update: UPDATE. */
  readonly kind: 'ddl' | 'insert' | 'update';
  /** Rows inserted or updated (0 for DDL). */
  readonly rows: number;
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

const IMPORT_KEYS = ['name', 'overwrite', 'atomicity', 'delimiter', 'forceHeader', 'partitionBy', 'timestamp', 'skipLev', 'create', 'maxUncommittedRows', 'o3MaxLag', 'schema', 'signal'];

interface Limits { readonly memoryLimit: number; readonly parentBudget: MemoryBudget; readonly maxTextBytes: number; readonly columnNaming: ColumnNaming }

export class Database {
  readonly root: string;
  readonly #catalog: Catalog;
  /** query.memory.limit, the process-wide budget of this database's statements, cairo.sql.string.function.buffer.max.size. */
  readonly #limits: Limits;
  /** The functions this database's statements resolve against, and their shared yield clock. */
  readonly #engine = { registry: createFunctionRegistry(), pacer: new Pacer() };
  readonly #analysisLines: number;
  readonly #importLimits: ImportLimits;
  /** Queries and imports still running, stopped by close(); each with the way to let go of the caller's signal. */
  readonly #running = new Map<AbortController, () => void>();
  #closed = false;

  private constructor(root: string, catalog: Catalog, limits: Limits, analysisLines: number, importLimits: ImportLimits) {
    this.root = root;
    this.#catalog = catalog;
    this.#limits = limits;
    this.#analysisLines = analysisLines;
    this.#importLimits = importLimits;
  }

  /** Opens (creating if needed) the database folder `root`: its server.conf and its tables under db/. */
  static open(root: string, options: DatabaseOptions = {}): Database {
    const { config } = loadConfig(root);
    let catalog: Catalog;
    try {
      catalog = Catalog.open(join(root, 'db'), catalogOptions(config));
    } catch (e) {
      if (isSvcError(e) && e.code === 'UNAVAILABLE') {
        throw new SvcError('UNAVAILABLE', `cannot open the database ${root}: ${e.message} (a running svcdb server, or another openDatabase); stop it, or use its HTTP API`);
      }
      throw e;
    }
    const memoryLimit = options.memoryLimit ?? config.get('query.memory.limit');
    const limits = {
      memoryLimit,
      parentBudget: queryMemoryTotal(config.get('query.memory.total.limit'), memoryLimit),
      maxTextBytes: config.get('cairo.sql.string.function.buffer.max.size'),
      columnNaming: columnNamingFromConfig(config),
    };
    return new Database(root, catalog, limits, config.get('http.text.analysis.max.lines'), importLimitsFromConfig(config));
  }

  /** Tables that could not be opened (each fails with its error when used). */
  get problems(): ReadonlyArray<{ readonly table: string; readonly error: string }> { return this.#catalog.problems; }

  /** Runs a SELECT (or SHOW, EXPLAIN); SQL errors throw here with their position. */
  query(sql: string, options: QueryOptions = {}): QueryStream {
    this.#open();
    const stmt = compile(sql, { catalog: this.#catalog, ...this.#engine, ...this.#limits });
    if (stmt.kind !== 'select') throw new SvcError('SQL', `query() runs SELECT statements; use execute() for ${stmt.kind.toUpperCase()}`, { position: 0 });
    const ac = this.#track(options.signal);
    const batches = this.#batches(stmt, ac);
    const stream = Readable.from(batches, { objectMode: true, highWaterMark: 1 }) as QueryStream;
    stream.once('close', () => { ac.abort(); this.#untrack(ac); });
    Object.defineProperties(stream, {
      fields: { value: stmt.fields, enumerable: true },
      timestamp: { value: stmt.timestamp, enumerable: true },
      rows: {
        value: async function* rows(this: QueryStream): AsyncGenerator<Row> {
          for await (const b of this as AsyncIterable<RecordBatch>) yield* batchRows(b);
        },
      },
    });
    return stream;
  }

  async *#batches(stmt: SelectStatement, ac: AbortController): AsyncGenerator<RecordBatch> {
    let any = false;
    try {
      for await (const b of stmt.execute(ac.signal)) {
        if (b.rowCount === 0) continue;
        any = true;
        yield { fields: stmt.fields, timestamp: stmt.timestamp, rowCount: b.rowCount, columns: b.columns };
      }
    } finally {
      this.#untrack(ac);
    }
    // An empty result still tells a writer downstream its columns.
    if (!any) yield emptyBatch(stmt.fields, stmt.timestamp);
  }

  /** Runs DDL, INSERT or UPDATE, committed when the promise resolves. */
  async execute(sql: string, options: QueryOptions = {}): Promise<ExecuteResult> {
    this.#open();
    const stmt = compile(sql, { catalog: this.#catalog, ...this.#engine, ...this.#limits });
    if (stmt.kind === 'select') throw new SvcError('SQL', 'execute() runs DDL, INSERT and UPDATE; use query() for SELECT', { position: 0 });
    const ac = this.#track(options.signal);
    try {
      const r = await stmt.execute(ac.signal);
      return { kind: stmt.kind, rows: r.rows };
    } finally {
      this.#untrack(ac);
    }
  }

  /**
   * Imports CSV (gzip too) into a table as POST /imp does, with the same
   * options, limits (server.conf's import.memory.limit, import.max.columns,
   * http.text.roll.buffer.limit) and result; all of it becomes visible at the
   * end, or none.
   */
  async importCsv(source: CsvSource, options: ImportCsvOptions = {}): Promise<ImportResult> {
    this.#open();
    for (const k of Object.keys(options)) {
      if (!IMPORT_KEYS.includes(k)) throw new SvcError('BAD_REQUEST', `unknown importCsv option: ${k} [expected one of ${IMPORT_KEYS.join(', ')}]`);
    }
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(options)) {
      if (v === undefined || k === 'schema' || k === 'signal') continue;
      params.set(k, String(v));
    }
    const p = parseImportParams(params, this.#analysisLines, true);
    const schema = options.schema ? parseSchema(JSON.stringify(options.schema)) : [];
    const isPath = typeof source === 'string';
    const location = isPath ? source : 'data';
    let table: string;
    if (p.name !== null) table = sanitizeName(p.name, 'import');
    else if (isPath) table = tableNameFromFile(source);
    else throw new SvcError('BAD_REQUEST', 'importCsv needs the name option when the source is not a file path');
    const bytes: AsyncIterable<Uint8Array | string> = isPath
      ? createReadStream(source, { highWaterMark: 1 << 20 })
      : source instanceof Uint8Array ? Readable.from([source]) : source;
    const ac = this.#track(options.signal);
    const importer = new Importer(this.#catalog, { ...p.opts, table, schema, limits: this.#importLimits });
    try {
      for await (const chunk of maybeGunzip(toBytes(bytes), location)) {
        if (ac.signal.aborted) throw new SvcError('BAD_REQUEST', 'the import was stopped; nothing was imported');
        await importer.push(chunk);
      }
      return await importer.finish();
    } catch (e) {
      importer.abort();
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new SvcError('BAD_REQUEST', `cannot read ${location}: no such file`);
      throw e;
    } finally {
      this.#untrack(ac);
    }
  }

  /** Stops what is still running and releases the folder. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const ac of [...this.#running.keys()]) {
      ac.abort(new SvcError('UNAVAILABLE', 'the database was closed'));
      this.#untrack(ac);
    }
    // Let aborted queries and imports unwind (they check between batches) before the tables close.
    await new Promise((resolve) => setImmediate(resolve));
    this.#catalog.close();
  }

  #open(): void {
    if (this.#closed) throw new SvcError('UNAVAILABLE', `the database ${this.root} is closed`);
  }

  /** An AbortController for one operation, aborted with the caller's signal (listened to only while it runs). */
  #track(signal: AbortSignal | undefined): AbortController {
    const ac = new AbortController();
    let release = (): void => undefined;
    if (signal) {
      if (signal.aborted) ac.abort(signal.reason);
      else {
        const onAbort = (): void => ac.abort(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        release = () => signal.removeEventListener('abort', onAbort);
      }
    }
    this.#running.set(ac, release);
    return ac;
  }

  #untrack(ac: AbortController): void {
    const release = this.#running.get(ac);
    if (release === undefined) return;
    this.#running.delete(ac);
    release();
  }
}

async function* toBytes(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
  for await (const c of source) yield typeof c === 'string' ? Buffer.from(c) : c;
}

/** Opens (creating if needed) a database folder in this process; refused while a server (or another process) holds it. */
export function openDatabase(root: string, options: DatabaseOptions = {}): Database {
  return Database.open(root, options);
}
