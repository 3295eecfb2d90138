// mode, bool_and, bool_or, string_distinct_agg, approx_count_distinct (agg-mode.ts), and
// approx_median and the weighted standard deviations (agg-finance.ts) over group ids.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregate, bools, doubles, longs, strs, REGISTRY } from './helpers.js';

function aggregateError(name: string, types: Parameters<typeof REGISTRY.resolveAggregate>[1]): string {
  try {
    REGISTRY.resolveAggregate(name, types, false, 0);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
}

test('mode: the most frequent non-NULL value, the first of a tie as met; BOOLEAN ties go to true', () => {
  const r = aggregate('mode', ['LONG'], [[[0, 0, 0, 1, 1, 1, 2], [longs([5, 7, 7, 9, 8, null, null])]]], 3);
  assert.deepEqual(r, [7, 9, null]);
  assert.deepEqual(
    aggregate(
      'mode',
      ['VARCHAR'],
      [[[0, 0, 0, 0, 1, 1, 1], [strs(['alpha', 'alpha', 'alpha', 'omega', 'beta', 'beta', 'gamma'], 'VARCHAR')]]],
      2,
    ),
    ['alpha', 'beta'],
  );
  assert.deepEqual(aggregate('mode', ['BOOLEAN'], [[[0, 0, 1, 1, 1], [bools([false, true, false, false, true])]]], 2), [
    true,
    false,
  ]);
  assert.deepEqual(aggregate('mode', ['DOUBLE'], [[[0, 0, 0], [doubles([1.5, 2.5, 2.5])]]], 1), [2.5]);
});

test('bool_and is true unless a row is false, bool_or true once a row is true (a group without rows: true, false)', () => {
  const rows: [number[], [ReturnType<typeof bools>]] = [[0, 0, 1, 1], [bools([true, true, true, false])]];
  assert.deepEqual(aggregate('bool_and', ['BOOLEAN'], [rows], 3), [true, false, true]);
  assert.deepEqual(aggregate('bool_or', ['BOOLEAN'], [[[0, 0, 1], [bools([false, false, true])]]], 3), [
    false,
    true,
    false,
  ]);
  assert.match(aggregateError('bool_and', ['INT']), /no matching function/);
});

test('string_distinct_agg joins the distinct non-NULL values in the order met; approx_count_distinct counts them exactly', () => {
  const v = strs(['b', 'a', 'b', null, 'c', 'a'], 'VARCHAR');
  const d = strs([',', ',', ',', ',', ',', ','], 'STRING');
  assert.deepEqual(
    aggregate(
      'string_distinct_agg',
      ['VARCHAR', 'STRING'],
      [
        [
          [0, 0, 0, 0, 1, 1],
          [v, d],
        ],
      ],
      3,
    ),
    ['b,a', 'c,a', null],
  );
  assert.deepEqual(aggregate('approx_count_distinct', ['LONG'], [[[0, 0, 0, 1], [longs([1, 1, 2, null])]]], 2), [2, 0]);
  assert.deepEqual(aggregate('approx_count_distinct', ['VARCHAR'], [[[0, 0, 0, 0, 0, 0], [v]]], 1), [3]);
});

test('approx_median is the 50th percentile; weighted_stddev_rel / _freq follow QuestDB formulas, skipping zero or NULL weights', () => {
  assert.deepEqual(aggregate('approx_median', ['LONG'], [[[0, 0, 0, 0, 0], [longs([5, 1, 4, 2, 3])]]], 1), [3]);
  const x = doubles([1, 2, 3, 4, 5, 9, null]);
  const w = doubles([1, 2, 3, 4, 5, 0, 2]);
  const ids = [0, 0, 0, 0, 0, 0, 0];
  // Python: s = sum(w*x*x) - sum(w*x)**2 / sum(w) over the first five pairs; rel / (sw - sum(w*w)/sw), freq / (sw - 1).
  const [rel] = aggregate('weighted_stddev_rel', ['DOUBLE', 'DOUBLE'], [[ids, [x, w]]], 1) as number[];
  const [freq] = aggregate('weighted_stddev_freq', ['DOUBLE', 'DOUBLE'], [[ids, [x, w]]], 1) as number[];
  assert.ok(Math.abs(rel! - 1.4348601079588787) < 1e-12);
  assert.ok(Math.abs(freq! - 1.2909944487358058) < 1e-12);
  assert.deepEqual(aggregate('weighted_stddev', ['DOUBLE', 'DOUBLE'], [[ids, [x, w]]], 1), [rel]);
  // One observation: NULL.
  assert.deepEqual(aggregate('weighted_stddev', ['DOUBLE', 'DOUBLE'], [[[0], [doubles([3]), doubles([2])]]], 1), [
    null,
  ]);
});
