import { test } from 'node:test';
import assert from 'node:assert/strict';
import { partitionCeil, partitionFloor, partitionName, type PartitionBy } from '../../lib/storage/partition-by.js';

const us = (iso: string): number => Date.parse(iso) * 1000;

test('names partitions as QuestDB does and floors timestamps into them', () => {
  const t = us('2024-01-15T10:30:00.123Z');
  const cases: Array<[PartitionBy, string, string, string]> = [
    ['HOUR', '2024-01-15T10', '2024-01-15T10:00:00Z', '2024-01-15T11:00:00Z'],
    ['DAY', '2024-01-15', '2024-01-15T00:00:00Z', '2024-01-16T00:00:00Z'],
    ['WEEK', '2024-W03', '2024-01-15T00:00:00Z', '2024-01-22T00:00:00Z'],
    ['MONTH', '2024-01', '2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z'],
    ['YEAR', '2024', '2024-01-01T00:00:00Z', '2025-01-01T00:00:00Z'],
  ];
  for (const [by, name, floor, ceil] of cases) {
    const f = partitionFloor(by, t);
    assert.equal(f, us(floor), by);
    assert.equal(partitionCeil(by, f), us(ceil), by);
    assert.equal(partitionName(by, f), name, by);
  }
  assert.equal(partitionName('NONE', partitionFloor('NONE', t)), 'default');
  assert.equal(partitionCeil('NONE', 0), Infinity);
});

test('uses ISO week numbers, whose year can differ from the calendar year', () => {
  assert.equal(partitionName('WEEK', partitionFloor('WEEK', us('2021-01-03T12:00:00Z'))), '2020-W53');
  assert.equal(partitionName('WEEK', partitionFloor('WEEK', us('2024-12-30T00:00:00Z'))), '2025-W01');
  assert.equal(partitionName('WEEK', partitionFloor('WEEK', us('1970-01-01T00:00:00Z'))), '1970-W01');
});

test('floors timestamps before 1970 correctly', () => {
  assert.equal(partitionName('DAY', partitionFloor('DAY', us('1969-12-31T23:59:59Z'))), '1969-12-31');
  assert.equal(partitionName('HOUR', partitionFloor('HOUR', -1)), '1969-12-31T23');
});
