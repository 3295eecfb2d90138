// GEOHASH values: the hash's bits as an unsigned little-endian integer of 1, 2,
// 4 or 8 bytes per row (FORMAT.md), NULL all bits set. Text is base32 (5 bits
// a char) when the bits are a multiple of 5, else the bits as 0/1 digits, as QuestDB prints it.
import { GEOHASH_MAX_BITS } from './column-type.js';

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';
const DECODE = new Int8Array(128).fill(-1);
for (let i = 0; i < 32; i++) {
  DECODE[BASE32.charCodeAt(i)] = i;
  DECODE[BASE32.toUpperCase().charCodeAt(i)] = i;
}

/** Whether row i (rows of `w` bytes) is NULL (every byte 0xff). */
export function isGeohashNull(b: Uint8Array, i: number, w: number): boolean {
  const at = i * w;
  for (let k = 0; k < w; k++) if (b[at + k] !== 0xff) return false;
  return true;
}

/** Compares two non-NULL rows' bits (unsigned, most significant byte first) without building bigints. */
export function compareGeohashRows(a: Uint8Array, i: number, b: Uint8Array, j: number, w: number): number {
  const p = i * w,
    q = j * w;
  for (let k = w - 1; k >= 0; k--) {
    const d = a[p + k]! - b[q + k]!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** Bit k (0 = least significant) of row i's value, straight from its bytes. */
function bitAt(b: Uint8Array, at: number, k: number): number {
  return (b[at + (k >> 3)]! >> (k & 7)) & 1;
}

/**
 * Writes row i's text (as formatGeohash; the row is not NULL) into `out` at
 * `pos` as ASCII, reading bits straight from the bytes (no bigint, no string);
 * returns the position after it.
 */
export function writeGeohashText(
  b: Uint8Array,
  i: number,
  w: number,
  bits: number,
  out: Uint8Array,
  pos: number,
): number {
  const at = i * w;
  let o = pos;
  if (bits % 5 === 0) {
    for (let k = bits - 5; k >= 0; k -= 5) {
      let d = 0;
      for (let m = 4; m >= 0; m--) d = (d << 1) | bitAt(b, at, k + m);
      out[o++] = BASE32.charCodeAt(d);
    }
  } else {
    for (let k = bits - 1; k >= 0; k--) out[o++] = 48 + bitAt(b, at, k);
  }
  return o;
}

/** Row i's bits as a bigint, or null for NULL. */
export function geohashAt(b: Uint8Array, i: number, w: number): bigint | null {
  if (isGeohashNull(b, i, w)) return null;
  const at = i * w;
  let x = 0n;
  for (let k = w - 1; k >= 0; k--) x = (x << 8n) | BigInt(b[at + k]!);
  return x;
}

/** Writes bits (null: NULL) into row i. */
export function putGeohash(b: Uint8Array, i: number, w: number, x: bigint | null): void {
  const at = i * w;
  if (x === null) {
    b.fill(0xff, at, at + w);
    return;
  }
  let v = x;
  for (let k = 0; k < w; k++) {
    b[at + k] = Number(v & 0xffn);
    v >>= 8n;
  }
}

/** A hash of `bits` bits as QuestDB prints it: base32 chars, or 0/1 digits when bits % 5 != 0. */
export function formatGeohash(x: bigint, bits: number): string {
  let s = '';
  if (bits % 5 === 0) {
    for (let k = bits - 5; k >= 0; k -= 5) s += BASE32[Number((x >> BigInt(k)) & 31n)];
  } else {
    for (let k = bits - 1; k >= 0; k--) s += (x >> BigInt(k)) & 1n ? '1' : '0';
  }
  return s;
}

/** Base32 chars (at most 12) as bits and their count, or null when a char is not base32. */
export function parseGeohashChars(text: string): { bits: number; value: bigint } | null {
  if (text.length === 0 || text.length * 5 > GEOHASH_MAX_BITS) return null;
  let x = 0n;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const d = c < 128 ? DECODE[c]! : -1;
    if (d < 0) return null;
    x = (x << 5n) | BigInt(d);
  }
  return { bits: text.length * 5, value: x };
}

/** 0/1 digits (at most 60) as bits, or null. */
export function parseGeohashBinary(text: string): { bits: number; value: bigint } | null {
  if (text.length === 0 || text.length > GEOHASH_MAX_BITS || !/^[01]+$/.test(text)) return null;
  return { bits: text.length, value: BigInt(`0b${text}`) };
}

/** The hash narrowed to its `bits` most significant bits (a hash of `from` bits). */
export function narrowGeohash(x: bigint, from: number, bits: number): bigint {
  return x >> BigInt(from - bits);
}

/**
 * A value's text in a GEOHASH of `bits` bits (a cast from text: QuestDB's):
 * base32 chars, at least as many bits as the type, the extra ones cut off; null
 * when the text is too short or not base32.
 */
export function geohashFromText(text: string, bits: number): bigint | null {
  const p = parseGeohashChars(text.length * 5 > GEOHASH_MAX_BITS ? text.slice(0, 12) : text);
  if (p === null || p.bits < bits) return null;
  return narrowGeohash(p.value, p.bits, bits);
}

/**
 * The geohash of a point with `bits` bits (1..60): the bits alternate, longitude first, each
 * halving its coordinate's range ([-180, 180] and [-90, 90]) and set for the upper half.
 */
export function geohashOfPoint(lon: number, lat: number, bits: number): bigint {
  let lonLo = -180;
  let lonHi = 180;
  let latLo = -90;
  let latHi = 90;
  let x = 0n;
  for (let k = 0; k < bits; k++) {
    let bit: boolean;
    if (k % 2 === 0) {
      const mid = (lonLo + lonHi) / 2;
      bit = lon >= mid;
      if (bit) lonLo = mid;
      else lonHi = mid;
    } else {
      const mid = (latLo + latHi) / 2;
      bit = lat >= mid;
      if (bit) latLo = mid;
      else latHi = mid;
    }
    x = (x << 1n) | (bit ? 1n : 0n);
  }
  return x;
}
