// TIMESTAMP_NS values: int64 nanoseconds held as (lo, hi) int32 pairs (FixedVector.exact),
// converted to and from micros, ISO text and comparisons without BigInt in per-row loops.
import { INT_NULL } from './column-type.js';
import { f64ToInt64, int64ToF64, type ColumnVector, type FixedVector } from './column-vector.js';
import { formatTimestamp, parseTimestampNanos } from './datetime.js';
import { int64Pair } from './number-format.js';

const TWO32 = 4294967296;

/** The int64 pairs of an int64-family vector (its own when it carries them). */
export function pairsOf(v: ColumnVector): Int32Array {
  const f = v as FixedVector;
  // -2^63 (NULL) converts to the NULL pair.
  return f.exact ?? f64ToInt64(f.data as Float64Array);
}

export function isNullPair(p: Int32Array, i: number): boolean {
  return p[2 * i] === 0 && p[2 * i + 1] === INT_NULL;
}

/**
 * Nanoseconds (lo, hi) as floor(ns / 1000) micros plus the 0..999 nanos left:
 * ns = hi * 2^32 + lo = 1000 * (hi * 4294967) + (hi * 296 + lo), every term exact in a double.
 */
export function nanosToMicros(lo: number, hi: number): number {
  const r = hi * 296 + (lo >>> 0);
  return hi * 4294967 + Math.floor(r / 1000);
}

export function subMicroNanos(lo: number, hi: number): number {
  const r = hi * 296 + (lo >>> 0);
  return r - Math.floor(r / 1000) * 1000;
}

/** Writes the pair of `us * 1000 + extra` at row i of `out` (us an integer micros value, |us| < 2^53). */
export function microsToNanosPair(us: number, extra: number, out: Int32Array, i: number): void {
  const ah = Math.floor(us / TWO32);
  const al = us - ah * TWO32; // [0, 2^32)
  const low = al * 1000 + extra; // < 2^42: exact
  const carry = Math.floor(low / TWO32);
  out[2 * i] = (low - carry * TWO32) | 0;
  out[2 * i + 1] = (ah * 1000 + carry) | 0;
}

/** A TIMESTAMP_NS vector from its pairs (the doubles derived, NULL kept). */
export function nanosVector(pairs: Int32Array): FixedVector {
  return { kind: 'fixed', type: 'TIMESTAMP_NS', data: int64ToF64(pairs), exact: pairs };
}

/** NULL pair at row i. */
export function setNullPair(out: Int32Array, i: number): void {
  out[2 * i] = 0;
  out[2 * i + 1] = INT_NULL;
}

/** `2024-01-02T03:04:05.123456789Z`: QuestDB prints TIMESTAMP_NS with nine fraction digits. */
export function formatTimestampNs(lo: number, hi: number): string {
  if (hi >= 2_000_000_000 || hi <= -2_000_000_000) {
    // Past the year 2200 either way the micros leave a double's exact range: whole seconds through BigInt.
    const ns = BigInt(hi) * 4294967296n + BigInt(lo >>> 0);
    let sec = ns / 1_000_000_000n;
    if (ns < sec * 1_000_000_000n) sec -= 1n;
    const frac = String(ns - sec * 1_000_000_000n).padStart(9, '0');
    const whole = formatTimestamp(Number(sec) * 1_000_000);
    return `${whole.slice(0, whole.length - 7)}${frac}Z`;
  }
  const s = formatTimestamp(nanosToMicros(lo, hi));
  const extra = subMicroNanos(lo, hi);
  return `${s.slice(0, s.length - 1)}${extra < 10 ? '00' : extra < 100 ? '0' : ''}${extra}Z`;
}

/** ISO text (up to nine fraction digits) -> nanoseconds, or null. */
export function parseTimestampNsText(text: string): bigint | null {
  return parseTimestampNanos(text);
}

/** A TIMESTAMP_NS vector from ISO texts (null or invalid -> NULL). */
export function nanosFromTexts(texts: readonly (string | null)[]): FixedVector {
  const pairs = new Int32Array(2 * texts.length);
  for (let i = 0; i < texts.length; i++) {
    const t = texts[i];
    const ns = t === null || t === undefined ? null : parseTimestampNsText(t);
    if (ns === null) setNullPair(pairs, i);
    else int64Pair(ns, pairs, i);
  }
  return nanosVector(pairs);
}

/** Three-way comparison of rows i of a and j of b (int64 order: high words signed, low words unsigned). */
export function comparePairs(a: Int32Array, i: number, b: Int32Array, j: number): number {
  const ah = a[2 * i + 1]!,
    bh = b[2 * j + 1]!;
  if (ah !== bh) return ah < bh ? -1 : 1;
  const al = a[2 * i]! >>> 0,
    bl = b[2 * j]! >>> 0;
  return al < bl ? -1 : al > bl ? 1 : 0;
}
