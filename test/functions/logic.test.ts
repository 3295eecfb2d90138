// Boolean logic and NULL handling: and/or/not, is_null for every type, case,
// coalesce and nullif.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bools,
  bytes,
  call,
  chars,
  doubles,
  floats,
  ints,
  longs,
  nullArg,
  resolveError,
  resultType,
  run,
  shorts,
  strs,
  syms,
  ts,
} from './helpers.js';
import { nullVector, type ColumnVector } from '../../lib/core/column-vector.js';

test('and, or and not work row by row', () => {
  const a = bools([true, true, false, false]),
    b = bools([true, false, true, false]);
  assert.deepEqual(call('and', [a, b]), [true, false, false, false]);
  assert.deepEqual(call('or', [a, b]), [true, true, true, false]);
  assert.deepEqual(call('not', [a]), [false, false, true, true]);
  assert.deepEqual(call('and', [a, nullArg(4)], ['BOOLEAN', 'NULL']), [false, false, false, false]);
  assert.deepEqual(call('not', [bools([])], undefined, 0), []);
  assert.equal(
    resolveError('and', ['INT', 'BOOLEAN']),
    'there is no matching operator `and` with the argument types: INT and BOOLEAN',
  );
});

test("is_null and is_not_null know every type's NULL", () => {
  const cases: Array<[ColumnVector, boolean[]]> = [
    [ints([1, null]), [false, true]],
    [longs([1, null]), [false, true]],
    [ts(['2024-01-01', null]), [false, true]],
    [longs([0, null], 'DATE'), [false, true]],
    [doubles([0, null]), [false, true]],
    [floats([NaN, 1]), [true, false]],
    [chars(['a', null]), [false, true]],
    [strs(['', null]), [false, true]],
    [strs([null, 'x'], 'VARCHAR'), [true, false]],
    [syms([null, 'x']), [true, false]],
    [bools([false, true]), [false, false]],
    [bytes([0, 1]), [false, false]],
    [shorts([0, 1]), [false, false]],
    [nullVector('UUID', 2), [true, true]],
    [nullVector('IPV4', 1), [true]],
    [nullArg(2), [true, true]],
  ];
  for (const [v, want] of cases) {
    const type = v === cases[cases.length - 1]![0] ? 'NULL' : v.type;
    assert.deepEqual(call('is_null', [v], [type]), want, `${type}`);
    assert.deepEqual(
      call('is_not_null', [v], [type]),
      want.map((x) => !x),
      `${type}`,
    );
  }
});

test('case picks the first true condition, else the last argument', () => {
  const c1 = bools([true, false, false, true]),
    c2 = bools([true, true, false, false]);
  assert.deepEqual(
    call('case', [c1, strs(['a', 'a', 'a', 'a']), c2, strs(['b', 'b', 'b', 'b']), strs(['z', 'z', null, 'z'])]),
    ['a', 'b', null, 'a'],
  );
  assert.deepEqual(call('case', [c1, ints([1, 2, 3, 4]), doubles([0.5, 0.5, 0.5, 0.5])]), [1, 0.5, 0.5, 4]);
  assert.equal(resultType('case', ['BOOLEAN', 'INT', 'DOUBLE']), 'DOUBLE');
  assert.equal(resultType('case', ['BOOLEAN', 'STRING', 'NULL']), 'STRING');
  assert.deepEqual(call('case', [c1, syms(['x', 'y', 'x', 'y']), syms(['p', 'q', null, 'x'])]), ['x', 'q', null, 'y']);
  assert.deepEqual(call('case', [nullArg(2), ints([1, 1]), ints([2, 2])], ['NULL', 'INT', 'INT']), [2, 2]);
  const big = run('case', [bools([true]), longs([2 ** 60]), longs([1])]);
  assert.deepEqual(big.kind === 'fixed' ? Array.from(big.data) : [], [2 ** 60]);
  assert.deepEqual(call('case', [bools([]), ints([]), ints([])], undefined, 0), []);
});

test('case rejects non-boolean conditions and values that do not mix', () => {
  assert.match(resolveError('case', ['INT', 'INT', 'INT']), /condition must be BOOLEAN/);
  assert.match(resolveError('case', ['BOOLEAN', 'INT', 'BOOLEAN']), /inconvertible types/);
  assert.match(resolveError('case', ['BOOLEAN', 'INT']), /no matching function `case`/);
});

test('coalesce returns the first non-NULL argument in their common type', () => {
  assert.deepEqual(call('coalesce', [ints([1, null, null]), ints([2, 2, null]), ints([3, 3, 3])]), [1, 2, 3]);
  assert.deepEqual(call('coalesce', [longs([null, 5]), ints([0, 0])]), [0, 5]);
  assert.equal(resultType('coalesce', ['INT', 'DOUBLE']), 'DOUBLE');
  assert.deepEqual(call('coalesce', [strs([null, 'a'], 'VARCHAR'), strs(['d', 'd'], 'VARCHAR')]), ['d', 'a']);
  assert.deepEqual(call('coalesce', [syms([null, 'x']), syms(['y', 'z'])]), ['y', 'x']);
  assert.deepEqual(call('coalesce', [doubles([null]), nullArg(1)], ['DOUBLE', 'NULL']), [null]);
  assert.deepEqual(call('coalesce', [strs([null, 'é']), strs(['ü', 'x'])]), ['ü', 'é']);
  assert.match(resolveError('coalesce', ['INT', 'STRING']), /inconvertible/);
});

test('nullif gives NULL where the arguments are equal, else the first', () => {
  assert.deepEqual(call('nullif', [ints([0, 11, 3, null]), ints([0, 0, 0, 0])]), [null, 11, 3, null]);
  assert.deepEqual(call('nullif', [strs(['a', 'b']), strs(['a', 'a'])]), [null, 'b']);
  assert.deepEqual(call('nullif', [doubles([1.5, 2]), ints([1, 2])]), [1.5, null]);
  assert.deepEqual(call('nullif', [syms(['a', 'b']), strs(['b', 'b'])]), ['a', null]);
});
