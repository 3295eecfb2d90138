// generate_series(start, end[, step]) in FROM (QuestDB's page): LONG, DOUBLE, TIMESTAMP or
// TIMESTAMP_NS values from start to end inclusive. A positive step counts up from the lower bound,
// a negative one down from the upper bound (so '-5d' between two dates starts at the later one);
// the step of a timestamp series is a period ('5d', '-30s', '100U', '500n') or a number of the
// series' unit (micros; nanos for a TIMESTAMP_NS series, which either bound being one makes). The arguments are
// constants, so the series is known when the statement is bound: it becomes the query
// `SELECT first + (x - 1) * step generate_series FROM long_sequence(count)`, which binds and runs
// like any other (lazily, a batch at a time).
import { SvcError } from '../errors/svc-error.js';
import type * as A from './ast.js';
import { bindExpr, castTo } from './bind-expr.js';
import { constArg, constValue } from './const-value.js';
import type { BoundExpr } from './bound.js';
import { isNumeric } from '../core/sql-type.js';
import { pairsOf, isNullPair } from '../core/nanos.js';
import type { StatementEnv } from './statement-env.js';
import { unitMicros, type SampleUnit } from './sample-by.js';

/** Most rows one series may have (a bound against a typo such as a step of 1 over a century of micros). */
const MAX_ROWS = 2 ** 31 - 1;

/** The query text generate_series(...) stands for. */
export function seriesQuery(call: A.Call, env: StatementEnv): string {
  const args = call.args;
  if (args.length < 2 || args.length > 3) {
    throw new SvcError('SQL', 'generate_series takes a start, an end and an optional step', { position: call.pos });
  }
  const bound = args.map((a) => bindExpr(a, { env, scope: { fields: [] }, onAggregate: null }));
  const constant = (i: number, type: 'LONG' | 'DOUBLE' | 'TIMESTAMP'): number => {
    const v = constValue(env, castTo(env, bound[i]!, type, args[i]!.pos));
    if (typeof v !== 'number' || v !== v) {
      throw new SvcError('SQL', 'generate_series arguments must be constants and not NULL', { position: args[i]!.pos });
    }
    return v;
  };
  const t0 = bound[0]!.type;
  const isTime = (t: string): boolean =>
    t === 'TIMESTAMP' || t === 'TIMESTAMP_NS' || t === 'DATE' || t === 'STRING' || t === 'VARCHAR';
  if ((t0 === 'TIMESTAMP_NS' || bound[1]!.type === 'TIMESTAMP_NS') && isTime(t0) && isTime(bound[1]!.type))
    return nanosSeries(call, env, bound);
  let kind: 'LONG' | 'DOUBLE' | 'TIMESTAMP';
  if (t0 === 'TIMESTAMP' || t0 === 'DATE' || t0 === 'STRING' || t0 === 'VARCHAR') kind = 'TIMESTAMP';
  else if (isNumeric(t0) && isNumeric(bound[1]!.type)) {
    kind = [t0, bound[1]!.type, bound[2]?.type].some((t) => t === 'DOUBLE' || t === 'FLOAT') ? 'DOUBLE' : 'LONG';
  } else {
    throw new SvcError('SQL', `generate_series takes numbers or timestamps, not ${t0}`, { position: args[0]!.pos });
  }
  const a = constant(0, kind);
  const b = constant(1, kind);
  let step: number;
  if (args.length === 2) {
    if (kind === 'TIMESTAMP')
      throw new SvcError('SQL', 'a timestamp series needs a step, such as 1d', { position: call.pos });
    step = 1;
  } else if (kind === 'TIMESTAMP' && bound[2]!.type !== 'LONG' && bound[2]!.type !== 'INT') {
    const nanos = periodNanos(env, bound[2]!, args[2]!.pos);
    if (nanos % 1000n !== 0n) {
      throw new SvcError('SQL', 'a TIMESTAMP series steps by whole microseconds; use TIMESTAMP_NS bounds for nanos', {
        position: args[2]!.pos,
      });
    }
    step = Number(nanos / 1000n);
  } else step = constant(2, kind === 'TIMESTAMP' ? 'LONG' : kind);
  if (step === 0)
    throw new SvcError('SQL', 'generate_series step cannot be zero', { position: args[2]?.pos ?? call.pos });
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  const count = Math.floor((hi - lo) / Math.abs(step) + 1e-9) + 1;
  if (count > MAX_ROWS) {
    throw new SvcError('SQL', `generate_series would make ${count} rows, more than ${MAX_ROWS}`, {
      position: call.pos,
    });
  }
  const first = step > 0 ? lo : hi;
  const num = (x: number): string => (Number.isInteger(x) && Math.abs(x) < 2 ** 53 ? `${x}` : `CAST('${x}' AS DOUBLE)`);
  let value: string;
  if (kind === 'LONG') value = `CAST(${num(first)} AS LONG) + (x - 1) * CAST(${num(step)} AS LONG)`;
  else if (kind === 'DOUBLE') value = `CAST(${num(first)} AS DOUBLE) + (x - 1) * CAST(${num(step)} AS DOUBLE)`;
  else value = `CAST(CAST(${num(first)} AS LONG) + (x - 1) * CAST(${num(step)} AS LONG) AS TIMESTAMP)`;
  return `SELECT ${value} generate_series FROM long_sequence(${count})`;
}

/** A period step ('500n', '-5d', '100U') in nanoseconds. */
function periodNanos(env: StatementEnv, step: BoundExpr, pos: number): bigint {
  const text = constValue(env, castTo(env, step, 'STRING', pos));
  const m = typeof text === 'string' ? /^\s*(-?\d+)\s*(n|U|T|s|m|h|d|w)\s*$/.exec(text) : null;
  if (m === null) {
    throw new SvcError(
      'SQL',
      `invalid period [value=${String(text)}]: expected a number and a unit (n, U, T, s, m, h, d, w)`,
      {
        position: pos,
      },
    );
  }
  return m[2] === 'n' ? BigInt(m[1]!) : BigInt(m[1]!) * BigInt(unitMicros(m[2] as SampleUnit)) * 1000n;
}

/**
 * A TIMESTAMP_NS series: the bounds' exact int64 nanos (past a double's 2^53), the step a period or
 * a number of nanos, the rows `CAST(first + (x - 1) * step AS TIMESTAMP_NS)` in exact LONG arithmetic.
 */
function nanosSeries(call: A.Call, env: StatementEnv, bound: readonly BoundExpr[]): string {
  const args = call.args;
  const bigConst = (i: number, type: 'TIMESTAMP_NS' | 'LONG'): bigint => {
    const v = constArg(env, castTo(env, bound[i]!, type, args[i]!.pos)).vector;
    const p = v === undefined ? null : pairsOf(v);
    if (p === null || isNullPair(p, 0)) {
      throw new SvcError('SQL', 'generate_series arguments must be constants and not NULL', { position: args[i]!.pos });
    }
    return (BigInt(p[1]!) << 32n) + BigInt(p[0]! >>> 0);
  };
  const a = bigConst(0, 'TIMESTAMP_NS');
  const b = bigConst(1, 'TIMESTAMP_NS');
  if (args.length === 2)
    throw new SvcError('SQL', 'a timestamp series needs a step, such as 1d', { position: call.pos });
  const t2 = bound[2]!.type;
  const step =
    t2 === 'LONG' || t2 === 'INT' || t2 === 'SHORT' || t2 === 'BYTE'
      ? bigConst(2, 'LONG')
      : periodNanos(env, bound[2]!, args[2]!.pos);
  if (step === 0n) throw new SvcError('SQL', 'generate_series step cannot be zero', { position: args[2]!.pos });
  const lo = a < b ? a : b;
  const hi = a < b ? b : a;
  const abs = step < 0n ? -step : step;
  const count = (hi - lo) / abs + 1n;
  if (count > BigInt(MAX_ROWS)) {
    throw new SvcError('SQL', `generate_series would make ${count} rows, more than ${MAX_ROWS}`, {
      position: call.pos,
    });
  }
  const first = step > 0n ? lo : hi;
  return `SELECT CAST(${first}L + (x - 1) * ${step}L AS TIMESTAMP_NS) generate_series FROM long_sequence(${count})`;
}
