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

function tableSize(n: number): number {
  let s = 256;
  while (s < n * 2) s *= 2;
  return s;
}

let scratchTable = new Int32Array(1 << 12);
let scratchWords = new Int32Array(1 << 12);

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

/** Dictionary of a fixed-width chunk, or null when it would exceed the limits. Hash table and entries are reused scratch. */
function fixedDictionary(v: ChunkValues, maxEntries: number, maxBytes: number): Dictionary | null {
  // Values are hashed as 32-bit words: narrower fixed values (DECIMAL of 1 or 2 bytes) stay PLAIN.
  if (v.kind === 'fixed' && v.width % 4 !== 0) return null;
  if (strictlyIncreasing(v)) return null;
  const { words, wpv } = wordsOf(v);
  const n = v.count;
  const limit = Math.min(maxEntries, Math.floor(maxBytes / (wpv * 4)));
  let cap = tableSize(Math.min(n, limit));
  let mask = cap - 1;
  if (scratchTable.length < cap) scratchTable = new Int32Array(cap);
  let table = scratchTable;
  table.fill(0, 0, cap);
  if (scratchWords.length < (limit + 1) * wpv) scratchWords = new Int32Array((limit + 1) * wpv);
  const dw = scratchWords;
  const indices = indicesFor(n);
  let size = 0;
  for (let i = 0; i < n; i++) {
    const at = i * wpv;
    let s = hashWords(words, at, wpv) & mask;
    let found = -1;
    for (;;) {
      const e = table[s]!;
      if (e === 0) break;
      const eo = (e - 1) * wpv;
      let same = true;
      for (let k = 0; k < wpv; k++)
        if (dw[eo + k] !== words[at + k]) {
          same = false;
          break;
        }
      if (same) {
        found = e - 1;
        break;
      }
      s = (s + 1) & mask;
    }
    if (found < 0) {
      if (size >= limit) return null;
      found = size++;
      for (let k = 0; k < wpv; k++) dw[found * wpv + k] = words[at + k]!;
      table[s] = found + 1;
      if (size * 2 > cap) {
        cap *= 2;
        mask = cap - 1;
        if (scratchTable.length < cap) scratchTable = new Int32Array(cap);
        table = scratchTable;
        table.fill(0, 0, cap);
        for (let e = 0; e < size; e++) {
          let t = hashWords(dw, e * wpv, wpv) & mask;
          while (table[t] !== 0) t = (t + 1) & mask;
          table[t] = e + 1;
        }
      }
    }
    indices[i] = found;
  }
  const distinct = new ChunkValues(v.kind, v.width, size);
  wordsOf(distinct).words.set(dw.subarray(0, size * wpv));
  distinct.rows = distinct.count = size;
  return { values: distinct, indices, size };
}

function hashWords(w: Int32Array, at: number, wpv: number): number {
  let h = Math.imul(w[at]!, 0x9e3779b1);
  for (let k = 1; k < wpv; k++) h = Math.imul(h ^ (h >>> 15) ^ w[at + k]!, 0x85ebca6b);
  return (h ^ (h >>> 16)) >>> 0;
}

function hashBytes(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5 ^ (to - from);
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  return (h ^ (h >>> 15)) >>> 0;
}

function sameBytes(a: Uint8Array, af: number, at: number, b: Uint8Array, bf: number, bt: number): boolean {
  if (at - af !== bt - bf) return false;
  for (let i = 0; i < at - af; i++) if (a[af + i] !== b[bf + i]) return false;
  return true;
}

/** Dictionary of a byte-array chunk, or null when it would exceed the limits. */
function bytesDictionary(v: ChunkValues, maxEntries: number, maxBytes: number): Dictionary | null {
  const n = v.count,
    b = v.bytes,
    o = v.offsets;
  let cap = tableSize(Math.min(n, 4096));
  let mask = cap - 1;
  let table = new Int32Array(cap);
  const distinct = new ChunkValues('bytes', 0, Math.min(n, maxEntries) + 1);
  const indices = indicesFor(n);
  let size = 0,
    plainBytes = 0;
  distinct.offsets[0] = 0;
  const rehash = (): void => {
    cap *= 2;
    mask = cap - 1;
    table = new Int32Array(cap);
    const db = distinct.bytes,
      dof = distinct.offsets;
    for (let e = 0; e < size; e++) {
      let s = hashBytes(db, dof[e]!, dof[e + 1]!) & mask;
      while (table[s] !== 0) s = (s + 1) & mask;
      table[s] = e + 1;
    }
  };
  for (let i = 0; i < n; i++) {
    const from = o[i]!,
      to = o[i + 1]!;
    let s = hashBytes(b, from, to) & mask;
    let found = -1;
    for (;;) {
      const e = table[s]!;
      if (e === 0) break;
      if (sameBytes(distinct.bytes, distinct.offsets[e - 1]!, distinct.offsets[e]!, b, from, to)) {
        found = e - 1;
        break;
      }
      s = (s + 1) & mask;
    }
    if (found < 0) {
      plainBytes += 4 + to - from;
      if (size >= maxEntries || plainBytes > maxBytes) return null;
      found = size++;
      distinct.reserve(1);
      distinct.reserveBytes(to - from);
      distinct.bytes.set(b.subarray(from, to), distinct.byteLength);
      distinct.byteLength += to - from;
      distinct.offsets[size] = distinct.byteLength;
      distinct.rows = distinct.count = size;
      table[s] = found + 1;
      if (size * 2 > cap) rehash();
    }
    indices[i] = found;
  }
  return { values: distinct, indices, size };
}

/** A symbol chunk's dictionary is the one gathered with it. */
function symbolDictionary(v: ChunkValues): Dictionary {
  const distinct = new ChunkValues('bytes', 0, v.dict.length + 1);
  distinct.reserveBytes(v.dictBytes);
  let at = 0;
  distinct.offsets[0] = 0;
  v.dict.forEach((s, k) => {
    distinct.bytes.set(s, at);
    at += s.length;
    distinct.offsets[k + 1] = at;
  });
  distinct.byteLength = at;
  distinct.rows = distinct.count = v.dict.length;
  return { values: distinct, indices: v.i32, size: v.dict.length };
}

/** The chunk's dictionary, or null to write it PLAIN. */
export function buildDictionary(v: ChunkValues, maxEntries: number, maxBytes: number): Dictionary | null {
  switch (v.kind) {
    case 'symbol':
      return symbolDictionary(v);
    case 'bool':
      return null;
    case 'bytes':
      return bytesDictionary(v, maxEntries, maxBytes);
    default:
      return fixedDictionary(v, maxEntries, maxBytes);
  }
}
