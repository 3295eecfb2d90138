// Values of constant bound expressions at bind time, for the functions'
// bind-time checks: a literal, or a deterministic call whose arguments are all
// constant, evaluated once on a one-row batch (so `-1`, `cast('3' AS INT)` or
// `to_timestamp('2015', 'yyyy')` are seen as the values they are).
import { isSvcError, SvcError } from '../errors/svc-error.js';
import type { ColumnVector } from '../storage/column-vector.js';
import type { BoundExpr } from './bound.js';
import type { ConstValue } from './functions/registry.js';
import { asDoubles, constantVector, textAt } from './functions/vec.js';
import { isText } from './sql-type.js';

/** The value of `e` when it is constant (null for NULL), else undefined. */
export function constValue(e: BoundExpr): ConstValue | undefined {
  if (e.kind === 'const') return e.value;
  const v = evaluate(e);
  return v === undefined ? undefined : read(v);
}

/** One row of `e` when it is constant, else undefined. */
function evaluate(e: BoundExpr): ColumnVector | undefined {
  if (e.kind === 'const') return e.type === 'UUID' || e.type === 'LONG256' ? undefined : constantVector(e.type, e.value, 1);
  if (e.kind !== 'call' || e.fn.deterministic !== true) return undefined;
  const args: ColumnVector[] = [];
  for (const a of e.args) {
    const v = evaluate(a);
    if (v === undefined) return undefined;
    args.push(v);
  }
  try {
    return e.fn.kernel(args, 1);
  } catch (err) {
    if (isSvcError(err) && err.position === undefined) throw new SvcError(err.code, err.message, { position: e.pos, cause: err });
    throw err;
  }
}

/** Row 0 as a JS value: numbers (NULL -> null), text; undefined for types without one (UUID, LONG256, BINARY). */
function read(v: ColumnVector): ConstValue | undefined {
  if (isText(v.type)) return textAt(v, 0);
  if (v.kind !== 'fixed' || v.type === 'UUID' || v.type === 'LONG256') return undefined;
  const x = asDoubles(v)[0]!;
  if (v.type === 'BOOLEAN') return x !== 0;
  return x !== x ? null : x;
}
