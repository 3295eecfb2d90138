// The depth guard (lib/sql/depth-guard.ts) and the shapes it keeps shallow: the
// parser's nesting limit, the height of the tree it builds, AND/OR and UNION runs
// built balanced, the plan check (CTE chains, shared CTE plans), and the net that
// turns a stack overflow escaping compile() into a client error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SvcError } from '../../lib/errors/svc-error.js';
import { compile } from '../../lib/exec/engine.js';
import { valueAt } from '../../lib/exec/vectors.js';
import type { Expr, Query, Statement } from '../../lib/sql/ast.js';
import type { Plan } from '../../lib/sql/bound.js';
import {
  checkPlanDepth,
  checkSyntaxDepth,
  MAX_NESTING,
  MAX_PLAN_DEPTH,
  MAX_PLAN_OPERATORS,
} from '../../lib/sql/depth-guard.js';
import { parseStatement } from '../../lib/sql/parser.js';
import { Catalog } from '../../lib/storage/catalog.js';
import { ENGINE, tempCatalog } from '../helpers/engine.js';

const { catalog } = tempCatalog('svcdb-depth-');

async function rows(sql: string): Promise<unknown[][]> {
  const s = compile(sql, { ...ENGINE, catalog });
  assert.equal(s.kind, 'select');
  const out: unknown[][] = [];
  if (s.kind === 'select')
    for await (const b of s.execute(new AbortController().signal))
      for (let i = 0; i < b.rowCount; i++) out.push(b.columns.map((c) => valueAt(c, i)));
  return out;
}

/** Asserts `fn` throws the guard's SQL error at `position`. */
function assertTooDeep(
  fn: () => unknown,
  position: number,
  what = /(statement|query|expression) nesting too deep \[max=\d+\]/,
): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof SvcError, String(e));
    assert.equal(e.code, 'SQL');
    assert.match(e.message, what);
    assert.equal(e.position, position);
    return true;
  });
}

/** Height of a syntax tree in nodes (objects with a kind), as the guard counts it. */
function height(o: unknown): number {
  if (o === null || typeof o !== 'object') return 0;
  const inner = Math.max(0, ...Object.values(o as object).map(height));
  return inner + (typeof (o as { kind?: unknown }).kind === 'string' ? 1 : 0);
}

function where(sql: string): Expr {
  const s = parseStatement(sql) as Extract<Statement, { kind: 'query' }>;
  assert.ok(s.query.kind === 'select' && s.query.where !== null);
  return s.query.where;
}

/** `select 1+1+...` with `n` operators: a tree n + 4 nodes high (statement, select, item, operators, leaf). */
const plusChain = (n: number): string =>
  `select ${Array(n + 1)
    .fill('1')
    .join('+')}`;

test('a tree exactly MAX_NESTING nodes high is accepted, one node more is refused', () => {
  assert.equal(height(parseStatement(plusChain(MAX_NESTING - 4))), MAX_NESTING);
  // The whole statement is what got one level too high: reported at its start.
  assertTooDeep(() => parseStatement(plusChain(MAX_NESTING - 3)), 0, /^statement nesting too deep/);
});

test('a long chain of operators is refused at the operator where it crossed the limit, reading left to right', () => {
  const sql = plusChain(3000);
  // The MAX_NESTING-th '+' tops a subtree of MAX_NESTING operators over the first literal.
  const at = 'select '.length + 2 * MAX_NESTING - 1;
  assert.equal(sql[at], '+');
  assertTooDeep(() => parseStatement(sql), at, /^expression nesting too deep/);
});

test('the parser stops nesting it would recurse into at the level that opened one too many', () => {
  const n = 5000;
  const M = MAX_NESTING;
  // [sql, where the guard fires]: the statement's query is level 1, a select item 2, then one per nesting.
  const cases: Array<[string, number]> = [
    [`select ${'abs('.repeat(n)}1${')'.repeat(n)}`, 7 + (M - 1) * 'abs('.length],
    [`select ${'not '.repeat(n)}true`, 7 + (M - 1) * 'not '.length],
    [`select ${'cast('.repeat(n)}1${' as int)'.repeat(n)}`, 7 + (M - 1) * 'cast('.length],
    [`select ${'('.repeat(n)}1${')'.repeat(n)}`, 7 + (M - 1)],
    [`select ${'['.repeat(n)}1${']'.repeat(n)}`, 7 + (M - 2)],
    // A CASE's WHEN condition is one level inside it.
    [
      `select ${'case when true then '.repeat(n)}1${' end'.repeat(n)}`,
      7 + (M - 2) * 'case when true then '.length + 'case when '.length,
    ],
    [`${'select * from ('.repeat(n)}select 1${')'.repeat(n)}`, M * 'select * from ('.length],
    [`${'explain '.repeat(n)}select 1`, M * 'explain '.length],
  ];
  for (const [sql, position] of cases) assertTooDeep(() => parseStatement(sql), position);
});

test('a chain of casts, joins or subscripts built in a loop is measured as the tree it makes', () => {
  assertTooDeep(
    () => parseStatement(`select 1${'::int'.repeat(3000)}`),
    'select 1'.length + (MAX_NESTING - 1) * '::int'.length,
    /^expression/,
  );
  const joins = `select * from t0${Array.from({ length: 3000 }, (_, i) => ` join t${i + 1} on x`).join('')}`;
  assert.throws(() => parseStatement(joins), /query nesting too deep/);
});

test('AND and OR runs become balanced trees: 10,000 terms are a few levels, in the same order', () => {
  const terms = Array.from({ length: 10_000 }, (_, i) => `x = ${i}`);
  const or = where(`select * from t where ${terms.join(' or ')}`);
  assert.ok(height(or) <= 20, `height ${height(or)}`);
  // In-order traversal gives the terms left to right; every inner node is an OR at one of the OR keywords.
  const leaves: number[] = [];
  const stack: Expr[] = [or];
  const text = `select * from t where ${terms.join(' or ')}`;
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (e.kind === 'binary' && e.op === 'OR') {
      assert.equal(text.slice(e.pos, e.pos + 2), 'or');
      stack.push(e.right, e.left);
    } else {
      assert.ok(e.kind === 'binary' && e.op === '=' && e.right.kind === 'literal');
      leaves.push(e.right.value as number);
    }
  }
  assert.deepEqual(
    leaves,
    terms.map((_, i) => i),
  );
  // Precedence is kept: AND binds tighter than OR, and a run of one operator does not swallow the other.
  const mixed = where('select * from t where a and b and c or d or e and f');
  const col = (name: string) => ({ kind: 'column', table: null, name });
  const strip = (e: unknown): unknown =>
    JSON.parse(JSON.stringify(e, (k, v: unknown) => (k === 'pos' ? undefined : v)));
  const bin = (op: string, left: unknown, right: unknown) => ({ kind: 'binary', op, left, right });
  assert.deepEqual(
    strip(mixed),
    bin(
      'OR',
      bin('OR', bin('AND', bin('AND', col('a'), col('b')), col('c')), col('d')),
      bin('AND', col('e'), col('f')),
    ),
  );
});

test('runs of UNION or UNION ALL become balanced trees; other set operations stay left to right', () => {
  const sql = Array.from({ length: 5000 }, (_, i) => `select ${i} x`).join(' union all ');
  const q = (parseStatement(sql) as Extract<Statement, { kind: 'query' }>).query;
  assert.ok(height(q) <= 30, `height ${height(q)}`);
  const ops = (x: Query): string[] =>
    x.kind === 'setOp' ? [...ops(x.left), `${x.op}${x.all ? ' ALL' : ''}`, ...ops(x.right)] : ['s'];
  const mixed = (
    parseStatement(
      'select 1 union select 2 union select 3 union all select 4 except select 5 union select 6 order by 1 limit 2',
    ) as Extract<Statement, { kind: 'query' }>
  ).query;
  // Left to right between runs: ((((1 u 2) u 3) ua 4) e 5) u 6, with ORDER BY / LIMIT on the whole.
  assert.deepEqual(ops(mixed), ['s', 'UNION', 's', 'UNION', 's', 'UNION ALL', 's', 'EXCEPT', 's', 'UNION', 's']);
  assert.ok(
    mixed.kind === 'setOp' && mixed.op === 'UNION' && mixed.right.kind === 'select' && mixed.right.limit === null,
  );
  assert.ok(mixed.limit !== null && mixed.orderBy.length === 1);
  assert.ok(mixed.left.kind === 'setOp' && mixed.left.op === 'EXCEPT');
});

test('thousands of OR terms, AND terms and UNION ALL operands run and give the right answer', async () => {
  const n = 3000;
  assert.deepEqual(
    await rows(
      `select count() from long_sequence(5000) where ${Array.from({ length: n }, (_, i) => `x = ${i + 1}`).join(' or ')}`,
    ),
    [[n]],
  );
  assert.deepEqual(
    await rows(
      `select count() from long_sequence(5000) where ${Array.from({ length: n }, (_, i) => `x != ${i + 1}`).join(' and ')}`,
    ),
    [[5000 - n]],
  );
  assert.deepEqual(
    await rows(`select sum(x) from (${Array.from({ length: n }, (_, i) => `select ${i + 1} x`).join(' union all ')})`),
    [[(n * (n + 1)) / 2]],
  );
  assert.deepEqual(
    await rows(`select count() from (${Array.from({ length: n }, (_, i) => `select ${i % 7} x`).join(' union ')})`),
    [[7]],
  );
});

test('a CTE sees the CTEs before it: a self-reference is an unknown table, not endless recursion', () => {
  assert.throws(
    () => compile('with a as (select * from a) select * from a', { ...ENGINE, catalog }),
    (e: unknown) => e instanceof SvcError && /table does not exist \[table=a\]/.test(e.message) && e.position === 25,
  );
});

test('a CTE is bound once however often it is used; a plan that would expand past the operator limit is refused quickly', async () => {
  // Each CTE joins the previous one with itself: 2^k scans once expanded.
  const ctes = (k: number): string =>
    [
      'c0 as (select x from long_sequence(2))',
      ...Array.from({ length: k }, (_, i) => `c${i + 1} as (select a.x from c${i} a join c${i} b on a.x = b.x)`),
    ].join(', ');
  assert.deepEqual(await rows(`with ${ctes(4)} select count() from c4`), [[2]]);
  const t0 = Date.now();
  assert.throws(
    () => compile(`with ${ctes(40)} select count() from c40`, { ...ENGINE, catalog }),
    (e: unknown) =>
      e instanceof SvcError && e.code === 'SQL' && /query too complex: \d+ operators .* \[max=\d+\]/.test(e.message),
  );
  assert.ok(Date.now() - t0 < 2000, 'refused without expanding the plan');
});

test('a chain of CTEs is refused where its plan got too deep', () => {
  const n = 2000;
  const sql = `with c0 as (select 1 x), ${Array.from({ length: n }, (_, i) => `c${i + 1} as (select x from c${i})`).join(', ')} select * from c${n}`;
  assert.throws(
    () => compile(sql, { ...ENGINE, catalog }),
    (e: unknown) => {
      assert.ok(e instanceof SvcError && e.code === 'SQL', String(e));
      assert.match(e.message, /^query nesting too deep/);
      // At the SELECT of the CTE whose plan crossed the limit.
      assert.equal(sql.slice(e.position!, e.position! + 6), 'select');
      return true;
    },
  );
});

test('the plan check weighs operators twice and expression levels once, and measures a shared subplan once', () => {
  const one: Plan = { kind: 'oneRow', fields: [], timestamp: -1 };
  const filters = (k: number): Plan => {
    let p: Plan = one;
    for (let i = 0; i < k; i++)
      p = {
        kind: 'filter',
        input: p,
        predicate: { kind: 'const', type: 'BOOLEAN', value: true },
        fields: [],
        timestamp: -1,
      };
    return p;
  };
  const fits = MAX_PLAN_DEPTH / 2 - 1;
  checkPlanDepth(filters(fits), 0);
  assert.throws(
    () => checkPlanDepth(filters(fits + 1), 7),
    (e: unknown) => e instanceof SvcError && e.position === 7 && /query nesting too deep/.test(e.message),
  );
  // Doubling a shared plan 60 times: 2^60 operators expanded, measured in 60 steps.
  let p: Plan = one;
  for (let i = 0; i < 60; i++)
    p = { kind: 'setOp', op: 'UNION', all: true, left: p, right: p, fields: [], timestamp: -1 };
  assert.throws(
    () => checkPlanDepth(p, 3),
    (e: unknown) => e instanceof SvcError && new RegExp(`max=${MAX_PLAN_OPERATORS}`).test(e.message),
  );
});

test('checkSyntaxDepth walks any tree without recursion and reports the first node past the limit', () => {
  let leaf: { kind: string; pos: number; arg?: unknown } = { kind: 'literal', pos: 100_000 };
  for (let i = 99_999; i >= 0; i--) leaf = { kind: 'unary', pos: i, arg: [{ wrapper: leaf }] };
  // 100,001 nodes high: the node whose subtree first passes the limit is MAX_NESTING levels above the literal.
  assertTooDeep(() => checkSyntaxDepth(leaf), 100_000 - MAX_NESTING);
});

test('a stack overflow escaping compile() is a 400 "statement too complex", not an internal error', () => {
  const overflowing = Object.create(catalog) as Catalog;
  // The catalog's own reads private state the prototype copy has not.
  overflowing.view = () => null;
  overflowing.expireRows = () => null;
  overflowing.get = () => {
    throw new RangeError('Maximum call stack size exceeded');
  };
  assert.throws(
    () => compile('select * from t', { ...ENGINE, catalog: overflowing }),
    (e: unknown) => e instanceof SvcError && e.status === 400 && e.message === 'statement too complex',
  );
  // Other errors pass through unchanged.
  overflowing.get = () => {
    throw new TypeError('boom');
  };
  assert.throws(() => compile('select * from t', { ...ENGINE, catalog: overflowing }), TypeError);
});
