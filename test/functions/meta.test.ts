// Server and session facts (lib/functions/meta.ts): the values QuestDB gives PostgreSQL tools.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bools, call, longs, strs } from './helpers.js';
import { VERSION } from '../../lib/version.js';

test('version(), current_database(), current_schema(), current_user() and kin answer as QuestDB does', () => {
  const banner = 'PostgreSQL 12.3, compiled by Visual C++ build 1914, 64-bit, QuestDB';
  assert.deepEqual(call('version', [], [], 2), [banner, banner]);
  assert.deepEqual(call('pg_catalog.version', [], [], 1), [banner]);
  for (const name of ['current_database', 'pg_catalog.current_database', 'current_catalog'])
    assert.deepEqual(call(name, [], [], 1), ['qdb'], name);
  for (const name of ['current_schema', 'pg_catalog.current_schema'])
    assert.deepEqual(call(name, [], [], 1), ['public']);
  for (const name of ['current_user', 'session_user']) assert.deepEqual(call(name, [], [], 1), ['admin']);
  for (const name of ['current_schemas', 'pg_catalog.current_schemas'])
    assert.deepEqual(call(name, [bools([true])]), ['{public}']);
  for (const name of ['pg_is_in_recovery', 'pg_catalog.pg_is_in_recovery'])
    assert.deepEqual(call(name, [], [], 1), [false]);
  assert.deepEqual(call('flush_query_cache', [], [], 1), [true]);
  // Without a database there is no server.conf to read again: nothing changed.
  assert.deepEqual(call('reload_config', [], [], 2), [false, false]);
  assert.deepEqual(call('build', [], [], 1), [`Build Information: svcdb ${VERSION}, Node.js ${process.versions.node}`]);
  // This process's start, in micros: before now, and not before the machine's clock a day ago.
  const [started] = call('pg_postmaster_start_time', [], [], 1) as number[];
  assert.ok(started! / 1000 <= Date.now() && started! / 1000 > Date.now() - 24 * 3600 * 1000);
});

test('size_pretty: the count over the largest power of 1024 below it, one decimal, B to EiB (QuestDB own cases)', () => {
  const k = 1024;
  assert.deepEqual(
    call('size_pretty', [
      longs([
        0,
        null,
        1,
        k,
        k ** 2,
        k ** 3,
        k ** 4,
        Math.trunc(8.657 * k ** 4),
        Math.trunc(8.657 * k ** 2),
        400032,
        1023,
        k ** 2 - 1,
      ]),
    ]),
    [
      '0.0 B',
      null,
      '1.0 B',
      '1.0 KiB',
      '1.0 MiB',
      '1.0 GiB',
      '1.0 TiB',
      '8.7 TiB',
      '8.7 MiB',
      '390.7 KiB',
      '1023.0 B',
      '1024.0 KiB',
    ],
  );
});

test("the pg_catalog stubs answer as QuestDB's do, bare and pg_catalog.-prefixed", () => {
  for (const n of ['pg_get_expr', 'pg_catalog.pg_get_expr']) {
    assert.deepEqual(call(n, [strs(['abc', null]), longs([42, 1])]), [null, null]);
    assert.deepEqual(call(n, [strs(['abc']), longs([42]), bools([true])]), [null]);
  }
  for (const n of ['pg_get_partkeydef', 'pg_catalog.pg_get_partkeydef'])
    assert.deepEqual(call(n, [longs([0])]), [null]);
  for (const n of ['format_type', 'pg_catalog.format_type'])
    assert.deepEqual(call(n, [longs([23]), longs([-1])]), [null]);
  for (const n of ['pg_get_userbyid', 'pg_catalog.pg_get_userbyid'])
    assert.deepEqual(call(n, [longs([1, 7])]), ['public', 'public']);
  for (const n of ['pg_table_is_visible', 'pg_catalog.pg_table_is_visible'])
    assert.deepEqual(call(n, [longs([3])]), [true]);
  for (const n of ['age', 'pg_catalog.age']) assert.deepEqual(call(n, [longs([5])]), [0]);
  for (const n of ['current_setting', 'pg_catalog.current_setting'])
    assert.deepEqual(call(n, [strs(['server_version_num', 'eee', null, ''])]), ['123000', '', '', '']);
  // Each call takes the next number of one process-wide counter, whichever spelling.
  const [a, b] = call('txid_current', [], [], 2) as number[];
  const [c] = call('pg_catalog.txid_current', [], [], 1) as number[];
  assert.ok(b === a! + 1 && c === b! + 1);
  assert.deepEqual(call('pg_advisory_unlock_all', [], [], 1), [null]);
});
