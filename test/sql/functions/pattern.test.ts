// LIKE / ILIKE wildcards and escapes, ~ and !~ regular expressions, and ||
// concatenation of any types with NULL read as empty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bools, call, chars, doubles, floats, ints, longs, resolveError, resultType, strs, syms, ts } from './helpers.js';

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

test('~ finds a regular expression anywhere; !~ is its negation; NULL is false for both', () => {
  const s = strs(['abc123', 'xyz', null, 'ABC']);
  assert.deepEqual(call('~', [s, rep('[0-9]+', 4)]), [true, false, false, false]);
  assert.deepEqual(call('!~', [s, rep('[0-9]+', 4)]), [false, true, false, true]);
  assert.deepEqual(call('~', [s, rep('^a', 4)]), [true, false, false, false]);
  assert.deepEqual(call('~', [syms(['a1', 'b2', null]), rep('1$', 3)]), [true, false, false]);
  assert.deepEqual(call('~', [strs(['😀x']), rep('^.x$', 1)]), [true]);
  assert.throws(() => call('~', [strs(['a']), rep('(', 1)]), /invalid regular expression/);
});

test('a leading Java inline flag group becomes RegExp flags', () => {
  const s = strs(['ABC', 'a\nb', 'x']);
  assert.deepEqual(call('~', [s, rep('(?i)^abc$', 3)]), [true, false, false]);
  assert.deepEqual(call('~', [s, rep('^abc$', 3)]), [false, false, false]);
  assert.deepEqual(call('~', [s, rep('(?s)a.b', 3)]), [false, true, false]);
  assert.deepEqual(call('~', [s, rep('(?m)^b$', 3)]), [false, true, false]);
  assert.deepEqual(call('~', [s, rep('(?is)A.B', 3)]), [false, true, false]);
  assert.deepEqual(call('regexp_replace', [strs(['Hello hello']), strs(['(?i)h']), strs(['j'])]), ['jello jello']);
  assert.throws(() => call('~', [s, rep('a(?i)b', 3)]), /invalid regular expression/);
});

test('|| concatenates any types, printing numbers like QuestDB and NULL as empty', () => {
  assert.deepEqual(call('||', [strs(['a', null, null]), strs(['b', 'c', null])]), ['ab', 'c', '']);
  assert.deepEqual(call('||', [strs(['x=']), doubles([1])]), ['x=1.0']);
  assert.deepEqual(call('||', [ints([1, null]), strs(['-', '-'])]), ['1-', '-']);
  assert.deepEqual(call('||', [syms(['s']), bools([true])]), ['strue']);
  assert.deepEqual(call('||', [ts(['2024-01-01']), chars(['Z'])]), ['2024-01-01T00:00:00.000000ZZ']);
  assert.deepEqual(call('||', [floats([0.1]), longs([9007199254740993])]), ['0.19007199254740992']);
  assert.equal(resultType('||', ['STRING', 'INT']), 'STRING');
  assert.equal(resultType('||', ['VARCHAR', 'STRING']), 'VARCHAR');
  assert.match(resolveError('||', ['BINARY', 'STRING']), /no matching operator `\|\|`/);
});
