// The names of unaliased result columns (lib/sql/column-alias.ts): QuestDB 9's expression
// text, its quoting, length limit and `_2` suffixes, and the older function-name style.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStatement } from '../../lib/sql/parser.js';
import {
  DEFAULT_COLUMN_NAMING,
  expressionText,
  selectColumnNames,
  type ColumnNaming,
  type NamedItem,
} from '../../lib/sql/column-alias.js';

/** The names a SELECT list gets (a `*` stands for the columns `k`, `v`). */
function names(sql: string, naming: ColumnNaming = DEFAULT_COLUMN_NAMING): string[] {
  const stmt = parseStatement(sql);
  assert.ok(stmt.kind === 'query' && stmt.query.kind === 'select');
  const q = stmt.query;
  const items: NamedItem[] = [];
  for (const c of q.columns) {
    if (c.kind === 'star') {
      for (const n of ['k', 'v'])
        items.push({ expr: { kind: 'column', pos: c.pos, table: null, name: n }, alias: null, star: true });
    } else {
      items.push({ expr: c.expr, alias: c.alias, star: false });
    }
  }
  return selectColumnNames(items, naming, sql);
}

/** The normalised text of the first item of a SELECT list. */
function textOf(sql: string): string {
  const stmt = parseStatement(sql);
  assert.ok(stmt.kind === 'query' && stmt.query.kind === 'select');
  const item = stmt.query.columns[0]!;
  assert.equal(item.kind, 'item');
  return item.kind === 'item' ? expressionText(item.expr, sql) : '';
}

const LEGACY: ColumnNaming = { expressions: false, maxLength: 64 };

test('names literals, casts, unary minus and functions after their text, as QuestDB 9 does', () => {
  assert.deepEqual(names('select true, cast(null as boolean), not true, true and false'), [
    'true',
    'null::boolean',
    'not(true)',
    'true and false',
  ]);
  assert.deepEqual(names('select 2147483647, -2147483647, cast(null as int), 2147483647 + 1'), [
    '2147483647',
    '-(2147483647)',
    'null::int',
    '2147483647 + 1',
  ]);
  assert.deepEqual(names("select cast('s1' as symbol), 'lit'::varchar, cast(42 as string)"), [
    "'s1'::symbol",
    "'lit'::varchar",
    '42::string',
  ]);
  assert.deepEqual(names('select abs(-3), coalesce(i, -1), length(v), count(), count(*), count(1)'), [
    'abs(-(3))',
    'coalesce(i, -(1))',
    'length(v)',
    'count()',
    'count()_2',
    'count(1)',
  ]);
  assert.deepEqual(names("select cast('2024-01-01' as timestamp) + 1000000, x is null, x is not null"), [
    "'2024-01-01'::timestamp + 1000000",
    'x = null',
    'x != null',
  ]);
});

test('quotes a name holding a dot, even inside a string, but not an exponent', () => {
  assert.deepEqual(names('select 0.1 + 0.2, 1.0 / 3, 2.0, 1e10, 1.5e-10, abs(-2.5)'), [
    '"0.1 + 0.2"',
    '"1.0 / 3"',
    '"2.0"',
    '1e10',
    '"1.5e-10"',
    '"abs(-(2.5))"',
  ]);
  assert.deepEqual(names("select cast('1.5' as decimal(5, 1)), 1.25m, 'a.b'"), [
    '"\'1.5\'::decimal_5_1"',
    '"1.25m"',
    '"\'a.b\'"',
  ]);
  // A column keeps its name without the table; an expression keeps the prefix, so it is quoted.
  assert.deepEqual(names('select a.x, b.x, a.x + b.x from t'), ['x', 'x_2', '"a.x + b.x"']);
});

test('cuts a long name to 64 characters: inside the quotes, or before trailing spaces', () => {
  const q = "select to_str(cast('2024-03-05T06:07:08.123456Z' as timestamp), 'yyyy/MM/dd HH:mm:ss.SSS')";
  assert.deepEqual(names(q), ["\"to_str('2024-03-05T06:07:08.123456Z'::timestamp, 'yyyy/MM/dd \""]);
  assert.deepEqual(names('select a*b*c from t', { expressions: true, maxLength: 5 }), ['a * b']);
  assert.deepEqual(names('select a*b*c from t', { expressions: true, maxLength: 6 }), ['a * b']);
  const long = `select ${'abcdefghij'.repeat(7)} + 1 from t`;
  const got = names(long)[0]!;
  assert.equal(got.length, 64);
  // Two cut names that are equal get _2 within the limit.
  const two = names(`select ${'abcdefghij'.repeat(7)} + 1, ${'abcdefghij'.repeat(7)} + 2 from t`);
  assert.equal(two[1], `${got.slice(0, 62)}_2`);
});

test('makes names unique without regard to case: _2, _3 after the written aliases', () => {
  assert.deepEqual(names('select x, x + 1, x * 2, -x, x, \'lit\', abs(x), x as "Mixed Case" from t'), [
    'x',
    'x + 1',
    'x * 2',
    '-(x)',
    'x_2',
    "'lit'",
    'abs(x)',
    'Mixed Case',
  ]);
  assert.deepEqual(names('select 1, 1, 2, 1'), ['1', '1_2', '2', '1_3']);
  assert.deepEqual(names("select timestamp_floor('M', t), timestamp_floor('m', t) from t"), [
    "timestamp_floor('M', t)",
    "timestamp_floor('m', t)_2",
  ]);
  // Written aliases are reserved first.
  assert.deepEqual(names('select x, 1 x from t'), ['x_2', 'x']);
  // Columns of `*` are numbered after everything else, as QuestDB's expansion of `*` does.
  assert.deepEqual(names('select *, k from t'), ['k1', 'v', 'k']);
});

test('puts only the parentheses precedence needs', () => {
  assert.deepEqual(
    names('select a*2+b/(d-c), (a + b) * c / (d - (a + 1)), a + ((b * c) / d), a - (b - c), (a - b) - c from t'),
    ['a * 2 + b / (d - c)', '(a + b) * c / (d - (a + 1))', 'a + b * c / d', 'a - (b - c)', 'a - b - c'],
  );
  assert.deepEqual(names('select a > b AND c < d, x % 2 = 0, not (a = b), -(a + b) from t'), [
    'a > b and c < d',
    'x % 2 = 0',
    'not(a = b)',
    '-(a + b)',
  ]);
  // A run of OR is one chain however the parser balanced it; parentheses written on the right stay.
  assert.deepEqual(names('select a or b or c or d or e, a or (b or c) from t'), [
    'a or b or c or d or e',
    'a or (b or c)',
  ]);
  assert.deepEqual(names('select a <> b, a != b from t'), ['a <> b', 'a != b']);
});

test('writes IN, BETWEEN, LIKE and || as QuestDB rewrites them', () => {
  assert.deepEqual(names("select x in (1, 2, 3), x not in (1, 2), x in (5), ts in '2024-01' from t"), [
    'x in (1, 2, 3)',
    'not(x in (1, 2))',
    'x in 5',
    "ts in '2024-01'",
  ]);
  assert.deepEqual(names('select x between 1 and 5, x not between 1 and 5 from t'), [
    'x between (1, 5)',
    'not(x between (1, 5))',
  ]);
  assert.deepEqual(names("select s like 'a%', s not ilike 'b%', s ~ 'x' from t"), [
    "s like 'a%'",
    "not(s ilike 'b%')",
    "s ~ 'x'",
  ]);
  assert.deepEqual(names("select 'x' || 'y' || 'z', s || '!', concat('a', 'b') || 'c' from t"), [
    "concat('x', 'y', 'z')",
    "concat(s, '!')",
    "concat('a', 'b', 'c')",
  ]);
  assert.deepEqual(names('select extract(year from t), extract(dow from t) from t'), [
    'extract(year, t)',
    'extract(dow, t)',
  ]);
});

test('writes casts as x::type, with parentheses around operators and CASE', () => {
  assert.deepEqual(
    names('select cast(a as long), b::long, cast(a + 1 as string), x::float, cast(x as float), x::int4 from t'),
    ['a::long', 'b::long', '(a + 1)::string', 'x::DOUBLE', 'x::float', 'x::INT'],
  );
  assert.deepEqual(names('select cast(case when a > 0 then 1 end as int), cast(x between 1 and 2 as int) from t'), [
    '(case when a > 0 then 1 end)::int',
    '(x between (1, 2))::int',
  ]);
  assert.deepEqual(names('select cast(x as DOUBLE) from t'), ['x::DOUBLE']);
});

test("writes CASE as case ... end, or as switch() over one column's values", () => {
  assert.deepEqual(
    names("select case when a >= 0 then 'positive' else 'negative' end, case when 1 = 2 then 5 end from t"),
    ["case when a >= 0 then 'positive' else 'negative' end", 'case when 1 = 2 then 5 end'],
  );
  assert.deepEqual(
    names("select case x when 1 then 'one' when 2 then 'two' end, case x when 1 then 'a' else 'b' end from t"),
    ["switch(x, 1, 'one', 2, 'two')", "switch(x, 1, 'a', 'b')"],
  );
  assert.deepEqual(
    names("select case when x = 1 then 'a' when 2 = x then 'b' else 'c' end, case when x = 1 then 'a' end from t"),
    ["switch(x, 1, 'a', 2, 'b', 'c')", "switch(x, 1, 'a', null)"],
  );
  // Different columns, or a value that is not a constant: no switch.
  assert.deepEqual(
    names("select case when x = 1 then 'a' when y = 2 then 'b' end, case when x = -1 then 'a' end from t"),
    ["case when x = 1 then 'a' when y = 2 then 'b' end", "case when x = -(1) then 'a' end"],
  );
});

test('keeps names as written and leaves the OVER clause out', () => {
  assert.deepEqual(names('select ABS(x), Count(), row_number() over (order by x), count() over () from t'), [
    'ABS(x)',
    'Count()',
    'row_number()',
    'count()_2',
  ]);
  assert.deepEqual(names('select ARRAY[1.0, 2.0][1], ARRAY[[1.0], [2.0]], array[1, 2], arr[1][2] from t'), [
    '"ARRAY[1.0, 2.0][1]"',
    '"ARRAY[ARRAY[1.0], ARRAY[2.0]]"',
    'ARRAY[1, 2]',
    'arr[1][2]',
  ]);
  assert.equal(textOf('select "my col" + 1 from t'), 'my col + 1');
  assert.equal(textOf('select x in (select 1) from t'), 'x in (select 1)');
});

test('the older style names functions and columns, and operators `column`', () => {
  assert.deepEqual(names("select x, x + 1, count(), cast(x as int), 1.5, 'lit', x, -x, 2.5, sum(x) from t", LEGACY), [
    'x',
    'column',
    'count',
    'cast',
    'column1',
    'lit',
    'x1',
    'column2',
    'column3',
    'sum',
  ]);
  assert.deepEqual(names("select 1, 1, 'a', 'a', 'a' a1 from t", LEGACY), ['1', 'column', 'a', 'a2', 'a1']);
  assert.deepEqual(
    names("select case x when 1 then 'a' end, case when x > 1 then 1 end, s || 't', a.x, b.x from t", LEGACY),
    ['switch', 'case', 'concat', 'x', 'x1'],
  );
});
