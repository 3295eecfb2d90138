// Live views driven as a user drives them, through the Database every front end uses: a base
// table, a live view over it, commits (in timestamp order, out of order, a TRUNCATE), refreshes
// (matViewsIdle() runs the ones waiting for FLUSH EVERY; one test waits for the timer itself),
// the view's rows compared with its window query run directly, and a restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../../lib/db/database.js';
import { valueAt } from '../../lib/exec/vectors.js';

const WINDOW =
  'SELECT timestamp, symbol, price, avg(price) OVER (PARTITION BY symbol ORDER BY timestamp ROWS 2 PRECEDING) AS moving_avg, ' +
  'sum(amount) OVER (PARTITION BY symbol ORDER BY timestamp ROWS 1 PRECEDING) AS vol FROM trades';

function open(root: string): Database {
  return Database.open(root, { workerCount: 1 });
}

async function exec(db: Database, sql: string): Promise<unknown[][]> {
  const signal = new AbortController().signal;
  const s = db.compile(sql);
  const out: unknown[][] = [];
  if (s.kind !== 'select') {
    await s.execute(signal);
    return out;
  }
  for await (const b of s.execute(signal))
    for (let i = 0; i < b.rowCount; i++) out.push(b.columns.map((c) => valueAt(c, i)));
  return out;
}

async function withDb(f: (root: string) => Promise<void>): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'svcdb-live-'));
  try {
    await f(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const BASE =
  'CREATE TABLE trades (symbol SYMBOL, side SYMBOL, price DOUBLE, amount DOUBLE, timestamp TIMESTAMP) TIMESTAMP(timestamp) PARTITION BY DAY WAL';

/** Rows of a day: symbols A and B alternating, prices rising, from `from` seconds on. */
function rowsSql(day: string, from: number, n: number): string {
  const out: string[] = [];
  for (let i = from; i < from + n; i++) {
    const s = String(i % 60).padStart(2, '0');
    const m = String(Math.floor(i / 60)).padStart(2, '0');
    out.push(`('${i % 2 === 0 ? 'A' : 'B'}', 'buy', ${i + 0.5}, ${i % 7}, '${day}T00:${m}:${s}.000000Z')`);
  }
  return out.join(', ');
}

async function assertMatches(db: Database, view: string, query: string): Promise<void> {
  assert.deepEqual(await exec(db, `SELECT * FROM ${view}`), await exec(db, query));
}

test('a live view seeds, follows in-order and out-of-order commits with the rows of its query, and survives a restart', async () => {
  await withDb(async (root) => {
    let db = open(root);
    try {
      await exec(db, BASE);
      await exec(db, `INSERT INTO trades VALUES ${rowsSql('2024-01-01', 0, 20)}`);
      await exec(db, `CREATE LIVE VIEW trades_ma FLUSH EVERY 1s START FROM BEGINNING AS (${WINDOW})`);
      await db.matViewsIdle();
      await assertMatches(db, 'trades_ma', WINDOW);
      assert.equal((await exec(db, 'SELECT count() FROM trades_ma'))[0]![0], 20);

      // Rows after the last ones (the next day too): appended.
      await exec(db, `INSERT INTO trades VALUES ${rowsSql('2024-01-01', 20, 10)}, ${rowsSql('2024-01-02', 0, 5)}`);
      await db.matViewsIdle();
      await assertMatches(db, 'trades_ma', WINDOW);
      // A row at the last timestamp (a peer of the view's last row) and rows in the past: recomputed.
      await exec(db, `INSERT INTO trades VALUES ('A', 'sell', 99, 9, '2024-01-02T00:00:04.000000Z')`);
      await exec(db, `INSERT INTO trades VALUES ${rowsSql('2024-01-01', 3, 2)}`);
      await db.matViewsIdle();
      await assertMatches(db, 'trades_ma', WINDOW);
      assert.equal((await exec(db, 'SELECT count() FROM trades_ma'))[0]![0], 38);
      assert.deepEqual(
        await exec(db, "SELECT view_status, lag_seqtxn FROM live_views() WHERE view_name = 'trades_ma'"),
        [['active', 0]],
      );

      await db.close();
      db = open(root);
      await assertMatches(db, 'trades_ma', WINDOW);
      // Committed after the restart: the reopened refresher follows.
      await exec(db, `INSERT INTO trades VALUES ${rowsSql('2024-01-03', 0, 4)}`);
      await db.matViewsIdle();
      await assertMatches(db, 'trades_ma', WINDOW);
      assert.match(String((await exec(db, 'SHOW CREATE LIVE VIEW trades_ma'))[0]![0]), /START FROM BEGINNING AS/);
    } finally {
      await db.close();
    }
  });
});

test('START FROM keeps the base rows from that timestamp on, the window starting there', async () => {
  await withDb(async (root) => {
    const db = open(root);
    try {
      await exec(db, BASE);
      await exec(db, `INSERT INTO trades VALUES ${rowsSql('2024-01-01', 0, 10)}, ${rowsSql('2024-01-02', 0, 10)}`);
      await exec(db, `CREATE LIVE VIEW lv FLUSH EVERY 100ms START FROM '2024-01-02' AS (${WINDOW})`);
      await db.matViewsIdle();
      const direct = `${WINDOW} WHERE timestamp >= '2024-01-02'`;
      await assertMatches(db, 'lv', direct);
      assert.equal((await exec(db, 'SELECT count() FROM lv'))[0]![0], 10);
      // START FROM NOW: rows dated before the view's creation stay out.
      await exec(db, `CREATE LIVE VIEW lv_now FLUSH EVERY 100ms START FROM NOW AS (${WINDOW})`);
      await exec(db, `INSERT INTO trades VALUES ${rowsSql('2024-01-03', 0, 3)}`);
      await db.matViewsIdle();
      assert.deepEqual(await exec(db, 'SELECT count() FROM lv_now'), [[0]]);
    } finally {
      await db.close();
    }
  });
});

test('a commit refreshes the view within its FLUSH EVERY without being asked', async () => {
  await withDb(async (root) => {
    const db = open(root);
    try {
      await exec(db, BASE);
      await exec(db, `CREATE LIVE VIEW lv FLUSH EVERY 100ms START FROM BEGINNING AS (${WINDOW})`);
      await db.matViewsIdle();
      for (let k = 0; k < 3; k++) {
        await exec(db, `INSERT INTO trades VALUES ${rowsSql('2024-01-01', k * 5, 5)}`);
        // What a user does: watch live_views() until the view has caught up.
        for (let i = 0; i < 200; i++) {
          const [[lag]] = (await exec(db, "SELECT lag_seqtxn FROM live_views() WHERE view_name = 'lv'")) as [[number]];
          if (lag === 0) break;
          await new Promise((r) => setTimeout(r, 10));
        }
        await assertMatches(db, 'lv', WINDOW);
      }
    } finally {
      await db.close();
    }
  });
});

test('TRUNCATE of the base table keeps the rows the view holds; SUSPEND WAL pauses it until RESUME WAL', async () => {
  await withDb(async (root) => {
    const db = open(root);
    try {
      await exec(db, BASE);
      await exec(db, `INSERT INTO trades VALUES ${rowsSql('2024-01-01', 0, 6)}`);
      await exec(db, `CREATE LIVE VIEW lv FLUSH EVERY 100ms START FROM BEGINNING AS (${WINDOW})`);
      await db.matViewsIdle();
      const before = await exec(db, 'SELECT * FROM lv');
      await exec(db, 'TRUNCATE TABLE trades');
      await exec(db, `INSERT INTO trades VALUES ${rowsSql('2024-01-02', 0, 4)}`);
      await db.matViewsIdle();
      const after = await exec(db, 'SELECT * FROM lv');
      assert.deepEqual(after.slice(0, 6), before);
      assert.deepEqual(after.slice(6), await exec(db, WINDOW));

      await exec(db, 'ALTER LIVE VIEW lv SUSPEND WAL');
      await exec(db, `INSERT INTO trades VALUES ${rowsSql('2024-01-03', 0, 2)}`);
      await db.matViewsIdle();
      assert.equal((await exec(db, 'SELECT count() FROM lv'))[0]![0], 10);
      await exec(db, 'ALTER LIVE VIEW lv RESUME WAL');
      await db.matViewsIdle();
      assert.equal((await exec(db, 'SELECT count() FROM lv'))[0]![0], 12);
      await exec(db, 'DROP LIVE VIEW lv');
      assert.deepEqual(await exec(db, 'SELECT count() FROM live_views()'), [[0]]);
    } finally {
      await db.close();
    }
  });
});

test('an anchored live view restarts its cumulative sum and row numbers at each anchor boundary', async () => {
  await withDb(async (root) => {
    const db = open(root);
    try {
      await exec(db, BASE);
      await exec(
        db,
        `INSERT INTO trades VALUES ('A', 'buy', 1, 1, '2024-01-01T09:00:00Z'), ('A', 'buy', 2, 1, '2024-01-01T09:30:00Z'), ('B', 'buy', 5, 1, '2024-01-01T10:00:00Z'), ('A', 'buy', 3, 1, '2024-01-02T09:29:00Z'), ('A', 'buy', 4, 1, '2024-01-02T09:30:00Z')`,
      );
      await exec(
        db,
        `CREATE LIVE VIEW lv FLUSH EVERY 100ms START FROM BEGINNING AS SELECT timestamp, symbol, sum(price) OVER w AS s, row_number() OVER w AS rn FROM trades WINDOW w AS (PARTITION BY symbol ORDER BY timestamp ANCHOR DAILY '09:30')`,
      );
      await db.matViewsIdle();
      const rows = await exec(db, 'SELECT symbol, s, rn FROM lv ORDER BY symbol, timestamp');
      assert.deepEqual(rows, [
        ['A', 1, 1],
        ['A', 2, 1],
        ['A', 5, 2],
        ['A', 4, 1],
        ['B', 5, 1],
      ]);
    } finally {
      await db.close();
    }
  });
});
