// A push tokenizer for JSON bytes that arrive in chunks, for clients of the
// HTTP API (svcdb query). It keeps every number as the text the server wrote:
// JSON.parse would round a LONG past 2^53 and rewrite a DOUBLE's digits, and
// Node 20 gives its reviver no access to the source text.

export interface JsonTokenSink {
  startObject(): void;
  endObject(): void;
  startArray(): void;
  endArray(): void;
  /** An object member's name. */
  key(name: string): void;
  string(value: string): void;
  /** A number exactly as written (`9007199254740993`, `1.0E-5`). */
  number(text: string): void;
  literal(value: true | false | null): void;
}

const enum State {
  Between,
  String,
  Number,
  Literal,
}

/** Malformed JSON (the server's answer was not what the API writes, or was cut short). */
export class JsonSyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JsonSyntaxError';
  }
}

export class JsonTokenizer {
  readonly #sink: JsonTokenSink;
  #state = State.Between;
  /** Pieces of the current token from earlier chunks (tokens may span chunks). */
  #parts: Buffer[] = [];
  #escaped = false;
  /** Inside a string, the previous byte was an unescaped backslash. */
  #backslash = false;
  /** One entry per open container: true for an object. */
  readonly #objects: boolean[] = [];
  /** In an object, the next string is a member name. */
  #expectKey = false;
  #offset = 0;

  constructor(sink: JsonTokenSink) {
    this.#sink = sink;
  }

  /** Containers open now; 0 once a top-level value is complete. */
  get depth(): number {
    return this.#objects.length;
  }

  write(chunk: Uint8Array): void {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const n = buf.length;
    let i = 0;
    let start = 0;
    while (i < n) {
      switch (this.#state) {
        case State.Between: {
          const c = buf[i]!;
          if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x2c) {
            if (c === 0x2c) this.#expectKey = this.#objects[this.#objects.length - 1] === true;
            i++;
          } else if (c === 0x22) {
            this.#state = State.String;
            this.#escaped = false;
            this.#backslash = false;
            start = ++i;
          } else if (c === 0x3a) {
            this.#expectKey = false;
            i++;
          } else if (c === 0x7b || c === 0x5b) {
            const object = c === 0x7b;
            this.#objects.push(object);
            this.#expectKey = object;
            if (object) this.#sink.startObject();
            else this.#sink.startArray();
            i++;
          } else if (c === 0x7d || c === 0x5d) {
            const object = this.#objects.pop();
            if (object !== (c === 0x7d)) throw this.#error(`unexpected '${String.fromCharCode(c)}'`, i);
            this.#expectKey = false;
            if (object) this.#sink.endObject();
            else this.#sink.endArray();
            i++;
          } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
            this.#state = State.Number;
            start = i++;
          } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
            this.#state = State.Literal;
            start = i++;
          } else {
            throw this.#error(`unexpected byte 0x${c.toString(16)}`, i);
          }
          break;
        }
        case State.String: {
          // Scan to the closing quote; escapes are decoded once, by JSON.parse, at the end.
          let j = i;
          let backslash = this.#backslash;
          for (; j < n; j++) {
            const c = buf[j]!;
            if (backslash) {
              backslash = false;
              continue;
            }
            if (c === 0x5c) {
              backslash = true;
              this.#escaped = true;
            } else if (c === 0x22) break;
          }
          this.#backslash = backslash;
          if (j === n) {
            i = n;
            break;
          }
          const text = this.#text(buf, start, j);
          const value = this.#escaped ? this.#unescape(text, j) : text;
          i = j + 1;
          this.#state = State.Between;
          if (this.#expectKey) {
            this.#expectKey = false;
            this.#sink.key(value);
          } else this.#sink.string(value);
          break;
        }
        case State.Number: {
          let j = i;
          while (j < n && isNumberByte(buf[j]!)) j++;
          if (j === n) {
            i = n;
            break;
          }
          const text = this.#text(buf, start, j);
          this.#state = State.Between;
          i = j;
          this.#sink.number(text);
          break;
        }
        case State.Literal: {
          let j = i;
          while (j < n && buf[j]! >= 0x61 && buf[j]! <= 0x7a) j++;
          if (j === n) {
            i = n;
            break;
          }
          const text = this.#text(buf, start, j);
          this.#state = State.Between;
          i = j;
          if (text === 'true') this.#sink.literal(true);
          else if (text === 'false') this.#sink.literal(false);
          else if (text === 'null') this.#sink.literal(null);
          else throw this.#error(`unexpected '${text}'`, j);
          break;
        }
      }
    }
    // A token still open at the end of the chunk keeps its piece (copied: the chunk may be reused).
    if (this.#state !== State.Between) this.#parts.push(Buffer.from(buf.subarray(start, n)));
    this.#offset += n;
  }

  /** The input is complete: a number at the very end is emitted; an open token or container is an error. */
  end(): void {
    if (this.#state === State.Number) {
      this.#state = State.Between;
      this.#sink.number(this.#text(Buffer.alloc(0), 0, 0));
    } else if (this.#state === State.Literal) {
      throw this.#error('the input ends inside a literal', 0);
    }
    if (this.#state !== State.Between || this.#objects.length > 0) throw this.#error('the input ends early', 0);
  }

  #text(buf: Buffer, start: number, end: number): string {
    if (this.#parts.length === 0) return buf.toString('utf8', start, end);
    this.#parts.push(buf.subarray(start, end));
    const text = Buffer.concat(this.#parts).toString('utf8');
    this.#parts = [];
    return text;
  }

  #unescape(raw: string, at: number): string {
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      throw this.#error('bad escape in a string', at);
    }
  }

  #error(what: string, at: number): JsonSyntaxError {
    return new JsonSyntaxError(`malformed JSON at byte ${this.#offset + at}: ${what}`);
  }
}

/** Digits, sign, decimal point and exponent. */
function isNumberByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}
