// The SQL lexer: turns QuestDB-dialect SQL text into tokens (kind, text, offsets),
// skipping whitespace and comments. First stage of lib/sql: lexer -> parser -> binder.
// Keywords are plain identifiers here; the parser compares them case-insensitively.

import { SvcError } from '../errors/svc-error.js';

/**
 * ident: a bare word (`up` holds it upper-cased for keyword checks);
 * qident: "quoted identifier" (text unescaped); string: 'literal' (text unescaped);
 * number: as written, including a suffix such as `1L`, `15m`, `1.5m`, `0x1F`;
 * bind: `$1` / `$name` / `@name` (QuestDB DECLARE variables), text with its sigil; geohash: `#u33d`, `##0101`, `#u33d/18` as written;
 * op: punctuation and operators (any other character becomes a one-character op);
 * eof: the end of the text.
 */
export type TokenKind = 'ident' | 'qident' | 'string' | 'number' | 'op' | 'bind' | 'geohash' | 'eof';

export interface Token {
  readonly kind: TokenKind;
  /** Identifiers and numbers as written; strings and quoted identifiers unescaped; ops their symbol. */
  readonly text: string;
  /** Upper-cased text for `ident`, `text` otherwise: keyword checks compare this. */
  readonly up: string;
  /** Zero-based UTF-16 offset of the first character. */
  readonly pos: number;
  /** Offset just past the last character. */
  readonly end: number;
}

// Character classes by char code, built once: avoids regexes per character.
const IDENT_START = new Uint8Array(128);
const IDENT_PART = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  const letter = (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
  IDENT_START[c] = letter ? 1 : 0;
  IDENT_PART[c] = letter || (c >= 48 && c <= 57) ? 1 : 0;
}

function isIdentStart(c: number): boolean {
  return c < 128 ? IDENT_START[c] === 1 : isWordChar(c);
}

function isIdentPart(c: number): boolean {
  return c < 128 ? IDENT_PART[c] === 1 : isWordChar(c);
}

/** Non-ASCII characters count as word characters unless they are spaces. */
function isWordChar(c: number): boolean {
  return c !== 0xa0 && c !== 0xfeff && c !== 0x2028 && c !== 0x2029 && !(c >= 0x2000 && c <= 0x200b) && c !== 0x3000;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

function isSpace(c: number): boolean {
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0xfeff ||
    c === 0x2028 ||
    c === 0x2029 ||
    (c >= 0x2000 && c <= 0x200b) ||
    c === 0x3000
  );
}

// Operators longer than one character, longest first within each leading character.
const MULTI_OPS: Readonly<Record<string, readonly string[]>> = {
  ':': ['::', ':='],
  '!': ['!=', '!~'],
  '<': ['<<=', '<>', '<=', '<<'],
  '>': ['>>=', '>=', '>>'],
  '|': ['||'],
};

function sqlError(message: string, position: number): SvcError {
  return new SvcError('SQL', message, { position });
}

/** Tokenizes `text`; the last token is always `eof` at `text.length`. Throws SvcError on unterminated quotes or comments. */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    // -- line comment
    if (c === 45 && text.charCodeAt(i + 1) === 45) {
      i += 2;
      while (i < n && text.charCodeAt(i) !== 10) i++;
      continue;
    }
    // /* block comment */ (also QuestDB's /*+ hints */, which svcdb ignores)
    if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const close = text.indexOf('*/', i + 2);
      if (close < 0) throw sqlError('unterminated comment', i);
      i = close + 2;
      continue;
    }
    const start = i;
    if (isIdentStart(c)) {
      i++;
      while (i < n && isIdentPart(text.charCodeAt(i))) i++;
      const word = text.slice(start, i);
      out.push({ kind: 'ident', text: word, up: word.toUpperCase(), pos: start, end: i });
      continue;
    }
    if (isDigit(c) || (c === 46 && isDigit(text.charCodeAt(i + 1)) && !followsOperand(out, start))) {
      i = scanNumber(text, i);
      const num = text.slice(start, i);
      out.push({ kind: 'number', text: num, up: num, pos: start, end: i });
      continue;
    }
    if (c === 39 || c === 34) {
      const [value, next] = scanQuoted(text, i, c);
      const kind = c === 39 ? 'string' : 'qident';
      out.push({ kind, text: value, up: value, pos: start, end: next });
      i = next;
      continue;
    }
    if (
      (c === 36 || c === 64) &&
      i + 1 < n &&
      (isDigit(text.charCodeAt(i + 1)) || isIdentStart(text.charCodeAt(i + 1)))
    ) {
      i++;
      while (i < n && isIdentPart(text.charCodeAt(i))) i++;
      const name = text.slice(start, i);
      out.push({ kind: 'bind', text: name, up: name, pos: start, end: i });
      continue;
    }
    if (c === 35) {
      const next = scanGeohash(text, i);
      if (next > i) {
        const gh = text.slice(start, next);
        out.push({ kind: 'geohash', text: gh, up: gh, pos: start, end: next });
        i = next;
        continue;
      }
    }
    const ch = text[i] as string;
    let op = ch;
    const multi = MULTI_OPS[ch];
    if (multi !== undefined) {
      for (const m of multi) {
        if (text.startsWith(m, i)) {
          op = m;
          break;
        }
      }
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < n) {
      op = text.slice(i, i + 2); // keep a surrogate pair together in error messages
    }
    i += op.length;
    out.push({ kind: 'op', text: op, up: op, pos: start, end: i });
  }
  out.push({ kind: 'eof', text: '', up: '', pos: n, end: n });
  return out;
}

/** True when the previous token ends right before `pos` and is something `.5` could not follow (`t.5`). */
function followsOperand(out: readonly Token[], pos: number): boolean {
  const last = out[out.length - 1];
  if (last === undefined || last.end !== pos) return false;
  return (
    last.kind === 'ident' || last.kind === 'qident' || last.kind === 'number' || last.text === ')' || last.text === ']'
  );
}

/** Scans a number starting at `i`: 0x hex, digits with `_` separators, fraction, exponent, then any suffix letters. */
function scanNumber(text: string, i: number): number {
  const n = text.length;
  if (text.charCodeAt(i) === 48 && (text.charCodeAt(i + 1) | 32) === 120 && isHexDigit(text.charCodeAt(i + 2))) {
    i += 2;
    while (i < n && isHexDigit(text.charCodeAt(i))) i++;
  } else {
    while (i < n && (isDigit(text.charCodeAt(i)) || (text.charCodeAt(i) === 95 && isDigit(text.charCodeAt(i + 1)))))
      i++;
    if (text.charCodeAt(i) === 46) {
      const after = text.charCodeAt(i + 1);
      if (isDigit(after)) {
        i++;
        while (i < n && (isDigit(text.charCodeAt(i)) || (text.charCodeAt(i) === 95 && isDigit(text.charCodeAt(i + 1)))))
          i++;
      } else if (!(after < 128 && IDENT_PART[after] === 1) && after !== 46) {
        i++; // `1.` is 1.0
      }
    }
    if ((text.charCodeAt(i) | 32) === 101) {
      const s = text.charCodeAt(i + 1);
      const d = s === 43 || s === 45 ? i + 2 : i + 1;
      if (isDigit(text.charCodeAt(d))) {
        i = d;
        while (i < n && isDigit(text.charCodeAt(i))) i++;
      }
    }
  }
  // Suffix: 1L, 1.5m (decimal), 15m / 1h (durations), 5c (geohash bits), 600000000us.
  while (i < n && isIdentPart(text.charCodeAt(i))) i++;
  return i;
}

/** Scans a quoted string or identifier at `i` (quote char `q`, doubled to escape); returns [value, end]. */
function scanQuoted(text: string, i: number, q: number): [string, number] {
  const start = i;
  const quote = q === 39 ? "'" : '"';
  let value = '';
  let from = i + 1;
  for (;;) {
    const close = text.indexOf(quote, from);
    if (close < 0) {
      throw sqlError('unclosed quoted string?', start); // QuestDB's words, for 'strings' and "names" alike
    }
    if (text.charCodeAt(close + 1) === q) {
      value += text.slice(from, close + 1);
      from = close + 2;
      continue;
    }
    value += text.slice(from, close);
    return [value, close + 1];
  }
}

/** `#` + base32 chars [+ `/bits`], or `##` + binary digits; returns `i` when it is not a geohash. */
function scanGeohash(text: string, i: number): number {
  const n = text.length;
  if (text.charCodeAt(i + 1) === 35) {
    let j = i + 2;
    while (j < n && (text.charCodeAt(j) === 48 || text.charCodeAt(j) === 49)) j++;
    return j > i + 2 ? j : i;
  }
  let j = i + 1;
  while (j < n && text.charCodeAt(j) < 128 && IDENT_PART[text.charCodeAt(j)] === 1 && text.charCodeAt(j) !== 95) j++;
  if (j === i + 1) return i;
  if (text.charCodeAt(j) === 47 && isDigit(text.charCodeAt(j + 1))) {
    j += 2;
    while (j < n && isDigit(text.charCodeAt(j))) j++;
  }
  return j;
}
