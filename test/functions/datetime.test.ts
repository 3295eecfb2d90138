// Calendar arithmetic and timestamp text: ISO parsing and printing, month
// arithmetic, flooring units and QuestDB date patterns.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  addMonths,
  daysFromCivil,
  floorTo,
  formatDate,
  formatTimestamp,
  parseFloorUnit,
  parseTimestamp,
} from '../../lib/core/datetime.js';
import { compileDateFormat } from '../../lib/core/date-format.js';

const iso = (s: string): number => Date.parse(s) * 1000;

test('parses every ISO prefix form from the year to the fraction', () => {
  assert.equal(parseTimestamp('2024'), iso('2024-01-01T00:00:00Z'));
  assert.equal(parseTimestamp('2024-03'), iso('2024-03-01T00:00:00Z'));
  assert.equal(parseTimestamp('2024-01-15'), iso('2024-01-15T00:00:00Z'));
  assert.equal(parseTimestamp('2024-01-15T10'), iso('2024-01-15T10:00:00Z'));
  assert.equal(parseTimestamp('2024-01-15T10:30'), iso('2024-01-15T10:30:00Z'));
  assert.equal(parseTimestamp('2024-01-15 10:30:00'), iso('2024-01-15T10:30:00Z'));
  assert.equal(parseTimestamp('2024-01-15T10:30:00.5'), iso('2024-01-15T10:30:00Z') + 500000);
  assert.equal(parseTimestamp('2024-01-15T10:30:00.123456'), iso('2024-01-15T10:30:00Z') + 123456);
  assert.equal(parseTimestamp('2024-01-15T10:30:00.123456789Z'), iso('2024-01-15T10:30:00Z') + 123456);
});

test('applies Z and +hh:mm / -hh:mm / +hhmm / +hh offsets', () => {
  const base = iso('2024-01-15T10:30:00Z');
  assert.equal(parseTimestamp('2024-01-15T10:30:00Z'), base);
  assert.equal(parseTimestamp('2024-01-15T10:30:00+01:00'), base - 3_600_000_000);
  assert.equal(parseTimestamp('2024-01-15T10:30:00-02:30'), base + 9_000_000_000);
  assert.equal(parseTimestamp('2024-01-15T10:30:00+0100'), base - 3_600_000_000);
  assert.equal(parseTimestamp('2024-01-15T10:30:00+01'), base - 3_600_000_000);
});

test('rejects malformed or out-of-range timestamps with null', () => {
  for (const s of [
    '',
    '24',
    '2024-1-01',
    '2024-13-01',
    '2024-02-30',
    '2023-02-29',
    '2024-01-01T24:00',
    '2024-01-01T10:60',
    '2024-01-01T10:00:61',
    '2024-01-01T10:00:00.',
    '2024-01-01x',
    '2024-01-01T10:00:00+25:00',
    'abcd',
    '2024-01-01T10:00:00ZZ',
  ]) {
    assert.equal(parseTimestamp(s), null, s);
  }
  assert.notEqual(parseTimestamp('2024-02-29'), null);
});

test('prints timestamps with micros and dates with millis, before the epoch too', () => {
  assert.equal(formatTimestamp(0), '1970-01-01T00:00:00.000000Z');
  assert.equal(formatTimestamp(iso('2024-01-01T00:00:00Z') + 7), '2024-01-01T00:00:00.000007Z');
  assert.equal(formatTimestamp(-1), '1969-12-31T23:59:59.999999Z');
  assert.equal(formatTimestamp(iso('1900-03-01T12:00:00Z')), '1900-03-01T12:00:00.000000Z');
  assert.equal(formatDate(Date.parse('2024-02-29T23:59:59.999Z')), '2024-02-29T23:59:59.999Z');
  assert.equal(formatDate(-1), '1969-12-31T23:59:59.999Z');
});

test('round-trips random timestamps between 1600 and 2400 through ISO text', () => {
  for (let i = 0; i < 3000; i++) {
    const us = Math.floor((Math.random() * 800 - 370) * 365.25 * 86_400_000_000);
    assert.equal(parseTimestamp(formatTimestamp(us)), us);
    const ms = Math.floor(us / 1000);
    assert.equal(formatDate(ms), new Date(ms).toISOString());
  }
});

test('adds calendar months clamping the day to the month length', () => {
  assert.equal(formatTimestamp(addMonths(iso('2024-01-31T10:00:00Z'), 1)), '2024-02-29T10:00:00.000000Z');
  assert.equal(formatTimestamp(addMonths(iso('2023-01-31T00:00:00Z'), 1)), '2023-02-28T00:00:00.000000Z');
  assert.equal(formatTimestamp(addMonths(iso('2024-03-15T00:00:00Z'), -14)), '2023-01-15T00:00:00.000000Z');
  assert.equal(formatTimestamp(addMonths(iso('2024-02-29T00:00:00Z'), 12)), '2025-02-28T00:00:00.000000Z');
  assert.equal(daysFromCivil(1970, 1, 1), 0);
  assert.equal(daysFromCivil(2000, 3, 1), 11017);
});

test('floors to fixed units from the epoch, weeks from Monday, months and years by the calendar', () => {
  const f = (unit: string, s: string, origin: number | null = null): string =>
    formatTimestamp(floorTo(iso(s), parseFloorUnit(unit)!, origin));
  assert.equal(f('5d', '2018-01-01T00:00:00Z'), '2017-12-30T00:00:00.000000Z');
  assert.equal(f('15m', '2024-01-15T10:44:59Z'), '2024-01-15T10:30:00.000000Z');
  assert.equal(f('h', '1969-12-31T23:30:00Z'), '1969-12-31T23:00:00.000000Z');
  assert.equal(f('w', '2024-01-17T10:00:00Z'), '2024-01-15T00:00:00.000000Z');
  assert.equal(f('M', '2024-05-31T23:59:59Z'), '2024-05-01T00:00:00.000000Z');
  assert.equal(f('3M', '2024-05-31T23:59:59Z'), '2024-04-01T00:00:00.000000Z');
  assert.equal(f('y', '2024-05-31T23:59:59Z'), '2024-01-01T00:00:00.000000Z');
  assert.equal(f('T', '2024-05-31T23:59:59.123456Z'), '2024-05-31T23:59:59.123000Z');
  assert.equal(f('5d', '2018-01-01T00:00:00Z', iso('2018-01-01T00:00:00Z')), '2018-01-01T00:00:00.000000Z');
  // Months from an origin keep its day and time of day; days past a month's end clamp to it.
  assert.equal(f('M', '2024-03-20T00:00:00Z', iso('2024-01-15T10:00:00Z')), '2024-03-15T10:00:00.000000Z');
  assert.equal(f('M', '2024-03-15T09:59:59Z', iso('2024-01-15T10:00:00Z')), '2024-02-15T10:00:00.000000Z');
  assert.equal(f('2M', '2024-03-30T00:00:00Z', iso('2024-01-31T00:00:00Z')), '2024-01-31T00:00:00.000000Z');
  assert.equal(f('y', '2024-03-20T00:00:00Z', iso('2020-06-01T00:00:00Z')), '2023-06-01T00:00:00.000000Z');
  assert.equal(f('M', '2023-12-20T00:00:00Z', iso('2024-01-15T00:00:00Z')), '2023-12-15T00:00:00.000000Z');
  assert.equal(parseFloorUnit('x'), null);
  assert.equal(parseFloorUnit('0d'), null);
});

test('formats with QuestDB patterns: units, names, padding and literals', () => {
  const t = iso('2020-03-04T05:06:07Z') + 89_012;
  const fmt = (p: string): string => compileDateFormat(p).format(t);
  assert.equal(fmt('yyyy-MM-dd'), '2020-03-04');
  assert.equal(fmt('yyyy-MM-ddTHH:mm:ss.SSSUUU'), '2020-03-04T05:06:07.089012');
  assert.equal(fmt('y-M-d H:m:s'), '2020-3-4 5:6:7');
  assert.equal(fmt('yy MMM MMMM E EE'), '20 Mar March Wed Wednesday');
  assert.equal(fmt("'quoted yyyy' yyyy ''"), "quoted yyyy 2020 '");
  assert.equal(fmt('hh:mm a'), '05:06 AM');
  assert.equal(fmt('D u'), '64 3');
  assert.equal(fmt('U+'), '089012');
});

test('parses with QuestDB patterns and rejects text that does not match', () => {
  const p = (text: string, pattern: string): string | null => {
    const us = compileDateFormat(pattern).parse(text);
    return us === null ? null : formatTimestamp(us);
  };
  assert.equal(p('2020-03-01:15:43:21', 'yyyy-MM-dd:HH:mm:ss'), '2020-03-01T15:43:21.000000Z');
  assert.equal(p('2020-03-01:15:43:21.127329', 'yyyy-MM-dd:HH:mm:ss.SSSUUU'), '2020-03-01T15:43:21.127329Z');
  assert.equal(p('2019-12-12T12:15', 'yyyy-MM-ddTHH:mm'), '2019-12-12T12:15:00.000000Z');
  assert.equal(p('2015', 'yyyy'), '2015-01-01T00:00:00.000000Z');
  assert.equal(p('5-03', 'y-M'), '0005-03-01T00:00:00.000000Z');
  assert.equal(p('05-03', 'y-M'), '2005-03-01T00:00:00.000000Z');
  assert.equal(p('2020-03-01:15:43:21.1234', 'yyyy-MM-dd:HH:mm:ss.SSSU'), '2020-03-01T15:43:21.123400Z');
  assert.equal(p('2020-03-01:15:43:00.000000001Z', 'yyyy-MM-dd:HH:mm:ss.SSSUUUNNNZ'), '2020-03-01T15:43:00.000000Z');
  assert.equal(p('2020-03-01 10:00 +02:00', 'yyyy-MM-dd HH:mm Z'), '2020-03-01T08:00:00.000000Z');
  assert.equal(p('Mar 5, 2021 07 PM', 'MMM d, yyyy hh a'), '2021-03-05T19:00:00.000000Z');
  assert.equal(p('2020-03-01:15:43:21', 'yyyy'), null);
  assert.equal(p('2020-02-30', 'yyyy-MM-dd'), null);
  assert.equal(p('2020-03', 'yyyy-MM-dd'), null);
});
