// Keyed aggregates over text keys by pages (exec/page-group.ts), as the library
// runs them: the same rows (groups, their order, every value) with 1 and 3
// threads of work, and the groups, their order, counts, minima and maxima the
// same as batch by batch (through a subquery), sums within rounding: one, two
// and three VARCHAR keys with NULLs, NULLs under a sum in some pages only, more
// key combinations than a page is summarized for, a key with a value per row
// (no codes: the general path), a key column added after the first partitions,
// intervals, and no rows; SAMPLE BY with and without text keys (FILL, a time
// zone, FROM/TO, buckets of a second: more per page than summarized); small
// page frames cut the table into tasks.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database, type Row } from 'svcdb';
import { makeRoot } from '../helpers/server-process.js';

async function rows(db: Database, sql: string): Promise<Row[]> {
  const out: Row[] = [];
  for await (const r of db.query(sql).rows()) out.push(r);
  return out;
}

const AGGREGATES = 'sum(d), avg(d), min(d), max(d), count(d), count(), sum(i), count(i), max(i), min(f), sum(f)';
const KEYS = ['a', 'a, b', 'b, a', 'a, b, m', 'w', 'a, late'];
const WHERE = ['', " where ts in '2024-01-02'", " where ts >= '2024-01-02T12:00:00' and ts < '2024-01-04T03'"];
/** SAMPLE BY queries over `FROM` (the table, or a subquery for the batch path). */
const SAMPLES = [
  'select ts, avg(d), count() from FROM sample by 1h',
  'select ts, a, sum(d), min(i), max(f) from FROM sample by 30m',
  'select a, b, ts, count(), sum(i) from FROM sample by 1d',
  'select ts, avg(d), sum(i) from FROM sample by 1h fill(null)',
  "select ts, a, count(), max(d) from FROM sample by 1h align to calendar time zone 'Europe/Berlin'",
  "select ts, sum(d), count() from FROM sample by 15m from '2024-01-02' to '2024-01-03'",
  'select ts, count(), sum(d) from FROM sample by 1s',
];

describe('keyed aggregates over text keys by pages', () => {
  const answers = new Map<string, Row[]>();
  before(async () => {
    const root = makeRoot();
    const db = openDatabase(root, { workerCount: 1 });
    await db.execute(
      'create table t (ts timestamp, a varchar, b varchar, m varchar, w varchar, d double, i int, f float) timestamp(ts) partition by day',
    );
    // 3 days of 70,000 rows: pages of 8,192 rows; d NULL in a few of them; m has 1,000 values, so
    // a, b, m make more combinations than a page is summarized for; w has a value per row.
    await db.execute(`insert into t
      select timestamp_sequence('2024-01-01', 3_702_857L),
        case when x % 11 = 0 then null else 'a' || (x % 5) end,
        case when x % 3 = 0 then 'buy' else 'sell' end,
        'm' || (x % 1_000),
        'w' || x,
        case when x % 9_001 = 0 then null else x * 0.37 - 11_000 end,
        case when x % 7 = 0 then null else cast(x as int) end,
        cast(x / 3.0 as float)
      from long_sequence(70_000)`);
    await db.execute('alter table t add column late varchar');
    await db.execute(`insert into t (ts, a, b, m, w, d, i, f, late)
      select timestamp_sequence('2024-01-04', 1_000_000L), 'a' || (x % 4), 'sell', 'm1', 'x' || x, x * 0.25, cast(x as int),
        cast(x as float), case when x % 2 = 0 then 'even' end
      from long_sequence(20_000)`);
    await db.close();
    // Small page frames (rounds of 40,000 rows, tasks of 10,000 at least): these tables are cut into tasks for every thread.
    process.env.SVC_CAIRO_SQL_PAGE_FRAME_MIN_ROWS = '10000';
    process.env.SVC_CAIRO_SQL_PAGE_FRAME_MAX_ROWS = '40000';
    try {
      for (const workers of [1, 3]) {
        const db = openDatabase(root, { workerCount: workers });
        try {
          for (const keys of KEYS)
            for (const where of WHERE) {
              answers.set(
                `${workers} pages ${keys}${where}`,
                await rows(db, `select ${keys}, ${AGGREGATES} from t${where}`),
              );
              answers.set(
                `${workers} batches ${keys}${where}`,
                await rows(db, `select ${keys}, ${AGGREGATES} from (select * from t)${where}`),
              );
            }
          for (const q of SAMPLES) {
            answers.set(`${workers} pages ${q}`, await rows(db, q.replace('FROM', 't')));
            answers.set(`${workers} batches ${q}`, await rows(db, q.replace('FROM', '(select * from t)')));
          }
          answers.set(`${workers} empty`, await rows(db, `select a, sum(d), count() from t where ts < '2023'`));
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
    for (const keys of KEYS)
      for (const where of WHERE)
        for (const how of ['pages', 'batches'])
          assert.deepStrictEqual(
            answers.get(`3 ${how} ${keys}${where}`),
            answers.get(`1 ${how} ${keys}${where}`),
            `${how} ${keys}${where}`,
          );
    for (const q of SAMPLES)
      for (const how of ['pages', 'batches'])
        assert.deepStrictEqual(answers.get(`3 ${how} ${q}`), answers.get(`1 ${how} ${q}`), `${how} ${q}`);
    assert.deepStrictEqual(answers.get('3 empty'), answers.get('1 empty'));
    assert.deepStrictEqual(answers.get('1 empty'), []);
  });

  /** The same rows, numbers that are not whole within 1e-9 relative (sums add in another order by pages). */
  function alike(pages: Row[], batches: Row[], what: string): void {
    assert.equal(pages.length, batches.length, what);
    assert.ok(pages.length > 0, what);
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

  test('pages give what batches give: the groups in the order rows show them, sums within rounding', () => {
    for (const keys of KEYS)
      for (const where of WHERE)
        alike(answers.get(`1 pages ${keys}${where}`)!, answers.get(`1 batches ${keys}${where}`)!, `${keys}${where}`);
  });

  test('SAMPLE BY by pages gives what batches give', () => {
    for (const q of SAMPLES) alike(answers.get(`1 pages ${q}`)!, answers.get(`1 batches ${q}`)!, q);
    const hours = answers.get('1 pages select ts, avg(d), count() from FROM sample by 1h')!;
    assert.equal(hours[0]!.ts, '2024-01-01T00:00:00.000000Z');
    assert.equal(
      hours.reduce((s, r) => s + (r['count()'] as number), 0),
      90_000,
    );
  });

  test('the values are right: NULL keys and NULLs under sums, the added column NULL before it came', () => {
    const byA = answers.get('1 pages a')!;
    assert.deepStrictEqual(
      byA.map((r) => r.a),
      ['a1', 'a2', 'a3', 'a4', 'a0', null],
    );
    const total = (name: string): number => byA.reduce((s, r) => s + (r[name] as number), 0);
    assert.equal(total('count()'), 90_000);
    assert.equal(total('count(d)'), 90_000 - 7); // x % 9001 = 0 for 7 of the first 70,000
    assert.equal(total('count(i)'), 90_000 - 10_000);
    const nullKey = byA.find((r) => r.a === null)!;
    assert.equal(nullKey['count()'], Math.floor(70_000 / 11));
    const late = answers.get('1 pages a, late')!;
    assert.equal(
      late.filter((r) => r.late === null).reduce((s, r) => s + (r['count()'] as number), 0),
      70_000 + 10_000,
    );
    assert.equal(
      late.filter((r) => r.late === 'even').reduce((s, r) => s + (r['sum(i)'] as number), 0),
      (20_000 / 2) * (20_000 / 2 + 1),
    );
  });
});
