// The RLE / bit-packing hybrid encoding (Parquet "Encodings": RLE): definition
// levels and dictionary indices. Runs of 8 or more equal values become RLE
// runs; everything else is bit-packed in groups of 8 (the last group of the
// stream padded with zeros, which readers drop since they know the count).
import type { ByteBuilder } from './byte-builder.js';

/** Bits needed for values up to `max` (0 for max 0). */
export function bitWidth(max: number): number {
  return max <= 0 ? 0 : 32 - Math.clz32(max);
}

/** A run of `count` equal `value`s. */
function rleRun(out: ByteBuilder, count: number, value: number, width: number): void {
  out.uvarint(count * 2);
  const bytes = (width + 7) >> 3;
  for (let k = 0; k < bytes; k++) out.byte((value >>> (8 * k)) & 0xff);
}

/** Values [from, from + groups * 8) bit-packed, LSB first; positions past `end` are padded with 0. */
function bitPacked(
  out: ByteBuilder,
  values: ArrayLike<number>,
  from: number,
  groups: number,
  end: number,
  width: number,
): void {
  out.uvarint(groups * 2 + 1);
  const n = groups * 8;
  out.ensure(groups * width);
  const buf = out.buf;
  let at = out.length;
  if (width <= 24) {
    let acc = 0,
      bits = 0;
    for (let i = 0; i < n; i++) {
      const j = from + i;
      acc |= (j < end ? values[j]! : 0) << bits;
      bits += width;
      while (bits >= 8) {
        buf[at++] = acc & 0xff;
        acc >>>= 8;
        bits -= 8;
      }
    }
  } else {
    // Up to 39 pending bits: exact in doubles, shifted by division.
    let acc = 0,
      bits = 0;
    for (let i = 0; i < n; i++) {
      const j = from + i;
      acc += (j < end ? values[j]! >>> 0 : 0) * 2 ** bits;
      bits += width;
      while (bits >= 8) {
        buf[at++] = acc % 256;
        acc = Math.floor(acc / 256);
        bits -= 8;
      }
    }
  }
  out.length = at;
}

/** Length of the run of equal values starting at `i` (at most up to `end`). */
function runLength(values: ArrayLike<number>, i: number, end: number): number {
  const v = values[i];
  let j = i + 1;
  while (j < end && values[j] === v) j++;
  return j - i;
}

/** Appends values[from, to) in the hybrid encoding with `width` bits per value (no length prefix). */
export function encodeHybrid(
  out: ByteBuilder,
  values: ArrayLike<number>,
  from: number,
  to: number,
  width: number,
): void {
  let i = from;
  while (i < to) {
    const run = runLength(values, i, to);
    if (run >= 8 || width === 0) {
      rleRun(out, run, values[i]!, width);
      i += run;
      continue;
    }
    // Bit-pack groups of 8 until a group would start with a run of 8 or more.
    let groups = 1;
    let j = i + 8;
    while (j < to && runLength(values, j, Math.min(to, j + 8)) < 8) {
      groups++;
      j += 8;
    }
    bitPacked(out, values, i, groups, to, width);
    i = Math.min(j, to);
  }
}

/** Definition levels of `rows` rows as the hybrid encoding with bit width 1 (no length prefix). */
export function encodeDefLevels(out: ByteBuilder, defined: Uint8Array | null, from: number, to: number): void {
  if (to <= from) return;
  if (defined === null) {
    rleRun(out, to - from, 1, 1);
    return;
  }
  encodeHybrid(out, defined, from, to, 1);
}
