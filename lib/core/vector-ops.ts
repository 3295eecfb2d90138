// The one place rows move between column vectors and batches: zero-copy
// slices, self-contained copies (for another thread), concatenation, gathering
// by index (-1 -> NULL where asked), and picking each row from one of several
// sources. Every vector kind and type layout goes through the same code.
import { DEFAULT_BATCH_ROWS, type Batch } from './batch.js';
import { INT_NULL, hasExactPairs, isByteRows, typeInfo, type ColumnType } from './column-type.js';
import {
  LazyVarVector,
  f64ToInt64Into,
  nullVector,
  rowsOf,
  type ColumnVector,
  type FixedArray,
  type FixedVector,
  type SymbolVector,
  type TextDict,
  type VarVector,
} from './column-vector.js';
import { nullValue, nulls } from './rows.js';
import type { SqlType } from './sql-type.js';

// ---- slices ----

/** Rows [lo, hi) of `v` without copying (a var vector keeps its bytes; its offsets stay absolute). */
export function sliceVector(v: ColumnVector, lo: number, hi: number): ColumnVector {
  switch (v.kind) {
    case 'fixed': {
      const w = typeInfo(v.type).stride;
      return { ...v, data: v.data.subarray(lo * w, hi * w), exact: v.exact?.subarray(lo * 2, hi * 2) };
    }
    case 'symbol':
      return { ...v, keys: v.keys.subarray(lo, hi) };
    case 'var': {
      const text = (): VarVector => ({
        kind: 'var',
        type: v.type,
        bytes: v.bytes,
        offsets: v.offsets.subarray(lo, hi + 1),
        nulls: v.nulls?.subarray(lo, hi) ?? null,
      });
      // With codes, the text stays unread until asked for.
      return v.codes === undefined || v.dict === undefined
        ? text()
        : new LazyVarVector(v.type, text, v.codes.subarray(lo, hi), v.dict);
    }
  }
}

/**
 * The batch with the text a scan left to be read lazily (LazyVarVector) read
 * now, as plain vectors: for a batch that outlives its statement (a caller
 * outside the engine keeps it), and for writers that read it row by row (a
 * plain field read, not a getter call per row).
 */
export function loadLazyText(b: Batch): Batch {
  if (!b.columns.some((c) => c instanceof LazyVarVector)) return b;
  return { rowCount: b.rowCount, columns: b.columns.map((c) => (c instanceof LazyVarVector ? plainVar(c) : c)) };
}

/** Most dictionary entries a coded slice carries to another thread (codedSlice); past it the text goes. */
const CODED_SLICE_MAX_ENTRIES = 4096;

/** Text rows as dictionary codes, with the entries, for another thread (codedSlice, textOfCodes). */
export interface CodedTextSlice {
  readonly kind: 'coded';
  readonly type: ColumnType;
  readonly codes: Uint8Array | Uint16Array;
  readonly dict: TextDict;
}

/**
 * Rows [from, to) of a var vector that has dictionary codes as those codes and a copy of its
 * dictionary (for a thread that writes each entry's text once, not each row's): null when it
 * has no codes or too many entries to be worth sending. Buffers to transfer are added to `transfer`.
 */
export function codedSlice(v: ColumnVector, from: number, to: number, transfer: ArrayBuffer[]): CodedTextSlice | null {
  if (v.kind !== 'var' || v.codes === undefined || v.dict === undefined) return null;
  const d = v.dict;
  if (d.size > CODED_SLICE_MAX_ENTRIES) return null;
  const codes = v.codes.slice(from, to);
  const ends = d.ends.slice(0, d.size);
  const bytes = d.bytes.slice(0, d.size > 0 ? ends[d.size - 1] : 0);
  transfer.push(codes.buffer, ends.buffer, bytes.buffer);
  return { kind: 'coded', type: v.type, codes, dict: { size: d.size, bytes, ends } };
}

/** The var vector a coded slice stands for: its codes at once, its text made if anything asks. */
export function textOfCodes(c: CodedTextSlice): VarVector {
  const { codes, dict } = c;
  return new LazyVarVector(
    c.type,
    () => {
      const n = codes.length;
      const offsets = new Int32Array(n + 1);
      let size = 0;
      for (let i = 0; i < n; i++) {
        const k = codes[i]!;
        if (k > 0) size += dict.ends[k]! - dict.ends[k - 1]!;
        offsets[i + 1] = size;
      }
      const bytes = new Uint8Array(size);
      let nulls: Uint8Array | null = null;
      for (let i = 0; i < n; i++) {
        const k = codes[i]!;
        if (k === 0) (nulls ??= new Uint8Array(n))[i] = 1;
        else bytes.set(dict.bytes.subarray(dict.ends[k - 1], dict.ends[k]), offsets[i]);
      }
      return { kind: 'var', type: c.type, bytes, offsets, nulls };
    },
    codes,
    dict,
  );
}

/** A var vector as a plain object (its text read now if it was lazy), codes kept. */
function plainVar(v: VarVector): VarVector {
  const out: VarVector = { kind: 'var', type: v.type, bytes: v.bytes, offsets: v.offsets, nulls: v.nulls };
  return v.codes === undefined || v.dict === undefined ? out : { ...out, codes: v.codes, dict: v.dict };
}

/** The same text as another var type (STRING <-> VARCHAR), sharing its arrays and codes. */
export function retypeVar(v: VarVector, type: ColumnType): VarVector {
  return { ...plainVar(v), type };
}

/** Rows [lo, hi) of a batch, sharing its arrays. */
export function sliceBatch(b: Batch, lo: number, hi: number): Batch {
  if (lo === 0 && hi === b.rowCount) return b;
  return { rowCount: hi - lo, columns: b.columns.map((c) => sliceVector(c, lo, hi)) };
}

/** Rows [lo, hi) of a batch as batches of at most DEFAULT_BATCH_ROWS rows, sharing its arrays. */
export function* sliceBatches(b: Batch, lo = 0, hi = b.rowCount): Generator<Batch> {
  for (let s = lo; s < hi; s += DEFAULT_BATCH_ROWS) yield sliceBatch(b, s, Math.min(hi, s + DEFAULT_BATCH_ROWS));
}

/** Dictionaries up to this many entries are kept whole by copySlice; larger ones cut to the entries the rows use. */
const WHOLE_DICT = 1024;

/**
 * Rows [from, to) of `v` copied into arrays of their own (var offsets rebased
 * to 0, a large dictionary cut to the entries used), each pushed to `transfer`:
 * a vector that can be handed to another thread or outlive reused buffers.
 */
export function copySlice(v: ColumnVector, from: number, to: number, transfer: ArrayBuffer[] = []): ColumnVector {
  switch (v.kind) {
    case 'fixed': {
      const w = typeInfo(v.type).stride;
      const data = v.data.slice(from * w, to * w);
      const exact = v.exact?.slice(2 * from, 2 * to);
      transfer.push(data.buffer);
      if (exact) transfer.push(exact.buffer);
      return exact ? { kind: 'fixed', type: v.type, data, exact } : { kind: 'fixed', type: v.type, data };
    }
    case 'symbol': {
      if (v.dict.length <= WHOLE_DICT) {
        // A small dictionary goes whole (cheaper to clone than to remap every key).
        const keys = v.keys.slice(from, to);
        transfer.push(keys.buffer);
        return { kind: 'symbol', type: 'SYMBOL', keys, dict: v.dict };
      }
      const keys = new Int32Array(to - from);
      const dict: string[] = [];
      const local = new Map<number, number>();
      for (let i = from; i < to; i++) {
        const k = v.keys[i]!;
        if (k < 0) {
          keys[i - from] = -1;
          continue;
        }
        let l = local.get(k);
        if (l === undefined) {
          l = dict.length;
          dict.push(v.dict[k]!);
          local.set(k, l);
        }
        keys[i - from] = l;
      }
      transfer.push(keys.buffer);
      return { kind: 'symbol', type: 'SYMBOL', keys, dict };
    }
    case 'var': {
      const base = v.offsets[from]!;
      const bytes = v.bytes.slice(base, v.offsets[to]);
      const offsets = new Int32Array(to - from + 1);
      for (let i = from; i <= to; i++) offsets[i - from] = v.offsets[i]! - base;
      const nulls = v.nulls === null ? null : v.nulls.slice(from, to);
      transfer.push(bytes.buffer, offsets.buffer);
      if (nulls) transfer.push(nulls.buffer);
      return { kind: 'var', type: v.type, bytes, offsets, nulls };
    }
  }
}

// ---- concatenation ----

/**
 * The vectors of one column end to end, each byte copied once. The result
 * takes the first vector's type; one vector comes back as it is. Exact int64
 * pairs survive when any part has them (the others' come from their doubles);
 * symbols of one dictionary keep it (a table's, growing in place), others get
 * a merged one.
 */
export function concatVectors(vs: readonly ColumnVector[]): ColumnVector {
  const v0 = vs[0];
  if (v0 === undefined) throw new Error('no vectors to concatenate');
  if (vs.length === 1) return v0;
  for (const v of vs) if (v.kind !== v0.kind) throw new Error(`cannot concatenate ${v0.kind} and ${v.kind} vectors`);
  switch (v0.kind) {
    case 'fixed':
      return concatFixed(vs as readonly FixedVector[]);
    case 'symbol':
      return concatSymbols(vs as readonly SymbolVector[]);
    case 'var':
      return concatVar(vs as readonly VarVector[]);
  }
}

/** Batches of one shape end to end (`width` columns); one batch comes back as it is. */
export function concatBatches(parts: readonly Batch[], width: number): Batch {
  if (parts.length === 1) return parts[0]!;
  if (parts.length === 0) return { rowCount: 0, columns: [] };
  const columns: ColumnVector[] = [];
  for (let c = 0; c < width; c++) columns.push(concatVectors(parts.map((p) => p.columns[c]!)));
  let rows = 0;
  for (const p of parts) rows += p.rowCount;
  return { rowCount: rows, columns };
}

function concatFixed(vs: readonly FixedVector[]): FixedVector {
  const v0 = vs[0]!;
  let total = 0;
  let withExact = false;
  for (const v of vs) {
    total += v.data.length;
    if (v.exact) withExact = true;
  }
  const data = new (v0.data.constructor as { new (n: number): FixedArray })(total);
  let at = 0;
  for (const v of vs) {
    data.set(v.data, at);
    at += v.data.length;
  }
  if (!withExact) return { kind: 'fixed', type: v0.type, data };
  // int64 types have one element per row: the pairs of part i start at 2 * (its first row).
  const exact = new Int32Array(2 * total);
  at = 0;
  for (const v of vs) {
    const n = v.data.length;
    if (v.exact) exact.set(v.exact.length === 2 * n ? v.exact : v.exact.subarray(0, 2 * n), 2 * at);
    else f64ToInt64Into(v.data as Float64Array, exact.subarray(2 * at, 2 * (at + n)));
    at += n;
  }
  return { kind: 'fixed', type: v0.type, data, exact };
}

function concatSymbols(vs: readonly SymbolVector[]): SymbolVector {
  let total = 0;
  for (const v of vs) total += v.keys.length;
  const keys = new Int32Array(total);
  const first = vs[0]!.dict;
  let at = 0;
  if (vs.every((v) => v.dict === first)) {
    for (const v of vs) {
      keys.set(v.keys, at);
      at += v.keys.length;
    }
    return { kind: 'symbol', type: 'SYMBOL', keys, dict: first };
  }
  const { dict, maps } = mergeDicts(vs);
  for (let s = 0; s < vs.length; s++) {
    const src = vs[s]!.keys,
      map = maps[s]!;
    for (let i = 0; i < src.length; i++) {
      const k = src[i]!;
      keys[at + i] = k < 0 ? -1 : map[k]!;
    }
    at += src.length;
  }
  return { kind: 'symbol', type: 'SYMBOL', keys, dict };
}

function concatVar(vs: readonly VarVector[]): VarVector {
  // Only the bytes the rows use: a part may be a slice (offsets not from 0) or a prefix with slack after its last row.
  let rows = 0,
    size = 0,
    withNulls = false;
  for (const v of vs) {
    const n = v.offsets.length - 1;
    rows += n;
    size += v.offsets[n]! - v.offsets[0]!;
    if (v.nulls) withNulls = true;
  }
  const bytes = new Uint8Array(size);
  const offsets = new Int32Array(rows + 1);
  const nulls = withNulls ? new Uint8Array(rows) : null;
  let row = 0,
    at = 0;
  for (const v of vs) {
    const n = v.offsets.length - 1;
    const s = v.offsets[0]!,
      e = v.offsets[n]!;
    bytes.set(v.bytes.subarray(s, e), at);
    const shift = at - s,
      src = v.offsets;
    for (let i = 1; i <= n; i++) offsets[row + i] = src[i]! + shift;
    if (nulls && v.nulls) nulls.set(v.nulls.subarray(0, n), row);
    row += n;
    at += e - s;
  }
  return { kind: 'var', type: vs[0]!.type, bytes, offsets, nulls };
}

/** One dictionary for several symbol vectors and each one's key map into it (each distinct dictionary read once). */
export function mergeDicts(sources: readonly SymbolVector[]): { dict: readonly string[]; maps: Int32Array[] } {
  const firstDict = sources[0]!.dict;
  if (sources.every((s) => s.dict === firstDict)) {
    const id = Int32Array.from(firstDict, (_, k) => k);
    return { dict: firstDict, maps: sources.map(() => id) };
  }
  const dict: string[] = [];
  const index = new Map<string, number>();
  const seen = new Map<readonly string[], Int32Array>();
  const maps = sources.map((s) => {
    let m = seen.get(s.dict);
    if (m !== undefined) return m;
    m = new Int32Array(s.dict.length);
    for (let k = 0; k < s.dict.length; k++) {
      const v = s.dict[k]!;
      let g = index.get(v);
      if (g === undefined) {
        g = dict.length;
        dict.push(v);
        index.set(v, g);
      }
      m[k] = g;
    }
    seen.set(s.dict, m);
    return m;
  });
  return { dict, maps };
}

// ---- gathering ----

/** Rows `idx[0], idx[1], ...` of `v`, in that order (every index a row of `v`). */
export function gatherVector(v: ColumnVector, idx: Int32Array): ColumnVector {
  if (v.kind === 'symbol') {
    const keys = new Int32Array(idx.length);
    gather32(v.keys, idx, keys);
    return { kind: 'symbol', type: 'SYMBOL', keys, dict: v.dict };
  }
  if (v.kind === 'fixed') return gatherFixed(v, idx);
  return gatherVar(v, idx);
}

/** Rows `idx` of every column of `b`. */
export function gatherBatch(b: Batch, idx: Int32Array): Batch {
  return { rowCount: idx.length, columns: b.columns.map((c) => gatherVector(c, idx)) };
}

/**
 * Rows `idx[i]` of `v`, NULL where `idx[i]` is negative (the right side of a
 * LEFT JOIN without a match); `type` is the column's, for its NULL.
 */
export function gatherOrNull(v: ColumnVector, idx: Int32Array, type: ColumnType): ColumnVector {
  const n = idx.length;
  let missing = 0;
  for (let i = 0; i < n; i++) if (idx[i]! < 0) missing++;
  if (missing === 0) return gatherVector(v, idx);
  if (missing === n || rowsOf(v) === 0) return nullVector(type, n, v.kind === 'symbol' ? v.dict : []);
  if (v.kind === 'var') return gatherVar(v, idx);
  // Fixed and symbol: gather row 0 for the missing ones, then write their NULLs.
  const safe = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const r = idx[i]!;
    safe[i] = r < 0 ? 0 : r;
  }
  const g = gatherVector(v, safe);
  if (g.kind === 'symbol') {
    const keys = g.keys;
    for (let i = 0; i < n; i++) if (idx[i]! < 0) keys[i] = -1;
    return g;
  }
  const fixed = g as FixedVector;
  const none = nullVector(fixed.type, 1) as FixedVector;
  const w = fixed.data.length / n;
  for (let i = 0; i < n; i++) {
    if (idx[i]! >= 0) continue;
    if (w === 1) fixed.data[i] = none.data[0]!;
    else (fixed.data as Uint8Array).set(none.data, i * w);
    if (fixed.exact) {
      fixed.exact[2 * i] = 0;
      fixed.exact[2 * i + 1] = INT_NULL;
    }
  }
  return fixed;
}

/**
 * Row rows[i] of batches[i] for every i, NULL where batches[i] is null (each
 * row's own batch: the remembered rows of an ASOF join). Each batch's rows are
 * gathered, the pieces put end to end, and one gather orders them: every
 * value copied as it is (exact pairs too), O(rows) however large the batches.
 */
export function gatherFromBatches(
  batches: readonly (Batch | null)[],
  rows: Int32Array,
  types: readonly SqlType[],
): ColumnVector[] {
  const n = rows.length;
  const slot = new Map<Batch, number>();
  const used: Batch[] = [];
  const counts: number[] = [];
  const which = new Int32Array(n);
  let last: Batch | null = null,
    lastSlot = -1;
  for (let i = 0; i < n; i++) {
    const b = batches[i] ?? null;
    if (b === null) {
      which[i] = -1;
      continue;
    }
    if (b !== last) {
      let s = slot.get(b);
      if (s === undefined) {
        s = used.length;
        slot.set(b, s);
        used.push(b);
        counts.push(0);
      }
      last = b;
      lastSlot = s;
    }
    which[i] = lastSlot;
    counts[lastSlot]!++;
  }
  if (used.length === 0) return types.map((t) => nulls(t, n));
  if (used.length === 1 && counts[0] === n) return gatherBatch(used[0]!, rows).columns as ColumnVector[];
  const start = new Int32Array(used.length);
  for (let s = 1; s < used.length; s++) start[s] = start[s - 1]! + counts[s - 1]!;
  const fill = start.slice();
  const pick = new Int32Array(n);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const s = which[i]!;
    if (s < 0) {
      order[i] = -1;
      continue;
    }
    const at = fill[s]!++;
    pick[at] = rows[i]!;
    order[i] = at;
  }
  const parts = used.map((b, s) => gatherBatch(b, pick.subarray(start[s], start[s]! + counts[s]!)));
  return concatBatches(parts, types.length).columns.map((c) => gatherOrNull(c, order, c.type));
}

// One gather loop per element width, each always called with the same array
// types, so every loop stays monomorphic (one loop over the FixedArray union
// runs several times slower). Values are copied as bit patterns: FLOAT through
// an Int32Array view, int64 as two int32 words.

function gather8(src: Float64Array, idx: Int32Array, out: Float64Array): void {
  for (let i = 0; i < idx.length; i++) out[i] = src[idx[i]!]!;
}

function gather32(src: Int32Array, idx: Int32Array, out: Int32Array): void {
  for (let i = 0; i < idx.length; i++) out[i] = src[idx[i]!]!;
}

function gather16(src: Uint16Array, idx: Int32Array, out: Uint16Array): void {
  for (let i = 0; i < idx.length; i++) out[i] = src[idx[i]!]!;
}

function gather8Bit(src: Uint8Array, idx: Int32Array, out: Uint8Array): void {
  for (let i = 0; i < idx.length; i++) out[i] = src[idx[i]!]!;
}

function gatherPairs(src: Int32Array, idx: Int32Array, out: Int32Array): void {
  for (let i = 0; i < idx.length; i++) {
    const r = 2 * idx[i]!;
    out[2 * i] = src[r]!;
    out[2 * i + 1] = src[r + 1]!;
  }
}

/** Rows of `w` words each (UUID, LONG256, wide DECIMAL through an Int32Array view). */
function gatherWords(src: Int32Array, w: number, idx: Int32Array, out: Int32Array): void {
  for (let i = 0, o = 0; i < idx.length; i++) {
    const r = idx[i]! * w;
    for (let k = 0; k < w; k++) out[o++] = src[r + k]!;
  }
}

/** Rows of `w` bytes each (GEOHASH, narrow or unaligned DECIMAL). */
function gatherBytes(src: Uint8Array, w: number, idx: Int32Array, out: Uint8Array): void {
  for (let i = 0, o = 0; i < idx.length; i++) {
    const r = idx[i]! * w;
    for (let k = 0; k < w; k++) out[o++] = src[r + k]!;
  }
}

function gatherFixed(v: FixedVector, idx: Int32Array): FixedVector {
  const n = idx.length;
  const w = typeInfo(v.type).stride;
  if (w > 1) {
    // Byte rows: copied by words when the width and the source allow, with no view per row.
    const src = v.data as Uint8Array;
    const out = new Uint8Array(n * w);
    if (w % 4 === 0 && src.byteOffset % 4 === 0) {
      gatherWords(new Int32Array(src.buffer, src.byteOffset, src.length >> 2), w >> 2, idx, new Int32Array(out.buffer));
    } else gatherBytes(src, w, idx, out);
    return { kind: 'fixed', type: v.type, data: out };
  }
  const C = v.data.constructor as { new (n: number): FixedArray };
  const data = new C(n);
  const src = v.data;
  if (src instanceof Float64Array) gather8(src, idx, data as Float64Array);
  else if (src.BYTES_PER_ELEMENT === 4) gather32(view(src, Int32Array), idx, view(data, Int32Array));
  else if (src.BYTES_PER_ELEMENT === 2) gather16(view(src, Uint16Array), idx, view(data, Uint16Array));
  else gather8Bit(view(src, Uint8Array), idx, view(data, Uint8Array));
  let exact: Int32Array | undefined;
  if (v.exact) {
    exact = new Int32Array(n * 2);
    gatherPairs(v.exact, idx, exact);
  }
  return { kind: 'fixed', type: v.type, data, exact };
}

/** The same memory as another typed array of the same element width. */
function view<T>(a: FixedArray, C: { new (b: ArrayBufferLike, off: number, len: number): T }): T {
  return a.constructor === C ? (a as T) : new C(a.buffer, a.byteOffset, a.length);
}

/** Var rows by index; a negative index is a NULL row. With codes, those are gathered now and the text when asked for. */
function gatherVar(v: VarVector, idx: Int32Array): VarVector {
  if (v.codes === undefined || v.dict === undefined) return gatherText(v, idx);
  const n = idx.length;
  const src = v.codes;
  const codes = src instanceof Uint8Array ? new Uint8Array(n) : new Uint16Array(n);
  for (let i = 0; i < n; i++) {
    const r = idx[i]!;
    codes[i] = r >= 0 ? src[r]! : 0; // a missing row is NULL: code 0
  }
  const rows = idx.slice(); // the caller may reuse its index array
  return new LazyVarVector(v.type, () => gatherText(v, rows), codes, v.dict);
}

function gatherText(v: VarVector, idx: Int32Array): VarVector {
  const n = idx.length;
  const offs = v.offsets;
  const src = v.bytes;
  const srcNulls = v.nulls;
  let total = 0;
  let missing = false;
  for (let i = 0; i < n; i++) {
    const r = idx[i]!;
    if (r >= 0) total += offs[r + 1]! - offs[r]!;
    else missing = true;
  }
  const bytes = new Uint8Array(total);
  const offsets = new Int32Array(n + 1);
  let at = 0;
  for (let i = 0; i < n; i++) {
    const r = idx[i]!;
    if (r >= 0) {
      const s = offs[r]!,
        e = offs[r + 1]!;
      // Short values are copied byte by byte: cheaper than a subarray object per row.
      if (e - s <= 32) for (let k = s; k < e; k++) bytes[at++] = src[k]!;
      else {
        bytes.set(src.subarray(s, e), at);
        at += e - s;
      }
    }
    offsets[i + 1] = at;
  }
  let nulls: Uint8Array | null = null;
  if (srcNulls !== null || missing) {
    for (let i = 0; i < n; i++) {
      const r = idx[i]!;
      if (r < 0 || (srcNulls !== null && srcNulls[r] === 1)) {
        nulls ??= new Uint8Array(n);
        nulls[i] = 1;
      }
    }
  }
  return { kind: 'var', type: v.type, bytes, offsets, nulls };
}

// ---- picking ----

/** Row i of the result is row i of sources[choice[i]], or NULL where choice[i] < 0 (CASE, COALESCE, NULLIF). */
export function pickRows(sources: readonly ColumnVector[], choice: Int32Array, n: number): ColumnVector {
  const first = sources[0]!;
  switch (first.kind) {
    case 'fixed':
      return pickFixed(sources as readonly FixedVector[], choice, n);
    case 'symbol':
      return pickSymbols(sources as readonly SymbolVector[], choice, n);
    case 'var':
      return pickVar(sources as readonly VarVector[], choice, n);
  }
}

function pickFixed(sources: readonly FixedVector[], choice: Int32Array, n: number): FixedVector {
  const first = sources[0]!;
  const w = typeInfo(first.type).stride;
  const out = new (first.data.constructor as { new (n: number): FixedArray })(n * w);
  if (w === 1) {
    // One-byte GEOHASH and DECIMAL rows have their own NULL byte (not the 0 of BYTE).
    const nv = isByteRows(first.type) ? (nullVector(first.type, 1) as FixedVector).data[0]! : nullValue(first.type);
    for (let i = 0; i < n; i++) {
      const c = choice[i]!;
      out[i] = c < 0 ? nv : sources[c]!.data[i]!;
    }
  } else {
    // Byte rows copied byte by byte: no view object per row.
    const blank = (nullVector(first.type, 1) as FixedVector).data as Uint8Array;
    const bytes = out as Uint8Array;
    for (let i = 0, o = 0; i < n; i++, o += w) {
      const c = choice[i]!;
      const src = c < 0 ? blank : (sources[c]!.data as Uint8Array);
      const from = c < 0 ? 0 : o;
      for (let k = 0; k < w; k++) bytes[o + k] = src[from + k]!;
    }
  }
  let exact: Int32Array | undefined;
  if (hasExactPairs(first.type) && sources.some((s) => s.exact)) {
    // Keep exact int64 values through the selection when any source has them.
    const pairs = sources.map(
      (s) => s.exact ?? f64ToInt64Into(s.data as Float64Array, new Int32Array(2 * s.data.length)),
    );
    exact = new Int32Array(n * 2);
    for (let i = 0; i < n; i++) {
      const c = choice[i]!;
      if (c < 0) {
        exact[2 * i] = 0;
        exact[2 * i + 1] = INT_NULL;
      } else {
        exact[2 * i] = pairs[c]![2 * i]!;
        exact[2 * i + 1] = pairs[c]![2 * i + 1]!;
      }
    }
  }
  return exact ? { kind: 'fixed', type: first.type, data: out, exact } : { kind: 'fixed', type: first.type, data: out };
}

function pickSymbols(sources: readonly SymbolVector[], choice: Int32Array, n: number): SymbolVector {
  const { dict, maps } = mergeDicts(sources);
  const keys = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const c = choice[i]!;
    if (c < 0) {
      keys[i] = -1;
      continue;
    }
    const k = sources[c]!.keys[i]!;
    keys[i] = k < 0 ? -1 : maps[c]![k]!;
  }
  return { kind: 'symbol', type: 'SYMBOL', keys, dict };
}

function pickVar(sources: readonly VarVector[], choice: Int32Array, n: number): VarVector {
  const offsets = new Int32Array(n + 1);
  let nullFlags: Uint8Array | null = null;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const c = choice[i]!;
    const s = c < 0 ? null : sources[c]!;
    if (!s || (s.nulls && s.nulls[i])) (nullFlags ??= new Uint8Array(n))[i] = 1;
    else total += s.offsets[i + 1]! - s.offsets[i]!;
    offsets[i + 1] = total;
  }
  const bytes = new Uint8Array(total);
  for (let i = 0; i < n; i++) {
    let at = offsets[i]!;
    if (offsets[i + 1] === at) continue;
    const src = sources[choice[i]!]!;
    const s = src.offsets[i]!,
      e = src.offsets[i + 1]!;
    // Short values byte by byte, as in gatherVar: cheaper than a subarray object per row.
    if (e - s <= 32) for (let k = s; k < e; k++) bytes[at++] = src.bytes[k]!;
    else bytes.set(src.bytes.subarray(s, e), at);
  }
  return { kind: 'var', type: sources[0]!.type, bytes, offsets, nulls: nullFlags };
}
