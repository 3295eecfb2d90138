// LIKE / ILIKE wildcards and escapes, ~ and !~ regular expressions, and ||
// concatenation of any types with NULL read as empty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32 } from '../helpers/prng.js';
import { LikeMatcher } from '../../lib/functions/like-matcher.js';
import {
  bools,
  call,
  chars,
  doubles,
  floats,
  ints,
  longs,
  resolveError,
  resultType,
  strs,
  syms,
  ts,
} from './helpers.js';

const rep = (s: string | null, n: number): ReturnType<typeof strs> => strs(new Array(n).fill(s));

test('like matches % runs and _ single characters over the whole text', () => {
  const s = strs(['abc', 'abd', 'ab', 'xabc', null, 'é€😀']);
  assert.deepEqual(call('like', [s, rep('ab_', 6)]), [true, true, false, false, false, false]);
  assert.deepEqual(call('like', [s, rep('%bc', 6)]), [true, false, false, true, false, false]);
  assert.deepEqual(call('like', [s, rep('%', 6)]), [true, true, true, true, false, true]);
  assert.deepEqual(call('like', [s, rep('é__', 6)]), [false, false, false, false, false, true]);
  assert.deepEqual(call('like', [s, rep('ABC', 6)]), [false, false, false, false, false, false]);
  assert.deepEqual(call('like', [s, rep(null, 6)]), [false, false, false, false, false, false]);
});

test('like escapes wildcards and regex characters with a backslash', () => {
  const s = strs(['50%', '50x', 'a_b', 'axb', 'a.b', '(x)']);
  assert.deepEqual(call('like', [s, rep('50\\%', 6)]), [true, false, false, false, false, false]);
  assert.deepEqual(call('like', [s, rep('a\\_b', 6)]), [false, false, true, false, false, false]);
  assert.deepEqual(call('like', [s, rep('a.b', 6)]), [false, false, false, false, true, false]);
  assert.deepEqual(call('like', [s, rep('(%)', 6)]), [false, false, false, false, false, true]);
});

test('ilike ignores case, including non-ASCII letters', () => {
  const s = strs(['Hello', 'HELLO', 'hallo', 'ÉTÉ']);
  assert.deepEqual(call('ilike', [s, rep('hel%', 4)]), [true, true, false, false]);
  assert.deepEqual(call('ilike', [s, rep('été', 4)]), [false, false, false, true]);
});

test('like on symbols and with per-row patterns', () => {
  assert.deepEqual(call('like', [syms(['AAPL', 'MSFT', null, 'AMZN']), rep('A%', 4)]), [true, false, false, true]);
  assert.deepEqual(call('like', [strs(['ab', 'ab']), strs(['a%', 'b%'])]), [true, false]);
  assert.deepEqual(call('like', [strs(['ab']), strs(['a%'], 'VARCHAR')]), [true]);
  assert.deepEqual(call('like', [chars(['a']), rep('_', 1)]), [true]);
  assert.deepEqual(call('like', [strs([]), strs([])], undefined, 0), []);
});

type LikeToken = { readonly kind: 'any' | 'run' } | { readonly kind: 'char'; readonly c: string };

/** LIKE by dynamic programming over code points (a lone surrogate is one): the reference the matcher must agree with. */
function likeReference(pattern: string, text: string, eq: (p: string, t: string) => boolean): boolean {
  const cps = Array.from(pattern);
  const toks: LikeToken[] = [];
  for (let i = 0; i < cps.length; i++) {
    const c = cps[i]!;
    if (c === '\\' && i + 1 < cps.length) toks.push({ kind: 'char', c: cps[++i]! });
    else if (c === '%') toks.push({ kind: 'run' });
    else if (c === '_') toks.push({ kind: 'any' });
    else toks.push({ kind: 'char', c });
  }
  const t = Array.from(text);
  // at[j]: the pattern's first i tokens match the text's first j characters.
  let at = t.map(() => false).concat(false);
  at[0] = true;
  for (const tok of toks) {
    const next = at.map(() => false);
    for (let j = 0; j <= t.length; j++) {
      if (tok.kind === 'run') next[j] = at[j]! || (j > 0 && next[j - 1]!);
      else if (j > 0 && at[j - 1]) next[j] = tok.kind === 'char' ? eq(tok.c, t[j - 1]!) : true;
    }
    at = next;
  }
  return at[t.length]!;
}

/** Case-insensitive equality of two characters as a case-insensitive Unicode RegExp has it (ILIKE's meaning). */
const ciCache = new Map<string, boolean>();
function ciEqual(a: string, b: string): boolean {
  const key = `${a}\u0000${b}`;
  let r = ciCache.get(key);
  if (r === undefined) {
    r = new RegExp(`^${a.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&')}$`, 'iu').test(b);
    ciCache.set(key, r);
  }
  return r;
}

test('the LIKE matcher agrees with a brute-force reference on random patterns and texts, case-sensitive or not', () => {
  // Wildcards, escapes, surrogate pairs and lone surrogates, and letters whose case forms differ in length or context.
  const alphabet = [
    'a',
    'b',
    'A',
    '%',
    '_',
    '\\',
    '😀',
    '😁',
    '\uD83D',
    '\uDE00',
    'é',
    'É',
    'ſ',
    's',
    'S',
    'Σ',
    'σ',
    'ς',
    'İ',
    'i',
    'µ',
    'μ',
    'K',
    'k',
    '.',
    '*',
  ];
  const random = mulberry32(12345);
  const rnd = (n: number): number => Math.floor(random() * n);
  // Two rounds in three over a few characters only, so that segments overlap and candidates repeat, in and around surrogate pairs.
  const pools = [alphabet, ['a', 'a', 'b', '%', '_'], ['😀', '\uD83D', '\uDE00', 'a', '%', '_']];
  let pool = alphabet;
  const pick = (): string => pool[rnd(pool.length)]!;
  const gen = (max: number): string => {
    let x = '';
    for (let k = rnd(max + 1); k > 0; k--) x += pick();
    return x;
  };
  let checked = 0;
  for (let round = 0; round < 600; round++) {
    pool = pools[round % 3]!;
    const pattern = gen(9);
    const texts = Array.from({ length: 25 }, () => gen(12));
    // A few texts made from the pattern itself, so that matches are frequent.
    for (let k = 0; k < 5; k++)
      texts.push(
        pattern
          .replace(/\\(.)/gu, '$1')
          .replace(/%/g, () => gen(3))
          .replace(/_/g, () => gen(1) || 'a'),
      );
    for (const ci of [false, true]) {
      // The matcher itself: text vectors hold well-formed text, where a lone surrogate reads as U+FFFD.
      const m = new LikeMatcher(pattern, ci);
      const got = texts.map((t) => m.test(t));
      const want = texts.map((t) => likeReference(pattern, t, ci ? ciEqual : (a, b) => a === b));
      assert.deepEqual(got, want, `${ci ? 'ilike' : 'like'} ${JSON.stringify(pattern)} over ${JSON.stringify(texts)}`);
      checked += texts.length;
    }
  }
  assert.equal(checked, 600 * 2 * 30);
});

test('ilike keeps a character a character: final sigma, dotted I and long s', () => {
  const s = strs(['ΣΑΣ', 'İ', 'ſ', 'µ', 'K']);
  assert.deepEqual(call('ilike', [s, rep('σασ', 5)]), [true, false, false, false, false]);
  assert.deepEqual(call('ilike', [s, rep('_', 5)]), [false, true, true, true, true]);
  assert.deepEqual(call('ilike', [s, rep('S', 5)]), [false, false, true, false, false]);
  assert.deepEqual(call('ilike', [s, rep('μ', 5)]), [false, false, false, true, false]);
  assert.deepEqual(call('ilike', [s, rep('k', 5)]), [false, false, false, false, true]);
  assert.deepEqual(call('ilike', [s, rep('i', 5)]), [false, false, false, false, false]);
});

test("~ finds a regular expression anywhere; !~ is its negation (QuestDB's not(~)): NULL text is false for ~, true for !~", () => {
  const s = strs(['abc123', 'xyz', null, 'ABC']);
  assert.deepEqual(call('~', [s, rep('[0-9]+', 4)]), [true, false, false, false]);
  assert.deepEqual(call('!~', [s, rep('[0-9]+', 4)]), [false, true, true, true]);
  assert.deepEqual(call('!~', [syms(['a1', null, 'b2']), rep('1$', 3)]), [false, true, true]);
  assert.deepEqual(call('~', [s, rep('^a', 4)]), [true, false, false, false]);
  assert.deepEqual(call('~', [syms(['a1', 'b2', null]), rep('1$', 3)]), [true, false, false]);
  assert.deepEqual(call('~', [strs(['😀x']), rep('^.x$', 1)]), [true]);
  assert.throws(() => call('~', [strs(['a']), rep('(', 1)]), /invalid regular expression/);
});

test('inline flag groups (?i), (?s), (?m) apply where they stand, as in Java', () => {
  const s = strs(['ABC', 'a\nb', 'x', 'aB']);
  assert.deepEqual(call('~', [s, rep('(?i)^abc$', 4)]), [true, false, false, false]);
  assert.deepEqual(call('~', [s, rep('^abc$', 4)]), [false, false, false, false]);
  assert.deepEqual(call('~', [s, rep('(?s)a.b', 4)]), [false, true, false, false]);
  assert.deepEqual(call('~', [s, rep('(?m)^b$', 4)]), [false, true, false, false]);
  assert.deepEqual(call('~', [s, rep('(?is)A.B', 4)]), [false, true, false, false]);
  assert.deepEqual(call('~', [s, rep('^a(?i)b$', 4)]), [false, false, false, true]);
  assert.deepEqual(call('~', [s, rep('^a(?i:b)$', 4)]), [false, false, false, true]);
  assert.deepEqual(call('regexp_replace', [strs(['Hello hello']), strs(['(?i)h']), strs(['j'])]), ['jello jello']);
});

test('~ reads Java escapes \\uXXXX and \\Q...\\E, Unicode classes and named groups', () => {
  const s = strs(['A+B', 'é', 'x']);
  assert.deepEqual(call('~', [s, rep('\\u0041', 3)]), [true, false, false]);
  assert.deepEqual(call('~', [s, rep('\\QA+B\\E', 3)]), [true, false, false]);
  assert.deepEqual(call('~', [s, rep('^\\p{L}$', 3)]), [false, true, true]);
  assert.deepEqual(call('~', [s, rep('(?<n>A)\\+', 3)]), [true, false, false]);
  assert.deepEqual(call('~', [s, rep('(?P<n>A)\\+', 3)]), [true, false, false]);
});

test('~ refuses what needs backtracking or would mean something else than in Java, saying why', () => {
  const refused: [string, RegExp][] = [
    ['(a)\\1', /backreferences are not supported/],
    ['(?<x>a)\\k<x>', /backreferences are not supported/],
    ['a(?=b)', /lookahead and lookbehind are not supported/],
    ['a(?!b)', /lookahead and lookbehind are not supported/],
    ['(?<=a)b', /lookahead and lookbehind are not supported/],
    ['(?<!a)b', /lookahead and lookbehind are not supported/],
    ['(?>a+)b', /atomic groups are not supported/],
    ['a++b', /possessive quantifiers are not supported/],
    ['a*+b', /possessive quantifiers are not supported/],
    ['a{2}+b', /possessive quantifiers are not supported/],
    ['[a-z&&[^e]]', /class intersection/],
    ['[a[bc]]', /nested character classes/],
    ['(?U)a+', /flag U/],
    ['\\p{Alpha}', /invalid character class range/],
    ['(', /missing closing \)/],
    ['(?:a|b){1000}'.repeat(5), /too complex: \d+ instructions, at most 2000/],
  ];
  for (const [pattern, why] of refused) {
    assert.throws(
      () => call('~', [strs(['ab']), rep(pattern, 1)]),
      (e: Error) => {
        assert.match(e.message, /^invalid regular expression: /, pattern);
        assert.match(e.message, why, pattern);
        assert.match(e.message, /RE2 syntax, matched in linear time/, pattern);
        return true;
      },
    );
  }
  assert.deepEqual(call('~', [strs(['ab']), rep('[ab]{1000}[cd]{900}', 1)]), [false]);
  // Escaped, they are ordinary characters.
  assert.deepEqual(call('~', [strs(['a[b', 'a&&b']), rep('[\\[&]', 2)]), [true, true]);
});

test('patterns that backtrack exponentially in a backtracking engine answer at once', () => {
  const t0 = performance.now();
  assert.deepEqual(call('~', [strs(['a'.repeat(40) + '!']), rep('(a+)+$', 1)]), [false]);
  assert.deepEqual(call('~', [strs(['a'.repeat(10_000)]), rep('(.*a){20}b', 1)]), [false]);
  assert.deepEqual(call('regexp_replace', [strs(['a'.repeat(40) + '!']), rep('(a|aa)+$', 1), rep('x', 1)]), [
    'a'.repeat(40) + '!',
  ]);
  assert.deepEqual(call('like', [strs(['a'.repeat(100_000)]), rep('%a'.repeat(30) + '%b', 1)]), [false]);
  assert.deepEqual(call('like', [strs(['a'.repeat(100_000)]), rep('%a'.repeat(30) + '%b%', 1)]), [false]);
  assert.deepEqual(call('like', [strs(['a'.repeat(100_000)]), rep('%a_'.repeat(30) + '%b%', 1)]), [false]);
  assert.ok(performance.now() - t0 < 5000, `took ${performance.now() - t0} ms`);
});

test('|| concatenates any types, printing numbers like QuestDB and NULL as empty', () => {
  assert.deepEqual(call('||', [strs(['a', null, null]), strs(['b', 'c', null])]), ['ab', 'c', '']);
  assert.deepEqual(call('||', [strs(['x=']), doubles([1])]), ['x=1.0']);
  assert.deepEqual(call('||', [ints([1, null]), strs(['-', '-'])]), ['1-', '-']);
  assert.deepEqual(call('||', [syms(['s']), bools([true])]), ['strue']);
  assert.deepEqual(call('||', [ts(['2024-01-01']), chars(['Z'])]), ['2024-01-01T00:00:00.000000ZZ']);
  // eslint-disable-next-line no-loss-of-precision -- the literal as a client sends it, rounded as JavaScript rounds it
  assert.deepEqual(call('||', [floats([0.1]), longs([9007199254740993])]), ['0.19007199254740992']);
  assert.equal(resultType('||', ['STRING', 'INT']), 'STRING');
  // QuestDB: concatenation is a STRING whatever its arguments.
  assert.equal(resultType('||', ['VARCHAR', 'STRING']), 'STRING');
  assert.equal(resultType('||', ['VARCHAR', 'VARCHAR']), 'STRING');
  assert.match(resolveError('||', ['BINARY', 'STRING']), /no matching operator `\|\|`/);
});
