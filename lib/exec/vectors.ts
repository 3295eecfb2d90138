// Row-level helpers over column vectors for the operators that need values
// (group keys, join keys, metadata rows) and for tests: a value out of a
// vector, vectors built from values, and zero-copy prefixes.
import { INT_NULL, LONG_NULL } from '../storage/column-type.js';
import { symbolsFromStrings, type ColumnVector } from '../storage/column-vector.js';
import { textAt, textVector } from '../sql/functions/vec.js';
import type { SqlType } from '../sql/sql-type.js';

export type Value = number | string | boolean | null;

/** Row i of a vector as a JS value; NULL as null. */
export function valueAt(v: ColumnVector, i: number): Value {
  if (v.kind !== 'fixed') return textAt(v, i);
  const x = v.data[i]!;
  switch (v.type) {
    case 'BOOLEAN': return x === 1;
    case 'INT': return x === INT_NULL ? null : x;
    case 'LONG': case 'TIMESTAMP': case 'DATE': return x === LONG_NULL ? null : x;
    case 'FLOAT': case 'DOUBLE': return Number.isNaN(x) ? null : x;
    case 'CHAR': return x === 0 ? null : String.fromCharCode(x);
    case 'IPV4': return x === 0 ? null : x >>> 0;
    case 'UUID': case 'LONG256': {
      const w = v.type === 'UUID' ? 16 : 32;
      const b = (v.data as Uint8Array).subarray(i * w, i * w + w);
      return Buffer.from(b).toString('hex');
    }
    default: return x;
  }
}

/** A vector of `type` from JS values (null = NULL). */
export function fromValues(type: SqlType, values: readonly Value[]): ColumnVector {
  const n = values.length;
  switch (type) {
    case 'BOOLEAN': return { kind: 'fixed', type, data: Uint8Array.from(values, (x) => (x ? 1 : 0)) };
    case 'BYTE': return { kind: 'fixed', type, data: Int8Array.from(values, (x) => Number(x ?? 0)) };
    case 'SHORT': return { kind: 'fixed', type, data: Int16Array.from(values, (x) => Number(x ?? 0)) };
    case 'CHAR': return { kind: 'fixed', type, data: Uint16Array.from(values, (x) => (x === null ? 0 : String(x).charCodeAt(0))) };
    case 'INT': return { kind: 'fixed', type, data: Int32Array.from(values, (x) => (x === null ? INT_NULL : Number(x))) };
    case 'IPV4': return { kind: 'fixed', type, data: Int32Array.from(values, (x) => (x === null ? 0 : Number(x) | 0)) };
    case 'LONG': case 'TIMESTAMP': case 'DATE': return { kind: 'fixed', type, data: Float64Array.from(values, (x) => (x === null ? LONG_NULL : Number(x))) };
    case 'FLOAT': return { kind: 'fixed', type, data: Float32Array.from(values, (x) => (x === null ? NaN : Number(x))) };
    case 'DOUBLE': case 'NULL': return { kind: 'fixed', type: 'DOUBLE', data: Float64Array.from(values, (x) => (x === null ? NaN : Number(x))) };
    case 'SYMBOL': return symbolsFromStrings(values.map((x) => (x === null ? null : String(x))));
    case 'STRING': case 'VARCHAR': return textVector(type, values.map((x) => (x === null ? null : String(x))));
    case 'UUID': case 'LONG256': {
      // Values are the hex text valueAt gives; NULL is every 64-bit lane at -2^63.
      const w = type === 'UUID' ? 16 : 32;
      const data = new Uint8Array(n * w);
      values.forEach((x, i) => {
        if (x === null) { for (let k = 7; k < w; k += 8) data[i * w + k] = 0x80; return; }
        data.set(Buffer.from(String(x), 'hex').subarray(0, w), i * w);
      });
      return { kind: 'fixed', type, data };
    }
    case 'BINARY': {
      const v = textVector('VARCHAR', values.map((x) => (x === null ? null : String(x))));
      return { ...v, type: 'BINARY' };
    }
    default: throw new Error(`cannot build a ${type} vector from values (${n})`);
  }
}

/** The first `n` rows of `v` without copying. */
export function prefix(v: ColumnVector, n: number): ColumnVector {
  switch (v.kind) {
    case 'fixed': {
      const w = v.type === 'UUID' ? 16 : v.type === 'LONG256' ? 32 : 1;
      return { ...v, data: v.data.subarray(0, n * w), exact: v.exact?.subarray(0, n * 2) };
    }
    case 'symbol': return { ...v, keys: v.keys.subarray(0, n) };
    case 'var': return { ...v, offsets: v.offsets.subarray(0, n + 1), nulls: v.nulls?.subarray(0, n) ?? null };
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
