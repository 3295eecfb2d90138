// Text rows as UTF-8 byte ranges, so comparisons need no decoding (byte order
// is code point order): STRING/VARCHAR directly, SYMBOL through an encoded
// dictionary, CHAR encoded per batch. Also constant detection for text.
import { Buffer } from 'node:buffer';
import type { ColumnVector, TextDict } from './column-vector.js';
import { length, textVector, texts } from './vec.js';

export interface Utf8Rows {
  readonly bytes: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  /** 1 for NULL rows. */
  readonly nulls: Uint8Array | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface EncodedDict {
  readonly size: number;
  readonly bytes: Uint8Array;
  readonly offsets: Int32Array;
}
const dictCache = new WeakMap<readonly string[], EncodedDict>();

/** A symbol dictionary as UTF-8 bytes + offsets, cached per dictionary (re-encoded when it grows). */
export function encodeDict(dict: readonly string[]): EncodedDict {
  const hit = dictCache.get(dict);
  if (hit && hit.size === dict.length) return hit;
  const parts = dict.map((s) => encoder.encode(s));
  const offsets = new Int32Array(dict.length + 1);
  let total = 0;
  parts.forEach((p, k) => {
    total += p.length;
    offsets[k + 1] = total;
  });
  const bytes = new Uint8Array(total);
  parts.forEach((p, k) => bytes.set(p, offsets[k]));
  const e = { size: dict.length, bytes, offsets };
  dictCache.set(dict, e);
  return e;
}

/** Any text-like vector (STRING, VARCHAR, SYMBOL, CHAR) as byte ranges per row. */
export function utf8Rows(v: ColumnVector, n: number): Utf8Rows {
  switch (v.kind) {
    case 'var':
      return { bytes: v.bytes, starts: v.offsets.subarray(0, n), ends: v.offsets.subarray(1, n + 1), nulls: v.nulls };
    case 'symbol': {
      const d = encodeDict(v.dict);
      const starts = new Int32Array(n);
      const ends = new Int32Array(n);
      let nulls: Uint8Array | null = null;
      for (let i = 0; i < n; i++) {
        const k = v.keys[i]!;
        if (k < 0) {
          (nulls ??= new Uint8Array(n))[i] = 1;
          continue;
        }
        starts[i] = d.offsets[k]!;
        ends[i] = d.offsets[k + 1]!;
      }
      return { bytes: d.bytes, starts, ends, nulls };
    }
    case 'fixed': {
      if (v.type !== 'CHAR') throw new Error(`not a text vector: ${v.type}`);
      return utf8Rows(textVector('STRING', texts(v)), n);
    }
  }
}

/** Byte-wise comparison of row i of `a` with row j of `b` (both non-NULL): <0, 0, >0. */
export function compareRows(a: Utf8Rows, i: number, b: Utf8Rows, j: number): number {
  const ab = a.bytes,
    bb = b.bytes;
  const as = a.starts[i]!,
    bs = b.starts[j]!;
  const la = a.ends[i]! - as,
    lb = b.ends[j]! - bs;
  const m = la < lb ? la : lb;
  for (let k = 0; k < m; k++) {
    const d = ab[as + k]! - bb[bs + k]!;
    if (d !== 0) return d;
  }
  return la - lb;
}

/** Whether row i of `a` equals row j of `b`, NULL equal to NULL. */
export function equalRows(a: Utf8Rows, i: number, b: Utf8Rows, j: number): boolean {
  const an = a.nulls !== null && a.nulls[i] === 1;
  const bn = b.nulls !== null && b.nulls[j] === 1;
  if (an || bn) return an && bn;
  const as = a.starts[i]!,
    bs = b.starts[j]!;
  const len = a.ends[i]! - as;
  if (b.ends[j]! - bs !== len) return false;
  const ab = a.bytes,
    bb = b.bytes;
  for (let k = 0; k < len; k++) if (ab[as + k] !== bb[bs + k]) return false;
  return true;
}

/**
 * The one value every row holds (a string, or null for all NULL), or
 * undefined when rows differ or there are none. Constants arrive as repeated
 * vectors; this finds them in one pass over the bytes.
 */
export function uniformText(v: ColumnVector, n: number): string | null | undefined {
  if (n === 0 || length(v) < n) return undefined;
  switch (v.kind) {
    case 'symbol': {
      const k = v.keys[0]!;
      for (let i = 1; i < n; i++) if (v.keys[i] !== k) return undefined;
      return k < 0 ? null : (v.dict[k] ?? null);
    }
    case 'fixed': {
      if (v.type !== 'CHAR') return undefined;
      const c = v.data[0]!;
      for (let i = 1; i < n; i++) if (v.data[i] !== c) return undefined;
      return c === 0 ? null : String.fromCharCode(c);
    }
    case 'var': {
      const nl = v.nulls;
      if (nl) {
        const first = nl[0];
        for (let i = 1; i < n; i++) if (nl[i] !== first) return undefined;
        if (first) return null;
      }
      const off = v.offsets,
        b = v.bytes;
      const base = off[0]!,
        len = off[1]! - base,
        end = off[n]!;
      if (end - base !== n * len) return undefined;
      for (let i = 2; i < n; i++) if (off[i] !== base + i * len) return undefined;
      // Rows of equal length laid end to end are all equal iff the bytes repeat with period len (one memcmp).
      if (len > 0 && n > 1 && Buffer.compare(b.subarray(base, end - len), b.subarray(base + len, end)) !== 0)
        return undefined;
      return decoder.decode(b.subarray(base, base + len));
    }
  }
}

/** JavaScript strings in code point order (UTF-16 order differs for surrogate pairs). */
export function compareStrings(a: string, b: string): number {
  const m = Math.min(a.length, b.length);
  for (let k = 0; k < m; k++) {
    let x = a.charCodeAt(k),
      y = b.charCodeAt(k);
    if (x === y) continue;
    // Surrogates (U+D800..DFFF) encode code points above U+FFFF: move them above U+E000..FFFF.
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

/** Code points in a string (length counts UTF-16 units). */
export function codePointLength(s: string): number {
  let n = s.length;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c >= 0xd800 && c < 0xdc00 && k + 1 < s.length) {
      const d = s.charCodeAt(k + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        n--;
        k++;
      }
    }
  }
  return n;
}

/**
 * One call site's table over a symbol dictionary for one constant (a
 * comparison result per entry, a LIKE match per entry): rebuilt only when the
 * dictionary, its size or the constant changes, not once per batch.
 */
export class DictTables {
  private dict: object | null = null;
  private size = -1;
  private key = '';
  private table: Uint8Array | null = null;

  /** A symbol list (its length as its size) or a TextDict (its size; code 0 is NULL). */
  get(dict: readonly string[] | TextDict, key: string, build: () => Uint8Array): Uint8Array {
    const size = 'size' in dict ? dict.size : dict.length;
    if (!this.table || dict !== this.dict || size !== this.size || key !== this.key) {
      this.table = build();
      this.dict = dict;
      this.size = size;
      this.key = key;
    }
    return this.table;
  }
}
