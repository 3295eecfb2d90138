// read_parquet's values -> column vectors: hyparquet's decoded column (numbers,
// bigints, byte arrays, nested arrays; null or undefined for NULL) as the
// typed arrays and byte buffers of the column's svcdb type, NULLs as svcdb's
// sentinels. One conversion per ParquetConversion (sql/parquet-source.ts).
import { INT_NULL, LONG_NULL, arrayDims, geohashBits, typeInfo, type ColumnType } from '../core/column-type.js';
import { int64ToF64Into, type ColumnVector, type FixedVector, type VarVector } from '../core/column-vector.js';
import { geohashFromText, parseGeohashBinary, putGeohash } from '../core/geohash.js';
import { ArrayVectorBuilder } from '../core/array-values.js';
import { nanosVector } from '../core/nanos.js';
import type { ParquetColumn } from '../sql/parquet-source.js';

/** A decoded column: a typed array, or an array of values with null / undefined for NULL. */
export type Decoded = ArrayLike<unknown>;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** The rows of `values` (all of them) as a vector of the column's type. */
export function toVector(col: ParquetColumn, values: Decoded): ColumnVector {
  const n = values.length;
  const type = col.type;
  switch (col.conversion) {
    case 'boolean': {
      const data = new Uint8Array(n);
      for (let i = 0; i < n; i++) data[i] = values[i] === true ? 1 : 0;
      return { kind: 'fixed', type, data };
    }
    case 'int': {
      // BYTE and SHORT have no NULL in QuestDB: 0, as its readers give.
      const data = type === 'BYTE' ? new Int8Array(n) : type === 'SHORT' ? new Int16Array(n) : new Int32Array(n);
      const nul = type === 'INT' ? INT_NULL : 0;
      for (let i = 0; i < n; i++) {
        const x = values[i];
        data[i] = x === null || x === undefined ? nul : Number(x);
      }
      return { kind: 'fixed', type, data };
    }
    case 'ipv4': {
      const data = new Int32Array(n);
      for (let i = 0; i < n; i++) data[i] = Number(values[i] ?? 0) | 0;
      return { kind: 'fixed', type, data };
    }
    case 'long':
      return longVector(values);
    case 'float':
    case 'double': {
      const data = col.conversion === 'float' ? new Float32Array(n) : new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const x = values[i];
        data[i] = x === null || x === undefined ? NaN : Number(x);
      }
      return { kind: 'fixed', type, data };
    }
    case 'timestampMillis':
    case 'dateMillis':
      return int64Scaled(type, values, 1000n, col.conversion === 'dateMillis' ? 1 : 1000);
    case 'timestampMicros':
      return int64Scaled(type, values, 1n, 1);
    case 'timestampNanos':
      return int64Scaled(type, values, 1000n, 0);
    case 'timestampNs':
      return nanosVector(pairsOf(values));
    case 'dateDays': {
      const data = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const x = values[i];
        data[i] = x === null || x === undefined ? LONG_NULL : Number(x) * 86_400_000;
      }
      return { kind: 'fixed', type, data };
    }
    case 'varchar':
    case 'binary':
      return bytesVector(type, values);
    case 'char': {
      const data = new Uint16Array(n);
      for (let i = 0; i < n; i++) {
        const x = values[i];
        data[i] = x === null || x === undefined ? 0 : textOf(x).charCodeAt(0) || 0;
      }
      return { kind: 'fixed', type, data };
    }
    case 'geohash':
      return geohashVector(type, values);
    case 'uuid':
    case 'long256':
      return reversedFixed(type, values, col.conversion === 'uuid' ? 16 : 32);
    case 'doubleArray':
      return arrayVector(type, values);
  }
}

function textOf(x: unknown): string {
  return x instanceof Uint8Array ? decoder.decode(x) : String(x);
}

function bytesOf(x: unknown): Uint8Array {
  return x instanceof Uint8Array ? x : encoder.encode(String(x));
}

/** An int64 value (bigint, or a number from an unsigned INT32) as a bigint. */
function bigOf(x: unknown): bigint {
  return typeof x === 'bigint' ? BigInt.asIntN(64, x) : BigInt(Math.trunc(Number(x)));
}

/** The int64 (lo, hi) pairs of the values; NULL as LONG's NULL pair. */
function pairsOf(values: Decoded): Int32Array {
  const n = values.length;
  const pairs = new Int32Array(2 * n);
  for (let i = 0; i < n; i++) {
    const x = values[i];
    if (x === null || x === undefined) {
      pairs[2 * i + 1] = INT_NULL;
      continue;
    }
    if (typeof x === 'number' && Number.isSafeInteger(x) && x >= -0x80000000 && x <= 0xffffffff) {
      pairs[2 * i] = x | 0;
      pairs[2 * i + 1] = x < 0 ? -1 : 0;
      continue;
    }
    const v = bigOf(x);
    pairs[2 * i] = Number(BigInt.asIntN(32, v));
    pairs[2 * i + 1] = Number(v >> 32n);
  }
  return pairs;
}

/** LONG: doubles and the exact pairs (LONG vectors always carry them). */
function longVector(values: Decoded): FixedVector {
  const pairs = pairsOf(values);
  const n = values.length;
  return { kind: 'fixed', type: 'LONG', data: int64ToF64Into(pairs, new Float64Array(n), n), exact: pairs };
}

/**
 * TIMESTAMP or DATE from int64 values: divided by `div` (rounding down: nanos to micros) when
 * `mul` is 0, else multiplied by `mul` (millis to micros; 1 keeps them). NULL is LONG's NULL.
 */
function int64Scaled(type: ColumnType, values: Decoded, div: bigint, mul: number): FixedVector {
  const n = values.length;
  const data = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const x = values[i];
    if (x === null || x === undefined) {
      data[i] = LONG_NULL;
      continue;
    }
    if (mul !== 0) {
      data[i] = Number(x) * mul;
      continue;
    }
    const v = bigOf(x);
    const r = v % div;
    data[i] = Number((v - (r < 0n ? r + div : r)) / div);
  }
  return { kind: 'fixed', type, data };
}

/** VARCHAR (UTF-8 bytes) or BINARY: one byte buffer, offsets, NULL flags. */
function bytesVector(type: ColumnType, values: Decoded): VarVector {
  const n = values.length;
  const offsets = new Int32Array(n + 1);
  let nulls: Uint8Array | null = null;
  const parts: (Uint8Array | null)[] = new Array<Uint8Array | null>(n);
  let total = 0;
  for (let i = 0; i < n; i++) {
    const x = values[i];
    if (x === null || x === undefined) {
      (nulls ??= new Uint8Array(n))[i] = 1;
      parts[i] = null;
    } else {
      const b = bytesOf(x);
      parts[i] = b;
      total += b.length;
    }
    offsets[i + 1] = total;
  }
  const bytes = new Uint8Array(total);
  for (let i = 0; i < n; i++) {
    const b = parts[i];
    if (b) bytes.set(b, offsets[i]);
  }
  return { kind: 'var', type, bytes, offsets, nulls };
}

/** GEOHASH from its text as svcdb exports it (base32, or 0/1 digits when the bits are not a multiple of 5). */
function geohashVector(type: ColumnType, values: Decoded): FixedVector {
  const n = values.length;
  const bits = geohashBits(type);
  const w = typeInfo(type).stride;
  const data = new Uint8Array(n * w);
  for (let i = 0; i < n; i++) {
    const x = values[i];
    let v: bigint | null = null;
    if (x !== null && x !== undefined) {
      const text = textOf(x);
      if (bits % 5 === 0) v = geohashFromText(text, bits);
      else {
        const b = parseGeohashBinary(text);
        v = b !== null && b.bits === bits ? b.value : null;
      }
    }
    putGeohash(data, i, w, v);
  }
  return { kind: 'fixed', type, data };
}

/** UUID and LONG256: Parquet's big-endian bytes reversed into svcdb's little-endian rows; NULL every lane at -2^63. */
function reversedFixed(type: ColumnType, values: Decoded, w: number): FixedVector {
  const n = values.length;
  const data = new Uint8Array(n * w);
  for (let i = 0; i < n; i++) {
    const x = values[i];
    const at = i * w;
    if (!(x instanceof Uint8Array) || x.length !== w) {
      for (let k = 7; k < w; k += 8) data[at + k] = 0x80;
      continue;
    }
    for (let k = 0; k < w; k++) data[at + k] = x[w - 1 - k]!;
  }
  return { kind: 'fixed', type, data };
}

/** DOUBLE arrays from nested lists: each row's shape from its first elements, rows that are not rectangular refused. */
function arrayVector(type: ColumnType, values: Decoded): VarVector {
  const n = values.length;
  const b = new ArrayVectorBuilder(type, n);
  const dims = arrayDims(type);
  const shape = new Int32Array(dims);
  for (let i = 0; i < n; i++) {
    const x = values[i];
    if (!Array.isArray(x)) {
      b.nullRow();
      continue;
    }
    let at: unknown = x;
    for (let d = 0; d < dims; d++) {
      const len = Array.isArray(at) ? at.length : 0;
      shape[d] = len;
      at = len > 0 ? (at as unknown[])[0] : undefined;
    }
    b.begin(shape);
    walk(x, 0);
    b.end();
  }
  function walk(a: unknown, d: number): void {
    if (!Array.isArray(a) || a.length !== shape[d]) throw new Error('array is not rectangular');
    if (d === dims - 1) {
      for (const e of a) b.element(e === null || e === undefined ? NaN : Number(e));
      return;
    }
    for (const e of a) walk(e, d + 1);
  }
  return b.finish();
}
