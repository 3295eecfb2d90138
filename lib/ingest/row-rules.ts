// /imp's row rules over a tokenizer's fields, into the column builders: a value
// that does not convert is NULL and counted against its column (atomicity
// skipCol), rejects its row (skipRow) or fails the import (abort); short lines
// are padded with NULL, long lines rejected unless skipLev; a row without its
// designated timestamp, or older than the newest one before it where the table
// takes rows in order only, is rejected. Used by CsvBatcher on the import's
// thread and by a pool thread parsing a segment of the file (ingest/segments.ts).
// When asked (options.issues), each rejected row and each value stored as NULL
// is kept as an ImportIssue (ingest/import-issues.ts).
import type { ColumnBuilder } from './column-builders.js';
import type { FieldSink } from './csv-tokenizer.js';
import { importError, type Atomicity, type CsvTarget } from './csv-batcher.js';
import { issueText, RowText, type ImportIssue, type IssueKeeping } from './import-issues.js';

export interface RowRulesOptions {
  readonly atomicity: Atomicity;
  readonly skipLev: boolean;
  /** Ends the message of an atomicity=abort failure (default: "; nothing was imported"). */
  readonly abortNote?: string;
  /** Keep the issues of lines (off when absent); `delimiter` joins a line's values again. */
  readonly issues?: IssueKeeping & { readonly delimiter: number };
}

/** An issue of the row being parsed, before the row's fate is known. */
interface RowIssue {
  readonly column: string | null;
  readonly value: string | null;
  readonly reason: string;
}

export class RowRules implements FieldSink {
  readonly #builders: readonly ColumnBuilder[];
  readonly #target: CsvTarget;
  readonly #opts: RowRulesOptions;
  /** The tokenizer's line, for messages. */
  readonly #line: () => number;
  #field = 0;
  #rowBad = false;
  #skipHeader: boolean;
  /** The newest designated timestamp accepted so far (CsvTarget.inOrderFrom). */
  #maxTs = -Infinity;
  /** Values that did not convert, per file column. */
  readonly errors: number[];
  /** Values of accepted rows stored as NULL because they did not convert (atomicity skipCol). */
  nulled = 0;
  #rowNulls = 0;
  /** The issues kept (options.issues), in line order; the owner takes them out. */
  readonly issues: ImportIssue[] = [];
  #kept = 0;
  readonly #rowIssues: RowIssue[] = [];
  readonly #rowText: RowText | null;
  accepted = 0;
  rejected = 0;
  /** Rows accepted since the builders were last taken. */
  pending = 0;
  /** endRow asks the tokenizer to pause once `pending` reaches this. */
  rowLimit = Infinity;
  /** endRow asks the tokenizer to pause after each accepted row (FastRows takes the next ones). */
  pauseAfterRow = false;

  constructor(
    builders: readonly ColumnBuilder[],
    target: CsvTarget,
    opts: RowRulesOptions,
    line: () => number,
    skipHeader: boolean,
  ) {
    this.#builders = builders;
    this.#target = target;
    this.#opts = opts;
    this.#line = line;
    this.#skipHeader = skipHeader;
    this.errors = target.types.map(() => 0);
    this.#rowText = opts.issues?.raw ? new RowText(opts.issues.delimiter) : null;
  }

  /** Notes an issue of the row being parsed (when issues are kept). */
  #issue(column: number, value: string | null, reason: string): void {
    if (this.#opts.issues === undefined) return;
    this.#rowIssues.push({ column: this.#target.names[column] ?? null, value, reason });
  }

  /** What a value of column `c` that did not convert is not. */
  #notA(c: number): string {
    const type = this.#target.types[c]!;
    const pattern = this.#target.patterns[c];
    return `not ${/^[AEIOU]/.test(type) ? 'an' : 'a'} ${type}${pattern !== undefined ? ` in the pattern ${pattern}` : ''}`;
  }

  /** The next row is the header, which is skipped. */
  get atHeader(): boolean {
    return this.#skipHeader;
  }

  field(buf: Uint8Array, start: number, end: number, quoted: boolean): void {
    const c = this.#field++;
    if (this.#skipHeader) return;
    this.#rowText?.add(buf, start, end, quoted);
    const builders = this.#builders;
    if (c >= builders.length) {
      if (!this.#opts.skipLev) this.#rowBad = true; // a line with extra values is rejected (skipLev keeps it)
      return;
    }
    const b = builders[c]!;
    const ts = this.#target.tsColumn;
    if (start === end && (!quoted || (b.type !== 'VARCHAR' && b.type !== 'STRING'))) {
      b.addNull();
      // A row without its designated timestamp is rejected, and counted against that column (QuestDB).
      if (c === ts) {
        this.#rowBad = true;
        this.errors[c]!++;
        this.#issue(c, '', 'the designated timestamp is empty');
      }
      return;
    }
    if (b.add(buf, start, end, quoted)) return;
    this.errors[c]!++;
    b.addNull();
    if (this.#opts.issues !== undefined)
      this.#issue(
        c,
        issueText(buf, start, end),
        c === ts ? `${this.#notA(c)} (the designated timestamp)` : this.#notA(c),
      );
    if (c === ts) {
      this.#rowBad = true;
      return;
    }
    this.#rowNulls++;
    if (this.#opts.atomicity === 'skipRow') this.#rowBad = true;
    else if (this.#opts.atomicity === 'abort') {
      throw importError(
        `cannot convert a value to ${b.type} [column=${this.#target.names[c]}, line=${this.#line()}, atomicity=abort]${this.#opts.abortNote ?? '; nothing was imported'}`,
      );
    }
  }

  endRow(): boolean | void {
    const builders = this.#builders;
    const fields = this.#field;
    this.#field = 0;
    if (this.#skipHeader) {
      this.#skipHeader = false;
      return;
    }
    const n = builders.length;
    const ts = this.#target.tsColumn;
    // A short line: the missing values are NULL (never borrowed from another line).
    for (let c = Math.min(fields, n); c < n; c++) {
      builders[c]!.addNull();
      if (c === ts) {
        this.#rowBad = true;
        this.errors[c]!++;
        this.#issue(c, null, `the line has ${fields} of ${n} values: the designated timestamp is missing`);
      }
    }
    const from = this.#target.inOrderFrom;
    if (from !== undefined && !this.#rowBad) {
      const t = builders[ts]!.last!();
      if (t < Math.max(from, this.#maxTs)) {
        this.#rowBad = true;
        this.errors[ts]!++;
        this.#issue(
          ts,
          null,
          'older than a row before it: a table without partitions takes rows in timestamp order (sort the file, or partition the table)',
        );
      } else this.#maxTs = t;
    }
    if (this.#opts.issues !== undefined) this.#endRowIssues(fields > n && !this.#opts.skipLev, fields, n);
    if (this.#rowBad) {
      this.#rowBad = false;
      this.#rowNulls = 0;
      for (const b of builders) b.pop();
      this.rejected++;
      if (this.#opts.atomicity === 'abort')
        throw importError(
          `line ${this.#line()} cannot be imported [atomicity=abort]${this.#opts.abortNote ?? '; nothing was imported'}`,
        );
      return;
    }
    this.accepted++;
    this.nulled += this.#rowNulls;
    this.#rowNulls = 0;
    return ++this.pending >= this.rowLimit || this.pauseAfterRow; // a full batch: the tokenizer pauses and the caller takes it
  }

  /** The row's issues, kept now that its fate is known (rejected, or its bad values NULL). */
  #endRowIssues(extra: boolean, fields: number, columns: number): void {
    const list = this.#rowIssues;
    if (extra)
      list.unshift({
        column: null,
        value: null,
        reason: `the line has ${fields} values, more than the ${columns} columns`,
      });
    if (list.length > 0) {
      const keep = this.#opts.issues!.keep;
      const action = this.#rowBad ? 'rejected' : 'null';
      const raw = this.#rowText?.text();
      for (const i of list) {
        if (this.#kept >= keep) break;
        this.#kept++;
        this.issues.push({ line: this.#line(), ...i, action, ...(raw === undefined ? {} : { raw }) });
      }
      list.length = 0;
    }
    this.#rowText?.clear();
  }
}
