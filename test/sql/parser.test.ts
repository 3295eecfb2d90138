// Tests of lib/sql/parser.ts: the syntax tree of every construct (compared without
// positions), node positions, QuestDB's operator precedence, errors with positions,
// and a randomized robustness check (any input gives a tree or a positioned SvcError).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScript, parseStatement } from '../../lib/sql/parser.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import { MAX_NESTING } from '../../lib/sql/depth-guard.js';
import type { Expr, Query, Select, Statement } from '../../lib/sql/ast.js';

// ---------------------------------------------------------------- helpers

/** Drops positions (`pos`, `*Pos`, a select item's numeric `end`) for structural comparison. */
function strip(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(strip);
  if (x !== null && typeof x === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(x)) {
      if ((k === 'pos' || k.endsWith('Pos') || k === 'end') && typeof v === 'number') continue;
      out[k] = strip(v);
    }
    return out;
  }
  return x;
}

const stmt = (sql: string): unknown => strip(parseStatement(sql));

function queryOf(sql: string): Query {
  const s = parseStatement(sql);
  assert.equal(s.kind, 'query');
  return (s as Extract<Statement, { kind: 'query' }>).query;
}

const query = (sql: string): unknown => strip(queryOf(sql));

function selectOf(sql: string): Select {
  const q = queryOf(sql);
  assert.equal(q.kind, 'select');
  return q as Select;
}

/** The first select item's expression of `SELECT <e>`. */
function exprOf(e: string): Expr {
  const item = selectOf(`SELECT ${e}`).columns[0];
  assert.ok(item !== undefined && item.kind === 'item');
  return item.expr;
}

const expr = (e: string): unknown => strip(exprOf(e));

const col = (name: string, table: string | null = null) => ({ kind: 'column', table, name });
const int = (value: number) => ({ kind: 'literal', type: 'INT', value, text: String(value) });
const str = (value: string) => ({ kind: 'literal', type: 'STRING', value, text: `'${value}'` });
const bin = (op: string, left: unknown, right: unknown) => ({ kind: 'binary', op, left, right });
const un = (op: string, arg: unknown) => ({ kind: 'unary', op, arg });
const call = (name: string, args: unknown[], extra: Record<string, unknown> = {}) => ({
  kind: 'call',
  name,
  args,
  distinct: false,
  over: null,
  ...extra,
});
const typeName = (name: string, params: string | null = null) => ({ kind: 'typeName', name, params });
const star = (table: string | null = null) => ({ kind: 'star', table });
const item = (e: unknown, alias: string | null = null) => ({ kind: 'item', expr: e, alias });
const table = (name: string, alias: string | null = null) => ({ kind: 'tableRef', name, alias });

/** A select tree with every clause empty unless given. */
function sel(parts: Record<string, unknown>): Record<string, unknown> {
  return {
    kind: 'select',
    with: [],
    distinct: false,
    columns: [star()],
    from: null,
    where: null,
    latestOn: null,
    sampleBy: null,
    groupBy: [],
    having: null,
    orderBy: [],
    limit: null,
    implicit: false,
    ...parts,
  };
}

const implicitSel = (from: unknown, parts: Record<string, unknown> = {}) => sel({ implicit: true, from, ...parts });

function assertSqlError(
  sql: string,
  position: number,
  pattern: RegExp,
  parse: (s: string) => unknown = parseStatement,
): void {
  assert.throws(
    () => parse(sql),
    (e: unknown) => {
      assert.ok(e instanceof SvcError, `expected SvcError for ${JSON.stringify(sql)}, got ${String(e)}`);
      assert.equal(e.code, 'SQL');
      assert.equal(e.status, 400);
      assert.match(e.message, pattern, sql);
      assert.equal(e.position, position, `${sql}: ${e.message}`);
      return true;
    },
  );
}

// ---------------------------------------------------------------- SELECT

test('parses a SELECT with DISTINCT, aliases (AS, bare, quoted), * and t.*', () => {
  assert.deepEqual(
    query('select distinct a, b AS "B c", c d, t.*, * from t'),
    sel({
      distinct: true,
      columns: [item(col('a')), item(col('b'), 'B c'), item(col('c'), 'd'), star('t'), star()],
      from: table('t'),
    }),
  );
});

test('parses a SELECT without FROM', () => {
  assert.deepEqual(query('SELECT 1'), sel({ columns: [item(int(1))] }));
  assert.deepEqual(query('select now()'), sel({ columns: [item(call('now', []))] }));
});

test('records where each select item starts and where its expression ends', () => {
  const s = selectOf('select  a + b  AS x, count(*) from t');
  assert.deepEqual(
    s.columns.map((c) => [c.pos, c.kind === 'item' ? c.end : null]),
    [
      [8, 13],
      [21, 29],
    ],
  );
});

test('parses QuestDB implicit selects: a bare table, with clauses, in parentheses, a table function', () => {
  assert.deepEqual(query('trades'), implicitSel(table('trades')));
  assert.deepEqual(query('trades WHERE x > 1'), implicitSel(table('trades'), { where: bin('>', col('x'), int(1)) }));
  assert.deepEqual(query('(trades)'), implicitSel(table('trades')));
  assert.deepEqual(
    query('trades LATEST ON ts PARTITION BY s'),
    implicitSel(table('trades'), {
      latestOn: { timestamp: col('ts'), partitionBy: [col('s')] },
    }),
  );
  assert.deepEqual(query('tables()'), implicitSel({ kind: 'functionRef', call: call('tables', []), alias: null }));
  assert.deepEqual(query("'my table'"), implicitSel(table('my table')));
});

test('parses `selec 1` as an implicit select of table selec (alias 1), leaving the missing table to the binder at 0', () => {
  const s = selectOf('selec 1');
  assert.deepEqual(strip(s), implicitSel(table('selec', '1')));
  assert.equal(s.from?.pos, 0);
});

test('parses an implicit select over a parenthesized subquery with TIMESTAMP, WHERE and LIMIT', () => {
  assert.deepEqual(
    query('(select a from t) timestamp(ts) where a > 1 limit 10'),
    implicitSel(
      {
        kind: 'subqueryRef',
        query: sel({ columns: [item(col('a'))], from: table('t') }),
        alias: null,
        timestamp: { column: 'ts' },
      },
      { where: bin('>', col('a'), int(1)), limit: { lo: int(10), hi: null } },
    ),
  );
});

test('parses (SHOW ...) as a row source of an implicit select', () => {
  assert.deepEqual(
    query("(SHOW PARAMETERS) WHERE value_source <> 'default'"),
    implicitSel(
      { kind: 'showRef', show: { kind: 'show', what: 'PARAMETERS', table: null }, alias: null },
      { where: bin('!=', col('value_source'), str('default')) },
    ),
  );
});

test('parses FROM items: aliases, table functions, subqueries, designated timestamps, dotted names', () => {
  assert.deepEqual(
    strip(selectOf('select * from t1 a, long_sequence(10) AS x, (select 1) s timestamp(ts), pg_catalog.pg_class').from),
    {
      kind: 'join',
      type: 'CROSS',
      using: null,
      on: null,
      tolerance: null,
      range: null,
      left: {
        kind: 'join',
        type: 'CROSS',
        using: null,
        on: null,
        tolerance: null,
        range: null,
        left: {
          kind: 'join',
          type: 'CROSS',
          using: null,
          on: null,
          tolerance: null,
          range: null,
          left: table('t1', 'a'),
          right: { kind: 'functionRef', call: call('long_sequence', [int(10)]), alias: 'x' },
        },
        right: {
          kind: 'subqueryRef',
          query: sel({ columns: [item(int(1))] }),
          alias: 's',
          timestamp: { column: 'ts' },
        },
      },
      right: table('pg_catalog.pg_class'),
    },
  );
  assert.deepEqual(strip(selectOf('select * from trades timestamp(ts) t').from), {
    ...table('trades', 't'),
    timestamp: { column: 'ts' },
  });
});

test('parses every join type with ON, USING and the QuestDB extras', () => {
  const cases: Array<[string, Record<string, unknown>]> = [
    ['JOIN b ON a.x = b.x', { type: 'INNER', on: bin('=', col('x', 'a'), col('x', 'b')) }],
    ['INNER JOIN b USING (x, y)', { type: 'INNER', using: ['x', 'y'] }],
    ['LEFT OUTER JOIN b ON (x, y)', { type: 'LEFT', using: ['x', 'y'] }],
    ['LEFT JOIN b ON x', { type: 'LEFT', using: ['x'] }],
    ['RIGHT JOIN b ON (x)', { type: 'RIGHT', using: ['x'] }],
    ['FULL OUTER JOIN b ON a.x = b.x', { type: 'FULL', on: bin('=', col('x', 'a'), col('x', 'b')) }],
    ['CROSS JOIN b', { type: 'CROSS' }],
    ['ASOF JOIN b ON (sym) TOLERANCE 1h', { type: 'ASOF', using: ['sym'], tolerance: '1h' }],
    ['LT JOIN b', { type: 'LT' }],
    ['SPLICE JOIN b', { type: 'SPLICE' }],
  ];
  for (const [sql, expected] of cases) {
    assert.deepEqual(
      strip(selectOf(`select * from a ${sql}`).from),
      {
        kind: 'join',
        left: table('a'),
        right: table('b'),
        on: null,
        using: null,
        tolerance: null,
        range: null,
        ...expected,
      },
      sql,
    );
  }
});

test('parses WINDOW JOIN with its RANGE and PREVAILING option', () => {
  const j = strip(
    selectOf(
      'select * from t WINDOW JOIN p ON (t.s = p.s) RANGE BETWEEN 1 minute PRECEDING AND 2 seconds FOLLOWING EXCLUDE PREVAILING',
    ).from,
  );
  assert.deepEqual(j, {
    kind: 'join',
    type: 'WINDOW',
    left: table('t'),
    right: table('p'),
    using: null,
    tolerance: null,
    on: bin('=', col('s', 't'), col('s', 'p')),
    range: {
      kind: 'frame',
      unit: 'RANGE',
      exclude: 'PREVAILING',
      start: { type: 'PRECEDING', offset: int(1), unit: 'MINUTE' },
      end: { type: 'FOLLOWING', offset: int(2), unit: 'SECONDS' },
    },
  });
});

test('parses HORIZON JOIN with RANGE or LIST offsets', () => {
  const j = selectOf('select * from t AS t HORIZON JOIN m AS m ON (symbol) RANGE FROM -5s TO 5s STEP 1s AS h').from;
  assert.ok(j?.kind === 'join');
  assert.equal(j.type, 'HORIZON');
  assert.deepEqual(strip(j.horizon), {
    range: { from: { text: '-5s' }, to: { text: '5s' }, step: { text: '1s' } },
    list: null,
    alias: 'h',
  });
  const k = selectOf('select * from t HORIZON JOIN m ON (s) LIST (1s, 5s, 1m) AS h').from;
  assert.ok(k?.kind === 'join');
  assert.deepEqual(strip(k.horizon), {
    range: null,
    list: [{ text: '1s' }, { text: '5s' }, { text: '1m' }],
    alias: 'h',
  });
});

test('accepts LATEST ON before and after WHERE, and the older LATEST BY', () => {
  const latest = { timestamp: col('ts'), partitionBy: [col('a'), col('b')] };
  const where = bin('=', col('x'), int(1));
  assert.deepEqual(
    query('select * from t where x = 1 latest on ts partition by a, b'),
    sel({ from: table('t'), where, latestOn: latest }),
  );
  assert.deepEqual(
    query('select * from t latest on ts partition by a, b where x = 1'),
    sel({ from: table('t'), where, latestOn: latest }),
  );
  assert.deepEqual(
    query('select * from t latest by a, b'),
    sel({ from: table('t'), latestOn: { timestamp: null, partitionBy: [col('a'), col('b')] } }),
  );
});

test('parses SAMPLE BY with FROM/TO, FILL and ALIGN TO CALENDAR TIME ZONE ... WITH OFFSET', () => {
  const s = selectOf(
    "select ts, avg(p) from t sample by 15m from '2024-01-01' to '2024-02-01' fill(prev, null, 0) align to calendar time zone 'Europe/Berlin' with offset '00:15'",
  );
  assert.deepEqual(strip(s.sampleBy), {
    interval: '15m',
    fill: [col('prev'), { kind: 'literal', type: 'NULL', value: null, text: 'null' }, int(0)],
    from: str('2024-01-01'),
    to: str('2024-02-01'),
    align: 'CALENDAR',
    timeZone: str('Europe/Berlin'),
    offset: str('00:15'),
  });
  assert.equal(s.sampleBy?.pos, 25);
  assert.equal(
    selectOf('select count() from t sample by 1d align to first observation').sampleBy?.align,
    'FIRST OBSERVATION',
  );
  assert.equal(selectOf('select count() from t sample by 1h').sampleBy?.align, null);
});

test('parses GROUP BY, HAVING, ORDER BY with directions and positions, and LIMIT forms', () => {
  assert.deepEqual(
    query('select a, count() from t group by a, 2 having count() > 1 order by 2 desc, a asc, b limit 5'),
    sel({
      columns: [item(col('a')), item(call('count', []))],
      from: table('t'),
      groupBy: [col('a'), int(2)],
      having: bin('>', call('count', []), int(1)),
      orderBy: [
        { expr: int(2), desc: true },
        { expr: col('a'), desc: false },
        { expr: col('b'), desc: false },
      ],
      limit: { lo: int(5), hi: null },
    }),
  );
  assert.deepEqual(strip(selectOf('select * from t limit 2, 5').limit), { lo: int(2), hi: int(5) });
  assert.deepEqual(strip(selectOf('select * from t limit -5').limit), {
    lo: { kind: 'literal', type: 'INT', value: -5, text: '-5' },
    hi: null,
  });
});

test('parses UNION, EXCEPT and INTERSECT left to right, with parenthesized operands', () => {
  const q = strip(queryOf('a UNION b EXCEPT ALL c INTERSECT d')) as Record<string, unknown>;
  const setOp = (op: string, all: boolean, left: unknown, right: unknown) => ({
    kind: 'setOp',
    op,
    all,
    left,
    right,
    with: [],
    orderBy: [],
    limit: null,
  });
  const a = implicitSel(table('a'));
  const b = implicitSel(table('b'));
  const c = implicitSel(table('c'));
  const d = implicitSel(table('d'));
  assert.deepEqual(q, setOp('INTERSECT', false, setOp('EXCEPT', true, setOp('UNION', false, a, b), c), d));
  assert.deepEqual(query('a UNION (b INTERSECT c)'), setOp('UNION', false, a, setOp('INTERSECT', false, b, c)));
  assert.deepEqual(
    query('select 1 union all select 2'),
    setOp('UNION', true, sel({ columns: [item(int(1))] }), sel({ columns: [item(int(2))] })),
  );
});

test('applies ORDER BY and LIMIT after the last operand to the whole set operation', () => {
  const q = queryOf('select a from t union select a from u order by a limit 3');
  assert.equal(q.kind, 'setOp');
  assert.deepEqual(strip(q.orderBy), [{ expr: col('a'), desc: false }]);
  assert.deepEqual(strip(q.limit), { lo: int(3), hi: null });
  assert.ok(q.kind === 'setOp' && q.right.kind === 'select' && q.right.limit === null);
  const p = queryOf('select a from t union (select a from u limit 3)');
  assert.ok(p.kind === 'setOp' && p.limit === null && p.right.kind === 'select' && p.right.limit !== null);
});

test('parses WITH common table expressions ahead of queries, INSERT and UPDATE', () => {
  assert.deepEqual(
    query('with x as (select 1), y as (x) select * from y'),
    sel({
      with: [
        { name: 'x', query: sel({ columns: [item(int(1))] }) },
        { name: 'y', query: implicitSel(table('x')) },
      ],
      from: table('y'),
    }),
  );
  const ins = parseStatement('with x as (select 1) insert into t select * from x');
  assert.ok(ins.kind === 'insert' && ins.with?.length === 1 && ins.query !== null);
  const upd = parseStatement('with x as (select 1) update t set a = 1');
  assert.ok(upd.kind === 'update' && upd.with?.[0]?.name === 'x');
});

test('parses PIVOT after a FROM source', () => {
  const s = selectOf(
    "trades PIVOT (avg(price) AS p, sum(x) FOR symbol IN ('A', 'B') side IN (select s from t) GROUP BY side) ORDER BY side LIMIT 10",
  );
  assert.deepEqual(strip(s.pivot), {
    aggregates: [
      { expr: call('avg', [col('price')]), alias: 'p' },
      { expr: call('sum', [col('x')]), alias: null },
    ],
    for: [
      { expr: col('symbol'), values: [str('A'), str('B')], query: null },
      { expr: col('side'), values: null, query: sel({ columns: [item(col('s'))], from: table('t') }) },
    ],
    groupBy: [col('side')],
  });
  assert.equal(s.limit?.lo.kind, 'literal');
});

// ---------------------------------------------------------------- expressions

test('follows QuestDB operator precedence', () => {
  const [a, b, c] = [col('a'), col('b'), col('c')];
  assert.deepEqual(expr('a OR b AND c'), bin('OR', a, bin('AND', b, c)));
  assert.deepEqual(expr('NOT a = b'), un('NOT', bin('=', a, b)));
  assert.deepEqual(expr('NOT a AND b'), bin('AND', un('NOT', a), b));
  assert.deepEqual(expr('-x::int'), un('-', { kind: 'cast', expr: col('x'), type: typeName('INT'), suffix: true }));
  assert.deepEqual(expr('a || b = c'), bin('=', bin('||', a, b), c));
  assert.deepEqual(expr('a + b * c - 1'), bin('-', bin('+', a, bin('*', b, c)), int(1)));
  assert.deepEqual(expr('a - b - c'), bin('-', bin('-', a, b), c));
  assert.deepEqual(expr('a | b ^ c & 1'), bin('|', a, bin('^', b, bin('&', c, int(1)))));
  assert.deepEqual(expr('a & b || c'), bin('&', a, bin('||', b, c)));
  assert.deepEqual(expr('a = b < c'), bin('=', a, bin('<', b, c)));
  assert.deepEqual(expr('a < b IN (1)'), bin('<', a, { kind: 'in', expr: b, list: [int(1)], query: null, not: false }));
  assert.deepEqual(expr("a LIKE 'x' OR b ~ 'y'"), bin('OR', bin('LIKE', a, str('x')), bin('~', b, str('y'))));
  assert.deepEqual(expr('~a + 1'), bin('+', un('~', a), int(1)));
  assert.deepEqual(expr('a << b + 1'), bin('<<', a, bin('+', b, int(1))));
});

test('types literals like QuestDB: INT, LONG, DOUBLE, DECIMAL, STRING, BOOLEAN, NULL, GEOHASH, LONG256', () => {
  const lit = (type: string, value: unknown, text: string) => ({ kind: 'literal', type, value, text });
  assert.deepEqual(expr('2147483647'), lit('INT', 2147483647, '2147483647'));
  assert.deepEqual(expr('2147483648'), lit('LONG', 2147483648, '2147483648'));
  assert.deepEqual(expr('-2147483647'), lit('INT', -2147483647, '-2147483647'));
  assert.deepEqual(expr('1L'), lit('LONG', 1, '1L'));
  // 0x and whole hex bytes: a LONG256 constant (QuestDB); half a byte or a suffix is no constant.
  assert.deepEqual(expr('0x1F'), lit('LONG256', '0x1F', '0x1F'));
  assert.deepEqual(expr('0x0102'), lit('LONG256', '0x0102', '0x0102'));
  assert.throws(() => expr('0x1'), /invalid constant/);
  assert.throws(() => expr('0x1FL'), /invalid constant/);
  assert.deepEqual(expr('100_000'), lit('INT', 100000, '100_000'));
  // eslint-disable-next-line no-loss-of-precision -- the literal as a client sends it, rounded as JavaScript rounds it
  assert.deepEqual(expr('9223372036854775807'), lit('LONG', 9223372036854775807, '9223372036854775807'));
  assert.deepEqual(expr('1.5'), lit('DOUBLE', 1.5, '1.5'));
  assert.deepEqual(expr('1e3'), lit('DOUBLE', 1000, '1e3'));
  assert.deepEqual(expr('.5'), lit('DOUBLE', 0.5, '.5'));
  assert.deepEqual(expr('1.5d'), lit('DOUBLE', 1.5, '1.5d'));
  assert.deepEqual(expr('99.99m'), lit('DECIMAL', '99.99', '99.99m'));
  assert.deepEqual(expr("'it''s'"), lit('STRING', "it's", "'it''s'"));
  assert.deepEqual(expr('TRUE'), lit('BOOLEAN', true, 'TRUE'));
  assert.deepEqual(expr('false'), lit('BOOLEAN', false, 'false'));
  assert.deepEqual(expr('NULL'), lit('NULL', null, 'NULL'));
  assert.deepEqual(expr('#u33d'), lit('GEOHASH', '#u33d', '#u33d'));
  assert.deepEqual(expr('$1'), { kind: 'bindVar', name: '$1' });
});

test('parses column references: plain, qualified and quoted, with keywords allowed as names', () => {
  assert.deepEqual(expr('"A b"'), col('A b'));
  assert.deepEqual(expr('t.a'), col('a', 't'));
  assert.deepEqual(expr('"t"."a"'), col('a', 't'));
  assert.deepEqual(expr('h.offset'), col('offset', 'h'));
  assert.deepEqual(expr('timestamp'), col('timestamp'));
  assert.deepEqual(
    query('select latest as timestamp from t'),
    sel({ columns: [item(col('latest'), 'timestamp')], from: table('t') }),
  );
});

test('parses function calls with DISTINCT, *, no arguments, subqueries, schema names and EXTRACT', () => {
  assert.deepEqual(expr('count(*)'), call('count', [{ kind: 'starArg' }]));
  assert.deepEqual(expr('count(DISTINCT a)'), call('count', [col('a')], { distinct: true }));
  assert.deepEqual(expr('Count()'), call('count', []));
  assert.deepEqual(expr('left(a, 2)'), call('left', [col('a'), int(2)]));
  assert.deepEqual(expr('pg_catalog.version()'), call('pg_catalog.version', []));
  const year = { kind: 'literal', type: 'STRING', value: 'year', text: 'YEAR' };
  assert.deepEqual(expr("extract(YEAR from '2024-01-01')"), call('extract', [year, str('2024-01-01')]));
});

test('parses window functions with PARTITION BY, ORDER BY and frames', () => {
  assert.deepEqual(
    expr(
      'sum(x) OVER (PARTITION BY a, b ORDER BY ts DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW)',
    ),
    call('sum', [col('x')], {
      over: {
        kind: 'window',
        partitionBy: [col('a'), col('b')],
        orderBy: [{ expr: col('ts'), desc: true }],
        frame: {
          kind: 'frame',
          unit: 'ROWS',
          exclude: 'CURRENT ROW',
          start: { type: 'UNBOUNDED PRECEDING', offset: null, unit: null },
          end: { type: 'CURRENT ROW', offset: null, unit: null },
        },
      },
    }),
  );
  const frameOf = (e: string) => {
    const c = exprOf(e);
    assert.ok(c.kind === 'call' && c.over !== null);
    return strip(c.over.frame);
  };
  assert.deepEqual(frameOf("avg(x) OVER (ORDER BY ts RANGE BETWEEN '1' MINUTE PRECEDING AND CURRENT ROW)"), {
    kind: 'frame',
    unit: 'RANGE',
    exclude: null,
    start: { type: 'PRECEDING', offset: str('1'), unit: 'MINUTE' },
    end: { type: 'CURRENT ROW', offset: null, unit: null },
  });
  assert.deepEqual(frameOf('avg(x) OVER (ORDER BY ts RANGE 1 second PRECEDING)'), {
    kind: 'frame',
    unit: 'RANGE',
    exclude: null,
    start: { type: 'PRECEDING', offset: int(1), unit: 'SECOND' },
    end: { type: 'CURRENT ROW', offset: null, unit: null },
  });
  assert.deepEqual(frameOf('avg(x) OVER (ORDER BY ts CUMULATIVE)'), {
    kind: 'frame',
    unit: 'ROWS',
    exclude: null,
    start: { type: 'UNBOUNDED PRECEDING', offset: null, unit: null },
    end: { type: 'CURRENT ROW', offset: null, unit: null },
  });
  assert.deepEqual(
    expr('row_number() OVER ()'),
    call('row_number', [], { over: { kind: 'window', partitionBy: [], orderBy: [], frame: null } }),
  );
  assert.deepEqual(
    expr('lag(p) IGNORE NULLS OVER (ORDER BY ts)'),
    call('lag', [col('p')], {
      nulls: 'IGNORE',
      over: { kind: 'window', partitionBy: [], orderBy: [{ expr: col('ts'), desc: false }], frame: null },
    }),
  );
});

test('parses named windows: OVER w and the WINDOW clause', () => {
  const s = selectOf(
    'select avg(p) OVER w from t where a = 1 window w AS (ORDER BY ts ROWS BETWEEN 9 PRECEDING AND CURRENT ROW) order by ts',
  );
  const c = s.columns[0];
  assert.ok(c?.kind === 'item' && c.expr.kind === 'call');
  assert.deepEqual(strip(c.expr.over), { kind: 'window', name: 'w', partitionBy: [], orderBy: [], frame: null });
  assert.equal(s.windows?.[0]?.name, 'w');
  assert.equal(s.windows?.[0]?.spec.frame?.start.type, 'PRECEDING');
  assert.equal(s.orderBy.length, 1);
});

test('parses CASE, CAST, :: casts and type names with parameters and array suffixes', () => {
  assert.deepEqual(expr("CASE WHEN a > 1 THEN 'x' WHEN a > 0 THEN 'y' ELSE 'z' END"), {
    kind: 'case',
    operand: null,
    whens: [
      { when: bin('>', col('a'), int(1)), then: str('x') },
      { when: bin('>', col('a'), int(0)), then: str('y') },
    ],
    else: str('z'),
  });
  assert.deepEqual(expr('case a when 1 then 2 end'), {
    kind: 'case',
    operand: col('a'),
    whens: [{ when: int(1), then: int(2) }],
    else: null,
  });
  assert.deepEqual(expr('CAST(a AS geohash(4c))'), { kind: 'cast', expr: col('a'), type: typeName('GEOHASH', '4c') });
  assert.deepEqual(expr('a::decimal(18, 2)'), {
    kind: 'cast',
    expr: col('a'),
    type: typeName('DECIMAL', '18, 2'),
    suffix: true,
  });
  assert.deepEqual(expr("cast('[1]' as double[][])"), { kind: 'cast', expr: str('[1]'), type: typeName('DOUBLE[][]') });
  assert.deepEqual(expr("'x'::symbol"), { kind: 'cast', expr: str('x'), type: typeName('SYMBOL'), suffix: true });
});

test('parses IN lists, IN subqueries, QuestDB single-value IN, BETWEEN, IS NULL, LIKE and WITHIN', () => {
  assert.deepEqual(expr('a NOT IN (1, 2)'), {
    kind: 'in',
    expr: col('a'),
    list: [int(1), int(2)],
    query: null,
    not: true,
  });
  assert.deepEqual(expr('a IN (select b from t)'), {
    kind: 'in',
    expr: col('a'),
    list: null,
    query: sel({ columns: [item(col('b'))], from: table('t') }),
    not: false,
  });
  assert.deepEqual(expr("ts IN '2024-01'"), {
    kind: 'in',
    expr: col('ts'),
    list: [str('2024-01')],
    query: null,
    not: false,
  });
  assert.deepEqual(expr('ts in today()'), {
    kind: 'in',
    expr: col('ts'),
    list: [call('today', [])],
    query: null,
    not: false,
  });
  assert.deepEqual(
    expr('a NOT BETWEEN 1 AND 2 AND b'),
    bin('AND', { kind: 'between', expr: col('a'), lo: int(1), hi: int(2), not: true }, col('b')),
  );
  assert.deepEqual(expr('a IS NOT NULL'), { kind: 'isNull', expr: col('a'), not: true });
  assert.deepEqual(expr("a NOT ILIKE 'x%'"), bin('NOT ILIKE', col('a'), str('x%')));
  assert.deepEqual(
    expr('g within(#u33, #u34)'),
    bin('WITHIN', col('g'), {
      kind: 'array',
      items: [
        { kind: 'literal', type: 'GEOHASH', value: '#u33', text: '#u33' },
        { kind: 'literal', type: 'GEOHASH', value: '#u34', text: '#u34' },
      ],
    }),
  );
});

test('parses arrays, subscripts, slices and scalar subqueries', () => {
  assert.deepEqual(expr('ARRAY[[1, 2], [3]]'), {
    kind: 'array',
    items: [
      { kind: 'array', items: [int(1), int(2)] },
      { kind: 'array', items: [int(3)] },
    ],
  });
  assert.deepEqual(expr('bids[1, 2]'), { kind: 'subscript', expr: col('bids'), index: [int(1), int(2)] });
  assert.deepEqual(expr('arr[2:3, 4:]'), {
    kind: 'subscript',
    expr: col('arr'),
    index: [
      { kind: 'slice', lo: int(2), hi: int(3) },
      { kind: 'slice', lo: int(4), hi: null },
    ],
  });
  assert.deepEqual(expr('(select max(a) from t)'), {
    kind: 'subquery',
    query: sel({ columns: [item(call('max', [col('a')]))], from: table('t') }),
  });
});

test('gives binary operators the operator position and other nodes their first token', () => {
  const e = exprOf('a.b + 10 * f(x)');
  assert.ok(e.kind === 'binary');
  assert.equal(e.pos, 11);
  assert.equal(e.left.pos, 7);
  assert.ok(e.right.kind === 'binary');
  assert.equal(e.right.pos, 16);
  assert.equal(e.right.left.pos, 13);
  assert.equal(e.right.right.pos, 18);
  const neg = exprOf('- 5');
  assert.equal(neg.pos, 7);
  const s = selectOf('select * from  t  where x = 1');
  assert.equal(s.from?.pos, 15);
  assert.equal(s.where?.pos, 26);
});

// ---------------------------------------------------------------- DDL and DML

test('parses CREATE TABLE with column options and every table option', () => {
  assert.deepEqual(
    stmt(
      "CREATE TABLE IF NOT EXISTS 'trades' (s SYMBOL CAPACITY 256 CACHE INDEX CAPACITY 8, g geohash(5c), a DOUBLE[][], ts TIMESTAMP) " +
        "timestamp(ts) PARTITION BY day BYPASS WAL WITH maxUncommittedRows=250000, o3MaxLag=600000000us, IN VOLUME 'v1' " +
        'DEDUP UPSERT KEYS(ts, s) TTL 7 DAYS OWNED BY admin STORAGE POLICY(TO PARQUET 3d) FORMAT parquet',
    ),
    {
      kind: 'createTable',
      name: 'trades',
      ifNotExists: true,
      asSelect: null,
      casts: [],
      like: null,
      columns: [
        {
          kind: 'columnDef',
          name: 's',
          type: typeName('SYMBOL'),
          options: 'CAPACITY 256 CACHE INDEX CAPACITY 8',
          symbolCapacity: 256,
          symbolCached: true,
          indexed: true,
          indexCapacity: 8,
        },
        { kind: 'columnDef', name: 'g', type: typeName('GEOHASH', '5c'), options: null },
        { kind: 'columnDef', name: 'a', type: typeName('DOUBLE[][]'), options: null },
        { kind: 'columnDef', name: 'ts', type: typeName('TIMESTAMP'), options: null },
      ],
      timestamp: { column: 'ts' },
      partitionBy: { unit: 'DAY' },
      wal: false,
      dedupKeys: [{ name: 'ts' }, { name: 's' }],
      params: [
        { key: 'maxUncommittedRows', value: '250000' },
        { key: 'o3MaxLag', value: '600000000us' },
        { key: 'IN VOLUME', value: 'v1' },
        { key: 'TTL', value: '7 DAYS' },
        { key: 'OWNED BY', value: 'admin' },
        { key: 'STORAGE POLICY', value: 'TO PARQUET 3d' },
        { key: 'FORMAT', value: 'PARQUET' },
      ],
    },
  );
  const ct = parseStatement('create table t (a int) timestamp(a) wal');
  assert.ok(ct.kind === 'createTable');
  assert.equal(ct.namePos, 13);
  assert.equal(ct.wal, true);
});

test('parses CREATE TABLE AS (SELECT ...) with CAST and INDEX clauses, and CREATE TABLE (LIKE ...)', () => {
  const ct = parseStatement(
    'CREATE TABLE t AS (SELECT * FROM x), CAST(a AS LONG), INDEX(s CAPACITY 32) TIMESTAMP(ts) PARTITION BY MONTH',
  );
  assert.ok(ct.kind === 'createTable');
  assert.deepEqual(strip(ct.asSelect), sel({ from: table('x') }));
  assert.deepEqual(strip(ct.casts), [{ column: 'a', type: typeName('LONG') }]);
  assert.deepEqual(strip(ct.indexes), [{ column: 's', capacity: 32 }]);
  assert.deepEqual(strip(ct.partitionBy), { unit: 'MONTH' });
  const like = parseStatement('create table t (like other)');
  assert.ok(like.kind === 'createTable' && like.like === 'other' && like.columns.length === 0);
  const batch = parseStatement('CREATE BATCH 4096 o3MaxLag 1s TABLE n AS (trades) TIMESTAMP(ts)');
  assert.ok(batch.kind === 'createTable');
  assert.deepEqual(batch.params, [
    { key: 'BATCH', value: '4096' },
    { key: 'BATCH O3MAXLAG', value: '1s' },
  ]);
});

test('parses DROP TABLE, DROP ALL TABLES, TRUNCATE TABLE and RENAME TABLE', () => {
  assert.deepEqual(stmt('DROP TABLE IF EXISTS "b c"'), {
    kind: 'dropTable',
    names: [{ name: 'b c' }],
    ifExists: true,
    all: false,
  });
  // QuestDB drops one table per statement: a second name is an unexpected token at its comma.
  assert.throws(
    () => parseStatement('drop table a, b'),
    (e: SvcError) => e.message === 'unexpected token [,]' && e.position === 12,
  );
  assert.deepEqual(stmt('drop all tables'), { kind: 'dropTable', names: [], ifExists: false, all: true });
  assert.deepEqual(stmt('TRUNCATE TABLE a, b'), { kind: 'truncateTable', names: [{ name: 'a' }, { name: 'b' }] });
  assert.deepEqual(stmt('TRUNCATE TABLE IF EXISTS a KEEP SYMBOL MAPS'), {
    kind: 'truncateTable',
    names: [{ name: 'a' }],
    ifExists: true,
    keepSymbolMaps: true,
  });
  assert.deepEqual(stmt("RENAME TABLE 'a.csv' TO b"), { kind: 'renameTable', from: 'a.csv', to: 'b' });
  const r = parseStatement("RENAME TABLE 'a.csv' TO b");
  assert.ok(r.kind === 'renameTable' && r.fromPos === 13 && r.toPos === 24);
});

test('parses ALTER TABLE actions, keeping the ones svcdb does not model as text', () => {
  const action = (sql: string) => {
    const s = parseStatement(`ALTER TABLE t ${sql}`);
    assert.ok(s.kind === 'alterTable' && s.name === 't');
    return strip(s.action);
  };
  assert.deepEqual(action('ADD COLUMN IF NOT EXISTS c int, d symbol nocache index'), {
    kind: 'addColumn',
    ifNotExists: true,
    columns: [
      { kind: 'columnDef', name: 'c', type: typeName('INT'), options: null },
      {
        kind: 'columnDef',
        name: 'd',
        type: typeName('SYMBOL'),
        options: 'nocache index',
        symbolCached: false,
        indexed: true,
      },
    ],
  });
  assert.deepEqual(action('DROP COLUMN a, b'), { kind: 'dropColumn', columns: [{ name: 'a' }, { name: 'b' }] });
  assert.deepEqual(action('RENAME COLUMN a TO b'), { kind: 'renameColumn', from: 'a', to: 'b' });
  assert.deepEqual(action("DROP PARTITION LIST '2024-01-01', '2024-01-02'"), {
    kind: 'dropPartition',
    list: [str('2024-01-01'), str('2024-01-02')],
    where: null,
  });
  assert.deepEqual(action('DROP PARTITION WHERE ts < now()'), {
    kind: 'dropPartition',
    list: [],
    where: bin('<', col('ts'), call('now', [])),
  });
  assert.deepEqual(action('SET PARAM o3MaxLag = 20s, maxUncommittedRows = 100'), {
    kind: 'setParam',
    params: [
      { key: 'o3MaxLag', value: '20s' },
      { key: 'maxUncommittedRows', value: '100' },
    ],
  });
  assert.deepEqual(action('ALTER COLUMN c TYPE long'), {
    kind: 'alterColumnType',
    column: 'c',
    type: typeName('LONG'),
  });
  assert.deepEqual(action('ALTER COLUMN c TYPE symbol CAPACITY 10 NOCACHE'), {
    kind: 'alterColumnType',
    column: 'c',
    type: typeName('SYMBOL'),
    symbolCapacity: 10,
    symbolCached: false,
  });
  assert.deepEqual(action('ALTER COLUMN s ADD INDEX CAPACITY 64'), {
    kind: 'columnIndex',
    column: 's',
    add: true,
    capacity: 64,
  });
  assert.deepEqual(action('alter column s drop index'), {
    kind: 'columnIndex',
    column: 's',
    add: false,
    capacity: null,
  });
  assert.deepEqual(action('ALTER COLUMN s SYMBOL CAPACITY 10'), {
    kind: 'symbolOptions',
    column: 's',
    cached: null,
    capacity: 10,
  });
  assert.deepEqual(action('ALTER COLUMN s NOCACHE'), {
    kind: 'symbolOptions',
    column: 's',
    cached: false,
    capacity: null,
  });
  assert.deepEqual(action('SET TYPE BYPASS WAL'), { kind: 'setType', wal: false });
  assert.deepEqual(action('SET TTL 2 WEEKS'), { kind: 'setTtl', text: '2 WEEKS' });
  assert.deepEqual(action('ALTER COLUMN s SET PARQUET(default)'), {
    kind: 'otherAlter',
    text: 'ALTER COLUMN s SET PARQUET(default)',
  });
  assert.deepEqual(action('DEDUP ENABLE UPSERT KEYS(ts, s)'), { kind: 'dedup', keys: [{ name: 'ts' }, { name: 's' }] });
  assert.deepEqual(action('dedup disable'), { kind: 'dedup', keys: null });
  const s = parseStatement('ALTER TABLE t DROP COLUMN a');
  assert.ok(s.kind === 'alterTable' && s.action.pos === 14);
});

test('parses INSERT with VALUES rows, column lists, SELECT, ATOMIC and BATCH', () => {
  assert.deepEqual(stmt("INSERT INTO t (a, b) VALUES (1, 'x'), (2, #u33)"), {
    kind: 'insert',
    table: 't',
    columns: [{ name: 'a' }, { name: 'b' }],
    query: null,
    batch: null,
    values: [
      [int(1), str('x')],
      [int(2), { kind: 'literal', type: 'GEOHASH', value: '#u33', text: '#u33' }],
    ],
    valuesEnds: [35, 46],
  });
  assert.deepEqual(stmt('insert atomic into t select * from u'), {
    kind: 'insert',
    table: 't',
    columns: null,
    values: null,
    query: sel({ from: table('u') }),
    batch: null,
  });
  assert.deepEqual(stmt("INSERT BATCH 100 o3MaxLag '1s' INTO t (SELECT 1)"), {
    kind: 'insert',
    table: 't',
    columns: null,
    values: null,
    query: sel({ columns: [item(int(1))] }),
    batch: 100,
    o3MaxLag: '1s',
  });
});

test('parses UPDATE with an alias, several assignments, FROM and WHERE', () => {
  assert.deepEqual(stmt('UPDATE spreads s SET spread = p.ask - p.bid, n = 0 FROM prices p WHERE s.symbol = p.symbol'), {
    kind: 'update',
    table: 'spreads',
    alias: 's',
    set: [
      { column: 'spread', value: bin('-', col('ask', 'p'), col('bid', 'p')) },
      { column: 'n', value: int(0) },
    ],
    from: table('prices', 'p'),
    where: bin('=', col('symbol', 's'), col('symbol', 'p')),
  });
});

test('parses SHOW statements, keeping unknown SHOW words', () => {
  assert.deepEqual(stmt('show tables'), { kind: 'show', what: 'TABLES', table: null });
  assert.deepEqual(stmt('SHOW COLUMNS FROM t'), { kind: 'show', what: 'COLUMNS', table: 't' });
  assert.deepEqual(stmt('SHOW CREATE TABLE t'), { kind: 'show', what: 'CREATE TABLE', table: 't' });
  assert.deepEqual(stmt('SHOW PARTITIONS FROM t'), { kind: 'show', what: 'PARTITIONS', table: 't' });
  assert.deepEqual(stmt('SHOW server_version'), { kind: 'show', what: 'SERVER_VERSION', table: null });
  assert.deepEqual(stmt('SHOW CREATE MATERIALIZED VIEW v'), {
    kind: 'show',
    what: 'CREATE MATERIALIZED VIEW',
    table: 'v',
  });
  assert.deepEqual(stmt('SHOW TIME ZONE'), { kind: 'show', what: 'TIME ZONE', table: null });
  const s = parseStatement('SHOW COLUMNS FROM  t');
  assert.ok(s.kind === 'show' && s.tablePos === 19);
});

test('parses EXPLAIN of any statement', () => {
  assert.deepEqual(stmt('EXPLAIN select 1'), {
    kind: 'explain',
    statement: { kind: 'query', query: sel({ columns: [item(int(1))] }) },
  });
  assert.deepEqual(stmt('EXPLAIN (FORMAT JSON) trades'), {
    kind: 'explain',
    format: 'JSON',
    statement: { kind: 'query', query: implicitSel(table('trades')) },
  });
  const e = parseStatement('explain update t set a = 1');
  assert.ok(e.kind === 'explain' && e.statement.kind === 'update');
});

test('recognises statements svcdb does not run by their leading keywords', () => {
  const cases: Array<[string, string]> = [
    ['GRANT SELECT ON t TO u', 'GRANT'],
    ['REVOKE ALL ON t FROM u', 'REVOKE'],
    ['create user bob', 'CREATE USER'],
    ['CREATE SERVICE ACCOUNT a', 'CREATE SERVICE ACCOUNT'],
    ['ALTER USER john ENABLE', 'ALTER USER'],
    ['DROP GROUP g', 'DROP GROUP'],
    ['COPY PERMISSIONS FROM alice TO bob', 'COPY'],
    ['BACKUP DATABASE', 'BACKUP'],
    ['CHECKPOINT CREATE', 'CHECKPOINT'],
    ['CANCEL SOMETHING 29', 'CANCEL'],
    ['ASSUME SERVICE ACCOUNT a', 'ASSUME SERVICE ACCOUNT'],
    ['EXIT SERVICE ACCOUNT a', 'EXIT SERVICE ACCOUNT'],
    ['SWITCH ROLE TO PRIMARY', 'SWITCH ROLE'],
    ['ADD USER john TO g', 'ADD USER'],
  ];
  for (const [sql, what] of cases) assert.deepEqual(parseStatement(sql), { kind: 'unsupported', pos: 0, what }, sql);
});

test('parses CANCEL QUERY id (a non-negative integer literal)', () => {
  assert.deepEqual(parseStatement('CANCEL QUERY 29;'), { kind: 'cancelQuery', pos: 0, id: 29, idPos: 13 });
  for (const sql of ['CANCEL QUERY -1', 'CANCEL QUERY x', 'CANCEL QUERY', "CANCEL QUERY '29'"])
    assert.throws(() => parseStatement(sql), /non-negative integer literal expected as query id/, sql);
});

test('parses REINDEX and VACUUM TABLE, and the partition ALTERs', () => {
  assert.deepEqual(parseStatement("REINDEX TABLE t COLUMN c PARTITION '2021-12-17' LOCK EXCLUSIVE"), {
    kind: 'maintenance',
    pos: 0,
    table: 't',
    tablePos: 14,
    op: 'reindex',
    column: { name: 'c', pos: 23 },
    partition: { name: '2021-12-17', pos: 35 },
  });
  assert.deepEqual(parseStatement('VACUUM TABLE t'), {
    kind: 'maintenance',
    pos: 0,
    table: 't',
    tablePos: 13,
    op: 'vacuum',
    column: null,
    partition: null,
  });
  const a = parseStatement("ALTER TABLE t ATTACH PARTITION LIST '2020'");
  assert.ok(a.kind === 'alterTable' && a.action.kind === 'movePartition' && !a.action.detach);
  const s = parseStatement('ALTER TABLE t SQUASH PARTITIONS');
  assert.ok(s.kind === 'alterTable' && s.action.kind === 'squashPartitions');
});

test("parses COPY's three forms: FROM with its options, TO a table or a query, CANCEL", () => {
  const from = parseStatement(
    "COPY weather FROM 'w.csv' WITH HEADER true TIMESTAMP 'ts' PARTITION BY DAY ON ERROR abort",
  );
  assert.ok(from.kind === 'copy' && from.mode === 'from');
  assert.deepEqual([from.table, from.file, from.filePos], ['weather', 'w.csv', 18]);
  assert.deepEqual(
    from.options.map((o) => [o.name, o.value]),
    [
      ['HEADER', 'true'],
      ['TIMESTAMP', 'ts'],
      ['PARTITION BY', 'DAY'],
      ['ON ERROR', 'ABORT'],
    ],
  );
  const to = parseStatement("COPY (SELECT * FROM t WHERE x > 1) TO 'dir' WITH FORMAT PARQUET ROW_GROUP_SIZE -1");
  assert.ok(to.kind === 'copy' && to.mode === 'to');
  assert.deepEqual([to.table, to.queryText, to.dir], [null, 'SELECT * FROM t WHERE x > 1', 'dir']);
  assert.deepEqual(
    to.options.map((o) => [o.name, o.value]),
    [
      ['FORMAT', 'PARQUET'],
      ['ROW_GROUP_SIZE', '-1'],
    ],
  );
  assert.deepEqual(parseStatement("COPY '55ca24e5ba328050' CANCEL;"), {
    kind: 'copy',
    mode: 'cancel',
    pos: 0,
    id: '55ca24e5ba328050',
    idPos: 5,
  });
});

test('replaces DECLARE variables before parsing; an undeclared one is an error at it', () => {
  const q = parseStatement('DECLARE @min := 10 SELECT * FROM t WHERE a > @min');
  assert.equal(q.kind, 'query');
  assert.deepEqual(
    q.variables?.get('@min')?.tokens.map((t) => t.text),
    ['10'],
  );
  assert.equal(parseStatement('CREATE TABLE t AS (DECLARE @x := now() SELECT @x)').kind, 'createTable');
  assertSqlError('SELECT * FROM t WHERE a > @min', 26, /undeclared variable: @min/);
  assertSqlError('SELECT * FROM @sub', 14, /undeclared variable: @sub/);
  // The variable's scope ends with the parentheses it is declared in.
  assertSqlError('SELECT @x FROM (DECLARE @x := 1 SELECT @x)', 7, /undeclared variable: @x/);
});

test('parses materialized view statements: options, refresh modes, the query as written', () => {
  const text =
    "CREATE MATERIALIZED VIEW IF NOT EXISTS 'v' WITH BASE trades REFRESH EVERY 1h START '2025-01-01T00:00:00Z' TIME ZONE 'Europe/Berlin' DEFERRED AS (\nSELECT ts, avg(p) FROM trades SAMPLE BY 1h\n) PARTITION BY DAY TTL 7 DAYS";
  const v = parseStatement(text);
  assert.equal(v.kind, 'createMatView');
  if (v.kind !== 'createMatView') return;
  assert.equal(v.name, 'v');
  assert.equal(v.ifNotExists, true);
  assert.deepEqual(v.base, { name: 'trades', pos: text.indexOf('trades') });
  assert.deepEqual(v.refresh, {
    type: 'timer',
    every: '1h',
    start: '2025-01-01T00:00:00Z',
    timeZone: 'Europe/Berlin',
    period: null,
  });
  assert.equal(v.deferred, true);
  assert.equal(v.sql, '\nSELECT ts, avg(p) FROM trades SAMPLE BY 1h\n');
  assert.deepEqual(v.partitionBy, { unit: 'DAY', pos: text.indexOf('DAY') });
  const p = parseStatement(
    "CREATE MATERIALIZED VIEW d REFRESH MANUAL PERIOD (LENGTH 1d TIME ZONE 'UTC' DELAY 1h) AS SELECT ts, avg(p) FROM t SAMPLE BY 1d",
  );
  assert.equal(p.kind === 'createMatView' && p.sql, 'SELECT ts, avg(p) FROM t SAMPLE BY 1d');
  assert.deepEqual(p.kind === 'createMatView' && p.refresh.period, { length: '1d', timeZone: 'UTC', delay: '1h' });
  const r = parseStatement("REFRESH MATERIALIZED VIEW v RANGE FROM '2025-05-01' TO '2025-05-02'");
  assert.equal(r.kind === 'refreshMatView' && r.mode, 'range');
  assert.equal(parseStatement('REFRESH MATERIALIZED VIEW v FULL').kind, 'refreshMatView');
  const a = parseStatement('ALTER MATERIALIZED VIEW v SET REFRESH LIMIT 1 WEEK');
  assert.equal(a.kind === 'alterMatView' && a.alter, 'SET REFRESH LIMIT 1 WEEK');
  const b = parseStatement('ALTER MATERIALIZED VIEW v SET REFRESH EVERY 12h');
  assert.equal(b.kind === 'alterMatView' && b.refresh?.every, '12h');
  assert.deepEqual(parseStatement('DROP MATERIALIZED VIEW IF EXISTS v').kind, 'dropMatView');
});

test('parses CREATE [OR REPLACE] / ALTER / DROP / COMPILE VIEW, keeping the query as written', () => {
  const v = parseStatement("CREATE OR REPLACE VIEW v AS (\n  DECLARE @x := 1 SELECT @x FROM t\n) OWNED BY 'g'");
  assert.equal(v.kind, 'createView');
  if (v.kind !== 'createView') return;
  assert.equal(v.orReplace, true);
  assert.equal(v.sql, '\n  DECLARE @x := 1 SELECT @x FROM t\n');
  const a = parseStatement('ALTER VIEW v AS (SELECT 1)');
  assert.equal(a.kind === 'createView' && a.alter, true);
  assert.deepEqual(parseStatement('DROP VIEW IF EXISTS v'), {
    kind: 'dropView',
    pos: 0,
    name: 'v',
    namePos: 20,
    ifExists: true,
  });
  assert.equal(parseStatement('COMPILE VIEW v').kind, 'compileView');
  // `AS (q) timestamp(ts)`: the parentheses are the query's first part, not the whole body.
  const t = parseStatement('CREATE VIEW w AS (SELECT * FROM t) timestamp(ts)');
  assert.equal(t.kind === 'createView' && t.sql, '(SELECT * FROM t) timestamp(ts)');
});

// ---------------------------------------------------------------- statements and scripts

test('accepts one trailing semicolon and rejects anything after the statement at that token', () => {
  assert.equal(parseStatement('select 1;').kind, 'query');
  assertSqlError('select 1; select 2', 10, /unexpected token \[select\]/);
  assertSqlError('select 1 from t )', 16, /unexpected token \[\)\]/);
});

test('splits a script into statements, skipping empty ones and semicolons inside strings', () => {
  const s = parseScript("select ';' from t;; create table x (a int); GRANT a TO b; show tables;");
  assert.deepEqual(
    s.map((x) => x.kind),
    ['query', 'createTable', 'unsupported', 'show'],
  );
  assert.deepEqual(parseScript(' ; -- nothing\n'), []);
  assertSqlError(
    'select 1 select 2',
    9,
    /SQL keywords have to be enclosed in double quotes, such as "select"/,
    parseScript,
  );
  assertSqlError('select 1; select 2 select', 19, /such as "select"/, parseScript);
});

// ---------------------------------------------------------------- errors

test('reports syntax errors QuestDB-style at the offending token', () => {
  const cases: Array<[string, number, RegExp]> = [
    ['select * from', 13, /table name or sub-query expected/],
    ['select * from   ', 16, /table name or sub-query expected/],
    ['select a from t where', 16, /^empty where clause$/],
    ['select a from t where a =', 25, /expression expected/],
    ['select from t', 7, /^column expression expected$/],
    ['select 1 2', 9, /^identifier should start with a letter or '_'$/],
    ['select (1', 7, /^unbalanced \($/],
    ['select f(1,)', 11, /expression expected/],
    ['select a from t group a', 22, /^'by' expected$/],
    ['select a from t order', 21, /'by' expected/],
    ['select * from t join', 20, /table name or sub-query expected/],
    ['select case when 1 end', 19, /'then' expected/],
    ['select a::', 10, /type name expected/],
    ['select * from t where a in (1', 27, /^unbalanced \($/],
    ['select * from t where a in (1 2)', 30, /^dangling literal$/],
    ['select * from t latest on ts', 28, /'partition' expected/],
    ['select * from t sample by', 25, /sample by interval expected/],
    ['select 1x', 7, /invalid constant \[1x\]/],
    ['select 99999999999999999999', 7, /number overflow/],
    ["select * from t where a = 'x", 26, /^unclosed quoted string\?$/],
    ['create table t (a)', 17, /^found \[tok='\)', len=1\] missing column definition$/],
    ['create table t (a int', 21, /^',' or '\)' expected$/],
    ['insert into t values (1', 23, /^',' expected$/],
    ['insert into t', 13, /'values' or 'select' expected/],
    ['update t set', 12, /column name expected/],
    ['drop table', 10, /table name expected/],
    ['alter table t drop partition', 28, /'list' or 'where' expected/],
    ['select t.* + 1 from t', 11, /identifier should start with a letter or '_'/],
    ['select a.* from', 15, /table name or sub-query expected/],
    [
      'select where from t',
      7,
      /^table and column names that are SQL keywords have to be enclosed in double quotes, such as "where"$/,
    ],
    ['', 0, /^empty query$/],
    ['  -- only a comment\n /* and another */', 0, /^empty query$/],
    [' -- only a comment\n ; select 1', 20, /empty statement/],
    ['select ?', 7, /expression expected/],
  ];
  for (const [sql, position, pattern] of cases) assertSqlError(sql, position, pattern);
});

test('words errors as QuestDB does, for every place the same mistake can be made', () => {
  const cases: Array<[string, number, RegExp]> = [
    // a word or literal inside an unclosed parenthesis or call, and a parenthesis left open
    ['select (1 + 2 from long_sequence(1)', 14, /^dangling literal$/],
    ['select abs(x y) from t', 13, /^dangling literal$/],
    ["select f(a, 'b' 'c')", 16, /^dangling literal$/],
    ['select (x', 7, /^unbalanced \($/],
    ['select length(s', 13, /^unbalanced \($/],
    ['select abs(x)) from t', 13, /^unexpected token \[\)\]$/],
    // CASE without END, CAST without AS or type
    ["select case when x > 1 then 'a' else 'b' from t", 7, /^unbalanced 'case'$/],
    ['select 1 + case when x then 2 from t', 11, /^unbalanced 'case'$/],
    ['select cast(x as) from t', 7, /^too few arguments for 'cast' \[found=1,expected=2\]$/],
    ['select cast(x) from t', 13, /^'as' missing$/],
    // the select list
    ['select x,, x from t', 9, /^missing expression$/],
    ['select x, y,, from t', 12, /^missing expression$/],
    ['select from from t', 7, /^column expression expected$/],
    ['select * frm t', 9, /^wildcard cannot have alias$/],
    ['select t.* a from t', 11, /^wildcard cannot have alias$/],
    ['select x as from from t', 12, /such as "from"$/],
    ['select x join from t', 9, /such as "join"$/],
    ['select 1 a order a', 11, /^',', 'from' or 'over' expected$/],
    ['select x 2 from t', 9, /^identifier should start with a letter or '_'$/],
    ['select x a b from t', 11, /^',', 'from' or 'over' expected$/],
    // clauses
    ['select x from t order x', 22, /^'by' expected$/],
    ['select x from t group by', 24, /^literal expected$/],
    ['select x from t where', 16, /^empty where clause$/],
    ['select x from t where x = 1 and where', 32, /such as "where"$/],
    ['select x from t limit', 21, /^expression expected$/],
    // statements
    ['create table', 12, /^table name or 'if' expected$/],
    ['create table t (a int, b)', 24, /^found \[tok='\)', len=1\] missing column definition$/],
    ['create table t (a, b int)', 17, /^found \[tok=',', len=1\] missing column definition$/],
    ['create table t (a int b int)', 22, /^',' or '\)' expected$/],
    ["insert into t values (1, 'a'", 28, /^',' expected$/],
    ['insert into t values (1 2)', 24, /^',' expected$/],
    ['insert into t values', 20, /^'\(' expected$/],
    ['insert t values (1)', 7, /^'into' expected$/],
    ['update set a = 1', 7, /such as "set"$/],
    ['update t a = 1', 11, /^SET expected$/],
    ['update t where a = 1', 9, /^SET expected$/],
    ['with a as (select 1 v) selec * from a', 23, /^'select' \| 'update' \| 'insert' expected$/],
    ['with a as select 1 v select * from a', 10, /^'\(' expected$/],
    ['with a (select 1 v) select * from a', 7, /^'as' expected$/],
    ["select 'abc from t", 7, /^unclosed quoted string\?$/],
    ['select "abc from t', 7, /^unclosed quoted string\?$/],
    // windows
    ['select row_number() over (order by) from t', 34, /^Expression expected$/],
    ['select sum(x) over (partition x) from t', 30, /^'by' expected after 'partition'$/],
  ];
  for (const [sql, position, pattern] of cases) assertSqlError(sql, position, pattern);
});

test('accepts what QuestDB accepts: a trailing comma before FROM, repeated trailing semicolons', () => {
  for (const sql of [
    'select x, from t',
    'select x, y, from t where x > 1',
    'select 1;;',
    'select 1 ; ; ;',
    'select x as a, from t',
  ]) {
    assert.equal(parseStatement(sql).kind, 'query', sql);
  }
  const q = parseStatement('select x, from t');
  assert.equal(q.kind === 'query' && q.query.kind === 'select' ? q.query.columns.length : -1, 1);
});

test('rejects pathological nesting with a positioned error instead of a crash', () => {
  const sql = `select ${'('.repeat(20000)}1${')'.repeat(20000)}`;
  assert.throws(
    () => parseStatement(sql),
    (e: unknown) => {
      assert.ok(e instanceof SvcError);
      assert.match(e.message, /expression nesting too deep \[max=\d+\]/);
      // The parenthesis that opened one level too many (the query itself is the first level).
      assert.equal(e.position, 'select '.length + MAX_NESTING - 1);
      return true;
    },
  );
});

// ---------------------------------------------------------------- robustness

function corpusQueries(): string[] {
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const p of [
    resolve(process.cwd(), '../shared/corpus/docs-queries.json'),
    resolve(here, '../../../../shared/corpus/docs-queries.json'),
  ]) {
    if (existsSync(p)) return (JSON.parse(readFileSync(p, 'utf8')) as Array<{ query: string }>).map((e) => e.query);
  }
  return [];
}

const SAMPLES = [
  "SELECT ts, avg(p) FROM t WHERE ts IN '2024' AND s = 'x' SAMPLE BY 15m FILL(PREV) ALIGN TO CALENDAR ORDER BY ts DESC LIMIT 10",
  'SELECT a.x, b.y, sum(z) OVER (PARTITION BY a.x ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) FROM a ASOF JOIN b ON (s)',
  'CREATE TABLE t (a SYMBOL CAPACITY 8 INDEX, ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL DEDUP UPSERT KEYS(ts, a)',
  "INSERT INTO t VALUES (1, 'a', #u33, 1.5m, ARRAY[1, 2]), (2, null, true, -1L, $1)",
  'WITH x AS (SELECT CASE WHEN a THEN 1 ELSE 2 END c FROM t) SELECT * FROM x UNION ALL (y WHERE b NOT IN (1, 2)) LIMIT 5',
];

const SOUP = [
  'select',
  'from',
  'where',
  '(',
  ')',
  ',',
  ';',
  '.',
  '[',
  ']',
  '::',
  '=',
  '<>',
  '<',
  '>=',
  '+',
  '-',
  '*',
  '/',
  '||',
  '~',
  ':',
  '1',
  '1.5',
  '1L',
  '0x1F',
  "'s'",
  '"q"',
  '$1',
  '@x',
  '#u33',
  'a',
  't',
  'AND',
  'OR',
  'NOT',
  'IN',
  'BETWEEN',
  'IS',
  'NULL',
  'CASE',
  'WHEN',
  'THEN',
  'END',
  'CAST',
  'AS',
  'ARRAY',
  'OVER',
  'PARTITION',
  'BY',
  'ORDER',
  'ROWS',
  'RANGE',
  'PRECEDING',
  'JOIN',
  'ASOF',
  'ON',
  'SAMPLE',
  '15m',
  'FILL',
  'ALIGN',
  'TO',
  'LATEST',
  'LIMIT',
  'UNION',
  'WITH',
  'CREATE',
  'TABLE',
  'TIMESTAMP',
  'INSERT',
  'INTO',
  'VALUES',
  'UPDATE',
  'SET',
  'ALTER',
  'DROP',
  'SHOW',
  'EXPLAIN',
  'PIVOT',
  'FOR',
  'WINDOW',
  'HORIZON',
  'LIST',
  'DECLARE',
  'GROUP',
  '--c\n',
  '/*x*/',
  "'",
  '"',
  '/*',
  '1e',
  '.5',
];

test('never throws anything but a positioned SvcError on random token soups and mutated statements', () => {
  let seed = 12345;
  const rnd = (): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)] as T;
  const check = (sql: string): void => {
    for (const parse of [parseStatement, parseScript]) {
      try {
        parse(sql);
      } catch (e) {
        if (!(e instanceof SvcError) || e.position === undefined || e.position < 0 || e.position > sql.length) {
          assert.fail(`${JSON.stringify(sql)} threw ${e instanceof Error ? e.stack : String(e)}`);
        }
      }
    }
  };
  for (let i = 0; i < 5000; i++) {
    const parts: string[] = [];
    for (let k = 1 + Math.floor(rnd() * 12); k > 0; k--) parts.push(pick(SOUP));
    check(parts.join(rnd() < 0.8 ? ' ' : ''));
  }
  const base = [...SAMPLES, ...corpusQueries()];
  for (let i = 0; i < 5000; i++) {
    const q = pick(base);
    const p = Math.floor(rnd() * q.length);
    const r = rnd();
    if (r < 0.35) check(q.slice(0, p));
    else if (r < 0.65) check(q.slice(0, p) + q.slice(p + 1 + Math.floor(rnd() * 5)));
    else if (r < 0.85) check(`${q.slice(0, p)} ${pick(SOUP)} ${q.slice(p)}`);
    else check(q.slice(0, p) + q.slice(Math.floor(rnd() * q.length)));
  }
});
