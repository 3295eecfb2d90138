// One import: bytes in (any chunking), rows out to a table writer. The
// CsvBatcher holds the start of the file until detection can decide, then
// tokenizes every chunk (on the worker pool when there is one: segments.ts)
// into typed column batches, which are appended here.
// A new table (or overwrite=true) is built as a staged table and published at
// the end in one rename; an existing table gets its rows with automatic
// commits off, committed once at the end. Either way, readers see all of the
// import or none of it: complete() writes everything out of sight, publish()
// makes it visible in one step, abort() undoes it at any point before. What
// the import holds is charged to one budget (import-limits.ts), the writer's
// buffers and the out-of-order rows held for the commit included.
import type { MemoryBudget } from '../limits/memory-budget.js';
import type { WorkerPool } from '../workers/worker-pool.js';
import type { Catalog } from '../storage/catalog.js';
import { STAGING } from '../storage/column-appender.js';
import { ColumnTypeError, parseColumnType as parseType, typeInfo, type ColumnType } from '../core/column-type.js';
import type { ColumnInput } from '../core/column-vector.js';
import type { PartitionBy } from '../storage/partition-by.js';
import type { Table } from '../storage/table.js';
import { committedMaxTs, type TableWriter } from '../storage/table-writer.js';
import { importable } from './column-builders.js';
import {
  CsvBatcher,
  importError,
  type Atomicity,
  type CsvLayout,
  type CsvTarget,
  type SchemaEntry,
} from './csv-batcher.js';
import { DEFAULT_IMPORT_LIMITS, importBudget, type ImportLimits } from './import-limits.js';
import type { IssueReport } from './import-issues.js';

export { importError, type Atomicity, type SchemaEntry };

export interface ImportOptions {
  /** Target table (already sanitized); the report's `location`. */
  readonly table: string;
  readonly atomicity: Atomicity;
  /** Delimiter byte, or null to detect. */
  readonly delimiter: number | null;
  readonly forceHeader: boolean;
  readonly overwrite: boolean;
  readonly create: boolean;
  readonly partitionBy: PartitionBy | null;
  readonly timestamp: string | null;
  readonly skipLev: boolean;
  readonly maxUncommittedRows?: number;
  /** Micros. */
  readonly o3MaxLag?: number;
  readonly schema: readonly SchemaEntry[];
  /** Lines detection looks at (http.text.analysis.max.lines). */
  readonly analysisLines: number;
  /** Memory, column and line limits (default: server.conf's defaults). */
  readonly limits?: ImportLimits;
  /** The worker pool that parses segments of the file (absent or null: the import's own thread parses it). */
  readonly pool?: () => WorkerPool | null;
  /** Report rejected rows and values stored as NULL line by line (`svcdb import`); off when absent. */
  readonly issues?: IssueReport;
}

export interface ImportColumnReport {
  readonly name: string;
  readonly type: ColumnType;
  readonly size: number;
  readonly errors: number;
}

export interface ImportResult {
  readonly status: 'OK';
  /** The target table's name. */
  readonly location: string;
  readonly rowsRejected: number;
  readonly rowsImported: number;
  readonly header: boolean;
  readonly partitionBy: PartitionBy;
  /** The table's designated timestamp, or null. */
  readonly timestamp: string | null;
  /** The table's columns, in its order. */
  readonly columns: readonly ImportColumnReport[];
  /**
   * An append into a table whose designated timestamp or partitioning differs
   * from the timestamp and partitionBy parameters: the table's are used
   * (QuestDB's warnings, with its words).
   */
  readonly warnings: readonly ImportWarning[];
}

export type ImportWarning = 'Existing table timestamp column is used' | 'Existing table PartitionBy is used';

/** Out-of-order rows an import into an existing table may hold back until its single commit, per maxUncommittedRows. */
const LATE_ROWS_FACTOR = 10;

interface Target {
  /** Table column name per file column. */
  readonly names: string[];
  /** Report row (table column) per file column. */
  readonly reportIndex: readonly number[];
  readonly warnings: ImportWarning[];
  readonly writer: TableWriter;
  readonly staged: Table | null;
  readonly report: ImportColumnReport[];
  readonly partitionBy: PartitionBy;
  readonly timestamp: string | null;
}

type State = 'open' | 'completed' | 'published' | 'aborted';

export class Importer {
  readonly #catalog: Catalog;
  readonly #opts: ImportOptions;
  readonly #batcher: CsvBatcher;
  readonly #budget: MemoryBudget;
  #target: Target | null = null;
  #state: State = 'open';
  /** Out-of-order rows the writer holds, and the bytes charged for them. */
  #lateRows = 0;
  #lateBytes = 0;

  constructor(catalog: Catalog, opts: ImportOptions) {
    this.#catalog = catalog;
    this.#opts = opts;
    const limits = opts.limits ?? DEFAULT_IMPORT_LIMITS;
    this.#budget = importBudget(limits);
    this.#batcher = new CsvBatcher(
      {
        label: opts.table,
        atomicity: opts.atomicity,
        delimiter: opts.delimiter,
        forceHeader: opts.forceHeader,
        skipLev: opts.skipLev,
        schema: opts.schema,
        analysisLines: opts.analysisLines,
        limits,
        budget: this.#budget,
        ...(opts.pool === undefined ? {} : { pool: opts.pool }),
        ...(opts.issues === undefined ? {} : { issues: opts.issues }),
      },
      {
        prepare: (layout) => this.#prepare(layout),
        batch: (rows, columns) => this.#append(rows, columns),
      },
    );
  }

  get rowsImported(): number {
    return this.#batcher.rowsAccepted;
  }
  get rowsRejected(): number {
    return this.#batcher.rowsRejected;
  }
  /** Values of imported rows stored as NULL because they did not convert (atomicity skipCol). */
  get valuesNulled(): number {
    return this.#batcher.nulled;
  }
  /** Bytes consumed so far, for progress. */
  get bytes(): number {
    return this.#batcher.bytes;
  }
  /** What the import holds now, and the most it held (bytes charged to its budget). */
  get memory(): { readonly used: number; readonly peak: number } {
    return { used: this.#budget.used, peak: this.#budget.peak };
  }

  /** Feeds the next bytes of the file. */
  async push(chunk: Uint8Array): Promise<void> {
    this.#checkOpen();
    await this.#batcher.push(chunk);
  }

  /**
   * End of the file: the last rows are written and committed out of sight
   * (a staged table, or an append's rows still uncommitted). Nothing is
   * visible until publish(); abort() still undoes all of it.
   */
  async complete(): Promise<ImportResult> {
    this.#checkOpen();
    await this.#batcher.finish();
    this.#checkOpen();
    const t = this.#target!;
    if (t.staged) {
      // abort() may come during a turn (the client went away): the commit then stops and nothing stays.
      await t.writer.commitAsync(turnTaker(() => this.#checkOpen()));
      t.writer.close();
    }
    this.#state = 'completed';
    // The builders and held lines are done with; an append's late rows wait in the writer for publish().
    this.#budget.release(this.#budget.used - this.#lateBytes);
    const errors = new Array<number>(t.report.length).fill(0);
    this.#batcher.errors.forEach((n, i) => {
      errors[t.reportIndex[i]!]! += n;
    });
    return {
      status: 'OK',
      location: this.#opts.table,
      rowsRejected: this.rowsRejected,
      rowsImported: this.rowsImported,
      header: this.#batcher.header,
      partitionBy: t.partitionBy,
      timestamp: t.timestamp,
      columns: t.report.map((c, i) => ({ ...c, errors: errors[i]! })),
      warnings: t.warnings,
    };
  }

  /** Makes a completed import visible, all of it in one step. */
  async publish(): Promise<void> {
    if (this.#state !== 'completed') throw new Error(`cannot publish an import that is ${this.#state}`);
    const t = this.#target!;
    this.#state = 'published';
    this.#budget.releaseAll();
    if (!t.staged) {
      try {
        await t.writer.commitAsync(turnTaker());
      } finally {
        t.writer.close();
      }
      return;
    }
    try {
      await this.#catalog.publishStaged(t.staged, { replace: this.#opts.overwrite });
    } catch (e) {
      // Someone created the table meanwhile (without overwrite): nothing of this import stays.
      this.#catalog.discardStaged(t.staged);
      throw e;
    }
  }

  /** complete() then publish(): the file imported and visible. */
  async finish(): Promise<ImportResult> {
    const r = await this.complete();
    await this.publish();
    return r;
  }

  /**
   * Undoes everything this import wrote (client gone, error, a request that
   * did not end well). Safe to call at any point before publish(), more than
   * once, and while a push() is still running (that push then fails).
   */
  abort(): void {
    if (this.#state === 'aborted' || this.#state === 'published') return;
    this.#state = 'aborted';
    this.#budget.releaseAll();
    const t = this.#target;
    if (!t) return;
    this.#release(t);
  }

  #release(t: Target): void {
    try {
      t.writer.close(); // rolls back what is uncommitted (nothing once a staged table's writer was closed)
    } finally {
      if (t.staged) this.#catalog.discardStaged(t.staged);
    }
  }

  #checkOpen(): void {
    if (this.#state !== 'open')
      throw importError(
        this.#state === 'aborted' ? 'the import was stopped; nothing was imported' : 'the import has already finished',
      );
  }

  async #prepare(layout: CsvLayout): Promise<CsvTarget> {
    const o = this.#opts;
    const exists = this.#catalog.exists(o.table);
    if (exists && !o.overwrite) return this.#prepareAppend(layout);
    if (!exists && !o.create)
      throw importError(`table does not exist [table=${o.table}] and create param was set to false.`);
    return this.#prepareNew(layout);
  }

  /**
   * Charges the table writer's buffers: one staging buffer per open column
   * file (storage's STAGING; the active partition's files are open).
   */
  #chargeWriter(types: readonly ColumnType[]): void {
    let files = 0;
    for (const t of types) files += typeInfo(t).layout === 'var' ? 2 : 1;
    this.#budget.charge(files * STAGING, "the table writer's buffers (64 KiB per column file)");
  }

  /** The target, unless abort() came while the writer was being opened: then it is released and the import fails. */
  #adopt(target: Target): void {
    if (this.#state === 'aborted') {
      this.#release(target);
      this.#checkOpen();
    }
    this.#target = target;
  }

  async #prepareNew({ names, types, patterns }: CsvLayout): Promise<CsvTarget> {
    const o = this.#opts;
    let ts = -1;
    if (o.timestamp !== null) {
      ts = names.findIndex((n) => n.toLowerCase() === o.timestamp!.toLowerCase());
      if (ts < 0) throw importError(`invalid timestamp column '${o.timestamp}'`);
      if (types[ts] !== 'TIMESTAMP') {
        throw importError(`not a timestamp '${o.timestamp}'`); // a schema entry with a pattern makes it one
      }
    }
    const partitionBy = o.partitionBy ?? 'NONE';
    if (partitionBy !== 'NONE' && ts < 0)
      throw importError('when specifying partitionBy you must also specify timestamp');
    for (const t of types) if (!importable(t)) throw importError(`a file cannot be imported into a ${t} column`);
    this.#chargeWriter(types);
    const staged = this.#catalog.createStaged({
      name: o.table,
      columns: names.map((name, i) => ({ name, type: types[i]! })),
      timestamp: ts >= 0 ? names[ts] : undefined,
      partitionBy,
      maxUncommittedRows: o.maxUncommittedRows,
      o3MaxLag: o.o3MaxLag,
    });
    let writer: TableWriter;
    try {
      writer = await this.#catalog.stagedWriter(staged);
    } catch (e) {
      this.#catalog.discardStaged(staged);
      throw e;
    }
    this.#adopt({
      names,
      reportIndex: names.map((_, i) => i),
      warnings: [],
      writer,
      staged,
      report: names.map((name, i) => reportColumn(name, types[i]!)),
      partitionBy,
      timestamp: ts >= 0 ? names[ts]! : null,
    });
    return {
      types,
      patterns,
      names,
      tsColumn: ts,
      ...(ts >= 0 && partitionBy === 'NONE' ? { inOrderFrom: -Infinity } : {}),
    };
  }

  /**
   * An existing table: each file column goes to the table column of its name,
   * or else to the table column at its position (a file without a header);
   * a file with more columns than the table is refused. The table's
   * designated timestamp and partitioning stay, with a warning when the
   * parameters asked for others.
   */
  async #prepareAppend({ names, patterns }: CsvLayout): Promise<CsvTarget> {
    const o = this.#opts;
    const meta = this.#catalog.get(o.table).meta;
    if (names.length > meta.columns.length) {
      throw importError(
        `column count mismatch [textColumnCount=${names.length}, tableColumnCount=${meta.columns.length}, table=${meta.name}]`,
      );
    }
    const index = names.map((n, i) => {
      const byName = meta.columns.findIndex((c) => c.name.toLowerCase() === n.toLowerCase());
      return byName >= 0 ? byName : i;
    });
    const twice = index.findIndex((t, i) => index.indexOf(t) !== i);
    if (twice >= 0) {
      throw importError(
        `two columns of the file go to table column ${meta.columns[index[twice]!]!.name} [columns=${names[index.indexOf(index[twice]!)]}, ${names[twice]}, table=${meta.name}]`,
      );
    }
    const cols = index.map((t) => meta.columns[t]!);
    const tsDef = meta.columns.find((c) => c.id === meta.timestampId);
    const ts = tsDef ? cols.findIndex((c) => c === tsDef) : -1;
    if (tsDef && ts < 0)
      throw importError(
        `the file has no column for the designated timestamp [table=${meta.name}, column=${tsDef.name}]`,
      );
    for (const c of cols)
      if (!importable(c.type))
        throw importError(`a file cannot be imported into a ${c.type} column [column=${c.name}]`);
    const warnings: ImportWarning[] = [];
    if (o.timestamp !== null && o.timestamp.toLowerCase() !== (tsDef?.name.toLowerCase() ?? null))
      warnings.push('Existing table timestamp column is used');
    if (o.partitionBy !== null && o.partitionBy !== 'NONE' && o.partitionBy !== meta.partitionBy)
      warnings.push('Existing table PartitionBy is used');
    this.#chargeWriter(meta.columns.map((c) => c.type));
    const writer = await this.#catalog.writer(o.table);
    writer.autoCommit = false;
    const tableNames = cols.map((c) => c.name);
    this.#adopt({
      names: tableNames,
      reportIndex: index,
      warnings,
      writer,
      staged: null,
      report: meta.columns.map((c) => reportColumn(c.name, c.type)),
      partitionBy: meta.partitionBy,
      timestamp: tsDef?.name ?? null,
    });
    const inOrder =
      ts >= 0 && meta.partitionBy === 'NONE' ? { inOrderFrom: committedMaxTs(this.#catalog.get(o.table).txn) } : {};
    return { types: cols.map((c) => c.type), patterns, names: tableNames, tsColumn: ts, ...inOrder };
  }

  async #append(rowCount: number, inputs: ColumnInput[]): Promise<void> {
    this.#checkOpen();
    const t = this.#target!;
    const columns: Record<string, ColumnInput> = {};
    inputs.forEach((input, i) => {
      columns[t.names[i]!] = input;
    });
    // Rows spread over thousands of partitions: a few dozen at a time, a turn for other requests between.
    await t.writer.appendAsync(
      { rowCount, columns },
      turnTaker(() => this.#checkOpen()),
    );
    const limit = t.writer.meta.maxUncommittedRows * LATE_ROWS_FACTOR;
    if (!t.staged && t.writer.pendingLateRows > limit) {
      throw importError(
        `more than ${limit} rows are older than the table's newest row; an import into an existing table holds them in memory until it commits [table=${t.writer.meta.name}]; import into a new table, or sort the file`,
      );
    }
    await this.#chargeLateRows(t, rowCount, inputs);
  }

  /**
   * Out-of-order rows wait in the writer's memory until a commit merges them:
   * charged at this batch's bytes per row. A staged table commits early (out
   * of sight) rather than outgrow the budget; an append cannot, and fails.
   */
  async #chargeLateRows(t: Target, rowCount: number, inputs: readonly ColumnInput[]): Promise<void> {
    const late = t.writer.pendingLateRows;
    if (late === this.#lateRows) return;
    let bytes = this.#lateBytes;
    if (late > this.#lateRows) bytes += Math.ceil(((late - this.#lateRows) * inputBytes(inputs)) / rowCount);
    else bytes = this.#lateRows > 0 ? Math.ceil((bytes * late) / this.#lateRows) : 0; // an automatic commit merged some
    const what = t.staged
      ? 'out-of-order rows held until they are merged'
      : "rows older than the table's newest, held until the import's single commit (import into a new table, or sort the file)";
    if (t.staged && bytes > this.#lateBytes && this.#budget.used + bytes - this.#lateBytes > this.#budget.limit) {
      // The staged table is invisible: merging now only makes the merge happen earlier.
      await t.writer.commitAsync(turnTaker(() => this.#checkOpen()));
      bytes = 0;
    }
    this.#budget.resize(this.#lateBytes, bytes, what);
    this.#lateBytes = bytes;
    this.#lateRows = t.writer.pendingLateRows;
  }
}

/** Bytes of a batch's column inputs. */
function inputBytes(inputs: readonly ColumnInput[]): number {
  let n = 0;
  for (const v of inputs) {
    if (ArrayBuffer.isView(v)) n += v.byteLength;
    else if (Array.isArray(v))
      n += v.length * 8; // not from the builders; a pointer each at least
    else {
      const c = v as Exclude<ColumnInput, readonly unknown[] | ArrayBufferView>;
      if (c.kind === 'var') n += c.bytes.byteLength + c.offsets.byteLength + (c.nulls?.byteLength ?? 0);
      else if (c.kind === 'symbol') n += c.keys.byteLength;
      else n += c.data.byteLength + (c.exact?.byteLength ?? 0);
    }
  }
  return n;
}

function reportColumn(name: string, type: ColumnType): ImportColumnReport {
  const info = typeInfo(type);
  return { name, type, size: info.layout === 'var' ? 0 : info.width, errors: 0 };
}

/** A column type name from a schema entry or parameter (any case), or null. */
export function parseColumnType(text: string): ColumnType | null {
  try {
    return parseType(text) ?? null;
  } catch (err) {
    if (err instanceof ColumnTypeError) throw importError(`invalid type ${text}: ${err.message}`);
    throw err;
  }
}

/**
 * What a commit awaits between the partitions it merges: a turn of the event
 * loop every TURN_EVERY_MS, so that merging late rows into thousands of
 * partitions (seconds) does not hold up every other request meanwhile; `after`
 * runs after each turn (throwing stops the commit, which then rolls back).
 */
function turnTaker(after: () => void = () => {}): () => Promise<void> {
  let last = performance.now();
  return async () => {
    const now = performance.now();
    if (now - last < TURN_EVERY_MS) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    last = performance.now();
    after();
  };
}

const TURN_EVERY_MS = 10;
