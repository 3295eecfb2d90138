// Values of constant bound expressions at bind time, for the functions'
// bind-time checks: a literal, or a deterministic call whose arguments are all
// constant, evaluated once on a one-row batch (so `-1`, `cast('3' AS INT)` or
// `to_timestamp('2015', 'yyyy')` are seen as the values they are). A value
// past the limits of this bind-time evaluation is not known here: the run time,
// with the statement's configured limits, decides about it.
import { isSvcError, SvcError } from '../errors/svc-error.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { BoundExpr } from './bound.js';
import type { StatementEnv } from './statement-env.js';
import { standaloneKernelContext, type ConstValue } from '../functions/registry.js';
import { isLimitError } from '../functions/text-out.js';
import { asDoubles, constantVector, textAt } from '../core/vec.js';
import { isText } from '../core/sql-type.js';
import { isByteRows } from '../core/column-type.js';

/** One row at bind time needs little: a value past this (or QuestDB's default 1 MiB per built text) is left to run time. */
const BIND_TIME_MEMORY = 16 * 1024 * 1024;

/** Whether `e` is the same for every row: a literal or a deterministic call of such. */
export function isConstant(e: BoundExpr): boolean {
  if (e.kind === 'const') return true;
  return e.kind === 'call' && e.fn.deterministic === true && e.args.every(isConstant);
}

/** The value of `e` when it is constant (null for NULL), else undefined. */
export function constValue(env: StatementEnv, e: BoundExpr): ConstValue | undefined {
  return constArg(env, e).value;
}

/** A constant `e` as a JS value (undefined for types without one) and as a one-row vector; both undefined when not constant. */
export function constArg(
  env: StatementEnv,
  e: BoundExpr,
): { value: ConstValue | undefined; vector: ColumnVector | undefined } {
  const v = evaluate(env, e);
  return { value: e.kind === 'const' ? e.value : v === undefined ? undefined : read(v), vector: v };
}

/** Functions of the statement's time alone: the same for every row of a statement (QuestDB's runtime constants). */
const STATEMENT_TIME = new Set(['now', 'today', 'yesterday', 'tomorrow']);

/**
 * One row of `e` when it is the same for every row of the statement: a constant, or calls of
 * constants and of the statement's time (now(), today('Europe/London')), else undefined.
 */
export function statementValue(env: StatementEnv, e: BoundExpr): ColumnVector | undefined {
  return evaluate(env, e, true);
}

/** One row of `e` when it is constant (with `statementTime`, also of the statement's time), else undefined. */
function evaluate(env: StatementEnv, e: BoundExpr, statementTime = false): ColumnVector | undefined {
  if (e.kind === 'const')
    return e.type === 'UUID' || e.type === 'LONG256' ? undefined : constantVector(e.type, e.value, 1);
  if (e.kind !== 'call') return undefined;
  if (e.fn.deterministic !== true && !(statementTime && STATEMENT_TIME.has(e.name.toLowerCase()))) return undefined;
  const args: ColumnVector[] = [];
  for (const a of e.args) {
    const v = evaluate(env, a, statementTime);
    if (v === undefined) return undefined;
    args.push(v);
  }
  const given = e.runArgs ? e.runArgs.map((i) => args[i]!) : args;
  try {
    return e.fn.kernel(given, 1, standaloneKernelContext(env.statementMicros, BIND_TIME_MEMORY));
  } catch (err) {
    if (isLimitError(err)) return undefined;
    if (isSvcError(err) && err.position === undefined)
      throw new SvcError(err.code, err.message, { position: e.pos, cause: err });
    throw err;
  }
}

/** Row 0 as a JS value: numbers (NULL -> null), text; undefined for types without one (UUID, LONG256, BINARY). */
function read(v: ColumnVector): ConstValue | undefined {
  if (isText(v.type)) return textAt(v, 0);
  if (v.kind !== 'fixed' || isByteRows(v.type)) return undefined;
  const x = asDoubles(v)[0]!;
  if (v.type === 'BOOLEAN') return x !== 0;
  return x !== x ? null : x;
}
