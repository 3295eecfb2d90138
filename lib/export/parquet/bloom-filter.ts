// Split-block bloom filters (parquet-format BloomFilter.md): 256-bit blocks of
// eight 32-bit words, the block chosen by the upper half of the value's
// xxHash64, one bit per word set by the lower half times a salt. Values are
// hashed in their PLAIN encoding (no length prefix for byte arrays).
import { xxhash64, type Hash64 } from './xxhash64.js';

const SALT = [0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31];
const MIN_BYTES = 32;
/** The spec's suggested ceiling. */
export const MAX_BLOOM_BYTES = 128 * 1024 * 1024;

/**
 * Bytes of a filter for `ndv` distinct values at false-positive rate `fpp`
 * (the spec's formula m = -8 ndv / ln(1 - fpp^(1/8)) bits), a power of two
 * from 32 bytes up to 32 bytes per value (past that the rate is already
 * ~1e-12) and at most 128 MiB. fpp 0 gives that ceiling, fpp 1 the floor.
 */
export function bloomFilterBytes(ndv: number, fpp: number): number {
  const cap = Math.min(MAX_BLOOM_BYTES, pow2AtLeast(Math.max(MIN_BYTES, ndv * 32)));
  if (ndv <= 0 || fpp >= 1) return MIN_BYTES;
  const bits = fpp <= 0 ? Infinity : (-8 * ndv) / Math.log(1 - fpp ** (1 / 8));
  const bytes = Number.isFinite(bits) ? pow2AtLeast(Math.max(MIN_BYTES, Math.ceil(bits / 8))) : cap;
  return Math.min(bytes, cap);
}

function pow2AtLeast(n: number): number {
  let p = MIN_BYTES;
  while (p < n) p *= 2;
  return p;
}

export class BloomFilter {
  readonly words: Uint32Array;
  private readonly blocks: number;
  private readonly h: Hash64 = { hi: 0, lo: 0 };

  constructor(numBytes: number) {
    this.words = new Uint32Array(numBytes >>> 2);
    this.blocks = numBytes >>> 5;
  }

  /** Inserts a hash given as its two 32-bit halves. */
  insertHash(hi: number, lo: number): void {
    // Block index = (hi * blocks) >> 32; exact in doubles since blocks is a power of two.
    const base = Math.floor((hi * this.blocks) / 4294967296) * 8;
    const w = this.words;
    for (let i = 0; i < 8; i++) w[base + i]! |= 1 << (Math.imul(lo, SALT[i]!) >>> 27);
  }

  checkHash(hi: number, lo: number): boolean {
    const base = Math.floor((hi * this.blocks) / 4294967296) * 8;
    const w = this.words;
    for (let i = 0; i < 8; i++) if ((w[base + i]! & (1 << (Math.imul(lo, SALT[i]!) >>> 27))) === 0) return false;
    return true;
  }

  /** Inserts the value whose PLAIN bytes are bytes[from, to). */
  insert(bytes: Uint8Array, from: number, to: number): void {
    xxhash64(bytes, from, to, this.h);
    this.insertHash(this.h.hi, this.h.lo);
  }

  check(bytes: Uint8Array, from: number, to: number): boolean {
    xxhash64(bytes, from, to, this.h);
    return this.checkHash(this.h.hi, this.h.lo);
  }

  /** The bitset as stored in the file (words little-endian). */
  bytes(): Buffer {
    const out = Buffer.alloc(this.words.length * 4);
    for (let i = 0; i < this.words.length; i++) out.writeUInt32LE(this.words[i]!, i * 4);
    return out;
  }
}
