// HORIZON JOIN binding (QuestDB's markout join): a left source and a chain of HORIZON JOINs to right
// sources, each with its keys and its right-side filter from ON, and one RANGE / LIST of offsets after
// the last of them. The 'horizonJoin' node gives a row per left row and offset (the horizon alias's
// `offset` and `timestamp`, then each right side's row ASOF left ts + offset); the SELECT over it is an
// ordinary one: grouped by its non-aggregate columns when it has aggregates, a row per row otherwise.
import { SvcError } from '../errors/svc-error.js';
import type * as A from './ast.js';
import { bindExpr, resolveColumn, type Scope, type ScopeField } from './bind-expr.js';
import {
  checkTimestamp,
  columnRefs,
  filterRight,
  joinChain,
  splitOn,
  uniqueNames,
  windowCalls,
  type Source,
} from './bind-time-join.js';
import type { Plan, TimeJoinSide } from './bound.js';
import { node } from './plan-timestamp.js';
import type { StatementEnv } from './statement-env.js';

export const HORIZON_MIXED = 'horizon join cannot be combined with other joins';
export const HORIZON_FOLLOWED = 'only horizon joins can follow a horizon join';

/** Offsets' units in micros (SAMPLE BY's letters and QuestDB's `n`). */
const UNIT_MICROS: Record<string, number> = {
  n: 1e-3,
  U: 1,
  T: 1e3,
  s: 1e6,
  m: 6e7,
  h: 3.6e9,
  d: 8.64e10,
  w: 6.048e11,
};

/** More offsets than this is a mistake (every left row becomes this many rows). */
const MAX_OFFSETS = 100_000;

export function isHorizonJoin(f: A.FromItem): f is A.Join {
  return f.kind === 'join' && f.type === 'HORIZON';
}

/** Whether `f` is or holds a HORIZON JOIN (a join written after one: QuestDB's error). */
export function hasHorizonJoin(f: A.FromItem): boolean {
  return f.kind === 'join' && (f.type === 'HORIZON' || hasHorizonJoin(f.left));
}

/**
 * Binds `left HORIZON JOIN r1 [ON ...] [HORIZON JOIN r2 ...] RANGE | LIST ... AS h` for one SELECT:
 * `left` is what WHERE filters (left columns only); `build` puts the node over it; `scope` is what the
 * SELECT list, GROUP BY and ORDER BY see (left columns, `h.offset`, `h.timestamp`, right columns).
 */
export class HorizonJoinBinder {
  readonly left: Source;
  readonly scope: Scope;
  /** The columns `*` stands for: the left's and every right side's (not the horizon's). */
  readonly starFields: readonly ScopeField[];
  readonly #joins: TimeJoinSide[] = [];
  readonly #offsets: number[];

  constructor(
    private readonly env: StatementEnv,
    from: A.Join,
    bindFrom: (f: A.FromItem) => Source,
  ) {
    const { base, chain } = joinChain(from, 'HORIZON');
    if (base.kind === 'join') throw new SvcError('SQL', HORIZON_MIXED, { position: chain[0]!.pos });
    for (const j of chain.slice(0, -1))
      if (j.horizon)
        throw new SvcError('SQL', 'RANGE or LIST goes after the last HORIZON JOIN only', { position: j.horizon.pos });
    const horizon = from.horizon;
    if (!horizon) throw new SvcError('SQL', "'range' or 'list' expected", { position: from.pos });
    this.#offsets = horizon.range ? rangeOffsets(horizon.range) : listOffsets(horizon.list!);
    const named = uniqueNames();
    named(base);
    this.left = bindFrom(base);
    checkTimestamp(this.left.plan, 'left', from.pos);
    const rights: ScopeField[] = [];
    for (const j of chain) {
      if (j.right.kind === 'join')
        throw new SvcError('SQL', 'right side of horizon join must be a table or a sub-query', {
          position: j.right.pos,
        });
      named(j.right);
      const right = bindFrom(j.right);
      checkTimestamp(right.plan, 'right', j.pos);
      const { leftKeys, rightKeys, rightOnly, rest } = splitOn(j, this.left.scope, right.scope);
      if (rest.length > 0)
        throw new SvcError(
          'SQL',
          'HORIZON JOIN ON takes equalities of a left and a right column and conditions on the right table alone',
          { position: rest[0]!.pos },
        );
      const plan = filterRight(env, right, rightOnly);
      this.#joins.push({ right: plan, leftKeys, rightKeys, rightTs: plan.timestamp });
      rights.push(...right.scope.fields);
    }
    const h = horizon.alias;
    const fields: ScopeField[] = [
      ...this.left.scope.fields,
      { table: h, name: 'offset', type: 'LONG' },
      { table: h, name: 'timestamp', type: 'TIMESTAMP' },
      ...rights,
    ];
    this.scope = { fields };
    this.starFields = [...this.left.scope.fields, ...rights];
  }

  /** QuestDB's limits on the rest of the SELECT: no SAMPLE BY, no window functions. */
  checkClauses(q: A.Select): void {
    if (q.sampleBy)
      throw new SvcError('SQL', 'SAMPLE BY is not supported with HORIZON JOIN; use GROUP BY or an outer query', {
        position: q.sampleBy.pos,
      });
    const w = windowCalls([q.columns, q.having, q.orderBy])[0];
    if (w)
      throw new SvcError('SQL', 'window functions are not supported with HORIZON JOIN; use a subquery', {
        position: w.pos,
      });
  }

  /** WHERE filters the left rows: a right column or the horizon's is an error at the name. */
  checkWhere(e: A.Expr): void {
    const nl = this.left.scope.fields.length;
    for (const ref of columnRefs(e)) {
      let other = false;
      try {
        resolveColumn(this.left.scope, ref);
        continue;
      } catch {
        try {
          other = resolveColumn(this.scope, ref).index >= nl;
        } catch {
          // Not a right or horizon column either: binding WHERE reports it.
        }
      }
      if (other)
        throw new SvcError('SQL', 'WHERE of a HORIZON JOIN can only reference left-hand table columns', {
          position: ref.pos,
        });
    }
  }

  /**
   * QuestDB's GROUP BY rule here: each item is a non-aggregate SELECT expression (by alias, position or
   * the same expression, `t.sym` matching `sym`), and every non-aggregate SELECT expression is grouped by.
   * Returns the keys, a bare name replaced by the SELECT expression it stands for.
   */
  groupKeys(
    groupBy: readonly A.Expr[],
    resolved: readonly A.Expr[],
    plain: readonly { expr: A.Expr; pos: number }[],
  ): A.Expr[] {
    const keys = resolved.map((g) => {
      if (g.kind !== 'column' || g.table !== null) return g;
      const name = g.name.toLowerCase();
      const same = plain.filter((p) => p.expr.kind === 'column' && p.expr.name.toLowerCase() === name);
      return same.length === 1 ? same[0]!.expr : g;
    });
    const key = (e: A.Expr): string => boundKey(bindExpr(e, { env: this.env, scope: this.scope, onAggregate: null }));
    const plainKeys = plain.map((p) => key(p.expr));
    const groupKeys = keys.map(key);
    groupKeys.forEach((k, i) => {
      if (!plainKeys.includes(k))
        throw new SvcError(
          'SQL',
          'HORIZON JOIN GROUP BY items must match a non-aggregate SELECT expression or its alias',
          { position: groupBy[i]!.pos },
        );
    });
    plainKeys.forEach((k, i) => {
      if (!groupKeys.includes(k))
        throw new SvcError('SQL', 'HORIZON JOIN GROUP BY must list every non-aggregate SELECT expression', {
          position: plain[i]!.pos,
        });
    });
    return keys;
  }

  /** The node over the left plan (WHERE applied): the scope's columns. */
  build(left: Plan): Plan {
    return node({
      kind: 'horizonJoin',
      left,
      leftTs: left.timestamp,
      offsets: this.#offsets,
      joins: this.#joins,
      fields: this.scope.fields.map((f) => ({ name: f.name, type: f.type })),
    });
  }
}

/** A bound expression as text to compare: where it is written left out (functions resolved alike print alike). */
function boundKey(e: unknown): string {
  return JSON.stringify(e, (k, v: unknown) =>
    typeof v === 'function' || k === 'pos' || k.endsWith('Pos') ? undefined : v,
  );
}

/** An offset as micros: a number with a unit (`5s`, `-2m`), or a bare 0. */
function offsetMicros(o: A.HorizonOffset): number {
  const m = /^([+-]?)(\d+)(n|U|T|s|m|h|d|w)?$/.exec(o.text.trim());
  if (!m || (m[3] === undefined && Number(m[2]) !== 0))
    throw new SvcError('SQL', `HORIZON JOIN offsets need a unit (n, U, T, s, m, h, d, w) [${o.text}]`, {
      position: o.pos,
    });
  const micros = Number(m[2]) * (m[3] === undefined ? 0 : UNIT_MICROS[m[3]]!);
  if (!Number.isInteger(micros))
    throw new SvcError('SQL', `HORIZON JOIN offsets are whole microseconds here [${o.text}]`, { position: o.pos });
  return m[1] === '-' ? -micros || 0 : micros;
}

function rangeOffsets(r: NonNullable<A.Horizon['range']>): number[] {
  const from = offsetMicros(r.from);
  const to = offsetMicros(r.to);
  const step = offsetMicros(r.step);
  if (step <= 0) throw new SvcError('SQL', 'HORIZON JOIN RANGE STEP must be positive', { position: r.step.pos });
  if (from > to)
    throw new SvcError('SQL', 'HORIZON JOIN RANGE FROM must be less than or equal to TO', { position: r.from.pos });
  const n = Math.floor((to - from) / step) + 1;
  if (n > MAX_OFFSETS)
    throw new SvcError('SQL', `HORIZON JOIN RANGE gives more than ${MAX_OFFSETS} offsets`, { position: r.step.pos });
  return Array.from({ length: n }, (_, i) => from + i * step);
}

function listOffsets(list: readonly A.HorizonOffset[]): number[] {
  const out: number[] = [];
  for (const o of list) {
    const v = offsetMicros(o);
    if (out.length > 0 && v <= out[out.length - 1]!)
      throw new SvcError('SQL', 'HORIZON JOIN LIST offsets must be monotonically increasing', { position: o.pos });
    out.push(v);
  }
  return out;
}
