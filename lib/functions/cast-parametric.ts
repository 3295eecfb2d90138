// Casts to and from the parametric types GEOHASH and DECIMAL: text parses
// (text that is not one is QuestDB's `inconvertible value`), numbers scale exactly (a value too wide for the precision
// is QuestDB's `inconvertible value`), decimals rescale (half away from zero)
// and truncate to integers, geohashes narrow to fewer bits (never widen).
import { SvcError } from '../errors/svc-error.js';
import { decimalSpec, geohashBits, typeInfo, typeKind, typeName, type ColumnType } from '../core/column-type.js';
import { nullVector, type ColumnVector, type FixedVector } from '../core/column-vector.js';
import type { Kernel } from './registry.js';
import { isIntegral, isText, type SqlType } from '../core/sql-type.js';
import { asDoubles, fromDoubles, textAt } from '../core/vec.js';
import {
  decimalAt,
  decimalOverflow,
  fitsPrecision,
  formatDecimal,
  parseDecimalText,
  pow10,
  putDecimal,
  rescale,
} from '../core/decimal.js';
import { geohashAt, geohashFromText, narrowGeohash, putGeohash } from '../core/geohash.js';
import { formatLong } from '../core/number-format.js';
import { arraysFromUserTexts } from '../core/array-values.js';

/** The kernel of a cast between `from` and `to` when either is GEOHASH or DECIMAL, or null when QuestDB cannot cast it. */
export function parametricCastKernel(from: SqlType, to: ColumnType): Kernel | null {
  const toKind = typeKind(to);
  if (toKind === 'DECIMAL') return toDecimal(from, to);
  if (toKind === 'GEOHASH') return toGeohash(from, to);
  // Text to DOUBLE[]...: the array's text, whitespace allowed; text that is no such array is NULL.
  if (toKind === 'ARRAY' && (from === 'STRING' || from === 'VARCHAR' || from === 'SYMBOL'))
    return (args, n) => {
      const v = args[0]!;
      return arraysFromUserTexts(
        to,
        Array.from({ length: n }, (_, i) => textAt(v, i)),
      );
    };
  if (from !== 'NULL' && typeKind(from) === 'DECIMAL') return fromDecimal(from, to);
  return null;
}

/** Builds a DECIMAL vector row by row from unscaled values (null: NULL). */
function decimalVector(
  to: ColumnType,
  n: number,
  valueAt: (i: number) => bigint | null,
  shownAt: (i: number) => string,
  from: SqlType,
): FixedVector {
  const { precision } = decimalSpec(to);
  const w = typeInfo(to).width;
  const out = nullVector(to, n) as FixedVector;
  const b = out.data as Uint8Array;
  for (let i = 0; i < n; i++) {
    const x = valueAt(i);
    if (x === null) continue;
    if (!fitsPrecision(x, precision)) throw decimalOverflow(shownAt(i), from, to);
    putDecimal(b, i, w, x);
  }
  return out;
}

function toDecimal(from: SqlType, to: ColumnType): Kernel | null {
  const { scale } = decimalSpec(to);
  if (from === 'STRING' || from === 'VARCHAR' || from === 'SYMBOL') {
    return (args, n) => {
      const v = args[0]!;
      // Text that is no number is as much an error as one too wide (QuestDB's); NULL stays NULL.
      return decimalVector(
        to,
        n,
        (i) => {
          const t = textAt(v, i);
          if (t === null) return null;
          const x = parseDecimalText(t, scale);
          if (x === null) throw decimalOverflow(`\`${t}\``, from, to);
          return x;
        },
        (i) => `\`${textAt(v, i)}\``,
        from,
      );
    };
  }
  if (isIntegral(from)) {
    const k = pow10(scale);
    return (args, n) => {
      const v = args[0] as FixedVector;
      const d = asDoubles(v);
      // A LONG past 2^53 takes its exact int64 pair.
      const intAt = (i: number): bigint | null =>
        d[i]! !== d[i]! ? null : BigInt(from === 'LONG' ? formatLong(d[i], v.exact, i) : d[i]);
      return decimalVector(
        to,
        n,
        (i) => {
          const x = intAt(i);
          return x === null ? null : x * k;
        },
        (i) => String(intAt(i)),
        from,
      );
    };
  }
  if (from === 'DOUBLE' || from === 'FLOAT') {
    return (args, n) => {
      const d = asDoubles(args[0]!);
      // The shortest text that reads back as the double: what the user wrote, not its binary expansion.
      return decimalVector(
        to,
        n,
        (i) => (Number.isFinite(d[i]!) ? parseDecimalText(String(d[i]!), scale) : null),
        (i) => String(d[i]!),
        from,
      );
    };
  }
  if (from !== 'NULL' && typeKind(from) === 'DECIMAL') {
    const src = decimalSpec(from);
    const w = typeInfo(from).width;
    return (args, n) => {
      const b = (args[0] as FixedVector).data as Uint8Array;
      return decimalVector(
        to,
        n,
        (i) => {
          const x = decimalAt(b, i, w);
          return x === null ? null : rescale(x, src.scale, scale);
        },
        (i) => formatDecimal(decimalAt(b, i, w)!, src.scale),
        from,
      );
    };
  }
  return null;
}

function fromDecimal(from: ColumnType, to: SqlType): Kernel | null {
  const { scale } = decimalSpec(from);
  const w = typeInfo(from).width;
  const k = pow10(scale);
  if (to === 'DOUBLE' || to === 'FLOAT') {
    return (args, n) => {
      const b = (args[0] as FixedVector).data as Uint8Array;
      const out = new Float64Array(n);
      // Through the text: the nearest double to the exact value.
      for (let i = 0; i < n; i++) {
        const x = decimalAt(b, i, w);
        out[i] = x === null ? NaN : Number(formatDecimal(x, scale));
      }
      return fromDoubles(to, out);
    };
  }
  if (isIntegral(to)) {
    const bits = to === 'LONG' ? 64 : to === 'INT' ? 32 : to === 'SHORT' ? 16 : 8;
    return (args, n) => {
      const b = (args[0] as FixedVector).data as Uint8Array;
      const out = new Float64Array(n);
      // Truncated toward zero, then narrowed by bits as Java's casts do.
      for (let i = 0; i < n; i++) {
        const x = decimalAt(b, i, w);
        out[i] = x === null ? (to === 'INT' || to === 'LONG' ? NaN : 0) : Number(BigInt.asIntN(bits, x / k));
      }
      return fromDoubles(to, out);
    };
  }
  return null;
}

function toGeohash(from: SqlType, to: ColumnType): Kernel | null {
  const bits = geohashBits(to);
  const w = typeInfo(to).width;
  if (isText(from) && from !== 'CHAR') {
    return (args, n) => {
      const v = args[0]!;
      const out = nullVector(to, n) as FixedVector;
      const b = out.data as Uint8Array;
      for (let i = 0; i < n; i++) {
        const t = textAt(v, i);
        // NULL and '' are NULL; text that is not base32 or has too few chars for the bits is an error, as in QuestDB.
        if (t === null || t.length === 0) continue;
        const x = geohashFromText(t, bits);
        if (x === null) throw new SvcError('SQL', `inconvertible value: \`${t}\` [${typeName(from)} -> ${to}]`);
        putGeohash(b, i, w, x);
      }
      return out;
    };
  }
  if (from !== 'NULL' && typeKind(from) === 'GEOHASH') {
    // A hash narrows to fewer bits (its first ones); it never widens, as in QuestDB.
    const fromBits = geohashBits(from);
    if (fromBits < bits) return null;
    const fw = typeInfo(from).width;
    return (args, n): ColumnVector => {
      const src = (args[0] as FixedVector).data as Uint8Array;
      const out = nullVector(to, n) as FixedVector;
      const b = out.data as Uint8Array;
      for (let i = 0; i < n; i++) {
        const x = geohashAt(src, i, fw);
        if (x !== null) putGeohash(b, i, w, narrowGeohash(x, fromBits, bits));
      }
      return out;
    };
  }
  return null;
}
