import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDatePattern, formatIsoMicros, nowMicros } from '../../lib/log/clock.js';
import { formatLine, oneLine } from '../../lib/log/line-format.js';
import { Level, parseLevelList, fromBunyan, DEFAULT_MASK } from '../../lib/log/levels.js';
import { expandLocation } from '../../lib/log/template-vars.js';

const T = Date.UTC(2024, 0, 2, 3, 4, 5, 678) * 1000 + 901; // 2024-01-02T03:04:05.678901Z

test('renders epoch microseconds as ISO-8601 UTC with six fraction digits', () => {
  assert.equal(formatIsoMicros(T), '2024-01-02T03:04:05.678901Z');
  assert.equal(formatIsoMicros(0), '1970-01-01T00:00:00.000000Z');
  assert.ok(Math.abs(nowMicros() / 1000 - Date.now()) < 1000);
});

test('formats Java-style date patterns, with quoted literals', () => {
  assert.equal(formatDatePattern('yyyy-MM-ddTHH-mm-ss', T), '2024-01-02T03-04-05');
  assert.equal(formatDatePattern('yyyy/MM/ddTHH:mm:ss.SSS', T), '2024/01/02T03:04:05.678');
  assert.equal(formatDatePattern("yyyyMMdd'_at_'HH.SSSUUU", T), '20240102_at_03.678901');
});

test('formats a log line as <timestamp> <marker> <logger> <message> on one line', () => {
  assert.equal(
    formatLine(T, Level.ADVISORY, 'server-main', 'ready'),
    '2024-01-02T03:04:05.678901Z A server-main ready',
  );
  assert.equal(formatLine(T, Level.CRITICAL, 'x', 'y'), '2024-01-02T03:04:05.678901Z C x y');
  assert.equal(oneLine('a\nb\r\nc'), 'a\\nb\\nc');
});

test('parses level lists as sets by name or marker, and rejects unknown levels', () => {
  assert.equal(parseLevelList('INFO,ERROR'), Level.INFO | Level.ERROR);
  assert.equal(parseLevelList(' info , critical,A '), Level.INFO | Level.CRITICAL | Level.ADVISORY);
  assert.equal(parseLevelList('ADVISORY,CRITICAL,ERROR,INFO'), DEFAULT_MASK);
  assert.throws(() => parseLevelList('INFO,LOUD'), /unknown level LOUD/);
});

test('maps bunyan levels: fatal->C, error->E, warn->A, info->I, debug->D', () => {
  assert.deepEqual([60, 50, 40, 30, 20, 10].map(fromBunyan), [
    Level.CRITICAL,
    Level.ERROR,
    Level.ADVISORY,
    Level.INFO,
    Level.DEBUG,
    Level.DEBUG,
  ]);
});

test('expands ${log.dir} and ${date:<format>} in locations and names an unknown variable', () => {
  assert.equal(
    expandLocation('${log.dir}/x-${date:yyyy-MM-dd}.log', { 'log.dir': '/r/log' }, T),
    '/r/log/x-2024-01-02.log',
  );
  assert.throws(() => expandLocation('${nope}/x', { 'log.dir': '/r' }, T), /unknown variable \$\{nope\}/);
});
