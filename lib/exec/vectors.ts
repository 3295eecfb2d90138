// Row-level helpers over column vectors for the operators that need values
// (group keys, join keys, metadata rows) and for tests: a value out of a
// vector, vectors built from values, and a constant's row repeated.
import { retypeVar } from '../core/vector-ops.js';
import { INT_NULL, LONG_NULL, isByteRows, typeInfo, typeKind, type ColumnType } from '../core/column-type.js';
import { isDecimalNull } from '../core/decimal.js';
import { isGeohashNull } from '../core/geohash.js';
import {
  nullVector,
  rowsOf,
  symbolsFromStrings,
  type ColumnVector,
  type FixedArray,
  type FixedVector,
} from '../core/column-vector.js';
import { textAt, textVector } from '../core/vec.js';
import { renderAt } from '../core/render.js';
import { nanosFromTexts } from '../core/nanos.js';
import { arraysFromTexts, isArrayType } from '../core/array-values.js';
import type { SqlType } from '../core/sql-type.js';

export type Value = number | string | boolean | null;

/** Row i of a vector as a JS value; NULL as null. */
export function valueAt(v: ColumnVector, i: number): Value {
  // Arrays as their text (every double's shortest digits: lossless), which fromValues reads back.
  if (v.kind === 'var' && isArrayType(v.type)) return renderAt(v, i);
  if (v.kind !== 'fixed') return textAt(v, i);
  const x = v.data[i]!;
  switch (v.type) {
    case 'BOOLEAN':
      return x === 1;
    case 'INT':
      return x === INT_NULL ? null : x;
    case 'LONG':
    case 'TIMESTAMP':
    case 'DATE':
      return x === LONG_NULL ? null : x;
    // Nanoseconds as their ISO text: a double would merge neighbouring values (group and join keys).
    case 'TIMESTAMP_NS':
      return renderAt(v, i);
    case 'FLOAT':
    case 'DOUBLE':
      return Number.isNaN(x) ? null : x;
    case 'CHAR':
      return x === 0 ? null : String.fromCharCode(x);
    case 'IPV4':
      return x === 0 ? null : x >>> 0;
    case 'UUID':
    case 'LONG128':
    case 'LONG256':
    case 'INTERVAL': {
      const w = v.type === 'LONG256' ? 32 : 16;
      const b = (v.data as Uint8Array).subarray(i * w, i * w + w);
      return Buffer.from(b).toString('hex');
    }
    default: {
      // GEOHASH and DECIMAL: their bytes as hex (a key; NULL is one byte pattern), or null for NULL.
      if (!isByteRows(v.type)) return x;
      const w = typeInfo(v.type).stride;
      const b = v.data as Uint8Array;
      if (typeKind(v.type) === 'GEOHASH' ? isGeohashNull(b, i, w) : isDecimalNull(b, i, w)) return null;
      return Buffer.from(b.subarray(i * w, i * w + w)).toString('hex');
    }
  }
}

/** A vector of `type` from JS values (null = NULL). */
export function fromValues(type: SqlType, values: readonly Value[]): ColumnVector {
  const n = values.length;
  if (isArrayType(type))
    return arraysFromTexts(
      type as ColumnType,
      values.map((x) => (x === null ? null : String(x))),
    );
  switch (type) {
    case 'BOOLEAN':
      return { kind: 'fixed', type, data: Uint8Array.from(values, (x) => (x ? 1 : 0)) };
    case 'BYTE':
      return { kind: 'fixed', type, data: Int8Array.from(values, (x) => Number(x ?? 0)) };
    case 'SHORT':
      return { kind: 'fixed', type, data: Int16Array.from(values, (x) => Number(x ?? 0)) };
    case 'CHAR':
      return { kind: 'fixed', type, data: Uint16Array.from(values, (x) => (x === null ? 0 : String(x).charCodeAt(0))) };
    case 'INT':
      return { kind: 'fixed', type, data: Int32Array.from(values, (x) => (x === null ? INT_NULL : Number(x))) };
    case 'IPV4':
      return { kind: 'fixed', type, data: Int32Array.from(values, (x) => (x === null ? 0 : Number(x) | 0)) };
    case 'LONG':
    case 'TIMESTAMP':
    case 'DATE':
      return { kind: 'fixed', type, data: Float64Array.from(values, (x) => (x === null ? LONG_NULL : Number(x))) };
    case 'TIMESTAMP_NS':
      return nanosFromTexts(values.map((x) => (x === null ? null : String(x))));
    case 'FLOAT':
      return { kind: 'fixed', type, data: Float32Array.from(values, (x) => (x === null ? NaN : Number(x))) };
    case 'DOUBLE':
    case 'NULL':
      return { kind: 'fixed', type: 'DOUBLE', data: Float64Array.from(values, (x) => (x === null ? NaN : Number(x))) };
    case 'SYMBOL':
      return symbolsFromStrings(values.map((x) => (x === null ? null : String(x))));
    case 'STRING':
    case 'VARCHAR':
      return textVector(
        type,
        values.map((x) => (x === null ? null : String(x))),
      );
    case 'UUID':
    case 'LONG128':
    case 'LONG256':
    case 'INTERVAL': {
      // Values are the hex text valueAt gives; NULL is every 64-bit lane at -2^63.
      const w = type === 'LONG256' ? 32 : 16;
      const data = new Uint8Array(n * w);
      values.forEach((x, i) => {
        if (x === null) {
          for (let k = 7; k < w; k += 8) data[i * w + k] = 0x80;
          return;
        }
        data.set(Buffer.from(String(x), 'hex').subarray(0, w), i * w);
      });
      return { kind: 'fixed', type, data };
    }
    case 'BINARY': {
      const v = textVector(
        'VARCHAR',
        values.map((x) => (x === null ? null : String(x))),
      );
      return retypeVar(v, 'BINARY');
    }
    default: {
      if (!isByteRows(type)) throw new Error(`cannot build a ${type} vector from values (${n})`);
      // GEOHASH and DECIMAL from the hex valueAt gives (null: NULL).
      const out = nullVector(type, n) as FixedVector;
      const w = typeInfo(type).stride;
      values.forEach((x, i) => {
        if (x !== null) (out.data as Uint8Array).set(Buffer.from(String(x), 'hex').subarray(0, w), i * w);
      });
      return out;
    }
  }
}

/** Bytes one row of `v` takes (a vector of one row: a constant's value). */
export function rowBytes(v: ColumnVector): number {
  switch (v.kind) {
    case 'fixed':
      return v.data.byteLength + (v.exact?.byteLength ?? 0);
    case 'symbol':
      return 4;
    case 'var':
      return v.bytes.byteLength + 5;
  }
}

/** `n` copies of row 0 of `v` (a constant's vector for a batch). */
export function repeatRow(v: ColumnVector, n: number): ColumnVector {
  switch (v.kind) {
    case 'symbol':
      return { kind: 'symbol', type: 'SYMBOL', keys: new Int32Array(n).fill(v.keys[0]!), dict: v.dict };
    case 'fixed': {
      const w = v.data.length / Math.max(1, rowsOf(v));
      const C = v.data.constructor as { new (len: number): FixedArray };
      const data = new C(n * w);
      if (w === 1) data.fill(v.data[0]!);
      else repeatPattern(data as Uint8Array, v.data as Uint8Array, n);
      let exact: Int32Array | undefined;
      if (v.exact) {
        exact = new Int32Array(2 * n);
        for (let i = 0; i < n; i++) {
          exact[2 * i] = v.exact[0]!;
          exact[2 * i + 1] = v.exact[1]!;
        }
      }
      return { kind: 'fixed', type: v.type, data, exact };
    }
    case 'var': {
      if (v.nulls && v.nulls[0])
        return {
          kind: 'var',
          type: v.type,
          bytes: new Uint8Array(0),
          offsets: new Int32Array(n + 1),
          nulls: new Uint8Array(n).fill(1),
        };
      const one = v.bytes.subarray(v.offsets[0], v.offsets[1]);
      const len = one.length;
      const bytes = new Uint8Array(len * n);
      if (len > 0) repeatPattern(bytes, one, n);
      const offsets = new Int32Array(n + 1);
      for (let i = 1; i <= n; i++) offsets[i] = i * len;
      return { kind: 'var', type: v.type, bytes, offsets, nulls: null };
    }
  }
}

/** `out` filled with `n` copies of `one` (doubling copies: log2(n) calls). */
function repeatPattern(out: Uint8Array, one: Uint8Array, n: number): void {
  out.set(one, 0);
  let filled = one.length;
  const total = one.length * n;
  while (filled < total) {
    const k = Math.min(filled, total - filled);
    out.copyWithin(filled, 0, k);
    filled += k;
  }
}

/** A string identifying row i's values across `cols` (group, distinct and join keys). */
export function rowKey(cols: readonly ColumnVector[], i: number): string {
  if (cols.length === 1) return keyPart(cols[0]!, i);
  let k = '';
  for (const c of cols) k += keyPart(c, i) + '\u0000';
  return k;
}

function keyPart(v: ColumnVector, i: number): string {
  const x = valueAt(v, i);
  return x === null ? '\u0001null' : typeof x === 'string' ? 's' + x : String(x);
}
