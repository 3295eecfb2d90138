// The EXPIRE ROWS clause of a materialized view (QuestDB 10.2's row retention): WHEN predicate,
// KEEP LATEST [ON ts] PARTITION BY cols, KEEP [N] HIGHEST|LOWEST [ON] col [PARTITION BY cols],
// then [CLEANUP EVERY duration]. Parsed at CREATE / ALTER and again from the clause text the
// view's definition keeps (storage/mat-views.ts); sql/expire-rows.ts turns it into a read filter.
import type { ExpireRows } from './ast.js';
import { Cursor } from './parse-cursor.js';
import { parseExpr } from './parse-expr.js';

/** From `EXPIRE` (the cursor on it): the policy, its text as written (without CLEANUP EVERY). */
export function parseExpireRows(c: Cursor): ExpireRows {
  const pos = c.expectKw('EXPIRE').pos;
  c.expectKw('ROWS');
  return parsePolicy(c, pos);
}

/** A stored clause (`KEEP LATEST PARTITION BY sym`, `WHEN ts < now()`) parsed again. */
export function parseExpireClause(text: string): ExpireRows {
  const c = new Cursor(text);
  const policy = parsePolicy(c, 0);
  if (!c.atEnd()) throw c.unexpected();
  return policy;
}

function parsePolicy(c: Cursor, pos: number): ExpireRows {
  const start = c.tok.pos;
  let policy: Omit<ExpireRows, 'kind' | 'clause' | 'clausePos' | 'cleanupEvery' | 'pos'>;
  if (c.acceptKw('WHEN')) {
    const predicate = parseExpr(c);
    policy = { mode: 'when', predicate, on: null, n: null, highest: false, column: null, partitionBy: [] };
  } else if (c.acceptKw('KEEP')) {
    if (c.acceptKw('LATEST')) {
      let on: ExpireRows['on'] = null;
      if (c.acceptKw('ON')) on = c.name('timestamp column');
      c.expectKw('PARTITION');
      c.expectKw('BY');
      policy = { mode: 'latest', predicate: null, on, n: null, highest: false, column: null, partitionBy: names(c) };
    } else {
      let n: number | null = null;
      if (c.tok.kind === 'number') {
        const t = c.next();
        n = Number(t.text);
        if (!Number.isInteger(n) || n < 1) throw c.error('EXPIRE ROWS KEEP <N> must be a positive integer', t.pos);
      }
      let highest: boolean;
      if (c.acceptKw('HIGHEST')) highest = true;
      else if (c.acceptKw('LOWEST')) highest = false;
      else throw c.expected(n === null ? "'latest', 'highest' or 'lowest'" : "'highest' or 'lowest'");
      // QuestDB's pages write both `KEEP HIGHEST col` and `KEEP HIGHEST ON col`.
      c.acceptKw('ON');
      const column = c.name('column name');
      let partitionBy: ExpireRows['partitionBy'] = [];
      if (c.acceptKw('PARTITION')) {
        c.expectKw('BY');
        partitionBy = names(c);
      }
      policy = { mode: 'keep', predicate: null, on: null, n, highest, column, partitionBy };
    }
  } else throw c.expected("'when' or 'keep'");
  const clause = c.slice(start, c.prevEnd);
  if (/--/.test(clause.replace(/'[^']*'/g, '')))
    throw c.error('line comments are not allowed in an EXPIRE ROWS clause', start);
  let cleanupEvery: ExpireRows['cleanupEvery'] = null;
  if (c.acceptKw('CLEANUP')) {
    c.expectKw('EVERY');
    const t = c.tok;
    const text = c.duration('cleanup interval');
    if (!/^\d+[smhdw]$/.test(text) || Number.parseInt(text, 10) <= 0)
      throw c.error(`invalid CLEANUP EVERY interval, expected <number><s|m|h|d|w> [value=${text}]`, t.pos);
    cleanupEvery = { text, pos: t.pos };
  }
  return { kind: 'expireRows', pos, ...policy, clause, clausePos: start, cleanupEvery };
}

function names(c: Cursor): Array<{ name: string; pos: number }> {
  const out = [c.name('column name')];
  while (c.acceptOp(',')) out.push(c.name('column name'));
  return out;
}
