// End-to-end: views through /exec as a QuestDB user meets them: created, read like a table with
// DECLARE parameters, listed by views() and tables(), still there after a restart and after the
// server is killed mid-run; a view's folder is never taken for a table, and a failed CREATE
// VIEW leaves nothing behind.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { makeRoot, startServer, type ServerProcess } from '../helpers/server-process.js';

interface Body {
  columns?: Array<{ name: string; type: string }>;
  dataset?: unknown[][];
  error?: string;
  position?: number;
  ddl?: string;
}

describe('views over HTTP', () => {
  const root = makeRoot();
  let s: ServerProcess | null = null;
  const exec = async (query: string): Promise<{ status: number; body: Body }> => {
    const r = await request(`${s!.mainUrl}/exec?${new URLSearchParams({ query }).toString()}`);
    return { status: r.statusCode, body: (await r.body.json()) as Body };
  };
  const ok = async (query: string): Promise<Body> => {
    const r = await exec(query);
    assert.equal(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  after(async () => {
    await s?.stop();
  });

  test('a view and its parameters survive a restart and a kill', async () => {
    s = await startServer({ root });
    await ok('CREATE TABLE trades (ts TIMESTAMP, symbol SYMBOL, price DOUBLE) TIMESTAMP(ts) PARTITION BY DAY');
    await ok(
      "INSERT INTO trades VALUES ('2024-01-01T00:00:00Z', 'A', 50.0), ('2024-01-01T00:30:00Z', 'A', 150.0), ('2024-01-01T01:00:00Z', 'B', 500.0)",
    );
    const created = await ok(
      'CREATE VIEW expensive AS (\n  DECLARE OVERRIDABLE @min := 100\n  SELECT ts, symbol, price FROM trades WHERE price >= @min\n)',
    );
    assert.equal(created.ddl, 'OK');
    const read = await ok('SELECT * FROM expensive');
    assert.deepEqual(read.columns, [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'symbol', type: 'SYMBOL' },
      { name: 'price', type: 'DOUBLE' },
    ]);
    assert.deepEqual(read.dataset, [
      ['2024-01-01T00:30:00.000000Z', 'A', 150.0],
      ['2024-01-01T01:00:00.000000Z', 'B', 500.0],
    ]);
    assert.deepEqual((await ok('DECLARE @min := 400 SELECT symbol FROM expensive')).dataset, [['B']]);

    // A CREATE VIEW whose query does not bind: a SQL error at its place, and no view, no folder.
    const bad = await exec('CREATE VIEW broken AS (SELECT nope FROM trades)');
    assert.equal(bad.status, 400);
    assert.equal(bad.body.position, 30);
    assert.match(bad.body.error!, /Invalid column: nope/);
    assert.equal(existsSync(join(root, 'db', 'broken')), false);

    await s.stop();
    s = await startServer({ root });
    assert.deepEqual((await ok('SELECT view_name, view_status FROM views()')).dataset, [['expensive', 'valid']]);
    assert.deepEqual((await ok('SELECT count() FROM expensive')).dataset, [[2]]);

    await ok('ALTER VIEW expensive AS (SELECT ts, symbol, price FROM trades WHERE price > 400)');
    await s.stop('SIGKILL');
    s = await startServer({ root });
    assert.deepEqual((await ok('SELECT symbol FROM expensive')).dataset, [['B']]);
    // The view's folder holds its definition only, and the table list has both.
    assert.deepEqual(readdirSync(join(root, 'db', 'expensive')), ['_view']);
    assert.deepEqual((await ok('SELECT table_name, table_type FROM tables() ORDER BY table_name')).dataset, [
      ['expensive', 'V'],
      ['trades', 'T'],
    ]);

    await ok('DROP VIEW expensive');
    assert.equal(existsSync(join(root, 'db', 'expensive')), false);
    const gone = await exec('SELECT * FROM expensive');
    assert.equal(gone.status, 400);
    assert.equal(gone.body.error, 'table does not exist [table=expensive]');
    assert.equal(gone.body.position, 14);
  });
});
