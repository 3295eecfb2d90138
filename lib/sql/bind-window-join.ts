// WINDOW JOIN binding (QuestDB): a left source and a chain of WINDOW JOINs to tables, each with its
// keys, its right-table filter, its pair condition and its RANGE window; the SELECT list's aggregates
// over right columns become the 'windowJoin' node's columns (lib/exec/window-join.ts computes them).
import { SvcError } from '../errors/svc-error.js';
import type * as A from './ast.js';
import { bindExpr, exprKey, resolveColumn, type AggregateHook, type Scope, type ScopeField } from './bind-expr.js';
import {
  checkTimestamp,
  columnRefs,
  filterRight,
  joinChain,
  splitOn,
  uniqueNames,
  type Source,
} from './bind-time-join.js';
import type { BoundAggregate, BoundExpr, Plan, WindowJoinPart } from './bound.js';
import { constValue } from './const-value.js';
import { balancedAnd } from './parse-expr.js';
import { node } from './plan-timestamp.js';
import type { StatementEnv } from './statement-env.js';

/** RANGE offsets' time units, in microseconds (the designated timestamp's unit). */
const UNIT_MICROS: Record<string, number> = {
  NANOSECOND: 1e-3,
  MICROSECOND: 1,
  MILLISECOND: 1e3,
  SECOND: 1e6,
  MINUTE: 6e7,
  HOUR: 3.6e9,
  DAY: 8.64e10,
};

export const MIXED_JOINS = 'WINDOW JOIN cannot be combined with other join types';

export function isWindowJoin(f: A.FromItem): f is A.Join {
  return f.kind === 'join' && f.type === 'WINDOW';
}

interface Part {
  readonly join: A.Join;
  readonly right: Source;
  /** Index of the right table's first field in `combined`. */
  readonly start: number;
}

/**
 * Binds `left WINDOW JOIN r1 ... [WINDOW JOIN r2 ...]` for one SELECT: `left` (the left source, which
 * WHERE filters), `check` (a SELECT or ORDER BY expression names right columns only inside aggregates),
 * `onAggregate` (an aggregate over one right table's columns becomes a column of the node) and
 * `build` (the node over the filtered left plan, once every aggregate is known).
 */
export class WindowJoinBinder {
  readonly left: Source;
  /** Left fields, then every right table's fields: where `*` and a name's table are looked up. */
  readonly combined: readonly ScopeField[];
  readonly #parts: Part[] = [];
  readonly #joins: WindowJoinPart[] = [];
  readonly #aggregates: BoundAggregate[] = [];
  readonly #aggJoin: number[] = [];
  readonly #aggIndex = new Map<string, number>();

  constructor(
    private readonly env: StatementEnv,
    from: A.Join,
    bindFrom: (f: A.FromItem) => Source,
  ) {
    const { base: f, chain } = joinChain(from, 'WINDOW');
    if (f.kind === 'join') throw new SvcError('SQL', MIXED_JOINS, { position: f.pos });
    const named = uniqueNames();
    named(f);
    this.left = bindFrom(f);
    checkTimestamp(this.left.plan, 'left', from.pos);
    const combined: ScopeField[] = [...this.left.scope.fields];
    for (const j of chain) {
      if (j.right.kind !== 'tableRef')
        throw new SvcError('SQL', 'right side of window join must be a table, not sub-query', { position: j.pos });
      named(j.right);
      const right = bindFrom(j.right);
      checkTimestamp(right.plan, 'right', j.pos);
      this.#parts.push({ join: j, right, start: combined.length });
      combined.push(...right.scope.fields);
    }
    this.combined = combined;
    for (const p of this.#parts) this.#joins.push(this.#bindPart(p));
  }

  /** Keys, right filter and pair condition from ON / USING, and the window from RANGE. */
  #bindPart(p: Part): WindowJoinPart {
    const j = p.join;
    const l = this.left;
    const pairScope: Scope = { fields: [...l.scope.fields, ...p.right.scope.fields] };
    const { leftKeys, rightKeys, rightOnly, rest } = splitOn(j, l.scope, p.right.scope);
    const right = filterRight(this.env, p.right, rightOnly);
    let residual: BoundExpr | null = null;
    if (rest.length > 0) {
      residual = bindExpr(balancedAnd(rest), { env: this.env, scope: pairScope, onAggregate: null });
      if (residual.type !== 'BOOLEAN')
        throw new SvcError('SQL', 'boolean expression expected', { position: rest[0]!.pos });
    }
    const frame = j.range!;
    const lo = this.#bound(frame.start);
    const hi = this.#bound(frame.end);
    if (hi < lo)
      throw new SvcError('SQL', 'WINDOW join hi value cannot be less than lo value', {
        position: frame.end.offset?.pos ?? frame.end.pos,
      });
    let prevailing = true;
    if (frame.exclude === 'PREVAILING') prevailing = false;
    else if (frame.exclude !== null && frame.exclude !== 'INCLUDE PREVAILING')
      throw new SvcError('SQL', `EXCLUDE ${frame.exclude} is not supported in WINDOW joins`, {
        position: frame.excludePos ?? frame.pos,
      });
    return { right, leftKeys, rightKeys, rightTs: right.timestamp, lo, hi, prevailing, residual };
  }

  /** A RANGE bound as signed micros from the left row's timestamp (a number without a unit: micros). */
  #bound(b: A.FrameBound): number {
    if (b.type === 'UNBOUNDED PRECEDING' || b.type === 'UNBOUNDED FOLLOWING')
      throw new SvcError('SQL', 'unbounded preceding/following is not supported in WINDOW joins', { position: b.pos });
    if (b.type === 'CURRENT ROW') return 0;
    const e = b.offset!;
    const v = constValue(this.env, bindExpr(e, { env: this.env, scope: { fields: [] }, onAggregate: null }));
    const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isFinite(n))
      throw new SvcError('SQL', 'integer expression expected', { position: e.pos });
    if (n < 0) throw new SvcError('SQL', 'non-negative integer expression expected', { position: e.pos });
    let micros = n;
    if (b.unit !== null) {
      const per = UNIT_MICROS[b.unit.replace(/S$/, '')];
      if (per === undefined) throw new SvcError('SQL', `unsupported time unit [unit=${b.unit}]`, { position: e.pos });
      micros = Math.trunc(n * per);
    } else if (!Number.isInteger(n)) {
      throw new SvcError('SQL', 'integer expression expected', { position: e.pos });
    }
    return b.type === 'PRECEDING' ? -micros : micros;
  }

  /** The right table (index into the chain) an unqualified or qualified name inside an aggregate reads, or -1 for the left. */
  #owner(ref: A.ColumnRef): number {
    const nl = this.left.scope.fields.length;
    if (ref.table !== null) return this.#partOf(resolveColumn({ fields: this.combined }, ref).index, nl);
    const name = ref.name.toLowerCase();
    const hits = this.#parts.filter((p) => p.right.scope.fields.some((f) => f.name.toLowerCase() === name));
    if (hits.length === 1) return this.#parts.indexOf(hits[0]!);
    if (hits.length > 1) throw new SvcError('SQL', `Ambiguous column [name=${ref.name}]`, { position: ref.pos });
    resolveColumn(this.left.scope, ref);
    return -1;
  }

  #partOf(index: number, nl: number): number {
    if (index < nl) return -1;
    let k = 0;
    while (k + 1 < this.#parts.length && this.#parts[k + 1]!.start <= index) k++;
    return k;
  }

  /** Throws QuestDB's error for a right column outside an aggregate in `e` (names resolve in the left first). */
  check(e: A.Expr): void {
    for (const ref of columnRefs(e, (c) => this.#isAggregate(c))) {
      try {
        resolveColumn(this.left.scope, ref);
      } catch (err) {
        let right = false;
        try {
          right = resolveColumn({ fields: this.combined }, ref).index >= this.left.scope.fields.length;
        } catch {
          // Not a right column either: the left's error stands.
        }
        if (right) {
          const shown = `${ref.table !== null ? `${ref.table}.` : ''}${ref.raw ?? ref.name}`;
          throw new SvcError('SQL', `WINDOW join cannot reference right table non-aggregate column: ${shown}`, {
            position: ref.pos,
          });
        }
        throw err;
      }
    }
  }

  #isAggregate(c: A.Call): boolean {
    return c.over === null && (this.env.registry.isAggregate(c.name) || (c.name === 'count' && c.distinct));
  }

  /** An aggregate call: its arguments bound over the one right table they read, its output column returned. */
  readonly onAggregate: AggregateHook = (c: A.Call): BoundExpr => {
    const nl = this.left.scope.fields.length;
    const key = exprKey(c);
    let i = this.#aggIndex.get(key);
    if (i === undefined) {
      const owners = new Set(columnRefs(c).map((r) => this.#owner(r)));
      if (owners.size > 1)
        throw new SvcError('SQL', 'WINDOW join aggregate function cannot reference columns from multiple models', {
          position: c.pos,
        });
      const k = owners.size === 0 ? 0 : [...owners][0]!;
      if (k < 0)
        throw new SvcError('SQL', 'WINDOW join aggregate function must reference right table columns', {
          position: c.pos,
        });
      const scope = this.#parts[k]!.right.scope;
      const star = c.args.length === 1 && c.args[0]!.kind === 'starArg';
      const args = star ? [] : c.args.map((a) => bindExpr(a, { env: this.env, scope, onAggregate: null }));
      const name = c.name === 'count' && c.distinct ? 'count_distinct' : c.name;
      const fn = this.env.registry.resolveAggregate(
        name,
        args.map((a) => a.type),
        c.distinct && name !== 'count_distinct',
        c.pos,
      );
      i = this.#aggregates.length;
      this.#aggregates.push({ name, fn, args, type: fn.type });
      this.#aggJoin.push(k);
      this.#aggIndex.set(key, i);
    }
    return { kind: 'col', index: nl + i, type: this.#aggregates[i]!.type };
  };

  /** The node over the left plan (WHERE applied): the left's columns, then the aggregates'. */
  build(left: Plan): Plan {
    return node({
      kind: 'windowJoin',
      left,
      leftTs: left.timestamp,
      joins: this.#joins,
      aggregates: this.#aggregates,
      aggJoin: this.#aggJoin,
      fields: [...left.fields, ...this.#aggregates.map((a) => ({ name: a.name, type: a.type }))],
    });
  }
}
