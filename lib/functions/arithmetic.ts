// Arithmetic operators `+ - * / %` and unary `neg` with QuestDB's widening
// (BYTE/SHORT/INT -> INT, then LONG, FLOAT, DOUBLE), timestamp arithmetic,
// NULL in -> NULL out, division or modulo by zero -> NULL.
import { INT_NULL, LONG_NULL } from '../core/column-type.js';
import type { ColumnVector, FixedVector } from '../core/column-vector.js';
import type { BindArg, BindResult, Kernel, FunctionRegistry } from './registry.js';
import { defineScalar, type Built, type Signature } from './signature.js';
import { isIntegral, isNumeric, widerNumeric, type SqlType } from '../core/sql-type.js';
import { asDoubles, fromDoubles } from '../core/vec.js';
import { decimalNegSig, decimalSig } from './decimal-arithmetic.js';
import { arrayNegSig, arraySigs } from './array-arithmetic.js';

type Op = '+' | '-' | '*' | '/' | '%';

const TWO63 = 9223372036854775808;
const TWO64 = 18446744073709551616;

// INT arithmetic wraps like Java int (an overflow to -2^31 reads as NULL, as in
// QuestDB). LONG arithmetic runs on doubles, exact while |value| < 2^53; results
// past +-2^63 wrap like Java long, with the precision a double has.

/** Doubles (NaN = NULL) computed for an integral or floating result -> the result vector. */
function finish(type: SqlType, out: Float64Array): ColumnVector {
  const n = out.length;
  if (type === 'INT') {
    const r = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const x = out[i]!;
      r[i] = x !== x ? INT_NULL : x | 0;
    }
    return { kind: 'fixed', type, data: r };
  }
  if (type === 'LONG' || type === 'TIMESTAMP' || type === 'DATE') {
    for (let i = 0; i < n; i++) {
      let x = out[i]!;
      if (x !== x) {
        out[i] = LONG_NULL;
        continue;
      }
      if (x >= TWO63 || x < -TWO63) x -= Math.round(x / TWO64) * TWO64;
      out[i] = x === 0 ? 0 : x;
    }
    return { kind: 'fixed', type, data: out };
  }
  return fromDoubles(type, out);
}

function compute(
  op: Op,
  integral: boolean,
  intMul: boolean,
  a: Float64Array,
  b: Float64Array,
  n: number,
): Float64Array {
  const out = new Float64Array(n);
  switch (op) {
    case '+':
      for (let i = 0; i < n; i++) out[i] = a[i]! + b[i]!;
      break;
    case '-':
      for (let i = 0; i < n; i++) out[i] = a[i]! - b[i]!;
      break;
    case '*':
      if (intMul)
        for (let i = 0; i < n; i++) {
          const x = a[i]!,
            y = b[i]!;
          out[i] = x !== x || y !== y ? NaN : Math.imul(x, y);
        }
      else for (let i = 0; i < n; i++) out[i] = a[i]! * b[i]!;
      break;
    case '/':
      if (integral)
        for (let i = 0; i < n; i++) {
          const y = b[i]!;
          out[i] = y === 0 ? NaN : Math.trunc(a[i]! / y);
        }
      else
        for (let i = 0; i < n; i++) {
          const y = b[i]!;
          out[i] = y === 0 ? NaN : a[i]! / y;
        }
      break;
    case '%':
      for (let i = 0; i < n; i++) out[i] = a[i]! % b[i]!;
      break;
  }
  return out;
}

/** INT op INT without converting through doubles (the common case). */
function intFast(op: Op, a: Int32Array, b: Int32Array, n: number): Int32Array | null {
  const out = new Int32Array(n);
  switch (op) {
    case '+':
      for (let i = 0; i < n; i++) {
        const x = a[i]!,
          y = b[i]!;
        out[i] = x === INT_NULL || y === INT_NULL ? INT_NULL : (x + y) | 0;
      }
      return out;
    case '-':
      for (let i = 0; i < n; i++) {
        const x = a[i]!,
          y = b[i]!;
        out[i] = x === INT_NULL || y === INT_NULL ? INT_NULL : (x - y) | 0;
      }
      return out;
    case '*':
      for (let i = 0; i < n; i++) {
        const x = a[i]!,
          y = b[i]!;
        out[i] = x === INT_NULL || y === INT_NULL ? INT_NULL : Math.imul(x, y);
      }
      return out;
    default:
      return null;
  }
}

function isInt64Vector(v: ColumnVector): v is FixedVector {
  return v.kind === 'fixed' && (v.type === 'LONG' || v.type === 'TIMESTAMP' || v.type === 'DATE');
}

/** LONG-family + / - straight on the stored doubles (sentinels checked, no conversion passes). */
function int64AddSub(minus: boolean, a: Float64Array, b: Float64Array, n: number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = a[i]!,
      y = b[i]!;
    if (x === LONG_NULL || y === LONG_NULL) {
      out[i] = LONG_NULL;
      continue;
    }
    let r = minus ? x - y : x + y;
    if (r >= TWO63 || r < -TWO63) r -= Math.round(r / TWO64) * TWO64;
    out[i] = r === 0 ? 0 : r;
  }
  return out;
}

const MIN64 = -(2n ** 63n);

/**
 * LONG op LONG when an operand carries exact int64 pairs (a value past 2^53):
 * BigInt per row, wrapping like Java long; -2^63 (and division by zero) is
 * NULL. Slow, but only values that doubles cannot hold take it.
 */
function exactLong(op: Op, x: ColumnVector, y: ColumnVector, n: number): FixedVector {
  const read = (v: ColumnVector): ((i: number) => bigint | null) => {
    const ex = (v as FixedVector).exact;
    if (ex) {
      return (i) => {
        const r = BigInt.asIntN(64, (BigInt(ex[2 * i + 1]!) << 32n) | BigInt(ex[2 * i]! >>> 0));
        return r === MIN64 ? null : r;
      };
    }
    const d = asDoubles(v);
    return (i) => {
      const x = d[i]!;
      return x !== x ? null : BigInt(x);
    };
  };
  const a = read(x),
    b = read(y);
  const data = new Float64Array(n);
  const exact = new Int32Array(2 * n);
  for (let i = 0; i < n; i++) {
    const p = a(i),
      q = b(i);
    let r: bigint | null = null;
    if (p !== null && q !== null) {
      switch (op) {
        case '+':
          r = BigInt.asIntN(64, p + q);
          break;
        case '-':
          r = BigInt.asIntN(64, p - q);
          break;
        case '*':
          r = BigInt.asIntN(64, p * q);
          break;
        case '/':
          r = q === 0n ? null : BigInt.asIntN(64, p / q);
          break;
        case '%':
          r = q === 0n ? null : p % q;
          break;
      }
    }
    if (r === null || r === MIN64) {
      data[i] = LONG_NULL;
      exact[2 * i + 1] = INT_NULL;
      continue;
    }
    const d = Number(r);
    // A value that rounds to the NULL sentinel's double keeps the nearest double above it.
    data[i] = d === LONG_NULL ? -9223372036854774784 : d;
    exact[2 * i] = Number(r & 0xffffffffn) | 0;
    exact[2 * i + 1] = Number(BigInt.asIntN(32, r >> 32n));
  }
  return { kind: 'fixed', type: 'LONG', data, exact };
}

/** `type` result of `op` over two numeric / temporal arguments. */
export function arithmeticKernel(op: Op, type: SqlType): Kernel {
  const integral = type === 'INT' || type === 'LONG' || type === 'TIMESTAMP' || type === 'DATE';
  return (args, n) => {
    const x = args[0]!,
      y = args[1]!;
    if (type === 'LONG' && ((x as FixedVector).exact !== undefined || (y as FixedVector).exact !== undefined))
      return exactLong(op, x, y, n);
    if (type === 'INT' && x.kind === 'fixed' && y.kind === 'fixed' && x.type === 'INT' && y.type === 'INT') {
      const r = intFast(op, x.data as Int32Array, y.data as Int32Array, n);
      if (r) return { kind: 'fixed', type: 'INT', data: r };
    }
    if (integral && type !== 'INT' && (op === '+' || op === '-') && isInt64Vector(x) && isInt64Vector(y)) {
      return { kind: 'fixed', type, data: int64AddSub(op === '-', x.data as Float64Array, y.data as Float64Array, n) };
    }
    let a = asDoubles(x),
      b = asDoubles(y);
    // FLOAT arithmetic reads both operands as floats first (Java: an int operand is converted to float).
    if (type === 'FLOAT') {
      a = a.map(Math.fround);
      b = b.map(Math.fround);
    }
    return finish(type, compute(op, integral, type === 'INT', a, b, n));
  };
}

function built(op: Op, type: SqlType): Built {
  return { type, kernel: arithmeticKernel(op, type) };
}

/** Numeric op numeric: the wider type, NULL adopting the other side's. */
const numericOrNull = (t: SqlType): SqlType | null => (isNumeric(t) || t === 'NULL' ? t : null);

const numericSig = (op: Op): Signature => ({
  args: [numericOrNull, numericOrNull],
  build: (t) => {
    const w = widerNumeric(t[0]!, t[1]!) ?? 'DOUBLE';
    t[0] = t[0] === 'NULL' ? w : t[0]!;
    t[1] = t[1] === 'NULL' ? w : t[1]!;
    return op === '*' && w === 'INT' ? { ...built(op, w), bind: foldIntProduct } : built(op, w);
  },
});

/**
 * QuestDB 9.3 folds a constant INT * INT whose product leaves the INT range into
 * a LONG constant (`2147483647 * 2` is the LONG 4294967294); over columns, or
 * when the product fits, it stays an INT that wraps.
 */
function foldIntProduct(args: readonly BindArg[]): BindResult | void {
  const a = args[0]!.value,
    b = args[1]!.value;
  if (typeof a !== 'number' || typeof b !== 'number') return;
  const p = BigInt(a) * BigInt(b);
  if (p >= -2147483648n && p <= 2147483647n) return;
  const value = Number(p),
    lo = Number(p & 0xffffffffn) | 0,
    hi = Number(p >> 32n);
  return {
    type: 'LONG',
    kernel: (_args, n) => {
      // Exact int64 pairs too: a product past 2^53 is not a double.
      const exact = new Int32Array(2 * n);
      for (let i = 0; i < n; i++) {
        exact[2 * i] = lo;
        exact[2 * i + 1] = hi;
      }
      return { kind: 'fixed', type: 'LONG', data: new Float64Array(n).fill(value), exact };
    },
  };
}

const temporal = (t: SqlType): SqlType | null => (t === 'TIMESTAMP' || t === 'DATE' ? t : null);
const integralOrNull = (t: SqlType): SqlType | null => (isIntegral(t) || t === 'NULL' ? 'LONG' : null);
const floating = (t: SqlType): SqlType | null => (t === 'FLOAT' || t === 'DOUBLE' ? 'DOUBLE' : null);

/** TIMESTAMP/DATE plus or minus micros/millis keeps the type; with a DOUBLE it is plain arithmetic (DOUBLE). */
function temporalSigs(op: '+' | '-'): Signature[] {
  const sigs: Signature[] = [
    { args: [temporal, integralOrNull], build: (t) => built(op, t[0]!) },
    {
      args: [temporal, floating],
      build: (t) => {
        t[0] = 'DOUBLE';
        return built(op, 'DOUBLE');
      },
    },
  ];
  if (op === '+') {
    sigs.push({ args: [integralOrNull, temporal], build: (t) => built(op, t[1]!) });
    sigs.push({
      args: [floating, temporal],
      build: (t) => {
        t[1] = 'DOUBLE';
        return built(op, 'DOUBLE');
      },
    });
  } else {
    // QuestDB has no TIMESTAMP - TIMESTAMP: its `-(TIMESTAMP, LONG)` takes the right side as a
    // LONG of micros, so the difference is a TIMESTAMP (a day reads 1970-01-02T00:00:00.000000Z).
    // A DATE on either side is first widened to micros.
    sigs.push({
      args: [temporal, temporal],
      build: (t) => {
        t[0] = 'TIMESTAMP';
        t[1] = 'TIMESTAMP';
        return built(op, 'TIMESTAMP');
      },
    });
  }
  return sigs;
}

function negKernel(type: SqlType): Kernel {
  return (args, n) => {
    const a = asDoubles(args[0]!);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = -a[i]!;
    return finish(type, out);
  };
}

export function registerArithmetic(registry: FunctionRegistry): void {
  // DECIMAL overloads come after the numeric ones: integer op integer stays numeric.
  defineScalar(registry, '+', [numericSig('+'), ...temporalSigs('+'), decimalSig('+'), ...arraySigs('+')]);
  defineScalar(registry, '-', [numericSig('-'), ...temporalSigs('-'), decimalSig('-'), ...arraySigs('-')]);
  defineScalar(registry, '*', [numericSig('*'), decimalSig('*'), ...arraySigs('*')]);
  defineScalar(registry, '/', [numericSig('/'), decimalSig('/'), ...arraySigs('/')]);
  defineScalar(registry, '%', [numericSig('%')]);
  defineScalar(registry, 'neg', [
    {
      args: [(t) => (isNumeric(t) ? t : t === 'NULL' ? 'DOUBLE' : null)],
      build: (t) => {
        const type = widerNumeric(t[0]!, t[0]!) ?? 'DOUBLE';
        return { type, kernel: negKernel(type) };
      },
    },
    decimalNegSig,
    arrayNegSig,
  ]);
}
