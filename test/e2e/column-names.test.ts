// End-to-end: the names of result columns as a client sees them in /exec, /exp CSV headers
// and CREATE TABLE AS SELECT tables: QuestDB 9's expression names, and the older style with
// cairo.sql.column.alias.expression.enabled=false.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

async function get(base: string, path: string, query: string): Promise<{ status: number; text: string }> {
  const r = await request(`${base}${path}?${new URLSearchParams({ query }).toString()}`);
  return { status: r.statusCode, text: await r.body.text() };
}

/** The column names /exec answers for `query`. */
async function columns(s: ServerProcess, query: string): Promise<string[]> {
  const r = await get(s.mainUrl, '/exec', query);
  assert.equal(r.status, 200, r.text);
  const body = JSON.parse(r.text) as { columns: Array<{ name: string }> };
  return body.columns.map((c) => c.name);
}

describe('column names (QuestDB 9 expression names)', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startServer();
  });
  after(async () => {
    await s.stop();
  });

  test('an unaliased expression is named after its normalised text', async () => {
    assert.deepEqual(
      await columns(s, 'select 0.1 + 0.2, cast(null as long), -2147483647, abs(-3), count(), count(*)'),
      ['"0.1 + 0.2"', 'null::long', '-(2147483647)', 'abs(-(3))', 'count()', 'count()_2'],
    );
    assert.deepEqual(
      await columns(
        s,
        "select x, x+1, -x, x, 'lit', x % 2 = 0, 'a' || 'b', x in (1, 2), x between 1 and 2 from long_sequence(1)",
      ),
      ['x', 'x + 1', '-(x)', 'x_2', "'lit'", 'x % 2 = 0', "concat('a', 'b')", 'x in (1, 2)', 'x between (1, 2)'],
    );
    assert.deepEqual(
      await columns(
        s,
        "select case when x = 1 then 'one' end, case when x > 1 then 'big' else 'small' end, cast(x as string) from long_sequence(1)",
      ),
      ["switch(x, 1, 'one', null)", "case when x > 1 then 'big' else 'small' end", 'x::string'],
    );
    assert.deepEqual(await columns(s, 'select sum(x) from long_sequence(3) group by x'), ['sum(x)']);
    assert.deepEqual(await columns(s, 'select row_number() over (order by x), sum(x) over () from long_sequence(3)'), [
      'row_number()',
      'sum(x)',
    ]);
  });

  test('joined columns of the same name get _2; aliases are kept as written', async () => {
    assert.deepEqual(
      await columns(s, 'select a.x, b.x, a.x + b.x from long_sequence(2) a cross join long_sequence(2) b'),
      ['x', 'x_2', '"a.x + b.x"'],
    );
    assert.deepEqual(await columns(s, 'select x as "Mixed Case", x * 2 twice from long_sequence(1)'), [
      'Mixed Case',
      'twice',
    ]);
    // A name generated in a subquery can be selected by name, quoted.
    assert.deepEqual(await columns(s, 'select "x + 1" + 1 from (select x + 1 from long_sequence(2))'), ['x + 1 + 1']);
  });

  test('SAMPLE BY and GROUP BY columns, and a query over the name, use the same names', async () => {
    const ok = await get(
      s.mainUrl,
      '/exec',
      "create table cn_s as (select x, timestamp_sequence('2024-01-01', 1000000) ts from long_sequence(4)) timestamp(ts)",
    );
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(await columns(s, 'select ts, count(), avg(x), first(x) + 1 from cn_s sample by 2s'), [
      'ts',
      'count()',
      'avg(x)',
      'first(x) + 1',
    ]);
    assert.deepEqual(await columns(s, 'select x % 2, count() from long_sequence(4) order by 1'), ['x % 2', 'count()']);
  });

  test('/exp names the CSV header the same way', async () => {
    const r = await get(s.mainUrl, '/exp', "select x, x + 1, length('ab'), 1.5 from long_sequence(1)");
    assert.equal(r.status, 200, r.text);
    assert.equal(r.text.split('\n')[0], '"x","x + 1","length(\'ab\')","""1.5"""');
  });

  test('CREATE TABLE AS SELECT names its columns by the same rule', async () => {
    const ok = await get(
      s.mainUrl,
      '/exec',
      'create table cn_t as (select a.x, b.x from long_sequence(2) a cross join long_sequence(1) b)',
    );
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(await columns(s, 'cn_t'), ['x', 'x_2']);
    // A generated name a table column cannot have is refused, not changed.
    const bad = await get(s.mainUrl, '/exec', 'create table cn_bad as (select x + 1 from long_sequence(2))');
    assert.equal(bad.status, 400, bad.text);
  });
});

describe('column names (older style, cairo.sql.column.alias.expression.enabled=false)', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startServer({ env: { SVC_CAIRO_SQL_COLUMN_ALIAS_EXPRESSION_ENABLED: 'false' } });
  });
  after(async () => {
    await s.stop();
  });

  test('functions are named after the function, operators `column`, repeats numbered', async () => {
    assert.deepEqual(
      await columns(s, "select x, x + 1, count(), cast(x as int), 1.5, 'lit', x, -x from long_sequence(1)"),
      ['x', 'column', 'count', 'cast', 'column1', 'lit', 'x1', 'column2'],
    );
    const ok = await get(
      s.mainUrl,
      '/exec',
      'create table cn_legacy as (select x, sum(x), avg(x) from long_sequence(3) group by x)',
    );
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(await columns(s, 'cn_legacy'), ['x', 'sum', 'avg']);
  });
});
