// Pushing conditions on the designated timestamp into the table scan as
// intervals, so partitions outside them are never opened (DESIGN.md
// "Performance rules"). Interval literals (ts IN '2024-01'), comparisons,
// BETWEEN, NOT IN and OR of such conditions combine into one sorted interval
// list; the other conditions stay in a filter. A bound may be any constant expression
// (`cast(1571176800000000 AS timestamp)`, `dateadd('d', -1, '2024-01-02')`): it is folded here.
import type { BoundExpr, Plan } from './bound.js';
import type { StatementEnv } from './statement-env.js';
import { constValue, isConstant } from './const-value.js';
import { node } from './plan-timestamp.js';
import type { Interval } from '../core/batch.js';
import { complement, intersect, merge } from './interval-literal.js';

/**
 * Filter over `plan`, with intervals pushed into a direct table scan where the
 * predicate bounds the timestamp. The scan returns exactly the rows inside its
 * intervals, so the conditions they came from leave the filter (which goes
 * when nothing else remains).
 */
export function pushIntervals(plan: Plan, predicate: BoundExpr, env: StatementEnv | null = null): Plan {
  const filter = (input: Plan, p: BoundExpr): Plan =>
    node({ kind: 'filter', input, predicate: p, fields: plan.fields });
  if (plan.kind !== 'scan' || plan.timestamp < 0) return filter(plan, predicate);
  const terms = andTerms(predicate);
  let acc: Interval[] | null = null;
  const rest: BoundExpr[] = [];
  const fold: Fold = (e) => foldTimestamp(env, e);
  for (const c of terms) {
    const iv = termIntervals(c, plan.timestamp, fold);
    if (iv === null) rest.push(c);
    else acc = acc === null ? iv : intersect(acc, iv);
  }
  if (acc === null) return filter(plan, predicate);
  const scan: Plan = { ...plan, intervals: plan.intervals ? intersect(plan.intervals, acc) : acc };
  if (rest.length === 0) return scan;
  if (rest.length === terms.length) return filter(scan, predicate);
  // Several terms, so the predicate has an AND node whose kernel the remaining ones reuse.
  return filter(scan, balancedAnd(rest, findAnd(predicate)!));
}

/** `terms` joined by `and` as a balanced tree, as the parser builds them (thousands of terms stay shallow). */
function balancedAnd(
  terms: readonly BoundExpr[],
  and: BoundExpr & { kind: 'call' },
  lo = 0,
  hi = terms.length,
): BoundExpr {
  if (hi - lo === 1) return terms[lo]!;
  const mid = lo + Math.ceil((hi - lo) / 2);
  return { ...and, args: [balancedAnd(terms, and, lo, mid), balancedAnd(terms, and, mid, hi)] };
}

function findAnd(e: BoundExpr): (BoundExpr & { kind: 'call' }) | null {
  return e.kind === 'call' && e.name === 'and' ? e : null;
}

function intervalsOf(e: BoundExpr, ts: number, fold: Fold): Interval[] | null {
  let acc: Interval[] | null = null;
  for (const c of andTerms(e)) {
    const iv = termIntervals(c, ts, fold);
    if (iv !== null) acc = acc === null ? iv : intersect(acc, iv);
  }
  return acc;
}

/** The timestamp intervals one condition keeps (sorted, merged), or null when it does not bound the timestamp. */
function termIntervals(c: BoundExpr, ts: number, fold: Fold): Interval[] | null {
  if (c.kind !== 'call') return null;
  if (c.name === 'in_intervals' && isTs(c.args[0], ts) && c.intervals) return [...c.intervals];
  if (c.name === 'not' && c.args[0]?.kind === 'call') {
    const inner = c.args[0];
    if (inner.name === 'in_intervals' && isTs(inner.args[0], ts) && inner.intervals) return complement(inner.intervals);
    return null;
  }
  if (c.name === 'or') {
    const a = termIntervals(c.args[0]!, ts, fold),
      b = termIntervals(c.args[1]!, ts, fold);
    return a !== null && b !== null ? merge([...a, ...b]) : null;
  }
  if (c.name === 'and') return intervalsOf(c, ts, fold);
  const [a, b] = c.args;
  if (c.name === 'between' && isTs(c.args[0], ts)) {
    const a1 = fold(c.args[1]!),
      a2 = fold(c.args[2]!);
    // BETWEEN takes its bounds in either order, as QuestDB does.
    if (a1 !== undefined && a2 !== undefined) return [[Math.min(a1, a2), Math.max(a1, a2) + 1]];
    return null;
  }
  if (!a || !b) return null;
  let op = c.name,
    col = a,
    k = b;
  if (isTs(b, ts)) {
    col = b;
    k = a;
    op = flip(op);
  }
  if (!isTs(col, ts)) return null;
  const v = fold(k);
  if (v === undefined) return null;
  switch (op) {
    case '=':
      return [[v, v + 1]];
    case '>':
      return [[v + 1, Infinity]];
    case '>=':
      return [[v, Infinity]];
    case '<':
      return [[-Infinity, v]];
    case '<=':
      return [[-Infinity, v + 1]];
    default:
      return null;
  }
}

function andTerms(e: BoundExpr, into: BoundExpr[] = []): BoundExpr[] {
  if (e.kind === 'call' && e.name === 'and') {
    andTerms(e.args[0]!, into);
    andTerms(e.args[1]!, into);
  } else {
    into.push(e);
  }
  return into;
}

function isTs(e: BoundExpr | undefined, ts: number): boolean {
  return e !== undefined && e.kind === 'col' && e.index === ts;
}

/** A TIMESTAMP bound's micros when it is constant (a literal, or with an env a foldable call), else undefined. */
type Fold = (e: BoundExpr) => number | undefined;

function foldTimestamp(env: StatementEnv | null, e: BoundExpr): number | undefined {
  if (e.type !== 'TIMESTAMP') return undefined;
  if (e.kind === 'const') return typeof e.value === 'number' ? e.value : undefined;
  if (env === null || !isConstant(e)) return undefined;
  const v = constValue(env, e);
  return typeof v === 'number' ? v : undefined;
}

function flip(op: string): string {
  return ({ '>': '<', '<': '>', '>=': '<=', '<=': '>=' } as Record<string, string>)[op] ?? op;
}
