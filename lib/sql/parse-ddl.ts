// DDL parsing: CREATE TABLE (columns, AS SELECT, LIKE, QuestDB table options),
// DROP TABLE, TRUNCATE TABLE, RENAME TABLE and ALTER TABLE. Called from parser.ts.

import type {
  CreateView,
  Query,
  ViewCommand,
  AlterAction,
  AlterTable,
  ColumnDefAst,
  CreateTable,
  DropTable,
  Maintenance,
  RenameTable,
  TruncateTable,
  TypeName,
} from './ast.js';
import { NO_STOPS, type Cursor, type Mutable } from './parse-cursor.js';
import { parseExpr, parseExprList, parseTypeName } from './parse-expr.js';
import { parseQuery } from './parse-query.js';
import { positiveInt } from './parse-statement.js';

type Param = { key: string; value: string; pos?: number };

/** CREATE [ATOMIC | BATCH n [o3MaxLag x]] TABLE [IF NOT EXISTS] t (...) | AS (query) | (LIKE t), then table options. */
export function parseCreateTable(c: Cursor): CreateTable {
  const t = c.next();
  const params: Param[] = [];
  if (c.acceptKw('ATOMIC')) params.push({ key: 'ATOMIC', value: '' });
  else if (c.acceptKw('BATCH')) {
    params.push({ key: 'BATCH', value: String(positiveInt(c, 'batch size')) });
    if (c.acceptKw('O3MAXLAG')) params.push({ key: 'BATCH O3MAXLAG', value: c.duration('o3MaxLag value') });
  }
  c.expectKw('TABLE');
  const ifNotExists = acceptIfNotExists(c);
  if (!ifNotExists && c.atEnd()) throw c.expected("table name or 'if'");
  const name = c.name('table name');
  const ct = newCreateTable(t.pos, name, ifNotExists, params);
  if (c.acceptKw('AS')) {
    if (c.acceptOp('(')) {
      ct.asSelect = parseQuery(c);
      c.expectOp(')');
    } else {
      ct.asSelect = parseQuery(c);
    }
  } else if (c.isOp('(') && c.isKw('LIKE', c.peek())) {
    c.i += 2;
    ct.like = c.name('table name').name;
    c.expectOp(')');
  } else {
    c.expectOp('(');
    const cols: ColumnDefAst[] = [];
    do {
      const col = parseColumnDef(c);
      // Only a SYMBOL column takes options (capacity, cache, index): after any other type QuestDB
      // expects the next column or the end of the list.
      if (col.options !== null && col.type.name !== 'SYMBOL') throw c.error("',' or ')' expected", col.optionsPos!);
      cols.push(col);
    } while (c.acceptOp(','));
    if (!c.acceptOp(')')) throw c.expected("',' or ')'");
    ct.columns = cols;
  }
  const casts: Array<{ column: string; type: TypeName; pos: number }> = [];
  const indexes: Array<{ column: string; pos: number; capacity: number | null }> = [];
  while (c.acceptOp(',')) {
    if (c.acceptKw('CAST')) {
      c.expectOp('(');
      const col = c.name('column name');
      c.expectKw('AS');
      casts.push({ column: col.name, pos: col.pos, type: parseTypeName(c) });
      c.expectOp(')');
    } else if (c.acceptKw('INDEX')) {
      c.expectOp('(');
      do {
        const col = c.name('column name');
        const capacity = c.acceptKw('CAPACITY') ? positiveInt(c, 'index capacity') : null;
        indexes.push({ column: col.name, pos: col.pos, capacity });
      } while (c.acceptOp(','));
      c.expectOp(')');
    } else {
      throw c.expected("'cast' or 'index'");
    }
  }
  ct.casts = casts;
  if (indexes.length > 0) ct.indexes = indexes;
  parseTableOptions(c, ct);
  return ct;
}

/** `IF NOT EXISTS`, when it comes next. */
export function acceptIfNotExists(c: Cursor): boolean {
  if (!c.isKw('IF')) return false;
  c.next();
  c.expectKw('NOT');
  c.expectKw('EXISTS');
  return true;
}

/** `IF EXISTS`, when it comes next. */
export function acceptIfExists(c: Cursor): boolean {
  if (!c.isKw('IF')) return false;
  c.next();
  c.expectKw('EXISTS');
  return true;
}

/** `name TYPE [CAPACITY n] [CACHE|NOCACHE] [INDEX [TYPE ...] [CAPACITY n] [INCLUDE (...)]]`, options kept as written. */
function parseColumnDef(c: Cursor): ColumnDefAst {
  const name = c.name('column name');
  const n = c.tok;
  if (n.kind === 'op' && (n.text === ')' || n.text === ',')) {
    throw c.error(`found [tok='${n.text}', len=${n.text.length}] missing column definition`, n.pos);
  }
  const type = parseTypeName(c);
  return { kind: 'columnDef', pos: name.pos, name: name.name, type, ...parseColumnOptions(c) };
}

type ColumnOptionsAst = Pick<
  ColumnDefAst,
  'options' | 'optionsPos' | 'symbolCapacity' | 'symbolCached' | 'indexed' | 'indexCapacity'
>;

/** What may follow a column's type: `[CAPACITY n] [CACHE|NOCACHE] [INDEX [TYPE ...] [CAPACITY n] [INCLUDE (...)]]`. */
function parseColumnOptions(c: Cursor): ColumnOptionsAst {
  const optStart = c.tok.pos;
  const read: Mutable<Omit<ColumnOptionsAst, 'options'>> = {};
  for (;;) {
    const w = c.tok;
    if (w.kind !== 'ident') break;
    if (w.up === 'CAPACITY') {
      c.next();
      const n = positiveInt(c, 'symbol capacity');
      if (read.indexed) read.indexCapacity = n;
      else read.symbolCapacity = n;
    } else if (w.up === 'CACHE' || w.up === 'NOCACHE') {
      c.next();
      read.symbolCached = w.up === 'CACHE';
    } else if (w.up === 'INDEX') {
      c.next();
      read.indexed = true;
    } else if (w.up === 'TYPE') {
      c.next();
      if (c.tok.kind !== 'ident') throw c.expected('index type');
      while (c.tok.kind === 'ident' && !OPTION_WORDS.has(c.tok.up)) c.next();
    } else if (w.up === 'INCLUDE') {
      c.next();
      c.expectOp('(');
      do c.name('column name');
      while (c.acceptOp(','));
      c.expectOp(')');
    } else {
      break;
    }
  }
  const options = c.tok.pos > optStart ? c.slice(optStart, c.prevEnd) : null;
  return options === null ? { options, ...read } : { options, optionsPos: optStart, ...read };
}

const OPTION_WORDS = new Set(['CAPACITY', 'CACHE', 'NOCACHE', 'INDEX', 'TYPE', 'INCLUDE']);

/** TIMESTAMP(col), PARTITION BY, [BYPASS] WAL, WITH k=v, DEDUP UPSERT KEYS, TTL, IN VOLUME, OWNED BY, STORAGE POLICY, FORMAT. */
function parseTableOptions(c: Cursor, ct: Mutable<CreateTable>): void {
  const params = ct.params as Param[];
  for (;;) {
    const w = c.tok;
    if (w.kind !== 'ident') return;
    switch (w.up) {
      case 'TIMESTAMP': {
        c.next();
        c.expectOp('(');
        const col = c.name('column name');
        c.expectOp(')');
        ct.timestamp = { column: col.name, pos: col.pos };
        break;
      }
      case 'PARTITION': {
        c.next();
        c.expectKw('BY');
        const u = c.tok;
        if (u.kind !== 'ident') throw c.expected('partition unit');
        c.next();
        ct.partitionBy = { unit: u.up, pos: u.pos };
        break;
      }
      case 'WAL':
        c.next();
        ct.wal = true;
        break;
      case 'BYPASS':
        c.next();
        c.expectKw('WAL');
        ct.wal = false;
        break;
      case 'WITH':
        c.next();
        do {
          if (c.isKw('IN') && c.isKwAt(1, 'VOLUME')) break;
          const key = c.name('parameter name');
          c.expectOp('=');
          params.push({ key: key.name, value: paramValue(c) });
        } while (c.acceptOp(','));
        break;
      case 'DEDUP': {
        c.next();
        c.expectKw('UPSERT');
        c.expectKw('KEYS');
        ct.dedupKeys = namesWithPos(c);
        break;
      }
      case 'TTL': {
        const kw = c.next();
        params.push({ key: 'TTL', ...ttlValue(c, kw.end) });
        break;
      }
      case 'IN':
        c.next();
        c.expectKw('VOLUME');
        params.push({ key: 'IN VOLUME', value: c.name('volume name').name });
        break;
      case 'OWNED':
        c.next();
        c.expectKw('BY');
        params.push({ key: 'OWNED BY', value: c.name('owner name').name });
        break;
      case 'STORAGE': {
        c.next();
        c.expectKw('POLICY');
        const open = c.expectOp('(');
        const end = c.skipUntil(NO_STOPS);
        c.expectOp(')');
        params.push({ key: 'STORAGE POLICY', value: c.slice(open.end, end).trim() });
        break;
      }
      case 'FORMAT': {
        c.next();
        const f = c.tok;
        if (f.kind !== 'ident') throw c.expected('storage format');
        c.next();
        params.push({ key: 'FORMAT', value: f.up });
        break;
      }
      default:
        return;
    }
  }
}

/** TIMESTAMP(col), PARTITION BY, TTL and the other options after a materialized view's query. */
export function parseTrailingOptions(c: Cursor): Pick<CreateTable, 'timestamp' | 'partitionBy' | 'params'> {
  const opts = newCreateTable(c.tok.pos, { name: '', pos: c.tok.pos }, false, []);
  parseTableOptions(c, opts);
  return opts;
}

/** A CREATE TABLE node with nothing parsed yet past its name. */
function newCreateTable(
  pos: number,
  name: { name: string; pos: number },
  ifNotExists: boolean,
  params: Param[],
): Mutable<CreateTable> {
  return {
    kind: 'createTable',
    pos,
    name: name.name,
    namePos: name.pos,
    ifNotExists,
    columns: [],
    asSelect: null,
    casts: [],
    timestamp: null,
    partitionBy: null,
    wal: null,
    dedupKeys: null,
    params,
    like: null,
  };
}

/** `(a, b, ...)` of names. */
function namesWithPos(c: Cursor): Array<{ name: string; pos: number }> {
  c.expectOp('(');
  const names = [c.name('column name')];
  while (c.acceptOp(',')) names.push(c.name('column name'));
  c.expectOp(')');
  return names;
}

/** A parameter value as written: a number with its unit (`20s`), a word, or a 'string' (unquoted). */
function paramValue(c: Cursor): string {
  const t = c.tok;
  if (t.kind === 'ident' || t.kind === 'qident') {
    c.next();
    return t.text;
  }
  return c.duration('parameter value');
}

/**
 * `TTL 12h`, `TTL 7 DAYS`, `TTL 0`: the words as written, with where they start (or where they
 * should, `after` the TTL keyword when nothing follows); storage/ttl.ts parseTtl reads them.
 */
export function ttlValue(c: Cursor, after: number): { value: string; pos: number } {
  const start = c.tok;
  if (c.tok.kind === 'op' && c.tok.text === '-') c.next();
  if (c.tok.kind === 'number') c.next();
  if (c.tok.kind === 'ident' && !TABLE_OPTION_WORDS.has(c.tok.up)) c.next();
  if (c.tok === start) return { value: '', pos: after };
  return { value: c.slice(start.pos, c.prevEnd), pos: start.pos };
}

/** The words that begin the table options after TTL (not a TTL unit). */
const TABLE_OPTION_WORDS: ReadonlySet<string> = new Set([
  'WAL',
  'BYPASS',
  'WITH',
  'DEDUP',
  'IN',
  'OWNED',
  'STORAGE',
  'FORMAT',
  'TIMESTAMP',
  'PARTITION',
  'REFRESH',
  'AS',
]);

/** DROP TABLE [IF EXISTS] t | DROP ALL TABLES (QuestDB drops one table per statement: `, b` is an unexpected token). */
export function parseDropTable(c: Cursor): DropTable {
  const t = c.next();
  if (c.acceptKw('ALL')) {
    c.expectKw('TABLES');
    return { kind: 'dropTable', pos: t.pos, names: [], ifExists: false, all: true };
  }
  c.expectKw('TABLE');
  const ifExists = acceptIfExists(c);
  return { kind: 'dropTable', pos: t.pos, names: [c.name('table name')], ifExists, all: false };
}

function tableNames(c: Cursor): Array<{ name: string; pos: number }> {
  const names = [c.name('table name')];
  while (c.acceptOp(',')) names.push(c.name('table name'));
  return names;
}

/** TRUNCATE TABLE [IF EXISTS] a[, b] [KEEP SYMBOL MAPS]. */
export function parseTruncate(c: Cursor): TruncateTable {
  const t = c.next();
  c.expectKw('TABLE');
  const ifExists = acceptIfExists(c);
  const names = tableNames(c);
  let keepSymbolMaps = false;
  if (c.acceptKw('KEEP')) {
    c.expectKw('SYMBOL');
    c.expectKw('MAPS');
    keepSymbolMaps = true;
  }
  const node: Mutable<TruncateTable> = { kind: 'truncateTable', pos: t.pos, names };
  if (ifExists) node.ifExists = true;
  if (keepSymbolMaps) node.keepSymbolMaps = true;
  return node;
}

/** RENAME TABLE a TO b. */
export function parseRenameTable(c: Cursor): RenameTable {
  const t = c.next();
  c.expectKw('TABLE');
  const from = c.name('table name');
  c.expectKw('TO');
  const to = c.name('table name');
  return { kind: 'renameTable', pos: t.pos, from: from.name, fromPos: from.pos, to: to.name, toPos: to.pos };
}

/**
 * ALTER TABLE t ADD COLUMN | DROP COLUMN | RENAME COLUMN | DROP / DETACH / ATTACH / CONVERT PARTITION |
 * SQUASH PARTITIONS | SET PARAM | anything else (otherAlter).
 */
export function parseAlterTable(c: Cursor): AlterTable {
  const t = c.next();
  c.expectKw('TABLE');
  const name = c.name('table name');
  return { kind: 'alterTable', pos: t.pos, name: name.name, namePos: name.pos, action: parseAlterAction(c) };
}

function parseAlterAction(c: Cursor): AlterAction {
  const a = c.tok;
  if (a.kind !== 'ident') throw c.expected('alter table action');
  const second = c.peek();
  if (a.up === 'ADD' && c.isKw('COLUMN', second)) {
    c.i += 2;
    const ifNotExists = acceptIfNotExists(c);
    const columns = [parseColumnDef(c)];
    while (c.acceptOp(',')) {
      c.acceptKw('COLUMN');
      columns.push(parseColumnDef(c));
    }
    return { kind: 'addColumn', pos: a.pos, columns, ifNotExists };
  }
  if (a.up === 'DROP' && c.isKw('COLUMN', second)) {
    c.i += 2;
    const columns = [c.name('column name')];
    while (c.acceptOp(',')) columns.push(c.name('column name'));
    return { kind: 'dropColumn', pos: a.pos, columns };
  }
  if (a.up === 'RENAME' && c.isKw('COLUMN', second)) {
    c.i += 2;
    const from = c.name('column name');
    c.expectKw('TO');
    const to = c.name('column name');
    return { kind: 'renameColumn', pos: a.pos, from: from.name, fromPos: from.pos, to: to.name, toPos: to.pos };
  }
  if (a.up === 'DROP' && c.isKw('PARTITION', second)) {
    c.i += 2;
    if (c.acceptKw('LIST')) return { kind: 'dropPartition', pos: a.pos, list: parseExprList(c), where: null };
    if (c.acceptKw('WHERE')) return { kind: 'dropPartition', pos: a.pos, list: [], where: parseExpr(c) };
    throw c.expected("'list' or 'where'");
  }
  if (a.up === 'SET' && c.isKw('TYPE', second)) {
    c.i += 2;
    const wal = !c.acceptKw('BYPASS');
    c.expectKw('WAL');
    return { kind: 'setType', pos: a.pos, wal };
  }
  if (a.up === 'SET' && c.isKw('TTL', second)) {
    c.i += 1;
    const kw = c.next();
    const ttl = ttlValue(c, kw.end);
    return { kind: 'setTtl', pos: a.pos, text: ttl.value, textPos: ttl.pos };
  }
  if (a.up === 'SET' && c.isKw('PARAM', second)) {
    c.i += 2;
    const params: Param[] = [];
    do {
      const key = c.name('parameter name');
      c.expectOp('=');
      params.push({ key: key.name, value: paramValue(c) });
    } while (c.acceptOp(','));
    return { kind: 'setParam', pos: a.pos, params };
  }
  if (a.up === 'ALTER' && c.isKw('COLUMN', second)) {
    const start = c.i;
    c.i += 2;
    const col = c.name('column name');
    if (c.acceptKw('TYPE')) {
      const type = parseTypeName(c);
      const { options: _text, optionsPos: _at, ...options } = parseColumnOptions(c);
      return { kind: 'alterColumnType', pos: a.pos, column: col.name, columnPos: col.pos, type, ...options };
    }
    const verb = c.tok;
    if (verb.kind === 'ident' && (verb.up === 'ADD' || verb.up === 'DROP') && c.isKw('INDEX', c.peek())) {
      c.i += 2;
      const capacity = verb.up === 'ADD' && c.acceptKw('CAPACITY') ? positiveInt(c, 'index capacity') : null;
      return {
        kind: 'columnIndex',
        pos: a.pos,
        column: col.name,
        columnPos: col.pos,
        add: verb.up === 'ADD',
        capacity,
      };
    }
    if (verb.kind === 'ident' && (verb.up === 'CACHE' || verb.up === 'NOCACHE')) {
      c.next();
      const base = { kind: 'symbolOptions', pos: a.pos, column: col.name, columnPos: col.pos } as const;
      return { ...base, cached: verb.up === 'CACHE', capacity: null };
    }
    if (verb.kind === 'ident' && verb.up === 'SYMBOL' && c.isKw('CAPACITY', c.peek())) {
      c.i += 2;
      const capacity = positiveInt(c, 'symbol capacity');
      return { kind: 'symbolOptions', pos: a.pos, column: col.name, columnPos: col.pos, cached: null, capacity };
    }
    c.i = start; // anything else ALTER COLUMN says stays text
  }
  if (a.up === 'DEDUP') {
    if (c.isKw('DISABLE', second)) {
      c.i += 2;
      return { kind: 'dedup', pos: a.pos, keys: null };
    }
    if (c.isKw('ENABLE', second)) {
      c.i += 2;
      c.expectKw('UPSERT');
      c.expectKw('KEYS');
      return { kind: 'dedup', pos: a.pos, keys: namesWithPos(c) };
    }
  }
  if ((a.up === 'DETACH' || a.up === 'ATTACH') && c.isKw('PARTITION', second)) {
    c.i += 2;
    const detach = a.up === 'DETACH';
    if (c.acceptKw('LIST')) return { kind: 'movePartition', pos: a.pos, detach, list: parseExprList(c), where: null };
    // QuestDB attaches by name only: ATTACH ... WHERE is refused.
    if (detach && c.acceptKw('WHERE'))
      return { kind: 'movePartition', pos: a.pos, detach, list: [], where: parseExpr(c) };
    throw c.expected(detach ? "'list' or 'where'" : "'list'");
  }
  if (a.up === 'SQUASH' && c.isKw('PARTITIONS', second)) {
    c.i += 2;
    return { kind: 'squashPartitions', pos: a.pos };
  }
  if (a.up === 'CONVERT' && c.isKw('PARTITION', second)) {
    c.i += 2;
    c.expectKw('TO');
    const f = c.tok;
    if (!c.isKw('PARQUET') && !c.isKw('NATIVE')) throw c.expected("'parquet' or 'native'");
    c.next();
    const parquet = f.up === 'PARQUET';
    if (c.acceptKw('LIST'))
      return { kind: 'convertPartition', pos: a.pos, parquet, list: parseExprList(c), where: null };
    if (c.acceptKw('WHERE')) return { kind: 'convertPartition', pos: a.pos, parquet, list: [], where: parseExpr(c) };
    throw c.expected("'list' or 'where'");
  }
  const end = c.skipUntil(NO_STOPS);
  return { kind: 'otherAlter', pos: a.pos, text: c.slice(a.pos, end) };
}

/**
 * CREATE [OR REPLACE] VIEW [IF NOT EXISTS] v AS (query) [OWNED BY ...], and ALTER VIEW v AS (query).
 * The query's text between the parentheses is kept as written (QuestDB stores and shows it so);
 * a query without parentheses is taken too, up to the statement's end.
 */
export function parseCreateView(c: Cursor): CreateView {
  const t = c.next();
  const alter = t.up === 'ALTER';
  let orReplace = false;
  if (!alter && c.acceptKw('OR')) {
    c.expectKw('REPLACE');
    orReplace = true;
  }
  c.expectKw('VIEW');
  const ifNotExists = !alter && acceptIfNotExists(c);
  const name = c.name('view name');
  c.expectKw('AS');
  const { query, sql, pos: queryPos } = parseViewQuery(c, VIEW_CLAUSES);
  // OWNED BY names the owner in QuestDB Enterprise; svcdb has no owners, and takes it as written.
  if (c.acceptKw('OWNED')) {
    c.expectKw('BY');
    c.next();
  }
  return {
    kind: 'createView',
    pos: t.pos,
    name: name.name,
    namePos: name.pos,
    orReplace,
    ifNotExists,
    alter,
    query,
    sql,
    queryPos,
  };
}

/** Words that may follow a plain view's `AS (query)`. */
const VIEW_CLAUSES: ReadonlySet<string> = new Set(['OWNED']);

/**
 * A view's query after AS: `(query)` when those parentheses hold all of it (what follows them is
 * the statement's end, a `,` or one of `clauses`), its text kept as written between them; else a
 * query up to where it ends (`(q) timestamp(ts)` is such a query), its text as written.
 */
export function parseViewQuery(c: Cursor, clauses: ReadonlySet<string>): { query: Query; sql: string; pos: number } {
  const open = c.tok;
  if (c.isOp('(') && wholeBody(c, clauses)) {
    c.next();
    const query = parseQuery(c);
    const close = c.expectOp(')');
    return { query, sql: c.slice(open.end, close.pos), pos: open.pos };
  }
  const query = parseQuery(c);
  return { query, sql: c.slice(open.pos, c.prevEnd), pos: open.pos };
}

/** Whether the parentheses at the cursor close before the statement's end, a `,` or one of `clauses`. */
function wholeBody(c: Cursor, clauses: ReadonlySet<string>): boolean {
  let d = 0;
  for (let k = c.i; k < c.toks.length; k++) {
    const t = c.toks[k]!;
    if (t.kind === 'eof') return false;
    if (t.kind !== 'op') continue;
    if (t.text === '(') d++;
    else if (t.text === ')' && --d === 0) {
      const after = c.toks[k + 1];
      if (after === undefined || after.kind === 'eof') return true;
      if (after.kind === 'op') return after.text === ';' || after.text === ',';
      return after.kind === 'ident' && clauses.has(after.up);
    }
  }
  return false;
}

/** DROP VIEW [IF EXISTS] v | COMPILE VIEW v. */
export function parseViewCommand(c: Cursor): ViewCommand {
  const t = c.next();
  c.expectKw('VIEW');
  const ifExists = t.up === 'DROP' && acceptIfExists(c);
  const name = c.name('view name');
  return {
    kind: t.up === 'DROP' ? 'dropView' : 'compileView',
    pos: t.pos,
    name: name.name,
    namePos: name.pos,
    ifExists,
  };
}

/** REINDEX TABLE t [COLUMN c] [PARTITION 'p'] LOCK EXCLUSIVE, and VACUUM TABLE t. */
export function parseMaintenance(c: Cursor): Maintenance {
  const t = c.next();
  if (!c.isKw('TABLE') && !(t.up === 'VACUUM' && c.isKw('PARTITIONS'))) throw c.expected("'table'");
  c.next();
  const table = c.name('table name');
  const base = { kind: 'maintenance', pos: t.pos, table: table.name, tablePos: table.pos } as const;
  if (t.up === 'VACUUM') return { ...base, op: 'vacuum', column: null, partition: null };
  const column = c.acceptKw('COLUMN') ? c.name('column name') : null;
  const partition = c.acceptKw('PARTITION') ? c.name('partition name') : null;
  for (const kw of ['LOCK', 'EXCLUSIVE']) {
    if (!c.isKw(kw)) throw c.error('LOCK EXCLUSIVE expected', c.tok.pos);
    c.next();
  }
  return { ...base, op: 'reindex', column, partition };
}
