// End-to-end: QuestDB 9.3's rules for SQL expressions as a client meets them over /exec:
// operator result types, exact LONG sums, extract parts, rounding, text case mapping,
// string_agg, !~ on NULL, BETWEEN's types, missing casts, CASE branch conversions,
// long_sequence with a negative count and the errors of interval durations.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

interface Answer {
  readonly status: number;
  readonly body: {
    columns?: Array<{ name: string; type: string }>;
    dataset?: unknown[][];
    error?: string;
    position?: number;
  };
}

async function exec(s: ServerProcess, query: string, params: Record<string, string> = {}): Promise<Answer> {
  const r = await request(`${s.mainUrl}/exec?${new URLSearchParams({ query, ...params }).toString()}`);
  return { status: r.statusCode, body: JSON.parse(await r.body.text()) as Answer['body'] };
}

/** Column types and the first row of a query that must succeed. */
async function row(
  s: ServerProcess,
  query: string,
  params: Record<string, string> = {},
): Promise<{ types: string[]; values: unknown[] }> {
  const a = await exec(s, query, params);
  assert.equal(a.status, 200, JSON.stringify(a.body));
  return { types: a.body.columns!.map((c) => c.type), values: a.body.dataset![0]! };
}

/** The error text and position of a query that must fail with 400. */
async function error(s: ServerProcess, query: string): Promise<{ error: string; position: number }> {
  const a = await exec(s, query);
  assert.equal(a.status, 400, JSON.stringify(a.body));
  return { error: a.body.error!, position: a.body.position! };
}

describe('SQL expression rules (QuestDB 9.3)', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startServer();
  });
  after(async () => {
    await s.stop();
  });

  test('TIMESTAMP +/- integers and the difference of two timestamps are TIMESTAMPs', async () => {
    const r = await row(
      s,
      "select cast('2024-01-01' as timestamp) + 1000000 a, cast('2024-01-02' as timestamp) - cast('2024-01-01' as timestamp) b, " +
        "cast('2024-01-01T00:00:10Z' as timestamp) - cast('2024-01-01' as date) c, 5 + cast('2024-01-01' as timestamp) d",
    );
    assert.deepEqual(r.types, ['TIMESTAMP', 'TIMESTAMP', 'TIMESTAMP', 'TIMESTAMP']);
    assert.deepEqual(r.values, [
      '2024-01-01T00:00:01.000000Z',
      '1970-01-02T00:00:00.000000Z',
      '1970-01-01T00:00:10.000000Z',
      '2024-01-01T00:00:00.000005Z',
    ]);
  });

  test('a constant INT * INT past the INT range is a LONG; INT + INT and column products wrap as INT', async () => {
    const r = await row(
      s,
      'select 2147483647 + 1 a, 2147483647 * 2 b, 65536 * 65536 c, 1000 * 1000 d, -2147483647 * 3 e, cast(2147483647 as long) + 1 f',
    );
    assert.deepEqual(r.types, ['INT', 'LONG', 'LONG', 'INT', 'LONG', 'LONG']);
    assert.deepEqual(r.values, [null, 4294967294, 4294967296, 1000000, -6442450941, 2147483648]);
    const c = await row(s, 'select cast(x as int) * 2147483647 p from long_sequence(2) where x = 2');
    assert.deepEqual(c.types, ['INT']);
    assert.deepEqual(c.values, [-2]);
  });

  test('sum of a LONG column is exact past 2^53 and wraps on overflow like a Java long', async () => {
    assert.equal((await exec(s, 'create table sr_sum (g symbol, l long)')).status, 200);
    assert.equal(
      (
        await exec(
          s,
          "insert into sr_sum values ('a', 9223372036854775807), ('a', null), ('a', -5), ('b', 9223372036854775807), ('b', 3), ('c', 9007199254740993), ('c', 1)",
        )
      ).status,
      200,
    );
    const all = await exec(s, 'select g, sum(l) from sr_sum order by g', { quoteLargeNum: 'true' });
    assert.deepEqual(all.body.dataset, [
      ['a', '9223372036854775802'],
      ['b', '-9223372036854775806'],
      ['c', '9007199254740994'],
    ]);
    const one = await exec(s, "select sum(l) from sr_sum where g = 'a'", { quoteLargeNum: 'true' });
    assert.deepEqual(one.body.dataset, [['9223372036854775802']]);
  });

  test('extract: INT parts, milli- and microseconds of the second, LONG epoch', async () => {
    const r = await row(
      s,
      'select extract(microseconds from t), extract(milliseconds from t), extract(second from t), extract(epoch from t), extract(quarter from t) ' +
        "from (select cast('2024-02-29T13:45:56.789012Z' as timestamp) t)",
    );
    assert.deepEqual(r.types, ['INT', 'INT', 'INT', 'LONG', 'INT']);
    assert.deepEqual(r.values, [789012, 789, 56, 1709214356, 1]);
  });

  test("round(x) is Math.round; round_down / round_up show QuestDB's double arithmetic", async () => {
    const r = await row(
      s,
      'select round(2.5), round(-2.5), round(-3.5), round(-2.6), round(2.5, 0), round(-2.5, 0), round_down(1.29, 1), round_up(1.21, 1), round_down(-1.29, 1)',
    );
    assert.deepEqual(r.values, [3, -2, -3, -3, 3, -3, 1.2000000000000002, 1.3, -1.2000000000000002]);
  });

  test('upper and lower map one character for one and are STRING; replace is VARCHAR only for VARCHAR arguments', async () => {
    const r = await row(
      s,
      "select upper('straße'), upper(cast('maße' as varchar)), lower('İSTANBUL'), replace(cast('a-b' as varchar), '-', '+'), " +
        "replace(cast('a-b' as varchar), cast('-' as varchar), cast('+' as varchar)), left(cast('Grüße' as varchar), 3)",
    );
    assert.deepEqual(r.types, ['STRING', 'STRING', 'STRING', 'STRING', 'VARCHAR', 'VARCHAR']);
    assert.deepEqual(r.values, ['STRAßE', 'MAßE', 'istanbul', 'a+b', 'a+b', 'Grü']);
  });

  test("string_agg joins each group's values in row order; a NULL-only group is NULL", async () => {
    assert.equal(
      (
        await exec(
          s,
          "create table sr_agg as (select case when x % 2 = 0 then 'even' else 'odd' end g, case when x = 5 then null else cast(x as string) end s, " +
            'cast(x as varchar) v from long_sequence(6))',
        )
      ).status,
      200,
    );
    const a = await exec(s, "select g, string_agg(s, ','), string_agg(v, ';') from sr_agg order by g");
    assert.deepEqual(
      a.body.columns!.map((c) => c.type),
      ['STRING', 'STRING', 'VARCHAR'],
    );
    assert.deepEqual(a.body.dataset, [
      ['even', '2,4,6', '2;4;6'],
      ['odd', '1,3', '1;3;5'],
    ]);
    const none = await exec(s, "select string_agg(s, ',') from sr_agg where x = 5");
    assert.equal(none.status, 400); // no column x: the table has g, s, v
    const nul = await exec(s, "select string_agg(s, ',') from sr_agg where v = '5'");
    assert.deepEqual(nul.body.dataset, [[null]]);
  });

  test('!~ is the negation of ~, so a NULL text matches it; NaN is the NULL constant', async () => {
    assert.equal(
      (
        await exec(
          s,
          'create table sr_re as (select x id, case when x = 3 then null else cast(x * 11 as varchar) end v, ' +
            'case when x = 3 then null else cast(x * 11 as symbol) end y from long_sequence(4))',
        )
      ).status,
      200,
    );
    assert.deepEqual((await exec(s, "select id from sr_re where v !~ '2'")).body.dataset, [[1], [3], [4]]);
    assert.deepEqual((await exec(s, "select id from sr_re where y !~ '^4'")).body.dataset, [[1], [2], [3]]);
    assert.deepEqual((await exec(s, "select id from sr_re where v ~ '2'")).body.dataset, [[2]]);
    const n = await row(s, 'select NaN a, 1 / 0.0 b, nan is null c');
    assert.deepEqual(n.types, ['STRING', 'DOUBLE', 'BOOLEAN']);
    assert.deepEqual(n.values, [null, null, true]);
  });

  test("BETWEEN takes timestamps, numbers and text; other kinds get QuestDB's message at the last argument", async () => {
    assert.deepEqual((await row(s, 'select count() from long_sequence(10) where x between 3 and 6')).values, [4]);
    // QuestDB 9.3.3 refuses DOUBLE here; svcdb compares numbers (a deliberate difference).
    assert.deepEqual((await row(s, 'select count() from long_sequence(10) where x * 1.5 between 3 and 6')).values, [3]);
    assert.deepEqual((await row(s, 'select count() from long_sequence(10) where x between 1 and 2.5')).values, [2]);
    const q = 'select x from long_sequence(3) where (x > 1) between true and false';
    assert.deepEqual(await error(s, q), {
      error:
        'argument type mismatch for function `between` at #1 expected: TIMESTAMP, actual: BOOLEAN at #2 expected: TIMESTAMP, actual: BOOLEAN at #3 expected: TIMESTAMP, actual: BOOLEAN',
      position: q.indexOf('false'),
    });
  });

  test('a cast QuestDB lacks is a missing `cast` overload at the cast; bad date text casts to NULL', async () => {
    assert.deepEqual(await error(s, 'select cast(x as uuid) from long_sequence(1)'), {
      error: 'there is no matching function `cast` with the argument types: (LONG, UUID)',
      position: 7,
    });
    assert.deepEqual(await error(s, 'select 1, cast(1.5 as uuid)'), {
      error: 'there is no matching function `cast` with the argument types: (DOUBLE, UUID)',
      position: 10,
    });
    const q = 'select rnd_uuid4()::ipv4';
    assert.deepEqual(await error(s, q), {
      error: 'there is no matching function `cast` with the argument types: (UUID, IPv4)',
      position: q.indexOf('::'),
    });
    const r = await row(s, "select cast('2024-13-45' as timestamp), cast('nope' as date)");
    assert.deepEqual(r.values, [null, null]);
  });

  test('CASE converts its branches to the later type and fails at the first earlier one it cannot take', async () => {
    assert.deepEqual(await error(s, "select case when x = 1 then 'a' else true end from long_sequence(2)"), {
      error: 'inconvertible types: CHAR -> BOOLEAN [from=CHAR, to=BOOLEAN]',
      position: 28,
    });
    assert.deepEqual(
      await error(s, "select case when x = 1 then true when x = 2 then true else 'abc' end from long_sequence(2)"),
      { error: 'inconvertible types: BOOLEAN -> STRING [from=BOOLEAN, to=STRING]', position: 28 },
    );
  });

  test('long_sequence with a negative count is empty', async () => {
    for (const n of [-1, -100]) {
      const a = await exec(s, `select * from long_sequence(${n})`);
      assert.equal(a.status, 200);
      assert.deepEqual(a.body.dataset, []);
    }
  });

  test("interval literals fail with QuestDB's messages (durations, dates, format, count) at the literal", async () => {
    assert.equal(
      (
        await exec(
          s,
          "create table sr_iv as (select timestamp_sequence('2024-01-01', 3600000000) ts from long_sequence(48)) timestamp(ts)",
        )
      ).status,
      200,
    );
    const at = (lit: string): string => `select * from sr_iv where ts in '${lit}'`;
    const cases: Array<[string, string]> = [
      ['2024-01-02T23:00;-1h', "Expected number before unit '-'"],
      ['2024-01-02;h', "Expected number before unit 'h'"],
      ['2024-01-02;1q', 'Invalid duration unit: q'],
      ['2024-01-02;1h30', 'Missing unit at end of duration'],
      ['2024-01-02;99999999999h', 'Duration not a number: 99999999999'],
      ['20x4', 'Invalid date'],
      ['2024-13', 'Invalid date'],
      ['2024-01-02;1h;1d;2;3', 'Invalid interval format'],
      ['2024-01-02T10:00;1h;1d;x', 'Count not a number'],
    ];
    for (const [lit, message] of cases) {
      const q = at(lit);
      assert.deepEqual(await error(s, q), { error: message, position: q.indexOf("'") }, lit);
    }
    assert.deepEqual((await row(s, `select count() from sr_iv where ts in '2024-01-02T10:00;1_0h'`)).values, [10]);
  });

  test('a scalar subquery gives its row exactly, whatever its type (LONG digits, UUID, DECIMAL, GEOHASH, SYMBOL), and NULL without rows', async () => {
    const cases: Array<[string, string, unknown]> = [
      ['9007199254740993L', 'LONG', 9007199254740993n],
      ["cast('11111111-1111-1111-1111-111111111111' as uuid)", 'UUID', '11111111-1111-1111-1111-111111111111'],
      ['cast(1.25 as decimal(10,2))', 'DECIMAL(10,2)', '1.25'],
      ['#u33d', 'GEOHASH(4c)', 'u33d'],
      ["cast('x' as symbol)", 'SYMBOL', 'x'],
      ["'2024-01-02T03:04:05.123456789Z'::timestamp_ns", 'TIMESTAMP_NS', '2024-01-02T03:04:05.123456789Z'],
    ];
    for (const [expr, type, value] of cases) {
      const r = await request(
        `${s.mainUrl}/exec?${new URLSearchParams({ query: `select (select ${expr}) v from long_sequence(2)` })}`,
      );
      const text = await r.body.text();
      assert.equal(r.statusCode, 200, text);
      const body = JSON.parse(text) as { columns: Array<{ type: string }> };
      assert.equal(body.columns[0]!.type, type, expr);
      // The dataset's raw text, so that LONG digits past 2^53 are compared as written.
      const shown = typeof value === 'bigint' ? String(value) : JSON.stringify(value);
      assert.ok(text.includes(`"dataset":[[${shown}],[${shown}]]`), `${expr}: ${text}`);
    }
    const none = await row(
      s,
      "select (select cast('11111111-1111-1111-1111-111111111111' as uuid) from long_sequence(1) where x > 5) v from long_sequence(1)",
    );
    assert.deepEqual(none, { types: ['UUID'], values: [null] });
  });
});
