// Comparison operators, between and in_list: numeric mixes, NULL semantics
// (NULL = NULL is true, ordering with NULL false), text in code point order,
// symbols, booleans and timestamps against dates and text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  KX,
  bools,
  call,
  chars,
  doubles,
  floats,
  ints,
  longs,
  nullArg,
  resolveError,
  resultType,
  shorts,
  strs,
  syms,
  ts,
  values,
  REGISTRY,
} from './helpers.js';
import type { ColumnVector } from '../../lib/core/column-vector.js';

const OPS = ['=', '!=', '<', '<=', '>', '>='] as const;
const all = (a: ColumnVector, b: ColumnVector): Record<string, unknown[]> =>
  Object.fromEntries(OPS.map((op) => [op, call(op, [a, b])]));

test('compares numbers of any mix of types', () => {
  const r = all(ints([1, 2, 3]), doubles([2, 2, 2.5]));
  assert.deepEqual(r['='], [false, true, false]);
  assert.deepEqual(r['!='], [true, false, true]);
  assert.deepEqual(r['<'], [true, false, false]);
  assert.deepEqual(r['<='], [true, true, false]);
  assert.deepEqual(r['>'], [false, false, true]);
  assert.deepEqual(r['>='], [false, true, true]);
  assert.deepEqual(call('=', [shorts([7]), longs([7])]), [true]);
  assert.deepEqual(call('<', [floats([0.5]), ints([1])]), [true]);
  assert.deepEqual(call('=', [doubles([-0]), doubles([0])]), [true]);
  assert.equal(resultType('<', ['BYTE', 'DOUBLE']), 'BOOLEAN');
});

test('treats NULL = NULL as true and any ordering with NULL as false', () => {
  const r = all(ints([null, null, 1]), ints([null, 1, null]));
  assert.deepEqual(r['='], [true, false, false]);
  assert.deepEqual(r['!='], [false, true, true]);
  for (const op of ['<', '<=', '>', '>='] as const) assert.deepEqual(r[op], [false, false, false], op);
  assert.deepEqual(call('=', [doubles([null]), doubles([null])]), [true]);
  assert.deepEqual(call('=', [longs([null, 5]), nullArg(2)], ['LONG', 'NULL']), [true, false]);
  assert.deepEqual(call('<', [longs([null, 5]), nullArg(2)], ['LONG', 'NULL']), [false, false]);
  assert.deepEqual(call('=', [strs([null, 'a']), strs([null, null])]), [true, false]);
  assert.deepEqual(call('>', [strs([null, 'a']), strs(['a', null])]), [false, false]);
});

test('orders text by code point, byte-wise UTF-8, across STRING, VARCHAR, SYMBOL and CHAR', () => {
  // U+FF5E (3 UTF-8 bytes) sorts below U+1F600 (a surrogate pair in UTF-16): code point order, not UTF-16 order.
  const a = strs(['abc', 'abc', 'ab', 'é', '\uFF5E', 'Z']);
  const b = strs(['abd', 'abc', 'abc', 'z', '\u{1F600}', 'a'], 'VARCHAR');
  assert.deepEqual(call('<', [a, b]), [true, false, true, false, true, true]);
  assert.deepEqual(call('=', [a, b]), [false, true, false, false, false, false]);
  assert.deepEqual(call('>=', [b, a]), [true, true, true, false, true, true]);
  assert.deepEqual(call('=', [syms(['x', 'y', null]), strs(['x', 'x', null])]), [true, false, true]);
  assert.deepEqual(call('<', [chars(['a', 'b']), strs(['b', 'b'])]), [true, false]);
  assert.deepEqual(call('=', [chars(['é']), syms(['é'])]), [true]);
});

test('compares a symbol column with a constant through its dictionary', () => {
  const s = syms(['MSFT', 'AAPL', null, 'MSFT', 'ÄÖ']);
  const c = strs(['MSFT', 'MSFT', 'MSFT', 'MSFT', 'MSFT']);
  assert.deepEqual(call('=', [s, c]), [true, false, false, true, false]);
  assert.deepEqual(call('!=', [s, c]), [false, true, true, false, true]);
  assert.deepEqual(call('<', [s, c]), [false, true, false, false, false]);
  assert.deepEqual(call('>', [c, s]), [false, true, false, false, false]);
  assert.deepEqual(call('=', [s, strs([null, null, null, null, null])]), [false, false, true, false, false]);
  assert.deepEqual(call('!=', [s, strs([null, null, null, null, null])]), [true, true, false, true, true]);
  // Same dictionary on both sides: keys compare directly.
  assert.deepEqual(call('=', [s, s]), [true, true, true, true, true]);
});

test('compares booleans for equality only', () => {
  assert.deepEqual(call('=', [bools([true, false, true]), bools([true, true, false])]), [true, false, false]);
  assert.deepEqual(call('!=', [bools([true, false]), bools([true, true])]), [false, true]);
  assert.deepEqual(call('=', [bools([true, false]), strs(['true', 'TRUE'])]), [true, false]);
  assert.match(resolveError('<', ['BOOLEAN', 'BOOLEAN']), /no matching operator `<`/);
});

test('compares TIMESTAMP with DATE in micros and with text by parsing it', () => {
  const t = ts(['2024-01-01T00:00:00.000500Z', '2024-01-01T00:00:01Z']);
  const d = longs([Date.parse('2024-01-01T00:00:00Z'), Date.parse('2024-01-01T00:00:01Z')], 'DATE');
  assert.deepEqual(call('>', [t, d]), [true, false]);
  assert.deepEqual(call('=', [t, d]), [false, true]);
  assert.deepEqual(call('<', [d, t]), [true, false]);
  assert.deepEqual(call('>=', [t, strs(['2024-01-01', 'bad'])]), [true, false]);
  assert.deepEqual(call('=', [strs(['2024-01-01T00:00:01Z', null]), t]), [false, false]);
  assert.deepEqual(call('<', [t, longs([2 ** 52, 0])], ['TIMESTAMP', 'LONG']), [true, false]);
});

test('reads text against a number as that number', () => {
  assert.deepEqual(call('=', [ints([5, 6, null]), strs(['5', '5', 'x'])]), [true, false, true]);
  assert.deepEqual(call('<', [strs(['1.5']), doubles([2])]), [true]);
});

test('rejects types that do not compare', () => {
  assert.equal(
    resolveError('=', ['INT', 'BOOLEAN']),
    'there is no matching operator `=` with the argument types: INT = BOOLEAN',
  );
  assert.match(resolveError('<', ['CHAR', 'INT']), /no matching operator/);
  assert.match(resolveError('=', ['UUID', 'INT']), /no matching operator/);
});

test('between is inclusive, takes bounds in either order and is false with a NULL', () => {
  assert.deepEqual(call('between', [ints([1, 2, 3, 4, null]), ints([2, 2, 2, 2, 2]), ints([3, 3, 3, 3, 3])]), [
    false,
    true,
    true,
    false,
    false,
  ]);
  assert.deepEqual(call('between', [doubles([2.5, 2.5]), doubles([3, null]), doubles([2, 3])]), [true, false]);
  assert.deepEqual(call('between', [strs(['b', 'd', null]), strs(['a', 'a', 'a']), strs(['c', 'c', 'c'])]), [
    true,
    false,
    false,
  ]);
  assert.deepEqual(call('between', [strs(['b']), strs(['c']), strs(['a'])]), [true]);
  const t = ts(['2024-01-15T00:00:00Z']);
  assert.deepEqual(call('between', [t, strs(['2024-01-01']), strs(['2024-02-01'])]), [true]);
});

test('in_list matches any list value, NULL matching NULL', () => {
  assert.deepEqual(call('in_list', [longs([1, 2, 3, null]), longs([1, 1, 1, 1]), longs([3, 3, 3, 3])]), [
    true,
    false,
    true,
    false,
  ]);
  assert.deepEqual(call('in_list', [longs([null]), longs([null])]), [true]);
  const s = syms(['a', 'b', 'c', null]);
  const rep = (v: string | null): ColumnVector => strs([v, v, v, v]);
  assert.deepEqual(call('in_list', [s, rep('a'), rep('c')]), [true, false, true, false]);
  assert.deepEqual(call('in_list', [s, rep(null)]), [false, false, false, true]);
  assert.deepEqual(call('in_list', [strs(['x', 'y']), strs(['y', 'y']), strs(['z', 'x'])]), [false, true]);
  assert.deepEqual(call('in_list', [strs(['x', 'y']), strs(['y', 'x'])]), [false, false]);
  assert.deepEqual(call('in_list', [bools([true, false]), bools([true, true])]), [true, false]);
  assert.deepEqual(call('in_list', [ints([5]), strs(['5'])]), [true]);
  assert.match(resolveError('in_list', ['INT', 'BOOLEAN']), /no matching function `in`/);
});

test('handles empty batches', () => {
  for (const op of OPS) assert.deepEqual(call(op, [ints([]), doubles([])], undefined, 0), []);
  assert.deepEqual(call('=', [syms([]), strs([])], undefined, 0), []);
  assert.deepEqual(call('between', [ints([]), ints([]), ints([])], undefined, 0), []);
  assert.deepEqual(call('in_list', [syms([]), strs([])], undefined, 0), []);
});

test('compares IPv4 addresses unsigned, 0.0.0.0 being NULL', () => {
  const ip = (xs: number[]): ColumnVector => ({ kind: 'fixed', type: 'IPV4', data: Int32Array.from(xs) });
  assert.deepEqual(call('<', [ip([0x0a000001, 0xc0a80001 | 0]), ip([0xc0a80001 | 0, 0x0a000001])]), [true, false]);
  assert.deepEqual(call('=', [ip([0, 5]), ip([0, 5])]), [true, true]);
  assert.deepEqual(call('=', [ip([0x01020304]), strs(['1.2.3.4'])]), [true]);
});

test('recomputes a cached symbol table when the dictionary grows or the constant changes', () => {
  const fn = REGISTRY.resolveScalar('=', ['SYMBOL', 'STRING'], 0);
  const dict = ['a', 'b'];
  const v = (keys: number[]): ColumnVector => ({ kind: 'symbol', type: 'SYMBOL', keys: Int32Array.from(keys), dict });
  const c = (s: string, n: number): ColumnVector => strs(new Array(n).fill(s));
  assert.deepEqual(values(fn.kernel([v([0, 1]), c('b', 2)], 2, KX)), [false, true]);
  dict.push('c');
  assert.deepEqual(values(fn.kernel([v([2, 1, 0]), c('c', 3)], 3, KX)), [true, false, false]);
  assert.deepEqual(values(fn.kernel([v([2, 1, 0]), c('a', 3)], 3, KX)), [false, false, true]);
  const like = REGISTRY.resolveScalar('like', ['SYMBOL', 'STRING'], 0);
  assert.deepEqual(values(like.kernel([v([0, 2]), c('%', 2)], 2, KX)), [true, true]);
  assert.deepEqual(values(like.kernel([v([0, 2]), c('c', 2)], 2, KX)), [false, true]);
});
