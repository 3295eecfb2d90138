// INTERVAL values (interval(), today(), rnd_interval()): a runtime type QuestDB
// never stores. A row is 16 bytes, lo then hi, each a little-endian int64 of
// epoch micros; both bounds are included; NULL is both at LONG NULL (-2^63).
import { LONG_NULL } from './column-type.js';
import type { FixedVector } from './column-vector.js';
import { formatDate } from './datetime.js';

const TWO32 = 4294967296;

/** The int64 at byte `at` as a double (exact below 2^53). */
function int64At(b: Uint8Array, at: number): number {
  const lo = (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
  const hi = b[at + 4]! | (b[at + 5]! << 8) | (b[at + 6]! << 16) | (b[at + 7]! << 24);
  return hi * TWO32 + lo;
}

function setInt64(b: Uint8Array, at: number, x: number): void {
  const hi = Math.floor(x / TWO32);
  const lo = x - hi * TWO32;
  for (let k = 0; k < 4; k++) {
    b[at + k] = lo >>> (8 * k);
    b[at + 4 + k] = hi >> (8 * k);
  }
}

/** Row i's lower bound in micros (LONG_NULL for NULL). */
export function intervalLo(b: Uint8Array, i: number): number {
  return int64At(b, 16 * i);
}

/** Row i's upper bound in micros, included (LONG_NULL for NULL). */
export function intervalHi(b: Uint8Array, i: number): number {
  return int64At(b, 16 * i + 8);
}

/** Whether row i is NULL (QuestDB's Interval.NULL: both bounds LONG NULL). */
export function isIntervalNull(b: Uint8Array, i: number): boolean {
  return intervalLo(b, i) === LONG_NULL && intervalHi(b, i) === LONG_NULL;
}

/** Writes row i; NaN or LONG_NULL for either bound makes the row NULL. */
export function setInterval(b: Uint8Array, i: number, lo: number, hi: number): void {
  if (lo !== lo || hi !== hi || lo === LONG_NULL || hi === LONG_NULL) lo = hi = LONG_NULL;
  setInt64(b, 16 * i, lo);
  setInt64(b, 16 * i + 8, hi);
}

/** An INTERVAL vector of `n` rows from the bounds (NaN = NULL). */
export function intervalVector(los: ArrayLike<number>, his: ArrayLike<number>, n: number): FixedVector {
  const data = new Uint8Array(16 * n);
  for (let i = 0; i < n; i++) setInterval(data, i, los[i]!, his[i]!);
  return { kind: 'fixed', type: 'INTERVAL', data };
}

/** One bound as QuestDB prints it: ISO with milliseconds (the micros below them dropped), or `null`. */
function boundText(us: number): string {
  return us === LONG_NULL ? 'null' : `'${formatDate(Math.floor(us / 1000))}'`;
}

/** QuestDB's text of an interval: `('2024-10-08T11:09:47.573Z', '2024-10-09T11:09:47.573Z')`. */
export function formatInterval(lo: number, hi: number): string {
  return `(${boundText(lo)}, ${boundText(hi)})`;
}
