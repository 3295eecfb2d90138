// svcdb column types -> Parquet columns (the mapping): the schema
// element of each result column and the gatherer that copies its vectors'
// rows into ChunkValues, turning NULL sentinels into undefined rows.
import { SvcError } from '../../errors/svc-error.js';
import type { Field } from '../../sql/bound.js';
import {
  INT_NULL,
  LONG_NULL,
  decimalSpec,
  geohashBits,
  typeInfo,
  typeKind,
  type ColumnType,
  arrayDims,
} from '../../core/column-type.js';
import { isDecimalNull } from '../../core/decimal.js';
import { isGeohashNull, writeGeohashText } from '../../core/geohash.js';
import type { ColumnVector, TextDict } from '../../core/column-vector.js';
import { ChunkValues, type ValueKind } from './column-values.js';
import { BytesInterner } from './dictionary.js';
import { ArrayReader, isArrayType } from '../../core/array-values.js';
import { ConvertedType, type ColumnSchema } from './format.js';

/** How min/max compare (the column's sort order). */
export type SortOrder = 'signed' | 'unsigned' | 'float' | 'bytes' | 'bool' | 'signedBytes';

export interface ColumnSpec {
  readonly schema: ColumnSchema;
  readonly kind: ValueKind;
  /** Bytes per value of fixed kinds (PLAIN width). */
  readonly width: number;
  readonly order: SortOrder;
  /** Copies rows [from, to) of `v` into `out`. */
  readonly gather: (out: ChunkValues, v: ColumnVector, from: number, to: number) => void;
}

const TWO32 = 4294967296;
const utf8 = new TextEncoder();

function gatherI32(nullValue: number | null) {
  return (out: ChunkValues, v: ColumnVector, from: number, to: number): void => {
    const d = (v as { data: ArrayLike<number> }).data;
    out.reserve(to - from);
    const vals = out.i32,
      def = out.defined;
    let r = out.rows,
      c = out.count;
    for (let i = from; i < to; i++, r++) {
      const x = d[i]!;
      if (x === nullValue) {
        def[r] = 0;
        out.hasNulls = true;
      } else {
        def[r] = 1;
        vals[c++] = x;
      }
    }
    out.rows = r;
    out.count = c;
  };
}

function gatherFloat(out: ChunkValues, v: ColumnVector, from: number, to: number): void {
  const d = (v as { data: Float32Array | Float64Array }).data;
  out.reserve(to - from);
  const vals = out.kind === 'f32' ? out.f32 : out.f64,
    def = out.defined;
  let r = out.rows,
    c = out.count;
  for (let i = from; i < to; i++, r++) {
    const x = d[i]!;
    if (x !== x) {
      def[r] = 0;
      out.hasNulls = true;
    } else {
      def[r] = 1;
      vals[c++] = x;
    }
  }
  out.rows = r;
  out.count = c;
}

/** DOUBLE: the run of values before the first NaN (NULL) is copied at once; the rest value by value. */
function gatherDouble(out: ChunkValues, v: ColumnVector, from: number, to: number): void {
  const d = (v as { data: Float32Array | Float64Array }).data;
  if (!(d instanceof Float64Array)) {
    gatherFloat(out, v, from, to);
    return;
  }
  let i = from;
  while (i < to && d[i] === d[i]) i++;
  if (i > from) {
    out.reserve(i - from);
    out.f64.set(d.subarray(from, i), out.count);
    out.defined.fill(1, out.rows, out.rows + (i - from));
    out.rows += i - from;
    out.count += i - from;
  }
  if (i < to) gatherFloat(out, v, i, to);
}

/** LONG, DATE, TIMESTAMP, TIMESTAMP_NS: doubles (exact pairs when the vector has them) -> int64 pairs. */
function gatherI64(out: ChunkValues, v: ColumnVector, from: number, to: number): void {
  const fv = v as { data: Float64Array; exact?: Int32Array };
  const d = fv.data,
    exact = fv.exact;
  out.reserve(to - from);
  const vals = out.i64,
    def = out.defined;
  let r = out.rows,
    c = out.count;
  for (let i = from; i < to; i++, r++) {
    const x = d[i]!;
    if (x === LONG_NULL && (exact === undefined || (exact[2 * i] === 0 && exact[2 * i + 1] === INT_NULL))) {
      def[r] = 0;
      out.hasNulls = true;
      continue;
    }
    def[r] = 1;
    if (exact !== undefined) {
      vals[2 * c] = exact[2 * i]!;
      vals[2 * c + 1] = exact[2 * i + 1]!;
    } else if (x >= 0 && x < TWO32) {
      vals[2 * c] = x | 0;
      vals[2 * c + 1] = 0;
    } else {
      const hi = Math.floor(x / TWO32);
      vals[2 * c] = (x - hi * TWO32) | 0;
      vals[2 * c + 1] = hi | 0;
    }
    c++;
  }
  out.rows = r;
  out.count = c;
}

function gatherBool(out: ChunkValues, v: ColumnVector, from: number, to: number): void {
  const d = (v as { data: Uint8Array }).data;
  out.reserve(to - from);
  const vals = out.i32;
  let c = out.count;
  for (let i = from; i < to; i++) vals[c++] = d[i]! ? 1 : 0;
  out.rows += to - from;
  out.count = c;
}

/** UTF-8 of symbol dictionaries' entries, encoded once per entry (not per row), by dictionary. */
const ENCODED = new WeakMap<readonly string[], (Uint8Array | undefined)[]>();

function encodedEntry(dict: readonly string[], k: number): Uint8Array {
  let enc = ENCODED.get(dict);
  if (enc === undefined) {
    enc = [];
    ENCODED.set(dict, enc);
  }
  return (enc[k] ??= utf8.encode(dict[k] ?? ''));
}

/** STRING, VARCHAR, BINARY (a SYMBOL vector under a text field gives its strings). */
function gatherVar(out: ChunkValues, v: ColumnVector, from: number, to: number): void {
  if (v.kind === 'symbol') {
    out.reserve(to - from);
    const def = out.defined,
      offs = out.offsets;
    let r = out.rows,
      c = out.count;
    offs[c] = out.byteLength;
    for (let i = from; i < to; i++, r++) {
      const k = v.keys[i]!;
      if (k < 0) {
        def[r] = 0;
        out.hasNulls = true;
        continue;
      }
      def[r] = 1;
      const b = encodedEntry(v.dict, k);
      out.reserveBytes(b.length);
      out.bytes.set(b, out.byteLength);
      out.byteLength += b.length;
      offs[++c] = out.byteLength;
    }
    out.rows = r;
    out.count = c;
    return;
  }
  if (v.kind !== 'var') {
    gatherNull(out, v, from, to);
    return;
  }
  if (v.codes !== undefined && v.dict !== undefined && (out.coded || out.rows === 0)) {
    gatherCoded(out, v.codes, v.dict, from, to);
    return;
  }
  // Text without codes after coded text in the same chunk: the chunk's values so far as bytes too.
  if (out.coded) out.decodeKeys();
  const { bytes, offsets, nulls } = v;
  out.reserve(to - from);
  out.reserveBytes(offsets[to]! - offsets[from]!);
  const def = out.defined,
    offs = out.offsets,
    dst = out.bytes;
  let r = out.rows,
    c = out.count,
    at = out.byteLength;
  offs[c] = at;
  if (nulls === null) {
    // No NULLs: the values are one contiguous run; copy it at once and shift the offsets.
    const base = offsets[from]!;
    dst.set(bytes.subarray(base, offsets[to]), at);
    def.fill(1, r, r + (to - from));
    for (let i = from; i < to; i++) offs[++c] = at + offsets[i + 1]! - base;
    out.rows = r + (to - from);
    out.count = c;
    out.byteLength = at + offsets[to]! - base;
    return;
  }
  for (let i = from; i < to; i++, r++) {
    if (nulls[i] === 1) {
      def[r] = 0;
      out.hasNulls = true;
      continue;
    }
    def[r] = 1;
    const s = offsets[i]!,
      e = offsets[i + 1]!;
    // Short values by hand: subarray() would allocate a view per value.
    if (e - s <= 32) for (let k = s; k < e; k++) dst[at++] = bytes[k]!;
    else {
      dst.set(bytes.subarray(s, e), at);
      at += e - s;
    }
    offs[++c] = at;
  }
  out.rows = r;
  out.count = c;
  out.byteLength = at;
}

/** CHAR: one UTF-16 code unit (0 is NULL) -> UTF-8. */
function gatherChar(out: ChunkValues, v: ColumnVector, from: number, to: number): void {
  const d = (v as { data: Uint16Array }).data;
  out.reserve(to - from);
  out.reserveBytes(3 * (to - from));
  const def = out.defined,
    offs = out.offsets,
    b = out.bytes;
  let r = out.rows,
    c = out.count,
    at = out.byteLength;
  offs[c] = at;
  for (let i = from; i < to; i++, r++) {
    let u = d[i]!;
    if (u === 0) {
      def[r] = 0;
      out.hasNulls = true;
      continue;
    }
    def[r] = 1;
    if (u >= 0xd800 && u <= 0xdfff) u = 0xfffd; // a lone surrogate is not text
    if (u < 0x80) b[at++] = u;
    else if (u < 0x800) {
      b[at++] = 0xc0 | (u >> 6);
      b[at++] = 0x80 | (u & 63);
    } else {
      b[at++] = 0xe0 | (u >> 12);
      b[at++] = 0x80 | ((u >> 6) & 63);
      b[at++] = 0x80 | (u & 63);
    }
    offs[++c] = at;
  }
  out.rows = r;
  out.count = c;
  out.byteLength = at;
}

/** GEOHASH: its text (base32, or 0/1 digits), as /exec and CSV show it; NULL when every bit is set. */
function gatherGeohash(bits: number, width: number) {
  return (out: ChunkValues, v: ColumnVector, from: number, to: number): void => {
    const d = (v as { data: Uint8Array }).data;
    out.reserve(to - from);
    // At most 60 ASCII characters a value.
    out.reserveBytes(bits * (to - from));
    const def = out.defined,
      offs = out.offsets,
      b = out.bytes;
    let r = out.rows,
      c = out.count,
      at = out.byteLength;
    offs[c] = at;
    for (let i = from; i < to; i++, r++) {
      if (isGeohashNull(d, i, width)) {
        def[r] = 0;
        out.hasNulls = true;
        continue;
      }
      def[r] = 1;
      at = writeGeohashText(d, i, width, bits, b, at);
      offs[++c] = at;
    }
    out.rows = r;
    out.count = c;
    out.byteLength = at;
  };
}

/** DECIMAL: the little-endian unscaled value -> big-endian two's complement (Parquet's DECIMAL); NULL is the width's minimum. */
function gatherDecimal(width: number) {
  return (out: ChunkValues, v: ColumnVector, from: number, to: number): void => {
    const d = (v as { data: Uint8Array }).data;
    out.reserve(to - from);
    const def = out.defined,
      b = out.bytes;
    let r = out.rows,
      c = out.count;
    for (let i = from; i < to; i++, r++) {
      if (isDecimalNull(d, i, width)) {
        def[r] = 0;
        out.hasNulls = true;
        continue;
      }
      def[r] = 1;
      const at = i * width,
        o = c * width;
      for (let k = 0; k < width; k++) b[o + k] = d[at + width - 1 - k]!;
      c++;
    }
    out.rows = r;
    out.count = c;
  };
}

/** UUID, LONG128 and LONG256: little-endian 64-bit lanes -> one big-endian number; NULL when every lane is -2^63. */
function gatherFixedReversed(width: number) {
  return (out: ChunkValues, v: ColumnVector, from: number, to: number): void => {
    const d = (v as { data: Uint8Array }).data;
    out.reserve(to - from);
    const def = out.defined,
      b = out.bytes;
    let r = out.rows,
      c = out.count;
    for (let i = from; i < to; i++, r++) {
      const at = i * width;
      let isNull = true;
      for (let k = 0; k < width && isNull; k++) isNull = d[at + k] === ((k & 7) === 7 ? 0x80 : 0);
      if (isNull) {
        def[r] = 0;
        out.hasNulls = true;
        continue;
      }
      def[r] = 1;
      const o = c * width;
      for (let k = 0; k < width; k++) b[o + k] = d[at + width - 1 - k]!;
      c++;
    }
    out.rows = r;
    out.count = c;
  };
}

/** Per symbol chunk gathered from text vectors, and per coded text chunk: its values interned by their bytes. */
const TEXT_KEYS = new WeakMap<ChunkValues, BytesInterner>();

/** A source dictionary's keys -> the chunk dictionary's indices (-1: not met in this chunk yet), and the keys set. */
interface Remap<D> {
  readonly dict: D;
  map: Int32Array;
  readonly touched: number[];
}

/**
 * The chunk's map for source dictionary `dict` (`size` keys at least; a dictionary only grows),
 * from `store`; every map of the chunk is cleared when a new chunk begins (its dictionary reset).
 * At most `keep` maps are kept: the oldest go when sources come and go (partitions).
 */
function remapOf<D extends object>(
  store: WeakMap<ChunkValues, Remap<D>[]>,
  out: ChunkValues,
  dict: D,
  size: number,
  keep = Infinity,
): Remap<D> {
  let maps = store.get(out);
  if (maps === undefined) store.set(out, (maps = []));
  if (out.dict.length === 0)
    for (const m of maps) {
      for (const k of m.touched) m.map[k] = -1;
      m.touched.length = 0;
    }
  let m = maps.find((x) => x.dict === dict);
  if (m === undefined) {
    if (maps.length >= keep) maps.length = 0;
    m = { dict, map: new Int32Array(size).fill(-1), touched: [] };
    maps.push(m);
  }
  if (m.map.length < size) {
    const g = new Int32Array(size).fill(-1);
    g.set(m.map);
    m.map = g;
  }
  return m;
}

/** Per coded text chunk: dictionary code -> chunk dictionary index, for each partition dictionary seen. */
const CODE_MAPS = new WeakMap<ChunkValues, Remap<TextDict>[]>();

/**
 * Text with dictionary codes (a scan's VarVector.codes): each partition dictionary entry is
 * interned into the chunk dictionary by its bytes the first time the chunk meets it, and every
 * row is one lookup of its code; the text itself is never read. The chunk dictionary is the
 * one the bytes would give (first-seen order), so the file is the same.
 */
function gatherCoded(out: ChunkValues, codes: Uint8Array | Uint16Array, td: TextDict, from: number, to: number): void {
  let keys = TEXT_KEYS.get(out);
  if (keys === undefined) {
    keys = new BytesInterner();
    TEXT_KEYS.set(out, keys);
  }
  // A new chunk (reset dictionary): forget the previous chunk's values (remapOf forgets its indices).
  if (out.dict.length === 0) keys.clear();
  const m = remapOf(CODE_MAPS, out, td, td.size, 64);
  out.coded = true;
  out.reserve(to - from);
  out.reserveKeys(to - from);
  const map = m.map,
    ends = td.ends,
    tb = td.bytes,
    def = out.defined,
    vals = out.i32;
  let r = out.rows,
    c = out.count;
  for (let i = from; i < to; i++, r++) {
    const code = codes[i]!;
    if (code === 0) {
      def[r] = 0;
      out.hasNulls = true;
      continue;
    }
    let k = map[code]!;
    if (k < 0) {
      k = map[code] = keys.intern(out.dict, tb, ends[code - 1]!, ends[code]!);
      m.touched.push(code);
    }
    def[r] = 1;
    vals[c++] = k;
  }
  out.rows = r;
  out.count = c;
}

/** Per chunk: symbol key -> chunk dictionary index, for each table dictionary seen. */
const REMAPS = new WeakMap<ChunkValues, Remap<readonly string[]>[]>();

/** A text vector under a SYMBOL field: its values interned into the chunk dictionary by their UTF-8 bytes. */
function gatherSymbolFromText(out: ChunkValues, v: ColumnVector & { kind: 'var' }, from: number, to: number): void {
  let keys = TEXT_KEYS.get(out);
  if (keys === undefined) {
    keys = new BytesInterner();
    TEXT_KEYS.set(out, keys);
  }
  // A new chunk (reset dictionary): forget the previous chunk's values.
  if (out.dict.length === 0) keys.clear();
  out.reserve(to - from);
  const dictBefore = out.dict.length;
  const { bytes, offsets, nulls } = v;
  const def = out.defined,
    vals = out.i32;
  let r = out.rows,
    c = out.count;
  for (let i = from; i < to; i++, r++) {
    if (nulls !== null && nulls[i] === 1) {
      def[r] = 0;
      out.hasNulls = true;
      continue;
    }
    def[r] = 1;
    vals[c++] = keys.intern(out.dict, bytes, offsets[i]!, offsets[i + 1]!);
  }
  for (let e = dictBefore; e < out.dict.length; e++) out.dictBytes += out.dict[e]!.length;
  out.rows = r;
  out.count = c;
}

function gatherSymbol(out: ChunkValues, v: ColumnVector, from: number, to: number): void {
  if (v.kind === 'var') {
    gatherSymbolFromText(out, v, from, to);
    return;
  }
  if (v.kind !== 'symbol') {
    gatherNull(out, v, from, to);
    return;
  }
  const m = remapOf(REMAPS, out, v.dict, v.dict.length);
  out.reserve(to - from);
  const keys = v.keys,
    def = out.defined,
    vals = out.i32,
    map = m.map;
  let r = out.rows,
    c = out.count;
  for (let i = from; i < to; i++, r++) {
    const k = keys[i]!;
    if (k < 0) {
      def[r] = 0;
      out.hasNulls = true;
      continue;
    }
    def[r] = 1;
    let idx = map[k]!;
    if (idx < 0) {
      const s = utf8.encode(v.dict[k] ?? '');
      idx = out.dict.length;
      out.dict.push(s);
      out.dictBytes += s.length;
      map[k] = idx;
      m.touched.push(k);
    }
    vals[c++] = idx;
  }
  out.rows = r;
  out.count = c;
}

function gatherNull(out: ChunkValues, _v: ColumnVector, from: number, to: number): void {
  out.reserve(to - from);
  out.defined.fill(0, out.rows, out.rows + to - from);
  if (to > from) out.hasNulls = true;
  out.rows += to - from;
  if (out.kind === 'bytes') out.offsets[out.count] = out.byteLength;
}

/**
 * DOUBLE arrays as nested LISTs: per record, one level entry per element (NaN a
 * null element), or one for a NULL array (definition 0) or an empty (sub-)array
 * at dimension d (definition 2d + 1); repetition = the dimension whose index moved.
 */
function gatherArray(out: ChunkValues, v: ColumnVector, from: number, to: number): void {
  const r = new ArrayReader(v);
  const dims = r.dims,
    maxDef = 2 * dims + 1;
  let k = 0;
  const level = (rep: number, def: number): void => {
    out.reserveLevel();
    out.rep[out.levels] = rep;
    out.def[out.levels++] = def;
  };
  const walk = (d: number, rep: number): void => {
    const len = r.shape[d]!;
    if (len === 0) {
      level(rep, 2 * d + 1);
      return;
    }
    for (let j = 0; j < len; j++) {
      const rp = j === 0 ? rep : d + 1;
      if (d < dims - 1) {
        walk(d + 1, rp);
        continue;
      }
      const x = r.element(k++);
      if (x !== x) {
        level(rp, maxDef - 1);
        out.hasNulls = true;
        continue;
      }
      level(rp, maxDef);
      out.f64[out.count++] = x;
    }
  };
  for (let i = from; i < to; i++) {
    out.rows++;
    if (r.isNull(i)) {
      level(0, 0);
      out.hasNulls = true;
      continue;
    }
    r.open(i);
    k = 0;
    walk(0, 0);
  }
}

const STRING = { kind: 'STRING' } as const;

/** The Parquet column of a result field. */
export function columnSpec(f: Field): ColumnSpec {
  const name = f.name;
  const opt = (physical: ColumnSchema['physical'], extra: Partial<ColumnSchema> = {}): ColumnSchema => ({
    name,
    physical,
    optional: true,
    ...extra,
  });
  if (isArrayType(f.type)) {
    return {
      schema: { name, physical: 'DOUBLE', optional: true, listDims: arrayDims(f.type as ColumnType) },
      kind: 'f64',
      width: 8,
      order: 'float',
      gather: gatherArray,
    };
  }
  switch (f.type) {
    case 'BOOLEAN':
      return {
        schema: { name, physical: 'BOOLEAN', optional: false },
        kind: 'bool',
        width: 0,
        order: 'bool',
        gather: gatherBool,
      };
    case 'BYTE':
      return {
        schema: {
          name,
          physical: 'INT32',
          optional: false,
          logical: { kind: 'INTEGER', bitWidth: 8, signed: true },
          converted: ConvertedType.INT_8,
        },
        kind: 'i32',
        width: 4,
        order: 'signed',
        gather: gatherI32(null),
      };
    case 'SHORT':
      return {
        schema: {
          name,
          physical: 'INT32',
          optional: false,
          logical: { kind: 'INTEGER', bitWidth: 16, signed: true },
          converted: ConvertedType.INT_16,
        },
        kind: 'i32',
        width: 4,
        order: 'signed',
        gather: gatherI32(null),
      };
    case 'INT':
      return {
        schema: opt('INT32', {
          logical: { kind: 'INTEGER', bitWidth: 32, signed: true },
          converted: ConvertedType.INT_32,
        }),
        kind: 'i32',
        width: 4,
        order: 'signed',
        gather: gatherI32(INT_NULL),
      };
    case 'IPV4':
      return {
        schema: opt('INT32', {
          logical: { kind: 'INTEGER', bitWidth: 32, signed: false },
          converted: ConvertedType.UINT_32,
        }),
        kind: 'i32',
        width: 4,
        order: 'unsigned',
        gather: gatherI32(0),
      };
    case 'LONG':
      return {
        schema: opt('INT64', {
          logical: { kind: 'INTEGER', bitWidth: 64, signed: true },
          converted: ConvertedType.INT_64,
        }),
        kind: 'i64',
        width: 8,
        order: 'signed',
        gather: gatherI64,
      };
    case 'TIMESTAMP':
      return {
        schema: opt('INT64', {
          logical: { kind: 'TIMESTAMP', unit: 'MICROS' },
          converted: ConvertedType.TIMESTAMP_MICROS,
        }),
        kind: 'i64',
        width: 8,
        order: 'signed',
        gather: gatherI64,
      };
    // No converted type exists for nanoseconds: the logical type alone (readers since Parquet format 2.6).
    case 'TIMESTAMP_NS':
      return {
        schema: opt('INT64', { logical: { kind: 'TIMESTAMP', unit: 'NANOS' } }),
        kind: 'i64',
        width: 8,
        order: 'signed',
        gather: gatherI64,
      };
    case 'DATE':
      return {
        schema: opt('INT64', {
          logical: { kind: 'TIMESTAMP', unit: 'MILLIS' },
          converted: ConvertedType.TIMESTAMP_MILLIS,
        }),
        kind: 'i64',
        width: 8,
        order: 'signed',
        gather: gatherI64,
      };
    case 'FLOAT':
      return { schema: opt('FLOAT'), kind: 'f32', width: 4, order: 'float', gather: gatherFloat };
    case 'DOUBLE':
      return { schema: opt('DOUBLE'), kind: 'f64', width: 8, order: 'float', gather: gatherDouble };
    case 'SYMBOL':
      return {
        schema: opt('BYTE_ARRAY', { logical: STRING, converted: ConvertedType.UTF8 }),
        kind: 'symbol',
        width: 0,
        order: 'bytes',
        gather: gatherSymbol,
      };
    case 'STRING':
    case 'VARCHAR':
      return {
        schema: opt('BYTE_ARRAY', { logical: STRING, converted: ConvertedType.UTF8 }),
        kind: 'bytes',
        width: 0,
        order: 'bytes',
        gather: gatherVar,
      };
    case 'CHAR':
      return {
        schema: opt('BYTE_ARRAY', { logical: STRING, converted: ConvertedType.UTF8 }),
        kind: 'bytes',
        width: 0,
        order: 'bytes',
        gather: gatherChar,
      };
    case 'BINARY':
      return { schema: opt('BYTE_ARRAY'), kind: 'bytes', width: 0, order: 'bytes', gather: gatherVar };
    case 'UUID':
      return {
        schema: opt('FIXED_LEN_BYTE_ARRAY', { typeLength: 16, logical: { kind: 'UUID' } }),
        kind: 'fixed',
        width: 16,
        order: 'bytes',
        gather: gatherFixedReversed(16),
      };
    case 'LONG128':
      return {
        schema: opt('FIXED_LEN_BYTE_ARRAY', { typeLength: 16 }),
        kind: 'fixed',
        width: 16,
        order: 'bytes',
        gather: gatherFixedReversed(16),
      };
    case 'LONG256':
      return {
        schema: opt('FIXED_LEN_BYTE_ARRAY', { typeLength: 32 }),
        kind: 'fixed',
        width: 32,
        order: 'bytes',
        gather: gatherFixedReversed(32),
      };
    case 'NULL':
      return {
        schema: opt('BYTE_ARRAY', { logical: STRING, converted: ConvertedType.UTF8 }),
        kind: 'bytes',
        width: 0,
        order: 'bytes',
        gather: gatherNull,
      };
    default:
      break;
  }
  switch (typeKind(f.type)) {
    // A GEOHASH is exported as its text (Parquet has no geohash type; QuestDB's readers see what /exec shows).
    case 'GEOHASH':
      return {
        schema: opt('BYTE_ARRAY', { logical: STRING, converted: ConvertedType.UTF8 }),
        kind: 'bytes',
        width: 0,
        order: 'bytes',
        gather: gatherGeohash(geohashBits(f.type), typeInfo(f.type).width),
      };
    case 'DECIMAL': {
      const { precision, scale } = decimalSpec(f.type);
      const width = typeInfo(f.type).width;
      return {
        schema: opt('FIXED_LEN_BYTE_ARRAY', {
          typeLength: width,
          logical: { kind: 'DECIMAL', precision, scale },
          converted: ConvertedType.DECIMAL,
          precision,
          scale,
        }),
        kind: 'fixed',
        width,
        order: 'signedBytes',
        gather: gatherDecimal(width),
      };
    }
    default:
      throw new SvcError('BAD_REQUEST', `column ${name} of type ${String(f.type)} cannot be exported to Parquet`);
  }
}
