// Weighted averages and percentiles over group ids: NULL pairs skipped, empty
// groups NULL, ranks across batches, the percentile's range checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregate, doubles } from './helpers.js';
import { SvcError } from '../../lib/errors/svc-error.js';

test('vwap and weighted_avg are sum(v*w)/sum(w) over rows with both values, per group', () => {
  for (const name of ['vwap', 'weighted_avg']) {
    const r = aggregate(
      name,
      ['DOUBLE', 'DOUBLE'],
      [
        [
          [0, 0, 1],
          [doubles([10, 20, 5]), doubles([1, 3, 2])],
        ],
        [
          [0, 1, 2],
          [doubles([null, 7, 1]), doubles([4, 2, null])],
        ],
      ],
      3,
    );
    assert.deepEqual(r, [17.5, 6, null], name);
  }
});

test('percentile_disc takes the value at the nearest rank, percentile_cont interpolates, approx_percentile is exact here', () => {
  const xs = doubles([15, 20, 35, 40, 50]);
  const ids = [0, 0, 0, 0, 0];
  const p = (v: number) => doubles([v, v, v, v, v]);
  assert.deepEqual(aggregate('percentile_disc', ['DOUBLE', 'DOUBLE'], [[ids, [xs, p(0.4)]]], 1), [20]);
  assert.deepEqual(aggregate('percentile_cont', ['DOUBLE', 'DOUBLE'], [[ids, [xs, p(0.4)]]], 1), [29]);
  assert.deepEqual(aggregate('approx_percentile', ['DOUBLE', 'DOUBLE'], [[ids, [xs, p(1)]]], 1), [50]);
  // Values across batches and groups, NULLs skipped, an empty group NULL.
  assert.deepEqual(
    aggregate(
      'percentile_cont',
      ['DOUBLE', 'DOUBLE'],
      [
        [
          [0, 1],
          [doubles([1, null]), doubles([0.5, 0.5])],
        ],
        [
          [0, 0],
          [doubles([3, 2]), doubles([0.5, 0.5])],
        ],
      ],
      2,
    ),
    [2, null],
  );
  assert.throws(
    () => aggregate('percentile_disc', ['DOUBLE', 'DOUBLE'], [[[0], [doubles([1]), doubles([1.5])]]], 1),
    (e: unknown) => e instanceof SvcError && /between 0 and 1/.test(e.message),
  );
});
