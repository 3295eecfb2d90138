// The byte buffer every serializer writes into: values are written in place
// (digits, escaped UTF-8) without a string per value where it can be helped,
// and the filled buffer is handed over as one chunk of about CHUNK bytes.
// A handed-over chunk belongs to the stream from then on; writing continues
// in a new buffer.

/** Bytes per chunk handed to the response stream. */
export const CHUNK = 64 * 1024;

const HEX = new TextEncoder().encode('0123456789abcdef');
/** The first buffer's size; it doubles as it fills. */
const FIRST = 2048;
const EMPTY = Buffer.alloc(0);

export class ChunkWriter {
  buf: Buffer;
  pos = 0;
  /** Bytes handed over so far. */
  written = 0;

  constructor() {
    // Small first: most responses (a point query, select 1, DDL) are a few hundred bytes. Not from
    // Buffer's shared pool: a taken chunk may be transferred to or from the helper thread whole.
    this.buf = Buffer.allocUnsafeSlow(FIRST);
  }

  get full(): boolean {
    return this.pos >= CHUNK;
  }

  /** The bytes written since the last take (may be empty). */
  take(): Buffer {
    const out = this.buf.subarray(0, this.pos);
    this.written += this.pos;
    this.buf = EMPTY; // the next chunk's buffer comes with the next write (none after the last take)
    this.pos = 0;
    return out;
  }

  /** Room for `n` more bytes (a buffer of its own size when one value is larger than a chunk). */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    // After a take the stream is a long one: a whole chunk's buffer at once.
    const least = this.buf === EMPTY ? CHUNK + 1024 : 0;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n + 1024, least));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
  }

  byte(b: number): void {
    if (this.pos >= this.buf.length) this.ensure(1);
    this.buf[this.pos++] = b;
  }

  /** A string of ASCII characters (digits, keywords, punctuation). */
  ascii(s: string): void {
    const n = s.length;
    this.ensure(n);
    const b = this.buf;
    let p = this.pos;
    for (let i = 0; i < n; i++) b[p++] = s.charCodeAt(i);
    this.pos = p;
  }

  /** Any string as UTF-8, as it is. */
  utf8(s: string): void {
    this.ensure(s.length * 3);
    this.pos += this.buf.write(s, this.pos, 'utf8');
  }

  bytes(src: Uint8Array, from = 0, to = src.length): void {
    const n = to - from;
    this.ensure(n);
    if (n <= 48) {
      // Short values (a cached date, a symbol, a short string) by hand: subarray() would allocate a view per value.
      const b = this.buf;
      let p = this.pos;
      for (let i = from; i < to; i++) b[p++] = src[i]!;
      this.pos = p;
      return;
    }
    this.buf.set(src.subarray(from, to), this.pos);
    this.pos += n;
  }

  /** An integer (|n| < 2^53) in decimal. */
  int(n: number): void {
    this.ensure(21);
    const b = this.buf;
    let p = this.pos;
    if (n < 0) {
      b[p++] = 45;
      n = -n;
    }
    if (n < 10) {
      b[p++] = 48 + n;
      this.pos = p;
      return;
    }
    let digits = 1;
    for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
    let end = p + digits;
    this.pos = end;
    while (n >= 10) {
      const q = Math.floor(n / 10);
      b[--end] = 48 + (n - q * 10);
      n = q;
    }
    b[end - 1] = 48 + n;
  }

  /** `n` (0 <= n < 10^width) with leading zeros to `width` digits. */
  padded(n: number, width: number): void {
    this.ensure(width);
    const b = this.buf;
    let p = this.pos + width;
    this.pos = p;
    for (let i = 0; i < width; i++) {
      const q = Math.floor(n / 10);
      b[--p] = 48 + (n - q * 10);
      n = q;
    }
  }

  /**
   * UTF-8 bytes as the inside of a JSON string: `"` `\` and control characters
   * escaped, invalid UTF-8 replaced by U+FFFD so the body stays valid JSON.
   */
  jsonEscaped(src: Uint8Array, from: number, to: number): void {
    this.ensure((to - from) * 6);
    const b = this.buf;
    let p = this.pos;
    let i = from;
    while (i < to) {
      const c = src[i]!;
      if (c >= 0x20 && c < 0x80) {
        if (c === 0x22 || c === 0x5c) {
          b[p++] = 0x5c;
        }
        b[p++] = c;
        i++;
        continue;
      }
      if (c < 0x20) {
        p = escapeControl(b, p, c);
        i++;
        continue;
      }
      const n = utf8SequenceLength(src, i, to);
      if (n < 0) {
        b[p++] = 0xef;
        b[p++] = 0xbf;
        b[p++] = 0xbd;
        i -= n;
        continue;
      }
      for (let k = 0; k < n; k++) b[p++] = src[i + k]!;
      i += n;
    }
    this.pos = p;
  }

  /**
   * UTF-8 bytes as the inside of a CSV field in double quotes, escaped as
   * QuestDB's /exp escapes them: `"` doubled, `\` doubled, control characters
   * as in JSON (`\t`, `\n`, `\u0001`...); invalid UTF-8 replaced by U+FFFD.
   */
  csvEscaped(src: Uint8Array, from: number, to: number): void {
    this.ensure((to - from) * 6);
    const b = this.buf;
    let p = this.pos;
    let i = from;
    while (i < to) {
      const c = src[i]!;
      if (c >= 0x20 && c < 0x80) {
        if (c === 0x22) b[p++] = 0x22;
        else if (c === 0x5c) b[p++] = 0x5c;
        b[p++] = c;
        i++;
        continue;
      }
      if (c < 0x20) {
        p = escapeControl(b, p, c);
        i++;
        continue;
      }
      const n = utf8SequenceLength(src, i, to);
      if (n < 0) {
        b[p++] = 0xef;
        b[p++] = 0xbf;
        b[p++] = 0xbd;
        i -= n;
        continue;
      }
      for (let k = 0; k < n; k++) b[p++] = src[i + k]!;
      i += n;
    }
    this.pos = p;
  }
}

/** A control character (< 0x20) as its JSON escape at b[p]; the position after it. */
function escapeControl(b: Uint8Array, p: number, c: number): number {
  b[p++] = 0x5c;
  switch (c) {
    case 0x0a:
      b[p++] = 0x6e;
      break;
    case 0x0d:
      b[p++] = 0x72;
      break;
    case 0x09:
      b[p++] = 0x74;
      break;
    case 0x08:
      b[p++] = 0x62;
      break;
    case 0x0c:
      b[p++] = 0x66;
      break;
    default:
      b[p++] = 0x75;
      b[p++] = 0x30;
      b[p++] = 0x30;
      b[p++] = HEX[c >> 4]!;
      b[p++] = HEX[c & 15]!;
  }
  return p;
}

/**
 * At a byte >= 0x80: the length of the valid UTF-8 sequence starting there, or
 * minus the length of the invalid prefix to replace by one U+FFFD (the
 * "maximal subpart" rule of the WHATWG decoder, so the output matches
 * TextDecoder's).
 */
function utf8SequenceLength(s: Uint8Array, i: number, end: number): number {
  const c = s[i]!;
  let need: number,
    lo = 0x80,
    hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) need = 1;
  else if (c >= 0xe0 && c <= 0xef) {
    need = 2;
    if (c === 0xe0) lo = 0xa0;
    else if (c === 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 3;
    if (c === 0xf0) lo = 0x90;
    else if (c === 0xf4) hi = 0x8f;
  } else return -1;
  for (let k = 1; k <= need; k++) {
    const b = i + k < end ? s[i + k]! : -1;
    if (b < lo || b > hi) return -k;
    lo = 0x80;
    hi = 0xbf;
  }
  return need + 1;
}
