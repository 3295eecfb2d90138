// What WINDOW JOIN and HORIZON JOIN binding share: a left source and a chain of joins of one type
// (names checked unique), both sides' designated timestamps, ON / USING split into key pairs,
// conditions on the right table alone (its filter) and the rest, and the column references of an
// expression (which table a name reads).
import { SvcError } from '../errors/svc-error.js';
import type * as A from './ast.js';
import { bindExpr, resolveColumn, type Scope } from './bind-expr.js';
import type { Plan } from './bound.js';
import { pushIntervals } from './intervals.js';
import { balancedAnd } from './parse-expr.js';
import type { StatementEnv } from './statement-env.js';

export interface Source {
  readonly plan: Plan;
  readonly scope: Scope;
}

/** `from`'s chain of `type` joins, first join first, and the source left of them (a join of another type: mixed). */
export function joinChain(from: A.Join, type: A.JoinType): { readonly base: A.FromItem; readonly chain: A.Join[] } {
  const chain: A.Join[] = [];
  let f: A.FromItem = from;
  while (f.kind === 'join' && f.type === type) {
    chain.unshift(f);
    f = f.left;
  }
  return { base: f, chain };
}

/** Remembers the names sources are known by; a second source of one name is QuestDB's error. */
export function uniqueNames(): (g: Exclude<A.FromItem, A.Join>) => void {
  const names = new Set<string>();
  return (g) => {
    const name = g.kind === 'showRef' ? null : (g.alias ?? (g.kind === 'tableRef' ? g.name : null));
    if (name === null) return;
    if (names.has(name.toLowerCase()))
      throw new SvcError('SQL', `Duplicate table or alias: ${name}`, { position: g.pos });
    names.add(name.toLowerCase());
  };
}

/** Both sides of a time series join need a designated timestamp, ascending (matches walk forward in time). */
export function checkTimestamp(p: Plan, side: 'left' | 'right', pos: number): void {
  if (p.timestamp < 0)
    throw new SvcError('SQL', `${side} side of time series join has no timestamp`, { position: pos });
  if (p.timestampDesc)
    throw new SvcError('SQL', `${side} side of time series join doesn't have ASC timestamp order`, { position: pos });
}

/** ON / USING of a join: key pairs (left = right columns), conditions on the right alone, and the rest. */
export interface SplitOn {
  readonly leftKeys: number[];
  readonly rightKeys: number[];
  readonly rightOnly: A.Expr[];
  readonly rest: A.Expr[];
}

export function splitOn(j: A.Join, left: Scope, right: Scope): SplitOn {
  const nl = left.fields.length;
  const pairScope: Scope = { fields: [...left.fields, ...right.fields] };
  const out: SplitOn = { leftKeys: [], rightKeys: [], rightOnly: [], rest: [] };
  if (j.using) {
    for (const name of j.using) {
      out.leftKeys.push(resolveColumn(left, { kind: 'column', pos: j.pos, table: null, name }).index);
      out.rightKeys.push(resolveColumn(right, { kind: 'column', pos: j.pos, table: null, name }).index);
    }
  } else if (j.on) {
    for (const c of conjuncts(j.on)) {
      if (c.kind === 'binary' && c.op === '=' && c.left.kind === 'column' && c.right.kind === 'column') {
        const a = resolveColumn(pairScope, c.left).index;
        const b = resolveColumn(pairScope, c.right).index;
        if (a < nl !== b < nl) {
          out.leftKeys.push(Math.min(a, b));
          out.rightKeys.push(Math.max(a, b) - nl);
          continue;
        }
      }
      const owners = columnRefs(c).map((r) => resolveColumn(pairScope, r).index >= nl);
      if (owners.length > 0 && owners.every((o) => o)) out.rightOnly.push(c);
      else out.rest.push(c);
    }
  }
  return out;
}

/** The right side with its own ON conditions applied as a filter (intervals pushed into its scan). */
export function filterRight(env: StatementEnv, right: Source, conditions: readonly A.Expr[]): Plan {
  if (conditions.length === 0) return right.plan;
  const predicate = bindExpr(balancedAnd([...conditions]), { env, scope: right.scope, onAggregate: null });
  if (predicate.type !== 'BOOLEAN')
    throw new SvcError('SQL', 'boolean expression expected', { position: conditions[0]!.pos });
  return pushIntervals(right.plan, predicate, env);
}

export function conjuncts(e: A.Expr): A.Expr[] {
  return e.kind === 'binary' && e.op === 'AND' ? [...conjuncts(e.left), ...conjuncts(e.right)] : [e];
}

/** The column references of `e` in text order, subqueries and calls `skip` says left out. */
export function columnRefs(e: A.Expr, skip?: (c: A.Call) => boolean): A.ColumnRef[] {
  const out: A.ColumnRef[] = [];
  const visit = (n: unknown): void => {
    if (n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) {
      for (const x of n) visit(x);
      return;
    }
    const o = n as { kind?: string };
    if (o.kind === 'column') {
      out.push(o as A.ColumnRef);
      return;
    }
    if (o.kind === 'subquery' || o.kind === 'select' || o.kind === 'setOp') return;
    if (o.kind === 'call' && skip?.(o as A.Call)) return;
    for (const v of Object.values(o)) visit(v);
  };
  visit(e);
  return out.sort((a, b) => a.pos - b.pos);
}

/** The calls of `e` with an OVER clause (window functions), subqueries left out. */
export function windowCalls(e: unknown): A.Call[] {
  const out: A.Call[] = [];
  const visit = (n: unknown): void => {
    if (n === null || typeof n !== 'object') return;
    if (Array.isArray(n)) {
      for (const x of n) visit(x);
      return;
    }
    const o = n as { kind?: string; over?: unknown };
    if (o.kind === 'subquery' || o.kind === 'select' || o.kind === 'setOp') return;
    if (o.kind === 'call' && o.over != null) out.push(o as A.Call);
    for (const v of Object.values(o)) visit(v);
  };
  visit(e);
  return out;
}
