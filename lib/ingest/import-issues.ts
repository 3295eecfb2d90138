// What an import can say about single lines when asked (`svcdb import`): each
// rejected row and each value stored as NULL, with its line, column, value
// and reason, and the line's text. Kept by the row rules (ingest/row-rules.ts,
// on the import's thread or a pool thread parsing a segment) and handed to the
// import's owner in file order. Off unless asked: /imp answers counts only.

/** One problem of one line of the file. */
export interface ImportIssue {
  /** The physical line of the file (1-based; a quoted value over several lines: its last). */
  readonly line: number;
  /** The column's name, or null for the row as a whole (more values than columns). */
  readonly column: string | null;
  /** The value as the file has it (unquoted), or null for the row as a whole. */
  readonly value: string | null;
  readonly reason: string;
  /** `rejected`: the row was not imported; `null`: the row was, this value as NULL. */
  readonly action: 'rejected' | 'null';
  /** The line's values joined again by the delimiter (quoted as they were): with IssueKeeping.raw only. */
  readonly raw?: string;
}

/** What the row rules keep (plain data: it goes to a pool thread with a segment's request). */
export interface IssueKeeping {
  /** Issues kept at most, per row rules (Infinity: all). */
  readonly keep: number;
  /** Whether each issue carries the line's text (costs a copy of every value of rows the tokenizer parses). */
  readonly raw: boolean;
}

/** An import's owner asking for its issues. */
export interface IssueReport extends IssueKeeping {
  /** Each issue, in file order (at least the first `keep` ones). */
  readonly add: (issue: ImportIssue) => void;
}

/** The longest value an issue carries, in characters (a longer one is cut, with `...`). */
const VALUE_CHARS = 1000;

/** Text of `buf[start, end)` for an issue. */
export function issueText(buf: Uint8Array, start: number, end: number): string {
  const s = Buffer.from(buf.buffer, buf.byteOffset + start, end - start).toString('utf8');
  return s.length > VALUE_CHARS ? `${s.slice(0, VALUE_CHARS)}...` : s;
}

/**
 * A row's values kept as it is parsed, to give a rejected line's text: the
 * bytes of every value in one growing buffer, where each ends and whether it
 * was quoted. Reused from row to row.
 */
export class RowText {
  #bytes = new Uint8Array(256);
  #used = 0;
  readonly #ends: number[] = [];
  readonly #quoted: boolean[] = [];
  readonly #delimiter: string;

  constructor(delimiter: number) {
    this.#delimiter = String.fromCharCode(delimiter);
  }

  add(buf: Uint8Array, start: number, end: number, quoted: boolean): void {
    const n = end - start;
    if (this.#used + n > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(this.#bytes.length * 2, this.#used + n));
      grown.set(this.#bytes.subarray(0, this.#used));
      this.#bytes = grown;
    }
    this.#bytes.set(buf.subarray(start, end), this.#used);
    this.#used += n;
    this.#ends.push(this.#used);
    this.#quoted.push(quoted);
  }

  /** The row as CSV: its values joined by the delimiter, a quoted one quoted again. */
  text(): string {
    const out: string[] = [];
    let from = 0;
    this.#ends.forEach((end, i) => {
      const v = Buffer.from(this.#bytes.buffer, from, end - from).toString('utf8');
      out.push(this.#quoted[i] ? `"${v.replace(/"/g, '""')}"` : v);
      from = end;
    });
    return out.join(this.#delimiter);
  }

  clear(): void {
    this.#used = 0;
    this.#ends.length = 0;
    this.#quoted.length = 0;
  }
}
