// Filtered scans by pages (exec/page-filter.ts with exec/page-aggregate.ts,
// exec/page-group.ts and exec/page-select.ts), as the library runs them:
// aggregates keyless, keyed by text and SAMPLE BY, and the passing rows
// themselves (with LIMIT from either end), under WHEREs of numeric comparisons
// (every operator, the constant on either side, NULL constants, BETWEEN either
// way round and with a NULL bound), text conditions (=, !=, <, IN, NOT IN,
// LIKE, IS NULL, functions of the text, a STRING column) and AND / OR / NOT of
// them, with intervals. The same rows on 1 and 3 threads; the same groups,
// order, counts, minima and maxima as the row path (the same WHERE over a
// subquery), sums within rounding. WHEREs pages cannot take (a text column
// with a value per row, a column added after the first partitions, two
// columns compared) give the row path's answer too, and the plan check says
// which WHEREs go by pages.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database, type Row } from 'svcdb';
import { makeRoot } from '../helpers/server-process.js';
import { compile } from '../../lib/exec/engine.js';
import { execContext } from '../../lib/exec/context.js';
import { pageScan } from '../../lib/exec/page-filter.js';
import type { Plan } from '../../lib/sql/bound.js';
import { ENGINE, tempCatalog } from '../helpers/engine.js';

async function rows(db: Database, sql: string): Promise<Row[]> {
  const out: Row[] = [];
  for await (const r of db.query(sql).rows()) out.push(r);
  return out;
}

/** WHEREs pages evaluate. */
const PAGED = [
  'd > 100',
  'd <= 0',
  '100 < d',
  'i = 700',
  'i < 700',
  'l > 35000',
  'i != 700',
  'd = null',
  'd != null',
  'i > null',
  'l >= 35000',
  'f < 1000.5',
  '-5 >= i',
  'd between 0 and 5000',
  'd between 5000 and 0',
  'd between null and 5',
  "a = 'a1'",
  "a != 'a1'",
  "'a2' = a",
  "a < 'a2'",
  "a in ('a1', 'a3')",
  "a not in ('a1')",
  "a in ('a1', null)",
  'a is null',
  "a like 'a%'",
  'length(a) = 2',
  "s = 'x1'",
  "a = 'a1' and d > 0",
  "a = 'a1' or b = 'buy'",
  "not (a = 'a2' or i > 100)",
  "(a = 'a1' or d < 0) and b = 'sell' and i between 10 and 60000",
  "ts in '2024-01-02' and a = 'a1'",
  "a = 'none'",
  'late_d > 3',
  'i is null or d is not null',
];
/** WHEREs that keep the row path. */
const ROWS = ["w = 'w5'", "late = 'even'", 'd > i', 'a = b', "ts in '2024-01-03' and w != 'w7'"];

const QUERIES = [
  'select sum(d), avg(d), min(d), max(d), count(d), count(), sum(i), count(i), max(i), min(f), sum(f), sum(l) from FROM where WHERE',
  'select a, sum(d), avg(d), min(i), max(f), count() from FROM where WHERE',
  'select b, a, count(), sum(i) from FROM where WHERE',
  'select ts, avg(d), count() from FROM where WHERE sample by 1h',
  'select ts, a, sum(d), max(i) from FROM where WHERE sample by 30m',
  'select ts, a, s, d, i, l, late from FROM where WHERE',
  'select ts, w, d from FROM where WHERE limit 3',
  'select ts, b, f from FROM where WHERE limit -2',
];

/** IN lists over a's codes in the row path, and which values they hold. */
const IN_LISTS: [string, (a: unknown) => boolean][] = [
  ["a in ('a1', 'a3')", (a) => a === 'a1' || a === 'a3'],
  ["a in ('a1', null)", (a) => a === 'a1' || a === null],
  ["a not in ('a2')", (a) => a !== 'a2'],
  ["a in ('a0', 'a1', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', null)", (a) => a === 'a0' || a === 'a1' || a === null],
  ["a in ('a0', 'a1', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7', 'b8')", (a) => a === 'a0' || a === 'a1'],
];

const query = (q: string, where: string, pages: boolean): string =>
  q.replace('FROM', pages ? 't' : '(select * from t)').replace('WHERE', where);

describe('aggregates over a filtered scan by pages', () => {
  const answers = new Map<string, Row[]>();
  before(async () => {
    const root = makeRoot();
    const db = openDatabase(root, { workerCount: 1 });
    await db.execute(
      'create table t (ts timestamp, a varchar, b varchar, s string, w varchar, d double, i int, l long, f float) timestamp(ts) partition by day',
    );
    // 3 days of 70,000 rows (pages of 8,192); d and i NULL now and then; w has a value per row (no codes).
    await db.execute(`insert into t
      select timestamp_sequence('2024-01-01', 3_702_857L),
        case when x % 11 = 0 then null else 'a' || (x % 5) end,
        case when x % 3 = 0 then 'buy' else 'sell' end,
        'x' || (x % 3),
        'w' || x,
        case when x % 9_001 = 0 then null else x * 0.37 - 11_000 end,
        case when x % 7 = 0 then null else cast(x as int) - 100 end,
        x,
        cast(x / 3.0 as float)
      from long_sequence(70_000)`);
    await db.execute('alter table t add column late varchar');
    await db.execute('alter table t add column late_d double');
    await db.execute(`insert into t (ts, a, b, s, w, d, i, l, f, late, late_d)
      select timestamp_sequence('2024-01-04', 1_000_000L), 'a' || (x % 4), 'sell', 'x1', 'v' || x, x * 0.25,
        cast(x as int), x, cast(x as float), case when x % 2 = 0 then 'even' end, x / 7.0
      from long_sequence(20_000)`);
    await db.close();
    // Small page frames: these tables are cut into tasks for every thread.
    process.env.SVC_CAIRO_SQL_PAGE_FRAME_MIN_ROWS = '10000';
    process.env.SVC_CAIRO_SQL_PAGE_FRAME_MAX_ROWS = '40000';
    try {
      for (const workers of [1, 3]) {
        const db = openDatabase(root, { workerCount: workers });
        try {
          for (const where of [...PAGED, ...ROWS])
            for (const q of QUERIES)
              for (const pages of [true, false]) {
                const sql = query(q, where, pages);
                answers.set(`${workers} ${sql}`, await rows(db, sql));
              }
          // Row by row (no aggregate), after the queries above built a's codes: IN reads them.
          for (const [where] of IN_LISTS)
            answers.set(`${workers} in ${where}`, await rows(db, `select ts, a from t where ${where}`));
          answers.set(`${workers} all`, await rows(db, 'select ts, a from t'));
        } finally {
          await db.close();
        }
      }
    } finally {
      delete process.env.SVC_CAIRO_SQL_PAGE_FRAME_MIN_ROWS;
      delete process.env.SVC_CAIRO_SQL_PAGE_FRAME_MAX_ROWS;
    }
  });

  test('the same rows on 1 and 3 threads', () => {
    for (const where of [...PAGED, ...ROWS])
      for (const q of QUERIES)
        for (const pages of [true, false]) {
          const sql = query(q, where, pages);
          assert.deepStrictEqual(answers.get(`3 ${sql}`), answers.get(`1 ${sql}`), sql);
        }
  });

  /** The same rows, numbers that are not whole within 1e-9 relative (sums add in another order by pages). */
  function alike(pages: Row[], batches: Row[], what: string): void {
    assert.equal(pages.length, batches.length, what);
    pages.forEach((p, r) => {
      const b = batches[r]!;
      for (const [name, v] of Object.entries(b)) {
        const got = p[name];
        if (typeof v === 'number' && typeof got === 'number' && !Number.isInteger(v))
          assert.ok(Math.abs(got - v) <= 1e-9 * Math.max(1, Math.abs(v)), `${what} row ${r} ${name}: ${got} vs ${v}`);
        else assert.deepStrictEqual(got, v, `${what} row ${r} ${name}`);
      }
    });
  }

  test('pages give what the row path gives', () => {
    for (const where of [...PAGED, ...ROWS])
      for (const q of QUERIES)
        alike(
          answers.get(`1 ${query(q, where, true)}`)!,
          answers.get(`1 ${query(q, where, false)}`)!,
          query(q, where, true),
        );
  });

  test('IN lists over text codes row by row', () => {
    const all = answers.get('1 all')!;
    for (const [where, holds] of IN_LISTS) {
      const got = answers.get(`1 in ${where}`)!;
      assert.deepStrictEqual(
        got,
        all.filter((r) => holds(r.a)),
        where,
      );
      assert.deepStrictEqual(answers.get(`3 in ${where}`), got, where);
      assert.ok(got.length > 0, where);
    }
  });

  test('the values are right', () => {
    const count = (where: string): number =>
      answers.get(`1 ${query(QUERIES[0]!, where, true)}`)![0]!['count()'] as number;
    // d = 0.37x - 11,000 > 100 for x > 30,000 of the first 70,000 but 4 NULLs; 0.25x > 100 for x > 400 of the last 20,000.
    assert.equal(count('d > 100'), 40_000 - 4 + 19_600);
    assert.equal(count("a = 'none'"), 0);
    assert.equal(count('a is null'), Math.floor(70_000 / 11));
    assert.equal(count("a != 'a1'") + count("a = 'a1'"), 90_000); // NULL != 'a1' holds
    assert.equal(count('d = null'), 7);
    assert.equal(count('d != null'), 90_000 - 7);
    assert.equal(count('i > null'), 0);
    assert.equal(count('d between null and 5'), 0);
    assert.equal(count('d between 0 and 5000'), count('d between 5000 and 0'));
    assert.equal(count("ts in '2024-01-02' and a = 'a1'") > 0, true);
    const none = answers.get(`1 ${query(QUERIES[1]!, "a = 'none'", true)}`)!;
    assert.deepStrictEqual(none, []);
  });
});

describe('which WHEREs go by pages', () => {
  const { catalog } = tempCatalog('svcdb-page-filter-');

  /** The input of the query's aggregate. */
  function aggregateInput(sql: string): { input: Plan; statementMicros: number } {
    const s = compile(sql, { ...ENGINE, catalog });
    assert.equal(s.kind, 'select');
    if (s.kind !== 'select') throw new Error('not a select');
    let p: Plan = s.plan;
    while (p.kind !== 'aggregate') {
      assert.ok('input' in p, `no aggregate in ${sql}`);
      p = (p as { input: Plan }).input;
    }
    return { input: p.input, statementMicros: s.statementMicros };
  }

  test('page-able WHEREs have a page term, the others none', async () => {
    await (async () => {
      const s = compile(
        'create table t (ts timestamp, a varchar, b varchar, s string, w varchar, d double, i int, l long, f float, late varchar, late_d double) timestamp(ts) partition by day',
        { ...ENGINE, catalog },
      );
      if (s.kind !== 'select') await s.execute(new AbortController().signal);
    })();
    const signal = new AbortController().signal;
    for (const where of [...PAGED, ...ROWS]) {
      const { input, statementMicros } = aggregateInput(`select count(), sum(d) from t where ${where}`);
      const cx = execContext(catalog, signal, { ...ENGINE, statementMicros }, {}, undefined);
      const paged = pageScan(input, cx);
      // The row path's WHEREs over text: pages can evaluate them, but a partition without codes sends them back.
      const expected = PAGED.includes(where) || ["w = 'w5'", "late = 'even'"].includes(where) || where.includes('w !=');
      assert.equal(paged !== null, expected, where);
    }
  });
});
