// The depth guard: how deeply a statement may nest. The parser, the binder, column
// pruning, the expression compiler's closures, the operators and EXPLAIN all recurse
// over the syntax tree or the plan built from it, so both are bounded here: deep SQL
// gets a 400 with the position where the limit was crossed, never a stack overflow.
import { SvcError } from '../errors/svc-error.js';
import type { BoundExpr, Plan } from './bound.js';

/**
 * The deepest nesting a statement may have: syntax tree nodes from the statement down
 * (each operator, call, CASE, cast, subquery, select item...) and, while parsing,
 * parentheses. Chosen from measurements of where each stage overflows Node's default
 * stack (README "Limits"): the costliest stage per level stays far below it.
 */
export const MAX_NESTING = 400;

/**
 * The deepest plan: an operator counts 2 (a pull through an async generator costs
 * about twice the stack of an expression level), an expression level 1. Twice
 * MAX_NESTING, so an expression the parser accepts fits even after the binder's
 * implicit casts and NOTs; CTE chains and stacks of clauses are what can reach it.
 */
export const MAX_PLAN_DEPTH = 2 * MAX_NESTING;

/**
 * Operators a plan may have with every CTE reference expanded (each reference runs its query
 * again): CTEs that each use the one before twice double it, 2^k operators from k lines of SQL.
 * Far above what text can say directly (a 64 KiB /exec URL holds about 3,500 UNION ALL operands,
 * 3 operators each).
 */
export const MAX_PLAN_OPERATORS = 100_000;

/** What nested too deeply, for the message: a whole statement, a query (SELECT, set operation, FROM item) or an expression. */
export type Nested = 'statement' | 'query' | 'expression';

const STATEMENT_KINDS: ReadonlySet<string> = new Set([
  'query',
  'explain',
  'createTable',
  'dropTable',
  'truncateTable',
  'renameTable',
  'alterTable',
  'insert',
  'update',
  'show',
  'copy',
  'maintenance',
  'cancelQuery',
  'unsupported',
]);
const QUERY_KINDS: ReadonlySet<string> = new Set([
  'select',
  'setOp',
  'subquery',
  'subqueryRef',
  'join',
  'tableRef',
  'functionRef',
  'showRef',
]);

/** The error for nesting past the limit at `position`. */
export function nestingError(position: number, what: Nested): SvcError {
  return new SvcError('SQL', `${what} nesting too deep [max=${MAX_NESTING}]`, { position });
}

function nestedOf(kind: string, root: boolean): Nested {
  if (root && STATEMENT_KINDS.has(kind)) return 'statement';
  return QUERY_KINDS.has(kind) ? 'query' : 'expression';
}

interface Node {
  readonly kind: string;
  readonly pos: number;
}

function isNode(o: object): o is Node {
  return typeof (o as { kind?: unknown }).kind === 'string' && typeof (o as { pos?: unknown }).pos === 'number';
}

/** The objects directly inside `o` (array elements, property values). */
function childrenOf(o: object): object[] {
  const out: object[] = [];
  if (Array.isArray(o)) {
    for (const v of o as unknown[]) if (typeof v === 'object' && v !== null) out.push(v);
  } else {
    for (const k in o) {
      const v = (o as Record<string, unknown>)[k];
      if (typeof v === 'object' && v !== null) out.push(v);
    }
  }
  return out;
}

/**
 * Fails when the syntax tree under `root` is more than MAX_NESTING nodes high (objects
 * with a `kind` and a `pos` count; the arrays and records between them do not). It reports
 * the first node, in post-order with children in text order, whose subtree is too high:
 * for `1+1+...` the operator where the chain crossed the limit, reading left to right.
 */
export function checkSyntaxDepth(root: object): void {
  // Plain recursion is several times faster, and the parser runs this on every statement;
  // a tree nested deeper than it may recurse is walked again with an explicit stack.
  if (heightOf(root, 0) === TOO_DEEP_TO_RECURSE) walkSyntaxDepth(root);
}

/** Levels of objects (nodes, arrays, records) plain recursion may descend: a few hundred bytes of stack each. */
const RECURSION_LIMIT = 1000;
const TOO_DEEP_TO_RECURSE = -1;

/** The height of `o` in nodes, or TOO_DEEP_TO_RECURSE; throws at the first node past the limit. */
function heightOf(o: object, level: number): number {
  if (level > RECURSION_LIMIT) return TOO_DEEP_TO_RECURSE;
  let h = 0;
  if (Array.isArray(o)) {
    for (const v of o as unknown[]) {
      if (typeof v !== 'object' || v === null) continue;
      const x = heightOf(v, level + 1);
      if (x === TOO_DEEP_TO_RECURSE) return x;
      if (x > h) h = x;
    }
    return h;
  }
  for (const k in o) {
    const v = (o as Record<string, unknown>)[k];
    if (typeof v !== 'object' || v === null) continue;
    const x = heightOf(v, level + 1);
    if (x === TOO_DEEP_TO_RECURSE) return x;
    if (x > h) h = x;
  }
  if (!isNode(o)) return h;
  if (h + 1 > MAX_NESTING) throw nestingError(o.pos, nestedOf(o.kind, level === 0));
  return h + 1;
}

/** checkSyntaxDepth with its own stack: the same answer for a tree of any depth. */
function walkSyntaxDepth(root: object): void {
  const objs: object[] = [root];
  const kids: object[][] = [childrenOf(root)];
  const next: number[] = [0];
  const high: number[] = [0];
  while (objs.length > 0) {
    const top = objs.length - 1;
    const list = kids[top]!;
    const i = next[top]!;
    if (i < list.length) {
      next[top] = i + 1;
      const child = list[i]!;
      objs.push(child);
      kids.push(childrenOf(child));
      next.push(0);
      high.push(0);
      continue;
    }
    const o = objs.pop()!;
    kids.pop();
    next.pop();
    let h = high.pop()!;
    if (isNode(o)) {
      h += 1;
      if (h > MAX_NESTING) throw nestingError(o.pos, nestedOf(o.kind, objs.length === 0));
    }
    if (top > 0 && h > high[top - 1]!) high[top - 1] = h;
  }
}

interface PlanMeasure {
  /** Weighted depth: operators 2, expression levels 1. */
  readonly depth: number;
  /** Operators with shared subplans (CTE references) counted once per use. */
  readonly operators: number;
}

/** Plans measured so far: a CTE's plan is shared by its references and measured once. */
const measured = new WeakMap<Plan, PlanMeasure>();

/**
 * Fails when `plan` is deeper than MAX_PLAN_DEPTH or has more than MAX_PLAN_OPERATORS
 * operators once its shared subplans are expanded. `position` is the query being bound.
 * The binder calls it for every query it binds, so a CTE chain or a stack of subqueries
 * is stopped where it crosses the limit; shared subplans are measured once.
 */
export function checkPlanDepth(plan: Plan, position: number): void {
  const m = measurePlan(plan);
  if (m.depth > MAX_PLAN_DEPTH) throw new SvcError('SQL', `query nesting too deep [max=${MAX_NESTING}]`, { position });
  if (m.operators > MAX_PLAN_OPERATORS) {
    throw new SvcError(
      'SQL',
      `query too complex: ${m.operators} operators once its CTE references are expanded [max=${MAX_PLAN_OPERATORS}]`,
      { position },
    );
  }
}

/** The plans and expressions directly under a plan node. */
function planParts(p: Plan): { plans: Plan[]; exprs: BoundExpr[] } {
  switch (p.kind) {
    case 'scan':
    case 'input':
    case 'oneRow':
    case 'longSequence':
    case 'metadata':
    case 'parquetScan':
      return { plans: [], exprs: [] };
    case 'filter':
      return { plans: [p.input], exprs: [p.predicate] };
    case 'project':
      return { plans: [p.input], exprs: [...p.exprs] };
    case 'aggregate':
      return { plans: [p.input], exprs: [...p.keys, ...p.aggregates.flatMap((a) => a.args)] };
    case 'window':
      return {
        plans: [p.input],
        exprs: p.functions.flatMap((f) => [...f.args, ...f.partitionBy, ...f.orderBy.map((o) => o.expr)]),
      };
    case 'sort':
    case 'limit':
    case 'distinct':
    case 'sampleFill':
    case 'latestBy':
    case 'reverse':
    case 'designate':
      return { plans: [p.input], exprs: [] };
    case 'asofJoin':
    case 'setOp':
      return { plans: [p.left, p.right], exprs: [] };
    case 'join':
      return { plans: [p.left, p.right], exprs: p.residual === null ? [] : [p.residual] };
    case 'horizonJoin':
      return { plans: [p.left, ...p.joins.map((j) => j.right)], exprs: [] };
    case 'windowJoin':
      return {
        plans: [p.left, ...p.joins.map((j) => j.right)],
        exprs: [
          ...p.joins.flatMap((j) => (j.residual === null ? [] : [j.residual])),
          ...p.aggregates.flatMap((a) => a.args),
        ],
      };
  }
}

type Item = { readonly plan: Plan } | { readonly expr: BoundExpr };

/** Depth and operator count of a plan, computed with an explicit stack (the plan may be as deep as the thing it guards). */
function measurePlan(root: Plan): PlanMeasure {
  const known = measured.get(root);
  if (known !== undefined) return known;
  // Post-order: a frame's children are measured (pushed and popped) before the frame itself.
  const items: Item[] = [{ plan: root }];
  const kids: Item[][] = [];
  const next: number[] = [];
  const deep: number[] = [];
  const ops: number[] = [];
  const expand = (it: Item): Item[] => {
    if ('plan' in it) {
      const { plans, exprs } = planParts(it.plan);
      return [...plans.map((plan) => ({ plan })), ...exprs.map((expr) => ({ expr }))];
    }
    const e = it.expr;
    switch (e.kind) {
      case 'col':
      case 'const':
        return [];
      case 'call':
        return e.args.map((expr) => ({ expr }));
      case 'subquery':
        return [{ plan: e.plan }];
      case 'inSubquery':
        return [{ expr: e.expr }, { plan: e.plan }];
    }
  };
  kids.push(expand(items[0]!));
  next.push(0);
  deep.push(0);
  ops.push(0);
  let result: PlanMeasure = { depth: 0, operators: 0 };
  while (items.length > 0) {
    const top = items.length - 1;
    const list = kids[top]!;
    const i = next[top]!;
    let done: PlanMeasure;
    if (i < list.length) {
      next[top] = i + 1;
      const child = list[i]!;
      const memo = 'plan' in child ? measured.get(child.plan) : undefined;
      if (memo !== undefined) done = memo;
      else {
        items.push(child);
        kids.push(expand(child));
        next.push(0);
        deep.push(0);
        ops.push(0);
        continue;
      }
    } else {
      const it = items.pop()!;
      kids.pop();
      next.pop();
      const d = deep.pop()!;
      const n = ops.pop()!;
      done = 'plan' in it ? { depth: d + 2, operators: n + 1 } : { depth: d + 1, operators: n };
      if ('plan' in it) measured.set(it.plan, done);
      if (items.length === 0) {
        result = done;
        break;
      }
    }
    // Fold a finished child into its parent (the frame now on top).
    const parent = items.length - 1;
    if (done.depth > deep[parent]!) deep[parent] = done.depth;
    ops[parent] = ops[parent]! + done.operators;
  }
  return result;
}
