// Live view statements as QuestDB's pages write them: CREATE LIVE VIEW (FLUSH EVERY first, then
// START FROM, IN MEMORY, PARTITION BY and TTL in any order, AS query, OWNED BY), DROP LIVE VIEW and
// ALTER LIVE VIEW. The query is parsed here and kept as written; its checks and the view's table
// are exec/live-view-ddl.ts's (SHOW CREATE LIVE VIEW is parse-statement.ts parseShow's).
import type { CreateLiveView, LiveViewCommand, LiveViewDuration } from './ast.js';
import { NO_STOPS, type Cursor } from './parse-cursor.js';
import { acceptIfExists, acceptIfNotExists, parseViewQuery, ttlValue } from './parse-ddl.js';

/** CREATE LIVE VIEW [IF NOT EXISTS] v FLUSH EVERY d [IN MEMORY d] [PARTITION BY u] START FROM s AS (query) [OWNED BY o]. */
export function parseCreateLiveView(c: Cursor): CreateLiveView {
  const t = c.next();
  c.expectKw('LIVE');
  c.expectKw('VIEW');
  const ifNotExists = acceptIfNotExists(c);
  const name = c.name('live view name');
  c.expectKw('FLUSH');
  c.expectKw('EVERY');
  const flushEvery = duration(c);
  let inMemory: LiveViewDuration | null = null;
  let partitionBy: CreateLiveView['partitionBy'] = null;
  let startFrom: CreateLiveView['startFrom'] | null = null;
  let ttl: CreateLiveView['ttl'] = null;
  for (;;) {
    const w = c.tok;
    if (c.isKw('IN') && c.isKwAt(1, 'MEMORY') && inMemory === null) {
      c.i += 2;
      inMemory = duration(c);
    } else if (c.isKw('PARTITION') && c.isKwAt(1, 'BY') && partitionBy === null) {
      c.i += 2;
      const u = c.tok;
      if (u.kind !== 'ident') throw c.expected("'year', 'month', 'week', 'day' or 'hour'");
      c.next();
      partitionBy = { unit: u.up, pos: u.pos };
    } else if (c.isKw('START') && startFrom === null) {
      c.next();
      c.expectKw('FROM');
      const s = c.tok;
      if (s.kind === 'string') startFrom = { kind: 'timestamp', value: s.text, pos: s.pos };
      else if (c.isKw('NOW')) startFrom = { kind: 'now', value: 'NOW', pos: s.pos };
      else if (c.isKw('BEGINNING')) startFrom = { kind: 'beginning', value: 'BEGINNING', pos: s.pos };
      else throw c.expected("'now', 'beginning' or timestamp literal");
      c.next();
    } else if (c.isKw('TTL') && ttl === null) {
      const kw = c.next();
      const v = ttlValue(c, kw.end);
      ttl = { text: v.value, pos: v.pos };
    } else if (c.isKw('AS')) {
      if (startFrom === null) throw c.error("'start from' expected", w.pos);
      c.next();
      break;
    } else {
      throw c.expected(startFrom === null ? "'start from'" : "'as'");
    }
  }
  const { query, sql, pos: queryPos } = parseViewQuery(c, AFTER_BODY);
  if (c.acceptKw('OWNED')) {
    // OWNED BY: Enterprise's ownership; svcdb has one user, so it is taken as written.
    c.expectKw('BY');
    c.name('owner name');
  }
  return {
    kind: 'createLiveView',
    pos: t.pos,
    name: name.name,
    namePos: name.pos,
    ifNotExists,
    flushEvery,
    inMemory,
    partitionBy,
    startFrom,
    ttl,
    query,
    sql,
    queryPos,
  };
}

/** Words that may follow a live view's `AS (query)`. */
const AFTER_BODY: ReadonlySet<string> = new Set(['OWNED']);

/** A duration: one token, a number with its unit (`100ms`, `5s`, `30m`); checked when the statement runs. */
function duration(c: Cursor): LiveViewDuration {
  const t = c.tok;
  if (t.kind !== 'number' && t.kind !== 'string') throw c.expected('duration');
  c.next();
  return { text: t.kind === 'string' ? t.text : c.slice(t.pos, t.end), pos: t.pos };
}

/** DROP LIVE VIEW [IF EXISTS] v | ALTER LIVE VIEW v clause. */
export function parseLiveViewCommand(c: Cursor): LiveViewCommand {
  const t = c.next();
  c.expectKw('LIVE');
  c.expectKw('VIEW');
  const ifExists = t.up === 'DROP' && acceptIfExists(c);
  const name = c.name('live view name');
  const base = { pos: t.pos, name: name.name, namePos: name.pos, ifExists };
  if (t.up === 'DROP') return { kind: 'dropLiveView', ...base, clause: null, alter: null, ttl: null };
  const w = c.tok;
  if (w.kind !== 'ident' || !ALTER_CLAUSES.has(w.up))
    throw c.error("'set', 'drop', 'convert', 'resume' or 'suspend' expected", w.pos);
  const clause = { word: w.up, pos: w.pos };
  if (w.up === 'FORCE') throw c.error('FORCE DROP PARTITION is not supported on live views', w.pos);
  let ttl: LiveViewCommand['ttl'] = null;
  if (w.up === 'SET') {
    c.next();
    const kw = c.tok;
    if (!c.isKw('TTL')) throw c.error("'ttl' expected", kw.pos);
    c.next();
    const v = ttlValue(c, kw.end);
    ttl = { text: v.value, pos: v.pos };
  }
  const start = w.pos;
  const end = c.skipUntil(NO_STOPS);
  return { kind: 'alterLiveView', ...base, clause, alter: c.slice(start, end).trim(), ttl };
}

/** ALTER LIVE VIEW's clauses (FORCE is recognised to be refused by name). */
const ALTER_CLAUSES: ReadonlySet<string> = new Set(['SET', 'DROP', 'CONVERT', 'RESUME', 'SUSPEND', 'FORCE']);
