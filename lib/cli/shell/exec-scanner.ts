// Cuts an /exec JSON document (SPEC.md "Query response") as it streams in into
// its head (query, columns...), each dataset row's raw bytes, and its tail
// (count, timings, or a late error), without tokenizing the rows: a byte loop
// that only follows strings and brackets. The shell parses just the rows it
// shows (row-cells.ts), so a million-row answer is counted, not decoded.

export interface ExecColumnInfo {
  readonly name: string;
  readonly type: string;
}

/** The document's members other than the rows. */
export interface ExecSummary {
  /** Null for a statement's answer ({"ddl":"OK"}...), which has no dataset. */
  readonly columns: readonly ExecColumnInfo[] | null;
  /** The top-level members of the head and tail, as JSON.parse reads them (no LONG among them). */
  readonly members: Readonly<Record<string, unknown>>;
}

/** The answer is not an /exec document (another service at that port, or a cut answer). */
export class ExecFormatError extends Error {}

const enum Phase {
  Head,
  Rows,
  Tail,
}

const DATASET = 'dataset';

export class ExecScanner {
  readonly #onRow: (row: Uint8Array) => void;
  #phase = Phase.Head;
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** Head bytes, then tail bytes (both small). */
  #parts: Uint8Array[] = [];
  /** The current row's bytes from earlier chunks. */
  #rowParts: Uint8Array[] = [];
  /** Head: the bytes of the depth-1 string being read; whether the last token at depth 1 was the key "dataset". */
  #keyBytes: number[] | null = null;
  #afterDatasetKey = false;
  #head: ExecSummary | null = null;
  #rows = 0;

  /** `onRow` gets each dataset row as bytes (`[...]`), valid after the call (chunks are not reused). */
  constructor(onRow: (row: Uint8Array) => void) {
    this.#onRow = onRow;
  }

  /** Rows seen so far. */
  get rows(): number {
    return this.#rows;
  }

  /** The columns, once the head has been read (null before, or for a document without a dataset). */
  get columns(): readonly ExecColumnInfo[] | null {
    return this.#head?.columns ?? null;
  }

  /** Called once the dataset opens: the head is known. */
  onHead: ((head: ExecSummary) => void) | null = null;

  write(chunk: Uint8Array): void {
    const n = chunk.length;
    let depth = this.#depth;
    let inString = this.#inString;
    let escaped = this.#escaped;
    let rowStart = this.#phase === Phase.Rows && depth >= 3 ? 0 : -1;
    let i = 0;
    for (; i < n; i++) {
      const b = chunk[i]!;
      if (inString) {
        if (escaped) escaped = false;
        else if (b === 0x5c) escaped = true;
        else if (b === 0x22) {
          inString = false;
          if (this.#keyBytes !== null) this.#endKey();
        } else if (this.#keyBytes !== null && this.#keyBytes.length < 16) this.#keyBytes.push(b);
        if (this.#keyBytes !== null && escaped) this.#keyBytes.push(0); // an escape: not "dataset"
        continue;
      }
      if (b === 0x22) {
        inString = true;
        if (this.#phase === Phase.Head && depth === 1) this.#keyBytes = [];
        this.#afterDatasetKey = false;
      } else if (b === 0x5b || b === 0x7b) {
        depth++;
        if (this.#phase === Phase.Head) {
          if (depth === 2 && b === 0x5b && this.#afterDatasetKey) {
            this.#parts.push(chunk.subarray(0, i + 1));
            this.#startRows();
            this.#depth = depth;
            this.#inString = false;
            this.#escaped = false;
            // The rest of the chunk, as a new one (its offsets start at 0 there).
            this.write(chunk.subarray(i + 1));
            return;
          }
          this.#afterDatasetKey = false;
        } else if (this.#phase === Phase.Rows && depth === 3) rowStart = i;
      } else if (b === 0x5d || b === 0x7d) {
        depth--;
        if (this.#phase === Phase.Rows) {
          if (depth === 2) {
            this.#emitRow(chunk, rowStart, i + 1);
            rowStart = -1;
          } else if (depth === 1) {
            // The dataset's end: the tail follows.
            this.#phase = Phase.Tail;
            this.#parts = [];
            this.#depth = depth;
            this.#inString = false;
            this.#escaped = false;
            this.#parts.push(chunk.subarray(i + 1));
            return;
          }
        }
      } else if (b !== 0x3a && b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09) this.#afterDatasetKey = false;
    }
    this.#depth = depth;
    this.#inString = inString;
    this.#escaped = escaped;
    if (this.#phase === Phase.Rows) {
      if (rowStart >= 0) this.#rowParts.push(chunk.subarray(rowStart));
    } else this.#parts.push(chunk);
  }

  /** The document's summary at its end; an ExecFormatError when it is not a whole /exec document. */
  end(): ExecSummary {
    if (this.#phase === Phase.Rows) throw new ExecFormatError('the answer ended in the middle of its rows');
    const text = Buffer.concat(this.#parts).toString('utf8');
    if (this.#phase === Phase.Head) {
      const members = parseObject(text);
      return { columns: null, members };
    }
    const tail = parseObject(`{"dataset":[]${text}`);
    const head = this.#head!;
    return { columns: head.columns, members: { ...head.members, ...tail, dataset: undefined } };
  }

  #endKey(): void {
    const bytes = this.#keyBytes!;
    this.#keyBytes = null;
    this.#afterDatasetKey = bytes.length === DATASET.length && String.fromCharCode(...bytes) === DATASET;
  }

  #startRows(): void {
    const text = Buffer.concat(this.#parts).toString('utf8');
    const doc = parseObject(`${text}]}`);
    const cols = doc.columns;
    const columns = Array.isArray(cols)
      ? cols.map((c: { name?: unknown; type?: unknown }) => ({
          name: String(c.name ?? ''),
          type: String(c.type ?? ''),
        }))
      : [];
    this.#head = { columns, members: { ...doc, columns: undefined, dataset: undefined } };
    this.#phase = Phase.Rows;
    this.#parts = [];
    this.onHead?.(this.#head);
  }

  #emitRow(chunk: Uint8Array, start: number, end: number): void {
    this.#rows++;
    const piece = chunk.subarray(Math.max(0, start), end);
    if (this.#rowParts.length === 0) this.#onRow(piece);
    else {
      this.#rowParts.push(piece);
      const whole = Buffer.concat(this.#rowParts);
      this.#rowParts = [];
      this.#onRow(whole);
    }
  }
}

function parseObject(text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    throw new ExecFormatError(`the answer is not svcdb's /exec JSON: ${preview(text)}`);
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v))
    throw new ExecFormatError(`the answer is not svcdb's /exec JSON: ${preview(text)}`);
  return v as Record<string, unknown>;
}

function preview(text: string): string {
  const t = text.trim().replace(/\s+/g, ' ');
  return t === '' ? '(empty)' : t.length > 80 ? `${t.slice(0, 80)}...` : t;
}
