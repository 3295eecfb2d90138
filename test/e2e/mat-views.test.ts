// End-to-end: materialized views through /exec as a QuestDB user drives them. A SAMPLE BY view
// over a base table follows its commits (in order and out of order) with the same rows as the
// query run directly; MANUAL and timer views refresh when QuestDB's rules say; the view survives
// a restart and a kill, catches up on what its base table committed while it was not refreshed,
// and is never ahead of it; changes a refresh cannot follow make it invalid until REFRESH FULL.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FormData, request } from 'undici';
import { makeRoot, startServer, type ServerProcess } from '../helpers/server-process.js';

interface Body {
  columns?: Array<{ name: string; type: string }>;
  dataset?: unknown[][];
  error?: string;
  position?: number;
}

const QUERY =
  'SELECT timestamp, symbol, first(price) AS open, max(price) AS high, sum(amount) AS volume FROM trades SAMPLE BY 1m';

describe('materialized views over HTTP', () => {
  const root = makeRoot();
  let s: ServerProcess | null = null;
  const exec = async (query: string): Promise<{ status: number; body: Body }> => {
    const r = await request(`${s!.mainUrl}/exec?${new URLSearchParams({ query }).toString()}`);
    return { status: r.statusCode, body: (await r.body.json()) as Body };
  };
  const rows = async (query: string): Promise<unknown[][]> => {
    const r = await exec(query);
    assert.equal(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
    return r.body.dataset ?? [];
  };
  const ok = async (query: string): Promise<void> => {
    await rows(query);
  };
  /** Waits until the view has refreshed up to its base table's last commit; the view is never ahead. */
  const caughtUp = async (view: string): Promise<void> => {
    for (let i = 0; i < 200; i++) {
      const [[refreshed, base, status]] = (await rows(
        `SELECT refresh_base_table_txn, base_table_txn, view_status FROM materialized_views() WHERE view_name = '${view}'`,
      )) as [[number, number, string]];
      assert.ok(refreshed <= base, `the view is never ahead of its base table (${refreshed} > ${base})`);
      if (refreshed === base || status === 'invalid') return;
      await new Promise((r) => setTimeout(r, 25));
    }
    assert.fail(`${view} did not catch up`);
  };
  /** The view's rows equal the query run directly on the base table. */
  const matches = async (view: string, query = QUERY): Promise<void> => {
    assert.deepEqual(await rows(`SELECT * FROM ${view} ORDER BY 1, 2`), await rows(`${query} ORDER BY 1, 2`));
  };
  const insert = (rowsSql: string): Promise<void> => ok(`INSERT INTO trades VALUES ${rowsSql}`);

  after(async () => {
    await s?.stop();
  });

  test('an IMMEDIATE view follows every commit of its base table, across a restart and a kill', async () => {
    s = await startServer({ root });
    await ok(
      'CREATE TABLE trades (timestamp TIMESTAMP, symbol SYMBOL, price DOUBLE, amount DOUBLE) TIMESTAMP(timestamp) PARTITION BY DAY WAL',
    );
    await insert(
      "('2024-01-01T00:00:10Z', 'A', 10.0, 1.0), ('2024-01-01T00:00:50Z', 'A', 12.0, 2.0), ('2024-01-01T00:01:10Z', 'B', 20.0, 3.0)",
    );
    await ok(`CREATE MATERIALIZED VIEW trades_1m AS (${QUERY}) PARTITION BY DAY`);
    await caughtUp('trades_1m');
    await matches('trades_1m');
    const [row] = (await rows(
      "SELECT table_type, matView, dedup, partitionBy FROM tables() WHERE table_name = 'trades_1m'",
    )) as unknown[][];
    assert.deepEqual(row, ['M', true, true, 'DAY']);

    // Rows in order into the last bucket and a new one, then rows older than the view's buckets.
    await insert("('2024-01-01T00:01:20Z', 'B', 25.0, 4.0), ('2024-01-01T00:02:00Z', 'A', 9.0, 1.0)");
    await caughtUp('trades_1m');
    await matches('trades_1m');
    await insert("('2024-01-01T00:00:30Z', 'A', 100.0, 10.0), ('2023-12-31T23:59:00Z', 'C', 5.0, 5.0)");
    await caughtUp('trades_1m');
    await matches('trades_1m');

    // A view cannot be written to.
    const refused = await exec("INSERT INTO trades_1m VALUES ('2024-01-01T00:00:00Z', 'A', 1.0, 1.0, 1.0)");
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, 'cannot modify materialized view [view=trades_1m]');
    assert.equal(refused.body.position, 12);

    await s.stop();
    s = await startServer({ root });
    await matches('trades_1m');
    await insert("('2024-01-01T00:03:00Z', 'B', 30.0, 1.0)");
    await s.stop('SIGKILL');
    s = await startServer({ root });
    // Whether or not the refresh of that commit ran before the kill, the view catches up at open.
    await caughtUp('trades_1m');
    await matches('trades_1m');
  });

  test('a view whose state is behind its rows (a crash between the two writes) refreshes to the same rows', async () => {
    await s!.stop();
    // As if the process died after the view's rows were committed and before its state was: the
    // state says it never refreshed. The refresh at open rewrites every bucket; nothing doubles.
    const statePath = join(root, 'db', 'trades_1m', '_mv.s');
    const state = JSON.parse(readFileSync(statePath, 'utf8')) as Record<string, unknown>;
    writeFileSync(statePath, JSON.stringify({ ...state, baseTxn: -1, basePartitions: [] }));
    s = await startServer({ root });
    await caughtUp('trades_1m');
    await matches('trades_1m');
  });

  test('MANUAL views wait for REFRESH; timer views refresh on their own; DEFERRED starts empty', async () => {
    await ok(
      'CREATE MATERIALIZED VIEW manual_1h REFRESH MANUAL AS (SELECT timestamp, count() c FROM trades SAMPLE BY 1h)',
    );
    await ok(
      'CREATE MATERIALIZED VIEW later_1h REFRESH MANUAL DEFERRED AS (SELECT timestamp, count() c FROM trades SAMPLE BY 1h)',
    );
    await caughtUp('manual_1h');
    assert.deepEqual(await rows('SELECT * FROM later_1h'), []);
    const before = await rows('SELECT * FROM manual_1h');
    await insert("('2024-01-01T05:00:00Z', 'A', 1.0, 100.0)");
    await new Promise((r) => setTimeout(r, 200));
    assert.deepEqual(await rows('SELECT * FROM manual_1h'), before, 'a MANUAL view does not follow commits');
    await ok('REFRESH MATERIALIZED VIEW manual_1h');
    await matches('manual_1h', 'SELECT timestamp, count() c FROM trades SAMPLE BY 1h');
    await ok('REFRESH MATERIALIZED VIEW later_1h INCREMENTAL');
    await matches('later_1h', 'SELECT timestamp, count() c FROM trades SAMPLE BY 1h');
    // QuestDB's shortest timer is 1m; a START 59.5 s ago puts the first tick half a second from now.
    // DEFERRED: the view stays empty until that tick fills it.
    const start = new Date(Date.now() - 59_500).toISOString();
    await ok(
      `CREATE MATERIALIZED VIEW timer_1d REFRESH EVERY 1m START '${start}' DEFERRED AS (SELECT timestamp, sum(amount) v FROM trades SAMPLE BY 1d)`,
    );
    assert.deepEqual(await rows('SELECT * FROM timer_1d'), []);
    await caughtUp('timer_1d');
    await matches('timer_1d', 'SELECT timestamp, sum(amount) v FROM trades SAMPLE BY 1d');
    const tooFast = await exec(
      'CREATE MATERIALIZED VIEW t2 REFRESH EVERY 10s AS (SELECT timestamp, count() FROM trades SAMPLE BY 1d)',
    );
    assert.equal(tooFast.status, 400);
    assert.match(tooFast.body.error!, /refresh interval must be at least 1m/);
    const [[type, interval, unit]] = (await rows(
      "SELECT refresh_type, timer_interval, timer_interval_unit FROM materialized_views() WHERE view_name = 'timer_1d'",
    )) as unknown[][] as [[string, number, string]];
    assert.deepEqual([type, interval, unit], ['timer', 1, 'm']);
  });

  test('a PERIOD view applies whole periods only; the rest waits for its period to close', async () => {
    await ok(
      'CREATE MATERIALIZED VIEW period_1d REFRESH PERIOD (LENGTH 1d) AS (SELECT timestamp, sum(amount) v FROM trades SAMPLE BY 1h)',
    );
    await caughtUp('period_1d');
    const direct = await rows('SELECT timestamp, sum(amount) v FROM trades SAMPLE BY 1h ORDER BY 1');
    assert.deepEqual(await rows('SELECT * FROM period_1d ORDER BY 1'), direct);
    // A row in a period that has not ended (years from now) is seen but not applied.
    await insert("('2099-06-01T10:00:00Z', 'F', 1.0, 42.0)");
    await caughtUp('period_1d');
    assert.deepEqual(await rows('SELECT * FROM period_1d ORDER BY 1'), direct);
    const [[hi]] = (await rows("SELECT refresh_period_hi FROM materialized_views() WHERE view_name = 'period_1d'")) as [
      [string],
    ];
    assert.equal(hi, `${new Date().toISOString().slice(0, 10)}T00:00:00.000000Z`, 'the end of the last whole day');
    // An older row arriving later is applied with its period; the future one still waits.
    await insert("('2024-01-01T07:00:00Z', 'A', 1.0, 7.0)");
    await caughtUp('period_1d');
    assert.deepEqual(
      await rows('SELECT * FROM period_1d ORDER BY 1'),
      await rows("SELECT timestamp, sum(amount) v FROM trades WHERE timestamp < '2099' SAMPLE BY 1h ORDER BY 1"),
    );
  });

  test('TRUNCATE of the base table makes its views invalid until REFRESH FULL', async () => {
    await ok('TRUNCATE TABLE trades');
    const [[status, reason]] = (await rows(
      "SELECT view_status, invalidation_reason FROM materialized_views() WHERE view_name = 'trades_1m'",
    )) as [[string, string]];
    assert.deepEqual([status, reason], ['invalid', 'truncate operation']);
    await insert("('2024-02-01T00:00:00Z', 'Z', 1.0, 1.0)");
    await ok('REFRESH MATERIALIZED VIEW trades_1m FULL');
    assert.deepEqual(await rows("SELECT view_status FROM materialized_views() WHERE view_name = 'trades_1m'"), [
      ['valid'],
    ]);
    await matches('trades_1m');
    await ok('DROP MATERIALIZED VIEW trades_1m');
    assert.equal((await exec('SELECT * FROM trades_1m')).status, 400);
  });

  test("partitions the base table's TTL removes leave the view valid, with its rows", async () => {
    await ok('CREATE TABLE kept (ts TIMESTAMP, v LONG) TIMESTAMP(ts) PARTITION BY DAY TTL 1 DAY WAL');
    await ok('CREATE MATERIALIZED VIEW kept_1d AS (SELECT ts, sum(v) s FROM kept SAMPLE BY 1d) PARTITION BY DAY');
    await ok("INSERT INTO kept VALUES ('2024-01-01T10:00:00Z', 1), ('2024-01-02T10:00:00Z', 2)");
    await caughtUp('kept_1d');
    await ok("INSERT INTO kept VALUES ('2024-01-03T10:00:00Z', 3)");
    await caughtUp('kept_1d');
    assert.deepEqual(await rows('SELECT v FROM kept'), [[2], [3]], 'the TTL removed the first day');
    assert.deepEqual(await rows('SELECT s FROM kept_1d'), [[1], [2], [3]]);
    assert.deepEqual(await rows("SELECT view_status FROM materialized_views() WHERE view_name = 'kept_1d'"), [
      ['valid'],
    ]);
    // The view's own TTL removes its old partitions as a table's does.
    await ok('ALTER MATERIALIZED VIEW kept_1d SET TTL 1 DAY');
    assert.deepEqual(await rows('SELECT s FROM kept_1d'), [[2], [3]]);
    assert.deepEqual(await rows("SELECT ttlValue, ttlUnit FROM tables() WHERE table_name = 'kept_1d'"), [[1, 'DAY']]);
    const bad = await exec('ALTER MATERIALIZED VIEW kept_1d SET TTL 5 HOURS');
    assert.deepEqual(
      [bad.status, bad.body.error, bad.body.position],
      [400, 'TTL value must be an integer multiple of partition size', 40],
    );
  });

  test('a view over a table made by /imp (VARCHAR text) follows CSV batches appended with /imp', async () => {
    const imp = async (csv: string): Promise<void> => {
      const form = new FormData();
      form.append('data', new Blob([csv]), 'ticks.csv');
      const q = new URLSearchParams({ name: 'ticks', timestamp: 'ts', partitionBy: 'DAY', fmt: 'json' });
      const r = await request(`${s!.mainUrl}/imp?${q.toString()}`, { method: 'POST', body: form });
      const report = (await r.body.json()) as { rowsRejected?: number };
      assert.equal(r.statusCode, 200);
      assert.equal(report.rowsRejected, 0);
    };
    const query = 'SELECT ts, venue, min(px) AS low, count() AS n FROM ticks SAMPLE BY 1m';
    await imp('ts,venue,px\n2024-03-01T00:00:05.000000Z,xnas,1.5\n2024-03-01T00:00:55.000000Z,arca,2.5\n');
    assert.deepEqual(await rows("SELECT type FROM table_columns('ticks') WHERE column = 'venue'"), [['VARCHAR']]);
    await ok(`CREATE MATERIALIZED VIEW ticks_1m AS (${query}) PARTITION BY DAY`);
    await caughtUp('ticks_1m');
    await matches('ticks_1m', query);
    await imp('ts,venue,px\n2024-03-01T00:00:30.000000Z,xnas,0.5\n2024-03-01T00:03:00.000000Z,bats,9.0\n');
    await caughtUp('ticks_1m');
    await matches('ticks_1m', query);
    assert.deepEqual(
      await rows("SELECT venue, low, n FROM ticks_1m WHERE ts = '2024-03-01T00:00:00.000000Z' ORDER BY venue"),
      [
        ['arca', 2.5, 1],
        ['xnas', 0.5, 2],
      ],
    );
  });
});
