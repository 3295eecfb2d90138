// Keyless aggregates over numeric columns by pages (exec/page-aggregate.ts), as
// the library runs them: the same values with 1 and 3 threads of work, and the
// same as batch by batch (through a subquery): NULLs in some pages only, a LONG
// sum past 2^53 (exact, in BigInt), a column added after the first partitions,
// intervals, and a table with no rows; small page frames cut it into tasks.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database, type Row } from 'svcdb';
import { makeRoot } from '../helpers/server-process.js';

async function rows(db: Database, sql: string): Promise<Row[]> {
  const out: Row[] = [];
  for await (const r of db.query(sql).rows()) out.push(r);
  return out;
}

const AGGREGATES = [
  'sum(d)',
  'avg(d)',
  'min(d)',
  'max(d)',
  'count(d)',
  'count()',
  'sum(l)',
  'avg(l)',
  'min(l)',
  'max(l)',
  'sum(i)',
  'count(i)',
  'min(f)',
  'sum(f)',
  'min(ts)',
  'max(ts)',
  'sum(z)',
  'count(z)',
  'max(z)',
];
const WHERE = ['', " where ts in '2024-01-02'", " where ts >= '2024-01-02T12:00:00' and ts < '2024-01-04T03'"];

describe('keyless aggregates by pages', () => {
  let root: string;
  const answers = new Map<string, Row[]>();
  before(async () => {
    root = makeRoot();
    const db = openDatabase(root, { workerCount: 1 });
    await db.execute('create table t (ts timestamp, d double, l long, i int, f float) timestamp(ts) partition by day');
    // 3 days of 70,000 rows: pages of 8,192 rows, some with NULLs; their sum of l is past 2^53.
    await db.execute(`insert into t
      select timestamp_sequence('2024-01-01', 3_702_857L),
        case when x % 9_001 = 0 then null else x * 0.37 - 11_000 end,
        x * 1_000_000_007,
        case when x % 7 = 0 then null else cast(x as int) end,
        cast(x / 3.0 as float)
      from long_sequence(70_000)`);
    await db.execute('alter table t add column z double');
    await db.execute(`insert into t
      select timestamp_sequence('2024-01-04', 1_000_000L), x * 0.37 - 11_000, x, cast(x as int), cast(x as float), x * 2.5
      from long_sequence(20_000)`);
    await db.close();
    // Small page frames (rounds of 40,000 rows, tasks of 10,000 at least): these tables are cut into tasks for every thread.
    process.env.SVC_CAIRO_SQL_PAGE_FRAME_MIN_ROWS = '10000';
    process.env.SVC_CAIRO_SQL_PAGE_FRAME_MAX_ROWS = '40000';
    for (const workers of [1, 3]) {
      const db = openDatabase(root, { workerCount: workers });
      try {
        for (const where of WHERE) {
          answers.set(`${workers} pages${where}`, await rows(db, `select ${AGGREGATES.join(', ')} from t${where}`));
          answers.set(
            `${workers} batches${where}`,
            await rows(db, `select ${AGGREGATES.join(', ')} from (select * from t)${where}`),
          );
        }
        answers.set(
          `${workers} empty`,
          await rows(db, `select sum(d), count(), min(l), count(i) from t where ts < '2023'`),
        );
      } finally {
        await db.close();
      }
    }
  });
  after(() => undefined);

  test('pages give what batches give, on 1 and 3 threads', () => {
    for (const where of WHERE) {
      const one = answers.get(`1 pages${where}`)!;
      assert.deepStrictEqual(one, answers.get(`1 batches${where}`), `batches${where}`);
      assert.deepStrictEqual(answers.get(`3 pages${where}`), one, `3 threads${where}`);
      assert.deepStrictEqual(answers.get(`3 batches${where}`), one, `3 threads, batches${where}`);
    }
  });

  test('the values are right: NULLs skipped, the LONG sum exact, the added column NULL before it came', () => {
    const all = answers.get('1 pages')![0]!;
    assert.equal(all['count()'], 90_000);
    assert.equal(all['count(d)'], 90_000 - 7); // x % 9001 = 0 for 7 of the first 70,000
    // sum(l) = 1,000,000,007 * (70000 * 70001 / 2) + 20000 * 20001 / 2, exactly (past 2^53)
    assert.equal(String(all['sum(l)']), String(1_000_000_007n * 2_450_035_000n + 200_010_000n));
    assert.equal(all['count(i)'], 90_000 - 10_000);
    assert.equal(all['count(z)'], 20_000);
    assert.equal(all['sum(z)'], 2.5 * 200_010_000);
    assert.equal(all['max(z)'], 50_000);
    assert.equal(all['min(ts)'], '2024-01-01T00:00:00.000000Z');
    assert.deepStrictEqual(answers.get('1 empty'), [{ 'sum(d)': null, 'count()': 0, 'min(l)': null, 'count(i)': 0 }]);
    assert.deepStrictEqual(answers.get('3 empty'), answers.get('1 empty'));
  });
});
