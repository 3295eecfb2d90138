// Aggregates over group ids and batches: counts, sums (types and NULLs),
// averages, compensated sums, variance, min/max on numbers and text,
// first/last, DISTINCT, growth to many groups, empty input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  aggregate,
  bools,
  call,
  chars,
  doubles,
  floats,
  ints,
  longs,
  nullArg,
  run,
  shorts,
  strs,
  syms,
  ts,
  type V,
  REGISTRY,
} from './helpers.js';
import { int64ToF64, type ColumnVector, type FixedVector } from '../../lib/core/column-vector.js';
import type { SqlType } from '../../lib/core/sql-type.js';

/** One batch, one group per row given in `ids`. */
const one = (name: string, type: SqlType, v: ColumnVector, ids: number[], groups: number, distinct = false): V[] =>
  aggregate(name, [type], [[ids, [v]]], groups, distinct);

test('count() counts rows and count(x) non-NULL values per group', () => {
  assert.deepEqual(aggregate('count', [], [[[0, 1, 0, 0], []]], 2), [3, 1]);
  assert.deepEqual(one('count', 'INT', ints([1, null, 3, null]), [0, 0, 1, 1], 2), [1, 1]);
  assert.deepEqual(one('count', 'STRING', strs(['a', null]), [0, 0], 1), [1]);
  assert.deepEqual(one('count', 'SYMBOL', syms([null, 'x']), [0, 1], 3), [0, 1, 0]);
  assert.deepEqual(one('count', 'BOOLEAN', bools([false]), [0], 1), [1]);
  assert.equal(REGISTRY.resolveAggregate('count', [], false, 0).type, 'LONG');
});

test('sum keeps integers in LONG and floating values in DOUBLE; all-NULL groups give NULL', () => {
  assert.equal(REGISTRY.resolveAggregate('sum', ['INT'], false, 0).type, 'LONG');
  assert.equal(REGISTRY.resolveAggregate('sum', ['SHORT'], false, 0).type, 'LONG');
  assert.equal(REGISTRY.resolveAggregate('sum', ['FLOAT'], false, 0).type, 'DOUBLE');
  assert.deepEqual(one('sum', 'INT', ints([2147483647, 2147483647, null, 5]), [0, 0, 1, 2], 3), [4294967294, null, 5]);
  assert.deepEqual(one('sum', 'DOUBLE', doubles([1.5, 2.5, null]), [0, 0, 1], 2), [4, null]);
  assert.deepEqual(one('sum', 'SHORT', shorts([30000, 30000]), [0, 0], 1), [60000]);
  assert.deepEqual(one('sum', 'FLOAT', floats([0.5, 0.25]), [0, 0], 1), [0.75]);
  assert.deepEqual(one('sum', 'NULL', nullArg(2), [0, 0], 1), [null]);
});

/** A LONG vector holding exact int64 values (as read from a column file). */
function exactLongs(xs: readonly (bigint | null)[]): ColumnVector {
  const raw = BigInt64Array.from(xs, (x) => (x === null ? -(2n ** 63n) : x));
  const exact = new Int32Array(raw.buffer);
  return { kind: 'fixed', type: 'LONG', data: int64ToF64(exact), exact };
}

/** Each value of a LONG result as an exact BigInt (null for NULL). */
function exactValues(v: ColumnVector): (bigint | null)[] {
  const f = v as FixedVector;
  const out: (bigint | null)[] = [];
  for (let i = 0; i < f.data.length; i++) {
    const r = f.exact
      ? BigInt.asIntN(64, (BigInt(f.exact[2 * i + 1]!) << 32n) | BigInt(f.exact[2 * i]! >>> 0))
      : BigInt(f.data[i]!);
    out.push(r === -(2n ** 63n) ? null : r);
  }
  return out;
}

test("sum of LONG is an exact int64 that wraps on overflow as QuestDB's (Java long) does, grouped or not", () => {
  const sum = (batches: ReadonlyArray<readonly [number[], ColumnVector]>, groups: number): (bigint | null)[] => {
    const st = REGISTRY.resolveAggregate('sum', ['LONG'], false, 0).create();
    let seen = 0;
    for (const [ids, v] of batches) {
      for (const g of ids) seen = Math.max(seen, g + 1);
      st.update(Int32Array.from(ids), [v], ids.length, seen);
    }
    return exactValues(st.result(groups));
  };
  const max = 9223372036854775807n;
  // Past 2^53 the sum is exact: MAX + NULL + -5 is MAX - 5 (a double would say 2^63).
  assert.deepEqual(sum([[[0, 0, 0], exactLongs([max, null, -5n])]], 1), [max - 5n]);
  // Overflow wraps: MAX + 1 is MIN + 0 ... which reads as NULL; MAX + 2 is MIN + 1.
  assert.deepEqual(sum([[[0, 0], exactLongs([max, 2n])]], 1), [-max]);
  assert.deepEqual(sum([[[0, 0, 1, 1], exactLongs([max, 10n, 2n ** 60n + 1n, 3n])]], 2), [-max + 8n, 2n ** 60n + 4n]);
  // Across batches: a group starts on doubles and goes on exactly once it passes 2^53.
  assert.deepEqual(
    sum(
      [
        [[0, 1], exactLongs([2n ** 52n, 1n])],
        [[0, 0, 1], exactLongs([2n ** 52n, 3n, 2n])],
      ],
      2,
    ),
    [2n ** 53n + 3n, 3n],
  );
  // Small sums stay on the fast path and the usual NULL rules hold.
  assert.deepEqual(sum([[[0, 0, 1], exactLongs([1n, 2n, null])]], 2), [3n, null]);
});

test('avg, ksum and nsum skip NULLs; compensated sums keep the small terms', () => {
  assert.deepEqual(one('avg', 'INT', ints([1, 2, null, 4]), [0, 0, 0, 1], 2), [1.5, 4]);
  assert.deepEqual(one('avg', 'DOUBLE', doubles([null]), [0], 1), [null]);
  const xs = [1e16, 1, 1, 1, 1, -1e16];
  // A plain sum loses small terms next to 1e16 (how many depends on the order of its partial sums).
  assert.notDeepEqual(
    one(
      'sum',
      'DOUBLE',
      doubles(xs),
      xs.map(() => 0),
      1,
    ),
    [4],
  );
  assert.deepEqual(one('ksum', 'DOUBLE', doubles([0.1, 0.2, 0.3]), [0, 0, 0], 1), [0.6]);
  assert.deepEqual(
    one(
      'nsum',
      'DOUBLE',
      doubles(xs),
      xs.map(() => 0),
      1,
    ),
    [4],
  );
  assert.deepEqual(one('nsum', 'INT', ints([null]), [0], 1), [null]);
});

test('variance and standard deviation by Welford, NULL with too few values', () => {
  const x = doubles(Array.from({ length: 100 }, (_, i) => i + 1));
  const ids = Array.from({ length: 100 }, () => 0);
  const close = (a: V, b: number): void => assert.ok(Math.abs((a as number) - b) < 1e-9, `${a} vs ${b}`);
  close(one('stddev_samp', 'DOUBLE', x, ids, 1)[0]!, 29.011491975882016);
  close(one('stddev', 'DOUBLE', x, ids, 1)[0]!, 29.011491975882016);
  close(one('stddev_pop', 'DOUBLE', x, ids, 1)[0]!, 28.86607004772212);
  close(one('var_samp', 'DOUBLE', x, ids, 1)[0]!, 841.6666666666666);
  close(one('variance', 'DOUBLE', x, ids, 1)[0]!, 841.6666666666666);
  close(one('var_pop', 'DOUBLE', x, ids, 1)[0]!, 833.25);
  assert.deepEqual(one('var_samp', 'INT', ints([5, null]), [0, 1], 2), [null, null]);
  assert.deepEqual(one('var_pop', 'INT', ints([5]), [0], 1), [0]);
});

test('min and max keep the argument type: numbers, timestamps, chars and text in code point order', () => {
  assert.deepEqual(one('min', 'INT', ints([5, null, -3, 7]), [0, 0, 0, 1], 3), [-3, 7, null]);
  assert.deepEqual(one('max', 'LONG', longs([2 ** 52, 1]), [0, 0], 1), [2 ** 52]);
  assert.deepEqual(one('max', 'DOUBLE', doubles([-0.5, null, -1]), [0, 0, 0], 1), [-0.5]);
  const t = one('max', 'TIMESTAMP', ts(['2024-01-01', '2024-06-01', null]), [0, 0, 0], 1);
  assert.deepEqual(t, [Date.parse('2024-06-01') * 1000]);
  assert.deepEqual(one('min', 'CHAR', chars(['b', 'a', null]), [0, 0, 0], 1), ['a']);
  assert.deepEqual(one('max', 'STRING', strs(['apple', 'pear', null, '\uFF5E', '\u{1F600}']), [0, 0, 0, 1, 1], 2), [
    'pear',
    '\u{1F600}',
  ]);
  assert.deepEqual(one('min', 'SYMBOL', syms(['b', 'a', null, 'c']), [0, 0, 1, 1], 2), ['a', 'c']);
  assert.deepEqual(one('min', 'VARCHAR', strs(['é', 'e'], 'VARCHAR'), [0, 0], 1), ['e']);
  assert.equal(REGISTRY.resolveAggregate('max', ['SYMBOL'], false, 0).type, 'SYMBOL');
  assert.equal(REGISTRY.resolveAggregate('min', ['SHORT'], false, 0).type, 'SHORT');
});

test('symbol min and max rank each dictionary and merge across batches with other dictionaries', () => {
  const batches: Array<[number[], ColumnVector[]]> = [
    [[0, 1, 0, 1, 2], [syms(['m', 'b', 'z', null, null])]],
    [[1, 0, 2], [syms(['a', 'é', null])]],
    [[0, 1], [syms(['\u{1F600}', 'c'])]],
  ];
  assert.deepEqual(aggregate('min', ['SYMBOL'], batches, 3), ['m', 'a', null]);
  assert.deepEqual(aggregate('max', ['SYMBOL'], batches, 3), ['\u{1F600}', 'c', null]);
});

test('first and last take the first or last row of each group, NULL included; *_not_null skip NULLs', () => {
  const v = ints([null, 2, 3, null]);
  const ids = [0, 0, 0, 0];
  assert.deepEqual(one('first', 'INT', v, ids, 1), [null]);
  assert.deepEqual(one('last', 'INT', v, ids, 1), [null]);
  assert.deepEqual(one('first_not_null', 'INT', v, ids, 1), [2]);
  assert.deepEqual(one('last_not_null', 'INT', v, ids, 1), [3]);
  const s = strs([null, 'arduino-02', 'arduino-03']);
  assert.deepEqual(one('first', 'STRING', s, [0, 0, 0], 1), [null]);
  assert.deepEqual(one('first_not_null', 'STRING', s, [0, 0, 0], 1), ['arduino-02']);
  assert.deepEqual(one('last', 'SYMBOL', syms(['a', 'b', 'c', null]), [0, 1, 0, 1], 2), ['c', null]);
  assert.deepEqual(one('last_not_null', 'SYMBOL', syms(['a', 'b', 'c', null]), [0, 1, 0, 1], 2), ['c', 'b']);
  assert.deepEqual(one('first', 'BOOLEAN', bools([true, false]), [0, 0], 1), [true]);
  // Across batches, later batches come later.
  assert.deepEqual(
    aggregate(
      'last',
      ['VARCHAR'],
      [
        [[0, 1], [strs(['a', 'b'], 'VARCHAR')]],
        [[0], [strs(['c'], 'VARCHAR')]],
      ],
      2,
    ),
    ['c', 'b'],
  );
  assert.deepEqual(
    aggregate(
      'first',
      ['DOUBLE'],
      [
        [[1], [doubles([1])]],
        [[0, 1], [doubles([2, 3])]],
      ],
      2,
    ),
    [2, 1],
  );
});

test('count_distinct and DISTINCT aggregates count each value once per group, NULL never', () => {
  assert.deepEqual(one('count_distinct', 'SYMBOL', syms(['a', 'b', 'a', null, 'b']), [0, 0, 0, 0, 1], 2), [2, 1]);
  assert.deepEqual(one('count_distinct', 'INT', ints([1, 1, 2, null]), [0, 0, 0, 0], 1), [2]);
  assert.deepEqual(one('count', 'DOUBLE', doubles([0, -0, 1.5, 1.5, null]), [0, 0, 0, 0, 0], 1, true), [2]);
  assert.deepEqual(one('count_distinct', 'VARCHAR', strs(['é', 'é', 'e'], 'VARCHAR'), [0, 0, 1], 2), [1, 1]);
  assert.deepEqual(one('sum', 'INT', ints([5, 5, 7]), [0, 0, 0], 1, true), [12]);
  // Values repeat across batches and dictionaries.
  assert.deepEqual(
    aggregate(
      'count_distinct',
      ['SYMBOL'],
      [
        [[0, 0], [syms(['x', 'y'])]],
        [[0, 1], [syms(['y', 'x'])]],
      ],
      2,
    ),
    [2, 1],
  );
  assert.deepEqual(aggregate('count_distinct', ['STRING'], [], 1), [0]);
  const uuids = run('cast_UUID', [
    strs([
      '123e4567-e89b-12d3-a456-426614174000',
      null,
      '123e4567-e89b-12d3-a456-426614174000',
      '00000000-0000-4000-8000-000000000001',
    ]),
  ]);
  assert.deepEqual(one('count_distinct', 'UUID', uuids, [0, 0, 0, 0], 1), [2]);
});

test('grows per-group state to many groups over many batches', () => {
  const groups = 5000;
  const batches: Array<[number[], ColumnVector[]]> = [];
  for (let b = 0; b < 4; b++) {
    const ids = Array.from({ length: groups }, (_, i) => (i * 7 + b) % groups);
    batches.push([ids, [longs(ids.map((g) => g))]]);
  }
  const sums = aggregate('sum', ['LONG'], batches, groups);
  assert.equal(sums.length, groups);
  assert.ok(sums.every((s, g) => s === 4 * g));
  const counts = aggregate(
    'count',
    [],
    batches.map(([ids]) => [ids, []]),
    groups,
  );
  assert.ok(counts.every((c) => c === 4));
  const mx = aggregate(
    'max',
    ['STRING'],
    batches.map(([ids]) => [ids, [strs(ids.map(String))]]),
    groups,
  );
  assert.ok(mx.every((s, g) => s === String(g)));
});

test('gives NULL (count 0) for groups without rows, and no rows for no groups', () => {
  assert.deepEqual(aggregate('count', [], [], 1), [0]);
  assert.deepEqual(aggregate('sum', ['DOUBLE'], [], 1), [null]);
  assert.deepEqual(aggregate('min', ['STRING'], [], 1), [null]);
  assert.deepEqual(aggregate('avg', ['INT'], [[[], [ints([])]]], 0), []);
  const st = REGISTRY.resolveAggregate('max', ['INT'], false, 0).create();
  assert.ok(st.bytes() >= 0);
});

test("string_agg joins each group's non-NULL values in row order by the delimiter; NULL for none", () => {
  const agg = (v: ColumnVector, ids: number[][], groups: number, type: SqlType = 'STRING'): V[] =>
    aggregate(
      'string_agg',
      [type, 'CHAR'],
      ids.map((b) => [b, [v, chars(Array(b.length).fill(','))]] as const),
      groups,
    );
  assert.deepEqual(agg(strs(['1', '2', null, '3']), [[0, 1, 0, 0]], 3), ['1,3', '2', null]);
  assert.deepEqual(agg(syms(['a', 'b', 'c']), [[1, 1, 1]], 2, 'SYMBOL'), [null, 'a,b,c']);
  // Across batches, the same group goes on where it stopped.
  assert.deepEqual(
    aggregate(
      'string_agg',
      ['STRING', 'STRING'],
      [
        [
          [0, 0],
          [strs(['x', 'y']), strs(['; ', '; '])],
        ],
        [[0], [strs(['z']), strs(['; '])]],
      ],
      1,
    ),
    ['x; y; z'],
  );
  assert.equal(REGISTRY.resolveAggregate('string_agg', ['STRING', 'CHAR'], false, 0).type, 'STRING');
  assert.equal(REGISTRY.resolveAggregate('string_agg', ['VARCHAR', 'CHAR'], false, 0).type, 'VARCHAR');
  assert.throws(
    () => REGISTRY.resolveAggregate('string_agg', ['INT', 'CHAR'], false, 0),
    /no matching function `string_agg`/,
  );
});

test('rejects argument types an aggregate does not take', () => {
  const err = (name: string, types: SqlType[]): string => {
    try {
      REGISTRY.resolveAggregate(name, types, false, 3);
    } catch (e) {
      return (e as Error).message;
    }
    return 'resolved';
  };
  assert.equal(err('sum', ['STRING']), 'there is no matching function `sum` with the argument types: (STRING)');
  assert.match(err('avg', ['TIMESTAMP']), /no matching function `avg`/);
  assert.match(err('min', ['BOOLEAN']), /no matching function `min`/);
  assert.match(err('count', ['INT', 'INT']), /no matching function `count`/);
  assert.match(err('stddev', ['SYMBOL']), /no matching function `stddev`/);
});

test('min, max, first and last of TIMESTAMP_NS tell values one nanosecond apart', () => {
  const ns = (xs: (string | null)[]): ColumnVector => run('cast_TIMESTAMP_NS', [strs(xs)]);
  const a = ns([
    '2024-01-02T03:04:05.123456789Z',
    '2024-01-02T03:04:05.123456788Z',
    null,
    '1969-12-31T23:59:59.999999999Z',
  ]);
  const pick = (name: string): unknown[] => {
    const o = REGISTRY.resolveAggregate(name, ['TIMESTAMP_NS'], false, 0);
    const st = o.create();
    st.update(Int32Array.of(0, 0, 1, 1), [a], 4, 2);
    assert.equal(o.type, 'TIMESTAMP_NS');
    return call('cast_STRING', [st.result(2)], ['TIMESTAMP_NS']);
  };
  assert.deepEqual(pick('min'), ['2024-01-02T03:04:05.123456788Z', '1969-12-31T23:59:59.999999999Z']);
  assert.deepEqual(pick('max'), ['2024-01-02T03:04:05.123456789Z', '1969-12-31T23:59:59.999999999Z']);
  assert.deepEqual(pick('first'), ['2024-01-02T03:04:05.123456789Z', null]);
  assert.deepEqual(pick('last'), ['2024-01-02T03:04:05.123456788Z', '1969-12-31T23:59:59.999999999Z']);
  assert.deepEqual(pick('first_not_null'), ['2024-01-02T03:04:05.123456789Z', '1969-12-31T23:59:59.999999999Z']);
});

test('covar_pop, covar_samp, corr, regr_slope and regr_intercept over finite pairs, per group, across batches', () => {
  // Group 0: (y, x) = (2, 1), (4.5, 2), (5.5, 3), (9, 4) split over two batches, plus a pair with a
  // NULL and one with an infinity (skipped); group 1: one pair; group 2: x constant.
  const batches = [
    [
      [0, 0, 1, 2, 0],
      [doubles([2, 4.5, 1, 1, null]), doubles([1, 2, 1, 2, 7])],
    ],
    [
      [0, 2, 0, 0],
      [doubles([5.5, 3, 9, Infinity]), doubles([3, 2, 4, 5])],
    ],
  ] as const;
  const at = (name: string): unknown[] => aggregate(name, ['DOUBLE', 'DOUBLE'], batches, 4);
  // Expected values from Python's statistics module (covariance, correlation, linear_regression).
  assert.deepEqual(at('covar_pop'), [2.75, 0, 0, null]);
  assert.deepEqual(at('covar_samp'), [3.6666666666666665, null, 0, null]);
  assert.deepEqual(at('corr'), [0.9789871508779666, null, null, null]);
  assert.deepEqual(at('regr_slope'), [2.2, null, null, null]);
  assert.deepEqual(at('regr_intercept'), [-0.25, null, null, null]);
  assert.deepEqual(
    aggregate(
      'covar_pop',
      ['INT', 'LONG'],
      [
        [
          [0, 0],
          [ints([1, 3]), longs([2, 4])],
        ],
      ],
      1,
    ),
    [1],
  );
  assert.match(
    (() => {
      try {
        REGISTRY.resolveAggregate('corr', ['DOUBLE'], false, 0);
        return '';
      } catch (e) {
        return (e as Error).message;
      }
    })(),
    /corr/,
  );
});

test('arg_max and arg_min take the value at the extreme key: NULL keys skipped, the first of a tie kept', () => {
  const batches = [
    [
      [0, 0, 0, 1],
      [doubles([1.5, 2.5, null, 9]), ints([10, 30, 30, null])],
    ],
    [
      [0, 0],
      [doubles([4.5, 0.5]), ints([null, 5])],
    ],
  ] as const;
  assert.deepEqual(aggregate('arg_max', ['DOUBLE', 'INT'], batches, 2), [2.5, null]);
  assert.deepEqual(aggregate('arg_min', ['DOUBLE', 'INT'], batches, 2), [0.5, null]);
  assert.deepEqual(
    aggregate(
      'arg_max',
      ['VARCHAR', 'DOUBLE'],
      [
        [
          [0, 0, 0],
          [strs(['a', 'b', null], 'VARCHAR'), doubles([1, 3, 3])],
        ],
      ],
      1,
    ),
    ['b'],
  );
});

test('bit_and, bit_or and bit_xor combine non-NULL integers in their type, LONG exactly', () => {
  const ints4 = [[[0, 0, 0, 1], [ints([12, 10, 14, null])]]] as const;
  assert.deepEqual(aggregate('bit_and', ['INT'], ints4, 2), [8, null]);
  assert.deepEqual(aggregate('bit_or', ['INT'], ints4, 2), [14, null]);
  assert.deepEqual(aggregate('bit_xor', ['INT'], ints4, 2), [8, null]);
  const big = BigInt64Array.from([9007199254740993n, 9223372036854775807n, 4611686018427387905n]);
  const exact = new Int32Array(big.buffer);
  const longs3: ColumnVector = { kind: 'fixed', type: 'LONG', data: int64ToF64(exact), exact };
  const r = REGISTRY.resolveAggregate('bit_xor', ['LONG'], false, 0).create();
  r.update(Int32Array.from([0, 0, 0]), [longs3], 3, 1);
  const out = r.result(1) as FixedVector;
  assert.equal(new BigInt64Array(out.exact!.slice().buffer)[0], 4602678819172646911n);
  assert.equal(REGISTRY.resolveAggregate('bit_and', ['SHORT'], false, 0).type, 'SHORT');
});

test('geomean skips NULL and is NULL for a group with a zero or negative value or none', () => {
  const batches = [[[0, 0, 0, 1, 1, 2], [doubles([2, 8, null, 1.5, 0, null])]]] as const;
  assert.deepEqual(aggregate('geomean', ['DOUBLE'], batches, 3), [4, null, null]);
  assert.equal(REGISTRY.resolveAggregate('geomean', ['INT'], false, 0).type, 'DOUBLE');
});
