// Server and session facts (lib/functions/meta.ts): the values QuestDB gives PostgreSQL tools.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bools, call } from './helpers.js';
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
  assert.deepEqual(call('build', [], [], 1), [`Build Information: svcdb ${VERSION}, Node.js ${process.versions.node}`]);
  // This process's start, in micros: before now, and not before the machine's clock a day ago.
  const [started] = call('pg_postmaster_start_time', [], [], 1) as number[];
  assert.ok(started! / 1000 <= Date.now() && started! / 1000 > Date.now() - 24 * 3600 * 1000);
});
