// EXPIRE ROWS as a read filter: a policied materialized view read by a query is the query below
// over its table (the binder substitutes it where the view is named), so expired rows are hidden
// at once whatever is on disk. WHEN p keeps the rows where p is not TRUE; KEEP LATEST is LATEST ON
// the designated timestamp; KEEP [N] HIGHEST|LOWEST and a WHEN with a window function compute an
// expiry flag per row with a window function over the whole view. Also the policy's checks
// against the view's columns, and whether the cleanup could delete its rows (monotonic WHEN).
import { SvcError } from '../errors/svc-error.js';
import type { ExpireRows, Expr } from './ast.js';
import type { Field } from './bound.js';
import { walkTree } from './tree-walk.js';

/** The synthetic flag column of the window modes (QuestDB's name; a view may not have one). */
export const KEEP_COLUMN = '__qdb_re_keep';

/** What the filter needs of the view: its name, columns and designated timestamp (index, or -1). */
export interface ExpireTarget {
  readonly name: string;
  readonly fields: readonly Field[];
  readonly timestamp: number;
}

export function quoteName(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The WHEN predicate's text (the clause without WHEN). */
export function predicateText(p: ExpireRows): string {
  return p.clause.replace(/^\s*when\s+/i, '');
}

/** Whether the WHEN predicate calls a window function (a row's fate then depends on the others). */
export function isWindowPredicate(p: ExpireRows): boolean {
  let found = false;
  walkTree(p.predicate, (o) => {
    if (o.kind === 'call' && o.over !== null && o.over !== undefined) found = true;
    return found;
  });
  return found;
}

/** The query over the view's table that shows only the rows the policy keeps, in timestamp order. */
export function expireFilterSql(p: ExpireRows, v: ExpireTarget): string {
  const table = quoteName(v.name);
  const cols = v.fields.map((f) => quoteName(f.name)).join(', ');
  const ts = v.timestamp >= 0 ? quoteName(v.fields[v.timestamp]!.name) : null;
  const keys = p.partitionBy.map((k) => quoteName(k.name)).join(', ');
  const over = (order: string): string =>
    `OVER (${keys === '' ? '' : `PARTITION BY ${keys} `}${order})`.replace(' )', ')');
  const flagged = (expired: string): string =>
    `SELECT ${cols} FROM (SELECT *, ${expired} AS ${KEEP_COLUMN} FROM ${table}) WHERE NOT ${KEEP_COLUMN}`;
  switch (p.mode) {
    case 'when':
      if (isWindowPredicate(p)) return flagged(`(${predicateText(p)})`);
      return `SELECT * FROM ${table} WHERE NOT (${predicateText(p)})`;
    case 'latest':
      return `SELECT * FROM ${table} LATEST ON ${ts ?? '"timestamp"'} PARTITION BY ${keys}`;
    case 'keep': {
      const col = quoteName(p.column!.name);
      if (p.n === null)
        return flagged(p.highest ? `${col} < max(${col}) ${over('')}` : `${col} > min(${col}) ${over('')}`);
      // Ties at the N-th place: the newer row stays (the designated timestamp breaks them).
      const order = `ORDER BY ${col} ${p.highest ? 'DESC' : 'ASC'}${ts !== null ? `, ${ts} DESC` : ''}`;
      return flagged(`row_number() ${over(order)} > ${p.n}`);
    }
  }
}

const BARE_KEEP_TYPES = /^(BYTE|SHORT|INT|LONG|FLOAT|DOUBLE|DATE|TIMESTAMP|TIMESTAMP_NS|DECIMAL(\(.*\))?)$/;

/**
 * Checks the columns a KEEP policy names against the view's (QuestDB's messages): the key columns
 * exist, KEEP LATEST ON names the designated timestamp, the KEEP column's type suits the form, no
 * column takes the flag's name. A WHEN predicate is checked by binding the filter (the caller).
 */
export function checkExpireColumns(p: ExpireRows, v: ExpireTarget): void {
  const find = (name: string): Field | undefined => v.fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
  const windowed = p.mode === 'keep' || (p.mode === 'when' && isWindowPredicate(p));
  if (windowed && find(KEEP_COLUMN) !== undefined)
    throw new SvcError(
      'SQL',
      `EXPIRE ROWS KEEP / window retention cannot be used on a view with a column named '${KEEP_COLUMN}'`,
      { position: p.pos },
    );
  if (p.mode === 'when') return;
  if (p.mode === 'latest') {
    const ts = v.timestamp >= 0 ? v.fields[v.timestamp]!.name : null;
    if (p.on !== null && (ts === null || p.on.name.toLowerCase() !== ts.toLowerCase()))
      throw new SvcError(
        'SQL',
        `EXPIRE ROWS KEEP LATEST ON must name the designated timestamp [column=${p.on.name}, timestamp=${ts ?? ''}]`,
        { position: p.on.pos },
      );
    if (ts === null)
      throw new SvcError('SQL', 'EXPIRE ROWS KEEP LATEST requires a designated timestamp', { position: p.pos });
  }
  const mode =
    p.mode === 'latest' ? 'KEEP LATEST' : `KEEP ${p.n !== null ? `${p.n} ` : ''}${p.highest ? 'HIGHEST' : 'LOWEST'}`;
  for (const k of p.partitionBy) {
    if (find(k.name) === undefined)
      throw new SvcError('SQL', `invalid EXPIRE ROWS ${mode} PARTITION BY column: ${k.name}`, { position: k.pos });
  }
  if (p.mode !== 'keep') return;
  const col = find(p.column!.name);
  if (col === undefined)
    throw new SvcError('SQL', `invalid EXPIRE ROWS ${mode} column: ${p.column!.name}`, { position: p.column!.pos });
  if (p.n === null && !BARE_KEEP_TYPES.test(col.type))
    throw new SvcError(
      'SQL',
      `EXPIRE ROWS KEEP HIGHEST/LOWEST requires a BYTE, SHORT, INT, LONG, FLOAT, DOUBLE, DATE, TIMESTAMP or DECIMAL column, but '${col.name}' is ${col.type}; use KEEP <N> HIGHEST/LOWEST to rank an orderable column of any type`,
      { position: p.column!.pos },
    );
  if (p.n !== null && (col.type.endsWith(']') || col.type === 'BINARY' || col.type === 'INTERVAL'))
    throw new SvcError(
      'SQL',
      `EXPIRE ROWS KEEP <N> HIGHEST/LOWEST requires an orderable column, but '${col.name}' is ${col.type}`,
      { position: p.column!.pos },
    );
}

const CLOCKS = /^(now|systimestamp|sysdate|now_ns|systimestamp_ns|today|tomorrow|yesterday)$/i;

/**
 * Whether the cleanup may delete the rows a policy expires (QuestDB's FILTER_AND_RECLAIM): a WHEN
 * predicate without a window function that reads no clock, or a designated timestamp below an
 * advancing clock: `ts < now()`, `ts < now() - c` (c >= 0), `ts < dateadd(u, -c, now())` with a
 * fixed unit. Anything else can un-expire a row later, so its rows only stay hidden (FILTER_ONLY).
 */
export function reclaimable(p: ExpireRows, v: ExpireTarget): boolean {
  if (p.mode !== 'when' || p.predicate === null || isWindowPredicate(p)) return false;
  if (!callsClock(p.predicate)) return true;
  const e = p.predicate;
  const ts = v.timestamp >= 0 ? v.fields[v.timestamp]!.name.toLowerCase() : null;
  if (e.kind !== 'binary' || (e.op !== '<' && e.op !== '<=')) return false;
  if (e.left.kind !== 'column' || ts === null || e.left.name.toLowerCase() !== ts) return false;
  return advancingClock(e.right);
}

function callsClock(e: Expr): boolean {
  let found = false;
  walkTree(e, (o) => {
    if (o.kind === 'call' && typeof o.name === 'string' && CLOCKS.test(o.name)) found = true;
    return found;
  });
  return found;
}

function isBareClock(e: Expr): boolean {
  return e.kind === 'call' && /^(now|systimestamp|now_ns|systimestamp_ns)$/i.test(e.name) && e.args.length === 0;
}

function nonNegativeConst(e: Expr): boolean {
  return e.kind === 'literal' && typeof e.value === 'number' && e.value >= 0;
}

function advancingClock(e: Expr): boolean {
  if (isBareClock(e)) return true;
  if (e.kind === 'binary' && e.op === '-') return isBareClock(e.left) && nonNegativeConst(e.right);
  if (e.kind === 'call' && e.name === 'dateadd' && e.args.length === 3) {
    const [u, n, clock] = e.args as [Expr, Expr, Expr];
    const fixed = u.kind === 'literal' && typeof u.value === 'string' && /^[smhdwTun]$/.test(u.value);
    const back =
      (n.kind === 'unary' && n.op === '-' && nonNegativeConst(n.arg)) ||
      (n.kind === 'literal' && typeof n.value === 'number' && n.value <= 0);
    return fixed && back && isBareClock(clock);
  }
  return false;
}
