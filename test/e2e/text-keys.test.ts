// End-to-end: text keys the way users make them (a CSV uploaded to /imp, so
// the text columns are VARCHAR), grouped, DISTINCT-ed, counted distinct and
// LATEST ON-ed through /exec, each answer checked against the same work done
// in JS over the CSV's rows. The table spans partitions whose dictionaries
// differ (values only in some, NULLs, empty and multi-byte text), a column
// with too many distinct values for dictionary codes, filters that leave some
// dictionary values without rows, and appends that grow the last partition
// after its codes were built.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FormData, request } from 'undici';
import { startServer, type ServerProcess } from '../helpers/server-process.js';
import { mulberry32 } from '../helpers/prng.js';

interface Row {
  ts: string;
  sym: string | null;
  side: string;
  price: number;
  id: string;
}

const DAY_US = 86_400_000_000;
const START_US = Date.UTC(2024, 0, 1) * 1000;

/** Rows over `days` days from `fromUs`; sym values differ by day, some NULL, some empty (quoted). */
function makeRows(n: number, days: number, fromUs: number, seed: number, idBase: number): Row[] {
  const rnd = mulberry32(seed);
  const common = ['BTC-USD', 'ETH-USD', 'é-ü', '日本', '"quoted, comma"'];
  const rows: Row[] = [];
  for (let i = 0; i < n; i++) {
    const us = fromUs + Math.floor((i * days * DAY_US) / n);
    const day = Math.floor((us - START_US) / DAY_US);
    const r = rnd();
    // Values only some days have: day-specific ones, NULL on even days, the empty text on day 1.
    const sym =
      r < 0.05
        ? `ONLY-D${day}`
        : r < 0.08
          ? day % 2 === 0
            ? null
            : 'ODD'
          : r < 0.1 && day === 1
            ? ''
            : common[Math.floor(rnd() * 5)]!;
    rows.push({
      ts: new Date(us / 1000).toISOString().replace('Z', `${String(us % 1000).padStart(3, '0')}Z`),
      sym,
      side: rnd() < 0.5 ? 'buy' : 'sell',
      price: Math.round(rnd() * 1000) / 8, // exact in binary: sums do not depend on order
      id: `id-${idBase + i}`,
    });
  }
  return rows;
}

function csvOf(rows: readonly Row[]): string {
  const q = (s: string | null): string =>
    s === null ? '' : s === '' || /[",]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  return 'ts,sym,side,price,id\n' + rows.map((r) => `${r.ts},${q(r.sym)},${r.side},${r.price},${r.id}\n`).join('');
}

/** Sorted rows as JSON texts, for comparing results whose order is not defined. */
const sorted = (rows: readonly unknown[][]): string[] => rows.map((r) => JSON.stringify(r)).sort();

describe('text keys (VARCHAR from /imp) give the same answers as the rows say', () => {
  let s: ServerProcess;
  const all: Row[] = [];

  async function upload(rows: readonly Row[]): Promise<void> {
    const form = new FormData();
    form.append('data', new Blob([csvOf(rows)]), 'trades.csv');
    const r = await request(`${s.mainUrl}/imp?name=t&timestamp=ts&partitionBy=DAY&fmt=json`, {
      method: 'POST',
      body: form,
    });
    const body = (await r.body.json()) as { status: string; rowsImported: number };
    assert.equal(body.status, 'OK');
    assert.equal(body.rowsImported, rows.length);
    all.push(...rows);
  }

  async function query(sql: string): Promise<unknown[][]> {
    const r = await request(`${s.mainUrl}/exec?query=${encodeURIComponent(sql)}`);
    const body = (await r.body.json()) as { dataset: unknown[][]; error?: string };
    assert.equal(r.statusCode, 200, body.error);
    return body.dataset;
  }

  before(async () => {
    s = await startServer();
    // 4 days; day 2 holds 70k rows, so its unique ids are too many for dictionary codes; day 3 is half full.
    await upload(makeRows(30_000, 2, START_US, 1, 0));
    await upload(makeRows(70_000, 1, START_US + 2 * DAY_US, 2, 30_000));
    await upload(makeRows(20_000, 0.5, START_US + 3 * DAY_US, 3, 100_000));
  });
  after(async () => {
    await s.stop();
  });

  function groups<K>(rows: readonly Row[], key: (r: Row) => K): Map<string, { key: K; n: number; sum: number }> {
    const m = new Map<string, { key: K; n: number; sum: number }>();
    for (const r of rows) {
      const k = JSON.stringify(key(r));
      const g = m.get(k) ?? { key: key(r), n: 0, sum: 0 };
      g.n++;
      g.sum += r.price;
      m.set(k, g);
    }
    return m;
  }

  async function checkAll(): Promise<void> {
    const types = await query("select column, type from table_columns('t')");
    assert.deepEqual(
      types.filter((r) => r[0] === 'sym' || r[0] === 'id'),
      [
        ['sym', 'VARCHAR'],
        ['id', 'VARCHAR'],
      ],
    );
    const bySym = groups(all, (r) => r.sym);
    assert.deepEqual(
      sorted(await query('select sym, count(), sum(price) from t')),
      sorted([...bySym.values()].map((g) => [g.key, g.n, g.sum])),
    );
    const bySymSide = groups(all, (r) => [r.sym, r.side]);
    assert.deepEqual(
      sorted(await query('select sym, side, count() from t')),
      sorted([...bySymSide.values()].map((g) => [...g.key, g.n])),
    );
    // A filter that leaves dictionary values without rows: they make no group.
    const cheap = all.filter((r) => r.price < 20);
    assert.deepEqual(
      sorted(await query('select sym, count() from t where price < 20')),
      sorted([...groups(cheap, (r) => r.sym).values()].map((g) => [g.key, g.n])),
    );
    assert.deepEqual(
      sorted(await query('select distinct sym from t')),
      sorted([...bySym.values()].map((g) => [g.key])),
    );
    const nonNull = new Set(all.filter((r) => r.sym !== null).map((r) => r.sym));
    assert.deepEqual(await query('select count_distinct(sym) from t'), [[nonNull.size]]);
    assert.deepEqual(await query('select count_distinct(id) from t'), [[all.length]]);
    const perSide = new Map<string, Set<string>>();
    for (const r of all)
      if (r.sym !== null) (perSide.get(r.side) ?? perSide.set(r.side, new Set()).get(r.side)!).add(r.sym);
    assert.deepEqual(
      sorted(await query('select side, count_distinct(sym) from t')),
      sorted([...perSide].map(([side, set]) => [side, set.size])),
    );
    // = and != against a constant (compared per dictionary entry): NULL is not 'x', so != keeps it; '' is not NULL.
    const count = (f: (r: Row) => boolean): number => all.filter(f).length;
    assert.deepEqual(await query("select count() from t where sym = 'BTC-USD'"), [[count((r) => r.sym === 'BTC-USD')]]);
    assert.deepEqual(await query("select count() from t where sym != 'BTC-USD'"), [
      [count((r) => r.sym !== 'BTC-USD')],
    ]);
    assert.deepEqual(await query("select count() from t where 'é-ü' = sym"), [[count((r) => r.sym === 'é-ü')]]);
    assert.deepEqual(await query("select count() from t where sym = ''"), [[count((r) => r.sym === '')]]);
    assert.deepEqual(await query('select count() from t where sym = null'), [[count((r) => r.sym === null)]]);
    assert.deepEqual(await query("select count() from t where sym = 'ODD' or side = 'buy' and not sym = '日本'"), [
      [count((r) => r.sym === 'ODD' || (r.side === 'buy' && r.sym !== '日本'))],
    ]);
    // The newest row per key, oldest first (timestamps are unique).
    const latest = new Map<string, Row>();
    for (const r of all) latest.set(JSON.stringify(r.sym), r);
    const want = [...latest.values()].sort((a, b) => (a.ts < b.ts ? -1 : 1)).map((r) => [r.ts, r.sym, r.id]);
    assert.deepEqual(await query('select ts, sym, id from t latest on ts partition by sym'), want);
    const inDay = new Map<string, Row>();
    for (const r of all) if (r.ts >= '2024-01-04') inDay.set(JSON.stringify(r.sym), r);
    assert.deepEqual(
      await query("select ts, sym from t where ts in '2024-01-04' latest on ts partition by sym"),
      [...inDay.values()].sort((a, b) => (a.ts < b.ts ? -1 : 1)).map((r) => [r.ts, r.sym]),
    );
    // A high-cardinality key (no codes where a partition has too many values), grouped and DISTINCT-ed.
    assert.equal((await query('select count() from (select distinct id from t)'))[0]![0], all.length);
    const daySym = groups(all, (r) => [r.ts.slice(0, 10) + 'T00:00:00.000000Z', r.sym]);
    assert.deepEqual(
      sorted(await query('select ts, sym, count() from t sample by 1d')),
      sorted([...daySym.values()].map((g) => [...g.key, g.n])),
    );
  }

  test('group by, distinct, count_distinct, LATEST ON and SAMPLE BY keyed on VARCHAR, twice (codes built, then cached)', async () => {
    await checkAll();
    await checkAll();
  });

  test('appends to the last partition (new values too) extend its codes', async () => {
    const more = makeRows(5_000, 0.25, START_US + 3 * DAY_US + DAY_US / 2, 4, 200_000).map((r, i) =>
      i % 100 === 0 ? { ...r, sym: 'APPENDED' } : r,
    );
    await upload(more);
    await checkAll();
  });
});
