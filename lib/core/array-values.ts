// DOUBLE array values (DOUBLE[], DOUBLE[][], ...): a row is var-layout bytes, the shape
// (one int32 per dimension) then the elements as row-major float64, little-endian;
// NULL is the vector's null flag (an empty array has shape 0). The builder, the
// reader and the text form `[1.0,2.5]` (both ways).
import { arrayDims, typeKind, type ColumnType } from './column-type.js';
import type { ColumnVector, VarVector } from './column-vector.js';
import type { SqlType } from './sql-type.js';
import { formatDouble } from './number-format.js';
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

  constructor(
    readonly type: ColumnType,
    rows: number,
    bytesHint = rows * 16,
  ) {
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
    for (let d = 0; d < shape.length; d++) {
      this.#view.setInt32(this.#at, shape[d]!, true);
      this.#at += 4;
    }
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
    return {
      kind: 'var',
      type: this.type,
      bytes: this.#bytes.subarray(0, this.#at),
      offsets: this.#offsets,
      nulls: this.#nulls,
    };
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
    this.dims = arrayDims(v.type);
    this.#view = new DataView(vv.bytes.buffer, vv.bytes.byteOffset, vv.bytes.byteLength);
    this.shape = new Int32Array(this.dims);
  }

  get bytes(): Uint8Array {
    return this.#v.bytes;
  }

  isNull(i: number): boolean {
    return this.#v.nulls !== null && this.#v.nulls[i] === 1;
  }

  /** Opens row i (not NULL): fills shape, start and count. */
  open(i: number): void {
    let at = this.#v.offsets[i]!;
    let count = 1;
    for (let d = 0; d < this.dims; d++) {
      const s = this.#view.getInt32(at, true);
      this.shape[d] = s;
      count *= s;
      at += 4;
    }
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
 * per dimension, NaN and infinities as `null` (QuestDB 9's text); null for a NULL array.
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
      if (d === r.dims - 1) {
        const x = r.element(k++);
        s += x !== x || x === Infinity || x === -Infinity ? 'null' : formatDouble(x);
      } else s += nest(d + 1);
    }
    return s + ']';
  };
  return nest(0);
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
    if (t === null) {
      b.nullRow();
      continue;
    }
    values.length = 0;
    shape.fill(-1);
    let at = 0;
    const parse = (d: number): void => {
      if (t[at] !== '[') throw new Error(`bad array text: ${t}`);
      at++;
      let len = 0;
      while (t[at] !== ']') {
        if (len > 0) {
          if (t[at] !== ',') throw new Error(`bad array text: ${t}`);
          at++;
        }
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

/**
 * An array's text as a user writes it (CAST('[[1, 2], [3, 4]]' AS DOUBLE[][])): whitespace and
 * line breaks anywhere between the tokens, numbers as JSON or SQL write them, `null` (or NaN) a
 * NULL element; `dims` levels of brackets, every row of a level as long as the others. Null when
 * the text is not such an array.
 */
export function parseArrayText(text: string, dims: number): { shape: number[]; values: number[] } | null {
  const shape = new Array<number>(dims).fill(-1);
  const values: number[] = [];
  let at = 0;
  const skip = (): void => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };
  const level = (d: number): boolean => {
    skip();
    if (text[at] !== '[') return false;
    at++;
    skip();
    let len = 0;
    while (text[at] !== ']') {
      if (len > 0) {
        if (text[at] !== ',') return false;
        at++;
        skip();
      }
      if (d === dims - 1) {
        const m = /^[^\s,\]]+/.exec(text.slice(at, at + 64));
        if (!m) return false;
        const s = m[0];
        const lower = s.toLowerCase();
        const x =
          lower === 'null' || lower === 'nan'
            ? NaN
            : /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s)
              ? Number(s)
              : null;
        if (x === null) return false;
        values.push(x);
        at += s.length;
      } else if (!level(d + 1)) return false;
      skip();
      len++;
    }
    at++;
    if (shape[d] === -1) shape[d] = len;
    else if (shape[d] !== len) return false;
    return true;
  };
  if (!level(0)) return null;
  skip();
  if (at !== text.length) return null;
  // An empty outer dimension leaves the inner ones unseen: they are empty too.
  for (let d = 0; d < dims; d++) if (shape[d]! < 0) shape[d] = 0;
  return { shape, values };
}

/** Arrays of `type` from texts parseArrayText reads; NULL for NULL and for text that is no such array. */
export function arraysFromUserTexts(type: ColumnType, texts: readonly (string | null)[]): VarVector {
  const dims = arrayDims(type);
  const b = new ArrayVectorBuilder(type, texts.length);
  for (const t of texts) {
    const parsed = t === null ? null : parseArrayText(t, dims);
    if (parsed === null) {
      b.nullRow();
      continue;
    }
    b.begin(Int32Array.from(parsed.shape));
    for (const x of parsed.values) b.element(x);
    b.end();
  }
  return b.finish();
}
