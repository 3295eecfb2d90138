// Arithmetic operators through the registry: result types (QuestDB widening),
// NULL propagation, overflow, division by zero and timestamp arithmetic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bytes,
  call,
  doubles,
  floats,
  ints,
  longs,
  nullArg,
  resolveError,
  resultType,
  run,
  shorts,
  ts,
  values,
} from './helpers.js';
import { formatTimestamp } from '../../lib/core/datetime.js';

test('widens like QuestDB: small integers to INT, then LONG, FLOAT, DOUBLE', () => {
  assert.equal(resultType('+', ['INT', 'INT']), 'INT');
  assert.equal(resultType('+', ['BYTE', 'SHORT']), 'INT');
  assert.equal(resultType('*', ['INT', 'LONG']), 'LONG');
  assert.equal(resultType('-', ['LONG', 'FLOAT']), 'FLOAT');
  assert.equal(resultType('/', ['FLOAT', 'DOUBLE']), 'DOUBLE');
  assert.equal(resultType('%', ['INT', 'NULL']), 'INT');
  assert.equal(resultType('+', ['NULL', 'NULL']), 'DOUBLE');
  assert.equal(resultType('neg', ['SHORT']), 'INT');
  assert.equal(resultType('neg', ['LONG']), 'LONG');
});

test('adds, subtracts, multiplies, divides and takes remainders of INT', () => {
  const a = ints([7, -7, 7, 0, 100]),
    b = ints([2, 2, -2, 5, 7]);
  assert.deepEqual(call('+', [a, b]), [9, -5, 5, 5, 107]);
  assert.deepEqual(call('-', [a, b]), [5, -9, 9, -5, 93]);
  assert.deepEqual(call('*', [a, b]), [14, -14, -14, 0, 700]);
  // Integer division truncates toward zero (QuestDB: 7 / 2 = 3).
  assert.deepEqual(call('/', [a, b]), [3, -3, -3, 0, 14]);
  assert.deepEqual(call('%', [a, b]), [1, -1, 1, 0, 2]);
});

test('wraps INT overflow like Java int; a wrap to -2^31 reads as NULL', () => {
  assert.deepEqual(call('+', [ints([2147483647, 2147483646]), ints([2, 1])]), [-2147483647, 2147483647]);
  assert.deepEqual(call('*', [ints([65536, 100000]), ints([65536, 100000])]), [0, 1410065408]);
  assert.deepEqual(call('-', [ints([-2147483647]), ints([1])]), [null]);
  assert.deepEqual(call('neg', [ints([5, -2147483647, null])]), [-5, 2147483647, null]);
});

test('gives NULL when either side is NULL, for every type', () => {
  assert.deepEqual(call('+', [ints([1, null]), ints([null, 2])]), [null, null]);
  assert.deepEqual(call('*', [longs([1, null]), longs([null, 2])]), [null, null]);
  assert.deepEqual(call('-', [doubles([1, null]), doubles([null, 2])]), [null, null]);
  assert.deepEqual(call('/', [floats([1, null]), floats([null, 2])]), [null, null]);
  assert.deepEqual(call('+', [ints([1, 2]), nullArg(2)], ['INT', 'NULL']), [null, null]);
  assert.deepEqual(call('+', [nullArg(1), nullArg(1)], ['NULL', 'NULL']), [null]);
});

test('divides and takes remainders by zero as NULL, integers and floats alike', () => {
  assert.deepEqual(call('/', [ints([1, 0]), ints([0, 0])]), [null, null]);
  assert.deepEqual(call('%', [ints([1]), ints([0])]), [null]);
  assert.deepEqual(call('/', [longs([10]), longs([0])]), [null]);
  assert.deepEqual(call('/', [doubles([1, -1, 0]), doubles([0, 0, 0])]), [null, null, null]);
  assert.deepEqual(call('%', [doubles([5.5]), doubles([0])]), [null]);
});

test('computes LONG beyond the INT range exactly below 2^53', () => {
  assert.deepEqual(call('*', [longs([4294967296, 3037000499]), longs([1000, 3])]), [4294967296000, 9111001497]);
  assert.deepEqual(call('+', [longs([9007199254740000]), ints([991])], ['LONG', 'INT']), [9007199254740991]);
  assert.deepEqual(call('/', [longs([-9007199254740991]), longs([2])]), [-4503599627370495]);
  assert.deepEqual(call('%', [longs([-7]), longs([3])]), [-1]);
  // Past 2^63 the value wraps like Java long (with double precision).
  const wrapped = values(run('*', [longs([2 ** 62]), longs([4])]))[0] as number;
  assert.ok(Math.abs(wrapped) < 2 ** 63);
});

test('keeps FLOAT results in float precision and DOUBLE in double', () => {
  const f = call('+', [floats([0.1]), floats([0.2])]);
  assert.equal(f[0], Math.fround(Math.fround(0.1) + Math.fround(0.2)));
  assert.deepEqual(call('+', [doubles([0.1]), doubles([0.2])]), [0.30000000000000004]);
  assert.deepEqual(call('*', [doubles([-0]), doubles([1])]), [-0]);
  assert.deepEqual(call('-', [doubles([1e308]), doubles([-1e308])]), [Infinity]);
  assert.deepEqual(call('neg', [doubles([0, 1.5, null])]), [-0, -1.5, null]);
});

test('mixes small and large integer types, reading BYTE and SHORT as numbers', () => {
  assert.deepEqual(call('+', [bytes([127, -128]), bytes([1, -1])]), [128, -129]);
  assert.deepEqual(call('*', [shorts([300]), ints([300])]), [90000]);
  assert.deepEqual(call('-', [ints([5]), doubles([0.5])]), [4.5]);
  assert.deepEqual(call('+', [bytes([1]), longs([2 ** 40])]), [2 ** 40 + 1]);
});

test("adds micros to TIMESTAMP and subtracts timestamps into a TIMESTAMP of the difference (QuestDB's -(TIMESTAMP, LONG))", () => {
  const t = ts(['2024-01-01T00:00:00Z', null]);
  const plus = run('+', [t, ints([1_000_000, 5])]);
  assert.equal(plus.type, 'TIMESTAMP');
  assert.deepEqual(
    values(plus).map((x) => (x === null ? null : formatTimestamp(x as number))),
    ['2024-01-01T00:00:01.000000Z', null],
  );
  assert.equal(resultType('+', ['LONG', 'TIMESTAMP']), 'TIMESTAMP');
  assert.equal(resultType('-', ['TIMESTAMP', 'INT']), 'TIMESTAMP');
  assert.equal(resultType('-', ['TIMESTAMP', 'TIMESTAMP']), 'TIMESTAMP');
  assert.equal(resultType('-', ['TIMESTAMP', 'DATE']), 'TIMESTAMP');
  assert.equal(resultType('-', ['DATE', 'DATE']), 'TIMESTAMP');
  assert.equal(resultType('+', ['TIMESTAMP', 'DOUBLE']), 'DOUBLE');
  assert.equal(resultType('+', ['DATE', 'INT']), 'DATE');
  const d = call('-', [ts(['2024-01-02T00:00:00Z']), ts(['2024-01-01T00:00:00Z'])]);
  assert.deepEqual(d, [86_400_000_000]);
  // A DATE meets a TIMESTAMP in micros.
  const mixed = call('-', [ts(['2024-01-01T00:00:01Z']), longs([Date.parse('2024-01-01T00:00:00Z')], 'DATE')]);
  assert.deepEqual(mixed, [1_000_000]);
});

test('handles empty batches', () => {
  assert.deepEqual(call('+', [ints([]), ints([])], undefined, 0), []);
  assert.deepEqual(call('/', [doubles([]), longs([])], undefined, 0), []);
  assert.deepEqual(call('neg', [longs([])], undefined, 0), []);
});

test('rejects operands that are not numbers with QuestDB messages', () => {
  assert.equal(
    resolveError('+', ['STRING', 'INT']),
    'there is no matching operator `+` with the argument types: STRING + INT',
  );
  assert.equal(
    resolveError('*', ['TIMESTAMP', 'INT']),
    'there is no matching operator `*` with the argument types: TIMESTAMP * INT',
  );
  assert.equal(
    resolveError('-', ['INT', 'TIMESTAMP']),
    'there is no matching operator `-` with the argument types: INT - TIMESTAMP',
  );
  assert.equal(resolveError('neg', ['STRING']), 'there is no matching operator `-` with the argument type: STRING');
  assert.equal(
    resolveError('+', ['BOOLEAN', 'BOOLEAN']),
    'there is no matching operator `+` with the argument types: BOOLEAN + BOOLEAN',
  );
});
