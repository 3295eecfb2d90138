// Query parsing: WITH, set operations, SELECT and QuestDB's implicit SELECT
// (`trades WHERE ...`), WHERE, LATEST ON, SAMPLE BY, GROUP BY, WINDOW, PIVOT, ORDER BY, LIMIT.

import type {
  Cte,
  Expr,
  FromItem,
  LatestOn,
  Pivot,
  Query,
  SampleBy,
  Select,
  SelectItem,
  SetOp,
  WindowSpec,
} from './ast.js';
import { keywordNameError, SQL_KEYWORDS, type Cursor, type Mutable } from './parse-cursor.js';
import { parseExpr, parseExprList, parseOrderList, P_BOR } from './parse-expr.js';
import { parseFrom, parseFromRest } from './parse-from.js';
import { parseWindowSpec } from './parse-window.js';

/** True when the token `ahead` starts a query body: SELECT or WITH (DECLARE blocks are gone by now: declare.ts). */
export function isQueryStart(c: Cursor, ahead: number): boolean {
  const t = c.peek(ahead);
  return t.kind === 'ident' && (t.up === 'SELECT' || t.up === 'WITH');
}

/** A full query: [WITH ctes] operand {UNION|EXCEPT|INTERSECT [ALL] operand} (left to right; see chain()). */
export function parseQuery(c: Cursor): Query {
  c.enter('query');
  const q = c.isKw('WITH') ? parseQueryWith(c, parseCtes(c)) : parseSetOps(c);
  c.leave();
  return q;
}

/** The query body after its already-parsed WITH clause. */
export function parseQueryWith(c: Cursor, ctes: readonly Cte[]): Query {
  const body = parseSetOps(c);
  return { ...body, with: [...ctes, ...body.with] };
}

/** `WITH name AS (query), ...` (also ahead of INSERT and UPDATE). */
export function parseCtes(c: Cursor): Cte[] {
  c.expectKw('WITH');
  const ctes: Cte[] = [];
  do {
    const { name, pos } = c.name('common table expression name');
    c.expectKw('AS');
    c.expectOp('(');
    const query = parseQuery(c);
    c.expectOp(')');
    ctes.push({ name, pos, query });
  } while (c.acceptOp(','));
  return ctes;
}

function setOpWord(c: Cursor): 'UNION' | 'EXCEPT' | 'INTERSECT' | null {
  const t = c.tok;
  if (t.kind !== 'ident') return null;
  return t.up === 'UNION' || t.up === 'EXCEPT' || t.up === 'INTERSECT' ? t.up : null;
}

/** One `op [ALL] operand` of a chain of set operations. */
interface SetOpStep {
  readonly op: 'UNION' | 'EXCEPT' | 'INTERSECT';
  readonly all: boolean;
  readonly pos: number;
  operand: Query;
}

function parseSetOps(c: Cursor): Query {
  const first = parseOperand(c).query;
  const steps: SetOpStep[] = [];
  let lastParen = false;
  for (let op = setOpWord(c); op !== null; op = setOpWord(c)) {
    const t = c.next();
    const all = c.acceptKw('ALL');
    if (!all) c.acceptKw('DISTINCT');
    const { query, paren } = parseOperand(c);
    steps.push({ op, all, pos: t.pos, operand: query });
    lastParen = paren;
  }
  const last = steps[steps.length - 1];
  if (last === undefined) return first;
  // ORDER BY / LIMIT after the last unparenthesized operand apply to the whole set operation.
  let orderBy: Select['orderBy'] = [];
  let limit: Select['limit'] = null;
  const right = last.operand;
  if (!lastParen && right.kind === 'select' && (right.orderBy.length > 0 || right.limit !== null)) {
    ({ orderBy, limit } = right);
    last.operand = { ...right, orderBy: [], limit: null };
  }
  return { ...chain(first, steps), orderBy, limit };
}

/**
 * The set operations left to right, except that a run of UNION (or of UNION ALL) is a
 * balanced tree: both are associative with their rows in the same order, and generated
 * queries union thousands of one-row SELECTs, which must not become thousands of levels.
 */
function chain(first: Query, steps: readonly SetOpStep[]): SetOp {
  let left: Query = first;
  let i = 0;
  while (i < steps.length) {
    const s = steps[i]!;
    let j = i + 1;
    if (s.op === 'UNION') while (j < steps.length && steps[j]!.op === 'UNION' && steps[j]!.all === s.all) j++;
    left = unionRun(left, steps, i, j);
    i = j;
  }
  return left as SetOp;
}

/** `left` followed by steps [i, j) of one operator, as a balanced tree; each node's pos is its operator's. */
function unionRun(left: Query, steps: readonly SetOpStep[], i: number, j: number): Query {
  const operand = (k: number): Query => (k < i ? left : steps[k]!.operand);
  // Operands are indexed i-1 (left) .. j-1; the operator before operand k is steps[k].
  const build = (lo: number, hi: number): Query => {
    if (hi - lo === 1) return operand(lo);
    const mid = lo + Math.ceil((hi - lo) / 2);
    const s = steps[mid]!;
    return {
      kind: 'setOp',
      pos: s.pos,
      op: s.op,
      all: s.all,
      left: build(lo, mid),
      right: build(mid, hi),
      with: [],
      orderBy: [],
      limit: null,
    };
  };
  return build(i - 1, j);
}

/** One operand of a set operation: SELECT ..., (query) [clauses], or an implicit select `table [clauses]`. */
function parseOperand(c: Cursor): { query: Query; paren: boolean } {
  const t = c.tok;
  if (c.isOp('(')) {
    if (c.isKw('SHOW', c.peek())) return { query: parseImplicit(c, t.pos), paren: false };
    c.next();
    const inner = parseQuery(c);
    c.expectOp(')');
    if (endsOperand(c)) return { query: inner, paren: true };
    // `(query) WHERE ...`, `(query) TIMESTAMP(ts) LIMIT 10`: an implicit select over the subquery.
    const from = parseFromRest(c, { kind: 'subqueryRef', pos: t.pos, query: inner, alias: null }, false);
    return { query: parseClauses(c, implicitSelect(t.pos, from)), paren: false };
  }
  if (t.kind === 'ident') {
    if (t.up === 'SELECT') return { query: parseSelect(c), paren: false };
    if (t.up === 'WITH') return { query: parseQuery(c), paren: false };
  }
  if (t.kind === 'ident' || t.kind === 'qident' || t.kind === 'string')
    return { query: parseImplicit(c, t.pos), paren: false };
  throw c.expected('query');
}

function endsOperand(c: Cursor): boolean {
  return c.atEnd() || c.isOp(')') || c.isOp(';') || setOpWord(c) !== null;
}

/** QuestDB's implicit select: `trades`, `trades WHERE ...`, `tables()`, `(SHOW PARAMETERS) WHERE ...`. */
function parseImplicit(c: Cursor, pos: number): Select {
  const from = parseFrom(c, true);
  return parseClauses(c, implicitSelect(pos, from));
}

function implicitSelect(pos: number, from: FromItem): Mutable<Select> {
  return { ...emptySelect(pos, true), columns: [{ kind: 'star', pos, table: null }], from };
}

function emptySelect(pos: number, implicit: boolean): Mutable<Select> {
  return {
    kind: 'select',
    pos,
    with: [],
    distinct: false,
    columns: [],
    from: null,
    where: null,
    latestOn: null,
    sampleBy: null,
    groupBy: [],
    having: null,
    orderBy: [],
    limit: null,
    implicit,
  };
}

function parseSelect(c: Cursor): Select {
  const t = c.next();
  const s = emptySelect(t.pos, false);
  s.distinct = c.acceptKw('DISTINCT');
  if (!s.distinct) c.acceptKw('ALL');
  s.columns = parseSelectList(c);
  if (c.acceptKw('FROM')) s.from = parseFrom(c, false);
  return parseClauses(c, s);
}

/**
 * The select list, by QuestDB's rules: FROM after a trailing comma ends it
 * (`select x, from t`), an empty item is "missing expression" at its comma,
 * and whatever follows an item other than `,`, FROM, OVER, a set operation,
 * `;` or `)` is its alias, which must be a name and not an unquoted keyword.
 */
function parseSelectList(c: Cursor): SelectItem[] {
  const items: SelectItem[] = [];
  do {
    const t = c.tok;
    if (c.isKw('FROM') || c.atEnd()) {
      if (items.length > 0) break;
      throw c.error('column expression expected', t.pos);
    }
    if (c.isOp(',')) throw c.error('missing expression', t.pos);
    let item: SelectItem;
    if (c.isOp('*')) {
      c.next();
      item = { kind: 'star', pos: t.pos, table: null };
    } else if ((t.kind === 'ident' || t.kind === 'qident') && c.isOp('.', c.peek()) && c.isOp('*', c.peek(2))) {
      c.i += 3;
      item = { kind: 'star', pos: t.pos, table: t.text };
    } else {
      const expr = parseExpr(c);
      item = { kind: 'item', pos: t.pos, expr, alias: null, end: c.prevEnd };
    }
    const alias = selectAlias(c);
    if (alias !== null) {
      if (item.kind === 'star') throw c.error('wildcard cannot have alias', alias.pos);
      item = { ...item, alias: alias.name };
    }
    items.push(item);
    if (!c.isOp(',') && !endsSelectList(c)) throw c.expected("',', 'from' or 'over'");
  } while (c.acceptOp(','));
  return items;
}

/**
 * Tokens after a select item that are not its alias: QuestDB's (`,` aside) and,
 * for a select without FROM, the clauses that may follow it (`select 1 a order by a`).
 */
function endsSelectList(c: Cursor): boolean {
  if (c.atEnd() || c.isOp(';') || c.isOp(')') || c.isKw('FROM') || c.isKw('OVER') || setOpWord(c) !== null) return true;
  if (c.isKw('WHERE') || c.isKw('LIMIT') || c.isKw('HAVING')) return true;
  const next = c.peek();
  return c.isKw('ORDER') || c.isKw('GROUP') || c.isKw('SAMPLE')
    ? c.isKw('BY', next)
    : c.isKw('LATEST') && (c.isKw('ON', next) || c.isKw('BY', next));
}

/** `[AS] alias` after a select item, or null; the alias must start with a letter or `_` and not be a bare keyword. */
function selectAlias(c: Cursor): { name: string; pos: number } | null {
  if (c.isOp(',') || endsSelectList(c)) return null;
  if (c.acceptKw('AS') && c.atEnd()) throw c.expected('alias');
  const t = c.tok;
  if (t.kind === 'ident' && SQL_KEYWORDS.has(t.up)) throw keywordNameError(t);
  if (t.kind === 'ident' || t.kind === 'qident' || t.kind === 'string') {
    if (t.text.length === 0) throw c.error('column alias cannot be a blank string', t.pos);
    c.next();
    return { name: t.text, pos: t.pos };
  }
  throw c.error("identifier should start with a letter or '_'", t.pos);
}

/** WHERE / LATEST / SAMPLE BY / GROUP BY / HAVING / WINDOW / ORDER BY / LIMIT, in QuestDB's order. */
function parseClauses(c: Cursor, s: Mutable<Select>): Select {
  if (s.from !== null && c.isKw('PIVOT') && c.isOp('(', c.peek())) s.pivot = parsePivot(c);
  if (c.isKw('LATEST')) s.latestOn = parseLatest(c);
  if (c.isKw('WHERE')) {
    const w = c.next();
    if (c.atEnd() || c.isOp(';') || c.isOp(')')) throw c.error('empty where clause', w.pos);
    s.where = parseExpr(c);
  }
  if (s.latestOn === null && c.isKw('LATEST')) s.latestOn = parseLatest(c);
  if (c.isKw('SAMPLE')) s.sampleBy = parseSampleBy(c);
  if (c.isKw('GROUP')) {
    c.next();
    c.expectKw('BY');
    if (c.atEnd() || c.isOp(';') || c.isOp(')')) throw c.expected('literal');
    s.groupBy = parseExprList(c);
  }
  if (c.acceptKw('HAVING')) s.having = parseExpr(c);
  if (c.isKw('WINDOW') && !c.isKw('JOIN', c.peek())) s.windows = parseWindows(c);
  if (c.isKw('ORDER')) {
    c.next();
    c.expectKw('BY');
    s.orderBy = parseOrderList(c);
  }
  if (c.acceptKw('LIMIT')) {
    const lo = parseExpr(c);
    s.limit = { lo, hi: c.acceptOp(',') ? parseExpr(c) : null };
  }
  return s;
}

function parseLatest(c: Cursor): LatestOn {
  const t = c.next();
  if (c.acceptKw('ON')) {
    const timestamp = columnRef(c);
    c.expectKw('PARTITION');
    c.expectKw('BY');
    return { pos: t.pos, timestamp, partitionBy: columnList(c) };
  }
  if (c.acceptKw('BY')) return { pos: t.pos, timestamp: null, partitionBy: columnList(c) };
  throw c.expected("'on' or 'by'");
}

function columnRef(c: Cursor) {
  const t = c.tok;
  const e = parseExpr(c, P_BOR);
  if (e.kind !== 'column') throw c.error('column name expected', t.pos);
  return e;
}

function columnList(c: Cursor) {
  const list = [columnRef(c)];
  while (c.acceptOp(',')) list.push(columnRef(c));
  return list;
}

const SAMPLE_WORDS: ReadonlySet<string> = new Set(['FROM', 'TO', 'FILL', 'ALIGN']);

function parseSampleBy(c: Cursor): SampleBy {
  const t = c.next();
  c.expectKw('BY');
  const u = c.tok;
  // `SAMPLE BY 15m`; a bare unit word (`SAMPLE BY w`) is kept as written too.
  const interval = u.kind === 'ident' && !SAMPLE_WORDS.has(u.up) ? c.next().text : c.duration('sample by interval');
  const s: Mutable<SampleBy> = {
    pos: t.pos,
    interval,
    fill: [],
    from: null,
    to: null,
    align: null,
    timeZone: null,
    offset: null,
  };
  for (;;) {
    if (s.from === null && c.isKw('FROM')) {
      c.next();
      s.from = parseExpr(c);
      if (c.acceptKw('TO')) s.to = parseExpr(c);
    } else if (s.from === null && c.isKw('TO')) {
      c.next();
      s.to = parseExpr(c);
    } else if (s.fill.length === 0 && c.isKw('FILL')) {
      c.next();
      c.expectOp('(');
      s.fill = parseExprList(c);
      c.expectOp(')');
    } else if (s.align === null && c.isKw('ALIGN')) {
      c.next();
      c.expectKw('TO');
      if (c.acceptKw('FIRST')) {
        c.expectKw('OBSERVATION');
        s.align = 'FIRST OBSERVATION';
      } else {
        c.expectKw('CALENDAR');
        s.align = 'CALENDAR';
        if (c.isKw('TIME') && c.isKwAt(1, 'ZONE')) {
          c.i += 2;
          s.timeZone = parseExpr(c);
        }
        if (c.isKw('WITH') && c.isKwAt(1, 'OFFSET')) {
          c.i += 2;
          s.offset = parseExpr(c);
        }
      }
    } else {
      return s;
    }
  }
}

function parseWindows(c: Cursor): Array<{ name: string; pos: number; spec: WindowSpec }> {
  c.next();
  const list: Array<{ name: string; pos: number; spec: WindowSpec }> = [];
  do {
    const { name, pos } = c.name('window name');
    c.expectKw('AS');
    list.push({ name, pos, spec: parseWindowSpec(c) });
  } while (c.acceptOp(','));
  return list;
}

function parsePivot(c: Cursor): Pivot {
  const t = c.next();
  c.expectOp('(');
  const aggregates: Array<Pivot['aggregates'][number]> = [];
  do {
    const pos = c.tok.pos;
    const expr = parseExpr(c);
    let alias: string | null = null;
    if (c.acceptKw('AS')) alias = c.alias();
    else if (c.isPlainWord() && !c.isKw('FOR')) alias = c.next().text;
    aggregates.push({ expr, alias, pos });
  } while (c.acceptOp(','));
  c.expectKw('FOR');
  const fors: Array<Pivot['for'][number]> = [];
  do {
    const pos = c.tok.pos;
    const expr = parseExpr(c, P_BOR);
    c.expectKw('IN');
    c.expectOp('(');
    if (isQueryStart(c, 0)) {
      fors.push({ expr, values: null, query: parseQuery(c), pos });
    } else {
      fors.push({ expr, values: parseExprList(c), query: null, pos });
    }
    c.expectOp(')');
    c.acceptOp(',');
  } while (!c.isOp(')') && !c.isKw('GROUP'));
  let groupBy: Expr[] = [];
  if (c.acceptKw('GROUP')) {
    c.expectKw('BY');
    groupBy = parseExprList(c);
  }
  c.expectOp(')');
  return { pos: t.pos, aggregates, for: fors, groupBy };
}
