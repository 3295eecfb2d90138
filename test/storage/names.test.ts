import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkColumnName, checkTableName } from '../../lib/storage/names.js';
import { SvcError } from '../../lib/errors/svc-error.js';

test('accepts ordinary names, with underscores, and hyphens in table names', () => {
  for (const n of ['trades', 'Trades_2024', 'x', 'weather-eu', 'données', '日本']) checkTableName(n);
  for (const n of ['price', 'trip_distance', 'Col1', 'größe']) checkColumnName(n);
});

test('rejects the characters SPEC.md strips on import, quotes and control characters, with the position', () => {
  const bad: Array<[string, number]> = [['a b', 1], ['a.b', 1], ['a?', 1], ['a,b', 1], ['a:b', 1], ['a\\b', 1], ['a/b', 1],
    ['a\0b', 1], ['f(x)', 1], ['a+b', 1], ['a*b', 1], ['a~b', 1], ['a%', 1], ["it's", 2], ['say"', 3], ['tab\tx', 3]];
  for (const [n, pos] of bad) {
    assert.throws(() => checkTableName(n), (e: unknown) => e instanceof SvcError && e.position === pos && /invalid character/.test(e.message), n);
  }
  assert.throws(() => checkColumnName('a-b'), /invalid character '-'/);
  assert.throws(() => checkTableName(''), /empty/);
  assert.throws(() => checkTableName('x'.repeat(128)), /longer than 127/);
});
