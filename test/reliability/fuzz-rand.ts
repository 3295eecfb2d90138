// The fuzzers' random source (fuzz-sql, fuzz-csv, npm run soak): mulberry32
// streams with the picks the generators need, one stream per (seed, request
// number) so that any request can be regenerated alone.
import { mulberry32 } from '../helpers/prng.js';

/** Mixes two 32-bit values (request i of a seed gets its own stream, so it can be regenerated alone). */
export function mix(seed: number, i: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(i + 1, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A seeded random source with the picks the grammar needs. */
export class Rand {
  readonly r: () => number;
  constructor(seed: number) {
    this.r = mulberry32(seed);
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }
  pick<X>(xs: readonly X[]): X {
    return xs[Math.floor(this.r() * xs.length)]!;
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  /** A pick by weight: [[weight, value], ...]. */
  weighted<X>(xs: ReadonlyArray<readonly [number, X]>): X {
    let total = 0;
    for (const [w] of xs) total += w;
    let t = this.r() * total;
    for (const [w, x] of xs) {
      if ((t -= w) < 0) return x;
    }
    return xs[xs.length - 1]![1];
  }
}
