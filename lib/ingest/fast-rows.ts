// The plain rows of a CSV file parsed in one pass, without the tokenizer:
// a row whose fields are all unquoted, non-empty and convert, with exactly a
// value per column, ending in \n or \r\n, goes straight into the builders
// (DOUBLE and TIMESTAMP parsed and text copied as their bytes are scanned;
// other types scanned to their delimiter, then added as the row rules would
// add them). The first row that is anything else (quotes, an empty or bad
// value, a short or long line, an empty line, a lone \r, the end of the
// bytes) stops it, with every builder as it was before that row: push() hands
// that row to the tokenizer and the row rules, which decide what it is,
// exactly as for a file parsed without this, and goes on in one pass after
// it. Rows taken here are what those rules would have taken: accepted, every
// value as the builder's add() makes it, counted by the rules (and the
// tokenizer's lines) as theirs. Used
// for a segment on a pool thread (ingest/segments.ts) and for the file on the
// import's own thread (ingest/csv-batcher.ts), not for a table that takes
// rows in timestamp order only (its rule needs every row's timestamp).
import { scanField, type ColumnBuilder } from './column-builders.js';
import type { CsvTokenizer } from './csv-tokenizer.js';
import type { RowRules } from './row-rules.js';

const LF = 0x0a;
const CR = 0x0d;

/** Scans the field at `i` of `b` (up to `n`), adds its value and returns the index of the byte ending it; -1 (nothing added) when it is not a plain field. */
type FieldScan = (b: Uint8Array, i: number, n: number) => number;

/** Rows the tokenizer took one by one, past which (and past an eighth of the rows taken here) it takes the rest. */
const TOKENIZER_RUN = 256;

export class FastRows {
  readonly #builders: readonly ColumnBuilder[];
  readonly #scans: readonly FieldScan[];
  readonly #delimiter: number;
  readonly #rules: RowRules;
  /** Rows taken by the last run(). */
  rows = 0;
  #taken = 0;
  #left = 0;
  /** False once rows left to the tokenizer are frequent: it takes everything from then on. */
  taking = true;

  /** `builders` are the ones `rules` fills. */
  constructor(builders: readonly ColumnBuilder[], delimiter: number, rules: RowRules) {
    this.#builders = builders;
    this.#rules = rules;
    this.#delimiter = delimiter;
    this.#scans = builders.map((b) =>
      b.scan !== undefined
        ? b.scan.bind(b, delimiter)
        : (x: Uint8Array, i: number, n: number) => scanField(b, delimiter, x, i, n),
    );
  }

  /**
   * Takes the rows of `b` from `at` (a row's start) while they are plain and the rules' batch has
   * room; returns where it stopped: the start of a row it leaves to the tokenizer, or `b.length`.
   * The rows are the rules' accepted ones; `rows` says how many.
   */
  run(b: Uint8Array, at: number): number {
    const n = b.length;
    const scans = this.#scans;
    const last = scans.length - 1;
    const d = this.#delimiter;
    const rules = this.#rules;
    const pending = rules.pending;
    let i = at;
    let rows = 0;
    // rowLimit is read at each row: a text value past the batch's bytes lowers it (BuilderMemory.full).
    rows: while (i < n && pending + rows < rules.rowLimit) {
      const start = i;
      for (let c = 0; c <= last; c++) {
        let j = scans[c]!(b, i, n);
        if (j < 0) {
          this.#undo(c);
          i = start;
          break rows;
        }
        const t = b[j]!;
        if (c < last ? t !== d : t !== LF && !(t === CR && j + 1 < n && b[++j] === LF)) {
          this.#undo(c + 1);
          i = start;
          break rows;
        }
        i = j + 1;
      }
      rows++;
    }
    this.rows = rows;
    this.#taken += rows;
    rules.accepted += rows;
    rules.pending += rows;
    return i;
  }

  /** A row went to the tokenizer. */
  #leftOne(): void {
    if (++this.#left > TOKENIZER_RUN && this.#left * 8 > this.#taken) this.taking = false;
  }

  /**
   * Pushes `bytes` through this and `tokenizer` (both filling the rules' builders): plain rows here,
   * each other row the tokenizer's way, paused after it. Returns the bytes consumed: all of them,
   * or fewer when the rules' batch is full (rowLimit reached), as CsvTokenizer.push does.
   */
  push(bytes: Uint8Array, tokenizer: CsvTokenizer): number {
    const rules = this.#rules;
    const n = bytes.length;
    let at = 0;
    while (at < n && rules.pending < rules.rowLimit) {
      if (!this.taking) return at + tokenizer.push(bytes, rules, at);
      if (tokenizer.atRowBoundary && tokenizer.pastBom && !rules.atHeader) {
        const stop = this.run(bytes, at);
        tokenizer.skipRows(this.rows, stop - at);
        at = stop;
        // A full batch after rows taken here; without them, a limit lowered by the text of a row that
        // was undone (not taken) is the tokenizer's to meet, after that row: it moves on either way.
        if (at >= n || (this.rows > 0 && rules.pending >= rules.rowLimit)) break;
      }
      // The next row (with any rejected before it) the tokenizer's way, which pauses after it.
      rules.pauseAfterRow = true;
      try {
        at += tokenizer.push(bytes, rules, at);
      } finally {
        rules.pauseAfterRow = false;
      }
      this.#leftOne();
    }
    return at;
  }

  /** Removes the values the first `columns` builders took for the row being undone. */
  #undo(columns: number): void {
    for (let c = 0; c < columns; c++) this.#builders[c]!.pop();
  }
}
