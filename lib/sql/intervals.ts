// Pushing conditions on the designated timestamp into the table scan as
// intervals, so partitions outside them are never opened (DESIGN.md
// "Performance rules"). The full predicate still runs as a filter; intervals
// only prune. The time-series issue extends this (ts IN '2024-01', ...).
import type { BoundExpr, Plan } from './bound.js';
import type { Interval } from '../storage/table-reader.js';

/** Filter over `plan`, with intervals pushed into a direct table scan where the predicate bounds the timestamp. */
export function pushIntervals(plan: Plan, predicate: BoundExpr): Plan {
  let input = plan;
  if (plan.kind === 'scan' && plan.timestamp >= 0) {
    const iv = intervalsOf(predicate, plan.timestamp);
    if (iv) input = { ...plan, intervals: iv };
  }
  return { kind: 'filter', input, predicate, fields: plan.fields, timestamp: plan.timestamp };
}

function intervalsOf(e: BoundExpr, ts: number): Interval[] | null {
  let lo = -Infinity, hi = Infinity;
  let bounded = false;
  for (const c of andTerms(e)) {
    if (c.kind !== 'call') continue;
    const [a, b] = c.args;
    if (c.name === 'between' && isTs(c.args[0], ts) && isConst(c.args[1]) && isConst(c.args[2])) {
      // BETWEEN takes its bounds in either order, as QuestDB does.
      const a1 = c.args[1].value as number, a2 = c.args[2].value as number;
      lo = Math.max(lo, Math.min(a1, a2));
      hi = Math.min(hi, Math.max(a1, a2) + 1);
      bounded = true;
      continue;
    }
    if (!a || !b) continue;
    let op = c.name, col = a, k = b;
    if (isConst(a) && isTs(b, ts)) { col = b; k = a; op = flip(op); }
    if (!isTs(col, ts) || !isConst(k) || typeof k.value !== 'number') continue;
    const v = k.value;
    switch (op) {
      case '=': lo = Math.max(lo, v); hi = Math.min(hi, v + 1); bounded = true; break;
      case '>': lo = Math.max(lo, v + 1); bounded = true; break;
      case '>=': lo = Math.max(lo, v); bounded = true; break;
      case '<': hi = Math.min(hi, v); bounded = true; break;
      case '<=': hi = Math.min(hi, v + 1); bounded = true; break;
    }
  }
  if (!bounded) return null;
  return hi > lo ? [[lo, hi]] : [[0, 0]];
}

function andTerms(e: BoundExpr): BoundExpr[] {
  return e.kind === 'call' && e.name === 'and' ? [...andTerms(e.args[0]!), ...andTerms(e.args[1]!)] : [e];
}

function isTs(e: BoundExpr | undefined, ts: number): boolean {
  return e !== undefined && e.kind === 'col' && e.index === ts;
}

function isConst(e: BoundExpr | undefined): e is BoundExpr & { kind: 'const' } {
  return e !== undefined && e.kind === 'const' && e.type === 'TIMESTAMP' && typeof e.value === 'number';
}

function flip(op: string): string {
  return ({ '>': '<', '<': '>', '>=': '<=', '<=': '>=' } as Record<string, string>)[op] ?? op;
}
