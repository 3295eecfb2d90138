// cast_<TYPE> functions: numeric narrowing (bits truncated, floats truncated
// toward zero and saturated), text parsing (invalid -> NULL), printing like
// QuestDB, temporal units, symbols, NULL sources and unsupported casts.
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
  run,
  shorts,
  strs,
  syms,
  ts,
  values,
  REGISTRY,
} from './helpers.js';
import { formatLong } from '../../lib/core/number-format.js';
import { nullVector } from '../../lib/core/column-vector.js';

const cast = (to: string, v: Parameters<typeof call>[1][number], from?: string): unknown[] =>
  call(`cast_${to}`, [v], from ? [from as never] : undefined);

test('narrows integers by truncating bits, as QuestDB documents', () => {
  assert.deepEqual(cast('SHORT', ints([7234623])), [25663]);
  assert.deepEqual(cast('SHORT', doubles([2334444.323])), [-24852]);
  assert.deepEqual(cast('BYTE', ints([300, -129])), [44, 127]);
  assert.deepEqual(cast('INT', longs([2 ** 40 + 5, -1])), [5, -1]);
  assert.deepEqual(cast('INT', ints([null])), [null]);
  assert.deepEqual(cast('SHORT', ints([null])), [0]);
  const big = run('cast_LONG', [strs(['9007199254740993'])]);
  assert.deepEqual(cast('INT', big, 'LONG'), [1]);
});

test('truncates floating values toward zero and saturates like Java', () => {
  assert.deepEqual(cast('INT', doubles([5.5, -5.9, 1e10, -1e10, null])), [5, -5, 2147483647, null, null]);
  assert.deepEqual(cast('LONG', doubles([3.99, -3.99, null])), [3, -3, null]);
  assert.deepEqual(cast('LONG', doubles([1e30])), [9223372036854774784]); // the largest double below 2^63
  assert.deepEqual(cast('INT', floats([2.5])), [2]);
  assert.deepEqual(cast('FLOAT', doubles([0.1])), [Math.fround(0.1)]);
  assert.deepEqual(cast('DOUBLE', floats([0.5, null])), [0.5, null]);
  assert.deepEqual(cast('DOUBLE', longs([2 ** 53, null])), [2 ** 53, null]);
});

test('converts between TIMESTAMP, DATE and LONG by their units', () => {
  const t = ts(['2024-01-01T00:00:00.123456Z', null]);
  const ms = Date.parse('2024-01-01T00:00:00.123Z');
  assert.deepEqual(cast('DATE', t), [ms, null]);
  assert.deepEqual(cast('TIMESTAMP', longs([ms, null], 'DATE')), [ms * 1000, null]);
  assert.deepEqual(cast('LONG', t), [ms * 1000 + 456, null]);
  assert.deepEqual(cast('TIMESTAMP', longs([1578506142000000])), [1578506142000000]);
  assert.deepEqual(cast('TIMESTAMP', ints([5])), [5]);
  assert.deepEqual(cast('DATE', ts(['1969-12-31T23:59:59.999999Z'])), [-1]);
});

test('parses text into numbers, giving NULL for invalid text', () => {
  assert.deepEqual(cast('INT', strs(['42', '-7', ' 42', '1.5', '', null, '2147483648', '+3'])), [
    42,
    -7,
    null,
    null,
    null,
    null,
    null,
    3,
  ]);
  assert.deepEqual(cast('DOUBLE', strs(['1.5', '1e3', '.5', '-2.5E-3', 'NaN', 'abc', '1.0d'])), [
    1.5,
    1000,
    0.5,
    -0.0025,
    null,
    null,
    1,
  ]);
  assert.deepEqual(cast('FLOAT', strs(['0.1'])), [Math.fround(0.1)]);
  assert.deepEqual(cast('SHORT', strs(['70000'])), [4464]);
  assert.deepEqual(cast('LONG', strs(['123L', '9223372036854775808', '-9223372036854775808'])), [123, null, null]);
  assert.deepEqual(call('cast_STRING', [run('cast_LONG', [strs(['-9223372036854775807'])])]), ['-9223372036854775807']);
  assert.deepEqual(cast('INT', syms(['1', 'x', null, '1'])), [1, null, null, 1]);
});

test('keeps every digit of LONG text past 2^53', () => {
  const v = run('cast_LONG', [strs(['9007199254740993', '5', null])]);
  assert.ok(v.kind === 'fixed' && v.exact);
  const exact = (v as { exact: Int32Array }).exact;
  assert.equal(formatLong((v as { data: Float64Array }).data[0]!, exact, 0), '9007199254740993');
  assert.deepEqual(call('cast_STRING', [v]), ['9007199254740993', '5', null]);
});

test('parses text into timestamps, dates, booleans, chars and IPv4', () => {
  assert.deepEqual(cast('TIMESTAMP', strs(['2024-01-01', '1578506142000000', 'nope', null])), [
    Date.parse('2024-01-01') * 1000,
    1578506142000000,
    null,
    null,
  ]);
  assert.deepEqual(cast('DATE', strs(['2024-01-01T00:00:00.123999Z'])), [Date.parse('2024-01-01T00:00:00.123Z')]);
  assert.deepEqual(cast('BOOLEAN', strs(['true', 'TRUE', 'false', 'yes', null])), [true, true, false, false, false]);
  assert.deepEqual(cast('CHAR', strs(['abc', '', null, '行'])), ['a', null, null, '行']);
  assert.deepEqual(cast('IPV4', strs(['1.2.3.4', '256.0.0.1', null])), [0x01020304, null, null]);
});

test('prints every type as text the way QuestDB shows it', () => {
  assert.deepEqual(cast('STRING', doubles([1, 1e-7, null, -0])), ['1.0', '1.0E-7', null, '-0.0']);
  assert.deepEqual(cast('STRING', floats([0.1])), ['0.1']);
  assert.deepEqual(cast('VARCHAR', ints([-5, null])), ['-5', null]);
  assert.deepEqual(cast('STRING', bools([true, false])), ['true', 'false']);
  assert.deepEqual(cast('STRING', ts(['2024-01-01T00:00:00Z', null])), ['2024-01-01T00:00:00.000000Z', null]);
  assert.deepEqual(cast('STRING', longs([Date.parse('2024-01-01T00:00:00.5Z')], 'DATE')), ['2024-01-01T00:00:00.500Z']);
  assert.deepEqual(cast('STRING', chars(['x', null])), ['x', null]);
  assert.deepEqual(cast('STRING', syms(['a', null])), ['a', null]);
  assert.deepEqual(cast('VARCHAR', strs(['é', null])), ['é', null]);
  assert.deepEqual(cast('STRING', shorts([-3])), ['-3']);
  assert.deepEqual(call('cast_STRING', [{ kind: 'fixed', type: 'IPV4', data: Int32Array.of(0x0a000001, 0) }]), [
    '10.0.0.1',
    null,
  ]);
});

test('round-trips UUID text through the UUID type', () => {
  const u = run('cast_UUID', [strs(['123e4567-e89b-12d3-a456-426614174000', 'bad', null])]);
  assert.deepEqual(call('cast_STRING', [u]), ['123e4567-e89b-12d3-a456-426614174000', null, null]);
  assert.deepEqual(call('is_null', [u]), [false, true, true]);
});

test('casts to SYMBOL with one growing dictionary per call site', () => {
  const fn = REGISTRY.resolveScalar('cast_SYMBOL', ['STRING'], 0);
  const a = fn.kernel([strs(['x', 'y', null])], 3, KX);
  const b = fn.kernel([strs(['y', 'z'])], 2, KX);
  assert.deepEqual(values(a), ['x', 'y', null]);
  assert.deepEqual(values(b), ['y', 'z']);
  assert.ok(a.kind === 'symbol' && b.kind === 'symbol' && a.dict === b.dict);
  assert.deepEqual(Array.from((b as { keys: Int32Array }).keys), [1, 2]);
  assert.deepEqual(cast('SYMBOL', ints([7, null])), ['7', null]);
});

test('converts between BOOLEAN, CHAR and numbers', () => {
  assert.deepEqual(cast('INT', bools([true, false])), [1, 0]);
  assert.deepEqual(cast('BOOLEAN', ints([0, 5, null])), [false, true, false]);
  assert.deepEqual(cast('BOOLEAN', doubles([0.5, null])), [true, false]);
  assert.deepEqual(cast('INT', chars(['行', 'A', null])), [34892, 65, null]);
  assert.deepEqual(cast('CHAR', ints([65, 0x10041])), ['A', 'A']);
});

test('casts NULL to a NULL of any type and a type to itself unchanged', () => {
  for (const to of ['INT', 'LONG', 'DOUBLE', 'STRING', 'SYMBOL', 'TIMESTAMP', 'BOOLEAN', 'UUID', 'VARCHAR', 'CHAR']) {
    const r = run(`cast_${to}`, [nullArg(2)], ['NULL']);
    assert.equal(r.type, to);
    assert.deepEqual(call('is_null', [r]), to === 'BOOLEAN' ? [false, false] : [true, true], to);
  }
  const v = ints([1]);
  assert.equal(run('cast_INT', [v]), v);
  assert.deepEqual(call('cast_BINARY', [nullVector('BINARY', 1)], ['BINARY']), [null]);
});

test('rejects casts QuestDB cannot do', () => {
  assert.equal(
    resolveError('cast_UUID', ['INT']),
    'there is no matching function `cast` with the argument types: (INT, UUID)',
  );
  assert.equal(
    resolveError('cast_INT', ['UUID']),
    'there is no matching function `cast` with the argument types: (UUID, INT)',
  );
  assert.equal(
    resolveError('cast_STRING', ['BINARY']),
    'there is no matching function `cast` with the argument types: (BINARY, STRING)',
  );
  assert.equal(
    resolveError('cast_LONG256', ['DOUBLE']),
    'there is no matching function `cast` with the argument types: (DOUBLE, LONG256)',
  ); // text is read as hex (0x...), as QuestDB does
  assert.match(resolveError('cast_INT', ['INT', 'INT']), /no matching function `cast`/);
});

test('casts empty batches', () => {
  for (const [to, v] of [
    ['INT', strs([])],
    ['STRING', doubles([])],
    ['SYMBOL', ints([])],
    ['TIMESTAMP', strs([])],
    ['SHORT', doubles([])],
  ] as const) {
    assert.deepEqual(call(`cast_${to}`, [v], undefined, 0), [], to);
  }
});

test('TIMESTAMP_NS: text keeps nine fraction digits exactly; TIMESTAMP and DATE floor, LONG is the nanoseconds', () => {
  const ns = run('cast_TIMESTAMP_NS', [
    strs(['2024-01-02T03:04:05.123456789Z', '1969-12-31T23:59:59.999999999Z', '2024-01-02T03:04:05.1Z', 'x', null]),
  ]);
  assert.equal(ns.type, 'TIMESTAMP_NS');
  assert.deepEqual(call('cast_STRING', [ns], ['TIMESTAMP_NS']), [
    '2024-01-02T03:04:05.123456789Z',
    '1969-12-31T23:59:59.999999999Z',
    '2024-01-02T03:04:05.100000000Z',
    null,
    null,
  ]);
  const asLong = run('cast_LONG', [ns], ['TIMESTAMP_NS']);
  assert.deepEqual(
    [0, 1, 2].map((i) =>
      formatLong((asLong as { data: Float64Array }).data[i]!, (asLong as { exact?: Int32Array }).exact, i),
    ),
    ['1704164645123456789', '-1', '1704164645100000000'],
  );
  const us = Date.parse('2024-01-02T03:04:05.123Z') * 1000 + 456;
  assert.deepEqual(cast('TIMESTAMP', ns, 'TIMESTAMP_NS'), [us, -1, us - 23456, null, null]);
  assert.deepEqual(cast('DATE', ns, 'TIMESTAMP_NS'), [
    Math.floor(us / 1000),
    -1,
    Math.floor(us / 1000) - 23,
    null,
    null,
  ]);
  // Back from TIMESTAMP and DATE: scaled exactly.
  assert.deepEqual(
    call(
      'cast_STRING',
      [run('cast_TIMESTAMP_NS', [ts(['2024-01-02T03:04:05.123456Z', null])], ['TIMESTAMP'])],
      ['TIMESTAMP_NS'],
    ),
    ['2024-01-02T03:04:05.123456000Z', null],
  );
  assert.deepEqual(call('cast_STRING', [run('cast_TIMESTAMP_NS', [longs([-1], 'DATE')], ['DATE'])], ['TIMESTAMP_NS']), [
    '1969-12-31T23:59:59.999000000Z',
  ]);
});

test('casts to parametric types resolve by their canonical names (cast_decimal(10,2), cast_geohash(4c))', () => {
  assert.equal(REGISTRY.resolveScalar('cast_DECIMAL(10,2)', ['NULL'], 0).type, 'DECIMAL(10,2)');
  assert.equal(REGISTRY.resolveScalar('cast_GEOHASH(4c)', ['NULL'], 0).type, 'GEOHASH(4c)');
  assert.equal(REGISTRY.resolveScalar('cast_TIMESTAMP_NS', ['NULL'], 0).type, 'TIMESTAMP_NS');
  assert.throws(() => REGISTRY.resolveScalar('cast_GEOHASH(99c)', ['NULL'], 0), /unknown function name/);
});
