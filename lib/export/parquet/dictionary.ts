// Dictionary building for one column chunk: an open-addressing hash table
// over the values' 32-bit words (or bytes for byte arrays) gives each value an
// index; the distinct values, in first-seen order, become the dictionary
// page. Gives up (null) past `maxEntries` or `maxBytes`, and the chunk is
// written PLAIN instead.
import { ChunkValues } from './column-values.js';

export interface Dictionary {
  /** The distinct values (no NULLs), PLAIN-encodable like any ChunkValues. */
  readonly values: ChunkValues;
  /** Per non-NULL value of the chunk: its dictionary index. */
  readonly indices: Int32Array;
  readonly size: number;
}

/** The words of fixed-width values: 1 (i32, f32), 2 (i64, f64) or width / 4 (fixed). */
function wordsOf(v: ChunkValues): { words: Int32Array; wpv: number } {
  switch (v.kind) {
    case 'bool':
    case 'i32':
    case 'symbol':
      return { words: v.i32, wpv: 1 };
    case 'i64':
      return { words: v.i64, wpv: 2 };
    case 'f32':
      return { words: new Int32Array(v.f32.buffer, v.f32.byteOffset, v.f32.length), wpv: 1 };
    case 'f64':
      return { words: new Int32Array(v.f64.buffer, v.f64.byteOffset, v.f64.length * 2), wpv: 2 };
    case 'fixed':
      return { words: new Int32Array(v.bytes.buffer, v.bytes.byteOffset, v.bytes.length >> 2), wpv: v.width >> 2 };
    case 'bytes':
      throw new Error('byte arrays have no words');
  }
}

let scratchIndices = new Int32Array(1024);
function indicesFor(n: number): Int32Array {
  if (scratchIndices.length < n) scratchIndices = new Int32Array(Math.max(n, scratchIndices.length * 2));
  return scratchIndices;
}

/**
 * Values a dictionary attempt hashes before it judges the chunk: at least this many, or the
 * chunk's first eighth. The distinct values among its first half and among all of it estimate,
 * as for draws from a fixed set of U values (n draws show U(1 - e^(-n/U)) of them), how many
 * distinct values the whole chunk has; past the entry limit the attempt stops there and the
 * chunk is written PLAIN. Columns whose values keep changing (prices, amounts, ids, timestamps)
 * would otherwise be hashed up to the entry limit (half the chunk) for nothing.
 */
const SAMPLE_MIN = 4096;

/** Where the attempt judges a chunk of `n` values (n when it is too small to judge). */
export function sampleEnd(n: number): number {
  return n > 2 * SAMPLE_MIN ? Math.max(SAMPLE_MIN, n >>> 3) : n;
}

/**
 * Whether a chunk of `n` values whose first `at / 2` values hold `half` distinct ones and first
 * `at` hold `whole` is expected to have more than `maxEntries` distinct values.
 */
export function pastLimit(half: number, whole: number, at: number, n: number, maxEntries: number): boolean {
  if (whole <= maxEntries * (at / n)) return false; // even at this rate throughout, within the limit
  const q = whole / half - 1; // e^(-(at / 2) / U): the share of the second half's draws that were new
  if (q >= 1) return true; // no value came twice: no sign of a bound
  if (q <= 0) return false;
  const u = at / 2 / -Math.log(q);
  return u * (1 - Math.exp(-n / u)) > maxEntries;
}

/** Byte-array hash tables start here (a few KiB: small dictionaries stay in the L1 cache) and double as they fill. */
const START_SLOTS = 1 << 10;

/** Slots for up to `n` entries, at most half full. */
function tableSize(n: number): number {
  let s = 256;
  while (s < n * 2) s *= 2;
  return s;
}

let scratchTable = new Int32Array(1 << 12);
let scratchWords = new Int32Array(1 << 12);

/** A zeroed hash table of `cap` slots (reused scratch). */
function emptyTable(cap: number): Int32Array {
  if (scratchTable.length < cap) scratchTable = new Int32Array(cap);
  scratchTable.fill(0, 0, cap);
  return scratchTable;
}

/** Whether the chunk's values strictly increase (timestamps, sequences): then all are distinct and a dictionary is useless. */
function strictlyIncreasing(v: ChunkValues): boolean {
  const n = v.count;
  if (n < 2) return false;
  switch (v.kind) {
    case 'i32': {
      const a = v.i32;
      for (let i = 1; i < n; i++) if (a[i]! <= a[i - 1]!) return false;
      return true;
    }
    case 'f32':
    case 'f64': {
      const a = v.kind === 'f32' ? v.f32 : v.f64;
      for (let i = 1; i < n; i++) if (!(a[i]! > a[i - 1]!)) return false;
      return true;
    }
    case 'i64': {
      const a = v.i64;
      for (let i = 1; i < n; i++) {
        const h = a[2 * i + 1]!,
          ph = a[2 * i - 1]!;
        if (h < ph || (h === ph && a[2 * i]! >>> 0 <= a[2 * i - 2]! >>> 0)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * Dictionary of a fixed-width chunk, or null when it would exceed the limits. The values are
 * hashed and compared as 32-bit words, with one-word and two-word values (INT, FLOAT, LONG,
 * DOUBLE, TIMESTAMP) in loops of their own; hash table and entries are reused scratch.
 */
function fixedDictionary(v: ChunkValues, maxEntries: number, maxBytes: number): Dictionary | null {
  // Values are hashed as 32-bit words: narrower fixed values (DECIMAL of 1 or 2 bytes) stay PLAIN.
  if (v.kind === 'fixed' && v.width % 4 !== 0) return null;
  if (strictlyIncreasing(v)) return null;
  const { words, wpv } = wordsOf(v);
  const n = v.count;
  const limit = Math.min(maxEntries, Math.floor(maxBytes / (wpv * 4)));
  if (scratchWords.length < (limit + 1) * wpv) scratchWords = new Int32Array((limit + 1) * wpv);
  const dw = scratchWords;
  const indices = indicesFor(n);
  // Sized for the limit at once (a memset of at most a few MiB): no rehashing on the way to it.
  const cap = tableSize(Math.min(n, limit));
  const mask = cap - 1;
  const table = emptyTable(cap);
  let size = 0;
  const judgeAt = sampleEnd(n),
    halfAt = judgeAt >>> 1;
  let half = 0;
  if (wpv === 1) {
    for (let i = 0; i < n; i++) {
      if (i === halfAt) half = size;
      else if (i === judgeAt && pastLimit(half, size, i, n, limit)) return null;
      const w = words[i]!;
      let s = mix1(w) & mask;
      let e = table[s]!;
      while (e !== 0 && dw[e - 1] !== w) {
        s = (s + 1) & mask;
        e = table[s]!;
      }
      if (e === 0) {
        if (size >= limit) return null;
        dw[size] = w;
        e = ++size;
        table[s] = e;
      }
      indices[i] = e - 1;
    }
  } else if (wpv === 2) {
    for (let i = 0; i < n; i++) {
      if (i === halfAt) half = size;
      else if (i === judgeAt && pastLimit(half, size, i, n, limit)) return null;
      const lo = words[2 * i]!,
        hi = words[2 * i + 1]!;
      let s = mix2(lo, hi) & mask;
      let e = table[s]!;
      while (e !== 0 && (dw[2 * e - 2] !== lo || dw[2 * e - 1] !== hi)) {
        s = (s + 1) & mask;
        e = table[s]!;
      }
      if (e === 0) {
        if (size >= limit) return null;
        dw[2 * size] = lo;
        dw[2 * size + 1] = hi;
        e = ++size;
        table[s] = e;
      }
      indices[i] = e - 1;
    }
  } else {
    for (let i = 0; i < n; i++) {
      if (i === halfAt) half = size;
      else if (i === judgeAt && pastLimit(half, size, i, n, limit)) return null;
      const at = i * wpv;
      let s = hashWords(words, at, wpv) & mask;
      let e = table[s]!;
      while (e !== 0 && !sameWords(dw, (e - 1) * wpv, words, at, wpv)) {
        s = (s + 1) & mask;
        e = table[s]!;
      }
      if (e === 0) {
        if (size >= limit) return null;
        for (let k = 0; k < wpv; k++) dw[size * wpv + k] = words[at + k]!;
        e = ++size;
        table[s] = e;
      }
      indices[i] = e - 1;
    }
  }
  const distinct = new ChunkValues(v.kind, v.width, size);
  wordsOf(distinct).words.set(dw.subarray(0, size * wpv));
  distinct.rows = distinct.count = size;
  return { values: distinct, indices, size };
}

function mix1(w: number): number {
  const h = Math.imul(w, 0x9e3779b1);
  return (h ^ (h >>> 16)) >>> 0;
}

function mix2(lo: number, hi: number): number {
  let h = Math.imul(lo, 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 15) ^ hi, 0x85ebca6b);
  return (h ^ (h >>> 16)) >>> 0;
}

function hashWords(w: Int32Array, at: number, wpv: number): number {
  if (wpv === 1) return mix1(w[at]!);
  let h = Math.imul(w[at]!, 0x9e3779b1);
  for (let k = 1; k < wpv; k++) h = Math.imul(h ^ (h >>> 15) ^ w[at + k]!, 0x85ebca6b);
  return (h ^ (h >>> 16)) >>> 0;
}

function sameWords(a: Int32Array, af: number, b: Int32Array, bf: number, wpv: number): boolean {
  for (let k = 0; k < wpv; k++) if (a[af + k] !== b[bf + k]) return false;
  return true;
}

/** FNV-1a over the bytes [from, to), seeded with the length. */
function hashBytes(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5 ^ (to - from);
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
}

/** Distinct byte values of the chunk being built (reused scratch): value e is bytes[offsets[e], offsets[e + 1]), its hash hashes[e]. */
let dictBytes = new Uint8Array(1 << 12);
let dictOffsets = new Int32Array(1 << 10);
let dictHashes = new Int32Array(1 << 10);

/** Hash of bytes [from, to) of `b` (`view` over the same memory), four bytes at a time. */
function hashRange(view: DataView, b: Uint8Array, from: number, to: number): number {
  let h = Math.imul(0x811c9dc5 ^ (to - from), 0x01000193);
  let k = from;
  for (; k + 4 <= to; k += 4) {
    h = Math.imul(h ^ view.getInt32(k, true), 0x9e3779b1);
    h ^= h >>> 15;
  }
  for (; k < to; k++) h = Math.imul(h ^ b[k]!, 0x01000193);
  return h ^ (h >>> 16);
}

/**
 * Dictionary of a byte-array chunk, or null when it would exceed the limits. Works on the UTF-8
 * bytes as gathered: each value's byte range is hashed and compared in place (four bytes at a
 * time), no string is made; entries keep their hash, so probes compare bytes only on equal hashes.
 */
function bytesDictionary(v: ChunkValues, maxEntries: number, maxBytes: number): Dictionary | null {
  const n = v.count,
    b = v.bytes,
    o = v.offsets;
  const bv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let cap = START_SLOTS;
  let mask = cap - 1;
  let table = emptyTable(cap);
  const indices = indicesFor(n);
  let db = dictBytes,
    dof = dictOffsets,
    dh = dictHashes;
  let dv = new DataView(db.buffer, db.byteOffset, db.byteLength);
  let size = 0,
    used = 0,
    plainBytes = 0;
  const judgeAt = sampleEnd(n),
    halfAt = judgeAt >>> 1;
  let half = 0;
  dof[0] = 0;
  for (let i = 0; i < n; i++) {
    if (i === halfAt) half = size;
    else if (i === judgeAt && pastLimit(half, size, i, n, maxEntries)) return null;
    const from = o[i]!,
      to = o[i + 1]!,
      len = to - from;
    const h = hashRange(bv, b, from, to);
    let s = h & mask;
    let e = table[s]!;
    while (e !== 0) {
      if (dh[e - 1] === h) {
        const ef = dof[e - 1]!;
        if (dof[e]! - ef === len) {
          let k = 0;
          while (k + 4 <= len && dv.getInt32(ef + k, true) === bv.getInt32(from + k, true)) k += 4;
          while (k < len && db[ef + k] === b[from + k]) k++;
          if (k === len) break;
        }
      }
      s = (s + 1) & mask;
      e = table[s]!;
    }
    if (e === 0) {
      plainBytes += 4 + len;
      if (size >= maxEntries || plainBytes > maxBytes) return null;
      if (size + 2 > dof.length) {
        dof = dictOffsets = growI32(dof, (size + 2) * 2);
        dh = dictHashes = growI32(dh, (size + 2) * 2);
      }
      if (used + len > db.length) {
        db = dictBytes = growU8(db, Math.max(db.length * 2, used + len));
        dv = new DataView(db.buffer, db.byteOffset, db.byteLength);
      }
      for (let k = 0; k < len; k++) db[used + k] = b[from + k]!;
      used += len;
      dh[size] = h;
      dof[++size] = used;
      e = size;
      table[s] = e;
      if (size * 2 > cap) {
        cap *= 2;
        mask = cap - 1;
        table = emptyTable(cap);
        for (let x = 0; x < size; x++) {
          let t = dh[x]! & mask;
          while (table[t] !== 0) t = (t + 1) & mask;
          table[t] = x + 1;
        }
      }
    }
    indices[i] = e - 1;
  }
  const distinct = new ChunkValues('bytes', 0, size + 1);
  distinct.reserveBytes(used);
  distinct.bytes.set(db.subarray(0, used));
  distinct.offsets.set(dof.subarray(0, size + 1));
  distinct.byteLength = used;
  distinct.rows = distinct.count = size;
  return { values: distinct, indices, size };
}

function growI32(a: Int32Array, cap: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(cap);
  b.set(a);
  return b;
}

function growU8(a: Uint8Array, cap: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(cap);
  b.set(a);
  return b;
}

/** A symbol chunk's dictionary is the one gathered with it. */
function symbolDictionary(v: ChunkValues): Dictionary {
  return entriesDictionary(v.dict, v.dictBytes, v.i32);
}

/** The dictionary of `entries` (`bytes` long in all), in their order, for rows given as indices into them. */
function entriesDictionary(entries: readonly Uint8Array[], bytes: number, indices: Int32Array): Dictionary {
  const distinct = new ChunkValues('bytes', 0, entries.length + 1);
  distinct.reserveBytes(bytes);
  let at = 0;
  distinct.offsets[0] = 0;
  entries.forEach((e, k) => {
    distinct.bytes.set(e, at);
    at += e.length;
    distinct.offsets[k + 1] = at;
  });
  distinct.byteLength = at;
  distinct.rows = distinct.count = entries.length;
  return { values: distinct, indices, size: entries.length };
}

/**
 * A byte-array chunk gathered as dictionary indices (schema.ts gatherCoded): its dictionary as
 * gathered, under the same limits and the same judgement of its first values as bytesDictionary
 * (which would find the same entries in the same order); past them, its values are written out
 * as bytes for PLAIN pages.
 */
function codedDictionary(v: ChunkValues, maxEntries: number, maxBytes: number): Dictionary | null {
  const size = v.dict.length;
  let used = 0;
  for (const e of v.dict) used += e.length;
  // Indices are in first-seen order: the distinct values among the first k are the largest index among them, plus one.
  const n = v.count,
    judgeAt = sampleEnd(n),
    halfAt = judgeAt >>> 1;
  let half = 0,
    whole = 0;
  for (let k = 0; k < judgeAt && k < n; k++) {
    if (k === halfAt) half = whole;
    if (v.i32[k]! >= whole) whole = v.i32[k]! + 1;
  }
  if (
    size > maxEntries ||
    used + 4 * size > maxBytes ||
    (judgeAt < n && pastLimit(half, whole, judgeAt, n, maxEntries))
  ) {
    v.decodeKeys();
    return null;
  }
  return entriesDictionary(v.dict, used, v.i32);
}

/** The chunk's dictionary, or null to write it PLAIN. */
export function buildDictionary(v: ChunkValues, maxEntries: number, maxBytes: number): Dictionary | null {
  switch (v.kind) {
    case 'symbol':
      return symbolDictionary(v);
    case 'bool':
      return null;
    case 'bytes':
      return v.coded ? codedDictionary(v, maxEntries, maxBytes) : bytesDictionary(v, maxEntries, maxBytes);
    default:
      return fixedDictionary(v, maxEntries, maxBytes);
  }
}

/**
 * The distinct byte strings of a symbol chunk gathered from text vectors (a text column under a
 * SYMBOL field): each value's byte range is hashed and compared in place, and only a new value is
 * copied out (into `dict`, the chunk's dictionary), so no string or array is made per row.
 */
export class BytesInterner {
  #table = new Int32Array(START_SLOTS);
  #hashes: number[] = [];

  /** Forgets every entry (the chunk's dictionary was reset). */
  clear(): void {
    this.#table.fill(0);
    this.#hashes.length = 0;
  }

  /** The index in `dict` of bytes [from, to) of `b`, appended (a copy) when new. */
  intern(dict: Uint8Array[], b: Uint8Array, from: number, to: number): number {
    const h = hashBytes(b, from, to);
    let table = this.#table;
    let mask = table.length - 1;
    let s = h & mask;
    let e = table[s]!;
    const len = to - from;
    while (e !== 0) {
      const d = dict[e - 1]!;
      if (d.length === len) {
        let k = 0;
        while (k < len && d[k] === b[from + k]) k++;
        if (k === len) return e - 1;
      }
      s = (s + 1) & mask;
      e = table[s]!;
    }
    dict.push(b.slice(from, to));
    this.#hashes.push(h);
    const size = dict.length;
    table[s] = size;
    if (size * 2 > table.length) {
      table = this.#table = new Int32Array(table.length * 2);
      mask = table.length - 1;
      for (let x = 0; x < size; x++) {
        let t = this.#hashes[x]! & mask;
        while (table[t] !== 0) t = (t + 1) & mask;
        table[t] = x + 1;
      }
    }
    return size - 1;
  }
}
