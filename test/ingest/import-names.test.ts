import { test } from 'node:test';
import assert from 'node:assert/strict';
import { columnNames, importTableName, sanitizeName, tableNameFromFile } from '../../lib/ingest/import-names.js';
import { checkColumnName, checkTableName } from '../../lib/storage/names.js';
import { SvcError } from '../../lib/errors/svc-error.js';

test('removes every character names may not hold, so what is left passes the name check', () => {
  assert.equal(sanitizeName('trip distance (km)', 'f0'), 'tripdistancekm');
  assert.equal(sanitizeName('a\u202Eb\u2066c\u200Ed\u200Be\u0085f\uFEFFg\u0007h', 'f0'), 'abcdefgh');
  assert.equal(sanitizeName('x-y_z', 'f0'), 'xy_z');
  assert.equal(sanitizeName('👩\u200D💻', 'f0'), '👩\u200D💻', 'the joiner stays');
  assert.equal(sanitizeName('\u202E . ', 'f3'), 'f3');
  for (const raw of ['a\u202Eb', 'a b-c', '\uD800x', 'é\u00ADt']) {
    checkTableName(sanitizeName(raw, 'f'));
    checkColumnName(sanitizeName(raw, 'f'));
  }
});

test('never shortens a name: one too long is refused, not cut', () => {
  const long = 'é'.repeat(64);
  assert.equal(sanitizeName(long, 'f0'), long);
  assert.equal(tableNameFromFile(`/tmp/${long}.csv.gz`), long);
  assert.throws(() => importTableName(long), (e: unknown) => e instanceof SvcError && e.status === 400 && /^table name is too long: 128 bytes/.test(e.message));
  assert.equal(importTableName('é'.repeat(63) + 'a'), 'é'.repeat(63) + 'a');
  assert.equal(importTableName('my.table'), 'mytable');
  assert.equal(importTableName('...'), 'import');
});

test('makes repeated header names distinct, in linear time for many equal names', () => {
  assert.deepEqual(columnNames(['x', 'X', 'x2', 'x'], 4), ['x', 'X2', 'x22', 'x3']);
  assert.deepEqual(columnNames(['a'], 3), ['a', 'f1', 'f2']);
  const many = columnNames(Array.from({ length: 100_000 }, () => 'c'), 100_000);
  assert.equal(new Set(many.map((n) => n.toLowerCase())).size, 100_000);
  assert.equal(many[99_999], 'c100000');
});
