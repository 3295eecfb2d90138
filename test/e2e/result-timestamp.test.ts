// End-to-end: the `timestamp` field of /exec answers (the result's designated
// timestamp column, -1 for none) through every kind of plan node, as QuestDB
// derives it, and what the designated timestamp of a subquery then allows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

interface Answer {
  readonly status: number;
  readonly body: {
    columns?: Array<{ name: string }>;
    timestamp?: number;
    dataset?: unknown[][];
    error?: string;
    position?: number;
  };
}

describe('result timestamp', () => {
  let s: ServerProcess;
  const exec = async (query: string): Promise<Answer> => {
    const r = await request(`${s.mainUrl}/exec?${new URLSearchParams({ query }).toString()}`);
    return { status: r.statusCode, body: (await r.body.json()) as Answer['body'] };
  };
  /** The answer's `timestamp`, checked to name a TIMESTAMP column when set. */
  const ts = async (query: string): Promise<number> => {
    const r = await exec(query);
    assert.equal(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
    return r.body.timestamp!;
  };
  const ok = async (query: string): Promise<void> => {
    assert.equal((await exec(query)).status, 200, query);
  };

  before(async () => {
    s = await startServer();
    await ok(
      'create table tt (id long, sym symbol, price double, ts timestamp, other timestamp) timestamp(ts) partition by day',
    );
    await ok(`insert into tt values
      (1, 'A', 10.0, '2024-01-01T00:00:00Z', '2024-01-03T00:00:00Z'),
      (2, 'B', 11.0, '2024-01-01T00:30:00Z', '2024-01-02T00:00:00Z'),
      (3, 'A', 12.0, '2024-01-01T01:10:00Z', '2024-01-01T00:00:00Z'),
      (4, 'B', 13.0, '2024-01-01T02:00:00Z', '2024-01-04T00:00:00Z')`);
    await ok('create table q (sym symbol, bid double, ts timestamp) timestamp(ts)');
    await ok("insert into q values ('A', 1.0, '2024-01-01T00:00:00Z'), ('B', 2.0, '2024-01-01T01:00:00Z')");
    await ok('create table plain (v int, t timestamp)');
    await ok("insert into plain values (1, '2024-01-01T00:00:00Z'), (2, '2024-01-01T00:00:01Z')");
  });
  after(async () => {
    await s.stop();
  });

  test('a table scan has its designated timestamp; sources without one have none', async () => {
    assert.equal(await ts('select * from tt'), 3);
    assert.equal(await ts('select * from plain'), -1);
    assert.equal(await ts('select x from long_sequence(3)'), -1);
    assert.equal(await ts("select timestamp_sequence('2024-01-01', 1000000) t from long_sequence(3)"), -1);
    assert.equal(await ts('select table_name from tables()'), -1);
    assert.equal(await ts('select 1'), -1);
  });

  test('a projection keeps the column itself (an alias too), not an expression of it', async () => {
    assert.equal(await ts('select ts, id from tt'), 0);
    assert.equal(await ts('select id, ts as t2 from tt'), 1);
    assert.equal(await ts('select id, ts + 1 t from tt'), -1);
    assert.equal(await ts('select id, other from tt'), -1);
    assert.equal(await ts('select id from tt'), -1);
  });

  test('filters and interval scans keep it', async () => {
    assert.equal(await ts("select id, ts from tt where ts in '2024-01-01'"), 1);
    assert.equal(await ts('select id, ts from tt where price > 10.5'), 1);
    assert.equal(await ts("select * from tt where ts > '2024-01-01T00:10' and sym = 'A'"), 3);
  });

  test('ORDER BY: a timestamp first key becomes it, in either direction; other orders drop it', async () => {
    const desc = await exec('select id, ts from tt order by ts desc');
    assert.equal(desc.body.timestamp, 1);
    assert.deepEqual(
      desc.body.dataset!.map((r) => r[0]),
      [4, 3, 2, 1],
    );
    assert.equal(await ts('select * from tt order by ts, id'), 3);
    assert.equal(await ts('select * from tt order by ts desc, id'), 3);
    assert.equal(await ts('select * from tt order by id'), -1);
    assert.equal(await ts('select * from tt order by sym, ts'), -1);
    // A non-designated TIMESTAMP column sorted first is the designated timestamp of the sorted rows.
    assert.equal(await ts('select * from tt order by other'), 4);
    assert.equal(await ts('select id, other from tt order by other desc'), 1);
    // Sorted by the timestamp that is not selected: nothing to point at.
    assert.equal(await ts('select id from tt order by ts desc'), -1);
    assert.equal(
      await ts("select x, timestamp_sequence('2024-01-01', 1000000) t from long_sequence(3) order by t desc"),
      1,
    );
  });

  test('LIMIT keeps it', async () => {
    assert.equal(await ts('select * from tt limit 2'), 3);
    assert.equal(await ts('select * from tt limit -2'), 3);
    assert.equal(await ts('select id, ts from tt order by ts desc limit 1'), 1);
  });

  test('GROUP BY and DISTINCT drop it; SAMPLE BY makes its bucket the timestamp', async () => {
    assert.equal(await ts('select sym, count() from tt'), -1);
    assert.equal(await ts('select ts, count() from tt'), -1);
    assert.equal(await ts('select distinct ts from tt'), -1);
    assert.equal(await ts('select ts, count() from tt sample by 1h'), 0);
    assert.equal(await ts('select count(), ts from tt sample by 1h'), 1);
    assert.equal(await ts('select sym, ts b, sum(price) from tt sample by 1h'), 1);
    assert.equal(await ts('select count() from tt sample by 1h'), -1);
    assert.equal(await ts('select ts, avg(price) from tt sample by 30m fill(null)'), 0);
    assert.equal(await ts('select ts, sym, count() from tt sample by 1h order by ts, sym'), 0);
    assert.equal(await ts('select ts, sym, count() from tt sample by 1h order by sym, ts'), -1);
  });

  test('window functions keep it', async () => {
    assert.equal(await ts('select ts, row_number() over (partition by sym order by ts) rn from tt'), 0);
    assert.equal(await ts('select id, sum(price) over (order by ts) s from tt'), -1);
  });

  test('LATEST ON keeps it; ordering by its keys drops it', async () => {
    assert.equal(await ts('select * from tt latest on ts partition by sym'), 3);
    assert.equal(await ts('select sym, ts from tt latest on ts partition by sym'), 1);
    assert.equal(await ts('select sym, price from tt latest on ts partition by sym order by sym'), -1);
    assert.equal(await ts('select * from tt latest on ts partition by sym, id order by sym, id'), -1);
  });

  test("joins keep the left side's; SPLICE JOIN has none", async () => {
    assert.equal(await ts('select t.ts, t.id, q.bid from tt t asof join q on (sym)'), 0);
    assert.equal(await ts('select q.bid, t.ts from tt t asof join q'), 1);
    assert.equal(await ts('select q.bid, q.ts from tt t asof join q'), -1);
    assert.equal(await ts('select t.id, t.ts from tt t lt join q on (sym)'), 1);
    assert.equal(await ts('select t.id, t.ts, q.ts from tt t splice join q'), -1);
    assert.equal(await ts('select * from tt a join tt b on a.id = b.id'), 3);
    assert.equal(await ts('select * from tt a left join q b on a.sym = b.sym'), 3);
    assert.equal(await ts('select * from tt a cross join long_sequence(2) b'), 3);
    assert.equal(await ts('select * from long_sequence(2) a cross join tt b'), -1);
  });

  test("UNION drops it; EXCEPT and INTERSECT keep the left side's", async () => {
    assert.equal(await ts('select * from tt union all select * from tt'), -1);
    assert.equal(await ts('select * from tt union select * from tt'), -1);
    assert.equal(await ts('select * from tt except select * from tt where id = 1'), 3);
    assert.equal(await ts('select * from tt intersect select * from tt where id > 1'), 3);
  });

  test('subqueries and CTEs pass it through', async () => {
    assert.equal(await ts('select * from (select ts, id from tt)'), 0);
    assert.equal(await ts('with c as (select id, ts from tt where id > 1) select * from c'), 1);
    const sampled = await exec('select ts, count() from (select * from tt where id > 1) sample by 1h');
    assert.equal(sampled.status, 200, JSON.stringify(sampled.body));
    assert.equal(sampled.body.timestamp, 0);
    assert.deepEqual(sampled.body.dataset, [
      ['2024-01-01T00:00:00.000000Z', 1],
      ['2024-01-01T01:00:00.000000Z', 1],
      ['2024-01-01T02:00:00.000000Z', 1],
    ]);
  });

  test('a subquery sorted by a timestamp can be sampled and ASOF joined on it', async () => {
    const sampled = await exec('select other, count() from (select * from tt order by other) sample by 1d');
    assert.equal(sampled.status, 200, JSON.stringify(sampled.body));
    assert.equal(sampled.body.timestamp, 0);
    assert.equal(sampled.body.dataset!.length, 4);
    const joined = await exec('select a.id, a.other, q.bid from (select * from tt order by other) a asof join q');
    assert.equal(joined.status, 200, JSON.stringify(joined.body));
    assert.equal(joined.body.timestamp, 1);
    assert.deepEqual(
      joined.body.dataset!.map((r) => [r[0], r[2]]),
      [
        [3, 1],
        [2, 2],
        [1, 2],
        [4, 2],
      ],
    );
  });

  test('rows sorted newest first cannot be sampled or ASOF joined', async () => {
    const sampled = await exec('select ts, count() from (select * from tt order by ts desc) sample by 1h');
    assert.equal(sampled.status, 400);
    assert.equal(sampled.body.error, 'base query does not provide ASC order over designated TIMESTAMP column');
    const left = await exec('select * from (select * from tt order by ts desc) a asof join q');
    assert.equal(left.status, 400);
    assert.equal(left.body.error, "left side of time series join doesn't have ASC timestamp order");
    const right = await exec('select * from tt asof join (select * from q order by ts desc) b');
    assert.equal(right.status, 400);
    assert.equal(right.body.error, "right side of time series join doesn't have ASC timestamp order");
  });

  test('TIMESTAMP(col) on a FROM source designates the column', async () => {
    const sub = "(select x, timestamp_sequence('2024-01-01', 500000) t from long_sequence(4)) timestamp(t)";
    assert.equal(await ts(`select * from ${sub}`), 1);
    const sampled = await exec(`select t, count() from ${sub} sample by 1s`);
    assert.equal(sampled.status, 200, JSON.stringify(sampled.body));
    assert.equal(sampled.body.timestamp, 0);
    assert.deepEqual(sampled.body.dataset, [
      ['2024-01-01T00:00:00.000000Z', 2],
      ['2024-01-01T00:00:01.000000Z', 2],
    ]);
    assert.equal(await ts('select * from plain timestamp(t)'), 1);
    assert.equal(await ts('select v, t from plain timestamp(t) where v > 0'), 1);
    assert.equal(await ts('select * from tt timestamp(ts)'), 3);
    assert.equal(await ts("select * from tt timestamp(ts) where ts in '2024-01-01T01'"), 3);
    const joined = await exec('select p.v, q.bid from plain timestamp(t) p asof join q');
    assert.equal(joined.status, 200, JSON.stringify(joined.body));
    assert.deepEqual(joined.body.dataset, [
      [1, 1],
      [2, 1],
    ]);
    const missing = await exec('select * from plain timestamp(nosuch)');
    assert.equal(missing.status, 400);
    assert.deepEqual([missing.body.error, missing.body.position], ['Invalid column: nosuch', 30]);
    const notTs = await exec('select * from plain timestamp(v)');
    assert.equal(notTs.status, 400);
    assert.deepEqual([notTs.body.error, notTs.body.position], ['not a TIMESTAMP', 30]);
  });
});
