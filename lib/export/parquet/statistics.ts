// Column chunk statistics (parquet-format "Statistics"): min and max of the
// non-NULL values in the column's sort order, PLAIN-encoded, and the NULL
// count. Computed over the dictionary when the chunk has one (every entry of
// a chunk dictionary occurs in the chunk).
import type { ChunkValues } from './column-values.js';
import type { Statistics } from './format.js';
import type { SortOrder } from './schema.js';

/** Longest min/max kept for byte arrays: past it the chunk's min/max are left out (never truncated). */
export const MAX_STAT_BYTES = 4096;

function le32(x: number): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setInt32(0, x, true);
  return b;
}

function minMaxI32(v: ChunkValues, unsigned: boolean): [Uint8Array, Uint8Array] {
  const a = v.i32;
  let lo = unsigned ? a[0]! >>> 0 : a[0]!,
    hi = lo;
  for (let i = 1; i < v.count; i++) {
    const x = unsigned ? a[i]! >>> 0 : a[i]!;
    if (x < lo) lo = x;
    else if (x > hi) hi = x;
  }
  return [le32(lo), le32(hi)];
}

function minMaxI64(v: ChunkValues): [Uint8Array, Uint8Array] {
  const a = v.i64;
  let minH = a[1]!,
    minL = a[0]! >>> 0,
    maxH = minH,
    maxL = minL;
  for (let i = 1; i < v.count; i++) {
    const h = a[2 * i + 1]!,
      l = a[2 * i]! >>> 0;
    if (h < minH || (h === minH && l < minL)) {
      minH = h;
      minL = l;
    }
    if (h > maxH || (h === maxH && l > maxL)) {
      maxH = h;
      maxL = l;
    }
  }
  const enc = (h: number, l: number): Uint8Array => {
    const b = new Uint8Array(8),
      d = new DataView(b.buffer);
    d.setUint32(0, l, true);
    d.setInt32(4, h, true);
    return b;
  };
  return [enc(minH, minL), enc(maxH, maxL)];
}

function minMaxFloat(v: ChunkValues): [Uint8Array, Uint8Array] {
  const a = v.kind === 'f32' ? v.f32 : v.f64;
  let lo = a[0]!,
    hi = lo;
  for (let i = 1; i < v.count; i++) {
    const x = a[i]!;
    if (x < lo) lo = x;
    else if (x > hi) hi = x;
  }
  // The spec: a zero min is written as -0.0 and a zero max as +0.0.
  if (lo === 0) lo = -0;
  if (hi === 0) hi = 0;
  if (v.kind === 'f32') {
    const b = new Uint8Array(8),
      d = new DataView(b.buffer);
    d.setFloat32(0, lo, true);
    d.setFloat32(4, hi, true);
    return [b.subarray(0, 4), b.subarray(4)];
  }
  const b = new Uint8Array(16),
    d = new DataView(b.buffer);
  d.setFloat64(0, lo, true);
  d.setFloat64(8, hi, true);
  return [b.subarray(0, 8), b.subarray(8)];
}

function compareBytes(
  a: Uint8Array,
  af: number,
  at: number,
  b: Uint8Array,
  bf: number,
  bt: number,
  signed = false,
): number {
  const n = Math.min(at - af, bt - bf);
  // Signed big-endian numbers (DECIMAL): the first byte's sign bit flipped orders them.
  if (signed && n > 0 && a[af] !== b[bf]) return (a[af]! ^ 0x80) - (b[bf]! ^ 0x80);
  for (let i = 0; i < n; i++) {
    const d = a[af + i]! - b[bf + i]!;
    if (d !== 0) return d;
  }
  return at - af - (bt - bf);
}

function minMaxBytes(v: ChunkValues, signed: boolean): [Uint8Array, Uint8Array] {
  const b = v.bytes;
  const w = v.width;
  const start = (k: number): number => (v.kind === 'fixed' ? k * w : v.offsets[k]!);
  const end = (k: number): number => (v.kind === 'fixed' ? (k + 1) * w : v.offsets[k + 1]!);
  let lo = 0,
    hi = 0;
  for (let k = 1; k < v.count; k++) {
    const s = start(k),
      e = end(k);
    if (compareBytes(b, s, e, b, start(lo), end(lo), signed) < 0) lo = k;
    else if (compareBytes(b, s, e, b, start(hi), end(hi), signed) > 0) hi = k;
  }
  return [b.slice(start(lo), end(lo)), b.slice(start(hi), end(hi))];
}

function minMaxBool(v: ChunkValues): [Uint8Array, Uint8Array] {
  let any0 = false,
    any1 = false;
  for (let i = 0; i < v.count && !(any0 && any1); i++)
    if (v.i32[i]) any1 = true;
    else any0 = true;
  return [Uint8Array.of(any0 ? 0 : 1), Uint8Array.of(any1 ? 1 : 0)];
}

/**
 * Statistics of a chunk whose non-NULL values (or their distinct values) are
 * `values` and which has `nullCount` NULLs. The deprecated signed min/max
 * fields are also written for signed numeric orders, as older readers use them.
 */
export function chunkStatistics(
  values: ChunkValues,
  order: SortOrder,
  nullCount: number,
  distinctCount?: number,
): Statistics {
  const legacy = order === 'signed' || order === 'float' || order === 'bool';
  if (values.count === 0) return { nullCount, legacy, distinctCount };
  let mm: [Uint8Array, Uint8Array];
  switch (values.kind) {
    case 'bool':
      mm = minMaxBool(values);
      break;
    case 'i32':
      mm = minMaxI32(values, order === 'unsigned');
      break;
    case 'i64':
      mm = minMaxI64(values);
      break;
    case 'f32':
    case 'f64':
      mm = minMaxFloat(values);
      break;
    case 'bytes':
    case 'fixed':
    case 'symbol':
      mm = minMaxBytes(values, order === 'signedBytes');
      break;
  }
  if (mm[0].length > MAX_STAT_BYTES || mm[1].length > MAX_STAT_BYTES) return { nullCount, legacy, distinctCount };
  return { nullCount, min: mm[0], max: mm[1], legacy, distinctCount };
}
