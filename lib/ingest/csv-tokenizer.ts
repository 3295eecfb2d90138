// TEMPORARY stand-in (replaced by the real tokenizer from branch `tok`): same interface.
export interface FieldSink {
  field(buf: Uint8Array, start: number, end: number, quoted: boolean): void;
  endRow(): void;
}
export interface TokenizerOptions {
  readonly delimiter: number;
}
export class CsvTokenizer {
  readonly #d: number;
  #carry: number[] = [];
  #inQuotes = false;
  #quoted = false;
  #afterQuote = false;
  #fieldStarted = false;
  #fields = 0;
  #prevCr = false;
  #bom = true;
  line = 1;
  bytes = 0;
  constructor(opts: TokenizerOptions) { this.#d = opts.delimiter; }
  push(chunk: Uint8Array, sink: FieldSink): void {
    let i = 0;
    if (this.#bom && this.bytes === 0 && chunk.length >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
    this.#bom = false;
    this.bytes += chunk.length;
    for (; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (this.#inQuotes) {
        if (c === 0x22) { this.#inQuotes = false; this.#afterQuote = true; continue; }
        if (c === 0x0a) this.line++;
        this.#carry.push(c);
        continue;
      }
      if (this.#afterQuote && c === 0x22) { this.#carry.push(0x22); this.#inQuotes = true; this.#afterQuote = false; continue; }
      this.#afterQuote = false;
      if (c === this.#d) { this.#emit(sink); continue; }
      if (c === 0x0a || c === 0x0d) {
        if (c === 0x0a) this.line++;
        if (c === 0x0a && this.#prevCr) { this.#prevCr = false; continue; }
        this.#prevCr = c === 0x0d;
        if (this.#fieldStarted || this.#fields > 0) { this.#emit(sink); sink.endRow(); this.#fields = 0; }
        continue;
      }
      this.#prevCr = false;
      if (c === 0x22 && !this.#fieldStarted) { this.#inQuotes = true; this.#quoted = true; this.#fieldStarted = true; continue; }
      this.#fieldStarted = true;
      this.#carry.push(c);
    }
  }
  #emit(sink: FieldSink): void {
    const b = Uint8Array.from(this.#carry);
    sink.field(b, 0, b.length, this.#quoted);
    this.#carry = [];
    this.#quoted = false;
    this.#fieldStarted = false;
    this.#fields++;
  }
  end(sink: FieldSink): void {
    if (this.#fieldStarted || this.#fields > 0) { this.#emit(sink); sink.endRow(); this.#fields = 0; }
  }
}
