// Arithmetic on DOUBLE arrays (QuestDB's array operators): `+ - * /` element-wise between two
// arrays, broadcast NumPy-style (shapes aligned at the right, a dimension of 1 stretched, the
// result as deep as the deeper operand), or between an array and a scalar on either side;
// unary minus. A NULL array gives NULL; a NULL (NaN) element or scalar gives NaN elements, and
// x / 0 the IEEE result (both print as null). No `%` on arrays, as in QuestDB.
import { SvcError } from '../errors/svc-error.js';
import { ArrayReader, ArrayVectorBuilder, isArrayType } from '../core/array-values.js';
import { arrayDims, arrayType, type ColumnType } from '../core/column-type.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { SqlType } from '../core/sql-type.js';
import { asDoubles } from '../core/vec.js';
import type { BindArg, Kernel } from './registry.js';
import { accept, type Signature } from './signature.js';

export type ArrayOp = '+' | '-' | '*' | '/';

const anyArray = (t: SqlType): SqlType | null => (isArrayType(t) ? t : null);

function apply(op: ArrayOp, x: number, y: number): number {
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return x / y;
  }
}

/** A shape as QuestDB prints it in errors: `[1,2]`. */
function shapeText(shape: ArrayLike<number>): string {
  return `[${Array.from(shape).join(',')}]`;
}

/**
 * The broadcast shape of two rows' shapes (right-aligned; equal lengths, or one of them 1),
 * or null when they do not broadcast.
 */
export function broadcastShape(a: ArrayLike<number>, b: ArrayLike<number>): number[] | null {
  const dims = Math.max(a.length, b.length);
  const out = new Array<number>(dims);
  for (let k = 1; k <= dims; k++) {
    const x = a.length - k >= 0 ? a[a.length - k]! : 1;
    const y = b.length - k >= 0 ? b[b.length - k]! : 1;
    if (x === y || y === 1) out[dims - k] = x;
    else if (x === 1) out[dims - k] = y;
    else return null;
  }
  return out;
}

/** Row-major strides of `shape` seen as an array of `dims` dimensions (missing leading and stretched dimensions: 0). */
function broadcastStrides(shape: ArrayLike<number>, out: readonly number[]): number[] {
  const dims = out.length;
  const strides = new Array<number>(dims).fill(0);
  let step = 1;
  for (let k = 1; k <= shape.length; k++) {
    const len = shape[shape.length - k]!;
    strides[dims - k] = len === 1 && out[dims - k] !== 1 ? 0 : step;
    step *= len;
  }
  return strides;
}

/** array op array, broadcast; an incompatible pair of shapes fails at the left operand (`leftPos`). */
function arrayArrayKernel(op: ArrayOp, type: ColumnType, leftPos: number): Kernel {
  return (args, n) => {
    const a = new ArrayReader(args[0]!);
    const b = new ArrayReader(args[1]!);
    const out = new ArrayVectorBuilder(type, n);
    for (let i = 0; i < n; i++) {
      if (a.isNull(i) || b.isNull(i)) {
        out.nullRow();
        continue;
      }
      a.open(i);
      b.open(i);
      const shape = broadcastShape(a.shape, b.shape);
      if (shape === null)
        throw new SvcError(
          'SQL',
          `arrays have incompatible shapes [leftShape=${shapeText(a.shape)}, rightShape=${shapeText(b.shape)}]`,
          { position: leftPos },
        );
      out.begin(shape);
      if (a.dims === b.dims && a.count === b.count && shape.every((len, d) => len === a.shape[d])) {
        for (let k = 0; k < a.count; k++) out.element(apply(op, a.element(k), b.element(k)));
      } else {
        const sa = broadcastStrides(a.shape, shape);
        const sb = broadcastStrides(b.shape, shape);
        const dims = shape.length;
        let count = 1;
        for (const len of shape) count *= len;
        // One odometer over the output's coordinates, moving both operands' offsets with it.
        const c = new Array<number>(dims).fill(0);
        let ia = 0,
          ib = 0;
        for (let k = 0; k < count; k++) {
          out.element(apply(op, a.element(ia), b.element(ib)));
          for (let d = dims - 1; d >= 0; d--) {
            ia += sa[d]!;
            ib += sb[d]!;
            if (++c[d]! < shape[d]!) break;
            ia -= sa[d]! * shape[d]!;
            ib -= sb[d]! * shape[d]!;
            c[d] = 0;
          }
        }
      }
      out.end();
    }
    return out.finish();
  };
}

/** array op scalar (`arrayLeft`) or scalar op array: the array's shape, each element with the row's scalar. */
function arrayScalarKernel(op: ArrayOp, arrayLeft: boolean): Kernel {
  return (args, n) => {
    const arr = args[arrayLeft ? 0 : 1]!;
    const r = new ArrayReader(arr);
    const s = asDoubles(args[arrayLeft ? 1 : 0]!);
    const out = new ArrayVectorBuilder(arr.type, n);
    for (let i = 0; i < n; i++) {
      if (r.isNull(i)) {
        out.nullRow();
        continue;
      }
      r.open(i);
      const y = s[i]!;
      out.begin(r.shape);
      if (arrayLeft) for (let k = 0; k < r.count; k++) out.element(apply(op, r.element(k), y));
      else for (let k = 0; k < r.count; k++) out.element(apply(op, y, r.element(k)));
      out.end();
    }
    return out.finish();
  };
}

/** The overloads of `op` with a DOUBLE array on one side or both. */
export function arraySigs(op: ArrayOp): Signature[] {
  return [
    {
      args: [anyArray, anyArray],
      build: (t) => {
        const type = arrayType(Math.max(arrayDims(t[0] as ColumnType), arrayDims(t[1] as ColumnType)));
        return {
          type,
          kernel: arrayArrayKernel(op, type, -1),
          bind: (args: readonly BindArg[]) => ({ kernel: arrayArrayKernel(op, type, args[0]!.pos) }),
        };
      },
    },
    { args: [anyArray, accept.double], build: (t) => ({ type: t[0]!, kernel: arrayScalarKernel(op, true) }) },
    { args: [accept.double, anyArray], build: (t) => ({ type: t[1]!, kernel: arrayScalarKernel(op, false) }) },
  ];
}

/** Unary minus of an array: each element negated, the same shape. */
export const arrayNegSig: Signature = {
  args: [anyArray],
  build: (t) => ({
    type: t[0]!,
    kernel: (args: readonly ColumnVector[], n: number) => {
      const r = new ArrayReader(args[0]!);
      const out = new ArrayVectorBuilder(args[0]!.type, n);
      for (let i = 0; i < n; i++) {
        if (r.isNull(i)) {
          out.nullRow();
          continue;
        }
        r.open(i);
        out.begin(r.shape);
        for (let k = 0; k < r.count; k++) out.element(-r.element(k));
        out.end();
      }
      return out.finish();
    },
  }),
};
