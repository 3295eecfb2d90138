// INTERVAL values (core/interval-values.ts) and their functions (interval.ts): interval,
// interval_start, interval_end, rnd_interval and the binder's in_interval, through the registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KX, REGISTRY, call, longs, nullArg, resolveError, resultType, run, strs, ts } from './helpers.js';
import type { FixedVector } from '../../lib/core/column-vector.js';
import { renderAt } from '../../lib/core/render.js';
import { LONG_NULL } from '../../lib/core/column-type.js';
import {
  formatInterval,
  intervalHi,
  intervalLo,
  intervalVector,
  isIntervalNull,
} from '../../lib/core/interval-values.js';
import { createFunctionRegistry } from '../../lib/functions/index.js';
import { parseTimestamp } from '../../lib/core/datetime.js';
import { SvcError } from '../../lib/errors/svc-error.js';

const texts = (v: FixedVector, n: number): (string | null)[] => Array.from({ length: n }, (_, i) => renderAt(v, i));

test('an INTERVAL row is two int64 bounds; NULL is both at LONG NULL; its text has milliseconds', () => {
  const v = intervalVector([0, -1_500, 1_728_385_787_573_123, NaN], [10_000, 999, 1_728_472_187_573_999, 5], 4);
  assert.equal(v.data.length, 64);
  assert.deepEqual(
    [intervalLo(v.data as Uint8Array, 2), intervalHi(v.data as Uint8Array, 2)],
    [1_728_385_787_573_123, 1_728_472_187_573_999],
  );
  assert.equal(isIntervalNull(v.data as Uint8Array, 3), true);
  assert.equal(intervalLo(v.data as Uint8Array, 1), -1_500);
  assert.deepEqual(texts(v, 4), [
    "('1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00.010Z')",
    "('1969-12-31T23:59:59.998Z', '1970-01-01T00:00:00.000Z')",
    "('2024-10-08T11:09:47.573Z', '2024-10-09T11:09:47.573Z')",
    null,
  ]);
  assert.equal(formatInterval(LONG_NULL, 0), "(null, '1970-01-01T00:00:00.000Z')");
});

test('interval(lo, hi) takes timestamps, ISO text and LONG micros; a NULL bound is the NULL interval', () => {
  assert.equal(resultType('interval', ['TIMESTAMP', 'TIMESTAMP']), 'INTERVAL');
  assert.equal(resultType('interval', ['STRING', 'VARCHAR']), 'INTERVAL');
  assert.equal(resultType('interval', ['LONG', 'DATE']), 'INTERVAL');
  assert.equal(resultType('interval', ['TIMESTAMP_NS', 'NULL']), 'INTERVAL');
  const a = run('interval', [
    strs(['2024-10-08T11:09:47.573Z', null]),
    strs(['2024-10-09T11:09:47.573Z', '2024-10-09T11:09:47.573Z']),
  ]) as FixedVector;
  assert.deepEqual(texts(a, 2), ["('2024-10-08T11:09:47.573Z', '2024-10-09T11:09:47.573Z')", null]);
  // Equal bounds are an interval of one microsecond.
  const b = run('interval', [longs([1, 5]), longs([10_001, 5])]) as FixedVector;
  assert.deepEqual(texts(b, 2), [
    "('1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00.010Z')",
    "('1970-01-01T00:00:00.000Z', '1970-01-01T00:00:00.000Z')",
  ]);
  assert.match(resolveError('interval', ['BOOLEAN', 'TIMESTAMP']), /no matching function `interval`/);
  assert.match(resolveError('interval', ['TIMESTAMP']), /no matching function `interval`/);
});

test('interval(lo, hi) with lo after hi: at the call for constants, at run time (position 0) for rows', () => {
  const fn = REGISTRY.resolveScalar('interval', ['TIMESTAMP', 'TIMESTAMP'], 7);
  const arg = (value: number | null, pos: number) => ({
    type: 'TIMESTAMP' as const,
    value,
    pos,
    constant: true,
    vector: undefined,
  });
  assert.throws(
    () => fn.bind!([arg(2, 16), arg(1, 18)], 7),
    (e: SvcError) => e.message === 'invalid interval boundaries' && e.position === 7,
  );
  assert.equal(fn.bind!([arg(1, 16), arg(2, 18)], 7), undefined);
  assert.equal(fn.bind!([arg(null, 16), arg(2, 18)], 7), undefined);
  assert.throws(
    () => fn.kernel([longs([1, 3], 'TIMESTAMP'), longs([2, 2], 'TIMESTAMP')], 2, KX),
    (e: SvcError) => e.message === 'invalid interval boundaries' && e.position === 0,
  );
});

test('interval_start and interval_end are TIMESTAMPs (NULL for the NULL interval)', () => {
  const iv = run('interval', [
    ts(['2024-10-08T11:09:47.573Z', null]),
    ts(['2024-10-09T11:09:47.573Z', '2024-10-09T11:09:47.573Z']),
  ]);
  assert.equal(resultType('interval_start', ['INTERVAL']), 'TIMESTAMP');
  assert.equal(resultType('interval_end', ['NULL']), 'TIMESTAMP');
  assert.deepEqual(call('interval_start', [iv]), [parseTimestamp('2024-10-08T11:09:47.573Z'), null]);
  assert.deepEqual(call('interval_end', [iv]), [parseTimestamp('2024-10-09T11:09:47.573Z'), null]);
  assert.match(resolveError('interval_start', ['TIMESTAMP']), /no matching function `interval_start`/);
});

test('in_interval: lo <= ts <= hi, both bounds included; NULL timestamps and NULL intervals hold nothing', () => {
  const iv = run('interval', [
    longs([10, 10, 10, 10, LONG_NULL], 'TIMESTAMP'),
    longs([20, 20, 20, 20, 20], 'TIMESTAMP'),
  ]);
  assert.deepEqual(call('in_interval', [longs([9, 10, 20, 21, 15], 'TIMESTAMP'), iv]), [
    false,
    true,
    true,
    false,
    false,
  ]);
  assert.deepEqual(call('in_interval', [longs([null], 'TIMESTAMP'), run('interval', [longs([0]), longs([5])])]), [
    false,
  ]);
  assert.deepEqual(call('in_interval', [longs([3], 'TIMESTAMP'), nullArg(1)], ['TIMESTAMP', 'NULL']), [false]);
});

test('rnd_interval: lo in 1970..2033, hi within about 6.3 years after it; the same again with the same seed', () => {
  const draw = (seed: number): FixedVector =>
    createFunctionRegistry({ randomSeed: seed })
      .resolveScalar('rnd_interval', [], 0)
      .kernel([], 200, KX) as FixedVector;
  const v = draw(5);
  const b = v.data as Uint8Array;
  assert.equal(REGISTRY.resolveScalar('rnd_interval', [], 0).deterministic, false);
  for (let i = 0; i < 200; i++) {
    const lo = intervalLo(b, i),
      hi = intervalHi(b, i);
    assert.ok(lo >= 0 && lo < 1_999_999_000_000_000, `lo ${lo}`);
    assert.ok(hi >= lo && hi - lo < 199_999_000_000_000, `hi ${hi}`);
  }
  assert.deepEqual(draw(5).data, v.data);
  assert.notDeepEqual(draw(6).data, v.data);
});
