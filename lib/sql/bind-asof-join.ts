// ASOF JOIN and LT JOIN (QuestDB): every left row is joined with the right
// row of the latest timestamp at or before its own (strictly before for LT),
// among right rows with the same key when the join names keys (`ON (sym)`,
// `ON a.sym = b.sym`, `USING`); TOLERANCE bounds how old that row may be.
// Left rows without one get NULLs. SPLICE JOIN is the full version: a row for
// every row of either side, with the other side's latest row at or before it.
// Both sides need a designated timestamp.
import { SvcError } from '../errors/svc-error.js';
import type * as A from './ast.js';
import { resolveColumn, type Scope, type ScopeField } from './bind-expr.js';
import type { Plan } from './bound.js';
import { parseSampleInterval } from './sample-by.js';
import { node } from './plan-timestamp.js';

interface Source {
  readonly plan: Plan;
  readonly scope: Scope;
}

const UNIT_US: Record<string, number> = {
  U: 1,
  T: 1000,
  s: 1_000_000,
  m: 60_000_000,
  h: 3_600_000_000,
  d: 86_400_000_000,
  w: 604_800_000_000,
};

export function bindAsofJoin(j: A.Join, l: Source, r: Source): Source {
  const what = `${j.type} JOIN`;
  if (l.plan.timestamp < 0)
    throw new SvcError('SQL', 'left side of time series join has no timestamp', { position: j.pos });
  if (r.plan.timestamp < 0)
    throw new SvcError('SQL', 'right side of time series join has no timestamp', { position: j.pos });
  // Matching walks both sides forward in time: a side sorted newest first (ORDER BY ts DESC) cannot be joined.
  if (l.plan.timestampDesc)
    throw new SvcError('SQL', "left side of time series join doesn't have ASC timestamp order", { position: j.pos });
  if (r.plan.timestampDesc)
    throw new SvcError('SQL', "right side of time series join doesn't have ASC timestamp order", { position: j.pos });
  const fields: ScopeField[] = [...l.scope.fields, ...r.scope.fields];
  const nl = l.scope.fields.length;
  const leftKeys: number[] = [];
  const rightKeys: number[] = [];
  if (j.using) {
    for (const name of j.using) {
      leftKeys.push(resolveColumn(l.scope, { kind: 'column', pos: j.pos, table: null, name }).index);
      rightKeys.push(resolveColumn(r.scope, { kind: 'column', pos: j.pos, table: null, name }).index);
    }
  } else if (j.on) {
    const scope: Scope = { fields };
    for (const c of conjuncts(j.on)) {
      if (!(c.kind === 'binary' && c.op === '=' && c.left.kind === 'column' && c.right.kind === 'column')) {
        throw new SvcError('SQL', `${what} ON takes equalities between a left and a right column`, { position: c.pos });
      }
      const a = resolveColumn(scope, c.left).index,
        b = resolveColumn(scope, c.right).index;
      if (a < nl && b >= nl) {
        leftKeys.push(a);
        rightKeys.push(b - nl);
      } else if (b < nl && a >= nl) {
        leftKeys.push(b);
        rightKeys.push(a - nl);
      } else {
        throw new SvcError('SQL', `${what} ON takes equalities between a left and a right column`, { position: c.pos });
      }
    }
  }
  let tolerance: number | null = null;
  if (j.tolerance !== null && j.type !== 'SPLICE') {
    const { n, unit } = parseSampleInterval(j.tolerance, j.pos);
    if (unit === 'M' || unit === 'y')
      throw new SvcError('SQL', `${what} TOLERANCE takes a fixed duration (U, T, s, m, h, d, w) [${j.tolerance}]`, {
        position: j.pos,
      });
    tolerance = n * UNIT_US[unit]!;
  }
  const plan: Plan = node({
    kind: 'asofJoin',
    strict: j.type === 'LT',
    splice: j.type === 'SPLICE',
    left: l.plan,
    right: r.plan,
    leftKeys,
    rightKeys,
    tolerance,
    leftTs: l.plan.timestamp,
    rightTs: r.plan.timestamp,
    fields: fields.map((f) => ({ name: f.name, type: f.type })),
  });
  return { plan, scope: { fields } };
}

function conjuncts(e: A.Expr): A.Expr[] {
  return e.kind === 'binary' && e.op === 'AND' ? [...conjuncts(e.left), ...conjuncts(e.right)] : [e];
}
