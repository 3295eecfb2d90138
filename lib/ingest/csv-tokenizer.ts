// CSV import, first stage after sniffing: a byte-level tokenizer that turns chunks of a CSV file
// into field and row-end events for the row conversion (no string per field, no allocation per
// field or row). A pure state machine over chunks; the stream wrapper lives with the importer.
//
// Rules (RFC 4180 plus the lenient cases real files have):
// * A UTF-8 BOM (EF BB BF) at the very start of the input is skipped; nowhere else. Only the UTF-8
//   BOM: FF FE at the start is content (csv-parse's `bom` would switch to UTF-16LE there).
// * Rows end at \n, \r\n or a lone \r. Empty lines (no bytes between two row ends, or before the
//   first or after the last) produce no row; a line holding only a delimiter is a row of two
//   empty fields, a line holding only "" a row of one empty quoted field.
// * A field starting with `"` is quoted: it ends at the next `"` not followed by `"`; `""` inside
//   is one `"`; delimiters, \r and \n inside are content.
// * Text after a closing quote (a `"` followed by something other than the delimiter, \r, \n or
//   the end of input) is lenient, exactly as csv-parse with relax_quotes: the field becomes `"`,
//   the unescaped content so far, `"`, then every following byte up to the delimiter or row end
//   taken as is (quotes included). So `"ab"cd` is the field `"ab"cd` and `"a""b"c` is `"a"b"c`.
//   It is still reported as quoted.
// * A `"` anywhere but at the start of a field is content (`a"b` is `a"b`).
// * A quoted field still open at the end of input ends there (reported as quoted; csv-parse
//   throws CSV_QUOTE_NOT_CLOSED instead). Checking for it is the caller's business if it cares.
// * The last row needs no trailing newline; `a,,b` has an empty middle field; `a,b,` ends with an
//   empty field. Rows may have any number of fields (ragged lines are the caller's business).
// * Bytes are not validated as UTF-8; a field is whatever bytes lie between its delimiters.
// `line` counts physical lines (\n, \r\n and lone \r, also inside quoted fields): during a sink
// call it is the line of the field's last byte. `bytes` counts the bytes of every push so far
// (it moves at the end of a push).
//
// Fast path: a field that lies wholly in one chunk and has no `""` is passed as a view into the
// chunk. Only a field that spans chunks or contains `""` goes through one reused, growable scratch
// buffer, whose byte 0 is kept free so the lenient case above can put its leading `"` there.
// That buffer is the one thing the tokenizer holds that grows with the input (a quoted field never
// closed, a line without a delimiter): `maxField` bounds it and `budget` is charged for it.
import { SvcError } from '../errors/svc-error.js';
import type { MemoryBudget } from '../limits/memory-budget.js';

/** Receives fields and row ends. `buf[start, end)` is the field's content with quotes removed and "" unescaped; valid only during the call (it may be a scratch buffer). */
export interface FieldSink {
  field(buf: Uint8Array, start: number, end: number, quoted: boolean): void;
  /** The current row is complete (it had at least one field). Returning true pauses push() right after the row. */
  endRow(): boolean | void;
}

export interface TokenizerOptions {
  /** Field delimiter byte, e.g. 0x2c (,), 0x09 (TAB), 0x7c (|), 0x3b (;). */
  readonly delimiter: number;
  /** The longest field held across chunks (default: unbounded); a longer one throws `fieldTooLong(line)`. */
  readonly maxField?: number;
  /** The error for a field longer than maxField, given the line it is on. */
  readonly fieldTooLong?: (line: number) => Error;
  /** Charged for the scratch buffer's growth. */
  readonly budget?: MemoryBudget;
  /**
   * The input is not the file's start but continues it at a row boundary, on this line (a segment
   * parsed on its own, ingest/segments.ts): no BOM is looked for.
   */
  readonly continuesAtLine?: number;
}

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BOM = Uint8Array.of(0xef, 0xbb, 0xbf);

// Where the tokenizer stands between two bytes. Plain numbers: with verbatimModuleSyntax a const
// enum compiles to an object whose properties the hot loop would read.
/** At the start of a field (row start when !rowOpen). */
const FIELD_START = 0;
/** Inside an unquoted field, or in the raw tail of a quoted field after a lenient closing quote. */
const UNQUOTED = 1;
/** Inside a quoted field. */
const QUOTED = 2;
/** A quoted field's `"` was the last byte of a chunk: the next byte says escape, close or lenient. */
const QUOTE_SEEN = 3;

export class CsvTokenizer {
  private readonly delim: number;
  private st = FIELD_START;
  /** A delimiter of the current row has been consumed (so a row end at FieldStart ends a row). */
  private rowOpen = false;
  /** The current field started with a quote. */
  private fieldQuoted = false;
  /** The current field's content so far is in scratch[sFrom, sEnd) rather than in the chunk. */
  private inScratch = false;
  private scratch = new Uint8Array(1024);
  /** 1, or 0 once a lenient closing quote has put the field's leading `"` in scratch[0]. */
  private sFrom = 1;
  private sEnd = 1;
  /** Bytes of a BOM matched at the start so far; -1 once the start is behind us. */
  private bomMatched = 0;
  /** The last byte of the previous chunk (for \r\n split across chunks in line counting). */
  private prevByte = 0;
  private lineNo = 1;
  private byteCount = 0;
  /** sEnd may not pass this (maxField + the free byte 0). */
  private readonly scratchLimit: number;
  private readonly fieldTooLong: (line: number) => Error;
  private readonly budget: MemoryBudget | null;

  constructor(opts: TokenizerOptions) {
    const d = opts.delimiter;
    if (!Number.isInteger(d) || d < 1 || d > 0x7f || d === QUOTE || d === CR || d === LF) {
      throw new SvcError(
        'BAD_REQUEST',
        `invalid CSV delimiter [byte=${String(d)}]: an ASCII character other than NUL, ", \\r and \\n`,
      );
    }
    this.delim = d;
    this.scratchLimit = (opts.maxField ?? Infinity) + 1;
    this.fieldTooLong =
      opts.fieldTooLong ??
      ((line) => new SvcError('BAD_REQUEST', `a value is longer than ${opts.maxField} bytes [line=${line}]`));
    this.budget = opts.budget ?? null;
    this.budget?.charge(this.scratch.length, "the CSV parser's buffer");
    if (opts.continuesAtLine !== undefined) {
      this.bomMatched = -1;
      this.lineNo = opts.continuesAtLine;
    }
  }

  /** Whether the start of the input was looked at for a BOM (or the input continues a file). */
  get pastBom(): boolean {
    return this.bomMatched < 0;
  }

  /** Whether the input so far ended exactly at a row's end (no field or quote left open). */
  get atRowBoundary(): boolean {
    return this.st === FIELD_START && !this.rowOpen && this.bomMatched <= 0;
  }

  /**
   * The caller took `rows` whole rows of `bytes` bytes itself, each ending in \n or \r\n
   * (ingest/fast-rows.ts): they count as pushed. Only at a row boundary.
   */
  skipRows(rows: number, bytes: number): void {
    if (!this.atRowBoundary) throw new Error('rows can be skipped at a row boundary only');
    if (bytes === 0) return;
    this.lineNo += rows;
    this.byteCount += bytes;
    this.prevByte = LF;
  }

  /** 1-based number of the line the tokenizer is in (counting physical lines, for error messages). */
  get line(): number {
    return this.lineNo;
  }

  /** Bytes consumed so far. */
  get bytes(): number {
    return this.byteCount;
  }

  /**
   * Tokenizes a chunk (from byte `from`: the bytes before it were consumed
   * otherwise, ingest/fast-rows.ts): calls sink.field for every complete field
   * and sink.endRow at every row end; keeps an unfinished field/row for the
   * next push. Returns the bytes consumed from `from`: all of them, or fewer
   * when endRow asked to pause (the caller pushes the rest later).
   */
  push(chunk: Uint8Array, sink: FieldSink, from = 0): number {
    const n = chunk.length;
    if (n <= from) return 0;
    let i = from;
    if (this.bomMatched >= 0) {
      i = this.skipBom(chunk, from);
      if (i === n && this.bomMatched >= 0) {
        this.byteCount += n - from;
        return n - from;
      }
    }
    const end = this.run(chunk, i, sink);
    this.prevByte = chunk[end - 1]!;
    this.byteCount += end - from;
    return end - from;
  }

  /** End of input: completes a last row without a trailing newline. */
  end(sink: FieldSink): void {
    if (this.bomMatched > 0) this.replayBom(this.bomMatched); // a partial BOM and then the end
    this.bomMatched = -1;
    switch (this.st) {
      case FIELD_START:
        if (this.rowOpen) {
          sink.field(this.scratch, 1, 1, false);
          sink.endRow();
        }
        break;
      case UNQUOTED:
      case QUOTED:
      case QUOTE_SEEN:
        // Unquoted: the field's content went to scratch at the end of the last chunk. Quoted: an
        // unterminated field ends here. QuoteSeen: the `"` closes the field at the end of input.
        sink.field(this.scratch, this.sFrom, this.sEnd, this.fieldQuoted);
        sink.endRow();
        break;
    }
    this.st = FIELD_START;
    this.rowOpen = false;
    this.resetScratch();
  }

  /**
   * Matches BOM bytes at the start of the input (they may arrive one per chunk). Returns the index
   * of the first byte after them. On a mismatch after a partial match, the matched bytes become the
   * start of an unquoted field, as they are content.
   */
  private skipBom(chunk: Uint8Array, from: number): number {
    let i = from;
    let m = this.bomMatched;
    while (i < chunk.length && m < 3 && chunk[i] === BOM[m]) {
      i++;
      m++;
    }
    if (m === 3) {
      this.bomMatched = -1;
    } else if (i === chunk.length) {
      this.bomMatched = m;
    } else {
      this.bomMatched = -1;
      if (m > 0) this.replayBom(m);
    }
    return i;
  }

  /** The first m bytes of a BOM that did not complete are the start of an unquoted field. */
  private replayBom(m: number): void {
    this.append(BOM, 0, m);
    this.inScratch = true;
    this.fieldQuoted = false;
    this.st = UNQUOTED;
  }

  /** Appends src[from, to) to the scratch buffer, growing it by doubling. */
  private append(src: Uint8Array, from: number, to: number): void {
    const len = to - from;
    if (len <= 0) return;
    const need = this.sEnd + len;
    if (need > this.scratch.length) this.grow(need);
    const dst = this.scratch;
    if (len <= 64) {
      // Short runs (between "" escapes, the tail of a field) by hand: subarray() would allocate a view.
      for (let k = 0, o = this.sEnd; k < len; k++) dst[o + k] = src[from + k]!;
    } else {
      dst.set(src.subarray(from, to), this.sEnd);
    }
    this.sEnd = need;
  }

  private appendByte(b: number): void {
    if (this.sEnd === this.scratch.length) this.grow(this.sEnd + 1);
    this.scratch[this.sEnd++] = b;
  }

  /** Doubles the scratch buffer until `need` bytes fit: within maxField, charged to the budget. */
  private grow(need: number): void {
    if (need > this.scratchLimit) throw this.fieldTooLong(this.lineNo);
    let size = this.scratch.length * 2;
    while (size < need) size *= 2;
    // Not past the limit by more than the doubling needs (a limit of 4 MiB holds a 4 MiB field, not 8 MiB of room).
    size = Math.min(size, Math.max(need, this.scratchLimit));
    this.budget?.charge(size - this.scratch.length, "the CSV parser's buffer");
    const grown = new Uint8Array(size);
    grown.set(this.scratch.subarray(0, this.sEnd));
    this.scratch = grown;
  }

  private resetScratch(): void {
    this.inScratch = false;
    this.sFrom = 1;
    this.sEnd = 1;
  }

  /**
   * The state machine over chunk[i, n). `seg` is where the current field's content not yet copied
   * to scratch starts in this chunk; fields wholly in the chunk are passed as views of it.
   */
  private run(chunk: Uint8Array, start: number, sink: FieldSink): number {
    const n = chunk.length;
    const d = this.delim;
    const hi = d > CR ? d : CR;
    let i = start;
    let seg = start;
    let st = this.st;
    let b = 0;
    // t: index of the byte that ended a field (delimiter, \r or \n); -1 while none.
    let t = -1;
    for (;;) {
      switch (st) {
        case FIELD_START: {
          if (i >= n) {
            this.st = st;
            return n;
          }
          b = chunk[i]!;
          if (b === QUOTE) {
            this.fieldQuoted = true;
            st = QUOTED;
            seg = ++i;
            continue;
          }
          if (b === d) {
            sink.field(chunk, i, i, false);
            this.rowOpen = true;
            i++;
            continue;
          }
          if (b === LF || b === CR) {
            if (this.rowOpen) {
              sink.field(chunk, i, i, false);
              const pause = sink.endRow();
              this.rowOpen = false;
              this.lineNo++;
              if (pause === true) return this.pauseAt(i + 1);
            } else if (b === CR || (i > 0 ? chunk[i - 1] : this.prevByte) !== CR) {
              this.lineNo++; // an empty line; the \n of a \r\n was counted at its \r
            }
            i++;
            continue;
          }
          // The hot path: an unquoted field that ends in this chunk, scanned and passed as a view
          // right here (~25% faster than going through the UNQUOTED state; endField is inlined by
          // hand, as the call cost ~30%). Only the delimiter and the row ends stop such a field.
          let j = i + 1;
          // One compare for most bytes: none above `hi` ends a field.
          while (j < n && ((b = chunk[j]!) > hi || (b !== d && b !== LF && b !== CR))) j++;
          if (j < n) {
            sink.field(chunk, i, j, false);
            if (b === d) {
              this.rowOpen = true;
            } else {
              const pause = sink.endRow();
              this.rowOpen = false;
              this.lineNo++;
              if (pause === true) return this.pauseAt(j + 1);
            }
            i = j + 1;
            continue;
          }
          this.fieldQuoted = false;
          st = UNQUOTED;
          seg = i;
          i = j;
          continue;
        }
        case UNQUOTED: {
          // A field continued from the previous chunk, or the tail after a lenient closing quote.
          while (i < n) {
            b = chunk[i]!;
            if (b === d || b === LF || b === CR) break;
            i++;
          }
          if (i >= n) {
            this.append(chunk, seg, n);
            this.inScratch = true;
            this.st = st;
            return n;
          }
          t = i;
          break;
        }
        case QUOTED: {
          let line = this.lineNo;
          while (i < n) {
            b = chunk[i]!;
            if (b === QUOTE) break;
            if (b <= CR) {
              // Line counting only; one compare for the usual byte (~12% on quoted-heavy files).
              if (b === LF) {
                if ((i > 0 ? chunk[i - 1] : this.prevByte) !== CR) line++;
              } else if (b === CR) {
                line++;
              }
            }
            i++;
          }
          this.lineNo = line;
          if (i + 1 >= n) {
            // The chunk ends inside the field, or with a `"` whose meaning the next byte decides.
            this.append(chunk, seg, i);
            this.inScratch = true;
            this.st = i < n ? QUOTE_SEEN : st;
            return n;
          }
          b = chunk[i + 1]!;
          if (b === QUOTE) {
            // "" is one ": keep the first, skip the second.
            this.append(chunk, seg, i + 1);
            this.inScratch = true;
            i += 2;
            seg = i;
            continue;
          }
          if (b === d || b === LF || b === CR) {
            if (this.inScratch) {
              this.append(chunk, seg, i);
              sink.field(this.scratch, this.sFrom, this.sEnd, true);
              this.resetScratch();
            } else {
              sink.field(chunk, seg, i, true);
            }
            if (b === d) {
              this.rowOpen = true;
            } else {
              const pause = sink.endRow();
              this.rowOpen = false;
              this.lineNo++;
              if (pause === true) return this.pauseAt(i + 2);
            }
            st = FIELD_START;
            i += 2;
            continue;
          }
          // Lenient: text after the closing quote. The field is `"` content `"` rest.
          if (this.inScratch) {
            this.append(chunk, seg, i);
            this.scratch[0] = QUOTE;
            this.sFrom = 0;
            seg = i; // the closing quote is content of the tail
          } else {
            seg--; // the view starts at the opening quote; nothing was unescaped
          }
          i++;
          st = UNQUOTED;
          continue;
        }
        case QUOTE_SEEN: {
          // Only at the start of a chunk: the previous chunk ended with a `"` of a quoted field.
          b = chunk[i]!;
          if (b === QUOTE) {
            this.appendByte(QUOTE);
            st = QUOTED;
            seg = ++i;
            continue;
          }
          if (b === d || b === LF || b === CR) {
            sink.field(this.scratch, this.sFrom, this.sEnd, true);
            this.resetScratch();
            if (this.endField(b, sink)) return this.pauseAt(i + 1);
            st = FIELD_START;
            seg = ++i;
            continue;
          }
          this.scratch[0] = QUOTE;
          this.sFrom = 0;
          this.appendByte(QUOTE);
          st = UNQUOTED;
          seg = i;
          continue;
        }
      }
      // An unquoted field (or a lenient quoted one) ends at chunk[t].
      if (this.inScratch) {
        this.append(chunk, seg, t);
        sink.field(this.scratch, this.sFrom, this.sEnd, this.fieldQuoted);
        this.resetScratch();
      } else {
        sink.field(chunk, seg, t, this.fieldQuoted);
      }
      if (this.endField(b, sink)) return this.pauseAt(t + 1);
      st = FIELD_START;
      i = t + 1;
    }
  }

  /** endRow asked to pause: the row is complete, the next byte is at `next`. */
  private pauseAt(next: number): number {
    this.st = FIELD_START;
    return next;
  }

  /** After a field: a delimiter keeps the row open; \r or \n ends it (never right after a \r). Returns whether endRow asked to pause. */
  private endField(terminator: number, sink: FieldSink): boolean {
    if (terminator === this.delim) {
      this.rowOpen = true;
      return false;
    }
    const pause = sink.endRow();
    this.rowOpen = false;
    this.lineNo++;
    return pause === true;
  }
}
