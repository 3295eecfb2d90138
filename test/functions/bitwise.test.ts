// Bitwise operators & | ^ and bitnot (unary ~) on INT, LONG and IPv4, NULL in -> NULL out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bytes, call, ints, longs, resolveError, resultType, shorts } from './helpers.js';

test('& | ^ on INT: the documentation examples, NULL in -> NULL out', () => {
  assert.deepEqual(call('&', [ints([5, 12, null]), ints([3, 10, 1])]), [1, 8, null]);
  assert.deepEqual(call('|', [ints([5, 12, 1]), ints([3, 10, null])]), [7, 14, null]);
  assert.deepEqual(call('^', [ints([5, 1, -1]), ints([3, 20, 0])]), [6, 21, -1]);
  assert.equal(resultType('&', ['BYTE', 'SHORT']), 'INT');
  assert.deepEqual(call('|', [bytes([1]), shorts([2])]), [3]);
});

test('& | ^ on LONG, past 32 bits too', () => {
  assert.equal(resultType('&', ['INT', 'LONG']), 'LONG');
  assert.deepEqual(call('&', [longs([2 ** 40 + 5, null]), longs([2 ** 40 + 3, 1])]), [2 ** 40 + 1, null]);
  assert.deepEqual(call('|', [longs([2 ** 33]), longs([-1])]), [-1]);
  assert.deepEqual(call('^', [longs([2 ** 35]), longs([2 ** 35 + 6])]), [6]);
});

test('bitnot is ~: INT and LONG, NULL stays NULL', () => {
  assert.deepEqual(call('bitnot', [ints([1024, 0, null])]), [-1025, -1, null]);
  assert.deepEqual(call('bitnot', [longs([2 ** 40, null])]), [-(2 ** 40) - 1, null]);
});

test('IPv4 & | ~, and the messages for types without the operators', () => {
  assert.equal(resultType('&', ['IPV4', 'IPV4']), 'IPV4');
  assert.equal(resultType('|', ['IPV4', 'STRING']), 'IPV4');
  assert.equal(resultType('bitnot', ['IPV4']), 'IPV4');
  assert.match(resolveError('^', ['IPV4', 'IPV4']), /no matching operator `\^` with the argument types: IPv4 \^ IPv4/);
  assert.match(resolveError('bitnot', ['DOUBLE']), /no matching operator `~` with the argument type: DOUBLE/);
  assert.match(resolveError('&', ['DOUBLE', 'INT']), /no matching operator `&`/);
});
