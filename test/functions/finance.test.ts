// Finance functions: weighted averages and percentiles over group ids (NULL pairs skipped, empty
// groups NULL, ranks across batches, the percentile's range checked), and the scalar market data
// functions mid, spread, spread_bps, wmid and l2price.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { aggregate, call, doubles, ints, resolveError } from './helpers.js';
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

test('mid, spread, spread_bps and wmid: QuestDB formulas, NULL in any argument is NULL', () => {
  assert.deepEqual(call('mid', [doubles([1.576, 1, null]), doubles([1.5763, 3, 2])]), [(1.5763 + 1.576) / 2, 2, null]);
  assert.deepEqual(call('spread', [doubles([1.576, 5, 2]), doubles([1.5763, 3, null])]), [1.5763 - 1.576, -2, null]);
  // The page's example: spread_bps(1.5760, 1.5763) = 1.903372140976...
  const [bps] = call('spread_bps', [doubles([1.576]), doubles([1.5763])]) as number[];
  assert.ok(Math.abs(bps! - 1.903372140976) < 1e-9);
  assert.deepEqual(
    call('wmid', [doubles([100, 300, null]), doubles([5, 5, 5]), doubles([6, 6, 6]), doubles([100, 100, 1])]),
    [5.5, 5.75, null],
  );
});

test('l2price walks size/price levels until they reach the target: first level alone its price; a thin book is NULL', () => {
  const target = doubles([50, 10, 1000, 60]);
  const levels = [
    doubles([14, 14, 14, 14]),
    doubles([14.5, 14.5, 14.5, 14.5]),
    doubles([16, 16, 16, null]),
    doubles([14.6, 14.6, 14.6, 14.6]),
  ];
  const more = [doubles([23, 23, 23, 23]), doubles([14.8, 14.8, 14.8, 14.8])];
  assert.deepEqual(call('l2price', [target, ...levels, ...more]), [
    (14 * 14.5 + 16 * 14.6 + (50 - 14 - 16) * 14.8) / 50,
    14.5,
    null,
    null,
  ]);
  assert.deepEqual(call('l2price', [ints([50]), doubles([60]), doubles([9])]), [9]);
  assert.match(resolveError('l2price', ['DOUBLE', 'DOUBLE', 'DOUBLE', 'DOUBLE']), /size and price pairs/);
});
