// The shell's aligned table: a header, a rule and one line per row; numbers
// right-aligned; NULL as its own word (dim on a terminal), never as the text
// 'null'; control characters escaped. Too wide for the terminal: the columns
// that fit are shown and a note names the hidden ones; a long value is cut
// with `…`. Widths come from the rows measured (the ones shown).
import type { Cell } from './row-cells.js';
import type { ExecColumnInfo } from './exec-scanner.js';

const NUMERIC = /^(BYTE|SHORT|INT|LONG|FLOAT|DOUBLE|DECIMAL)/;
const ELLIPSIS = '…';
const DIM = '\u001b[2m';
const RESET = '\u001b[0m';

export interface TableStyle {
  /** The terminal's columns; null: no limit (output that is not a terminal, unless COLUMNS says). */
  readonly width: number | null;
  /** How NULL shows (default NULL). */
  readonly nullText: string;
  /** Whether NULL is drawn dim (a terminal). */
  readonly color: boolean;
}

/** Display width: one column per code point. */
function textWidth(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) n--;
  }
  return n;
}

/** The text with control characters escaped, so that a value cannot break the layout. */
export function escaped(s: string): string {
  /* eslint-disable no-control-regex -- control characters are what is escaped */
  return /[\u0000-\u001f\u007f]/.test(s)
    ? s.replace(/[\u0000-\u001f\u007f]/g, (x) => JSON.stringify(x).slice(1, -1))
    : s;
  /* eslint-enable no-control-regex */
}

/** The first `w` display columns of `s`, the last one `…` when cut. */
function cut(s: string, w: number): string {
  if (textWidth(s) <= w) return s;
  const cps = Array.from(s);
  return cps.slice(0, Math.max(0, w - 1)).join('') + ELLIPSIS;
}

export class TableLayout {
  readonly #columns: readonly ExecColumnInfo[];
  readonly #style: TableStyle;
  readonly #right: boolean[];
  readonly #widths: number[];
  /** Indexes of the columns shown (set by plan()). */
  #shown: number[] = [];
  #capped: number[] = [];

  constructor(columns: readonly ExecColumnInfo[], style: TableStyle) {
    this.#columns = columns;
    this.#style = style;
    this.#right = columns.map((c) => NUMERIC.test(c.type));
    this.#widths = columns.map((c) => textWidth(escaped(c.name)));
  }

  #text(c: Cell): string {
    return c === null ? this.#style.nullText : escaped(c);
  }

  measure(cells: readonly Cell[]): void {
    const w = this.#widths;
    for (let i = 0; i < w.length; i++) {
      const n = textWidth(this.#text(cells[i] ?? null));
      if (n > w[i]!) w[i] = n;
    }
  }

  /** Picks the columns that fit the width (all without a limit); call after measuring, before printing. */
  plan(): void {
    const limit = this.#style.width;
    const all = this.#widths.map((_, i) => i);
    if (limit === null) {
      this.#shown = all;
      this.#capped = [...this.#widths];
      return;
    }
    // One value may take the whole width but the separators' room; wider ones are cut.
    const cap = Math.max(4, limit);
    this.#capped = this.#widths.map((w) => Math.min(w, cap));
    let used = 0;
    const shown: number[] = [];
    for (const i of all) {
      const w = this.#capped[i]!;
      const need = (shown.length > 0 ? 3 : 0) + w;
      // Room is kept for the ` | …` column that says more columns follow.
      const moreAfter = i < all.length - 1 ? 4 : 0;
      if (shown.length > 0 && used + need + moreAfter > limit) break;
      shown.push(i);
      used += need;
    }
    if (shown.length === 1 && shown.length < all.length && this.#capped[0]! + 4 > limit)
      this.#capped[0] = Math.max(1, limit - 4);
    this.#shown = shown;
  }

  /** Names of the columns plan() left out. */
  get hidden(): string[] {
    return this.#columns.filter((_, i) => !this.#shown.includes(i)).map((c) => c.name);
  }

  #more(): boolean {
    return this.#shown.length < this.#columns.length;
  }

  #pad(s: string, i: number, plain?: number): string {
    const w = this.#capped[i]!;
    const fill = ' '.repeat(Math.max(0, w - (plain ?? textWidth(s))));
    return this.#right[i] ? fill + s : s + fill;
  }

  head(): string {
    const names = this.#shown.map((i) => this.#pad(cut(escaped(this.#columns[i]!.name), this.#capped[i]!), i));
    if (this.#more()) names.push(ELLIPSIS);
    const rule = this.#shown.map((i) => '-'.repeat(this.#capped[i]!));
    if (this.#more()) rule.push('-');
    return `${names.join(' | ').trimEnd()}\n${rule.join('-+-')}\n`;
  }

  line(cells: readonly Cell[]): string {
    let s = '';
    for (let k = 0; k < this.#shown.length; k++) {
      const i = this.#shown[k]!;
      if (k > 0) s += ' | ';
      const c = cells[i] ?? null;
      const text = cut(this.#text(c), this.#capped[i]!);
      if (c === null && this.#style.color) {
        const padded = this.#pad(text, i);
        const at = padded.indexOf(text);
        s += padded.slice(0, at) + DIM + text + RESET + padded.slice(at + text.length);
      } else s += this.#pad(text, i);
    }
    if (this.#more()) s += ` | ${ELLIPSIS}`;
    return s.trimEnd() + '\n';
  }

  /** The line that stands for the rows left out in the middle. */
  gap(): string {
    const marks = this.#shown.map((i) => this.#pad(ELLIPSIS, i, 1));
    if (this.#more()) marks.push(ELLIPSIS);
    return marks.join(' | ').trimEnd() + '\n';
  }

  /** The lines under the table: the row count (and how many were shown), the hidden columns. */
  footer(rows: number, shownRows: number): string {
    let s = shownRows < rows ? `${rows} rows (${shownRows} shown)\n` : `(${rows} ${rows === 1 ? 'row' : 'rows'})\n`;
    const hidden = this.hidden;
    if (hidden.length > 0) {
      s += `${this.#columns.length} columns (${this.#shown.length} shown); hidden: ${hidden.join(', ')}\n`;
    }
    return s;
  }
}
