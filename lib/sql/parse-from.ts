// FROM parsing: tables, table functions, subqueries and (SHOW ...) with aliases and
// TIMESTAMP(col) designations, and joins (comma, INNER/LEFT/.../ASOF/LT/SPLICE/WINDOW/HORIZON).

import type { FromItem, Horizon, HorizonOffset, Join, JoinType, Show, WindowFrame } from './ast.js';
import { type Cursor, type Mutable } from './parse-cursor.js';
import { undeclaredVariable } from './declare.js';
import { parseCall, parseExpr } from './parse-expr.js';
import { parseQuery } from './parse-query.js';
import { parseShow } from './parse-statement.js';
import { parseFrame } from './parse-window.js';

const JOIN_WORDS = new Set([
  'JOIN',
  'INNER',
  'LEFT',
  'RIGHT',
  'FULL',
  'CROSS',
  'ASOF',
  'LT',
  'SPLICE',
  'WINDOW',
  'HORIZON',
]);

/** Parses FROM items and joins (comma joins are CROSS). `implicitStart`: `selec 1` takes `1` as an alias, like QuestDB. */
export function parseFrom(c: Cursor, implicitStart: boolean): FromItem {
  return parseFromRest(c, parseFromPrimary(c, implicitStart), true);
}

/** After a first FROM source: its alias and TIMESTAMP(col) unless `aliasDone`, then joins. */
export function parseFromRest(c: Cursor, first: Exclude<FromItem, Join>, aliasDone: boolean): FromItem {
  let left: FromItem = aliasDone ? first : withAliasAndTimestamp(c, first, false);
  for (;;) {
    const t = c.tok;
    if (c.isOp(',')) {
      c.next();
      const right = parseFromPrimary(c, false);
      left = join(t.pos, 'CROSS', left, right);
      continue;
    }
    const type = joinType(c);
    if (type === null) return left;
    const right = parseFromPrimary(c, false);
    const j: Mutable<Join> = join(t.pos, type, left, right);
    if (c.acceptKw('ON')) {
      // QuestDB's `ON symbol` / `ON (a, b)` name the shared columns, like USING.
      const names = bareColumnList(c);
      if (names !== null) j.using = names;
      else {
        const on = parseExpr(c);
        if (on.kind === 'column' && on.table === null) j.using = [on.name];
        else j.on = on;
      }
    } else if (c.acceptKw('USING')) {
      c.expectOp('(');
      const cols = [c.name('column name').name];
      while (c.acceptOp(',')) cols.push(c.name('column name').name);
      c.expectOp(')');
      j.using = cols;
    }
    if ((type === 'ASOF' || type === 'LT') && c.acceptKw('TOLERANCE')) j.tolerance = c.duration('tolerance interval');
    if (type === 'WINDOW') {
      if (!c.isKw('RANGE')) throw c.expected("'range'");
      j.range = parseFrame(c) satisfies WindowFrame;
    }
    // Several HORIZON JOINs share one RANGE/LIST, written after the last of them.
    if (type === 'HORIZON') {
      if (c.isKw('RANGE') || c.isKw('LIST')) j.horizon = parseHorizon(c);
      else if (!(c.isKw('HORIZON') && c.isKwAt(1, 'JOIN'))) throw c.expected("'range' or 'list'");
    }
    left = j;
  }
}

/** `(a, b, ...)` of unqualified names with at least one comma, else null (cursor unmoved). */
function bareColumnList(c: Cursor): string[] | null {
  if (!c.isOp('(')) return null;
  const names: string[] = [];
  let k = 1;
  for (;;) {
    const t = c.peek(k);
    if (t.kind !== 'ident' && t.kind !== 'qident') return null;
    names.push(t.text);
    const sep = c.peek(k + 1);
    if (c.isOp(')', sep)) break;
    if (!c.isOp(',', sep)) return null;
    k += 2;
  }
  if (names.length < 2) return null;
  c.i += k + 2;
  return names;
}

function join(pos: number, type: JoinType, left: FromItem, right: FromItem): Mutable<Join> {
  return { kind: 'join', pos, type, left, right, on: null, using: null, tolerance: null, range: null };
}

/** Consumes a join keyword sequence and returns its type, or null when no join follows. */
function joinType(c: Cursor): JoinType | null {
  const t = c.tok;
  if (t.kind !== 'ident' || !JOIN_WORDS.has(t.up)) return null;
  const word = t.up;
  if (word === 'JOIN') {
    c.next();
    return 'INNER';
  }
  let ahead = 1;
  if ((word === 'LEFT' || word === 'RIGHT' || word === 'FULL') && c.isKwAt(1, 'OUTER')) ahead = 2;
  if (!c.isKwAt(ahead, 'JOIN')) {
    if (word === 'WINDOW' || word === 'LT' || word === 'HORIZON') return null; // named windows, aliases
    c.i += ahead;
    throw c.expected("'join'");
  }
  c.i += ahead + 1;
  return word as JoinType;
}

function parseHorizon(c: Cursor): Horizon {
  const t = c.tok;
  const offset = (what: string): HorizonOffset => {
    const pos = c.tok.pos;
    return { text: c.duration(what), pos };
  };
  let range: Horizon['range'] = null;
  let list: HorizonOffset[] | null = null;
  if (c.acceptKw('RANGE')) {
    c.expectKw('FROM');
    const from = offset('offset');
    c.expectKw('TO');
    const to = offset('offset');
    c.expectKw('STEP');
    range = { from, to, step: offset('step') };
  } else {
    c.expectKw('LIST');
    c.expectOp('(');
    if (c.isOp(')')) throw c.expected('at least one offset expression');
    list = [offset('offset')];
    while (c.acceptOp(',')) list.push(offset('offset'));
    c.expectOp(')');
  }
  const alias = c.acceptKw('AS') ? c.alias() : null;
  return { pos: t.pos, range, list, alias };
}

/** One FROM source: table, table function, (subquery) or (SHOW ...), with alias and TIMESTAMP(col). */
function parseFromPrimary(c: Cursor, implicitStart: boolean): Exclude<FromItem, Join> {
  const t = c.tok;
  if (c.isOp('(')) {
    c.next();
    if (c.isKw('SHOW')) {
      const show: Show = parseShow(c);
      c.expectOp(')');
      return withAliasAndTimestamp(c, { kind: 'showRef', pos: t.pos, show, alias: null }, false);
    }
    const query = parseQuery(c);
    c.expectOp(')');
    return withAliasAndTimestamp(c, { kind: 'subqueryRef', pos: t.pos, query, alias: null }, false);
  }
  if (t.kind === 'bind' && t.text.startsWith('@')) throw undeclaredVariable(t);
  if (t.kind === 'ident' && c.isOp('(', c.peek()) && c.isPlainWord()) {
    const call = parseCall(c);
    return withAliasAndTimestamp(c, { kind: 'functionRef', pos: t.pos, call, alias: null }, false);
  }
  if (t.kind === 'ident' || t.kind === 'qident' || t.kind === 'string') {
    let { name } = c.name('table name');
    // schema-qualified names (information_schema.tables, pg_catalog.pg_class) keep their dots
    while (c.isOp('.') && (c.peek().kind === 'ident' || c.peek().kind === 'qident')) {
      c.next();
      if (c.tok.kind === 'ident' && c.isOp('(', c.peek())) {
        // pg_catalog.pg_class(), information_schema.columns(): a schema-qualified table function
        const call = parseCall(c, `${name}.`, t.pos);
        return withAliasAndTimestamp(c, { kind: 'functionRef', pos: t.pos, call, alias: null }, false);
      }
      name += `.${c.next().text}`;
    }
    return withAliasAndTimestamp(c, { kind: 'tableRef', pos: t.pos, name, alias: null }, implicitStart);
  }
  throw c.expected('table name or sub-query');
}

/** `[TIMESTAMP(col)] [[AS] alias] [TIMESTAMP(col)]` after a FROM source (QuestDB accepts either order). */
function withAliasAndTimestamp(
  c: Cursor,
  item: Exclude<FromItem, Join>,
  numberAlias: boolean,
): Exclude<FromItem, Join> {
  const out: Mutable<Exclude<FromItem, Join>> & { timestamp?: { column: string; pos: number } | null } = item;
  if (c.isKw('TIMESTAMP') && c.isOp('(', c.peek())) out.timestamp = parseDesignation(c);
  if (c.acceptKw('AS')) {
    out.aliasPos = c.tok.pos;
    out.alias = c.alias();
  } else if (isTableAlias(c) || (numberAlias && c.tok.kind === 'number')) {
    out.aliasPos = c.tok.pos;
    out.alias = c.next().text;
  }
  if (out.timestamp === undefined && c.isKw('TIMESTAMP') && c.isOp('(', c.peek())) out.timestamp = parseDesignation(c);
  if (out.kind === 'showRef' && out.timestamp != null)
    throw c.error('timestamp designation is not allowed on SHOW', out.timestamp.pos);
  return out;
}

function parseDesignation(c: Cursor): { column: string; pos: number } {
  c.next();
  c.expectOp('(');
  const { name, pos } = c.name('column name');
  c.expectOp(')');
  return { column: name, pos };
}

/** Words after a table that start the next clause rather than name an alias. */
const TABLE_ALIAS_STOPS = new Set([
  'SET',
  'TOLERANCE',
  'RANGE',
  'EXCLUDE',
  'INCLUDE',
  'FILL',
  'ALIGN',
  'KEEP',
  'VALUES',
]);

function isTableAlias(c: Cursor): boolean {
  const t = c.tok;
  if (t.kind === 'qident') return true;
  if (!c.isAliasWord()) return false;
  if (TABLE_ALIAS_STOPS.has(t.up)) return false;
  const next = c.peek();
  switch (t.up) {
    case 'TIMESTAMP':
    case 'PIVOT':
    case 'LIST':
      return !c.isOp('(', next);
    case 'LT':
    case 'HORIZON':
      return !c.isKw('JOIN', next);
    case 'WINDOW':
      return !c.isKw('JOIN', next) && !c.isKw('AS', c.peek(2));
    default:
      return true;
  }
}
