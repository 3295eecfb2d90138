// Database: the one composition root of a database folder. It takes the
// root's lock, opens the catalog (recovering every table), owns the limits and
// the engine's options (built in one place, engineOptions()), and is what the
// server, the HTTP routes, the library and every CLI command go through to
// compile, query, execute and import.
import type { TableReader } from '../storage/table-reader.js';
import { loadLazyText } from '../core/vector-ops.js';
import { createReadStream } from 'node:fs';
import { join, resolve } from 'node:path';
import { Config, loadConfig } from '../config/config.js';
import { SvcError, isSvcError } from '../errors/svc-error.js';
import { compile, type CompiledStatement, type EngineOptions, type SelectStatement } from '../exec/engine.js';
import { wantBuiltTextOutputs, wantTextOutputs } from '../exec/text-keys.js';
import { Pacer } from '../exec/pacer.js';
import type { PageFrame } from '../exec/context.js';
import { createFunctionRegistry } from '../functions/index.js';
import type { FunctionRegistry } from '../functions/registry.js';
import type { Batch } from '../core/batch.js';
import { nullVector } from '../core/column-vector.js';
import { formatBatches, type BatchFormat, type BatchFormatOptions } from '../export/batch-formats.js';
import { FormatPool } from '../export/format-pool.js';
import { WorkerPool } from '../workers/worker-pool.js';
import type { RowStats } from '../export/row-window.js';
import { maybeGunzip } from '../ingest/gunzip.js';
import { importLimitsFromConfig, type ImportLimits } from '../ingest/import-limits.js';
import { parseImportParams, type ImportParams } from '../ingest/import-params.js';
import { Importer, type ImportOptions, type ImportResult, type SchemaEntry } from '../ingest/importer.js';
import { Activity } from '../limits/activity.js';
import type { Deadline } from '../limits/deadline.js';
import { queryMemoryTotal, type MemoryBudget } from '../limits/memory-budget.js';
import { Catalog, catalogOptions, type TableProblem } from '../storage/catalog.js';
import { columnNamingFromConfig, type ColumnNaming } from '../sql/column-alias.js';
import { MatViewRefresher } from './mat-view-refresher.js';
import { CopyJobs } from './copy-jobs.js';
import { QueryTrace } from './query-trace.js';
import type { RefreshEnv } from '../exec/mat-view-refresh.js';

export interface DatabaseOpenOptions {
  /** The root's configuration, when the caller loaded it already (the server: with its environment); default loadConfig(root). */
  readonly config?: Config;
  /** Bytes a sort or hash table of one statement may hold (default: server.conf's query.memory.limit). */
  readonly memoryLimit?: number;
  /** Threads of work in all, this one included (default: server.conf's shared.worker.count); 1: no helper threads. */
  readonly workerCount?: number;
  /** Called after each table is opened (the storage component's progress). */
  readonly onProgress?: (done: number, total: number, table: string) => void;
}

export interface RunOptions {
  /** Stops the statement (it then fails with the abort reason); close() stops it too. */
  readonly signal?: AbortSignal;
  /** The statement's timeout, checked by synchronous work. */
  readonly deadline?: Deadline;
}

/** A running query: its columns (known before any row) and its batches, empty ones left out. */
export interface QueryRun {
  readonly fields: SelectStatement['fields'];
  /** Index of the designated timestamp among fields, or -1. */
  readonly timestamp: number;
  readonly batches: AsyncGenerator<Batch>;
  /** Stops the query at once (a consumer that went away), even while a batch is being made. */
  stop(reason?: unknown): void;
}

export type { ImportResult, CompiledStatement, SelectStatement };

/** Progress of an export: rows written and bytes produced so far. */
export interface ExportProgress {
  readonly rows: number;
  readonly bytes: number;
}

export interface ExportOptions extends BatchFormatOptions, RunOptions {
  /** Called after each chunk of output with the totals so far. */
  readonly onProgress?: (p: ExportProgress) => void;
}

export interface ExecuteResult {
  /** ddl: CREATE/DROP/ALTER/TRUNCATE/RENAME; insert: INSERT; update: UPDATE. */
  readonly kind: 'ddl' | 'insert' | 'update';
  /** Rows inserted or updated (0 for DDL). */
  readonly rows: number;
}

/** One import's settings: the /imp parameters (parseImportParams' opts, or the CLI's flags), the target and schema. */
export interface ImportStreamOptions {
  readonly opts: Omit<ImportOptions, 'table' | 'schema' | 'analysisLines' | 'limits'> & {
    readonly analysisLines?: number;
  };
  /** Target table, already sanitized. */
  readonly table: string;
  readonly schema?: readonly SchemaEntry[];
  /** The source's name: a .gz name means gzip; errors name it. */
  readonly location: string;
}

/** What the import loop checks and reports between chunks. */
export interface ImportLoopHooks {
  /** Checked before each chunk and after the last one: an error to stop with (nothing is then imported), or null. */
  readonly stopped?: () => unknown;
  /** Called after each chunk is taken in (progress bars). */
  readonly onChunk?: (progress: ImportProgress) => void;
}

export interface ImportProgress {
  /** Bytes read (decompressed). */
  readonly bytes: number;
  readonly rowsImported: number;
}

/** A background step (text codes after an import) runs once no statement or import has run for this long... */
const WARM_QUIET_MS = 250;
/** ...or after this long however busy the database is. */
const WARM_WAIT_MS = 2000;

/** Where imported bytes come from: a file path, or a stream / async iterable of bytes. */
export type ImportSource = { readonly path: string } | AsyncIterable<Uint8Array | string>;

/**
 * One import into a table: the loop around the Importer, written once for
 * POST /imp, the library and `svcdb import`. stage() reads the source to its
 * end and writes it out of sight; publish() makes it visible in one step;
 * abort() undoes it at any point before that.
 */
export class ImportJob {
  readonly #importer: Importer;
  readonly #location: string;
  readonly #published: (table: string) => void;
  readonly #activity: Activity | null;
  #table: string | null = null;

  /** `published`: told the table's name once the import is visible; `activity`: told while stage() runs. */
  constructor(
    importer: Importer,
    location: string,
    published: (table: string) => void = () => {},
    activity: Activity | null = null,
  ) {
    this.#importer = importer;
    this.#location = location;
    this.#published = published;
    this.#activity = activity;
  }

  get progress(): ImportProgress {
    return { bytes: this.#importer.bytes, rowsImported: this.#importer.rowsImported };
  }

  /** Values of imported rows stored as NULL because they did not convert (atomicity skipCol). */
  get valuesNulled(): number {
    return this.#importer.valuesNulled;
  }

  /** Reads `source` (gunzipped when it is gzip) into the table, out of sight; on any failure the import is undone. */
  async stage(source: ImportSource, hooks: ImportLoopHooks = {}): Promise<ImportResult> {
    const imp = this.#importer;
    const file = isFile(source) ? source.path : null;
    const bytes =
      file !== null
        ? createReadStream(file, { highWaterMark: 1 << 20 })
        : (source as AsyncIterable<Uint8Array | string>);
    this.#activity?.begin();
    try {
      for await (const chunk of maybeGunzip(toBytes(bytes), this.#location)) {
        checkStopped(hooks);
        await imp.push(chunk);
        hooks.onChunk?.(this.progress);
      }
      checkStopped(hooks);
      const result = await imp.complete();
      this.#table = result.location;
      return result;
    } catch (e) {
      imp.abort();
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && file !== null)
        throw new SvcError('BAD_REQUEST', `cannot read ${this.#location}: no such file`);
      throw e;
    } finally {
      this.#activity?.end();
    }
  }

  /** Makes a staged import visible, all of it in one step. */
  async publish(): Promise<void> {
    await this.#importer.publish();
    if (this.#table !== null) this.#published(this.#table);
  }

  /** Undoes everything the import wrote; safe at any point before publish(), more than once. */
  abort(): void {
    this.#importer.abort();
  }

  /** stage() then publish(). */
  async run(source: ImportSource, hooks: ImportLoopHooks = {}): Promise<ImportResult> {
    const result = await this.stage(source, hooks);
    await this.publish();
    return result;
  }
}

async function* exportBytes(run: QueryRun, format: BatchFormat, o: ExportOptions): AsyncGenerator<Buffer> {
  const stats: RowStats = { sent: 0, matched: 0 };
  let bytes = 0;
  try {
    for await (const chunk of formatBatches(format, run, withColumns(run), o, stats)) {
      if (chunk.length === 0) continue;
      bytes += chunk.length;
      yield chunk;
      o.onProgress?.({ rows: stats.sent, bytes });
    }
  } finally {
    run.stop();
  }
}

/** The query's batches; one without rows when there are none, so that writers still see the columns. */
async function* withColumns(run: QueryRun): AsyncGenerator<Batch> {
  let any = false;
  for await (const b of run.batches) {
    any = true;
    yield b;
  }
  if (!any) yield { rowCount: 0, columns: run.fields.map((f) => nullVector(f.type === 'NULL' ? 'STRING' : f.type, 0)) };
}

/** A file to read, not bytes already (a file stream has a `path` too, so the test is for being iterable). */
function isFile(source: ImportSource): source is { readonly path: string } {
  return !(Symbol.asyncIterator in source);
}

function checkStopped(hooks: ImportLoopHooks): void {
  const e = hooks.stopped?.();
  if (e !== null && e !== undefined) throw e;
}

async function* toBytes(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<Uint8Array> {
  for await (const c of source) yield typeof c === 'string' ? Buffer.from(c) : c;
}

/**
 * Database.open's lock error as the library and `svcdb export` report it:
 * which folder, and what to do about it. Other errors pass unchanged.
 */
export function openError(root: string, e: unknown): unknown {
  if (isSvcError(e) && e.code === 'UNAVAILABLE') {
    return new SvcError(
      'UNAVAILABLE',
      `cannot open the database ${root}: ${e.message} (a running svcdb server, or another openDatabase); stop it, or use its HTTP API`,
    );
  }
  return e;
}

/** The statement limits server.conf sets, handed to every compile. */
interface Limits {
  readonly memoryLimit: number;
  readonly parentBudget: MemoryBudget | null;
  readonly maxTextBytes: number;
  readonly columnNaming: ColumnNaming;
  /** cairo.sql.page.frame.min.rows / max.rows: how parallel scans cut their work. */
  readonly pageFrame: PageFrame;
  /** cairo.sql.copy.root as an absolute folder (relative to the root), or '' when not set: what read_parquet() reads. */
  readonly copyRoot: string;
  /** cairo.sql.copy.export.root likewise: where COPY TO writes, what export_files() lists. */
  readonly exportRoot: string;
}

/** cairo.sql.copy.root resolved against the database's root folder; empty stays empty (read_parquet refused). */
export function copyRootOf(
  root: string,
  config: Config,
  key: 'cairo.sql.copy.root' | 'cairo.sql.copy.export.root' = 'cairo.sql.copy.root',
): string {
  const v = config.get(key).trim();
  return v === '' ? '' : resolve(root, v);
}

/**
 * The engine's options for a statement: the one place they are put together
 * (Database.engineOptions for a database's statements, batch-transform.ts for
 * the library's per-batch transforms, which have no tables and default limits).
 */
export function engineOptions(
  catalog: Catalog | null,
  limits: Partial<Limits>,
  engine: StatementEngine,
  inputs?: EngineOptions['inputs'],
  tables?: EngineOptions['tables'],
): EngineOptions {
  return { catalog, ...limits, registry: engine.registry, pacer: engine.pacer, inputs, tables };
}

/** What a database's statements share: the functions they resolve against and the yield clock. */
export interface StatementEngine {
  readonly registry: FunctionRegistry;
  readonly pacer: Pacer;
}

export class Database {
  readonly root: string;
  readonly config: Config;
  readonly #catalog: Catalog;
  readonly #limits: Limits;
  /** The functions this database's statements resolve against, and their shared yield clock. */
  readonly #engine: StatementEngine = { registry: createFunctionRegistry(), pacer: new Pacer() };
  /** shared.worker.count: threads of work in all, this one included. */
  readonly workerCount: number;
  #workers: WorkerPool | null | undefined;
  #formatPool: FormatPool | null = null;
  readonly #workerPoolFn = (): WorkerPool | null => this.workerPool();
  /** http.text.analysis.max.lines: lines import detection looks at. */
  readonly analysisLines: number;
  /** import.memory.limit, import.max.columns, http.text.roll.buffer.limit. */
  readonly importLimits: ImportLimits;
  /** Statements and imports still running through query(), execute() or importStream(), stopped by close(). */
  readonly #running = new Map<AbortController, () => void>();
  /** Statements and imports running (through HTTP too), which background work waits for. */
  readonly #activity = new Activity();
  /** Refreshes materialized views after their base tables' commits, on timers and on REFRESH. */
  readonly #matViews: MatViewRefresher;
  /** COPY's imports and exports (run in the background) and their logs. */
  readonly copies: CopyJobs;
  /** query.tracing.enabled: every statement's text and time written to _query_trace. */
  readonly #trace: QueryTrace;
  #closed = false;

  private constructor(root: string, config: Config, catalog: Catalog, memoryLimit: number, workerCount: number) {
    this.root = root;
    this.workerCount = workerCount;
    this.config = config;
    this.#catalog = catalog;
    this.#limits = {
      memoryLimit,
      parentBudget: queryMemoryTotal(config.get('query.memory.total.limit'), memoryLimit),
      maxTextBytes: config.get('cairo.sql.string.function.buffer.max.size'),
      columnNaming: columnNamingFromConfig(config),
      pageFrame: {
        minRows: config.get('cairo.sql.page.frame.min.rows'),
        maxRows: config.get('cairo.sql.page.frame.max.rows'),
      },
      copyRoot: copyRootOf(root, config),
      exportRoot: copyRootOf(root, config, 'cairo.sql.copy.export.root'),
    };
    this.copies = new CopyJobs(
      {
        importJob: (o) => this.importJob(o),
        exportParquet: (sql, o) =>
          this.export(
            sql,
            'parquet',
            o,
            () => new SvcError('INTERNAL', 'COPY TO compiled a statement that is no query'),
          ),
        partitionBy: (table) => (this.#catalog.exists(table) ? this.#catalog.schema(table).partitionBy : 'NONE'),
        partitionTimestamp: (sql) => {
          const st = this.compile(sql);
          if (st.kind !== 'select') return null;
          if (st.timestamp >= 0) return st.fields[st.timestamp]!.name;
          const ts = st.fields.filter((f) => f.type === 'TIMESTAMP' || f.type === 'TIMESTAMP_NS');
          return ts.length === 1 ? ts[0]!.name : null;
        },
        numbers: async (sql, signal) => {
          const run = this.query(sql, () => new SvcError('INTERNAL', 'COPY TO compiled a statement that is no query'), {
            signal,
          });
          const out: number[] = [];
          for await (const b of run.batches) {
            const c = b.columns[0]!;
            if (c.kind === 'fixed') for (let i = 0; i < b.rowCount; i++) out.push(Number(c.data[i]));
          }
          return out;
        },
      },
      this.#limits.copyRoot,
      this.#limits.exportRoot,
    );
    this.analysisLines = config.get('http.text.analysis.max.lines');
    this.importLimits = importLimitsFromConfig(config);
    this.#trace = new QueryTrace(catalog, config);
    this.#matViews = new MatViewRefresher(catalog, () => this.#refreshEnv());
    catalog.setCommitListener((t) => this.#matViews.baseCommitted(t));
    this.#matViews.start();
  }

  /** What a materialized view's refresh runs with: this database's tables, functions, limits and the time now. */
  #refreshEnv(): RefreshEnv {
    return {
      catalog: this.#catalog,
      ...this.#limits,
      runtime: { registry: this.#engine.registry, pacer: this.#engine.pacer, statementMicros: Date.now() * 1000 },
      bind: { naming: this.#limits.columnNaming },
    };
  }

  /** Resolves once no materialized view refresh is queued or running. */
  matViewsIdle(): Promise<void> {
    return this.#matViews.idle();
  }

  /** Resolves once every statement traced so far (query.tracing.enabled) is in _query_trace. */
  traceIdle(): Promise<void> {
    return this.#trace.idle();
  }

  /** Trace rows lost so far and the last write error (null: none), for diagnosis. */
  traceHealth(): { readonly dropped: number; readonly lastError: unknown } {
    return { dropped: this.#trace.dropped, lastError: this.#trace.lastError };
  }

  /**
   * Opens (creating if needed) the tables of the folder `root` under db/,
   * taking its lock (an SvcError('UNAVAILABLE') while another process or
   * Database holds it) and recovering every table.
   */
  static open(root: string, options: DatabaseOpenOptions = {}): Database {
    const config = options.config ?? loadConfig(root).config;
    const workerCount = options.workerCount ?? config.get('shared.worker.count');
    if (!Number.isInteger(workerCount) || workerCount < 1)
      throw new SvcError('BAD_REQUEST', `workerCount must be an integer of 1 or more, not ${String(workerCount)}`);
    const catalog = Catalog.open(join(root, 'db'), { ...catalogOptions(config), onProgress: options.onProgress });
    return new Database(root, config, catalog, options.memoryLimit ?? config.get('query.memory.limit'), workerCount);
  }

  /** The tables' folder (<root>/db). */
  get dir(): string {
    return this.#catalog.dir;
  }
  /** Tables that were brought back to their last commit on open, and what was removed. */
  get recovered(): Catalog['recovered'] {
    return this.#catalog.recovered;
  }
  /** Tables that could not be opened (each fails with its error when used). */
  get problems(): readonly TableProblem[] {
    return this.#catalog.problems;
  }
  /** How many tables the folder holds (the unusable ones too). */
  get tableCount(): number {
    return this.#catalog.tables().length;
  }
  /** Whether a table of that name exists (names no table can have do not exist). */
  tableExists(name: string): boolean {
    try {
      return name !== '' && this.#catalog.exists(name);
    } catch {
      return false;
    }
  }

  /**
   * What the engine gets for every statement: the catalog and the limits (the one place these are
   * put together); `principal`: who runs it, as the query trace records it (default 'admin').
   */
  engineOptions(principal = 'admin'): EngineOptions {
    return {
      ...engineOptions(this.#catalog, this.#limits, this.#engine),
      tracer: this.#trace,
      principal,
      workers: this.#workerPoolFn,
      activity: this.#activity,
      matViews: this.#matViews,
      config: this.config,
      // import_files(), files() and glob() list under cairo.sql.copy.root, read_parquet() and COPY FROM
      // read there; COPY TO writes under cairo.sql.copy.export.root, which export_files() lists.
      copyRoots: {
        input: this.#limits.copyRoot === '' ? null : this.#limits.copyRoot,
        export: this.#limits.exportRoot === '' ? null : this.#limits.exportRoot,
      },
      copies: this.copies,
    };
  }

  /** Parses and binds `sql`; SQL errors throw with their position. `principal`: who runs it (the trace's user). */
  compile(sql: string, principal?: string): CompiledStatement {
    this.#checkOpen();
    return compile(sql, this.engineOptions(principal));
  }

  /** Runs a query; `notSelect` is the error for any other statement. */
  query(sql: string, notSelect: (stmt: CompiledStatement) => SvcError, options: RunOptions = {}): QueryRun {
    const stmt = this.compile(sql);
    if (stmt.kind !== 'select') throw notSelect(stmt);
    return this.#run(stmt, options, true);
  }

  /** `stmt` running; `ownText`: text read lazily is loaded into each batch (a caller may keep it past the statement's end). */
  #run(stmt: SelectStatement, options: RunOptions, ownText: boolean): QueryRun {
    const ac = this.#track(options.signal);
    return {
      fields: stmt.fields,
      timestamp: stmt.timestamp,
      batches: this.#batches(stmt, ac, options.deadline, ownText),
      stop: (reason?: unknown) => {
        ac.abort(reason);
        this.#untrack(ac);
      },
    };
  }

  async *#batches(
    stmt: SelectStatement,
    ac: AbortController,
    deadline: Deadline | undefined,
    ownText: boolean,
  ): AsyncGenerator<Batch> {
    try {
      for await (const b of stmt.execute(ac.signal, deadline)) {
        if (b.rowCount === 0) continue;
        yield ownText ? loadLazyText(b) : b;
      }
    } finally {
      this.#untrack(ac);
    }
  }

  /**
   * A query's result as bytes in `format`, written as the library's
   * batchesTo* writers write it (an empty result still has its columns).
   */
  export(
    sql: string,
    format: BatchFormat,
    o: ExportOptions,
    notSelect: (stmt: CompiledStatement) => SvcError,
  ): AsyncGenerator<Buffer> {
    const stmt = this.compile(sql);
    if (stmt.kind !== 'select') throw notSelect(stmt);
    // As /exp: a Parquet file maps each distinct text once through its partitions' codes (built if
    // need be), CSV writes text from them where they are built; both writers take lazy text.
    if (format === 'parquet') wantTextOutputs(stmt.plan);
    else if (format === 'csv') wantBuiltTextOutputs(stmt.plan);
    const run = this.#run(stmt, o, format !== 'parquet' && format !== 'csv');
    return exportBytes(run, format, { ...o, pool: this.formatPool() });
  }

  /** Runs DDL, INSERT or UPDATE, committed when the promise resolves; `notChange` is the error for a query. */
  async execute(sql: string, notChange: () => SvcError, options: RunOptions = {}): Promise<ExecuteResult> {
    const stmt = this.compile(sql);
    if (stmt.kind === 'select') throw notChange();
    const ac = this.#track(options.signal);
    try {
      const r = await stmt.execute(ac.signal, options.deadline);
      return { kind: stmt.kind, rows: r.rows };
    } finally {
      this.#untrack(ac);
    }
  }

  /** The /imp parameters read with this database's http.text.analysis.max.lines (`strict`: the library's checks). */
  importParams(params: URLSearchParams, strict = false): ImportParams {
    return parseImportParams(params, this.analysisLines, strict);
  }

  /** A new import into `o.table`, with this database's import limits; nothing happens until it is staged or run. */
  importJob(o: ImportStreamOptions): ImportJob {
    this.#checkOpen();
    const importer = new Importer(this.#catalog, {
      analysisLines: this.analysisLines,
      ...o.opts,
      table: o.table,
      schema: o.schema ?? [],
      limits: this.importLimits,
      pool: this.#workerPoolFn,
    });
    return new ImportJob(importer, o.location, (table) => void this.#warmTextCodes(table), this.#activity);
  }

  /**
   * Builds the dictionary codes of a table's text columns in the background,
   * so the first query grouping by them after an import finds them ready.
   * A few milliseconds a step, each step only once no statement or import has
   * run for WARM_QUIET_MS (or after WARM_WAIT_MS of waiting), reading around
   * the read cache: a client sending queries back to back does not wait for it.
   * Best effort: a table dropped meanwhile, or the database closing, just ends it.
   */
  async #warmTextCodes(table: string): Promise<void> {
    const done = new Set<string>();
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      await this.#activity.quiet(WARM_QUIET_MS, WARM_WAIT_MS);
      if (this.#closed) return;
      // A reader a step: no snapshot is held between steps (old partition versions go as usual).
      let reader: TableReader;
      try {
        reader = this.#catalog.reader(table);
      } catch {
        return;
      }
      try {
        if (!reader.warmTextCodesStep(done)) return;
      } catch {
        return; // best effort only: the queries build what is missing themselves
      } finally {
        try {
          reader.close();
        } catch {
          // The catalog closed under it: nothing is left to release.
        }
      }
    }
  }

  /**
   * Imports `source` as POST /imp does: all of it visible at the end, or
   * none. `signal` stops it (`stopped` is the error then); close() stops it too.
   */
  async importStream(
    source: ImportSource,
    o: ImportStreamOptions & ImportLoopHooks & { readonly signal?: AbortSignal },
  ): Promise<ImportResult> {
    const job = this.importJob(o);
    const ac = this.#track(o.signal);
    const stopped = (): unknown =>
      ac.signal.aborted
        ? new SvcError('BAD_REQUEST', 'the import was stopped; nothing was imported')
        : (o.stopped?.() ?? null);
    try {
      return await job.run(source, { stopped, onChunk: o.onChunk });
    } finally {
      this.#untrack(ac);
    }
  }

  /** Stops what is still running through this object and releases the folder (its lock). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const ac of [...this.#running.keys()]) {
      ac.abort(new SvcError('UNAVAILABLE', 'the database was closed'));
      this.#untrack(ac);
    }
    // Let aborted queries and imports unwind (they check between batches) before the tables close.
    await new Promise((resolve) => setImmediate(resolve));
    await this.copies.close();
    this.#catalog.setCommitListener(undefined);
    await this.#matViews.close();
    await this.#trace.close();
    this.#catalog.close();
    await this.#workers?.close();
  }

  /**
   * The worker pool of this database (shared.worker.count - 1 threads, each
   * started when work first needs it): null for a count of 1, once closed, or
   * once its threads could not start, when the work stays on this thread.
   */
  workerPool(): WorkerPool | null {
    if (this.#workers === undefined) this.#workers = this.#closed ? null : WorkerPool.forWorkerCount(this.workerCount);
    return this.#workers !== null && this.#workers.usable ? this.#workers : null;
  }

  /** The export's tasks (row formatting, Parquet page compression) on workerPool(). */
  formatPool(): FormatPool | null {
    const pool = this.workerPool();
    if (pool === null) return null;
    if (this.#formatPool === null) this.#formatPool = new FormatPool(pool);
    return this.#formatPool;
  }

  get closed(): boolean {
    return this.#closed;
  }

  #checkOpen(): void {
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
