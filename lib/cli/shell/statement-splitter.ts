// The shell's input, line by line, cut into statements: a statement ends at a
// `;` outside 'strings', "quoted names", -- line comments and /* block
// comments */ (the lexer's rules, lib/sql/lexer.ts), so it may span lines and
// a line may hold several. What is left without its `;` waits for more input.

type State = 'code' | 'single' | 'double' | 'line' | 'block';

/** A statement without its `;`, and the input line (1-based) its text starts on. */
export interface Statement {
  readonly text: string;
  readonly line: number;
}

export class StatementSplitter {
  #buf = '';
  #state: State = 'code';
  /** Whether #buf holds anything but whitespace and comments. */
  #hasCode = false;
  /** Newlines taken in so far. */
  #lines = 0;
  /** The line (0-based) of #buf's first character that is not blank; -1: none yet. */
  #first = -1;
  /** A last `-`, `/` or `*` whose meaning depends on the next push's first character. */
  #carry = '';

  /** Adds input (a line with its newline, or a whole script); returns the statements it completed, without their `;`. */
  push(input: string): Statement[] {
    const out: Statement[] = [];
    const text = this.#carry + input;
    this.#carry = '';
    let start = 0;
    let n = text.length;
    let state = this.#state;
    let hasCode = this.#hasCode;
    let lines = this.#lines;
    let first = this.#first;
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (i === n - 1 && ((state === 'code' && (c === 45 || c === 47)) || (state === 'block' && c === 42))) {
        this.#carry = text.slice(i);
        n = i;
        break;
      }
      if (first < 0 && c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 59) first = lines;
      switch (state) {
        case 'single':
          if (c === 39) state = 'code'; // a doubled '' reopens at once: same result
          break;
        case 'double':
          if (c === 34) state = 'code';
          break;
        case 'line':
          if (c === 10) state = 'code';
          break;
        case 'block':
          if (c === 42 && text.charCodeAt(i + 1) === 47) {
            state = 'code';
            i++;
          }
          break;
        case 'code':
          if (c === 39) {
            state = 'single';
            hasCode = true;
          } else if (c === 34) {
            state = 'double';
            hasCode = true;
          } else if (c === 45 && text.charCodeAt(i + 1) === 45) {
            state = 'line';
            i++;
          } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
            state = 'block';
            i++;
          } else if (c === 59) {
            const stmt = (this.#buf + text.slice(start, i)).trim();
            this.#buf = '';
            start = i + 1;
            if (hasCode) out.push({ text: stmt, line: first + 1 });
            hasCode = false;
            first = -1;
          } else if (c !== 32 && c !== 9 && c !== 10 && c !== 13) hasCode = true;
          break;
      }
      if (c === 10) lines++;
    }
    this.#buf += text.slice(start, n);
    this.#state = state;
    this.#hasCode = hasCode;
    this.#lines = lines;
    this.#first = first;
    return out;
  }

  /** Whether a statement has begun and waits for its `;` (comments and blanks alone do not count). */
  get pending(): boolean {
    return (
      this.#hasCode ||
      this.#carry !== '' ||
      this.#state === 'single' ||
      this.#state === 'double' ||
      this.#state === 'block'
    );
  }

  /** The text waiting for its `;`. */
  get text(): string {
    return this.#buf + this.#carry;
  }

  /** At the end of the input: the last statement when it lacks its `;` (null when there is none), and a fresh start. */
  finish(): Statement | null {
    if (this.#carry !== '') this.push('\n');
    const rest = this.#hasCode ? { text: this.#buf.trim(), line: this.#first + 1 } : null;
    this.reset();
    return rest;
  }

  /** Drops what is pending (Ctrl-C at the prompt). */
  reset(): void {
    this.#buf = '';
    this.#state = 'code';
    this.#hasCode = false;
    this.#first = -1;
    this.#carry = '';
  }
}
