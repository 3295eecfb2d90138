// One import: bytes in (any chunking), rows out to a table writer. The
// CsvBatcher holds the start of the file until detection can decide, then
// tokenizes every chunk into typed column batches, which are appended here.
// A new table (or overwrite=true) is built as a staged table and published at
// the end in one rename; an existing table gets its rows with automatic
// commits off, committed once at the end. Either way, readers see all of the
// import or none of it, and abort() undoes it.
import type { Catalog } from '../storage/catalog.js';
import { COLUMN_TYPES, TYPE_INFO, type ColumnType } from '../storage/column-type.js';
import type { ColumnInput } from '../storage/column-vector.js';
import type { PartitionBy } from '../storage/partition-by.js';
import type { Table } from '../storage/table.js';
import type { TableWriter } from '../storage/table-writer.js';
import { IMPORTABLE } from './column-builders.js';
import { CsvBatcher, importError, type Atomicity, type CsvLayout, type CsvTarget, type SchemaEntry } from './csv-batcher.js';

export { importError, type Atomicity, type SchemaEntry };

export interface ImportOptions {
  /** Target table (already sanitized). */
  readonly table: string;
  /** Where the data came from, for the report (the file name). */
  readonly location: string;
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
}

export interface ImportColumnReport {
  readonly name: string;
  readonly type: ColumnType;
  readonly size: number;
  readonly errors: number;
}

export interface ImportResult {
  readonly status: 'OK';
  readonly location: string;
  readonly rowsRejected: number;
  readonly rowsImported: number;
  readonly header: boolean;
  readonly partitionBy: PartitionBy;
  readonly timestamp: string | null;
  readonly columns: readonly ImportColumnReport[];
}

/** Out-of-order rows an import into an existing table may hold back until its single commit, per maxUncommittedRows. */
const LATE_ROWS_FACTOR = 10;

interface Target {
  /** Table column name per file column. */
  readonly names: string[];
  readonly writer: TableWriter;
  readonly staged: Table | null;
  readonly report: ImportColumnReport[];
  readonly partitionBy: PartitionBy;
  readonly timestamp: string | null;
}

export class Importer {
  readonly #catalog: Catalog;
  readonly #opts: ImportOptions;
  readonly #batcher: CsvBatcher;
  #target: Target | null = null;
  #done = false;

  constructor(catalog: Catalog, opts: ImportOptions) {
    this.#catalog = catalog;
    this.#opts = opts;
    this.#batcher = new CsvBatcher({
      label: opts.table, atomicity: opts.atomicity, delimiter: opts.delimiter, forceHeader: opts.forceHeader,
      skipLev: opts.skipLev, schema: opts.schema, analysisLines: opts.analysisLines,
    }, {
      prepare: (layout) => this.#prepare(layout),
      batch: (rows, columns) => this.#append(rows, columns),
    });
  }

  get rowsImported(): number { return this.#batcher.rowsAccepted; }
  get rowsRejected(): number { return this.#batcher.rowsRejected; }
  /** Bytes consumed so far, for progress. */
  get bytes(): number { return this.#batcher.bytes; }

  /** Feeds the next bytes of the file. */
  async push(chunk: Uint8Array): Promise<void> {
    if (this.#done) throw new Error('import already finished');
    await this.#batcher.push(chunk);
  }

  /** End of the file: the last rows are written and the import becomes visible. */
  async finish(): Promise<ImportResult> {
    await this.#batcher.finish();
    const t = this.#target!;
    t.writer.commit();
    this.#done = true;
    t.writer.close();
    if (t.staged) {
      try {
        await this.#catalog.publishStaged(t.staged, { replace: this.#opts.overwrite });
      } catch (e) {
        // Someone created the table meanwhile (without overwrite): nothing of this import stays.
        this.#catalog.discardStaged(t.staged);
        throw e;
      }
    }
    const errors = this.#batcher.errors;
    return {
      status: 'OK', location: this.#opts.location, rowsRejected: this.rowsRejected, rowsImported: this.rowsImported, header: this.#batcher.header,
      partitionBy: t.partitionBy, timestamp: t.timestamp,
      columns: t.report.map((c, i) => ({ ...c, errors: errors[i]! })),
    };
  }

  /** Undoes everything this import wrote (client gone, error). Safe to call at any point, more than once. */
  abort(): void {
    if (this.#done) return;
    this.#done = true;
    const t = this.#target;
    if (!t) return;
    try {
      t.writer.close(); // rolls back what is uncommitted
    } finally {
      if (t.staged) this.#catalog.discardStaged(t.staged);
    }
  }

  async #prepare(layout: CsvLayout): Promise<CsvTarget> {
    const o = this.#opts;
    const exists = this.#catalog.exists(o.table);
    if (exists && !o.overwrite) return this.#prepareAppend(layout);
    if (!exists && !o.create) throw importError(`table does not exist [table=${o.table}]`);
    return this.#prepareNew(layout);
  }

  async #prepareNew({ names, types, patterns }: CsvLayout): Promise<CsvTarget> {
    const o = this.#opts;
    let ts = -1;
    if (o.timestamp !== null) {
      ts = names.findIndex((n) => n.toLowerCase() === o.timestamp!.toLowerCase());
      if (ts < 0) throw importError(`timestamp column does not exist in the file [column=${o.timestamp}]`);
      if (types[ts] !== 'TIMESTAMP') {
        throw importError(`timestamp column must be a TIMESTAMP [column=${names[ts]}, detected=${types[ts]}]; give its type and pattern in the schema part`);
      }
    }
    const partitionBy = o.partitionBy ?? 'NONE';
    if (partitionBy !== 'NONE' && ts < 0) throw importError(`partitionBy ${partitionBy} needs a designated timestamp: set the timestamp parameter [table=${o.table}]`);
    for (const t of types) if (!IMPORTABLE.includes(t)) throw importError(`a file cannot be imported into a ${t} column`);
    const staged = this.#catalog.createStaged({
      name: o.table, columns: names.map((name, i) => ({ name, type: types[i]! })), timestamp: ts >= 0 ? names[ts] : undefined, partitionBy,
      maxUncommittedRows: o.maxUncommittedRows, o3MaxLag: o.o3MaxLag,
    });
    let writer: TableWriter;
    try {
      writer = await this.#catalog.stagedWriter(staged);
    } catch (e) {
      this.#catalog.discardStaged(staged);
      throw e;
    }
    this.#target = {
      names, writer, staged, report: names.map((name, i) => reportColumn(name, types[i]!)),
      partitionBy, timestamp: ts >= 0 ? names[ts]! : null,
    };
    return { types, patterns, names, tsColumn: ts };
  }

  async #prepareAppend({ names, patterns }: CsvLayout): Promise<CsvTarget> {
    const o = this.#opts;
    const meta = this.#catalog.get(o.table).meta;
    const cols = names.map((n) => meta.columns.find((c) => c.name.toLowerCase() === n.toLowerCase()) ?? null);
    const missing = names.filter((_, i) => cols[i] === null);
    if (missing.length > 0) throw importError(`the table has no column ${missing.join(', ')} [table=${meta.name}]`);
    const tsDef = meta.columns.find((c) => c.id === meta.timestampId);
    const ts = tsDef ? cols.findIndex((c) => c === tsDef) : -1;
    if (tsDef && ts < 0) throw importError(`the file has no column for the designated timestamp [table=${meta.name}, column=${tsDef.name}]`);
    for (const c of cols) if (!IMPORTABLE.includes(c!.type)) throw importError(`a file cannot be imported into a ${c!.type} column [column=${c!.name}]`);
    const writer = await this.#catalog.writer(o.table);
    writer.autoCommit = false;
    const tableNames = cols.map((c) => c!.name);
    this.#target = {
      names: tableNames, writer, staged: null, report: cols.map((c) => reportColumn(c!.name, c!.type)),
      partitionBy: meta.partitionBy, timestamp: tsDef?.name ?? null,
    };
    return { types: cols.map((c) => c!.type), patterns, names: tableNames, tsColumn: ts };
  }

  #append(rowCount: number, inputs: ColumnInput[]): void {
    const t = this.#target!;
    const columns: Record<string, ColumnInput> = {};
    inputs.forEach((input, i) => { columns[t.names[i]!] = input; });
    t.writer.append({ rowCount, columns });
    const limit = t.writer.meta.maxUncommittedRows * LATE_ROWS_FACTOR;
    if (!t.staged && t.writer.pendingLateRows > limit) {
      throw importError(`more than ${limit} rows are older than the table's newest row; an import into an existing table holds them in memory until it commits [table=${t.writer.meta.name}]; import into a new table, or sort the file`);
    }
  }
}

function reportColumn(name: string, type: ColumnType): ImportColumnReport {
  const info = TYPE_INFO[type];
  return { name, type, size: info.layout === 'var' ? 0 : info.width, errors: 0 };
}

/** A column type name from a schema entry or parameter (any case), or null. */
export function parseColumnType(text: string): ColumnType | null {
  const t = text.trim().toUpperCase();
  return (COLUMN_TYPES as readonly string[]).includes(t) ? (t as ColumnType) : null;
}
