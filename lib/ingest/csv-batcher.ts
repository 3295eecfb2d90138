// CSV bytes in (any chunking), typed column batches out: the part of an import
// that does not know about tables. The start of the file is held until
// detection (delimiter, header, types) can decide; schema entries override
// what was detected; the owner then says which types the columns convert to
// (an existing table's, for an append) and every chunk is tokenized straight
// into typed column builders, handed over in batches. The row rules are
// /imp's: atomicity (skipCol, skipRow, abort), short lines padded with NULL,
// long lines rejected unless skipLev, a row without its timestamp rejected.
// Used by the Importer (POST /imp, `svcdb import`) and by the library's
// csvToBatches operator. What it holds is charged to the import's budget
// (import-limits.ts): the start of the file while detection waits, the
// sample's text, the builders (batches are shorter for wide rows), the
// tokenizer's buffer.
import { SvcError } from '../errors/svc-error.js';
import type { MemoryBudget } from '../limits/memory-budget.js';
import { typeInfo, type ColumnType } from '../core/column-type.js';
import type { ColumnInput } from '../core/column-vector.js';
import { BuilderMemory, columnBuilder, type ColumnBuilder } from './column-builders.js';
import { FastRows } from './fast-rows.js';
import { CsvTokenizer } from './csv-tokenizer.js';
import { RowRules } from './row-rules.js';
import { lastRowEnd, Segments } from './segments.js';
import type { WorkerPool } from '../workers/worker-pool.js';
import { detectColumns, detectDelimiter, sampleLines, type Sample } from './detect.js';
import {
  DEFAULT_IMPORT_LIMITS,
  importBudget,
  lineTooLong,
  tooManyColumns,
  type ImportLimits,
} from './import-limits.js';
import { columnNames } from './import-names.js';
import type { ImportIssue, IssueReport } from './import-issues.js';

export type Atomicity = 'skipCol' | 'skipRow' | 'abort';

export interface SchemaEntry {
  readonly name: string;
  readonly type: ColumnType;
  readonly pattern?: string;
}

export interface CsvBatcherOptions {
  /** Names the data in messages (`[table=label]`). */
  readonly label: string;
  readonly atomicity: Atomicity;
  /** Delimiter byte, or null to detect. */
  readonly delimiter: number | null;
  readonly forceHeader: boolean;
  readonly skipLev: boolean;
  /** Types (and date patterns) by column name, over detection. */
  readonly schema: readonly SchemaEntry[];
  /** Lines detection looks at (http.text.analysis.max.lines). */
  readonly analysisLines: number;
  /** Rows per batch at most (default 65,536; fewer when rows are wide). */
  readonly batchRows?: number;
  /** Ends the message of an atomicity=abort failure (default: "; nothing was imported"). */
  readonly abortNote?: string;
  /** Memory, column and line limits (default: server.conf's defaults). */
  readonly limits?: ImportLimits;
  /** The import's budget (default: a new one of limits.memory); its owner releases it. */
  readonly budget?: MemoryBudget;
  /** The worker pool that parses segments of the file (ingest/segments.ts); absent or null: this thread parses. */
  readonly pool?: () => WorkerPool | null;
  /** Report rejected rows and values stored as NULL line by line (ingest/import-issues.ts); off when absent. */
  readonly issues?: IssueReport;
}

/** What detection found, schema entries applied. */
export interface CsvLayout {
  readonly header: boolean;
  /** Sanitized names (generated f0, f1... without a header). */
  readonly names: string[];
  readonly types: ColumnType[];
  readonly patterns: (string | undefined)[];
}

/** What each file column converts to. */
export interface CsvTarget {
  readonly types: readonly ColumnType[];
  readonly patterns: readonly (string | undefined)[];
  /** Names for messages about a column. */
  readonly names: readonly string[];
  /** File column whose empty or bad value rejects the row (the designated timestamp), or -1. */
  readonly tsColumn: number;
  /**
   * A non-partitioned table with a designated timestamp takes rows in timestamp order only
   * (QuestDB's rule): its newest timestamp so far (-Infinity when empty); a row older than the
   * newest one before it is rejected and counted against the timestamp column. Absent otherwise.
   */
  readonly inOrderFrom?: number;
}

export interface CsvBatchSink {
  /** Called once, after detection: the types rows convert to (may throw to refuse the file). */
  prepare(layout: CsvLayout): Promise<CsvTarget> | CsvTarget;
  /**
   * A batch of accepted rows, one input per file column; views valid until
   * the call returns or, when it returns a promise, until that settles (the
   * batcher parses nothing meanwhile).
   */
  batch(rowCount: number, columns: ColumnInput[]): void | Promise<void>;
}

/** Rows per batch by default. */
export const CSV_BATCH_ROWS = 1 << 16;
/**
 * Detection waits for http.text.analysis.max.lines lines, but once it holds
 * this many bytes it decides as soon as it has MIN_SAMPLE_LINES complete lines
 * (each at most the line limit; all of it within the budget).
 */
const SAMPLE_BYTES = 1 << 20;
const MIN_SAMPLE_LINES = 2;
/**
 * What detection's sample costs per byte of the start of the file beyond the
 * bytes themselves: a copy in one piece, the fields as JS strings (two bytes
 * a character) and the arrays holding them.
 */
const SAMPLE_COST_PER_BYTE = 4;
/** A batch's size in bytes that sets its row count (wide rows, fewer rows) and, for text, hands it over early. */
const BATCH_BYTES = 8 << 20;
/** Rows the builders have room for at first (they grow as rows come, up to the batch's rows). */
const INITIAL_ROWS = 1024;
/** What a text value is taken to cost when the sample has none: offsets, NULL flag and a few bytes. */
const TEXT_ROW_BYTES = 16;

/** A problem with the input as a whole (/imp answers it as {"status": message}). */
export function importError(message: string): SvcError {
  return new SvcError('BAD_REQUEST', message);
}

export class CsvBatcher {
  readonly #opts: CsvBatcherOptions;
  readonly #sink: CsvBatchSink;
  readonly #limits: ImportLimits;
  readonly #budget: MemoryBudget;
  #batchRows: number;
  /** The batch ends when #pending reaches this: #batchRows, or 0 once its text outgrew BATCH_BYTES. */
  #rowLimit: number;
  #memory: BuilderMemory | null = null;
  #head: Uint8Array[] = [];
  #headBytes = 0;
  /** Complete lines in the head, the bytes of the line in progress, and whether the last byte was a \r. */
  #headLines = 0;
  #lineRun = 0;
  #prevCR = false;
  #tokenizer: CsvTokenizer | null = null;
  #builders: ColumnBuilder[] | null = null;
  #header = false;
  #started = false;
  /** The row rules over the tokenizer's fields (set once detection ran). */
  #rows: RowRules | null = null;
  /** Plain rows in one pass ahead of the tokenizer (not for a table taking rows in order only). */
  #fast: FastRows | null = null;
  /** Rows and conversion errors of segments parsed on the pool (ingest/segments.ts), added to #rows'. */
  #segments: Segments | null = null;
  /** Bytes consumed. */
  bytes = 0;

  constructor(opts: CsvBatcherOptions, sink: CsvBatchSink) {
    this.#opts = opts;
    this.#sink = sink;
    this.#limits = opts.limits ?? DEFAULT_IMPORT_LIMITS;
    this.#budget = opts.budget ?? importBudget(this.#limits);
    this.#batchRows = opts.batchRows ?? CSV_BATCH_ROWS;
    this.#rowLimit = this.#batchRows;
  }

  /** The budget everything this batcher holds is charged to. */
  get budget(): MemoryBudget {
    return this.#budget;
  }

  get rowsAccepted(): number {
    return (this.#rows?.accepted ?? 0) + (this.#segments?.accepted ?? 0);
  }
  get rowsRejected(): number {
    return (this.#rows?.rejected ?? 0) + (this.#segments?.rejected ?? 0);
  }
  /** Values of accepted rows stored as NULL because they did not convert (atomicity skipCol). */
  get nulled(): number {
    return (this.#rows?.nulled ?? 0) + (this.#segments?.nulled ?? 0);
  }
  /** Values that did not convert, per file column. */
  get errors(): number[] {
    const e = this.#rows?.errors ?? [];
    const more = this.#segments?.errors;
    return more === undefined ? e : e.map((x, i) => x + more[i]!);
  }
  /** Whether the first line was a header (known once detection ran). */
  get header(): boolean {
    return this.#header;
  }

  /** Feeds the next bytes. */
  async push(chunk: Uint8Array): Promise<void> {
    this.bytes += chunk.length;
    if (!this.#started) {
      this.#budget.charge(chunk.length, 'the start of the file held for detection');
      this.#head.push(chunk);
      this.#headBytes += chunk.length;
      this.#scanHead(chunk);
      const lines = this.#headLines;
      if (lines <= this.#opts.analysisLines && (this.#headBytes < SAMPLE_BYTES || lines < MIN_SAMPLE_LINES)) return;
      await this.#start(false);
      return;
    }
    await this.#feed(chunk);
  }

  /** Tokenizes a chunk, pausing at each full batch until the sink has taken it. */
  async #feed(chunk: Uint8Array): Promise<void> {
    if (this.#segments !== null && !this.#segments.serial) {
      await this.#segments.push(chunk);
      return;
    }
    const rows = this.#rows!;
    const fast = this.#fast;
    for (;;) {
      const used = fast !== null ? fast.push(chunk, this.#tokenizer!) : this.#tokenizer!.push(chunk, rows);
      if (rows.pending >= rows.rowLimit) await this.#flush();
      if (used >= chunk.length) return;
      chunk = chunk.subarray(used);
    }
  }

  /** Counts the lines of the held start of the file (\n, \r\n or \r) and refuses one longer than the line limit. */
  #scanHead(chunk: Uint8Array): void {
    const limit = this.#limits.lineBytes;
    let lines = this.#headLines;
    let run = this.#lineRun;
    let prevCR = this.#prevCR;
    for (let i = 0; i < chunk.length; i++) {
      const b = chunk[i]!;
      if (b === 10) {
        if (!prevCR) lines++; // the \n of a \r\n was counted at its \r
        run = 0;
        prevCR = false;
      } else if (b === 13) {
        lines++;
        run = 0;
        prevCR = true;
      } else {
        prevCR = false;
        if (++run > limit) throw lineTooLong(this.#limits, `line ${lines + 1}`, lines + 1);
      }
    }
    this.#headLines = lines;
    this.#lineRun = run;
    this.#prevCR = prevCR;
  }

  /** End of the input: the last rows are handed over. */
  async finish(): Promise<void> {
    if (!this.#started) await this.#start(true);
    if (this.#segments !== null && !this.#segments.serial) await this.#segments.finish();
    if (this.#segments !== null && !this.#segments.serial) return;
    this.#tokenizer!.end(this.#rows!);
    await this.#flush();
  }

  async #start(complete: boolean): Promise<void> {
    this.#started = true;
    // The head's own bytes were charged as they came; its copy and its text while detection runs.
    const sampleCost = this.#headBytes * SAMPLE_COST_PER_BYTE;
    this.#budget.charge(sampleCost, "detection's sample of the start of the file");
    try {
      await this.#detectAndStart(complete);
    } finally {
      this.#budget.release(sampleCost + this.#headBytes);
    }
  }

  async #detectAndStart(complete: boolean): Promise<void> {
    const o = this.#opts;
    const head = concat(this.#head);
    this.#head = [];
    if (head.length === 0) throw importError(`empty file [table=${o.label}]`);
    let delimiter = o.delimiter;
    if (delimiter === null) {
      const scan = detectDelimiter(head, o.analysisLines, complete);
      if ('error' in scan) {
        // QuestDB's words, which text-format clients compare: the delimiter parameter is the way out of both.
        throw importError(
          scan.error === 'lines' ? `not enough lines [table=${o.label}]` : `min deviation is too high [${scan.detail}]`,
        );
      }
      delimiter = scan.delimiter;
    }
    const sample = sampleLines(head, delimiter, o.analysisLines, complete);
    if (sample.lines.length === 0) throw importError(`no rows in the file [table=${o.label}]`);
    const d = detectColumns(sample, o.forceHeader);
    // Before anything is sized by the column count: a wide file is refused here, having held a few lines.
    if (d.columns.length > this.#limits.maxColumns) throw tooManyColumns(this.#limits, d.columns.length, o.label);
    if (d.header && sample.lines.length === 1 && complete)
      throw importError(`the file has a header and no rows [table=${o.label}]`);
    const names = columnNames(d.header ? d.names : null, d.columns.length);
    const types = d.columns.map((c) => c.type);
    const patterns = d.columns.map((c) => c.pattern);
    // Schema entries override detection by name, case-insensitively; one naming no column of the file is ignored (as QuestDB does).
    const byName = new Map<string, number>();
    names.forEach((n, i) => {
      if (!byName.has(n.toLowerCase())) byName.set(n.toLowerCase(), i);
    });
    for (const s of o.schema) {
      const i = byName.get(s.name.toLowerCase());
      if (i === undefined) continue;
      types[i] = s.type;
      patterns[i] = s.pattern;
    }
    this.#header = d.header;
    const target = await this.#sink.prepare({ header: d.header, names, types, patterns });
    this.#sizeBatches(target.types, sample, d.header);
    this.#builders = target.types.map((t, i) => columnBuilder(t, target.patterns[i], this.#memory!));
    this.#tokenizer = this.#newTokenizer(delimiter);
    const issues = o.issues && { keep: o.issues.keep, raw: o.issues.raw, delimiter };
    const rules = {
      atomicity: o.atomicity,
      skipLev: o.skipLev,
      ...(o.abortNote === undefined ? {} : { abortNote: o.abortNote }),
      ...(issues === undefined ? {} : { issues }),
    };
    this.#rows = new RowRules(this.#builders, target, rules, () => this.#tokenizer?.line ?? 0, d.header);
    this.#rows.rowLimit = this.#rowLimit;
    if (target.inOrderFrom === undefined) this.#fast = new FastRows(this.#builders, delimiter, this.#rows);
    // The start of the file (what detection held) is parsed here, up to its last row end; the rest on the
    // pool when there is one (and rows need not come in order): segments of the file parsed by its threads.
    const pool = o.pool?.() ?? null;
    const cut = pool !== null && target.inOrderFrom === undefined ? lastRowEnd(head) : -1;
    await this.#feed(cut < 0 ? head : head.subarray(0, cut));
    if (cut < 0 || !this.#tokenizer.atRowBoundary) {
      if (cut >= 0) await this.#feed(head.subarray(cut));
      return;
    }
    await this.#flush(); // these rows before the segments' rows
    this.#segments = new Segments(pool!, {
      delimiter,
      lineBytes: this.#limits.lineBytes,
      segmentBytes: this.#limits.segmentBytes,
      target,
      rules,
      line: this.#tokenizer.line,
      startRows: this.#rows.accepted + this.#rows.rejected,
      startBytes: cut,
      budget: this.#budget,
      batch: (rows, columns) => this.#sink.batch(rows, columns),
      serially: (line, chunks) => this.#serially(delimiter, line, chunks),
      more: (chunk) => this.#feed(chunk),
      issues: (list) => this.#report(list),
    });
    await this.#feed(head.subarray(cut));
  }

  /**
   * Rows per batch from the width of a row (fixed widths, text as long as in
   * the sample), so that a batch is about BATCH_BYTES: a file of thousands of
   * columns gets short batches instead of 65,536 rows of room per column.
   */
  #sizeBatches(types: readonly ColumnType[], sample: Sample, header: boolean): void {
    let rowBytes = 0;
    let textColumns = 0;
    types.forEach((t, c) => {
      const info = typeInfo(t);
      if (info.layout !== 'var') {
        rowBytes += info.width;
        return;
      }
      textColumns++;
      let bytes = 0;
      let n = 0;
      for (let l = header ? 1 : 0; l < sample.lines.length; l++) {
        bytes += sample.lines[l]![c]?.length ?? 0;
        n++;
      }
      rowBytes += TEXT_ROW_BYTES + (n > 0 ? Math.ceil(bytes / n) : 0);
    });
    this.#batchRows = Math.max(1, Math.min(this.#batchRows, Math.floor(BATCH_BYTES / Math.max(rowBytes, 1))));
    this.#rowLimit = this.#batchRows;
    this.#memory = new BuilderMemory(
      this.#budget,
      Math.min(this.#batchRows, INITIAL_ROWS),
      textColumns > 0 ? Math.ceil(BATCH_BYTES / textColumns) : Infinity,
      () => {
        this.#rowLimit = 0;
        if (this.#rows !== null) this.#rows.rowLimit = 0;
      },
    );
  }

  #newTokenizer(delimiter: number, continuesAtLine?: number): CsvTokenizer {
    return new CsvTokenizer({
      delimiter,
      maxField: this.#limits.lineBytes,
      budget: this.#budget,
      fieldTooLong: (line) => lineTooLong(this.#limits, `a value on line ${line}`, line),
      ...(continuesAtLine === undefined ? {} : { continuesAtLine }),
    });
  }

  /**
   * The rest of the file on this thread, from a segment the pool could not parse on its own
   * (its end was not a row's end, or it failed): a tokenizer continuing at `line` is fed the
   * held segments, and then whatever comes.
   */
  async #serially(delimiter: number, line: number, chunks: readonly Uint8Array[]): Promise<void> {
    this.#tokenizer = this.#newTokenizer(delimiter, line);
    for (const c of chunks) await this.#feed(c);
  }

  /** Issues to the owner, in file order. */
  #report(list: readonly ImportIssue[]): void {
    const add = this.#opts.issues?.add;
    if (add !== undefined) for (const i of list) add(i);
  }

  async #flush(): Promise<void> {
    const r = this.#rows!;
    if (r.issues.length > 0) {
      this.#report(r.issues);
      r.issues.length = 0;
    }
    this.#rowLimit = r.rowLimit = this.#batchRows;
    if (r.pending === 0) return;
    const rows = r.pending;
    r.pending = 0;
    await this.#sink.batch(
      rows,
      this.#builders!.map((b) => b.take()),
    );
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
