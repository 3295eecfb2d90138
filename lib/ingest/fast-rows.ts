// The plain rows of a CSV segment parsed in one pass, without the tokenizer:
// a row whose fields are all unquoted, non-empty and convert, with exactly a
// value per column, ending in \n or \r\n, goes straight into the builders
// (a DOUBLE parsed as its bytes are scanned; other types scanned to their
// delimiter, then added as the row rules would add them). The first row that
// is anything else (quotes, an empty or bad value, a short or long line, an
// empty line, a lone \r, the end of the bytes) stops it, with every builder
// as it was before that row: the caller hands that row to the tokenizer and
// the row rules (ingest/segments.ts), which decide what it is, exactly as
// for a file parsed without this. Rows taken here are what those rules
// would have taken: accepted, every value as the builder's add() makes it.
import { scanField, type ColumnBuilder } from './column-builders.js';

const LF = 0x0a;
const CR = 0x0d;

/** Scans the field at `i` of `b` (up to `n`), adds its value and returns the index of the byte ending it; -1 (nothing added) when it is not a plain field. */
type FieldScan = (b: Uint8Array, i: number, n: number) => number;

export class FastRows {
  readonly #builders: readonly ColumnBuilder[];
  readonly #scans: readonly FieldScan[];
  readonly #delimiter: number;
  /** Rows taken by the last run(). */
  rows = 0;

  constructor(builders: readonly ColumnBuilder[], delimiter: number) {
    this.#builders = builders;
    this.#delimiter = delimiter;
    this.#scans = builders.map((b) =>
      b.scan !== undefined
        ? b.scan.bind(b, delimiter)
        : (x: Uint8Array, i: number, n: number) => scanField(b, delimiter, x, i, n),
    );
  }

  /**
   * Takes the rows of `b` from `at` (a row's start) while they are plain; returns where it stopped:
   * the start of a row it leaves to the tokenizer, or `b.length`. `rows` says how many it took.
   */
  run(b: Uint8Array, at: number): number {
    const n = b.length;
    const scans = this.#scans;
    const last = scans.length - 1;
    const d = this.#delimiter;
    let i = at;
    let rows = 0;
    rows: while (i < n) {
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
    return i;
  }

  /** Removes the values the first `columns` builders took for the row being undone. */
  #undo(columns: number): void {
    for (let c = 0; c < columns; c++) this.#builders[c]!.pop();
  }
}
