// EXPIRE ROWS read through a database that refreshes its views: which rows each mode hides
// (QuestDB's "Expiring rows" worked example), a passthrough view following its base table's
// commits, and the policy kept across a restart. The statements and errors: golden 101.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase, type Database } from '../../lib/index.js';

const ROWS =
  "('BTC', 100.0, 1.0, '2024-01-01T10:00:00.000000Z'), ('BTC', 105.0, 2.0, '2024-01-01T11:00:00.000000Z'), " +
  "('BTC', 102.0, 1.5, '2024-01-02T09:00:00.000000Z'), ('ETH', 50.0, 3.0, '2024-01-01T10:30:00.000000Z'), " +
  "('ETH', 55.0, 1.0, '2024-01-02T08:00:00.000000Z')";

async function rows(db: Database, sql: string): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const r of db.query(sql).rows()) out.push(Object.values(r));
  return out;
}

async function setup(root: string): Promise<Database> {
  const db = openDatabase(root, { workerCount: 1 });
  await db.execute(
    'CREATE TABLE trades (symbol SYMBOL, price DOUBLE, amount DOUBLE, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL',
  );
  await db.execute(`INSERT INTO trades VALUES ${ROWS}`);
  await db.execute('CREATE MATERIALIZED VIEW v AS (SELECT * FROM trades)');
  await db.execute('REFRESH MATERIALIZED VIEW v FULL');
  return db;
}

test('each mode hides the rows the documentation says it expires', async () => {
  const root = mkdtempSync(join(tmpdir(), 'svcdb-expire-'));
  const db = await setup(root);
  try {
    const policy = async (clause: string, sql: string): Promise<unknown[][]> => {
      await db.execute(`ALTER MATERIALIZED VIEW v SET EXPIRE ROWS ${clause}`);
      return rows(db, sql);
    };
    const prices = 'SELECT symbol, price FROM v ORDER BY symbol, price DESC';
    assert.deepEqual(await rows(db, 'SELECT count() FROM v'), [[5]]);
    assert.deepEqual(await policy('WHEN amount < 1.5', 'SELECT symbol, amount FROM v'), [
      ['ETH', 3],
      ['BTC', 2],
      ['BTC', 1.5],
    ]);
    assert.deepEqual(await policy('KEEP LATEST PARTITION BY symbol', 'SELECT symbol, price FROM v'), [
      ['ETH', 55],
      ['BTC', 102],
    ]);
    assert.deepEqual(await policy('KEEP HIGHEST price PARTITION BY symbol', prices), [
      ['BTC', 105],
      ['ETH', 55],
    ]);
    assert.deepEqual(await policy('KEEP LOWEST price PARTITION BY symbol', prices), [
      ['BTC', 100],
      ['ETH', 50],
    ]);
    assert.deepEqual(await policy('KEEP 2 HIGHEST price PARTITION BY symbol', prices), [
      ['BTC', 105],
      ['BTC', 102],
      ['ETH', 55],
      ['ETH', 50],
    ]);
    assert.deepEqual(await policy('WHEN price < max(price) OVER (PARTITION BY symbol)', prices), [
      ['BTC', 105],
      ['ETH', 55],
    ]);
    // A rolling window on the clock: every 2024 row is older than a day.
    assert.deepEqual(await policy("WHEN ts < dateadd('d', -1, now())", 'SELECT count() FROM v'), [[0]]);
    // The rows never left the disk: dropping the policy shows them all again.
    await db.execute('ALTER MATERIALIZED VIEW v DROP EXPIRE');
    assert.deepEqual(await rows(db, 'SELECT count() FROM v'), [[5]]);
  } finally {
    await db.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('new base rows reach a passthrough view and a KEEP LATEST policy follows them', async () => {
  const root = mkdtempSync(join(tmpdir(), 'svcdb-expire-'));
  const db = await setup(root);
  try {
    await db.execute('ALTER MATERIALIZED VIEW v SET EXPIRE ROWS KEEP LATEST PARTITION BY symbol');
    // In order, out of order (into the first day) and a new partition.
    await db.execute("INSERT INTO trades VALUES ('ETH', 56.0, 2.5, '2024-01-02T12:00:00.000000Z')");
    await db.execute("INSERT INTO trades VALUES ('XRP', 0.5, 9.0, '2024-01-01T00:00:00.000000Z')");
    await db.execute("INSERT INTO trades VALUES ('BTC', 99.0, 1.0, '2024-01-03T00:00:00.000000Z')");
    await db.execute('REFRESH MATERIALIZED VIEW v INCREMENTAL');
    assert.deepEqual(await rows(db, 'SELECT symbol, price FROM v'), [
      ['XRP', 0.5],
      ['ETH', 56],
      ['BTC', 99],
    ]);
    await db.execute('ALTER MATERIALIZED VIEW v DROP EXPIRE');
    assert.deepEqual(await rows(db, 'SELECT count() FROM v'), [[8]]);
    assert.deepEqual(await rows(db, 'SELECT count() FROM (SELECT * FROM trades EXCEPT SELECT * FROM v)'), [[0]]);
  } finally {
    await db.close();
    rmSync(root, { recursive: true, force: true });
  }
});

test('the policy survives a restart', async () => {
  const root = mkdtempSync(join(tmpdir(), 'svcdb-expire-'));
  let db = await setup(root);
  try {
    await db.execute('ALTER MATERIALIZED VIEW v SET EXPIRE ROWS KEEP 1 HIGHEST price CLEANUP EVERY 10m');
    await db.close();
    db = openDatabase(root, { workerCount: 1 });
    assert.deepEqual(await rows(db, 'SELECT symbol, price FROM v'), [['BTC', 105]]);
    assert.deepEqual(
      await rows(db, 'SELECT expire_clause, expire_cleanup_every, expire_enforcement FROM materialized_views()'),
      [['KEEP 1 HIGHEST price', '10m', 'FILTER_ONLY']],
    );
  } finally {
    await db.close();
    rmSync(root, { recursive: true, force: true });
  }
});
