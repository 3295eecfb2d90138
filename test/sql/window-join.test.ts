// Seeded randomized differential test of WINDOW JOIN: random windows (past, future, around),
// keys or none, INCLUDE / EXCLUDE PREVAILING, right-table filters and the common aggregates over
// random multi-partition tables (duplicate timestamps, NULL keys and values), run through compile()
// and through a brute-force evaluator (per left row: every right row tested by definition).
// Reproduce a failure with SVCDB_WJOIN_SEED=<seed>; SVCDB_WJOIN_QUERIES sets the count.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { compile } from '../../lib/exec/engine.js';
import { valueAt } from '../../lib/exec/vectors.js';
import { timeJoinTables, type Row } from '../helpers/time-join-tables.js';
import { ENGINE } from '../helpers/engine.js';

const SEED = Number(process.env.SVCDB_WJOIN_SEED ?? 20250101);
const QUERIES = Number(process.env.SVCDB_WJOIN_QUERIES ?? 60);

type V = number | string | null;

const fx = timeJoinTables('svcdb-wjoin-', SEED);
const { catalog, signal, rand, int, exec, makeRows, fill } = fx;
const left: Row[] = [];
const right: Row[] = [];

before(async () => {
  await exec('CREATE TABLE l (ts TIMESTAMP, k SYMBOL, v DOUBLE) TIMESTAMP(ts) PARTITION BY DAY');
  await exec('CREATE TABLE r (ts TIMESTAMP, k SYMBOL, v DOUBLE) TIMESTAMP(ts) PARTITION BY HOUR');
  left.push(...makeRows(300, 1200));
  right.push(...makeRows(600, 600));
  await fill('l', left);
  await fill('r', right);
  assert.ok(right[right.length - 1]!.ts - right[0]!.ts > 3 * 3_600_000_000, 'the right table spans several partitions');
});

after(() => {
  fx.remove();
});

const AGGS = ['sum', 'count', 'count_star', 'avg', 'min', 'max', 'first', 'last'] as const;
type Agg = (typeof AGGS)[number];

function aggregate(agg: Agg, rows: readonly Row[]): V {
  const vs = rows.map((r) => r.v).filter((v): v is number => v !== null);
  switch (agg) {
    case 'count_star':
      return rows.length;
    case 'count':
      return vs.length;
    case 'sum':
      return vs.length === 0 ? null : vs.reduce((a, b) => a + b, 0);
    case 'avg':
      return vs.length === 0 ? null : vs.reduce((a, b) => a + b, 0) / vs.length;
    case 'min':
      return vs.length === 0 ? null : Math.min(...vs);
    case 'max':
      return vs.length === 0 ? null : Math.max(...vs);
    case 'first':
      return rows.length === 0 ? null : rows[0]!.v;
    case 'last':
      return rows.length === 0 ? null : rows[rows.length - 1]!.v;
  }
}

interface Spec {
  agg: Agg;
  lo: number;
  hi: number;
  keyed: boolean;
  prevailing: boolean;
  /** Right rows with v > this only (a right-table ON condition), or null. */
  above: number | null;
  /** Right rows with v > the left row's v only (a condition on both tables, run per pair). */
  pair: boolean;
}

/** The expected value per left row, by definition. */
function expected(s: Spec): V[] {
  return left.map((l) => {
    const candidates = right.filter(
      (r) =>
        (!s.keyed || r.k === l.k) &&
        (s.above === null || (r.v !== null && r.v > s.above)) &&
        (!s.pair || (r.v !== null && l.v !== null && r.v > l.v)),
    );
    const start = l.ts + s.lo * 1_000_000;
    const end = l.ts + s.hi * 1_000_000;
    const rows = candidates.filter((r) => r.ts >= start && r.ts <= end);
    if (s.prevailing) {
      const before = candidates.filter((r) => r.ts <= start);
      const p = before[before.length - 1];
      if (p !== undefined && p.ts < start) rows.unshift(p);
    }
    return aggregate(s.agg, rows);
  });
}

function bound(n: number): string {
  return n === 0 ? 'CURRENT ROW' : `${Math.abs(n)} seconds ${n < 0 ? 'PRECEDING' : 'FOLLOWING'}`;
}

function sqlOf(s: Spec): string {
  const call = s.agg === 'count_star' ? 'count()' : `${s.agg}(r.v)`;
  const on = [s.keyed ? 'l.k = r.k' : '', s.above !== null ? `r.v > ${s.above}` : '', s.pair ? 'r.v > l.v' : ''].filter(
    (c) => c !== '',
  );
  return (
    `SELECT ${call} FROM l WINDOW JOIN r${on.length > 0 ? ` ON ${on.join(' AND ')}` : ''} ` +
    `RANGE BETWEEN ${bound(s.lo)} AND ${bound(s.hi)} ${s.prevailing ? 'INCLUDE' : 'EXCLUDE'} PREVAILING`
  );
}

async function actual(sql: string): Promise<V[]> {
  const s = compile(sql, { ...ENGINE, catalog });
  assert.ok(s.kind === 'select');
  const out: V[] = [];
  for await (const b of s.execute(signal))
    for (let i = 0; i < b.rowCount; i++) out.push(valueAt(b.columns[0]!, i) as V);
  return out;
}

test(`WINDOW JOIN agrees with a brute-force evaluator on ${QUERIES} random windows (seed ${SEED})`, async () => {
  for (let q = 0; q < QUERIES; q++) {
    const a = int(7201) - 3600;
    const b = int(7201) - 3600;
    const spec: Spec = {
      agg: AGGS[q % AGGS.length]!,
      lo: Math.min(a, b),
      hi: int(5) === 0 ? Math.min(a, b) : Math.max(a, b),
      keyed: rand() < 0.7,
      prevailing: rand() < 0.5,
      above: rand() < 0.3 ? int(21) - 10 : null,
      pair: rand() < 0.3,
    };
    const sql = sqlOf(spec);
    const want = expected(spec);
    const got = await actual(sql);
    assert.equal(got.length, want.length, sql);
    for (let i = 0; i < want.length; i++) {
      const g = got[i]!,
        w = want[i]!;
      if (typeof g === 'number' && typeof w === 'number')
        assert.ok(Math.abs(g - w) < 1e-9, `${sql}\nrow ${i}: ${g} != ${w}`);
      else assert.equal(g, w, `${sql}\nrow ${i}`);
    }
  }
});

test('chained WINDOW JOINs give each join its own window', async () => {
  const a: Spec = { agg: 'sum', lo: -600, hi: 0, keyed: true, prevailing: true, above: null, pair: false };
  const b: Spec = { agg: 'count_star', lo: 0, hi: 900, keyed: false, prevailing: false, above: null, pair: false };
  const s = compile(
    'SELECT sum(r.v), count(r2.ts) FROM l WINDOW JOIN r ON l.k = r.k RANGE BETWEEN 600 seconds PRECEDING AND CURRENT ROW ' +
      'WINDOW JOIN r r2 RANGE BETWEEN CURRENT ROW AND 15 minutes FOLLOWING EXCLUDE PREVAILING',
    { ...ENGINE, catalog },
  );
  assert.ok(s.kind === 'select');
  const got: V[][] = [];
  for await (const batch of s.execute(signal))
    for (let i = 0; i < batch.rowCount; i++)
      got.push([valueAt(batch.columns[0]!, i) as V, valueAt(batch.columns[1]!, i) as V]);
  const wa = expected(a),
    wb = expected(b);
  assert.deepEqual(
    got,
    wa.map((v, i) => [v, wb[i]!]),
  );
});
