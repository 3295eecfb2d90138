// DOUBLE array functions: ARRAY[...] constructors and element and sub-array
// access (1-based, QuestDB's out-of-range rule). The values themselves (layout,
// builder, reader, text form) are core/array-values.ts.
import { SvcError } from '../errors/svc-error.js';
import { arrayDims, arrayType, type ColumnType } from '../core/column-type.js';
import type { ColumnVector, VarVector } from '../core/column-vector.js';
import type { SqlType } from '../core/sql-type.js';
import { isNumeric } from '../core/sql-type.js';
import type { KernelContext, FunctionRegistry } from './registry.js';
import { asDoubles } from '../core/vec.js';
import { ArrayReader, ArrayVectorBuilder, isArrayType } from '../core/array-values.js';

/**
 * ARRAY[e1, e2, ...]: numbers (NULL too) make a DOUBLE[] of them; arrays of one type
 * DOUBLE[]..[] make an array one dimension deeper, their shapes equal (else an error,
 * as QuestDB's). A NULL sub-array makes the row NULL.
 */
function constructType(argTypes: readonly SqlType[]): { type: ColumnType; argTypes: SqlType[] } | string {
  if (argTypes.length === 0) return { type: arrayType(1), argTypes: [] };
  const sub = argTypes.find((t) => isArrayType(t));
  if (sub === undefined) {
    const bad = argTypes.findIndex((t) => t !== 'NULL' && !isNumeric(t));
    if (bad >= 0) return `array elements must be numbers or arrays, found ${argTypes[bad]}`;
    return { type: arrayType(1), argTypes: argTypes.map(() => 'DOUBLE') };
  }
  if (argTypes.some((t) => t !== sub && t !== 'NULL'))
    return `sub-arrays must all have the same type, found ${argTypes.join(', ')}`;
  return { type: arrayType(arrayDims(sub as ColumnType) + 1), argTypes: argTypes.map(() => sub) };
}

function constructScalars(type: ColumnType, args: readonly ColumnVector[], n: number): VarVector {
  const k = args.length;
  const cols = args.map((a) => asDoubles(a));
  const b = new ArrayVectorBuilder(type, n, n * (4 + 8 * k));
  const shape = Int32Array.of(k);
  for (let i = 0; i < n; i++) {
    b.begin(shape);
    for (let j = 0; j < k; j++) b.element(cols[j]![i]!);
    b.end();
  }
  return b.finish();
}

function constructNested(type: ColumnType, args: readonly ColumnVector[], n: number): VarVector {
  const k = args.length;
  const readers = args.map((a) => new ArrayReader(a));
  const b = new ArrayVectorBuilder(type, n);
  const shape = new Int32Array(arrayDims(type));
  shape[0] = k;
  for (let i = 0; i < n; i++) {
    if (readers.some((r) => r.isNull(i))) {
      b.nullRow();
      continue;
    }
    const first = readers[0]!;
    first.open(i);
    shape.set(first.shape, 1);
    for (const r of readers) {
      r.open(i);
      for (let d = 0; d < r.dims; d++) {
        // No position: the evaluator places the error at the ARRAY call.
        if (r.shape[d] !== first.shape[d]) throw new SvcError('SQL', "sub-arrays don't match in size");
      }
    }
    b.begin(shape);
    for (const r of readers) b.copyElements(r.bytes, r.start, r.count);
    b.end();
  }
  return b.finish();
}

/**
 * arr[i1, ..., ik] (1-based; `a[i][j]` is the same as `a[i, j]`): with as many
 * indexes as dimensions a DOUBLE, NULL when an index is out of range; with fewer,
 * the sub-array, empty when out of range (QuestDB's rule).
 */
function accessKernel(resultType: SqlType) {
  return (args: readonly ColumnVector[], n: number, _kx: KernelContext): ColumnVector => {
    const r = new ArrayReader(args[0]!);
    const idx = args.slice(1).map((a) => asDoubles(a));
    const k = idx.length;
    const scalar = k === r.dims;
    const out = scalar ? new Float64Array(n) : null;
    const b = scalar ? null : new ArrayVectorBuilder(resultType as ColumnType, n);
    const subShape = new Int32Array(r.dims - k);
    for (let i = 0; i < n; i++) {
      let isNull = r.isNull(i);
      for (let j = 0; j < k && !isNull; j++) isNull = idx[j]![i] !== idx[j]![i];
      if (isNull) {
        if (out) out[i] = NaN;
        else b!.nullRow();
        continue;
      }
      r.open(i);
      // Row-major offset of the selected block; any index outside [1, len] leaves it out of range.
      let offset = 0,
        inRange = true;
      for (let d = 0; d < k; d++) {
        const x = Math.trunc(idx[d]![i]!),
          len = r.shape[d]!;
        if (x < 1 || x > len) {
          inRange = false;
          break;
        }
        offset = offset * len + (x - 1);
      }
      let block = 1;
      for (let d = k; d < r.dims; d++) block *= r.shape[d]!;
      if (out) {
        out[i] = inRange ? r.element(offset) : NaN;
        continue;
      }
      if (inRange) {
        for (let d = k; d < r.dims; d++) subShape[d - k] = r.shape[d]!;
      } else subShape.fill(0);
      b!.begin(subShape);
      if (inRange) b!.copyElements(r.bytes, r.start + 8 * offset * block, block);
      b!.end();
    }
    return out ? { kind: 'fixed', type: 'DOUBLE', data: out } : b!.finish();
  };
}

/**
 * arr[a, lo:hi, ...] with at least one range (QuestDB's slicing): a range keeps its dimension,
 * from lo (1-based, inclusive) to hi (exclusive; NULL or past the end: to the end); an index
 * takes that sub-array and removes its dimension. An index out of range makes the result empty.
 * The selectors come as arguments typed by kind: INT an index, LONG, LONG a range.
 */
function sliceKernel(resultType: ColumnType, kinds: readonly ('index' | 'range')[]) {
  return (args: readonly ColumnVector[], n: number, _kx: KernelContext): ColumnVector => {
    const r = new ArrayReader(args[0]!);
    const vals = args.slice(1).map((a) => asDoubles(a));
    const b = new ArrayVectorBuilder(resultType, n);
    const k = kinds.length;
    const outDims = arrayDims(resultType);
    const outShape = new Int32Array(outDims);
    const starts = new Int32Array(r.dims); // first source coordinate (0-based) per dimension
    const lens = new Int32Array(r.dims); // coordinates taken per dimension
    const strides = new Float64Array(r.dims);
    const at = new Int32Array(r.dims); // the odometer over the selection's coordinates
    for (let i = 0; i < n; i++) {
      if (r.isNull(i)) {
        b.nullRow();
        continue;
      }
      r.open(i);
      let empty = false;
      let a = 0;
      for (let d = 0; d < r.dims; d++) {
        const len = r.shape[d]!;
        if (d >= k) {
          starts[d] = 0;
          lens[d] = len;
          continue;
        }
        if (kinds[d] === 'index') {
          const x = vals[a++]![i]!;
          if (x !== x || x < 1 || x > len) empty = true;
          starts[d] = x !== x ? 0 : Math.trunc(x) - 1;
          lens[d] = 1;
        } else {
          const lo = vals[a++]![i]!;
          const hi = vals[a++]![i]!;
          if (lo !== lo) empty = true;
          const from = Math.max(1, Math.trunc(lo));
          const to = hi !== hi ? len + 1 : Math.min(len + 1, Math.trunc(hi));
          starts[d] = from - 1;
          lens[d] = Math.max(0, to - from);
        }
      }
      let stride = 1;
      for (let d = r.dims - 1; d >= 0; d--) {
        strides[d] = stride;
        stride *= r.shape[d]!;
      }
      let o = 0;
      for (let d = 0; d < r.dims; d++) if (d >= k || kinds[d] === 'range') outShape[o++] = empty ? 0 : lens[d]!;
      b.begin(outShape);
      let total = 1;
      for (let d = 0; d < r.dims; d++) total *= empty ? 0 : lens[d]!;
      // Every coordinate of the selection in row-major order, as an odometer over the taken ranges.
      at.fill(0);
      for (let e = 0; e < total; e++) {
        let offset = 0;
        for (let d = 0; d < r.dims; d++) offset += (starts[d]! + at[d]!) * strides[d]!;
        b.element(r.element(offset));
        for (let d = r.dims - 1; d >= 0; d--) {
          if (++at[d]! < lens[d]!) break;
          at[d] = 0;
        }
      }
      b.end();
    }
    return b.finish();
  };
}

export function registerArrays(registry: FunctionRegistry): void {
  registry.registerScalar({
    name: '[:]',
    resolve(argTypes) {
      const arr = argTypes[0]!;
      if (!isArrayType(arr))
        return `there is no matching operator \`[]\` with the argument types: ${argTypes.join(', ')}`;
      const dims = arrayDims(arr as ColumnType);
      const kinds: Array<'index' | 'range'> = [];
      for (let j = 1; j < argTypes.length; j++) {
        if (argTypes[j] === 'INT') kinds.push('index');
        else if (argTypes[j] === 'LONG' && argTypes[j + 1] === 'LONG') {
          kinds.push('range');
          j++;
        } else return { message: `array index must be an integer, found ${argTypes[j]}`, arg: j };
      }
      if (kinds.length > dims) return `too many array indexes [dims=${dims}, indexes=${kinds.length}]`;
      const type = arrayType(dims - kinds.filter((x) => x === 'index').length);
      return { type, argTypes: [...argTypes], deterministic: true, kernel: sliceKernel(type, kinds) };
    },
  });
  registry.registerScalar({
    name: 'array',
    resolve(argTypes) {
      const t = constructType(argTypes);
      if (typeof t === 'string') return t;
      const nested = t.type !== arrayType(1);
      return {
        type: t.type,
        argTypes: t.argTypes,
        deterministic: true,
        kernel: (args, n) => (nested ? constructNested(t.type, args, n) : constructScalars(t.type, args, n)),
      };
    },
  });
  registry.registerScalar({
    name: '[]',
    resolve(argTypes) {
      const arr = argTypes[0]!;
      if (!isArrayType(arr))
        return `there is no matching operator \`[]\` with the argument types: ${argTypes.join(', ')}`;
      const dims = arrayDims(arr as ColumnType);
      const k = argTypes.length - 1;
      if (k > dims) return `too many array indexes [dims=${dims}, indexes=${k}]`;
      const bad = argTypes.findIndex(
        (t, j) => j > 0 && t !== 'NULL' && t !== 'INT' && t !== 'SHORT' && t !== 'BYTE' && t !== 'LONG',
      );
      if (bad > 0) return { message: `array index must be an integer, found ${argTypes[bad]}`, arg: bad };
      const type: SqlType = k === dims ? 'DOUBLE' : arrayType(dims - k);
      return {
        type,
        argTypes: [arr, ...argTypes.slice(1).map((t) => (t === 'LONG' ? 'LONG' : 'INT'))],
        deterministic: true,
        kernel: accessKernel(type),
      };
    },
  });
}
