// Comparisons `= != < <= > >=`, `between`, `in_list` over numbers (as doubles),
// temporals (DATE widened), text (UTF-8 byte = code point order) and BOOLEAN.
// Ordering with NULL is false; `=` holds for NULL = NULL (QuestDB). An IN list
// of more than a handful of constants is a hash set built once per query.
import type { ColumnVector, FixedVector, TextDict } from '../core/column-vector.js';
import type { BindHook, Kernel, FunctionRegistry } from './registry.js';
import { ByteSet } from './byte-set.js';
import { defineScalar, type Built, type Signature } from './signature.js';
import { commonDecimal, isIntegral, isNumeric, isTemporal, isText, type SqlType } from '../core/sql-type.js';
import { comparePairs, isNullPair, pairsOf } from '../core/nanos.js';
import { ArrayReader, isArrayType } from '../core/array-values.js';
import { asDoubles, boolVector, boolsOf } from '../core/vec.js';
import { DictTables, compareRows, encodeDict, equalRows, uniformText, utf8Rows, type Utf8Rows } from '../core/utf8.js';
import { typeInfo, typeKind } from '../core/column-type.js';
import { compareDecimalRows, isDecimalNull } from '../core/decimal.js';

/** IN lists with at most this many constants are compared value by value (no set to build). */
const SMALL_IN_LIST = 8;

export type CmpOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** Numbers, temporals and NULL compare as doubles. */
const numberLike = (t: SqlType): boolean => isNumeric(t) || isTemporal(t) || t === 'NULL' || t === 'IPV4';

/** A numeric vector as doubles for comparison; IPV4 addresses compare unsigned. */
function numbers(v: ColumnVector): Float64Array {
  if (v.kind === 'fixed' && v.type === 'IPV4')
    return Float64Array.from(v.data as Int32Array, (x) => (x === 0 ? NaN : x >>> 0));
  return asDoubles(v);
}

export function numericCompare(op: CmpOp, a: Float64Array, b: Float64Array, n: number): Uint8Array {
  const out = new Uint8Array(n);
  switch (op) {
    case '=':
      for (let i = 0; i < n; i++) {
        const x = a[i]!,
          y = b[i]!;
        out[i] = x === y || (x !== x && y !== y) ? 1 : 0;
      }
      break;
    case '!=':
      for (let i = 0; i < n; i++) {
        const x = a[i]!,
          y = b[i]!;
        out[i] = x === y || (x !== x && y !== y) ? 0 : 1;
      }
      break;
    case '<':
      for (let i = 0; i < n; i++) out[i] = a[i]! < b[i]! ? 1 : 0;
      break;
    case '<=':
      for (let i = 0; i < n; i++) out[i] = a[i]! <= b[i]! ? 1 : 0;
      break;
    case '>':
      for (let i = 0; i < n; i++) out[i] = a[i]! > b[i]! ? 1 : 0;
      break;
    case '>=':
      for (let i = 0; i < n; i++) out[i] = a[i]! >= b[i]! ? 1 : 0;
      break;
  }
  return out;
}

function holds(op: CmpOp, c: number): boolean {
  switch (op) {
    case '=':
      return c === 0;
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
  }
}

/**
 * The result of comparing each of a dictionary's `count` entries (`entries`)
 * with a constant, as `op` does (the constant on the right unless `flipped`).
 */
function entryResults(op: CmpOp, entries: Utf8Rows, count: number, value: string, flipped: boolean): Uint8Array {
  const c = new TextEncoder().encode(value);
  const cRows: Utf8Rows = { bytes: c, starts: Int32Array.of(0), ends: Int32Array.of(c.length), nulls: null };
  const t = new Uint8Array(count);
  for (let k = 0; k < count; k++) {
    const r = compareRows(entries, k, cRows, 0);
    t[k] = holds(op, flipped ? -r : r) ? 1 : 0;
  }
  return t;
}

/**
 * Dictionary-coded text against one constant: each dictionary entry compared
 * once (cached per call site), then a table read per row. `code(i)` is row i's
 * entry, -1 for NULL (only = / != are defined against NULL: NULL = NULL; a NULL
 * row is != any text). A SYMBOL's keys, or a scan's VARCHAR / STRING codes
 * (storage/text-codes.ts: code 0 is NULL, entry k is [ends[k-1], ends[k])).
 */
function codedVsConstant(
  op: CmpOp,
  v: Extract<ColumnVector, { kind: 'symbol' }> | { readonly codes: Uint8Array | Uint16Array; readonly dict: TextDict },
  value: string | null,
  n: number,
  flipped: boolean,
  cache: DictTables,
): Uint8Array {
  const out = new Uint8Array(n);
  const sym = 'keys' in v ? v : null;
  const coded = 'keys' in v ? null : v;
  if (value === null) {
    const eq = op === '=' || op === '!=';
    const want = op === '=' ? 1 : 0;
    if (sym !== null) for (let i = 0; i < n; i++) out[i] = eq ? (sym.keys[i]! < 0 ? want : 1 - want) : 0;
    else for (let i = 0; i < n; i++) out[i] = eq ? (coded!.codes[i] === 0 ? want : 1 - want) : 0;
    return out;
  }
  const nullResult = op === '!=' ? 1 : 0;
  const key = `${flipped ? 1 : 0}${value}`;
  if (sym !== null) {
    const table = cache.get(sym.dict, key, () => {
      const d = encodeDict(sym.dict);
      const entries = {
        bytes: d.bytes,
        starts: d.offsets.subarray(0, sym.dict.length),
        ends: d.offsets.subarray(1),
        nulls: null,
      };
      return entryResults(op, entries, sym.dict.length, value, flipped);
    });
    for (let i = 0; i < n; i++) {
      const k = sym.keys[i]!;
      out[i] = k < 0 ? nullResult : table[k]!;
    }
    return out;
  }
  const { codes, dict } = coded!;
  const table = cache.get(dict, key, () => {
    const size = dict.size;
    const entries = {
      bytes: dict.bytes,
      starts: dict.ends.subarray(0, size - 1),
      ends: dict.ends.subarray(1, size),
      nulls: null,
    };
    const t = new Uint8Array(size);
    t[0] = nullResult;
    t.set(entryResults(op, entries, size - 1, value, flipped), 1);
    return t;
  });
  for (let i = 0; i < n; i++) out[i] = table[codes[i]!]!;
  return out;
}

export function textCompare(
  op: CmpOp,
  x: ColumnVector,
  y: ColumnVector,
  n: number,
  cache = new DictTables(),
): Uint8Array {
  if (x.kind === 'symbol' && y.kind === 'symbol' && x.dict === y.dict && (op === '=' || op === '!=')) {
    const out = new Uint8Array(n);
    const want = op === '=' ? 1 : 0;
    for (let i = 0; i < n; i++) out[i] = x.keys[i] === y.keys[i] ? want : 1 - want;
    return out;
  }
  if (x.kind === 'symbol' && y.kind !== 'symbol') {
    const c = uniformText(y, n);
    if (c !== undefined) return codedVsConstant(op, x, c, n, false, cache);
  } else if (y.kind === 'symbol' && x.kind !== 'symbol') {
    const c = uniformText(x, n);
    if (c !== undefined) return codedVsConstant(op, y, c, n, true, cache);
  }
  if (
    x.kind === 'var' &&
    x.codes !== undefined &&
    x.dict !== undefined &&
    !(y.kind === 'var' && y.codes !== undefined)
  ) {
    const c = uniformText(y, n);
    if (c !== undefined) return codedVsConstant(op, { codes: x.codes, dict: x.dict }, c, n, false, cache);
  } else if (
    y.kind === 'var' &&
    y.codes !== undefined &&
    y.dict !== undefined &&
    !(x.kind === 'var' && x.codes !== undefined)
  ) {
    const c = uniformText(x, n);
    if (c !== undefined) return codedVsConstant(op, { codes: y.codes, dict: y.dict }, c, n, true, cache);
  }
  const a = utf8Rows(x, n),
    b = utf8Rows(y, n);
  const out = new Uint8Array(n);
  if (op === '=' || op === '!=') {
    const want = op === '=' ? 1 : 0;
    if (a.nulls || b.nulls) {
      for (let i = 0; i < n; i++) out[i] = equalRows(a, i, b, i) ? want : 1 - want;
      return out;
    }
    // No NULLs: lengths first, then bytes, inline.
    const ab = a.bytes,
      bb = b.bytes,
      as = a.starts,
      ae = a.ends,
      bs = b.starts,
      be = b.ends;
    for (let i = 0; i < n; i++) {
      const p = as[i]!,
        q = bs[i]!,
        len = ae[i]! - p;
      let same = be[i]! - q === len;
      for (let k = 0; same && k < len; k++) same = ab[p + k] === bb[q + k];
      out[i] = same ? want : 1 - want;
    }
    return out;
  }
  for (let i = 0; i < n; i++) {
    if ((a.nulls && a.nulls[i]) || (b.nulls && b.nulls[i])) continue;
    out[i] = holds(op, compareRows(a, i, b, i)) ? 1 : 0;
  }
  return out;
}

function boolCompare(op: CmpOp, x: ColumnVector, y: ColumnVector, n: number): Uint8Array {
  const a = boolsOf(x),
    b = boolsOf(y);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = holds(op, a[i]! - b[i]!) ? 1 : 0;
  return out;
}

type Family = 'number' | 'text' | 'boolean' | 'bytes' | 'decimal' | 'nanos' | 'array';

const isKind = (t: SqlType, kind: 'GEOHASH' | 'DECIMAL'): boolean => t !== 'NULL' && typeKind(t) === kind;

/** The family two types compare in and the types to cast them to, or null. */
export function comparable(
  a: SqlType,
  b: SqlType,
  ordered: boolean,
): { family: Family; types: [SqlType, SqlType] } | null {
  if (a === 'NULL' && b === 'NULL') return { family: 'number', types: ['DOUBLE', 'DOUBLE'] };
  if (a === 'BOOLEAN' || b === 'BOOLEAN') {
    if (ordered) return null;
    const other = a === 'BOOLEAN' ? b : a;
    if (other === 'BOOLEAN' || other === 'NULL' || (isText(other) && other !== 'CHAR'))
      return { family: 'boolean', types: ['BOOLEAN', 'BOOLEAN'] };
    return null;
  }
  // A GEOHASH equals a GEOHASH of the same bits (or a text read as one), by its bits; no order, as in QuestDB.
  if (isKind(a, 'GEOHASH') || isKind(b, 'GEOHASH')) {
    const g = isKind(a, 'GEOHASH') ? a : b;
    const other = g === a ? b : a;
    if (ordered || !(other === g || other === 'NULL' || (isText(other) && other !== 'CHAR'))) return null;
    return { family: 'bytes', types: [g, g] };
  }
  // DECIMALs compare exactly at a common scale, with each other, integers and texts (read as the decimal); with
  // floating values as doubles.
  if (isKind(a, 'DECIMAL') || isKind(b, 'DECIMAL')) {
    const d = isKind(a, 'DECIMAL') ? a : b;
    const other = d === a ? b : a;
    if (other === 'DOUBLE' || other === 'FLOAT') return { family: 'number', types: ['DOUBLE', 'DOUBLE'] };
    if (other === 'NULL' || (isText(other) && other !== 'CHAR')) return { family: 'decimal', types: [d, d] };
    if (!isKind(other, 'DECIMAL') && !isIntegral(other)) return null;
    const c = commonDecimal(a, b);
    return { family: 'decimal', types: [c, c] };
  }
  // UUID, LONG128, LONG256 and INTERVAL compare for equality by their bytes (NULL equals NULL, as for numbers); text is
  // read as a UUID.
  for (const wide of ['UUID', 'LONG128', 'LONG256', 'INTERVAL'] as const) {
    if (a !== wide && b !== wide) continue;
    const other = a === wide ? b : a;
    if (ordered || !(other === wide || other === 'NULL' || (isText(other) && other !== 'CHAR' && wide === 'UUID')))
      return null;
    return { family: 'bytes', types: [wide, wide] };
  }
  // Arrays of one type: = and != (same shape and elements), as QuestDB's.
  if (isArrayType(a) || isArrayType(b)) {
    if (ordered || !(a === b || a === 'NULL' || b === 'NULL')) return null;
    const t = a === 'NULL' ? b : a;
    return { family: 'array', types: [t, t] };
  }
  // TIMESTAMP_NS against itself, a TIMESTAMP, DATE, integer, NULL or text: both read as nanoseconds, compared exactly.
  if (a === 'TIMESTAMP_NS' || b === 'TIMESTAMP_NS') {
    const other = a === 'TIMESTAMP_NS' ? b : a;
    if (!(
      other === 'TIMESTAMP_NS' ||
      other === 'NULL' ||
      isTemporal(other) ||
      isIntegral(other) ||
      (isText(other) && other !== 'CHAR')
    ))
      return null;
    return { family: 'nanos', types: ['TIMESTAMP_NS', 'TIMESTAMP_NS'] };
  }
  if (isText(a) && isText(b)) return { family: 'text', types: [a, b] };
  if ((isText(a) && b === 'NULL') || (a === 'NULL' && isText(b)))
    return { family: 'text', types: [a === 'NULL' ? 'STRING' : a, b === 'NULL' ? 'STRING' : b] };
  // A text against a number or a timestamp is read as that type.
  if (isText(a) && a !== 'CHAR' && numberLike(b) && b !== 'NULL') return { family: 'number', types: [b, b] };
  if (isText(b) && b !== 'CHAR' && numberLike(a) && a !== 'NULL') return { family: 'number', types: [a, a] };
  if (numberLike(a) && numberLike(b)) {
    if (isTemporal(a) && isTemporal(b) && a !== b) return { family: 'number', types: ['TIMESTAMP', 'TIMESTAMP'] };
    return { family: 'number', types: [a === 'NULL' ? b : a, b === 'NULL' ? a : b] };
  }
  return null;
}

export function compareKernel(op: CmpOp, family: Family): Kernel {
  switch (family) {
    case 'number':
      return (args, n) => boolVector(numericCompare(op, numbers(args[0]!), numbers(args[1]!), n));
    case 'text': {
      const cache = new DictTables();
      return (args, n) => boolVector(textCompare(op, args[0]!, args[1]!, n, cache));
    }
    case 'boolean':
      return (args, n) => boolVector(boolCompare(op, args[0]!, args[1]!, n));
    case 'bytes':
      return (args, n) => boolVector(bytesCompare(op, args[0]!, args[1]!, n));
    // Both sides are one DECIMAL type: equal values have equal bytes; order needs the values.
    case 'decimal':
      return op === '=' || op === '!='
        ? (args, n) => boolVector(bytesCompare(op, args[0]!, args[1]!, n))
        : (args, n) => boolVector(decimalCompare(op, args[0]!, args[1]!, n));
    case 'nanos':
      return (args, n) => boolVector(nanosCompare(op, pairsOf(args[0]!), pairsOf(args[1]!), n));
    case 'array':
      return (args, n) => boolVector(arrayEquals(op, args[0]!, args[1]!, n));
  }
}

/** <, <=, >, >= over two vectors of one DECIMAL type; NULL on either side is false. */
function decimalCompare(op: CmpOp, x: ColumnVector, y: ColumnVector, n: number): Uint8Array {
  const a = (x as FixedVector).data as Uint8Array,
    b = (y as FixedVector).data as Uint8Array;
  const w = typeInfo(x.type).width;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (!isDecimalNull(a, i, w) && !isDecimalNull(b, i, w))
      out[i] = holds(op, compareDecimalRows(a, i, b, i, w)) ? 1 : 0;
  }
  return out;
}

/** Arrays equal: both NULL, or the same shape and elements (NaN equals NaN: a NULL element). */
function arrayEquals(op: CmpOp, x: ColumnVector, y: ColumnVector, n: number): Uint8Array {
  const a = new ArrayReader(x),
    b = new ArrayReader(y);
  const want = op === '=' ? 1 : 0;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    let same = a.isNull(i) === b.isNull(i);
    if (same && !a.isNull(i)) {
      a.open(i);
      b.open(i);
      for (let d = 0; same && d < a.dims; d++) same = a.shape[d] === b.shape[d];
      for (let k = 0; same && k < a.count; k++) {
        const p = a.element(k),
          q = b.element(k);
        same = p === q || (p !== p && q !== q);
      }
    }
    out[i] = same ? want : 1 - want;
  }
  return out;
}

/** Comparison of int64 pairs (TIMESTAMP_NS): ordering with NULL is false, NULL = NULL holds. */
function nanosCompare(op: CmpOp, a: Int32Array, b: Int32Array, n: number): Uint8Array {
  const out = new Uint8Array(n);
  const eq = op === '=' || op === '!=';
  for (let i = 0; i < n; i++) {
    if (!eq && (isNullPair(a, i) || isNullPair(b, i))) continue;
    out[i] = holds(op, comparePairs(a, i, b, i)) ? 1 : 0;
  }
  return out;
}

/** = or != over fixed-width byte rows (UUID: 16 bytes, LONG256: 32, GEOHASH and DECIMAL: their width). */
function bytesCompare(op: CmpOp, x: ColumnVector, y: ColumnVector, n: number): Uint8Array {
  const a = (x as FixedVector).data as Uint8Array,
    b = (y as FixedVector).data as Uint8Array;
  const w = typeInfo(x.type).width;
  const want = op === '=' ? 1 : 0;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    let same = true;
    for (let k = i * w, e = k + w; same && k < e; k++) same = a[k] === b[k];
    out[i] = same ? want : 1 - want;
  }
  return out;
}

function compareSig(op: CmpOp): Signature {
  return {
    args: [(t) => t, (t) => t],
    build: (t): Built | string => {
      const c = comparable(t[0]!, t[1]!, op !== '=' && op !== '!=');
      if (!c) return `there is no matching operator \`${op}\` with the argument types: ${t[0]} ${op} ${t[1]}`;
      t[0] = c.types[0];
      t[1] = c.types[1];
      return { type: 'BOOLEAN', kernel: compareKernel(op, c.family) };
    },
  };
}

/** x BETWEEN lo AND hi, inclusive; the bounds may come in either order (QuestDB); NULL anywhere -> false. */
function betweenKernel(family: Family): Kernel {
  return (args, n) => {
    const out = new Uint8Array(n);
    if (family === 'nanos') {
      const x = pairsOf(args[0]!),
        lo = pairsOf(args[1]!),
        hi = pairsOf(args[2]!);
      for (let i = 0; i < n; i++) {
        if (isNullPair(x, i) || isNullPair(lo, i) || isNullPair(hi, i)) continue;
        const swap = comparePairs(lo, i, hi, i) > 0;
        const a = swap ? hi : lo,
          b = swap ? lo : hi;
        out[i] = comparePairs(x, i, a, i) >= 0 && comparePairs(x, i, b, i) <= 0 ? 1 : 0;
      }
    } else if (family === 'number') {
      const x = numbers(args[0]!),
        lo = numbers(args[1]!),
        hi = numbers(args[2]!);
      for (let i = 0; i < n; i++) {
        const v = x[i]!,
          a = lo[i]!,
          b = hi[i]!;
        out[i] = a <= b ? (v >= a && v <= b ? 1 : 0) : v >= b && v <= a ? 1 : 0;
      }
    } else if (family === 'decimal') {
      const w = typeInfo(args[0]!.type).width;
      const [x, lo, hi] = args.map((v) => (v as FixedVector).data as Uint8Array) as [
        Uint8Array,
        Uint8Array,
        Uint8Array,
      ];
      for (let i = 0; i < n; i++) {
        if (isDecimalNull(x, i, w) || isDecimalNull(lo, i, w) || isDecimalNull(hi, i, w)) continue;
        const va = compareDecimalRows(x, i, lo, i, w),
          vb = compareDecimalRows(x, i, hi, i, w);
        out[i] = compareDecimalRows(lo, i, hi, i, w) <= 0 ? (va >= 0 && vb <= 0 ? 1 : 0) : vb >= 0 && va <= 0 ? 1 : 0;
      }
    } else {
      const x = utf8Rows(args[0]!, n),
        lo = utf8Rows(args[1]!, n),
        hi = utf8Rows(args[2]!, n);
      const isNull = (r: Utf8Rows, i: number): boolean => r.nulls !== null && r.nulls[i] === 1;
      for (let i = 0; i < n; i++) {
        if (isNull(x, i) || isNull(lo, i) || isNull(hi, i)) continue;
        const swap = compareRows(lo, i, hi, i) > 0;
        const a = swap ? hi : lo,
          b = swap ? lo : hi;
        out[i] = compareRows(x, i, a, i) >= 0 && compareRows(x, i, b, i) <= 0 ? 1 : 0;
      }
    }
    return boolVector(out);
  };
}

/** Which entries of a scan's text dictionary (code 0 is NULL: `nullIn`) are in `set`. */
function codedMembers(dict: TextDict, set: ByteSet, nullIn: number): Uint8Array {
  const table = new Uint8Array(dict.size);
  table[0] = nullIn;
  for (let k = 1; k < dict.size; k++) table[k] = set.has(dict.bytes, dict.ends[k - 1]!, dict.ends[k]!) ? 1 : 0;
  return table;
}

/** x IN (v1, v2, ...): all arguments share one type (the binder unifies them); NULL matches NULL. */
function inListKernel(family: Family): Kernel {
  const cache = new DictTables();
  return (args, n) => {
    const x = args[0]!;
    const list = args.slice(1);
    const out = new Uint8Array(n);
    if (family === 'text') {
      if (x.kind === 'symbol') {
        const consts = list.map((v) => uniformText(v, n));
        if (consts.every((c) => c !== undefined)) {
          const set = new Set(consts);
          const table = cache.get(x.dict, JSON.stringify(consts), () =>
            Uint8Array.from(x.dict, (s) => (set.has(s) ? 1 : 0)),
          );
          const nullHit = set.has(null) ? 1 : 0;
          for (let i = 0; i < n; i++) {
            const k = x.keys[i]!;
            out[i] = k < 0 ? nullHit : table[k]!;
          }
          return boolVector(out);
        }
      } else if (x.kind === 'var' && x.codes !== undefined && x.dict !== undefined) {
        // A scan's text with dictionary codes: each entry tested once, then a table read per row.
        const consts = list.map((v) => uniformText(v, n));
        if (consts.every((c) => c !== undefined)) {
          const table = cache.get(x.dict, JSON.stringify(consts), () => {
            const encoder = new TextEncoder();
            const set = new ByteSet(consts.filter((c) => c !== null).map((c) => encoder.encode(c)));
            return codedMembers(x.dict!, set, consts.includes(null) ? 1 : 0);
          });
          const codes = x.codes;
          for (let i = 0; i < n; i++) out[i] = table[codes[i]!]!;
          return boolVector(out);
        }
      }
      const xr = utf8Rows(x, n);
      const lr = list.map((v) => utf8Rows(v, n));
      for (let i = 0; i < n; i++) {
        for (const r of lr)
          if (equalRows(xr, i, r, i)) {
            out[i] = 1;
            break;
          }
      }
      return boolVector(out);
    }
    if (family === 'bytes' || family === 'decimal') {
      // Row i of x against row i of each list value, byte by byte (NULL is one byte pattern, so NULL matches NULL).
      const w = typeInfo(x.type).width;
      const a = (x as FixedVector).data as Uint8Array;
      const ls = list.map((v) => (v as FixedVector).data as Uint8Array);
      for (let i = 0; i < n; i++) {
        const at = i * w;
        for (const l of ls) {
          let same = true;
          for (let k = 0; same && k < w; k++) same = a[at + k] === l[at + k];
          if (same) {
            out[i] = 1;
            break;
          }
        }
      }
      return boolVector(out);
    }
    if (family === 'nanos') {
      const a = pairsOf(x);
      const ls = list.map((v) => pairsOf(v));
      for (let i = 0; i < n; i++)
        for (const l of ls)
          if (comparePairs(a, i, l, i) === 0) {
            out[i] = 1;
            break;
          }
      return boolVector(out);
    }
    if (family === 'boolean') {
      const a = boolsOf(x);
      const ls = list.map((v) => boolsOf(v));
      for (let i = 0; i < n; i++)
        for (const l of ls)
          if (l[i] === a[i]) {
            out[i] = 1;
            break;
          }
      return boolVector(out);
    }
    const a = numbers(x);
    const ls = list.map((v) => numbers(v));
    for (let i = 0; i < n; i++) {
      const v = a[i]!;
      for (const l of ls) {
        const w = l[i]!;
        if (v === w || (v !== v && w !== w)) {
          out[i] = 1;
          break;
        }
      }
    }
    return boolVector(out);
  };
}

/**
 * x IN a list with more than a handful of constants: their values (taken in at
 * bind time) make a set built once per query; the kernel is given x and the
 * list's other values (`varying`), compared row by row as inListKernel does.
 * Same NULL rule: NULL is in a list that holds NULL.
 */
function inSetKernel(family: Family, consts: readonly ColumnVector[], varying: number): Kernel {
  const others = inListKernel(family);
  const test = memberTest(family, consts);
  return (args, n, kx) => {
    const out = new Uint8Array(n);
    if (n === 0) return boolVector(out);
    test(args[0]!, n, out);
    if (varying > 0) {
      const more = boolsOf(others(args, n, kx));
      for (let i = 0; i < n; i++) out[i] = out[i]! | more[i]!;
    }
    return boolVector(out);
  };
}

/** A test writing 1 into out[i] for the rows of x whose value is one of the constants (row 0 of each of `consts`). */
function memberTest(
  family: Family,
  consts: readonly ColumnVector[],
): (x: ColumnVector, n: number, out: Uint8Array) => void {
  switch (family) {
    case 'array':
      throw new Error('IN lists of arrays are refused when bound');
    case 'number': {
      // NaN (NULL) is in the set when a constant is NULL: Set matches NaN with NaN.
      const set = new Set<number>(consts.map((v) => numbers(v)[0]!));
      return (x, n, out) => {
        const a = numbers(x);
        for (let i = 0; i < n; i++) out[i] = set.has(a[i]!) ? 1 : 0;
      };
    }
    case 'nanos': {
      // Nanoseconds as `hi:lo` keys (a double cannot hold them).
      const set = new Set<string>(
        consts.map((v) => {
          const p = pairsOf(v);
          return `${p[1]}:${p[0]}`;
        }),
      );
      return (x, n, out) => {
        const p = pairsOf(x);
        for (let i = 0; i < n; i++) out[i] = set.has(`${p[2 * i + 1]}:${p[2 * i]}`) ? 1 : 0;
      };
    }
    case 'boolean': {
      const has = [false, false];
      for (const v of consts) has[boolsOf(v)[0]!] = true;
      return (x, n, out) => {
        const a = boolsOf(x);
        for (let i = 0; i < n; i++) out[i] = has[a[i]!] ? 1 : 0;
      };
    }
    case 'bytes':
    case 'decimal': {
      // UUID / LONG256 / GEOHASH / DECIMAL rows as fixed-width byte strings; NULL is one byte pattern, so NULL matches NULL.
      const w = consts[0] ? typeInfo(consts[0].type).width : 16;
      const set = new ByteSet(consts.map((v) => ((v as FixedVector).data as Uint8Array).slice(0, w)));
      return (x, n, out) => {
        const a = (x as FixedVector).data as Uint8Array;
        for (let i = 0; i < n; i++) out[i] = set.has(a, i * w, i * w + w) ? 1 : 0;
      };
    }
    case 'text': {
      const keys: Uint8Array[] = [];
      let nullIn = 0;
      for (const v of consts) {
        const r = utf8Rows(v, 1);
        if (r.nulls && r.nulls[0]) nullIn = 1;
        else keys.push(r.bytes.slice(r.starts[0], r.ends[0]));
      }
      const set = new ByteSet(keys);
      const cache = new DictTables();
      return (x, n, out) => {
        if (x.kind === 'symbol') {
          // Once per dictionary entry, then a key lookup per row.
          const table = cache.get(x.dict, '', () => {
            const d = encodeDict(x.dict);
            return Uint8Array.from(x.dict, (_s, k) => (set.has(d.bytes, d.offsets[k]!, d.offsets[k + 1]!) ? 1 : 0));
          });
          for (let i = 0; i < n; i++) {
            const k = x.keys[i]!;
            out[i] = k < 0 ? nullIn : table[k]!;
          }
          return;
        }
        if (x.kind === 'var' && x.codes !== undefined && x.dict !== undefined) {
          // A scan's text with dictionary codes: each entry tested once (code 0 is NULL).
          const dict = x.dict;
          const table = cache.get(dict, '', () => codedMembers(dict, set, nullIn));
          const codes = x.codes;
          for (let i = 0; i < n; i++) out[i] = table[codes[i]!]!;
          return;
        }
        const r = utf8Rows(x, n);
        for (let i = 0; i < n; i++)
          out[i] = r.nulls && r.nulls[i] ? nullIn : set.has(r.bytes, r.starts[i]!, r.ends[i]!) ? 1 : 0;
      };
    }
  }
}

/** Bind hook of in_list: past a handful of constants, the set kernel, which is not given the constants again at run time. */
function inListSet(family: Family): BindHook {
  return (args) => {
    const list = args.slice(1);
    const consts = list.filter((a) => a.constant && a.vector !== undefined);
    if (consts.length <= SMALL_IN_LIST) return;
    const runArgs = [0];
    list.forEach((a, j) => {
      if (!(a.constant && a.vector !== undefined)) runArgs.push(j + 1);
    });
    return {
      kernel: inSetKernel(
        family,
        consts.map((a) => a.vector!),
        runArgs.length - 1,
      ),
      runArgs,
    };
  };
}

/** The family several values compare in, with `types` rewritten to what each is cast to; null if they do not mix. */
function familyOf(types: SqlType[]): Family | null {
  let family: Family | null = null;
  for (let i = 1; i < types.length; i++) {
    const c = comparable(types[0]!, types[i]!, false);
    if (!c) return null;
    if (family !== null && c.family !== family) return null;
    family = c.family;
  }
  // Arrays compare only with = and != (no IN lists or BETWEEN).
  if (family === 'array') return null;
  if (family === 'number') {
    // One numeric or temporal scale for all: texts and NULLs read as it, DATE widened when a TIMESTAMP is present.
    const hasTs = types.includes('TIMESTAMP');
    const base = types.find((t) => t !== 'NULL' && !isText(t)) ?? 'DOUBLE';
    for (let i = 0; i < types.length; i++) {
      const t = types[i]!;
      if (t === 'NULL' || isText(t)) types[i] = hasTs && base === 'DATE' ? 'TIMESTAMP' : base;
      else if (t === 'DATE' && hasTs) types[i] = 'TIMESTAMP';
    }
  } else if (family === 'text') {
    for (let i = 0; i < types.length; i++) if (types[i] === 'NULL') types[i] = 'STRING';
  } else if (family === 'boolean') {
    types.fill('BOOLEAN');
  } else if (family === 'nanos') {
    types.fill('TIMESTAMP_NS');
  } else if (family === 'bytes') {
    // UUID (texts and NULLs read as UUIDs), LONG256 (NULLs) or a GEOHASH (texts and NULLs).
    types.fill(types.find((t) => t !== 'NULL' && !isText(t)) ?? 'UUID');
  } else if (family === 'decimal') {
    // One DECIMAL for all: the common one of the decimals and integers; texts and NULLs read as it.
    let d: SqlType | null = null;
    for (const t of types) if (t !== 'NULL' && !isText(t)) d = d === null ? t : commonDecimal(d, t);
    types.fill(d ?? 'DOUBLE');
  }
  return family;
}

export function registerCompare(registry: FunctionRegistry): void {
  for (const op of ['=', '!=', '<', '<=', '>', '>='] as const) defineScalar(registry, op, [compareSig(op)]);
  defineScalar(registry, 'between', [
    {
      args: [(t) => t, (t) => t, (t) => t],
      build: (t) => {
        const given = t.join(', ');
        const f = familyOf(t);
        if (!f || f === 'boolean' || f === 'bytes')
          return `there is no matching function \`between\` with the argument types: (${given})`;
        return { type: 'BOOLEAN', kernel: betweenKernel(f) };
      },
    },
  ]);
  defineScalar(registry, 'in_list', [
    {
      args: [(t) => t],
      rest: (t) => t,
      minRest: 1,
      build: (t) => {
        const f = familyOf(t);
        if (!f) return `there is no matching function \`in\` with the argument types: (${t.join(', ')})`;
        return { type: 'BOOLEAN', kernel: inListKernel(f), bind: inListSet(f) };
      },
    },
  ]);
}
