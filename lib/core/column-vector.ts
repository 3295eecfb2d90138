// Column vectors: how column data travels in batches (typed arrays and byte
// buffers, never boxed values) and how writer input is encoded into the
// on-disk representation (FORMAT.md). The executor builds on these types.
import { SvcError } from '../errors/svc-error.js';
import { INT_NULL, typeInfo, typeKind, hasExactPairs, isInt64, type ColumnType } from './column-type.js';

export type FixedArray = Uint8Array | Int8Array | Int16Array | Uint16Array | Int32Array | Float32Array | Float64Array;

/**
 * A fixed-width column: BOOLEAN Uint8Array (0/1), BYTE Int8Array, SHORT
 * Int16Array, CHAR Uint16Array, INT and IPV4 Int32Array, FLOAT Float32Array,
 * DOUBLE Float64Array, LONG/DATE/TIMESTAMP Float64Array of the values (exact
 * below 2^53; NULL is -2^63) with `exact` holding the raw little-endian int64
 * pairs for LONG, UUID and LONG128 Uint8Array of 16 bytes per row, LONG256 of 32,
 * INTERVAL of 16 (lo then hi: two little-endian int64 micros, both bounds included),
 * GEOHASH and DECIMAL Uint8Array of their width's bytes per row (the on-disk
 * little-endian bytes: typeInfo(t).stride).
 */
export interface FixedVector {
  readonly kind: 'fixed';
  readonly type: ColumnType;
  readonly data: FixedArray;
  /** LONG: the stored int64 values as (lo, hi) int32 pairs, for the exact bigint path. */
  readonly exact?: Int32Array;
}

/** SYMBOL: int32 keys (-1 NULL) into a dictionary. */
export interface SymbolVector {
  readonly kind: 'symbol';
  readonly type: 'SYMBOL';
  readonly keys: Int32Array;
  readonly dict: readonly string[];
}

/** STRING, VARCHAR (UTF-8) and BINARY: row i is bytes[offsets[i], offsets[i+1]); nulls[i] = 1 for NULL. */
export interface VarVector {
  readonly kind: 'var';
  readonly type: ColumnType;
  readonly bytes: Uint8Array;
  readonly offsets: Int32Array;
  readonly nulls: Uint8Array | null;
  /**
   * The same rows as codes into `dict` (0 is NULL), when the vector was read
   * from a partition whose text has few distinct values (storage/text-codes.ts).
   * Operators that hash keys map each code once instead of each row; anything
   * that makes a new vector from this one either carries both along or drops both.
   */
  readonly codes?: Uint8Array | Uint16Array;
  readonly dict?: TextDict;
}

/**
 * The distinct values of a partition's text column: code k (1..size-1) is
 * bytes [ends[k-1], ends[k]); code 0 is NULL (ends[0] = 0). A dictionary only
 * grows (the partition's later rows add codes), so a code keeps its value.
 */
export interface TextDict {
  readonly size: number;
  readonly bytes: Uint8Array;
  readonly ends: Int32Array;
}

export type ColumnVector = FixedVector | SymbolVector | VarVector;

/**
 * A var vector whose text (bytes, offsets, NULL flags) is made the first time
 * anything asks for it: read from a partition's files (storage/table-reader.ts;
 * its reader stays open until the statement ends, ExecContext.atEnd), or
 * sliced / gathered from such a vector. Rows an operator drops unread (LATEST
 * ON, a filter on another column) then cost nothing; dictionary codes, when
 * it has them, are there at once.
 */
export class LazyVarVector implements VarVector {
  readonly kind = 'var';
  readonly type: ColumnType;
  readonly codes?: Uint8Array | Uint16Array;
  readonly dict?: TextDict;
  // Own enumerable getters (defined in the constructor), so a spread of the vector reads the text
  // and copies it rather than silently leaving it out.
  declare readonly bytes: Uint8Array;
  declare readonly offsets: Int32Array;
  declare readonly nulls: Uint8Array | null;

  constructor(type: ColumnType, load: () => VarVector, codes?: Uint8Array | Uint16Array, dict?: TextDict) {
    this.type = type;
    if (codes !== undefined && dict !== undefined) {
      this.codes = codes;
      this.dict = dict;
    }
    let text: VarVector | null = null;
    const loaded = (): VarVector => (text ??= load());
    Object.defineProperties(this, {
      bytes: { get: () => loaded().bytes, enumerable: true },
      offsets: { get: () => loaded().offsets, enumerable: true },
      nulls: { get: () => loaded().nulls, enumerable: true },
    });
  }
}

/** What a writer accepts for one column: a vector, or for convenience a typed array or strings. */
export type ColumnInput = ColumnVector | FixedArray | BigInt64Array | readonly (string | null)[];

const TWO32 = 4294967296;

/** int64 pairs -> doubles (exact below 2^53). */
export function int64ToF64(pairs: Int32Array): Float64Array {
  const n = pairs.length >> 1;
  return int64ToF64Into(pairs, new Float64Array(n), n);
}

/** int64ToF64 of the first `n` pairs into `out` (at least `n` long); returns `out`. */
export function int64ToF64Into<T extends Float64Array>(pairs: Int32Array, out: T, n: number): T {
  for (let i = 0, j = 0; i < n; i++, j += 2) out[i] = pairs[j + 1]! * TWO32 + (pairs[j]! >>> 0);
  // Values just above -2^63 round to the NULL sentinel's double: they keep the nearest double above it.
  for (let i = 0, j = 0; i < n; i++, j += 2) {
    if (out[i] === -9223372036854775808 && pairs[j] !== 0) out[i] = -9223372036854774784;
  }
  return out;
}

/** Doubles -> int64 pairs; NaN is NULL (-2^63). Values must be integers. */
export function f64ToInt64(values: Float64Array): Int32Array {
  return f64ToInt64Into(values, new Int32Array(values.length * 2));
}

/** Doubles -> int64 pairs written into `out` (at least 2 * values.length long); returns `out`. */
export function f64ToInt64Into(values: Float64Array, out: Int32Array): Int32Array {
  for (let i = 0, j = 0; i < values.length; i++, j += 2) {
    const v = values[i]!;
    if (v !== v) {
      out[j] = 0;
      out[j + 1] = INT_NULL;
      continue;
    }
    // Within int32 the low word is the value and the high word its sign: no division needed.
    if (v >= -0x80000000 && v <= 0x7fffffff) {
      out[j] = v;
      out[j + 1] = v < 0 ? -1 : 0;
      continue;
    }
    const hi = Math.floor(v / TWO32);
    out[j] = (v - hi * TWO32) | 0;
    out[j + 1] = hi | 0;
  }
  return out;
}

export function rowsOf(v: ColumnVector): number {
  switch (v.kind) {
    case 'fixed':
      return v.data.length / typeInfo(v.type).stride;
    case 'symbol':
      return v.keys.length;
    case 'var':
      return v.offsets.length - 1;
  }
}

const encoder = new TextEncoder();

/** Strings -> VarVector (UTF-8). */
export function varFromStrings(type: ColumnType, values: readonly (string | null)[]): VarVector {
  const parts: Uint8Array[] = [];
  const offsets = new Int32Array(values.length + 1);
  let nulls: Uint8Array | null = null;
  let total = 0;
  for (let i = 0; i < values.length; i++) {
    const s = values[i];
    if (s === null || s === undefined) {
      nulls ??= new Uint8Array(values.length);
      nulls[i] = 1;
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

/** Keys of `values` in `dict` (NULL -1), adding new values to `dict` and `index`. */
export function internStrings(
  values: readonly (string | null | undefined)[],
  dict: string[],
  index: Map<string, number>,
): Int32Array {
  const keys = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const s = values[i];
    if (s === null || s === undefined) {
      keys[i] = -1;
      continue;
    }
    let k = index.get(s);
    if (k === undefined) {
      k = dict.length;
      dict.push(s);
      index.set(s, k);
    }
    keys[i] = k;
  }
  return keys;
}

/** Strings -> SymbolVector with a local dictionary. */
export function symbolsFromStrings(values: readonly (string | null)[]): SymbolVector {
  const dict: string[] = [];
  return { kind: 'symbol', type: 'SYMBOL', keys: internStrings(values, dict, new Map()), dict };
}

/** The typed array a fixed type is held in. */
function expectedArray(type: ColumnType): string {
  switch (typeKind(type)) {
    case 'GEOHASH':
    case 'DECIMAL':
      return 'Uint8Array';
    case 'BOOLEAN':
    case 'UUID':
    case 'LONG128':
    case 'LONG256':
    case 'INTERVAL':
      return 'Uint8Array';
    case 'BYTE':
      return 'Int8Array';
    case 'SHORT':
      return 'Int16Array';
    case 'CHAR':
      return 'Uint16Array';
    case 'INT':
    case 'IPV4':
      return 'Int32Array';
    case 'FLOAT':
      return 'Float32Array';
    case 'DOUBLE':
    case 'LONG':
    case 'DATE':
    case 'TIMESTAMP':
    case 'TIMESTAMP_NS':
      return 'Float64Array';
    default:
      return 'none';
  }
}

/** Turns any accepted input into a ColumnVector of `type` with `rows` rows, or throws naming the column. */
export function toVector(column: string, type: ColumnType, input: ColumnInput, rows: number): ColumnVector {
  const info = typeInfo(type);
  let v: ColumnVector;
  if (Array.isArray(input)) {
    const strings = input as readonly (string | null)[];
    if (info.layout === 'symbol') v = symbolsFromStrings(strings);
    else if (info.layout === 'var') v = varFromStrings(type, strings);
    else throw new SvcError('BAD_REQUEST', `column ${column} of type ${type} cannot take strings`);
  } else if (ArrayBuffer.isView(input)) {
    if (input instanceof BigInt64Array) {
      if (!isInt64(type))
        throw new SvcError('BAD_REQUEST', `column ${column} of type ${type} cannot take a BigInt64Array`);
      const exact = new Int32Array(input.buffer, input.byteOffset, input.length * 2);
      v = { kind: 'fixed', type, data: int64ToF64(exact), exact };
    } else {
      if (input.constructor.name !== expectedArray(type)) {
        throw new SvcError(
          'BAD_REQUEST',
          `column ${column} of type ${type} takes a ${expectedArray(type)}, got a ${input.constructor.name}`,
        );
      }
      v = { kind: 'fixed', type, data: input };
    }
  } else {
    v = input as ColumnVector;
    if (v.type !== type && !(info.layout === 'var' && v.kind === 'var')) {
      throw new SvcError('BAD_REQUEST', `column ${column} of type ${type} got a ${v.type} vector`);
    }
  }
  const n = rowsOf(v);
  if (n !== rows) throw new SvcError('BAD_REQUEST', `column ${column} has ${n} rows, the batch has ${rows}`);
  return v;
}

/** The on-disk bytes of a fixed vector (little-endian; int64 types as int64). Zero-copy where possible. */
export function fixedBytes(v: FixedVector): Uint8Array {
  if (isInt64(v.type)) {
    const pairs = v.exact ?? f64ToInt64(v.data as Float64Array);
    return new Uint8Array(pairs.buffer, pairs.byteOffset, pairs.byteLength);
  }
  return new Uint8Array(v.data.buffer, v.data.byteOffset, v.data.byteLength);
}

/** A NULL-filled vector of `rows` rows (for columns missing from an append or a partition). */
export function nullVector(type: ColumnType, rows: number, dict: readonly string[] = []): ColumnVector {
  const info = typeInfo(type);
  if (info.layout === 'symbol') return { kind: 'symbol', type: 'SYMBOL', keys: new Int32Array(rows).fill(-1), dict };
  if (info.layout === 'var')
    return {
      kind: 'var',
      type,
      bytes: new Uint8Array(0),
      offsets: new Int32Array(rows + 1),
      nulls: new Uint8Array(rows).fill(1),
    };
  switch (typeKind(type)) {
    case 'BOOLEAN':
      return { kind: 'fixed', type, data: new Uint8Array(rows) };
    case 'BYTE':
      return { kind: 'fixed', type, data: new Int8Array(rows) };
    case 'SHORT':
      return { kind: 'fixed', type, data: new Int16Array(rows) };
    case 'CHAR':
      return { kind: 'fixed', type, data: new Uint16Array(rows) };
    case 'INT':
      return { kind: 'fixed', type, data: new Int32Array(rows).fill(INT_NULL) };
    case 'IPV4':
      return { kind: 'fixed', type, data: new Int32Array(rows) };
    case 'FLOAT':
      return { kind: 'fixed', type, data: new Float32Array(rows).fill(NaN) };
    case 'DOUBLE':
      return { kind: 'fixed', type, data: new Float64Array(rows).fill(NaN) };
    case 'LONG':
    case 'DATE':
    case 'TIMESTAMP':
    case 'TIMESTAMP_NS': {
      const exact = new Int32Array(rows * 2);
      for (let j = 1; j < exact.length; j += 2) exact[j] = INT_NULL;
      return {
        kind: 'fixed',
        type,
        data: new Float64Array(rows).fill(-9223372036854775808),
        exact: hasExactPairs(type) ? exact : undefined,
      };
    }
    case 'UUID':
    case 'LONG128':
    case 'LONG256':
    case 'INTERVAL': {
      // NULL is every 64-bit lane at -2^63, as in QuestDB (INTERVAL: lo and hi both LONG NULL).
      const w = info.width;
      const data = new Uint8Array(rows * w);
      for (let i = 7; i < data.length; i += 8) data[i] = 0x80;
      return { kind: 'fixed', type, data };
    }
    // GEOHASH: every bit set (-1), as in QuestDB.
    case 'GEOHASH':
      return { kind: 'fixed', type, data: new Uint8Array(rows * info.width).fill(0xff) };
    // DECIMAL: the width's most negative two's complement value (top byte 0x80), outside every precision's range.
    case 'DECIMAL': {
      const w = info.width;
      const data = new Uint8Array(rows * w);
      for (let i = w - 1; i < data.length; i += w) data[i] = 0x80;
      return { kind: 'fixed', type, data };
    }
    default:
      throw new Error(`no null vector for ${type}`);
  }
}
