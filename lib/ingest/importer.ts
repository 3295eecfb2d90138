// One import: bytes in (any chunking), rows out to a table writer. The start
// of the file is held until detection (delimiter, header, types) can decide;
// then every chunk is tokenized straight into typed column builders and
// appended in batches. A new table (or overwrite=true) is built as a staged
// table and published at the end in one rename; an existing table gets its
// rows with automatic commits off, committed once at the end. Either way,
// readers see all of the import or none of it, and abort() undoes it.
import { SvcError } from '../errors/svc-error.js';
import type { Catalog } from '../storage/catalog.js';
import { COLUMN_TYPES, TYPE_INFO, type ColumnType } from '../storage/column-type.js';
import type { ColumnInput } from '../storage/column-vector.js';
import type { PartitionBy } from '../storage/partition-by.js';
import type { Table } from '../storage/table.js';
import type { TableWriter } from '../storage/table-writer.js';
import { columnBuilder, IMPORTABLE, type ColumnBuilder } from './column-builders.js';
import { CsvTokenizer, type FieldSink } from './csv-tokenizer.js';
import { detectColumns, detectDelimiter, sampleLines } from './detect.js';
import { columnNames } from './import-names.js';

export type Atomicity = 'skipCol' | 'skipRow' | 'abort';

export interface SchemaEntry {
  readonly name: string;
  readonly type: ColumnType;
  readonly pattern?: string;
}

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

/** Rows per batch handed to the writer. */
const BATCH = 1 << 16;
/** Detection waits for this many bytes at most before deciding (or the end of the file). */
const SAMPLE_BYTES = 1 << 20;
/** Out-of-order rows an import into an existing table may hold back until its single commit, per maxUncommittedRows. */
const LATE_ROWS_FACTOR = 10;

/** A problem with the request as a whole (answered {"status": message}). */
export function importError(message: string): SvcError {
  return new SvcError('BAD_REQUEST', message);
}

interface Target {
  /** Builder per file column, or null for a file column the table does not have (ignored). */
  readonly builders: (ColumnBuilder | null)[];
  /** Table column name per file column. */
  readonly names: (string | null)[];
  /** File column of the designated timestamp, or -1. */
  readonly tsColumn: number;
  readonly writer: TableWriter;
  readonly staged: Table | null;
  readonly report: ImportColumnReport[];
  readonly errors: number[];
  readonly header: boolean;
  readonly partitionBy: PartitionBy;
  readonly timestamp: string | null;
}

export class Importer {
  readonly #catalog: Catalog;
  readonly #opts: ImportOptions;
  #head: Uint8Array[] = [];
  #headBytes = 0;
  #tokenizer: CsvTokenizer | null = null;
  #target: Target | null = null;
  #done = false;
  // Row state.
  #field = 0;
  #rowBad = false;
  #skipHeader = false;
  #rows = 0;
  #imported = 0;
  #rejected = 0;
  #pending = 0;
  /** Bytes consumed, for progress. */
  bytes = 0;

  constructor(catalog: Catalog, opts: ImportOptions) {
    this.#catalog = catalog;
    this.#opts = opts;
  }

  get rowsImported(): number { return this.#imported; }
  get rowsRejected(): number { return this.#rejected; }

  /** Feeds the next bytes of the file. */
  async push(chunk: Uint8Array): Promise<void> {
    if (this.#done) throw new Error('import already finished');
    this.bytes += chunk.length;
    if (this.#target === null) {
      this.#head.push(chunk);
      this.#headBytes += chunk.length;
      if (this.#headBytes < SAMPLE_BYTES && countNewlines(this.#head) <= this.#opts.analysisLines) return;
      await this.#start(false);
      return;
    }
    this.#tokenizer!.push(chunk, this.#sink);
  }

  /** End of the file: the last rows are written and the import becomes visible. */
  async finish(): Promise<ImportResult> {
    if (this.#target === null) await this.#start(true);
    this.#tokenizer!.end(this.#sink);
    this.#flush();
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
    return {
      status: 'OK', location: this.#opts.location, rowsRejected: this.#rejected, rowsImported: this.#imported, header: t.header,
      partitionBy: t.partitionBy, timestamp: t.timestamp,
      columns: t.report.map((c, i) => ({ ...c, errors: t.errors[i]! })),
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

  async #start(complete: boolean): Promise<void> {
    const o = this.#opts;
    const head = concat(this.#head);
    this.#head = [];
    if (head.length === 0) throw importError(`empty file [table=${o.table}]`);
    let delimiter = o.delimiter;
    if (delimiter === null) {
      delimiter = detectDelimiter(head, o.analysisLines, complete);
      if (delimiter === null) {
        const lines = sampleLines(head, 0x2c, 3, complete).lines.length;
        throw importError(lines < 2
          ? `not enough lines [table=${o.table}]: a delimiter cannot be detected from one line; set the delimiter parameter`
          : `cannot detect the delimiter [table=${o.table}]: no comma, tab, pipe or semicolon splits the lines consistently; set the delimiter parameter`);
      }
    }
    const sample = sampleLines(head, delimiter, o.analysisLines, complete);
    if (sample.lines.length === 0) throw importError(`no rows in the file [table=${o.table}]`);
    const d = detectColumns(sample, o.forceHeader);
    if (d.header && sample.lines.length === 1 && complete) throw importError(`the file has a header and no rows [table=${o.table}]`);
    this.#target = await this.#prepare(d.header, d.names, d.columns.map((c) => c.type), d.columns.map((c) => c.pattern));
    this.#skipHeader = d.header;
    this.#tokenizer = new CsvTokenizer({ delimiter });
    this.#tokenizer.push(head, this.#sink);
  }

  async #prepare(header: boolean, headerNames: readonly string[] | null, types: ColumnType[], patterns: (string | undefined)[]): Promise<Target> {
    const o = this.#opts;
    const names = columnNames(headerNames, types.length);
    // Schema entries override detection by (sanitized) name, case-insensitively.
    for (const s of o.schema) {
      const i = names.findIndex((n) => n.toLowerCase() === s.name.toLowerCase());
      if (i < 0) throw importError(`schema column does not exist in the file [column=${s.name}]`);
      types[i] = s.type;
      patterns[i] = s.pattern;
    }
    const exists = this.#catalog.exists(o.table);
    if (exists && !o.overwrite) return this.#prepareAppend(header, names, patterns);
    if (!exists && !o.create) throw importError(`table does not exist [table=${o.table}]`);
    return this.#prepareNew(header, names, types, patterns);
  }

  async #prepareNew(header: boolean, names: string[], types: ColumnType[], patterns: (string | undefined)[]): Promise<Target> {
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
    return {
      builders: types.map((t, i) => columnBuilder(t, patterns[i])), names, tsColumn: ts, writer, staged,
      report: names.map((name, i) => reportColumn(name, types[i]!)), errors: names.map(() => 0),
      header, partitionBy, timestamp: ts >= 0 ? names[ts]! : null,
    };
  }

  async #prepareAppend(header: boolean, names: string[], patterns: (string | undefined)[]): Promise<Target> {
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
    return {
      builders: cols.map((c, i) => columnBuilder(c!.type, patterns[i])), names: cols.map((c) => c!.name), tsColumn: ts, writer, staged: null,
      report: cols.map((c) => reportColumn(c!.name, c!.type)), errors: cols.map(() => 0),
      header, partitionBy: meta.partitionBy, timestamp: tsDef?.name ?? null,
    };
  }

  readonly #sink: FieldSink = {
    field: (buf, start, end, quoted) => {
      const c = this.#field++;
      if (this.#skipHeader) return;
      const t = this.#target!;
      if (c >= t.builders.length) {
        if (!this.#opts.skipLev) this.#rowBad = true; // a line with extra values is rejected (skipLev keeps it)
        return;
      }
      const b = t.builders[c]!;
      if (start === end && (!quoted || (b.type !== 'VARCHAR' && b.type !== 'STRING'))) {
        b.addNull();
        if (c === t.tsColumn) this.#rowBad = true;
        return;
      }
      if (b.add(buf, start, end, quoted)) return;
      t.errors[c]!++;
      b.addNull();
      if (c === t.tsColumn) { this.#rowBad = true; return; }
      if (this.#opts.atomicity === 'skipRow') this.#rowBad = true;
      else if (this.#opts.atomicity === 'abort') {
        const line = this.#tokenizer?.line ?? 0;
        throw importError(`cannot convert a value to ${b.type} [column=${t.report[c]!.name}, line=${line}, atomicity=abort]; nothing was imported`);
      }
    },
    endRow: () => {
      const t = this.#target!;
      const fields = this.#field;
      this.#field = 0;
      if (this.#skipHeader) { this.#skipHeader = false; return; }
      this.#rows++;
      const n = t.builders.length;
      // A short line: the missing values are NULL (never borrowed from another line).
      for (let c = Math.min(fields, n); c < n; c++) {
        t.builders[c]!.addNull();
        if (c === t.tsColumn) this.#rowBad = true;
      }
      if (this.#rowBad) {
        this.#rowBad = false;
        for (const b of t.builders) b!.pop();
        this.#rejected++;
        if (this.#opts.atomicity === 'abort') throw importError(`line ${this.#tokenizer?.line ?? 0} cannot be imported [atomicity=abort]; nothing was imported`);
        return;
      }
      this.#imported++;
      if (++this.#pending >= BATCH) this.#flush();
    },
  };

  #flush(): void {
    const t = this.#target!;
    if (this.#pending === 0) return;
    const columns: Record<string, ColumnInput> = {};
    t.builders.forEach((b, i) => { columns[t.names[i]!] = b!.take(); });
    t.writer.append({ rowCount: this.#pending, columns });
    this.#pending = 0;
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

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

function countNewlines(parts: readonly Uint8Array[]): number {
  let n = 0;
  for (const p of parts) for (let i = 0; i < p.length; i++) if (p[i] === 10) n++;
  return n;
}

/** A column type name from a schema entry or parameter (any case), or null. */
export function parseColumnType(text: string): ColumnType | null {
  const t = text.trim().toUpperCase();
  return (COLUMN_TYPES as readonly string[]).includes(t) ? (t as ColumnType) : null;
}
