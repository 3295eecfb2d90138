// Helpers for function kernels: reading any vector as numbers or text,
// building result vectors, constants repeated to a batch length. Kernels work
// on whole vectors; these keep their loops short.
import { INT_NULL, LONG_NULL, decimalSpec, geohashBits, typeInfo, typeKind, type ColumnType } from './column-type.js';
import { isDecimalNull, parseDecimalText, putDecimal } from './decimal.js';
import { isGeohashNull, parseGeohashBinary, parseGeohashChars, putGeohash } from './geohash.js';
import { nullVector, type ColumnVector, type FixedVector, type VarVector, f64ToInt64 } from './column-vector.js';
import { parseUuidText } from './parse-text.js';
import type { SqlType } from './sql-type.js';

const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** Rows in a vector. */
export function length(v: ColumnVector): number {
  if (v.kind === 'symbol') return v.keys.length;
  if (v.kind === 'var') return v.offsets.length - 1;
  const w = typeInfo(v.type).stride;
  return v.data.length / w;
}

/**
 * Any numeric, temporal, boolean or char vector as doubles, NULL as NaN. The
 * returned array may be the vector's own (DOUBLE): never write to it.
 */
export function asDoubles(v: ColumnVector): Float64Array {
  if (v.kind !== 'fixed') throw new Error(`not a numeric vector: ${v.type}`);
  const d = v.data;
  if (v.type === 'DOUBLE') return d as Float64Array;
  const n = d.length;
  const out = new Float64Array(n);
  switch (v.type) {
    case 'INT':
      for (let i = 0; i < n; i++) {
        const x = d[i]!;
        out[i] = x === INT_NULL ? NaN : x;
      }
      break;
    case 'LONG':
    case 'TIMESTAMP':
    case 'DATE':
    case 'TIMESTAMP_NS':
      for (let i = 0; i < n; i++) {
        const x = d[i]!;
        out[i] = x === LONG_NULL ? NaN : x;
      }
      break;
    case 'CHAR':
    case 'IPV4':
      for (let i = 0; i < n; i++) {
        const x = d[i]!;
        out[i] = x === 0 ? NaN : x;
      }
      break;
    default:
      for (let i = 0; i < n; i++) out[i] = d[i]!;
  }
  return out;
}

/** Row i of a text-like vector as a string (null for NULL). Allocates: not for hot loops over numbers. */
export function textAt(v: ColumnVector, i: number): string | null {
  switch (v.kind) {
    case 'symbol': {
      const k = v.keys[i]!;
      return k < 0 ? null : (v.dict[k] ?? null);
    }
    case 'var':
      return v.nulls && v.nulls[i] ? null : decoder.decode(v.bytes.subarray(v.offsets[i], v.offsets[i + 1]));
    case 'fixed': {
      if (v.type === 'CHAR') {
        const c = v.data[i]!;
        return c === 0 ? null : String.fromCharCode(c);
      }
      throw new Error(`not a text vector: ${v.type}`);
    }
  }
}

/** Every row of a text-like vector as strings. */
export function texts(v: ColumnVector): (string | null)[] {
  const n = length(v);
  const out = new Array<string | null>(n);
  for (let i = 0; i < n; i++) out[i] = textAt(v, i);
  return out;
}

export function doubleVector(data: Float64Array): FixedVector {
  return { kind: 'fixed', type: 'DOUBLE', data };
}
export function intVector(data: Int32Array): FixedVector {
  return { kind: 'fixed', type: 'INT', data };
}
/** LONG, TIMESTAMP or DATE values as doubles (NULL -2^63). */
export function longVector(type: 'LONG' | 'TIMESTAMP' | 'DATE', data: Float64Array): FixedVector {
  return { kind: 'fixed', type, data };
}
export function boolVector(data: Uint8Array): FixedVector {
  return { kind: 'fixed', type: 'BOOLEAN', data };
}

/** Strings -> a text vector of `type` (STRING or VARCHAR). */
export function textVector(type: 'STRING' | 'VARCHAR', values: readonly (string | null)[]): VarVector {
  const n = values.length;
  const offsets = new Int32Array(n + 1);
  let nulls: Uint8Array | null = null;
  // Fast path: one encode of all values joined; when that is pure ASCII, offsets are character counts.
  let joined = '';
  for (let i = 0; i < n; i++) {
    const s = values[i];
    if (s === null || s === undefined) (nulls ??= new Uint8Array(n))[i] = 1;
    else joined += s;
    offsets[i + 1] = joined.length;
  }
  const all = encoder.encode(joined);
  if (all.length === joined.length) return { kind: 'var', type, bytes: all, offsets, nulls };
  if (!/[\uD800-\uDFFF]/.test(joined)) {
    // No surrogates: a string's UTF-8 length follows from its characters, so the one encode still serves.
    let total = 0;
    for (let i = 0; i < n; i++) {
      const s = values[i];
      if (s !== null && s !== undefined) {
        for (let k = 0; k < s.length; k++) {
          const c = s.charCodeAt(k);
          total += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        }
      }
      offsets[i + 1] = total;
    }
    return { kind: 'var', type, bytes: all, offsets, nulls };
  }
  nulls = null;
  const parts: Uint8Array[] = [];
  let total = 0;
  for (let i = 0; i < n; i++) {
    const s = values[i];
    if (s === null || s === undefined) {
      (nulls ??= new Uint8Array(n))[i] = 1;
    } else {
      const b = encoder.encode(s);
      parts.push(b);
      total += b.length;
    }
    offsets[i + 1] = total;
  }
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    bytes.set(p, at);
    at += p.length;
  }
  return { kind: 'var', type, bytes, offsets, nulls };
}

/** A vector of `n` copies of a constant (null -> NULL) of `type`. */
export function constantVector(type: SqlType, value: number | string | boolean | null, n: number): ColumnVector {
  const t: ColumnType = type === 'NULL' ? 'DOUBLE' : type;
  // An array constant is only ever NULL (ARRAY[...] is a call).
  if (value === null && t.startsWith('DOUBLE[')) return nullVector(t, n);
  switch (t) {
    case 'BOOLEAN':
      return { kind: 'fixed', type: t, data: new Uint8Array(n).fill(value ? 1 : 0) };
    case 'BYTE':
      return { kind: 'fixed', type: t, data: new Int8Array(n).fill(Number(value ?? 0)) };
    case 'SHORT':
      return { kind: 'fixed', type: t, data: new Int16Array(n).fill(Number(value ?? 0)) };
    case 'CHAR':
      return {
        kind: 'fixed',
        type: t,
        data: new Uint16Array(n).fill(typeof value === 'string' ? value.charCodeAt(0) || 0 : 0),
      };
    case 'INT':
    case 'IPV4':
      return {
        kind: 'fixed',
        type: t,
        data: new Int32Array(n).fill(value === null ? (t === 'INT' ? INT_NULL : 0) : Number(value)),
      };
    case 'LONG':
    case 'TIMESTAMP':
    case 'DATE':
    case 'TIMESTAMP_NS':
      return fromDoubles(t, new Float64Array(n).fill(value === null ? NaN : Number(value)));
    case 'FLOAT':
      return { kind: 'fixed', type: t, data: new Float32Array(n).fill(value === null ? NaN : Number(value)) };
    case 'DOUBLE':
      return { kind: 'fixed', type: t, data: new Float64Array(n).fill(value === null ? NaN : Number(value)) };
    case 'SYMBOL':
      return {
        kind: 'symbol',
        type: 'SYMBOL',
        keys: new Int32Array(n).fill(value === null ? -1 : 0),
        dict: value === null ? [] : [String(value)],
      };
    case 'STRING':
    case 'VARCHAR':
    case 'BINARY': {
      if (value === null)
        return {
          kind: 'var',
          type: t,
          bytes: new Uint8Array(0),
          offsets: new Int32Array(n + 1),
          nulls: new Uint8Array(n).fill(1),
        };
      const b = encoder.encode(String(value));
      const bytes = new Uint8Array(b.length * n);
      const offsets = new Int32Array(n + 1);
      for (let i = 0; i < n; i++) {
        bytes.set(b, i * b.length);
        offsets[i + 1] = (i + 1) * b.length;
      }
      return { kind: 'var', type: t, bytes, offsets, nulls: null };
    }
    case 'UUID':
    case 'LONG128':
    case 'LONG256':
    case 'INTERVAL': {
      const v = nullVector(t, n);
      if (value === null) return v;
      const data = (v as FixedVector).data as Uint8Array;
      const w = typeInfo(t).width;
      const one = new Uint8Array(w);
      if (t !== 'UUID' || !parseUuidText(String(value), one, 0))
        throw new Error(`no constant vector for ${t} from ${typeof value}`);
      for (let i = 0; i < n; i++) data.set(one, i * w);
      return v;
    }
    default: {
      // GEOHASH and DECIMAL constants hold their text as QuestDB prints it (u33d, 0101, 12.50).
      const kind = typeKind(t);
      if (kind !== 'GEOHASH' && kind !== 'DECIMAL') throw new Error(`no constant vector for ${t}`);
      const v = nullVector(t, n) as FixedVector;
      if (value === null) return v;
      const w = typeInfo(t).width;
      const one = new Uint8Array(w);
      if (kind === 'GEOHASH') {
        const bits = geohashBits(t);
        const text = String(value);
        const p = bits % 5 === 0 ? parseGeohashChars(text) : parseGeohashBinary(text);
        if (p === null || p.bits !== bits) throw new Error(`not a ${t} constant: ${text}`);
        putGeohash(one, 0, w, p.value);
      } else {
        const x = parseDecimalText(String(value), decimalSpec(t).scale);
        if (x === null) throw new Error(`not a ${t} constant: ${String(value)}`);
        putDecimal(one, 0, w, x);
      }
      const data = v.data as Uint8Array;
      for (let i = 0; i < n; i++) data.set(one, i * w);
      return v;
    }
  }
}

/**
 * Doubles (NaN = NULL) -> a vector of a numeric, temporal, boolean or char
 * `type`: INT and LONG-family get their sentinels, types without NULL get 0.
 * Integral values must already be integers. `values` may be adopted (DOUBLE).
 */
export function fromDoubles(type: SqlType, values: Float64Array): FixedVector {
  const n = values.length;
  switch (type) {
    case 'DOUBLE':
    case 'NULL':
      return { kind: 'fixed', type: 'DOUBLE', data: values };
    case 'FLOAT':
      return { kind: 'fixed', type, data: Float32Array.from(values) };
    case 'INT': {
      const out = new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const x = values[i]!;
        out[i] = x !== x ? INT_NULL : x;
      }
      return { kind: 'fixed', type, data: out };
    }
    case 'LONG':
    case 'TIMESTAMP':
    case 'DATE':
    case 'TIMESTAMP_NS': {
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const x = values[i]!;
        out[i] = x !== x ? LONG_NULL : x;
      }
      // TIMESTAMP_NS vectors always carry their int64 pairs (hasExactPairs).
      return type === 'TIMESTAMP_NS'
        ? { kind: 'fixed', type, data: out, exact: f64ToInt64(out) }
        : { kind: 'fixed', type, data: out };
    }
    case 'BOOLEAN':
    case 'BYTE':
    case 'SHORT':
    case 'CHAR':
    case 'IPV4': {
      const out =
        type === 'BOOLEAN'
          ? new Uint8Array(n)
          : type === 'BYTE'
            ? new Int8Array(n)
            : type === 'SHORT'
              ? new Int16Array(n)
              : type === 'CHAR'
                ? new Uint16Array(n)
                : new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const x = values[i]!;
        out[i] = x !== x ? 0 : x;
      }
      return { kind: 'fixed', type, data: out };
    }
    default:
      throw new Error(`no numeric vector for ${type}`);
  }
}

/** 1 where row i is NULL (BOOLEAN, BYTE and SHORT never are). */
export function nullFlags(v: ColumnVector): Uint8Array {
  const n = length(v);
  const out = new Uint8Array(n);
  switch (v.kind) {
    case 'symbol':
      for (let i = 0; i < n; i++) out[i] = v.keys[i]! < 0 ? 1 : 0;
      break;
    case 'var':
      if (v.nulls) out.set(v.nulls.subarray(0, n));
      break;
    case 'fixed': {
      const d = v.data;
      switch (v.type) {
        case 'INT':
          for (let i = 0; i < n; i++) out[i] = d[i] === INT_NULL ? 1 : 0;
          break;
        case 'LONG':
        case 'TIMESTAMP':
        case 'DATE':
        case 'TIMESTAMP_NS':
          for (let i = 0; i < n; i++) out[i] = d[i] === LONG_NULL ? 1 : 0;
          break;
        case 'FLOAT':
        case 'DOUBLE':
          for (let i = 0; i < n; i++) {
            const x = d[i]!;
            out[i] = x !== x ? 1 : 0;
          }
          break;
        case 'CHAR':
        case 'IPV4':
          for (let i = 0; i < n; i++) out[i] = d[i] === 0 ? 1 : 0;
          break;
        case 'UUID':
        case 'LONG128':
        case 'LONG256':
        case 'INTERVAL': {
          // NULL: every 64-bit lane is -2^63 (bytes 0..6 zero, byte 7 0x80).
          const w = v.type === 'LONG256' ? 32 : 16;
          for (let i = 0; i < n; i++) {
            let isNull = 1;
            for (let b = 0; b < w && isNull; b++) isNull = d[i * w + b] === ((b & 7) === 7 ? 0x80 : 0) ? 1 : 0;
            out[i] = isNull;
          }
          break;
        }
        default: {
          const kind = typeKind(v.type);
          const w = typeInfo(v.type).width;
          const b = d as Uint8Array;
          if (kind === 'GEOHASH') for (let i = 0; i < n; i++) out[i] = isGeohashNull(b, i, w) ? 1 : 0;
          else if (kind === 'DECIMAL') for (let i = 0; i < n; i++) out[i] = isDecimalNull(b, i, w) ? 1 : 0;
          break;
        }
      }
    }
  }
  return out;
}

/** A BOOLEAN vector's 0/1 bytes (a NULL-typed argument, a DOUBLE NaN vector, reads as all false). */
export function boolsOf(v: ColumnVector): Uint8Array {
  if (v.kind === 'fixed' && v.type === 'BOOLEAN') return v.data as Uint8Array;
  return new Uint8Array(length(v));
}
