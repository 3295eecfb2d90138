// Binding window functions: `f(args) OVER (PARTITION BY ... ORDER BY ... frame)`
// and named windows (WINDOW w AS (...)) in a query's SELECT list and ORDER BY.
// Each distinct call becomes one column of a 'window' plan node placed between
// WHERE and the projection; the call itself binds to a reference to that
// column. Frames are checked here with QuestDB's messages and positions.
import { SvcError } from '../errors/svc-error.js';
import type * as A from './ast.js';
import { bindExpr, castTo, exprKey, unify, type ExprContext, type Scope } from './bind-expr.js';
import type { BoundExpr, BoundFrame, BoundWindow, Plan } from './bound.js';
import { node } from './plan-timestamp.js';
import { constValue } from './const-value.js';
import type { StatementEnv } from './statement-env.js';
import { isNumeric, isTemporal, type SqlType } from '../core/sql-type.js';
import { windowFunction, windowValueType } from './window-functions.js';
import { bindAnchor } from './window-anchor.js';

const AGGREGATION = 'Window function is not allowed in context of aggregation. Use sub-query.';

/**
 * Rejects window functions where they cannot run, before anything is bound:
 * in WHERE, GROUP BY and HAVING, and anywhere in a query that aggregates
 * (GROUP BY, HAVING, SAMPLE BY or an aggregate in the SELECT list), as QuestDB
 * does; such a query can compute its windows in an outer query.
 */
export function checkWindowPlacement(env: StatementEnv, q: A.Select): void {
  const clause = (e: A.Expr | null, name: string): void => {
    const w = e === null ? null : firstWindow(e);
    if (w) throw new SvcError('SQL', `window function is not allowed in ${name} clause`, { position: w.pos });
  };
  clause(q.where, 'WHERE');
  for (const g of q.groupBy) clause(g, 'GROUP BY');
  clause(q.having, 'HAVING');
  const exprs: A.Expr[] = [];
  for (const c of q.columns) if (c.kind === 'item') exprs.push(c.expr);
  const grouped =
    q.groupBy.length > 0 || q.having !== null || q.sampleBy !== null || exprs.some((e) => hasAggregate(env, e));
  if (!grouped) return;
  for (const e of [...exprs, ...q.orderBy.map((o) => o.expr)]) {
    const w = firstWindow(e);
    if (w) throw new SvcError('SQL', AGGREGATION, { position: w.pos });
  }
}

/**
 * Visits the nodes of an expression, outermost first in text order, without entering
 * subqueries; stops at the first for which `f` is true. Its own stack (children pushed
 * last first) keeps it within any depth the parser accepts.
 */
function visit(root: unknown, f: (node: A.Expr) => boolean): boolean {
  const stack: unknown[] = [root];
  while (stack.length > 0) {
    const e = stack.pop();
    if (Array.isArray(e)) {
      for (let i = e.length - 1; i >= 0; i--) stack.push(e[i]);
      continue;
    }
    if (e === null || typeof e !== 'object') continue;
    const kind = (e as { kind?: unknown }).kind;
    if (kind === 'subquery') continue;
    if (typeof kind === 'string' && f(e as A.Expr)) return true;
    const entries = Object.entries(e);
    for (let i = entries.length - 1; i >= 0; i--) if (entries[i]![0] !== 'query') stack.push(entries[i]![1]);
  }
  return false;
}

function firstWindow(e: A.Expr): A.Call | null {
  let found: A.Call | null = null;
  visit(e, (n) => (n.kind === 'call' && n.over !== null ? ((found = n), true) : false));
  return found;
}

/** Whether `e` calls an aggregate function outside its subqueries (a window function's OVER clause included). */
export function hasAggregate(env: StatementEnv, e: A.Expr): boolean {
  return visit(
    e,
    (n) =>
      n.kind === 'call' && n.over === null && (env.registry.isAggregate(n.name) || (n.name === 'count' && n.distinct)),
  );
}

/** Time units of RANGE offsets, in microseconds. */
const UNIT_MICROS: Record<string, number> = {
  MICROSECOND: 1,
  MICROSECONDS: 1,
  MILLISECOND: 1e3,
  MILLISECONDS: 1e3,
  SECOND: 1e6,
  SECONDS: 1e6,
  MINUTE: 6e7,
  MINUTES: 6e7,
  HOUR: 3.6e9,
  HOURS: 3.6e9,
  DAY: 8.64e10,
  DAYS: 8.64e10,
};

/**
 * Binds the window function calls of one SELECT. `hook` goes into the
 * expression context of the SELECT list and ORDER BY; `apply` puts the
 * 'window' node over the plan the calls were bound against (its fields are
 * `scope`'s), before the projection.
 */
export class WindowBinder {
  private readonly functions: BoundWindow[] = [];
  private readonly byKey = new Map<string, number>();
  private readonly named = new Map<string, A.WindowSpec>();

  constructor(
    private readonly env: StatementEnv,
    private readonly scope: Scope,
    windows: A.Select['windows'],
    /** The designated timestamp's index in `scope` (-1: none), which an anchored window must be ordered by. */
    private readonly timestamp = -1,
  ) {
    // A named window may build on one defined before it (QuestDB's rule; no cycles possible).
    for (const w of windows ?? []) {
      if (w.spec.name) this.resolve(w.spec);
      this.named.set(w.name.toLowerCase(), w.spec);
    }
  }

  readonly hook = (c: A.Call): BoundExpr => {
    const key = exprKey(c);
    let i = this.byKey.get(key);
    if (i === undefined) {
      i = this.functions.length;
      this.functions.push(this.bindCall(c));
      this.byKey.set(key, i);
    }
    return { kind: 'col', index: this.scope.fields.length + i, type: this.functions[i]!.type };
  };

  /** `plan` with a window node over it when calls were bound, else `plan`. */
  apply(plan: Plan): Plan {
    if (this.functions.length === 0) return plan;
    if (plan.fields.length !== this.scope.fields.length)
      throw new SvcError('INTERNAL', 'window functions bound against another plan');
    const fields = [...plan.fields, ...this.functions.map((f, i) => ({ name: `$window${i}`, type: f.type }))];
    return node({ kind: 'window', input: plan, functions: this.functions, fields });
  }

  /** The spec with a named base window's parts filled in. */
  private resolve(spec: A.WindowSpec): A.WindowSpec {
    if (!spec.name) return spec;
    const named = this.named.get(spec.name.toLowerCase());
    if (!named)
      throw new SvcError('SQL', `window '${spec.name}' is not defined`, { position: spec.namePos ?? spec.pos });
    const base = this.resolve(named);
    return {
      kind: 'window',
      pos: spec.pos,
      partitionBy: spec.partitionBy.length > 0 ? spec.partitionBy : base.partitionBy,
      orderBy: spec.orderBy.length > 0 ? spec.orderBy : base.orderBy,
      frame: spec.frame ?? base.frame,
      anchor: spec.anchor ?? base.anchor ?? null,
    };
  }

  /**
   * avg(value, kind, param [, volume]) OVER (...): QuestDB's EMA / VWEMA, cumulative in each
   * partition in ORDER BY order (required; a frame clause is refused).
   */
  private bindEma(c: A.Call, spec: A.WindowSpec, argCx: ExprContext): BoundWindow {
    if (spec.orderBy.length === 0) throw new SvcError('SQL', 'avg() requires ORDER BY', { position: c.pos });
    if (spec.frame !== null)
      throw new SvcError('SQL', 'avg() does not support framing; remove ROWS/RANGE clause', { position: c.pos });
    const bound = c.args.map((a) => bindExpr(a, argCx));
    const [value, kind, param, volume] = bound as [BoundExpr, BoundExpr, BoundExpr, BoundExpr | undefined];
    for (const [e, i] of [
      [value, 0],
      [volume, 3],
    ] as const) {
      if (e !== undefined && !isNumeric(e.type) && e.type !== 'NULL')
        throw new SvcError(
          'SQL',
          `there is no matching function \`avg\` with the argument types: (${bound.map((b) => b.type).join(', ')})`,
          {
            position: c.args[i]!.pos,
          },
        );
    }
    const { alpha, tau } = emaSmoothing(this.env, kind, param, c);
    const partitionBy = spec.partitionBy.map((e) =>
      bindExpr(e, { ...argCx, windowError: 'window function is not allowed in PARTITION BY clause' }),
    );
    const orderBy = spec.orderBy.map((o) => ({
      expr: bindExpr(o.expr, {
        ...argCx,
        windowError: 'window function is not allowed in ORDER BY clause of a window',
      }),
      desc: o.desc,
    }));
    if (spec.anchor) partitionBy.push(bindAnchor(spec.anchor, spec, orderBy, this.timestamp, argCx));
    const args: BoundExpr[] = [value];
    if (volume !== undefined) args.push(volume);
    if (tau > 0) {
      const ts = orderBy[0]!.expr;
      if (ts.type !== 'TIMESTAMP')
        throw new SvcError('SQL', 'time-weighted avg() requires ORDER BY a timestamp', { position: c.pos });
      args.push(ts);
    }
    return {
      fn: 'avg',
      args,
      partitionBy,
      orderBy,
      frame: { unit: 'ROWS', start: -Infinity, end: 0 },
      offset: 1,
      ignoreNulls: false,
      type: 'DOUBLE',
      pos: c.pos,
      ema: { alpha, tau, weighted: volume !== undefined },
    };
  }

  private bindCall(c: A.Call): BoundWindow {
    const spec = this.resolve(c.over!);
    const inScope = (windowError: string): ExprContext => ({
      env: this.env,
      scope: this.scope,
      onAggregate: null,
      windowError,
    });
    const argCx = inScope('window function is not allowed in window function arguments');
    const star = c.args.length === 1 && c.args[0]!.kind === 'starArg';
    const def = windowFunction(c.name);
    if (!def) {
      if (this.env.registry.isAggregate(c.name) || this.env.registry.hasScalar(c.name))
        throw new SvcError('SQL', 'non-window function called in window context', { position: c.pos });
      const types = star ? [] : c.args.map((a) => bindExpr(a, argCx).type);
      throw new SvcError('SQL', `unknown function name: ${c.name}(${types.join(', ')})`, { position: c.pos });
    }
    if (c.distinct) throw new SvcError('SQL', 'DISTINCT is not supported in window functions', { position: c.pos });
    if (c.nulls && !def.nulls)
      throw new SvcError('SQL', 'RESPECT/IGNORE NULLS is not supported for current window function', {
        position: c.nullsPos ?? c.pos,
      });
    const isOffset = def.name === 'lag' || def.name === 'lead';
    if (isOffset && c.args.length > 3) throw new SvcError('SQL', 'too many arguments', { position: c.args[3]!.pos });
    if (def.name === 'avg' && (c.args.length === 3 || c.args.length === 4)) return this.bindEma(c, spec, argCx);
    let args = star && def.name === 'count' ? [] : c.args.map((a) => bindExpr(a, argCx));
    const resolved = def.resolve(args.map((a) => a.type));
    if (typeof resolved !== 'string') throw new SvcError('SQL', resolved.error, { position: c.pos });
    let type = resolved;
    let offset = 1;
    if (def.rejectsFrame) rejectFrame(def.name, spec.frame);
    if (def.name === 'ntile') {
      offset = bucketCount(this.env, args[0]!, c.args[0]!.pos);
      args = [];
    } else if (def.name === 'nth_value') {
      const v = constValue(this.env, args[1]!);
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
        throw new SvcError('SQL', 'nth_value() position must be a constant positive integer', {
          position: c.args[1]!.pos,
        });
      offset = v;
      args = [castTo(this.env, args[0]!, type, c.args[0]!.pos)];
    } else if (isOffset) {
      if (args.length >= 2) offset = offsetArg(this.env, args[1]!, c.args[1]!.pos);
      if (args.length === 3) {
        // The default takes the value's type (both their common one), then as the value does.
        const [v, d] = unify(this.env, [args[0]!, args[2]!], c.pos, [c.args[0]!.pos, c.args[2]!.pos]);
        type = windowValueType(v!.type);
        args = [castTo(this.env, v!, type, c.args[0]!.pos), castTo(this.env, d!, type, c.args[2]!.pos)];
      } else {
        args = [castTo(this.env, args[0]!, type, c.args[0]!.pos)];
      }
    } else if (def.name !== 'count' && def.name !== 'sum' && def.name !== 'ksum' && def.name !== 'avg') {
      // The value in the result's type (min(int) is a LONG); sum / avg / count read any number as is.
      args = args.map((a, i) => castTo(this.env, a, type, c.args[i]!.pos));
    } else {
      args = args.map((a, i) => (a.type === 'NULL' ? castTo(this.env, a, 'DOUBLE', c.args[i]!.pos) : a));
    }
    const partitionBy = spec.partitionBy.map((e) =>
      bindExpr(e, inScope('window function is not allowed in PARTITION BY clause')),
    );
    const orderBy = spec.orderBy.map((o) => ({
      expr: bindExpr(o.expr, inScope('window function is not allowed in ORDER BY clause of a window')),
      desc: o.desc,
    }));
    // An anchored window restarts at each boundary: the anchor's value is one more partition key.
    if (spec.anchor) partitionBy.push(bindAnchor(spec.anchor, spec, orderBy, this.timestamp, argCx));
    const frame: BoundFrame = def.usesFrame
      ? bindFrame(
          this.env,
          spec,
          orderBy.map((o) => o.expr.type),
          this.scope,
        )
      : { unit: 'ROWS', start: -Infinity, end: Infinity };
    return {
      fn: def.name,
      args,
      partitionBy,
      orderBy,
      frame,
      offset,
      ignoreNulls: c.nulls === 'IGNORE',
      type,
      pos: c.pos,
    };
  }
}

/** The time units of a time-weighted EMA, in micros (singular and plural, any case). */
const EMA_UNITS: Readonly<Record<string, number>> = {
  microsecond: 1,
  millisecond: 1e3,
  second: 1e6,
  minute: 6e7,
  hour: 3.6e9,
  day: 8.64e10,
  week: 6.048e11,
};

/** QuestDB's EMA smoothing of avg(value, kind, param): alpha, or a time constant in micros. */
function emaSmoothing(env: StatementEnv, kind: BoundExpr, param: BoundExpr, c: A.Call): { alpha: number; tau: number } {
  const k = constValue(env, kind);
  const kindPos = c.args[1]!.pos;
  const paramPos = c.args[2]!.pos;
  if (k === undefined) throw new SvcError('SQL', 'kind parameter must be a constant', { position: kindPos });
  if (k === null) throw new SvcError('SQL', 'kind parameter cannot be null', { position: kindPos });
  const word = String(k).toLowerCase();
  const unit = EMA_UNITS[word.replace(/s$/, '')];
  if (word !== 'alpha' && word !== 'period' && unit === undefined)
    throw new SvcError(
      'SQL',
      "invalid kind parameter: expected 'alpha', 'period', or a time unit (second, minute, hour, day, week)",
      { position: kindPos },
    );
  const v = constValue(env, param);
  if (v === undefined) throw new SvcError('SQL', 'parameter value must be a constant', { position: paramPos });
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
    throw new SvcError('SQL', 'parameter value must be a positive number', { position: paramPos });
  if (word === 'alpha') {
    if (v > 1)
      throw new SvcError('SQL', 'alpha must be between 0 (exclusive) and 1 (inclusive)', { position: paramPos });
    return { alpha: v, tau: 0 };
  }
  if (word === 'period') return { alpha: 2 / (v + 1), tau: 0 };
  const tau = Math.trunc(v * unit!);
  if (tau < 1)
    throw new SvcError('SQL', 'time constant must be at least 1 unit in native timestamp precision', {
      position: kindPos,
    });
  return { alpha: 0, tau };
}

/** cume_dist and ntile work on whole partitions: a frame or EXCLUDE clause is an error (QuestDB's messages). */
function rejectFrame(name: string, f: A.WindowFrame | null): void {
  if (f === null) return;
  if (f.exclude !== null && f.exclude !== 'NO OTHERS')
    throw new SvcError('SQL', `${name}() does not support EXCLUDE clause`, { position: f.excludePos ?? f.pos });
  throw new SvcError('SQL', `${name}() does not support framing; remove the frame clause`, { position: f.start.pos });
}

/** ntile's bucket count: a constant positive integer. */
function bucketCount(env: StatementEnv, e: BoundExpr, pos: number): number {
  const v = constValue(env, e);
  if (v === undefined) throw new SvcError('SQL', 'ntile() bucket count must be a constant', { position: pos });
  if (v === null) throw new SvcError('SQL', 'ntile() bucket count cannot be NULL', { position: pos });
  if (typeof v !== 'number' || v <= 0 || v > 2147483647)
    throw new SvcError('SQL', 'ntile() bucket count must be a positive integer', { position: pos });
  return v;
}

/** lag / lead's offset: a constant non-negative integer. */
function offsetArg(env: StatementEnv, e: BoundExpr, pos: number): number {
  const v = constValue(env, e);
  if (v === undefined) throw new SvcError('SQL', 'offset must be a constant', { position: pos });
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0)
    throw new SvcError('SQL', 'offset must be a positive integer', { position: pos });
  return v;
}

/**
 * The frame of `spec` with the defaults: without ORDER BY the whole
 * partition, with it RANGE UNBOUNDED PRECEDING .. CURRENT ROW (peers
 * included). Bounds are checked in QuestDB's order with its messages.
 */
function bindFrame(env: StatementEnv, spec: A.WindowSpec, orderTypes: readonly SqlType[], scope: Scope): BoundFrame {
  const f = spec.frame;
  if (f === null)
    return spec.orderBy.length === 0
      ? { unit: 'ROWS', start: -Infinity, end: Infinity }
      : { unit: 'RANGE', start: -Infinity, end: 0 };
  if (f.unit === 'GROUPS') throw new SvcError('SQL', 'GROUPS frames are not supported', { position: f.pos });
  if (f.start.type === 'UNBOUNDED FOLLOWING')
    throw new SvcError('SQL', 'frame start cannot be UNBOUNDED FOLLOWING, use UNBOUNDED PRECEDING', {
      position: f.start.pos,
    });
  if (f.end.type === 'UNBOUNDED PRECEDING')
    throw new SvcError('SQL', 'frame end cannot be UNBOUNDED PRECEDING, use UNBOUNDED FOLLOWING', {
      position: f.end.pos,
    });
  const hasOffset = f.start.offset !== null || f.end.offset !== null;
  let keyType: SqlType | null = null;
  if (f.unit === 'RANGE' && hasOffset) {
    if (spec.orderBy.length !== 1)
      throw new SvcError('SQL', 'RANGE with an offset needs exactly one ORDER BY expression', { position: f.pos });
    keyType = orderTypes[0]!;
    if (!isNumeric(keyType) && !isTemporal(keyType)) {
      throw new SvcError(
        'SQL',
        `RANGE with an offset needs a numeric or timestamp ORDER BY expression, not ${keyType}`,
        { position: spec.orderBy[0]!.pos },
      );
    }
  }
  const start = boundValue(env, f.start, f.unit, keyType, scope);
  let end = boundValue(env, f.end, f.unit, keyType, scope);
  if (f.start.type === 'CURRENT ROW' && f.end.type === 'PRECEDING') {
    throw new SvcError('SQL', 'start row is CURRENT, end row not must be PRECEDING', { position: f.end.pos });
  }
  if (start > end)
    throw new SvcError('SQL', 'start of window must be lower than end of window', {
      position: f.start.offset?.pos ?? f.start.pos,
    });
  const excludePos = f.excludePos ?? f.pos;
  if (f.exclude === 'CURRENT ROW') {
    // As QuestDB: a frame ending at the current row then ends one row before it.
    if (f.unit !== 'ROWS' || end !== 0)
      throw new SvcError('SQL', 'EXCLUDE CURRENT ROW is supported only for ROWS frames ending at CURRENT ROW', {
        position: excludePos,
      });
    end = -1;
    if (start > end)
      throw new SvcError('SQL', 'end of window is higher than start of window due to exclusion mode', {
        position: excludePos,
      });
  } else if (f.exclude !== null && f.exclude !== 'NO OTHERS') {
    throw new SvcError('SQL', `EXCLUDE ${f.exclude} is not supported`, { position: excludePos });
  }
  return { unit: f.unit, start, end };
}

/** A bound as a signed distance (see BoundFrame), in rows or in the ORDER BY value's units. */
function boundValue(
  env: StatementEnv,
  b: A.FrameBound,
  unit: 'ROWS' | 'RANGE',
  keyType: SqlType | null,
  scope: Scope,
): number {
  switch (b.type) {
    case 'UNBOUNDED PRECEDING':
      return -Infinity;
    case 'UNBOUNDED FOLLOWING':
      return Infinity;
    case 'CURRENT ROW':
      return 0;
    default:
      break;
  }
  const e = b.offset!;
  const v = constValue(
    env,
    bindExpr(e, { env, scope, onAggregate: null, windowError: 'window function is not allowed in a frame' }),
  );
  if (v === undefined) throw new SvcError('SQL', 'constant expression expected', { position: e.pos });
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  if (typeof n !== 'number' || Number.isNaN(n))
    throw new SvcError('SQL', 'integer expression expected', { position: e.pos });
  if (n < 0) throw new SvcError('SQL', 'non-negative integer expression expected', { position: e.pos });
  let size = n;
  if (b.unit !== null) {
    const micros = UNIT_MICROS[b.unit];
    if (micros === undefined) throw new SvcError('SQL', `unsupported time unit [unit=${b.unit}]`, { position: e.pos });
    if (unit !== 'RANGE' || keyType === null || !isTemporal(keyType)) {
      throw new SvcError('SQL', 'a time unit needs a RANGE frame ordered by a TIMESTAMP or DATE', { position: e.pos });
    }
    size = n * micros;
  }
  // DATE values are milliseconds.
  if (keyType === 'DATE' && b.unit !== null) size /= 1000;
  if ((unit === 'ROWS' || keyType === 'TIMESTAMP') && !Number.isInteger(size)) {
    throw new SvcError('SQL', 'integer expression expected', { position: e.pos });
  }
  return b.type === 'PRECEDING' ? -size : size;
}
