// to_timezone and to_utc: IANA zones with DST, fixed offsets, NULLs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, strs, ts } from './helpers.js';
import { formatTimestamp } from '../../lib/core/datetime.js';

const iso = (xs: readonly unknown[]): unknown[] => xs.map((x) => (x === null ? null : formatTimestamp(x as number)));

test('to_timezone shows UTC instants as wall-clock time, following DST', () => {
  const v = ts(['2024-01-15T12:00:00Z', '2024-07-15T12:00:00Z', null]);
  assert.deepEqual(iso(call('to_timezone', [v, strs(['Europe/London', 'Europe/London', 'Europe/London'])])), [
    '2024-01-15T12:00:00.000000Z',
    '2024-07-15T13:00:00.000000Z',
    null,
  ]);
  assert.deepEqual(iso(call('to_timezone', [v, strs(['+05:30', '+05:30', '+05:30'])])), [
    '2024-01-15T17:30:00.000000Z',
    '2024-07-15T17:30:00.000000Z',
    null,
  ]);
});

test('to_utc turns wall-clock time of a zone back into UTC', () => {
  const v = ts(['2024-07-15T13:00:00Z', '2024-01-15T12:00:00Z']);
  assert.deepEqual(iso(call('to_utc', [v, strs(['Europe/London', 'Europe/London'])])), [
    '2024-07-15T12:00:00.000000Z',
    '2024-01-15T12:00:00.000000Z',
  ]);
  assert.deepEqual(iso(call('to_utc', [v, strs(['UTC', 'UTC'])])), [
    '2024-07-15T13:00:00.000000Z',
    '2024-01-15T12:00:00.000000Z',
  ]);
});
