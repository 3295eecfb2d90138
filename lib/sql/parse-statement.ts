// DML and SHOW statements: INSERT, UPDATE and SHOW (also used inside
// `(SHOW PARAMETERS) WHERE ...`). Called from parser.ts's statement dispatch.

import type { Expr, Insert, Show, ShowDump, Update } from './ast.js';
import { NO_STOPS, type Cursor, type Mutable } from './parse-cursor.js';
import { parseExpr } from './parse-expr.js';
import { parseFrom } from './parse-from.js';
import { isQueryStart, parseQuery } from './parse-query.js';

/** INSERT [ATOMIC | BATCH n [o3MaxLag x]] INTO t [(cols)] VALUES (...), ... | query. */
export function parseInsert(c: Cursor): Insert {
  const t = c.next();
  let batch: number | null = null;
  let o3MaxLag: string | null = null;
  if (!c.acceptKw('ATOMIC') && c.acceptKw('BATCH')) {
    batch = positiveInt(c, 'batch size');
    if (c.isKw('O3MAXLAG')) {
      c.next();
      o3MaxLag = c.duration('o3MaxLag value');
    }
  }
  c.expectKw('INTO');
  const table = c.name('table name');
  const ins: Mutable<Insert> = {
    kind: 'insert',
    pos: t.pos,
    table: table.name,
    tablePos: table.pos,
    columns: null,
    values: null,
    query: null,
    batch,
  };
  if (o3MaxLag !== null) ins.o3MaxLag = o3MaxLag;
  if (c.isOp('(') && !isQueryStart(c, 1)) {
    c.next();
    const cols = [c.name('column name')];
    while (c.acceptOp(',')) cols.push(c.name('column name'));
    c.expectOp(')');
    ins.columns = cols;
  }
  if (c.acceptKw('VALUES')) {
    const rows: Expr[][] = [];
    const ends: number[] = [];
    do {
      c.expectOp('(');
      const row = [parseExpr(c)];
      // QuestDB asks for the separator until the row's `)`: `values (1, 'a'` is "',' expected".
      for (;;) {
        if (c.acceptOp(',')) row.push(parseExpr(c));
        else if (c.isOp(')')) {
          ends.push(c.next().pos);
          break;
        } else throw c.expected("','");
      }
      rows.push(row);
    } while (c.acceptOp(','));
    ins.values = rows;
    ins.valuesEnds = ends;
  } else if (isQueryStart(c, 0) || c.isOp('(')) {
    ins.query = parseQuery(c);
  } else {
    throw c.expected("'values' or 'select'");
  }
  return ins;
}

/** A non-negative integer literal token (BATCH n, CAPACITY n). */
export function positiveInt(c: Cursor, what: string): number {
  const t = c.tok;
  if (t.kind !== 'number' || !/^\d[\d_]*$/.test(t.text)) throw c.expected(what);
  c.next();
  return Number(t.text.replace(/_/g, ''));
}

/** UPDATE t [alias] SET col = expr, ... [FROM ...] [WHERE ...]. */
export function parseUpdate(c: Cursor): Update {
  const t = c.next();
  const table = c.name('table name');
  let alias: string | null = null;
  if (c.acceptKw('AS')) alias = c.name('alias').name;
  else if (c.isName() && !c.isKw('SET')) alias = c.next().text;
  if (!c.acceptKw('SET')) throw c.error('SET expected', c.tok.pos);
  const set: Array<{ column: string; pos: number; value: Expr }> = [];
  do {
    let col = c.name('column name');
    if (c.isOp('.') && (c.peek().kind === 'ident' || c.peek().kind === 'qident')) {
      c.next();
      col = c.name('column name'); // `alias.col = ...`: the table is the updated one
    }
    c.expectOp('=');
    set.push({ column: col.name, pos: col.pos, value: parseExpr(c) });
  } while (c.acceptOp(','));
  const from = c.acceptKw('FROM') ? parseFrom(c, false) : null;
  const where = c.acceptKw('WHERE') ? parseExpr(c) : null;
  return { kind: 'update', pos: t.pos, table: table.name, tablePos: table.pos, alias, set, from, where };
}

/** Multi-word SHOW targets kept together in `what`. */
const SHOW_PHRASES: ReadonlyArray<readonly string[]> = [
  ['CREATE', 'MATERIALIZED', 'VIEW'],
  ['CREATE', 'LIVE', 'VIEW'],
  ['CREATE', 'VIEW'],
  ['CREATE', 'DATABASE'],
  ['SERVICE', 'ACCOUNTS'],
  ['SERVICE', 'ACCOUNT'],
  ['TIME', 'ZONE'],
  ['TRANSACTION', 'ISOLATION', 'LEVEL'],
];

/** SHOW TABLES | COLUMNS FROM t | CREATE TABLE t | PARTITIONS FROM t | any other SHOW words (kept, rest skipped). */
export function parseShow(c: Cursor): Show {
  const t = c.next();
  const w = c.tok;
  if (w.kind !== 'ident') throw c.expected('what to show');
  switch (w.up) {
    case 'TABLES':
      c.next();
      return { kind: 'show', pos: t.pos, what: 'TABLES', table: null, tablePos: w.pos };
    case 'COLUMNS':
    case 'PARTITIONS': {
      c.next();
      c.expectKw('FROM');
      const table = c.name('table name');
      return { kind: 'show', pos: t.pos, what: w.up, table: table.name, tablePos: table.pos };
    }
    case 'CREATE':
      if (c.isKwAt(1, 'DATABASE')) {
        c.i += 2;
        return { kind: 'show', pos: t.pos, what: 'CREATE DATABASE', table: null, tablePos: w.pos, dump: dumpClause(c) };
      }
      if (c.isKwAt(1, 'TABLE')) {
        c.i += 2;
        const table = c.name('table name');
        return { kind: 'show', pos: t.pos, what: 'CREATE TABLE', table: table.name, tablePos: table.pos };
      }
      break;
  }
  let words = [w.up];
  for (const phrase of SHOW_PHRASES) {
    if (phrase.every((word, k) => c.isKwAt(k, word))) {
      words = [...phrase];
      break;
    }
  }
  c.i += words.length;
  let table: string | null = null;
  let tablePos = w.pos;
  if (c.isName() && (c.peek().kind === 'eof' || c.isOp(';', c.peek()) || c.isOp(')', c.peek()))) {
    tablePos = c.tok.pos;
    table = c.next().text;
  }
  c.skipUntil(NO_STOPS);
  return { kind: 'show', pos: t.pos, what: words.join(' '), table, tablePos };
}

/** SHOW CREATE DATABASE's optional `{INCLUDE | EXCLUDE} {ALL | (category, ...)}`; categories checked when bound. */
function dumpClause(c: Cursor): ShowDump | undefined {
  if (!c.isKw('INCLUDE') && !c.isKw('EXCLUDE')) return undefined;
  const mode = c.next().up as 'INCLUDE' | 'EXCLUDE';
  const categories: Array<{ name: string; pos: number }> = [];
  if (c.isOp('(')) {
    c.next();
    for (;;) {
      const w = c.tok;
      if (w.kind !== 'ident') throw c.expected('category');
      c.next();
      categories.push({ name: w.up, pos: w.pos });
      if (!c.isOp(',')) break;
      c.next();
    }
    c.expectOp(')');
  } else {
    const w = c.tok;
    if (w.kind !== 'ident') throw c.expected("'ALL' or '('");
    c.next();
    categories.push({ name: w.up, pos: w.pos });
  }
  return { mode, categories };
}
