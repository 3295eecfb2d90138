// SQL value types: the storage column types plus NULL (the type of the NULL
// literal), with QuestDB's implicit widening for arithmetic and comparison.
import { decimalSpec, decimalType, typeKind, DECIMAL_MAX_PRECISION, type ColumnType } from './column-type.js';

export type SqlType = ColumnType | 'NULL';

const INTEGRAL: readonly SqlType[] = ['BYTE', 'SHORT', 'INT', 'LONG'];
const NUMERIC_ORDER: readonly SqlType[] = ['BYTE', 'SHORT', 'INT', 'LONG', 'FLOAT', 'DOUBLE'];

export function isIntegral(t: SqlType): boolean {
  return INTEGRAL.includes(t);
}
export function isNumeric(t: SqlType): boolean {
  return NUMERIC_ORDER.includes(t);
}
/** STRING, VARCHAR, SYMBOL and CHAR: values that read as text. */
export function isText(t: SqlType): boolean {
  return t === 'STRING' || t === 'VARCHAR' || t === 'SYMBOL' || t === 'CHAR';
}
export function isTemporal(t: SqlType): boolean {
  return t === 'TIMESTAMP' || t === 'DATE';
}
export function isDecimal(t: SqlType): boolean {
  return t !== 'NULL' && typeKind(t) === 'DECIMAL';
}

/**
 * The DECIMAL two values meet in (comparison, CASE, IN): the larger scale, and
 * room for the larger integer part (an integer counts as DECIMAL(19,0)).
 */
export function commonDecimal(a: SqlType, b: SqlType): ColumnType {
  const spec = (t: SqlType): { precision: number; scale: number } =>
    isDecimal(t) ? decimalSpec(t as ColumnType) : { precision: 19, scale: 0 };
  const x = spec(a),
    y = spec(b);
  const scale = Math.max(x.scale, y.scale);
  return decimalType(
    Math.min(DECIMAL_MAX_PRECISION, Math.max(x.precision - x.scale, y.precision - y.scale) + scale),
    scale,
  );
}

/** The wider of two numeric types (INT + LONG -> LONG, LONG + DOUBLE -> DOUBLE); NULL adopts the other. */
export function widerNumeric(a: SqlType, b: SqlType): SqlType | null {
  if (a === 'NULL') return isNumeric(b) ? b : null;
  if (b === 'NULL') return isNumeric(a) ? a : null;
  const ia = NUMERIC_ORDER.indexOf(a),
    ib = NUMERIC_ORDER.indexOf(b);
  if (ia < 0 || ib < 0) return null;
  // Arithmetic on small integers happens in INT, as in QuestDB.
  const w = NUMERIC_ORDER[Math.max(ia, ib, 2)]!;
  return w;
}

/**
 * The type two values are combined in (CASE branches, UNION columns,
 * coalesce, IN lists), or null when they do not mix, after QuestDB's CASE
 * rules: numbers widen; text types meet in VARCHAR when either is VARCHAR,
 * else STRING (SYMBOL with SYMBOL stays SYMBOL); TIMESTAMP with DATE is
 * TIMESTAMP; UUID takes STRING and VARCHAR. A TIMESTAMP does not mix with a
 * number or a text column (the binder parses text constants next to one:
 * unify in bind-expr.ts).
 */
export function commonType(a: SqlType, b: SqlType): SqlType | null {
  if (a === b) return a;
  if (a === 'NULL') return b;
  if (b === 'NULL') return a;
  if (isDecimal(a) || isDecimal(b)) {
    // Decimals meet decimals and integers exactly, floating values as DOUBLE.
    const other = isDecimal(a) ? b : a;
    if (isDecimal(other) || isIntegral(other)) return commonDecimal(a, b);
    return other === 'DOUBLE' || other === 'FLOAT' ? 'DOUBLE' : null;
  }
  if (isNumeric(a) && isNumeric(b)) {
    const ia = NUMERIC_ORDER.indexOf(a),
      ib = NUMERIC_ORDER.indexOf(b);
    return NUMERIC_ORDER[Math.max(ia, ib)]!;
  }
  if (isText(a) && isText(b)) return a === 'VARCHAR' || b === 'VARCHAR' ? 'VARCHAR' : 'STRING';
  if (isTemporal(a) && isTemporal(b)) return 'TIMESTAMP';
  // TIMESTAMP_NS with a TIMESTAMP or DATE: the finer unit.
  if ((a === 'TIMESTAMP_NS' && isTemporal(b)) || (b === 'TIMESTAMP_NS' && isTemporal(a))) return 'TIMESTAMP_NS';
  if ((a === 'UUID' && (b === 'STRING' || b === 'VARCHAR')) || (b === 'UUID' && (a === 'STRING' || a === 'VARCHAR')))
    return 'UUID';
  return null;
}
