// DELTA_BINARY_PACKED (parquet-format Encodings.md) for INT32 and INT64
// columns in v2 pages: blocks of 128 values in 4 miniblocks of 32, each
// miniblock's deltas (minus the block's minimum delta) bit-packed at its own
// width. Timestamps with regular steps shrink to a few bytes per 128 rows.
// Deltas wrap around in the physical type, as the format says and readers
// (Arrow C++, arrow-rs) require: INT32 deltas are 32-bit (a minimum delta or a
// bit width past 32 bits is refused). INT64 arithmetic is done in doubles: a
// chunk whose values or deltas leave the exact range (values in [-2^52, 2^53),
// deltas within +-2^52) is not delta-encoded (the caller writes it PLAIN).
import type { ByteBuilder } from './byte-builder.js';
import type { ChunkValues } from './column-values.js';

const BLOCK = 128;
const MINIBLOCKS = 4;
const MINI = BLOCK / MINIBLOCKS;
const TWO32 = 4294967296;
const LIMIT = 2 ** 52;

let scratch = new Float64Array(1024);
const blockDeltas = new Float64Array(BLOCK);

/** The values of a chunk to delta-encode, as doubles, and the width of their physical type. */
export interface DeltaValues {
  readonly values: Float64Array;
  readonly bits: 32 | 64;
}

/** The chunk's values as doubles, or null when delta encoding would not be exact. */
export function deltaValues(v: ChunkValues): DeltaValues | null {
  const n = v.count;
  if (scratch.length < n) scratch = new Float64Array(Math.max(n, scratch.length * 2));
  const out = scratch;
  if (v.kind === 'i32') {
    const a = v.i32;
    for (let i = 0; i < n; i++) out[i] = a[i]!;
    return { values: out, bits: 32 };
  }
  if (v.kind !== 'i64') return null;
  const a = v.i64;
  let prev = 0;
  for (let i = 0; i < n; i++) {
    const x = a[2 * i + 1]! * TWO32 + (a[2 * i]! >>> 0);
    if (x < -LIMIT || x >= 2 * LIMIT) return null;
    if (i > 0) {
      const d = x - prev;
      if (d <= -LIMIT || d >= LIMIT) return null;
    }
    out[i] = x;
    prev = x;
  }
  return { values: out, bits: 64 };
}

function zigzag(out: ByteBuilder, x: number): void {
  out.uvarint(x >= 0 ? x * 2 : -x * 2 - 1);
}

/** Appends values[from, to) DELTA_BINARY_PACKED. */
export function encodeDelta(out: ByteBuilder, dv: DeltaValues, from: number, to: number): void {
  const values = dv.values;
  // INT32: each delta wrapped to a signed 32-bit integer (|0), so the minimum is one too
  // and every delta minus it lies in [0, 2^32): widths stay within 32 bits.
  const wrap32 = dv.bits === 32;
  const n = to - from;
  out.uvarint(BLOCK);
  out.uvarint(MINIBLOCKS);
  out.uvarint(n);
  zigzag(out, n > 0 ? values[from]! : 0);
  const deltas = blockDeltas;
  for (let b = from + 1; b < to; b += BLOCK) {
    const m = Math.min(BLOCK, to - b);
    let min = Infinity;
    for (let i = 0; i < m; i++) {
      let d = values[b + i]! - values[b + i - 1]!;
      if (wrap32) d |= 0;
      deltas[i] = d;
      if (d < min) min = d;
    }
    zigzag(out, min);
    const widthsAt = out.length;
    out.ensure(MINIBLOCKS);
    out.length += MINIBLOCKS;
    for (let k = 0; k < MINIBLOCKS; k++) {
      const s = k * MINI;
      if (s >= m) {
        out.buf[widthsAt + k] = 0;
        continue;
      }
      const e = Math.min(m, s + MINI);
      let max = 0;
      for (let i = s; i < e; i++) {
        const x = deltas[i]! - min;
        deltas[i] = x;
        if (x > max) max = x;
      }
      let width = max < TWO32 ? 32 - Math.clz32(max) : 32;
      while (width < 53 && 2 ** width <= max) width++;
      out.buf[widthsAt + k] = width;
      for (let i = e; i < s + MINI; i++) deltas[i] = 0; // padding of the last miniblock
      packMiniblock(out, deltas, s, width);
    }
  }
}

/** 32 non-negative values (< 2^53) at `width` bits each, LSB first. */
function packMiniblock(out: ByteBuilder, d: Float64Array, s: number, width: number): void {
  if (width === 0) return;
  // 32 values of `width` bits are 4 * width bytes; the 24-bit path writes up to 2 bytes past them.
  out.ensure(4 * width + 2);
  const buf = out.buf;
  let at = out.length;
  let acc = 0,
    bits = 0;
  if (width <= 24) {
    // Fewer than 8 pending bits plus a value of at most 24 bits fit the 32-bit accumulator. Its low
    // three bytes are written every time and the complete ones kept (no loop per byte): a byte
    // written ahead is written again, whole, by the next value or left past the end.
    for (let i = s; i < s + MINI; i++) {
      acc |= d[i]! << bits;
      bits += width;
      buf[at] = acc;
      buf[at + 1] = acc >>> 8;
      buf[at + 2] = acc >>> 16;
      const k = bits >>> 3;
      at += k;
      acc >>>= k << 3;
      bits &= 7;
    }
  } else if (width <= 32) {
    // Values below 2^32: their low 16 bits, then the rest.
    const hiWidth = width - 16;
    for (let i = s; i < s + MINI; i++) {
      const x = d[i]!;
      const lo = x & 0xffff;
      acc |= lo << bits;
      buf[at++] = acc & 0xff;
      buf[at++] = (acc >>> 8) & 0xff;
      acc >>>= 16;
      acc |= ((x - lo) / 65536) << bits;
      bits += hiWidth;
      while (bits >= 8) {
        buf[at++] = acc & 0xff;
        acc >>>= 8;
        bits -= 8;
      }
    }
  } else {
    // Pieces of at most 16 bits keep the accumulator below 2^24.
    for (let i = s; i < s + MINI; i++) {
      let x = d[i]!,
        w = width;
      while (w > 0) {
        const take = Math.min(16, w);
        const piece = x % (1 << take);
        x = (x - piece) / (1 << take);
        acc |= piece << bits;
        bits += take;
        w -= take;
        while (bits >= 8) {
          buf[at++] = acc & 0xff;
          acc >>>= 8;
          bits -= 8;
        }
      }
    }
  }
  out.length = at;
}
