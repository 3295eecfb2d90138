// Materialized view statements: CREATE / DROP / REFRESH / ALTER MATERIALIZED VIEW, as QuestDB's
// pages for them write them. The view's query is parsed here and kept as written; the rest
// (binding, the view's table, refreshes) happens when the statement runs (exec/mat-view-ddl.ts).
import type { CreateMatView, Expr, MatViewCommand, MatViewRefresh } from './ast.js';
import { NO_STOPS, type Cursor, type Mutable } from './parse-cursor.js';
import { acceptIfExists, acceptIfNotExists, parseTrailingOptions, parseViewQuery, ttlValue } from './parse-ddl.js';
import { parseExpr } from './parse-expr.js';
import { parseExpireRows } from './parse-expire-rows.js';

const IMMEDIATE: MatViewRefresh = { type: 'immediate', every: null, start: null, timeZone: null, period: null };

/** CREATE MATERIALIZED VIEW [IF NOT EXISTS] v [WITH BASE t] [REFRESH ...] [DEFERRED] AS (query) [options]. */
export function parseCreateMatView(c: Cursor): CreateMatView {
  const t = c.next();
  c.expectKw('MATERIALIZED');
  c.expectKw('VIEW');
  const ifNotExists = acceptIfNotExists(c);
  const name = c.name('materialized view name');
  let base: { name: string; pos: number } | null = null;
  if (c.isKw('WITH') && c.isKwAt(1, 'BASE')) {
    c.i += 2;
    base = c.name('base table name');
  }
  let refresh = IMMEDIATE;
  if (c.acceptKw('REFRESH')) refresh = parseRefresh(c);
  const deferred = c.acceptKw('DEFERRED');
  c.expectKw('AS');
  const { query, sql, pos: queryPos } = parseViewQuery(c, AFTER_BODY);
  // `, INDEX (k CAPACITY n)`: an index is a flag in svcdb (README); taken as written.
  while (c.acceptOp(',')) {
    c.expectKw('INDEX');
    c.expectOp('(');
    c.skipUntil(NO_STOPS);
    c.expectOp(')');
  }
  const opts = parseTrailingOptions(c);
  const params = [...opts.params];
  // EXPIRE ROWS (QuestDB 10.2's row retention), after PARTITION BY / TTL.
  const expire = c.isKw('EXPIRE') ? parseExpireRows(c) : null;
  // OWNED BY after EXPIRE ROWS (QuestDB's order): an Enterprise owner, taken as written.
  if (expire !== null && c.isKw('OWNED')) c.skipUntil(NO_STOPS);
  return {
    kind: 'createMatView',
    pos: t.pos,
    name: name.name,
    namePos: name.pos,
    ifNotExists,
    base,
    refresh,
    deferred,
    query,
    sql,
    queryPos,
    timestamp: opts.timestamp,
    partitionBy: opts.partitionBy,
    params,
    expire,
  };
}

/** Words that may follow a materialized view's `AS (query)`. */
const AFTER_BODY: ReadonlySet<string> = new Set([
  'PARTITION',
  'TTL',
  'OWNED',
  'IN',
  'STORAGE',
  'TIMESTAMP',
  'EXPIRE',
  'WITH',
  'DEDUP',
]);

/** After REFRESH: IMMEDIATE | MANUAL | EVERY n [START ts] [TIME ZONE z], then PERIOD (...). */
function parseRefresh(c: Cursor): MatViewRefresh {
  let type: MatViewRefresh['type'] = 'immediate';
  let every: string | null = null;
  let start: string | null = null;
  let timeZone: string | null = null;
  if (c.acceptKw('IMMEDIATE')) type = 'immediate';
  else if (c.acceptKw('MANUAL')) type = 'manual';
  else if (c.acceptKw('EVERY')) {
    type = 'timer';
    every = interval(c, 'refresh interval');
    if (c.acceptKw('START')) start = c.duration('start timestamp');
    if (c.isKw('TIME') && c.isKwAt(1, 'ZONE')) {
      c.i += 2;
      timeZone = c.duration('time zone');
    }
  }
  let period: MatViewRefresh['period'] = null;
  if (c.acceptKw('PERIOD')) {
    c.expectOp('(');
    if (c.acceptKw('SAMPLE')) {
      c.expectKw('BY');
      c.expectKw('INTERVAL');
      period = 'sample';
    } else {
      c.expectKw('LENGTH');
      const length = interval(c, 'period length');
      let zone: string | null = null;
      let delay: string | null = null;
      if (c.isKw('TIME') && c.isKwAt(1, 'ZONE')) {
        c.i += 2;
        zone = c.duration('time zone');
      }
      if (c.acceptKw('DELAY')) delay = interval(c, 'period delay');
      period = { length, timeZone: zone, delay };
    }
    c.expectOp(')');
  }
  return { type, every, start, timeZone, period };
}

/** `10m`, `1h`, `2 WEEKS`, `1 DAY`: the number and unit as one string (`2w`, `1d`). */
function interval(c: Cursor, what: string): string {
  const text = c.duration(what);
  const w = c.tok;
  if (/^\d+$/.test(text) && w.kind === 'ident' && WORD_UNITS[w.up] !== undefined) {
    c.next();
    return `${text}${WORD_UNITS[w.up]}`;
  }
  return text;
}

const WORD_UNITS: Readonly<Record<string, string>> = {
  MINUTE: 'm',
  MINUTES: 'm',
  HOUR: 'h',
  HOURS: 'h',
  DAY: 'd',
  DAYS: 'd',
  WEEK: 'w',
  WEEKS: 'w',
  MONTH: 'M',
  MONTHS: 'M',
  YEAR: 'y',
  YEARS: 'y',
};

/** DROP | REFRESH | ALTER MATERIALIZED VIEW ... */
export function parseMatViewCommand(c: Cursor): MatViewCommand {
  const t = c.next();
  c.expectKw('MATERIALIZED');
  c.expectKw('VIEW');
  const ifExists = t.up === 'DROP' && acceptIfExists(c);
  const name = c.name('materialized view name');
  const cmd: Mutable<MatViewCommand> = {
    kind: t.up === 'DROP' ? 'dropMatView' : t.up === 'REFRESH' ? 'refreshMatView' : 'alterMatView',
    pos: t.pos,
    name: name.name,
    namePos: name.pos,
    ifExists,
    mode: 'incremental',
    range: null,
    refresh: null,
    alter: null,
    alterPos: -1,
    ttl: null,
  };
  if (t.up === 'REFRESH') {
    if (c.acceptKw('FULL')) cmd.mode = 'full';
    else if (c.acceptKw('INCREMENTAL')) cmd.mode = 'incremental';
    else if (c.acceptKw('RANGE')) {
      c.expectKw('FROM');
      const from: Expr = parseExpr(c);
      c.expectKw('TO');
      cmd.mode = 'range';
      cmd.range = { from, to: parseExpr(c) };
    } else if (c.isKw('STATS')) {
      cmd.alterPos = c.tok.pos;
      cmd.alter = c.next().up;
    }
  } else if (t.up === 'ALTER') {
    if (c.isKw('SET') && c.isKwAt(1, 'REFRESH') && !c.isKwAt(2, 'LIMIT')) {
      c.i += 2;
      cmd.refresh = parseRefresh(c);
    } else if (c.isKw('SET') && c.isKwAt(1, 'TTL')) {
      c.i += 1;
      const kw = c.next();
      const ttl = ttlValue(c, kw.end);
      cmd.ttl = { text: ttl.value, pos: ttl.pos };
    } else if (c.isKw('SET') && c.isKwAt(1, 'EXPIRE')) {
      c.i += 1;
      cmd.expire = parseExpireRows(c);
    } else if (c.isKw('DROP') && c.isKwAt(1, 'EXPIRE')) {
      c.i += 2;
      c.acceptKw('ROWS');
      cmd.expire = 'drop';
    } else {
      const start = c.tok.pos;
      const end = c.skipUntil(NO_STOPS);
      cmd.alterPos = start;
      cmd.alter = c.slice(start, end).trim();
    }
  }
  return cmd;
}
