// DECIMAL arithmetic `+ - * /` and unary minus: exact bigint arithmetic on the
// unscaled values, result types as QuestDB's DECIMAL page gives them; integer
// operands join as DECIMAL(n,0), DOUBLE/FLOAT operands are refused (no implicit
// double -> decimal). NULL in -> NULL out; overflow and division by zero are errors.
import { SvcError } from '../errors/svc-error.js';
import {
  decimalSpec,
  decimalType,
  typeInfo,
  typeKind,
  DECIMAL_MAX_PRECISION,
  type ColumnType,
} from '../core/column-type.js';
import { nullVector, type FixedVector } from '../core/column-vector.js';
import { decimalAt, fitsPrecision, pow10, putDecimal } from '../core/decimal.js';
import type { SqlType } from '../core/sql-type.js';
import type { Kernel } from './registry.js';
import type { Signature } from './signature.js';

export type DecimalOp = '+' | '-' | '*' | '/';

const MAX = DECIMAL_MAX_PRECISION;

/** Digits of an integer type as a DECIMAL (scale 0): BYTE 3, SHORT 5, INT 10, LONG 19. */
const INTEGER_DIGITS: Partial<Record<SqlType, number>> = { BYTE: 3, SHORT: 5, INT: 10, LONG: 19 };

const isDecimalType = (t: SqlType): boolean => t !== 'NULL' && typeKind(t) === 'DECIMAL';

/** An operand as its DECIMAL type: a DECIMAL itself, an integer as DECIMAL(digits,0), else null. */
function asDecimalOperand(t: SqlType): ColumnType | null {
  if (isDecimalType(t)) return t as ColumnType;
  const digits = INTEGER_DIGITS[t];
  return digits === undefined ? null : decimalType(digits, 0);
}

/**
 * The result type of `a op b` (QuestDB's DECIMAL page): + and - keep the larger
 * scale with one more integer digit than the wider operand; * adds precisions and
 * scales; / keeps the larger scale at the largest precision. All capped at 76 digits.
 */
export function decimalResultType(op: DecimalOp, a: ColumnType, b: ColumnType): ColumnType {
  const x = decimalSpec(a),
    y = decimalSpec(b);
  switch (op) {
    case '+':
    case '-': {
      const scale = Math.max(x.scale, y.scale);
      const int = Math.max(x.precision - x.scale, y.precision - y.scale);
      return decimalType(Math.min(int + scale + 1, MAX), scale);
    }
    case '*': {
      const scale = Math.min(x.scale + y.scale, MAX);
      return decimalType(Math.max(scale, Math.min(x.precision + y.precision, MAX)), scale);
    }
    case '/':
      return decimalType(MAX, Math.max(x.scale, y.scale));
  }
}

/** n / d (d != 0) rounded to the nearest integer, ties to even (QuestDB's HALF_EVEN). */
export function divHalfEven(n: bigint, d: bigint): bigint {
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const q = n / d;
  const r = n % d;
  if (r === 0n) return q;
  const twice = (r < 0n ? -r : r) * 2n;
  if (twice < d || (twice === d && q % 2n === 0n)) return q;
  return n < 0n ? q - 1n : q + 1n;
}

const OP_NAME: Record<DecimalOp, string> = {
  '+': 'addition',
  '-': 'subtraction',
  '*': 'multiplication',
  '/': 'division',
};

function opError(op: string, what: string, position: number): SvcError {
  return new SvcError('SQL', `'${op}' operation failed: ${what}`, { position });
}

/**
 * The exact unscaled result of `x op y` (x at scale sx, y at sy) at the result
 * scale `s`: + - * exact (a product past scale 76 rounds half to even), / rounded
 * half to even. Null for division by zero.
 */
export function decimalCompute(op: DecimalOp, x: bigint, sx: number, y: bigint, sy: number, s: number): bigint | null {
  switch (op) {
    case '+':
      return x * pow10(s - sx) + y * pow10(s - sy);
    case '-':
      return x * pow10(s - sx) - y * pow10(s - sy);
    case '*': {
      const p = x * y;
      const ps = sx + sy;
      return ps > s ? divHalfEven(p, pow10(ps - s)) : p * pow10(s - ps);
    }
    case '/':
      // x/10^sx / (y/10^sy) at scale s = x * 10^(sy + s) / (y * 10^sx)
      if (y === 0n) return null;
      return divHalfEven(x * pow10(sy + s), y * pow10(sx));
  }
}

/** The kernel of `a op b` over two DECIMAL vectors, errors at `position` (the operator's). */
export function decimalBinaryKernel(
  op: DecimalOp,
  a: ColumnType,
  b: ColumnType,
  out: ColumnType,
  position: number,
): Kernel {
  const sa = decimalSpec(a).scale,
    sb = decimalSpec(b).scale;
  const { precision, scale } = decimalSpec(out);
  const wa = typeInfo(a).width,
    wb = typeInfo(b).width,
    w = typeInfo(out).width;
  return (args, n) => {
    const da = (args[0] as FixedVector).data as Uint8Array,
      db = (args[1] as FixedVector).data as Uint8Array;
    const res = nullVector(out, n) as FixedVector;
    const o = res.data as Uint8Array;
    for (let i = 0; i < n; i++) {
      const x = decimalAt(da, i, wa),
        y = decimalAt(db, i, wb);
      if (x === null || y === null) continue;
      const r = decimalCompute(op, x, sa, y, sb, scale);
      if (r === null) throw opError(op, 'Division by zero', position);
      if (!fitsPrecision(r, precision))
        throw opError(op, `Overflow in ${OP_NAME[op]}: result exceeds maximum precision`, position);
      putDecimal(o, i, w, r);
    }
    return res;
  };
}

/** Unary minus of a DECIMAL vector: the same type (the range is symmetric). */
function decimalNegKernel(t: ColumnType): Kernel {
  const w = typeInfo(t).width;
  return (args, n) => {
    const d = (args[0] as FixedVector).data as Uint8Array;
    const res = nullVector(t, n) as FixedVector;
    const o = res.data as Uint8Array;
    for (let i = 0; i < n; i++) {
      const x = decimalAt(d, i, w);
      if (x !== null) putDecimal(o, i, w, -x);
    }
    return res;
  };
}

const decimalIntegerOrNull = (t: SqlType): SqlType | null => (t === 'NULL' ? 'NULL' : asDecimalOperand(t));

/**
 * `op` over a DECIMAL and a DECIMAL, an integer or NULL (either side): the
 * integer is cast to DECIMAL(digits,0), NULL to the other side's type. Two
 * integers or NULLs are left to the numeric overloads (listed first).
 */
export function decimalSig(op: DecimalOp): Signature {
  return {
    args: [decimalIntegerOrNull, decimalIntegerOrNull],
    build: (t) => {
      const d = t.find<ColumnType>((x): x is ColumnType => x !== 'NULL');
      if (d === undefined) return `there is no matching operator \`${op}\` with the argument types: NULL ${op} NULL`;
      const a = (t[0] === 'NULL' ? d : t[0]) as ColumnType,
        b = (t[1] === 'NULL' ? d : t[1]) as ColumnType;
      t[0] = a;
      t[1] = b;
      const type = decimalResultType(op, a, b);
      return {
        type,
        kernel: decimalBinaryKernel(op, a, b, type, 0),
        // The kernel is remade at bind time to carry the operator's position into its errors.
        bind: (_args, pos) => ({ kernel: decimalBinaryKernel(op, a, b, type, pos) }),
      };
    },
  };
}

/** Unary minus of a DECIMAL. */
export const decimalNegSig: Signature = {
  args: [(t) => (isDecimalType(t) ? t : null)],
  build: (t) => ({ type: t[0]!, kernel: decimalNegKernel(t[0] as ColumnType) }),
};
