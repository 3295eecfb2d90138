// Seeded randomized differential test of HORIZON JOIN: random RANGE and LIST offsets (past and
// future), one or two right tables, keys or none, right-table filters, a left WHERE, and the three
// result shapes (a row per left row and offset, grouped by offset, one total row) over random
// multi-partition tables (duplicate timestamps, NULL keys and values), run through compile() and
// through a brute-force evaluator (per left row and offset: the right rows scanned by definition).
// Reproduce a failure with SVCDB_HJOIN_SEED=<seed>; SVCDB_HJOIN_QUERIES sets the count.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { compile } from '../../lib/exec/engine.js';
import { valueAt } from '../../lib/exec/vectors.js';
import { timeJoinTables, type Row } from '../helpers/time-join-tables.js';
import { ENGINE } from '../helpers/engine.js';

const SEED = Number(process.env.SVCDB_HJOIN_SEED ?? 20250202);
const QUERIES = Number(process.env.SVCDB_HJOIN_QUERIES ?? 60);

type V = number | string | null;

const fx = timeJoinTables('svcdb-hjoin-', SEED);
const { catalog, signal, rand, int, exec, makeRows, fill } = fx;
const tables: Record<'l' | 'r' | 's', Row[]> = { l: [], r: [], s: [] };

before(async () => {
  await exec('CREATE TABLE l (ts TIMESTAMP, k SYMBOL, v DOUBLE) TIMESTAMP(ts) PARTITION BY DAY');
  await exec('CREATE TABLE r (ts TIMESTAMP, k SYMBOL, v DOUBLE) TIMESTAMP(ts) PARTITION BY HOUR');
  await exec('CREATE TABLE s (ts TIMESTAMP, k SYMBOL, v DOUBLE) TIMESTAMP(ts) PARTITION BY HOUR');
  tables.l.push(...makeRows(200, 1200));
  tables.r.push(...makeRows(600, 600));
  tables.s.push(...makeRows(150, 2400));
  for (const t of ['l', 'r', 's'] as const) await fill(t, tables[t]);
  assert.ok(tables.r.at(-1)!.ts - tables.r[0]!.ts > 3 * 3_600_000_000, 'the right table spans several partitions');
});

after(() => {
  fx.remove();
});

const AGGS = ['sum', 'count', 'count_star', 'avg', 'min', 'max', 'first', 'last'] as const;
type Agg = (typeof AGGS)[number];

function aggregate(agg: Agg, vs: readonly (number | null)[]): V {
  const xs = vs.filter((v): v is number => v !== null);
  switch (agg) {
    case 'count_star':
      return vs.length;
    case 'count':
      return xs.length;
    case 'sum':
      return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0);
    case 'avg':
      return xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length;
    case 'min':
      return xs.length === 0 ? null : Math.min(...xs);
    case 'max':
      return xs.length === 0 ? null : Math.max(...xs);
    case 'first':
      return vs.length === 0 ? null : vs[0]!;
    case 'last':
      return vs.length === 0 ? null : vs[vs.length - 1]!;
  }
}

interface Join {
  table: 'r' | 's';
  keyed: boolean;
  /** Right rows with v > this only (a right-table ON condition), or null. */
  above: number | null;
}

interface Spec {
  /** Seconds, ascending; `range` says how they are written. */
  offsets: number[];
  range: { from: number; to: number; step: number } | null;
  joins: Join[];
  /** Left rows with v > this only (WHERE), or null. */
  where: number | null;
  shape: 'rows' | 'byOffset' | 'total';
  agg: Agg;
}

/** The right row of `j` ASOF `t` for left row `l`, by definition: the last row at or before t that qualifies. */
function asof(j: Join, l: Row, t: number): Row | null {
  let hit: Row | null = null;
  for (const r of tables[j.table]) {
    if (r.ts > t) break;
    if (j.keyed && r.k !== l.k) continue;
    if (j.above !== null && (r.v === null || r.v <= j.above)) continue;
    hit = r;
  }
  return hit;
}

/** Per left row and offset: [left ts, offset micros, each join's matched v]. */
function pairs(s: Spec): Array<{ ts: number; off: number; vs: (number | null)[] }> {
  const out: Array<{ ts: number; off: number; vs: (number | null)[] }> = [];
  for (const l of tables.l) {
    if (s.where !== null && (l.v === null || l.v <= s.where)) continue;
    for (const o of s.offsets) {
      const off = o * 1_000_000;
      out.push({ ts: l.ts, off, vs: s.joins.map((j) => asof(j, l, l.ts + off)?.v ?? null) });
    }
  }
  return out;
}

function expected(s: Spec): V[][] {
  const ps = pairs(s);
  if (s.shape === 'rows') return ps.map((p) => [p.ts, p.off, ...p.vs]);
  const aggs = (group: typeof ps): V[] =>
    s.joins.map((_, k) =>
      aggregate(
        s.agg,
        group.map((p) => p.vs[k]!),
      ),
    );
  if (s.shape === 'total') return [aggs(ps)];
  return s.offsets.flatMap((o) => {
    const group = ps.filter((p) => p.off === o * 1_000_000);
    return group.length === 0 ? [] : [[o * 1_000_000, ...aggs(group)]];
  });
}

function sqlOf(s: Spec): string {
  const alias = (k: number): string => `j${k}`;
  const col = (k: number): string =>
    s.shape === 'rows' ? `${alias(k)}.v` : s.agg === 'count_star' ? 'count()' : `${s.agg}(${alias(k)}.v)`;
  const cols = s.joins.map((_, k) => col(k));
  const select =
    s.shape === 'rows' ? ['l.ts', 'h.offset', ...cols] : s.shape === 'byOffset' ? ['h.offset', ...cols] : cols;
  const joins = s.joins.map((j, k) => {
    const on = [j.keyed ? `l.k = ${alias(k)}.k` : '', j.above !== null ? `${alias(k)}.v > ${j.above}` : ''].filter(
      (c) => c !== '',
    );
    return `HORIZON JOIN ${j.table} ${alias(k)}${on.length > 0 ? ` ON (${on.join(' AND ')})` : ''}`;
  });
  const horizon = s.range
    ? `RANGE FROM ${s.range.from}s TO ${s.range.to}s STEP ${s.range.step}s AS h`
    : `LIST (${s.offsets.map((o) => (o === 0 ? '0' : `${o}s`)).join(', ')}) AS h`;
  return (
    `SELECT ${select.join(', ')} FROM l ${joins.join(' ')} ${horizon}` +
    (s.where !== null ? ` WHERE l.v > ${s.where}` : '') +
    (s.shape === 'byOffset' ? ' ORDER BY h.offset' : '')
  );
}

async function actual(sql: string): Promise<V[][]> {
  const s = compile(sql, { ...ENGINE, catalog });
  assert.ok(s.kind === 'select');
  const out: V[][] = [];
  for await (const b of s.execute(signal))
    for (let i = 0; i < b.rowCount; i++) out.push(b.columns.map((c) => valueAt(c, i) as V));
  return out;
}

function randomSpec(q: number): Spec {
  let offsets: number[];
  let range: Spec['range'] = null;
  if (rand() < 0.5) {
    const from = int(3601) - 1800;
    const step = 1 + int(900);
    const to = from + step * int(6) + int(step);
    range = { from, to, step };
    offsets = [];
    for (let o = from; o <= to; o += step) offsets.push(o);
  } else {
    const set = new Set<number>();
    const n = 1 + int(5);
    while (set.size < n) set.add(int(2) === 0 ? 0 : int(7201) - 3600);
    offsets = [...set].sort((a, b) => a - b);
  }
  const join = (): Join => ({
    table: rand() < 0.7 ? 'r' : 's',
    keyed: rand() < 0.7,
    above: rand() < 0.3 ? int(21) - 10 : null,
  });
  return {
    offsets,
    range,
    joins: rand() < 0.3 ? [join(), join()] : [join()],
    where: rand() < 0.3 ? int(21) - 10 : null,
    shape: (['rows', 'byOffset', 'total'] as const)[q % 3]!,
    agg: AGGS[int(AGGS.length)]!,
  };
}

test(`HORIZON JOIN agrees with a brute-force evaluator on ${QUERIES} random horizons (seed ${SEED})`, async () => {
  for (let q = 0; q < QUERIES; q++) {
    const spec = randomSpec(q);
    const sql = sqlOf(spec);
    const want = expected(spec);
    const got = await actual(sql);
    assert.equal(got.length, want.length, sql);
    for (let i = 0; i < want.length; i++)
      for (let c = 0; c < want[i]!.length; c++) {
        const g = got[i]![c]!,
          w = want[i]![c]!;
        if (typeof g === 'number' && typeof w === 'number')
          assert.ok(Math.abs(g - w) < 1e-9, `${sql}\nrow ${i} column ${c}: ${g} != ${w}`);
        else assert.equal(g, w, `${sql}\nrow ${i} column ${c}`);
      }
  }
});

test('a left row with many offsets is never split across batches and keeps offset order', async () => {
  // 5000 offsets: fewer than 2 left rows fit a batch of about 8192 rows.
  const spec: Spec = {
    offsets: Array.from({ length: 5000 }, (_, i) => i - 2500),
    range: { from: -2500, to: 2499, step: 1 },
    joins: [{ table: 'r', keyed: true, above: null }],
    where: 15,
    shape: 'rows',
    agg: 'sum',
  };
  const sql = sqlOf(spec);
  assert.deepEqual(await actual(sql), expected(spec), sql);
});
