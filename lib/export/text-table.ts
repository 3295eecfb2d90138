// A query result as an aligned text table for terminals (`svcdb query`):
// a header, a rule, one line per row; numbers right-aligned, text left; NULL
// shown as `null`; numbers with the digits the server wrote. Control
// characters in values are shown escaped so a value cannot break the layout.
// printTable streams: the answer is read once to measure the columns (and
// kept in a ByteSpool), then once more to print; no row is held in memory.
import { once } from 'node:events';
import { ByteSpool, type ByteSpoolOptions } from './byte-spool.js';
import { ExecResultReader, type Cell, type ExecColumn, type Member } from './exec-result-reader.js';

const NUMERIC = new Set(['BYTE', 'SHORT', 'INT', 'LONG', 'FLOAT', 'DOUBLE']);

/** The cell as shown: `null`, or the text with control characters escaped. */
function shown(c: Cell): string {
  if (c === null) return 'null';
  /* eslint-disable no-control-regex -- control characters are what is escaped */
  return /[\u0000-\u001f\u007f]/.test(c)
    ? c.replace(/[\u0000-\u001f\u007f]/g, (x) => JSON.stringify(x).slice(1, -1))
    : c;
  /* eslint-enable no-control-regex */
}

/** Display width: one column per code point (wide characters are rare in results; good enough for alignment). */
function width(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff) n--; // the second half of a surrogate pair
  }
  return n;
}

/** The layout: measure every row first, then print the head and the lines. */
export class TextTable {
  readonly #names: string[];
  readonly #right: boolean[];
  readonly #widths: number[];

  constructor(columns: readonly ExecColumn[]) {
    this.#names = columns.map((c) => c.name);
    this.#right = columns.map((c) => NUMERIC.has(c.type));
    this.#widths = this.#names.map(width);
  }

  measure(cells: readonly Cell[]): void {
    const w = this.#widths;
    for (let i = 0; i < w.length; i++) {
      const n = width(shown(cells[i] ?? null));
      if (n > w[i]!) w[i] = n;
    }
  }

  /** The header line and the rule. */
  head(): string {
    return `${this.#names
      .map((h, i) => this.#pad(h, i))
      .join(' | ')
      .trimEnd()}\n${this.#widths.map((w) => '-'.repeat(w)).join('-+-')}\n`;
  }

  line(cells: readonly Cell[]): string {
    let s = '';
    for (let i = 0; i < this.#widths.length; i++) {
      if (i > 0) s += ' | ';
      s += this.#pad(shown(cells[i] ?? null), i);
    }
    return s.trimEnd() + '\n';
  }

  #pad(s: string, i: number): string {
    const fill = ' '.repeat(Math.max(0, this.#widths[i]! - width(s)));
    return this.#right[i] ? fill + s : s + fill;
  }
}

export function rowCountLine(rows: number): string {
  return `(${rows} ${rows === 1 ? 'row' : 'rows'})\n`;
}

export interface PrintedTable {
  /** The answer's top-level members: `ddl`, `updated`, a late `error` and `errorPos`... */
  readonly members: ReadonlyMap<string, Member>;
  /** Rows printed; null when the answer had no dataset, or ended with an error (nothing printed then). */
  readonly rows: number | null;
}

/**
 * Prints an /exec answer as a table. Nothing is printed when the answer holds
 * no dataset (a statement) or ends with an error: the caller reports `members`.
 */
export async function printTable(
  body: AsyncIterable<Uint8Array>,
  out: NodeJS.WritableStream,
  opts: ByteSpoolOptions = {},
): Promise<PrintedTable> {
  const spool = new ByteSpool(opts);
  try {
    let table: TextTable | null = null;
    const measuring = new ExecResultReader({
      columns: (cols) => {
        table = new TextTable(cols);
      },
      row: (cells) => table?.measure(cells),
    });
    for await (const chunk of body) {
      spool.write(chunk);
      measuring.write(chunk);
    }
    measuring.end();
    const members = measuring.members;
    const t = table as TextTable | null;
    if (t === null || !measuring.hasDataset || members.has('error')) return { members, rows: null };

    let pending = t.head();
    const flush = async (): Promise<void> => {
      const text = pending;
      pending = '';
      if (!out.write(text)) await once(out, 'drain');
    };
    const printing = new ExecResultReader({
      columns: () => undefined,
      row: (cells) => {
        pending += t.line(cells);
      },
    });
    for await (const chunk of spool.read()) {
      printing.write(chunk);
      if (pending.length >= 1 << 16) await flush();
    }
    printing.end();
    pending += rowCountLine(printing.rows);
    await flush();
    return { members, rows: printing.rows };
  } finally {
    spool.dispose();
  }
}
