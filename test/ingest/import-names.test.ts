import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  columnName,
  columnNames,
  importTableName,
  sanitizeName,
  tableNameFromFile,
} from '../../lib/ingest/import-names.js';
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
  assert.throws(
    () => importTableName(long),
    (e: unknown) => e instanceof SvcError && e.status === 400 && /^table name is too long: 128 bytes/.test(e.message),
  );
  assert.equal(importTableName('é'.repeat(63) + 'a'), 'é'.repeat(63) + 'a');
  assert.equal(importTableName('my.table'), 'mytable');
  assert.equal(importTableName('...'), 'import');
});

test('header values become column names as QuestDB makes them: camel case where characters go, _ before a digit, BOM dropped', () => {
  assert.equal(columnName('first name'), 'firstName');
  assert.equal(columnName('price (usd)'), 'priceUsd');
  assert.equal(columnName('a.b-c*d%e~f?g+h'), 'aBCDEFGH');
  assert.equal(columnName('under_score'), 'under_score');
  assert.equal(columnName('1'), '_1');
  assert.equal(columnName('2nd try'), '_2ndTry');
  assert.equal(columnName('\uFEFFid'), 'id');
  assert.equal(columnName('città'), 'città');
  assert.equal(columnName(' ( ) '), '');
  assert.equal(
    columnName('a\u202Eb'),
    'ab',
    'a bidi override is dropped without a word break: it is invisible, not a separator',
  );
  for (const raw of ['a\u202Eb', 'a b-c', '\uD800x', 'é\u00ADt', '(1)']) checkColumnName(columnName(raw));
});

test('column names: f<index> for no header and for an empty header value (with _ until unique); a repeated name is refused', () => {
  assert.deepEqual(columnNames(null, 3), ['f0', 'f1', 'f2']);
  assert.deepEqual(columnNames(['a'], 3), ['a', 'f1', 'f2']);
  assert.deepEqual(columnNames(['f1', '', 'b'], 3), ['f1', 'f1_', 'b']);
  assert.deepEqual(columnNames(['first name', 'x.y'], 2), ['firstName', 'xY']);
  assert.throws(
    () => columnNames(['x', 'X'], 2),
    (e: unknown) =>
      e instanceof SvcError && e.status === 400 && e.message === 'duplicate column name found [no=1,name=X]',
  );
  assert.throws(() => columnNames(['a b', 'aB'], 2), /duplicate column name found \[no=1,name=aB\]/);
  const many = columnNames(
    Array.from({ length: 100_000 }, (_, i) => `c${i}`),
    100_000,
  );
  assert.equal(many[99_999], 'c99999');
});
