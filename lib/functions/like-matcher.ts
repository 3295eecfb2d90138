// LIKE / ILIKE patterns (% any run, _ one character, \ escapes the next) matched
// without a regular expression: the pattern is split on % into segments matched
// greedily leftmost-first, at most O(text x pattern) per row, never exponential.

/** A `_` in a segment's tokens: any one code point. */
const ANY = -1;

/** A run of the pattern between two % (or an end): its code points, `_` as ANY. */
interface Segment {
  readonly tokens: Int32Array;
  /** The literal code points before its first `_`, as text (indexOf jumps to candidates). */
  readonly lead: string;
  /** How many tokens `lead` is. */
  readonly leadTokens: number;
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;
/** Whether index `i` of `s` falls between the two halves of a surrogate pair. */
const splitsPair = (s: string, i: number): boolean => i > 0 && isLow(s.charCodeAt(i)) && isHigh(s.charCodeAt(i - 1));

/**
 * Characters that Unicode simple case folding (what a case-insensitive `u`
 * RegExp, and so ILIKE before, compares) maps elsewhere than toLowerCase does,
 * with their folded form. Final sigma is here because toLowerCase picks σ or ς
 * by context.
 */
const FOLD_EXTRA: Readonly<Record<string, string>> = {
  '\u00b5': '\u03bc', // micro sign -> mu
  '\u017f': 's', // long s
  '\u0345': '\u03b9', // combining ypogegrammeni -> iota
  '\u03c2': '\u03c3', // final sigma -> sigma
  '\u03d0': '\u03b2',
  '\u03d1': '\u03b8',
  '\u03d5': '\u03c6',
  '\u03d6': '\u03c0',
  '\u03f0': '\u03ba',
  '\u03f1': '\u03c1',
  '\u03f5': '\u03b5',
  '\u1c80': '\u0432',
  '\u1c81': '\u0434',
  '\u1c82': '\u043e',
  '\u1c83': '\u0441', // Cyrillic small letter variants
  '\u1c84': '\u0442',
  '\u1c85': '\u0442',
  '\u1c86': '\u044a',
  '\u1c87': '\u0463',
  '\u1c88': '\ua64b',
  '\u1e9b': '\u1e61', // long s with dot above
  '\u1fbe': '\u03b9', // prosgegrammeni -> iota
};
// eslint-disable-next-line no-misleading-character-class -- U+0345 is folded on its own, not as part of a sequence
const FOLD_EXTRA_ALL = /[\u00b5\u017f\u0345\u03c2\u03d0\u03d1\u03d5\u03d6\u03f0\u03f1\u03f5\u1c80-\u1c88\u1e9b\u1fbe]/g;
/** Everything but U+0130 (İ), the one character whose lowercase is longer (i + combining dot), which folding leaves as is. */
const NOT_DOTTED_I = /[^\u0130]+/g;

/** Lowercase with the code point count kept: İ stays (toLowerCase is otherwise per code point, but for final sigma). */
function lower(s: string): string {
  const f = s.toLowerCase();
  return f.length === s.length ? f : s.replace(NOT_DOTTED_I, (part) => part.toLowerCase());
}

/**
 * Text in a case-insensitive comparison form: lowercase plus the few simple
 * case foldings lowercase lacks, so that it equates what a case-insensitive
 * Unicode RegExp equates (ILIKE's meaning before) and keeps the code point count.
 */
export function foldCase(s: string): string {
  return lower(s).replace(FOLD_EXTRA_ALL, (c) => FOLD_EXTRA[c]!);
}

/**
 * The characters of folded text that `folded` (a pattern) needs folded past
 * lowercase, as a global RegExp, or null when none: 'abc%' needs none, so its
 * rows are only lowercased; 'as%' needs ſ (long s) read as s.
 */
function extraFoldsFor(folded: string): RegExp | null {
  let chars = '';
  for (const [from, to] of Object.entries(FOLD_EXTRA)) if (folded.includes(to)) chars += from;
  return chars === '' ? null : new RegExp(`[${chars}]`, 'g');
}

/** A compiled LIKE pattern: test(s) tells whether the whole of `s` matches. */
export class LikeMatcher {
  readonly #fold: boolean;
  /** ILIKE: the foldings past lowercase that this pattern needs of a row (null: none). */
  readonly #extra: RegExp | null;
  /** Segments as plain text when no `_` and no lone surrogate at a segment's edge: native startsWith / indexOf / endsWith. */
  readonly #plain: readonly string[] | null;
  readonly #segments: readonly Segment[];
  /** Most steps per character of text: the middle segments' length (each may be tried at every position). */
  readonly cost: number;

  constructor(pattern: string, caseInsensitive: boolean) {
    this.#fold = caseInsensitive;
    const p = caseInsensitive ? foldCase(pattern) : pattern;
    this.#extra = caseInsensitive ? extraFoldsFor(p) : null;
    const segments: Segment[] = [];
    let tokens: number[] = [];
    let lead = '',
      leadTokens = 0,
      leading = true;
    const close = (): void => {
      segments.push({ tokens: Int32Array.from(tokens), lead, leadTokens });
      tokens = [];
      lead = '';
      leadTokens = 0;
      leading = true;
    };
    for (let i = 0; i < p.length;) {
      let cp = p.codePointAt(i)!;
      i += cp > 0xffff ? 2 : 1;
      if (cp === 0x25 /* % */) {
        // A run of % is one: the segments between them would be empty.
        if (tokens.length > 0 || segments.length === 0) close();
        continue;
      }
      if (cp === 0x5f /* _ */) {
        tokens.push(ANY);
        leading = false;
        continue;
      }
      if (cp === 0x5c /* \ */ && i < p.length) {
        cp = p.codePointAt(i)!;
        i += cp > 0xffff ? 2 : 1;
      }
      tokens.push(cp);
      if (leading) {
        lead += String.fromCodePoint(cp);
        leadTokens++;
      }
    }
    close();
    this.#segments = segments;
    let middle = 0;
    for (let k = 1; k < segments.length - 1; k++) middle += segments[k]!.tokens.length;
    this.cost = Math.max(1, middle);
    this.#plain = segments.every(
      (s, k) =>
        !s.tokens.includes(ANY) &&
        !(k > 0 && isLow(s.tokens[0] ?? 0)) &&
        !(k < segments.length - 1 && isHigh(s.tokens[s.tokens.length - 1] ?? 0)),
    )
      ? segments.map((s) => s.lead)
      : null;
  }

  test(text: string): boolean {
    let s = text;
    if (this.#fold) {
      s = lower(text);
      if (this.#extra !== null) s = s.replace(this.#extra, (c) => FOLD_EXTRA[c]!);
    }
    return this.#plain !== null ? matchPlain(this.#plain, s) : matchTokens(this.#segments, s);
  }
}

/** Segments without `_`: the first a prefix, the last a suffix, the others leftmost in between. */
function matchPlain(segs: readonly string[], s: string): boolean {
  const k = segs.length;
  if (k === 1) return s === segs[0];
  const first = segs[0]!,
    last = segs[k - 1]!;
  let pos = first.length;
  const end = s.length - last.length;
  if (end < pos) return false;
  if (pos > 0 && !s.startsWith(first)) return false;
  if (last.length > 0 && !s.endsWith(last)) return false;
  for (let j = 1; j < k - 1; j++) {
    const m = segs[j]!;
    const at = s.indexOf(m, pos);
    if (at < 0 || at + m.length > end) return false;
    pos = at + m.length;
  }
  return true;
}

/** Segments with `_` (or lone surrogates at an edge), code point by code point. */
function matchTokens(segs: readonly Segment[], s: string): boolean {
  const k = segs.length;
  const pos = forward(segs[0]!.tokens, 0, s, 0, s.length);
  if (k === 1 || pos < 0) return pos === s.length;
  const end = backward(segs[k - 1]!.tokens, s, s.length, pos);
  if (end < 0) return false;
  let at = pos;
  for (let j = 1; j < k - 1 && at >= 0; j++) at = find(segs[j]!, s, at, end);
  return at >= 0;
}

/** Where `tokens` from token `t0` matched from `i` end (not past `limit`, a code point boundary), or -1. */
function forward(tokens: Int32Array, t0: number, s: string, i: number, limit: number): number {
  for (let t = t0; t < tokens.length; t++) {
    if (i >= limit) return -1;
    const want = tokens[t]!;
    const c = s.charCodeAt(i);
    if (want === ANY) {
      i += isHigh(c) && isLow(s.charCodeAt(i + 1)) ? 2 : 1;
    } else if (want < 0xd800 || (want > 0xdbff && want <= 0xffff)) {
      // Not a high surrogate: equal to the unit means equal to the code point.
      if (c !== want) return -1;
      i++;
    } else {
      const cp = s.codePointAt(i)!;
      if (cp !== want) return -1;
      i += cp > 0xffff ? 2 : 1;
    }
  }
  return i;
}

/** Where `tokens` matched backwards so as to end at `end` start (not before `floor`), or -1. */
function backward(tokens: Int32Array, s: string, end: number, floor: number): number {
  for (let t = tokens.length - 1; t >= 0; t--) {
    if (end <= floor) return -1;
    let cp = s.charCodeAt(end - 1),
      width = 1;
    if (isLow(cp) && end - 2 >= floor && isHigh(s.charCodeAt(end - 2))) {
      cp = s.codePointAt(end - 2)!;
      width = 2;
    }
    const want = tokens[t]!;
    if (want !== ANY && want !== cp) return -1;
    end -= width;
  }
  return end;
}

/** The end of the leftmost match of a middle segment within [from, limit), or -1; candidates are code point boundaries. */
function find(seg: Segment, s: string, from: number, limit: number): number {
  const { lead, tokens, leadTokens } = seg;
  let start = from;
  while (start < limit) {
    if (leadTokens === 0) {
      const e = forward(tokens, 0, s, start, limit);
      if (e >= 0) return e;
      start += s.codePointAt(start)! > 0xffff ? 2 : 1;
      continue;
    }
    const at = s.indexOf(lead, start);
    const after = at + lead.length;
    if (at < 0 || after > limit) return -1;
    // A lead starting with a lone low surrogate, or ending with a lone high one, can be found in a pair, which is one character.
    if (splitsPair(s, at) || splitsPair(s, after)) {
      start = at + 1;
      continue;
    }
    const e = forward(tokens, leadTokens, s, after, limit);
    if (e >= 0) return e;
    start = at + 1;
  }
  return -1;
}
