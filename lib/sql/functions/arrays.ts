// DOUBLE arrays (DOUBLE[], DOUBLE[][], ...): a row is var-layout bytes, the shape
// (one int32 per dimension) then the elements as row-major float64, little-endian;
// NULL is the vector's null flag (an empty array has shape 0). ARRAY[...]
// constructors, element and sub-array access (1-based, QuestDB's out-of-range
// rule), and the text form `[1.0,2.5]`.
import { SvcError } from '../../errors/svc-error.js';
import { arrayDims, arrayType, typeKind, type ColumnType } from '../../core/column-type.js';
import type { ColumnVector, VarVector } from '../../core/column-vector.js';
import type { SqlType } from '../sql-type.js';
import { isNumeric } from '../sql-type.js';
import { formatDouble } from './format.js';
import { registerScalar, type KernelContext } from './registry.js';
import { asDoubles } from './vec.js';

export function isArrayType(t: SqlType): boolean {
  return t !== 'NULL' && typeKind(t) === 'ARRAY';
}

/** Grows one array vector row by row: shape, then elements. */
export class ArrayVectorBuilder {
  #bytes: Uint8Array;
  #view: DataView;
  #at = 0;
  readonly #offsets: Int32Array;
  #nulls: Uint8Array | null = null;
  #row = 0;

  constructor(readonly type: ColumnType, rows: number, bytesHint = rows * 16) {
    this.#bytes = new Uint8Array(Math.max(16, bytesHint));
    this.#view = new DataView(this.#bytes.buffer);
    this.#offsets = new Int32Array(rows + 1);
  }

  #ensure(extra: number): void {
    if (this.#at + extra <= this.#bytes.length) return;
    const next = new Uint8Array(Math.max(this.#bytes.length * 2, this.#at + extra));
    next.set(this.#bytes.subarray(0, this.#at));
    this.#bytes = next;
    this.#view = new DataView(next.buffer);
  }

  /** Starts the next row with this shape; its elements follow through element(). */
  begin(shape: ArrayLike<number>): void {
    let count = 1;
    for (let d = 0; d < shape.length; d++) count *= shape[d]!;
    this.#ensure(4 * shape.length + 8 * count);
    for (let d = 0; d < shape.length; d++) { this.#view.setInt32(this.#at, shape[d]!, true); this.#at += 4; }
  }

  element(x: number): void {
    this.#view.setFloat64(this.#at, x, true);
    this.#at += 8;
  }

  /** Copies `count` elements starting at byte `from` of another row's bytes. */
  copyElements(src: Uint8Array, from: number, count: number): void {
    this.#bytes.set(src.subarray(from, from + 8 * count), this.#at);
    this.#at += 8 * count;
  }

  end(): void {
    this.#offsets[++this.#row] = this.#at;
  }

  nullRow(): void {
    this.#nulls ??= new Uint8Array(this.#offsets.length - 1);
    this.#nulls[this.#row] = 1;
    this.#offsets[++this.#row] = this.#at;
  }

  finish(): VarVector {
    return { kind: 'var', type: this.type, bytes: this.#bytes.subarray(0, this.#at), offsets: this.#offsets, nulls: this.#nulls };
  }
}

/** Reads rows of an array vector: shape and element offsets, without copying. */
export class ArrayReader {
  readonly dims: number;
  readonly #v: VarVector;
  readonly #view: DataView;
  /** The shape of the row last opened by open(). */
  readonly shape: Int32Array;
  /** Byte offset of the first element of the row last opened, and its element count. */
  start = 0;
  count = 0;

  constructor(v: ColumnVector) {
    const vv = v as VarVector;
    this.#v = vv;
    this.dims = arrayDims(v.type as ColumnType);
    this.#view = new DataView(vv.bytes.buffer, vv.bytes.byteOffset, vv.bytes.byteLength);
    this.shape = new Int32Array(this.dims);
  }

  get bytes(): Uint8Array { return this.#v.bytes; }

  isNull(i: number): boolean {
    return this.#v.nulls !== null && this.#v.nulls[i] === 1;
  }

  /** Opens row i (not NULL): fills shape, start and count. */
  open(i: number): void {
    let at = this.#v.offsets[i]!;
    let count = 1;
    for (let d = 0; d < this.dims; d++) { const s = this.#view.getInt32(at, true); this.shape[d] = s; count *= s; at += 4; }
    this.start = at;
    this.count = count;
  }

  /** Element k (row-major) of the row last opened. */
  element(k: number): number {
    return this.#view.getFloat64(this.start + 8 * k, true);
  }
}

/**
 * Row i as QuestDB prints an array in text (CSV, casts): `[1.0,2.5]`, nested
 * per dimension, NaN as `null`; null for a NULL array.
 */
export function formatArrayAt(r: ArrayReader, i: number): string | null {
  if (r.isNull(i)) return null;
  r.open(i);
  let k = 0;
  const nest = (d: number): string => {
    const len = r.shape[d]!;
    let s = '[';
    for (let j = 0; j < len; j++) {
      if (j > 0) s += ',';
      if (d === r.dims - 1) { const x = r.element(k++); s += x !== x ? 'null' : formatDouble(x); } else s += nest(d + 1);
    }
    return s + ']';
  };
  return nest(0);
}

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
  if (argTypes.some((t) => t !== sub && t !== 'NULL')) return `sub-arrays must all have the same type, found ${argTypes.join(', ')}`;
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
    if (readers.some((r) => r.isNull(i))) { b.nullRow(); continue; }
    const first = readers[0]!;
    first.open(i);
    shape.set(first.shape, 1);
    for (const r of readers) {
      r.open(i);
      for (let d = 0; d < r.dims; d++) {
        // No position: the evaluator places the error at the ARRAY call.
        if (r.shape[d] !== first.shape[d]) throw new SvcError('SQL', 'sub-arrays don\'t match in size');
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
        if (out) out[i] = NaN; else b!.nullRow();
        continue;
      }
      r.open(i);
      // Row-major offset of the selected block; any index outside [1, len] leaves it out of range.
      let offset = 0, inRange = true;
      for (let d = 0; d < k; d++) {
        const x = Math.trunc(idx[d]![i]!), len = r.shape[d]!;
        if (x < 1 || x > len) { inRange = false; break; }
        offset = offset * len + (x - 1);
      }
      let block = 1;
      for (let d = k; d < r.dims; d++) block *= r.shape[d]!;
      if (out) { out[i] = inRange ? r.element(offset) : NaN; continue; }
      if (inRange) { for (let d = k; d < r.dims; d++) subShape[d - k] = r.shape[d]!; } else subShape.fill(0);
      b!.begin(subShape);
      if (inRange) b!.copyElements(r.bytes, r.start + 8 * offset * block, block);
      b!.end();
    }
    return out ? { kind: 'fixed', type: 'DOUBLE', data: out } : b!.finish();
  };
}

export function registerArrays(): void {
  registerScalar({
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
  registerScalar({
    name: '[]',
    resolve(argTypes) {
      const arr = argTypes[0]!;
      if (!isArrayType(arr)) return `there is no matching operator \`[]\` with the argument types: ${argTypes.join(', ')}`;
      const dims = arrayDims(arr as ColumnType);
      const k = argTypes.length - 1;
      if (k > dims) return `too many array indexes [dims=${dims}, indexes=${k}]`;
      const bad = argTypes.findIndex((t, j) => j > 0 && t !== 'NULL' && t !== 'INT' && t !== 'SHORT' && t !== 'BYTE' && t !== 'LONG');
      if (bad > 0) return { message: `array index must be an integer, found ${argTypes[bad]}`, arg: bad };
      const type: SqlType = k === dims ? 'DOUBLE' : arrayType(dims - k);
      return { type, argTypes: [arr, ...argTypes.slice(1).map((t) => (t === 'LONG' ? 'LONG' : 'INT'))], deterministic: true, kernel: accessKernel(type) };
    },
  });
}

/**
 * Arrays from their text form (formatArrayAt's: `[[1.0,2.0],[3.0,4.0]]`, `null` elements
 * NaN), null for NULL: group and join keys carry arrays as this text and back.
 */
export function arraysFromTexts(type: ColumnType, texts: readonly (string | null)[]): VarVector {
  const dims = arrayDims(type);
  const b = new ArrayVectorBuilder(type, texts.length);
  const shape = new Int32Array(dims);
  const values: number[] = [];
  for (const t of texts) {
    if (t === null) { b.nullRow(); continue; }
    values.length = 0;
    shape.fill(-1);
    let at = 0;
    const parse = (d: number): void => {
      if (t[at] !== '[') throw new Error(`bad array text: ${t}`);
      at++;
      let len = 0;
      while (t[at] !== ']') {
        if (len > 0) { if (t[at] !== ',') throw new Error(`bad array text: ${t}`); at++; }
        if (d === dims - 1) {
          let end = at;
          while (end < t.length && t[end] !== ',' && t[end] !== ']') end++;
          const s = t.slice(at, end);
          values.push(s === 'null' ? NaN : Number(s));
          at = end;
        } else parse(d + 1);
        len++;
      }
      at++;
      shape[d] = len;
    };
    parse(0);
    // An empty outer dimension leaves the inner ones unseen: they are empty too.
    for (let d = 0; d < dims; d++) if (shape[d]! < 0) shape[d] = 0;
    b.begin(shape);
    for (const x of values) b.element(x);
    b.end();
  }
  return b.finish();
}
