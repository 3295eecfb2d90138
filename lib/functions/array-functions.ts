// Functions over DOUBLE arrays (QuestDB's Array functions page): reductions (array_sum, array_avg,
// array_count, array_min, array_max, array_stddev*, dot_product), lookups (array_position,
// insertion_point, dim_length) and reshaping (array_cum_sum, flatten, shift, transpose, matmul).
// A NULL array gives NULL; a NULL element is NaN, which each function treats as its page says.
import { SvcError } from '../errors/svc-error.js';
import { ArrayReader, ArrayVectorBuilder, isArrayType } from '../core/array-values.js';
import { arrayDims, arrayType, type ColumnType } from '../core/column-type.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { SqlType } from '../core/sql-type.js';
import { asDoubles, fromDoubles } from '../core/vec.js';
import type { FunctionRegistry } from './registry.js';
import { accept, defineScalar, type Signature } from './signature.js';

const anyArray = (t: SqlType): SqlType | null => (isArrayType(t) ? t : null);
const isFinite = (x: number): boolean => x === x && x !== Infinity && x !== -Infinity;

/** array -> DOUBLE (or INT) by a reduction over the row's elements (NaN: NULL). */
function reduce(type: 'DOUBLE' | 'INT', fn: (r: ArrayReader) => number): Signature {
  return {
    args: [anyArray],
    build: () => ({
      type,
      kernel: (args, n) => {
        const r = new ArrayReader(args[0]!);
        const out = new Float64Array(n);
        for (let i = 0; i < n; i++) {
          if (r.isNull(i)) out[i] = NaN;
          else {
            r.open(i);
            out[i] = fn(r);
          }
        }
        return fromDoubles(type, out);
      },
    }),
  };
}

/** Sum of the elements, NULL ones as zero. */
function sum(r: ArrayReader): number {
  let s = 0;
  for (let k = 0; k < r.count; k++) {
    const x = r.element(k);
    if (x === x) s += x;
  }
  return s;
}

/** Mean and sum of squared deviations of the finite elements (Welford), and their count. */
function moments(r: ArrayReader): { n: number; m2: number } {
  let n = 0;
  let mean = 0;
  let m2 = 0;
  for (let k = 0; k < r.count; k++) {
    const x = r.element(k);
    if (!isFinite(x)) continue;
    n++;
    const d = x - mean;
    mean += d / n;
    m2 += d * (x - mean);
  }
  return { n, m2 };
}

function extreme(max: boolean) {
  return (r: ArrayReader): number => {
    let best = NaN;
    for (let k = 0; k < r.count; k++) {
      const x = r.element(k);
      if (isFinite(x) && (best !== best || (max ? x > best : x < best))) best = x;
    }
    return best;
  };
}

/** array -> array row by row: `build` writes row i's result into the builder (or a NULL row). */
function reshape(
  args: readonly ColumnVector[],
  n: number,
  type: ColumnType,
  row: (readers: readonly ArrayReader[], i: number, b: ArrayVectorBuilder) => void,
): ColumnVector {
  const readers = args.filter((a) => isArrayType(a.type)).map((a) => new ArrayReader(a));
  const b = new ArrayVectorBuilder(type, n);
  for (let i = 0; i < n; i++) {
    if (readers.some((r) => r.isNull(i))) {
      b.nullRow();
      continue;
    }
    for (const r of readers) r.open(i);
    row(readers, i, b);
  }
  return b.finish();
}

export function registerArrayFunctions(registry: FunctionRegistry): void {
  defineScalar(registry, 'array_sum', [reduce('DOUBLE', sum)]);
  defineScalar(registry, 'array_avg', [
    reduce('DOUBLE', (r) => {
      let s = 0;
      let c = 0;
      for (let k = 0; k < r.count; k++) {
        const x = r.element(k);
        if (x === x) {
          s += x;
          c++;
        }
      }
      return c === 0 ? NaN : s / c;
    }),
  ]);
  defineScalar(registry, 'array_count', [
    reduce('INT', (r) => {
      let c = 0;
      for (let k = 0; k < r.count; k++) if (isFinite(r.element(k))) c++;
      return c;
    }),
  ]);
  defineScalar(registry, 'array_max', [reduce('DOUBLE', extreme(true))]);
  defineScalar(registry, 'array_min', [reduce('DOUBLE', extreme(false))]);
  const samp = reduce('DOUBLE', (r) => {
    const { n, m2 } = moments(r);
    return n < 2 ? NaN : Math.sqrt(m2 / (n - 1));
  });
  defineScalar(registry, ['array_stddev', 'array_stddev_samp'], [samp]);
  defineScalar(registry, 'array_stddev_pop', [
    reduce('DOUBLE', (r) => {
      const { n, m2 } = moments(r);
      return n === 0 ? NaN : Math.sqrt(m2 / n);
    }),
  ]);

  defineScalar(registry, 'dot_product', [
    {
      args: [anyArray, anyArray],
      build: () => ({
        type: 'DOUBLE',
        kernel: (args, n) => {
          const a = new ArrayReader(args[0]!);
          const b = new ArrayReader(args[1]!);
          const out = new Float64Array(n);
          for (let i = 0; i < n; i++) {
            if (a.isNull(i) || b.isNull(i)) {
              out[i] = NaN;
              continue;
            }
            a.open(i);
            b.open(i);
            sameShape(a, b, 'dot_product');
            let s = 0;
            for (let k = 0; k < a.count; k++) {
              const x = a.element(k) * b.element(k);
              if (x === x) s += x;
            }
            out[i] = s;
          }
          return fromDoubles('DOUBLE', out);
        },
      }),
    },
  ]);

  defineScalar(registry, 'dim_length', [
    {
      args: [anyArray, accept.int],
      build: () => ({
        type: 'INT',
        kernel: (args, n) => {
          const r = new ArrayReader(args[0]!);
          const dim = asDoubles(args[1]!);
          const out = new Float64Array(n);
          for (let i = 0; i < n; i++) {
            const d = dim[i]!;
            if (r.isNull(i) || d !== d) {
              out[i] = NaN;
              continue;
            }
            if (d < 1 || d > r.dims)
              throw new SvcError('SQL', `array dimension out of bounds [dim=${d}, dims=${r.dims}]`);
            r.open(i);
            out[i] = r.shape[d - 1]!;
          }
          return fromDoubles('INT', out);
        },
      }),
    },
  ]);

  defineScalar(registry, 'array_position', [
    {
      args: [anyArray, accept.double],
      build: (t) => {
        if (arrayDims(t[0] as ColumnType) !== 1) return 'array_position takes a one-dimensional array';
        return {
          type: 'INT',
          kernel: (args, n) => {
            const r = new ArrayReader(args[0]!);
            const v = asDoubles(args[1]!);
            const out = new Float64Array(n);
            for (let i = 0; i < n; i++) {
              out[i] = NaN;
              if (r.isNull(i)) continue;
              r.open(i);
              const want = v[i]!;
              for (let k = 0; k < r.count; k++) {
                const x = r.element(k);
                if (want === want ? x === want : x !== x) {
                  out[i] = k + 1;
                  break;
                }
              }
            }
            return fromDoubles('INT', out);
          },
        };
      },
    },
  ]);

  const insertion = (args: readonly ColumnVector[], n: number): ColumnVector => {
    const r = new ArrayReader(args[0]!);
    const v = asDoubles(args[1]!);
    const ahead = args[2] !== undefined ? (args[2] as { data: Uint8Array }).data : null;
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      if (r.isNull(i) || v[i] !== v[i]) {
        out[i] = NaN;
        continue;
      }
      r.open(i);
      out[i] = insertionPoint(r, v[i]!, ahead !== null && ahead[i] === 1) + 1;
    }
    return fromDoubles('INT', out);
  };
  defineScalar(registry, 'insertion_point', [
    { args: [anyArray, accept.double], build: () => ({ type: 'INT', kernel: insertion }) },
    { args: [anyArray, accept.double, accept.boolean], build: () => ({ type: 'INT', kernel: insertion }) },
  ]);

  /** A one-dimensional array of every row's elements, in row-major order, through `write`. */
  const toList = (write: (r: ArrayReader, b: ArrayVectorBuilder) => void): Signature => ({
    args: [anyArray],
    build: () => ({
      type: 'DOUBLE[]',
      kernel: (args, n) =>
        reshape(args, n, 'DOUBLE[]', ([r], _i, b) => {
          b.begin([r!.count]);
          write(r!, b);
          b.end();
        }),
    }),
  });
  defineScalar(registry, 'array_cum_sum', [
    toList((r, b) => {
      let s = 0;
      for (let k = 0; k < r.count; k++) {
        const x = r.element(k);
        if (x === x) s += x;
        b.element(s);
      }
    }),
  ]);
  defineScalar(registry, 'flatten', [toList((r, b) => b.copyElements(r.bytes, r.start, r.count))]);

  const shift = (args: readonly ColumnVector[], n: number): ColumnVector => {
    const dist = asDoubles(args[1]!);
    const fill = args[2] !== undefined ? asDoubles(args[2]) : null;
    return reshape([args[0]!], n, args[0]!.type, ([r], i, b) => {
      const last = r!.dims > 0 ? r!.shape[r!.dims - 1]! : 0;
      const d = Math.trunc(dist[i]!);
      const f = fill !== null ? fill[i]! : NaN;
      b.begin(r!.shape);
      for (let base = 0; base < r!.count; base += last) {
        for (let k = 0; k < last; k++) {
          const from = k - d;
          b.element(d !== d ? NaN : from >= 0 && from < last ? r!.element(base + from) : f);
        }
      }
      b.end();
    });
  };
  defineScalar(registry, 'shift', [
    { args: [anyArray, accept.int], build: (t) => ({ type: t[0]!, kernel: shift }) },
    { args: [anyArray, accept.int, accept.double], build: (t) => ({ type: t[0]!, kernel: shift }) },
  ]);

  defineScalar(registry, 'transpose', [
    {
      args: [anyArray],
      build: (t) => ({
        type: t[0]!,
        kernel: (args, n) =>
          reshape(args, n, args[0]!.type, ([r], _i, b) => {
            const dims = r!.dims;
            const shape = Array.from(r!.shape);
            const out = shape.slice().reverse();
            b.begin(out);
            // Element at out-coordinates (c0..cd-1) is the input's at (cd-1..c0).
            const strides = new Array<number>(dims).fill(1);
            for (let d = dims - 2; d >= 0; d--) strides[d] = strides[d + 1]! * shape[d + 1]!;
            const c = new Array<number>(dims).fill(0);
            for (let k = 0; k < r!.count; k++) {
              let at = 0;
              for (let d = 0; d < dims; d++) at += c[d]! * strides[dims - 1 - d]!;
              b.element(r!.element(at));
              for (let d = dims - 1; d >= 0; d--) {
                if (++c[d]! < out[d]!) break;
                c[d] = 0;
              }
            }
            b.end();
          }),
      }),
    },
  ]);

  defineScalar(registry, 'matmul', [
    {
      args: [anyArray, anyArray],
      build: (t) => {
        if (arrayDims(t[0] as ColumnType) !== 2 || arrayDims(t[1] as ColumnType) !== 2)
          return 'matmul takes two matrices (two-dimensional arrays)';
        return {
          type: arrayType(2),
          kernel: (args, n) =>
            reshape(args, n, arrayType(2), ([a, b2], _i, b) => {
              const rows = a!.shape[0]!;
              const inner = a!.shape[1]!;
              const cols = b2!.shape[1]!;
              if (b2!.shape[0] !== inner)
                throw new SvcError(
                  'SQL',
                  `left matrix columns != right matrix rows [left=${rows}x${inner}, right=${b2!.shape[0]}x${cols}]`,
                );
              b.begin([rows, cols]);
              for (let j = 0; j < rows; j++) {
                for (let k = 0; k < cols; k++) {
                  let s = 0;
                  for (let x = 0; x < inner; x++) s += a!.element(j * inner + x) * b2!.element(x * cols + k);
                  b.element(s);
                }
              }
              b.end();
            }),
        };
      },
    },
  ]);
}

function sameShape(a: ArrayReader, b: ArrayReader, fn: string): void {
  let same = a.dims === b.dims;
  for (let d = 0; same && d < a.dims; d++) same = a.shape[d] === b.shape[d];
  if (!same) throw new SvcError('SQL', `${fn}: arrays must have the same shape`);
}

/**
 * Where `v` goes into a sorted row (0-based): after the elements equal to it, or before them
 * with `ahead`. Ascending or descending, told from the first and last elements.
 */
export function insertionPoint(r: ArrayReader, v: number, ahead: boolean): number {
  const n = r.count;
  const desc = n > 1 && r.element(0) > r.element(n - 1);
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const x = r.element(mid);
    // Ascending: go right past elements below v (and equal ones unless ahead); descending mirrored.
    const right = desc ? (ahead ? x > v : x >= v) : ahead ? x < v : x <= v;
    if (right) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
