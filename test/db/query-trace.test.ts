// Query tracing through a Database (QuestDB's query.tracing.enabled and _query_trace): off by
// default (no table made), turned on by server.conf or by `SELECT reload_config()` after editing
// it, every statement's text, time and user written in the background, a day kept (TTL).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../../lib/db/database.js';
import { loadConfig } from '../../lib/config/config.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import { valueAt } from '../../lib/exec/vectors.js';

function open(conf: string): { db: Database; root: string; writeConf(text: string): void } {
  const root = mkdtempSync(join(tmpdir(), 'svcdb-trace-'));
  mkdirSync(join(root, 'conf'));
  const confPath = join(root, 'conf', 'server.conf');
  writeFileSync(confPath, conf);
  const config = loadConfig(root, { SVC_CAIRO_COMMIT_MODE: 'nosync' }).config;
  return { db: Database.open(root, { config, workerCount: 1 }), root, writeConf: (t) => writeFileSync(confPath, t) };
}

async function run(db: Database, sql: string, principal?: string): Promise<unknown[][]> {
  const s = db.compile(sql, principal);
  const out: unknown[][] = [];
  if (s.kind !== 'select') {
    await s.execute(new AbortController().signal);
    return out;
  }
  for await (const b of s.execute(new AbortController().signal))
    for (let i = 0; i < b.rowCount; i++) out.push(b.columns.map((c) => valueAt(c, i)));
  return out;
}

test('tracing is off by default: no statement makes _query_trace, which does not exist', async () => {
  const { db, root } = open('');
  try {
    await run(db, 'SELECT 1');
    await db.traceIdle();
    assert.equal(db.tableExists('_query_trace'), false);
    await assert.rejects(
      run(db, 'SELECT * FROM _query_trace'),
      (e: unknown) => e instanceof SvcError && /table does not exist/.test(e.message) && e.position === 14,
    );
  } finally {
    await db.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('with query.tracing.enabled every statement is recorded with its text, time and user', async () => {
  const { db, root } = open('query.tracing.enabled=true\n');
  try {
    await run(db, 'CREATE TABLE t (ts TIMESTAMP, x LONG) TIMESTAMP(ts) PARTITION BY DAY');
    await run(db, "INSERT INTO t VALUES ('2025-01-01', 1)");
    const before = Date.now() * 1000;
    await run(db, 'SELECT count() FROM t', 'alice');
    await db.traceIdle();
    const got = await run(db, 'SELECT query_text, principal, execution_micros >= 0, ts FROM _query_trace');
    assert.deepEqual(
      got.map((r) => r.slice(0, 3)),
      [
        ['CREATE TABLE t (ts TIMESTAMP, x LONG) TIMESTAMP(ts) PARTITION BY DAY', 'admin', true],
        ["INSERT INTO t VALUES ('2025-01-01', 1)", 'admin', true],
        ['SELECT count() FROM t', 'alice', true],
      ],
    );
    const ts = got[2]![3] as number;
    assert.ok(ts >= before - 1000 && ts <= Date.now() * 1000, 'ts is when the statement started');
    // The table QuestDB's page describes: ts designated, a day kept.
    const ddl = (await run(db, 'SHOW CREATE TABLE _query_trace'))[0]![0] as string;
    assert.match(ddl, /ts TIMESTAMP,\s+query_text VARCHAR,\s+execution_micros LONG,\s+principal VARCHAR/);
    assert.match(ddl, /timestamp\(ts\) PARTITION BY HOUR TTL 1 DAY/);
    // The page's slow-query example runs (nothing here took 100 ms).
    await db.traceIdle();
    assert.deepEqual(
      await run(
        db,
        'SELECT query_text FROM _query_trace WHERE execution_micros > 100_000 ORDER BY execution_micros DESC',
      ),
      [],
    );
    assert.deepEqual(db.traceHealth(), { dropped: 0, lastError: null });
  } finally {
    await db.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('a statement failing as it runs is traced, one failing to compile never ran; a trace never fails a statement', async () => {
  const { db, root } = open('query.tracing.enabled=true\n');
  try {
    await run(db, 'CREATE TABLE t (ts TIMESTAMP, x LONG) TIMESTAMP(ts)');
    await assert.rejects(run(db, 'INSERT INTO t VALUES (NULL, 1)'), /designated timestamp cannot be NULL/);
    await assert.rejects(run(db, 'SELECT nope FROM t'), /Invalid column/);
    await db.traceIdle();
    assert.deepEqual(await run(db, 'SELECT query_text FROM _query_trace'), [
      ['CREATE TABLE t (ts TIMESTAMP, x LONG) TIMESTAMP(ts)'],
      ['INSERT INTO t VALUES (NULL, 1)'],
    ]);
    // A _query_trace of another shape: the writes fail (counted), the statements do not.
    await run(db, 'DROP TABLE _query_trace');
    await run(db, 'CREATE TABLE _query_trace (ts TIMESTAMP, query_text INT) TIMESTAMP(ts)');
    assert.deepEqual(await run(db, 'SELECT 2 y'), [[2]]);
    await db.traceIdle();
    assert.ok(db.traceHealth().dropped > 0);
    assert.ok(db.traceHealth().lastError !== null);
  } finally {
    await db.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('reload_config() turns tracing on and off without a restart, true only when a value changed', async () => {
  const { db, root, writeConf } = open('');
  try {
    assert.deepEqual(await run(db, 'SELECT reload_config()'), [[false]]);
    writeConf('query.tracing.enabled=true\n');
    assert.deepEqual(await run(db, 'SELECT reload_config()'), [[true]]);
    assert.deepEqual(await run(db, 'SELECT reload_config()'), [[false]]);
    assert.deepEqual(
      await run(
        db,
        "SELECT value, value_source, reloadable FROM (SHOW PARAMETERS) WHERE property_path = 'query.tracing.enabled'",
      ),
      [['true', 'conf', true]],
    );
    await run(db, "SELECT 'traced' t");
    writeConf('query.tracing.enabled=false\n');
    assert.deepEqual(await run(db, 'SELECT reload_config()'), [[true]]);
    await run(db, "SELECT 'not traced' t");
    await db.traceIdle();
    // The first reload ran untraced (tracing was off when it started); the last one was traced.
    assert.deepEqual(await run(db, 'SELECT query_text FROM _query_trace'), [
      ['SELECT reload_config()'],
      ["SELECT value, value_source, reloadable FROM (SHOW PARAMETERS) WHERE property_path = 'query.tracing.enabled'"],
      ["SELECT 'traced' t"],
      ['SELECT reload_config()'],
    ]);
    // A bad server.conf is refused with its key and changes nothing.
    writeConf('query.tracing.enabled=maybe\n');
    await assert.rejects(run(db, 'SELECT reload_config()'), /query\.tracing\.enabled=maybe/);
  } finally {
    await db.close();
    rmSync(root, { recursive: true, force: true });
  }
});
