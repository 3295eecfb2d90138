// SQL value types: the storage column types plus NULL (the type of the NULL
// literal), with QuestDB's implicit widening for arithmetic and comparison.
import {
  arrayDims,
  decimalSpec,
  decimalType,
  geohashBits,
  typeKind,
  DECIMAL_MAX_PRECISION,
  type ColumnType,
} from './column-type.js';

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

/** Where a numeric-like type sits in QuestDB's UNION widening (CHAR between SHORT and INT). */
const SET_OP_NUMERIC: readonly SqlType[] = [
  'BYTE',
  'SHORT',
  'CHAR',
  'INT',
  'LONG',
  'DATE',
  'TIMESTAMP',
  'TIMESTAMP_NS',
  'FLOAT',
  'DOUBLE',
];

/** Digits of an integer or temporal value as a DECIMAL (QuestDB's implicit integer -> DECIMAL), else null. */
function decimalDigits(t: SqlType): { precision: number; scale: number } | null {
  if (isDecimal(t)) return decimalSpec(t as ColumnType);
  switch (t) {
    case 'BYTE':
      return { precision: 3, scale: 0 };
    case 'SHORT':
      return { precision: 5, scale: 0 };
    case 'INT':
      return { precision: 10, scale: 0 };
    case 'LONG':
    case 'DATE':
    case 'TIMESTAMP':
      return { precision: 19, scale: 0 };
    default:
      return null;
  }
}

/**
 * The type a column of a set operation (UNION, EXCEPT, INTERSECT) takes when its two sides
 * have types `a` and `b`, after QuestDB's union cast rules (they never fail; what has no
 * better common type becomes STRING):
 * - the same type stays (SYMBOL with SYMBOL too);
 * - STRING with anything is STRING; otherwise VARCHAR with anything is VARCHAR;
 * - numbers and times widen BYTE < SHORT < INT < LONG < DATE < TIMESTAMP < FLOAT < DOUBLE
 *   (TIMESTAMP_NS the finer timestamp), CHAR sits between SHORT and INT (BYTE with CHAR is
 *   STRING), TIMESTAMP with SYMBOL is TIMESTAMP;
 * - DECIMAL with DECIMAL or an integer (or a DATE / TIMESTAMP, 19 digits) keeps the larger
 *   scale and integer part; DECIMAL with other text than SYMBOL keeps the DECIMAL;
 * - arrays meet arrays at the deeper depth, a DOUBLE as the array, anything else as VARCHAR;
 * - GEOHASH with GEOHASH takes the fewer bits, with STRING / VARCHAR the GEOHASH;
 * - NULL takes the other side's type, except CHAR and SYMBOL (STRING), and a GEOHASH or
 *   DECIMAL (STRING) or array (VARCHAR), as QuestDB's matrix has it;
 * - everything else (BOOLEAN, UUID, IPV4, LONG256, BINARY, ... with another type) is STRING.
 */
export function setOpType(a: SqlType, b: SqlType): SqlType {
  if (a === b) return a;
  const stringy = (t: SqlType): boolean => t === 'STRING' || t === 'VARCHAR';
  const isArr = (t: SqlType): boolean => t !== 'NULL' && typeKind(t) === 'ARRAY';
  if (isArr(a) || isArr(b)) {
    if (isArr(a) && isArr(b)) return arrayDims(a as ColumnType) >= arrayDims(b as ColumnType) ? a : b;
    const other = isArr(a) ? b : a;
    if (other === 'DOUBLE') return isArr(a) ? a : b;
    return other === 'STRING' ? 'STRING' : 'VARCHAR';
  }
  const isGeo = (t: SqlType): boolean => t !== 'NULL' && typeKind(t) === 'GEOHASH';
  if (isGeo(a) !== isGeo(b)) return stringy(a) ? b : stringy(b) ? a : 'STRING';
  if (isGeo(a)) return geohashBits(a as ColumnType) <= geohashBits(b as ColumnType) ? a : b;
  if (isDecimal(a) || isDecimal(b)) {
    const x = decimalDigits(a),
      y = decimalDigits(b);
    if (x !== null && y !== null) {
      const scale = Math.max(x.scale, y.scale);
      return decimalType(
        Math.min(DECIMAL_MAX_PRECISION, Math.max(x.precision - x.scale, y.precision - y.scale) + scale),
        scale,
      );
    }
    return stringy(a) ? b : stringy(b) ? a : 'STRING';
  }
  if (a === 'STRING' || b === 'STRING') return 'STRING';
  if (a === 'VARCHAR' || b === 'VARCHAR') return 'VARCHAR';
  if (a === 'NULL' || b === 'NULL') {
    const other = a === 'NULL' ? b : a;
    return other === 'CHAR' || other === 'SYMBOL' ? 'STRING' : other;
  }
  if ((a === 'SYMBOL' && isTimestampType(b)) || (b === 'SYMBOL' && isTimestampType(a))) return a === 'SYMBOL' ? b : a;
  const ia = SET_OP_NUMERIC.indexOf(a),
    ib = SET_OP_NUMERIC.indexOf(b);
  if (ia < 0 || ib < 0) return 'STRING';
  if ((a === 'BYTE' && b === 'CHAR') || (a === 'CHAR' && b === 'BYTE')) return 'STRING';
  return SET_OP_NUMERIC[Math.max(ia, ib)]!;
}

function isTimestampType(t: SqlType): boolean {
  return t === 'TIMESTAMP' || t === 'TIMESTAMP_NS';
}
