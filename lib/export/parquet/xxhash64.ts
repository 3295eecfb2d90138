// xxHash64 (seed 0 by default), the hash Parquet bloom filters require
// (parquet-format BloomFilter.md). 64-bit arithmetic on pairs of uint32
// halves held in numbers: no BigInt, no allocation per hash. The result is
// left in `hashHi` / `hashLo` of the returned state.

const P1H = 0x9e3779b1,
  P1L = 0x85ebca87;
const P2H = 0xc2b2ae3d,
  P2L = 0x27d4eb4f;
const P3H = 0x165667b1,
  P3L = 0x9e3779f9;
const P4H = 0x85ebca77,
  P4L = 0xc2b2ae63;
const P5H = 0x27d4eb2f,
  P5L = 0x165667c5;
const TWO32 = 4294967296;

// Scratch registers of the 64-bit helpers (results of the last operation).
let rh = 0,
  rl = 0;

/** (ah:al) * (bh:bl) mod 2^64 -> rh:rl. */
function mul(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff,
    a1 = al >>> 16,
    b0 = bl & 0xffff,
    b1 = bl >>> 16;
  const mid = a0 * b1 + a1 * b0; // < 2^33
  const lo = a0 * b0 + (mid % 65536) * 65536; // < 2^33
  const carry = Math.floor(lo / TWO32);
  rl = lo >>> 0;
  rh = (a1 * b1 + Math.floor(mid / 65536) + carry + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
}

/** (ah:al) + (bh:bl) mod 2^64 -> rh:rl. */
function add(ah: number, al: number, bh: number, bl: number): void {
  const lo = al + bl;
  rl = lo >>> 0;
  rh = (ah + bh + (lo >= TWO32 ? 1 : 0)) >>> 0;
}

/** rotl(h:l, r) -> rh:rl, 0 < r < 64. */
function rotl(h: number, l: number, r: number): void {
  if (r >= 32) {
    const t = h;
    h = l;
    l = t;
    r -= 32;
  }
  if (r === 0) {
    rh = h >>> 0;
    rl = l >>> 0;
    return;
  }
  rh = ((h << r) | (l >>> (32 - r))) >>> 0;
  rl = ((l << r) | (h >>> (32 - r))) >>> 0;
}

// round(acc, input): acc += input * P2; acc = rotl(acc, 31); acc *= P1.
function round(ah: number, al: number, ih: number, il: number): void {
  mul(ih, il, P2H, P2L);
  add(ah, al, rh, rl);
  rotl(rh, rl, 31);
  mul(rh, rl, P1H, P1L);
}

// mergeRound(acc, val): acc ^= round(0, val); acc = acc * P1 + P4.
function mergeRound(ah: number, al: number, vh: number, vl: number): void {
  round(0, 0, vh, vl);
  mul((ah ^ rh) >>> 0, (al ^ rl) >>> 0, P1H, P1L);
  add(rh, rl, P4H, P4L);
}

function u32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

export interface Hash64 {
  hi: number;
  lo: number;
}

/** xxHash64 of bytes[from, to) with seed 0, into `out` (hi and lo 32-bit halves). */
export function xxhash64(bytes: Uint8Array, from: number, to: number, out: Hash64): Hash64 {
  const len = to - from;
  let p = from;
  let hh: number, hl: number;
  if (len >= 32) {
    // v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1
    add(P1H, P1L, P2H, P2L);
    let v1h = rh,
      v1l = rl;
    let v2h = P2H,
      v2l = P2L;
    let v3h = 0,
      v3l = 0;
    add(0, 0, ~P1H >>> 0, ~P1L >>> 0);
    add(rh, rl, 0, 1);
    let v4h = rh,
      v4l = rl;
    const limit = to - 32;
    do {
      round(v1h, v1l, u32(bytes, p + 4), u32(bytes, p));
      v1h = rh;
      v1l = rl;
      round(v2h, v2l, u32(bytes, p + 12), u32(bytes, p + 8));
      v2h = rh;
      v2l = rl;
      round(v3h, v3l, u32(bytes, p + 20), u32(bytes, p + 16));
      v3h = rh;
      v3l = rl;
      round(v4h, v4l, u32(bytes, p + 28), u32(bytes, p + 24));
      v4h = rh;
      v4l = rl;
      p += 32;
    } while (p <= limit);
    rotl(v1h, v1l, 1);
    let ah = rh,
      al = rl;
    rotl(v2h, v2l, 7);
    add(ah, al, rh, rl);
    ah = rh;
    al = rl;
    rotl(v3h, v3l, 12);
    add(ah, al, rh, rl);
    ah = rh;
    al = rl;
    rotl(v4h, v4l, 18);
    add(ah, al, rh, rl);
    ah = rh;
    al = rl;
    mergeRound(ah, al, v1h, v1l);
    ah = rh;
    al = rl;
    mergeRound(ah, al, v2h, v2l);
    ah = rh;
    al = rl;
    mergeRound(ah, al, v3h, v3l);
    ah = rh;
    al = rl;
    mergeRound(ah, al, v4h, v4l);
    hh = rh;
    hl = rl;
  } else {
    hh = P5H;
    hl = P5L;
  }
  add(hh, hl, 0, len);
  hh = rh;
  hl = rl;
  while (p + 8 <= to) {
    round(0, 0, u32(bytes, p + 4), u32(bytes, p));
    hh = (hh ^ rh) >>> 0;
    hl = (hl ^ rl) >>> 0;
    rotl(hh, hl, 27);
    mul(rh, rl, P1H, P1L);
    add(rh, rl, P4H, P4L);
    hh = rh;
    hl = rl;
    p += 8;
  }
  if (p + 4 <= to) {
    mul(0, u32(bytes, p), P1H, P1L);
    hh = (hh ^ rh) >>> 0;
    hl = (hl ^ rl) >>> 0;
    rotl(hh, hl, 23);
    mul(rh, rl, P2H, P2L);
    add(rh, rl, P3H, P3L);
    hh = rh;
    hl = rl;
    p += 4;
  }
  while (p < to) {
    mul(0, bytes[p]!, P5H, P5L);
    hh = (hh ^ rh) >>> 0;
    hl = (hl ^ rl) >>> 0;
    rotl(hh, hl, 11);
    mul(rh, rl, P1H, P1L);
    hh = rh;
    hl = rl;
    p++;
  }
  // Avalanche: h ^= h >> 33; h *= P2; h ^= h >> 29; h *= P3; h ^= h >> 32.
  hl = (hl ^ (hh >>> 1)) >>> 0;
  mul(hh, hl, P2H, P2L);
  hh = rh;
  hl = rl;
  {
    const h = hh;
    hh = (hh ^ (h >>> 29)) >>> 0;
    hl = (hl ^ ((hl >>> 29) | (h << 3))) >>> 0;
  }
  mul(hh, hl, P3H, P3L);
  hh = rh;
  hl = rl;
  hl = (hl ^ hh) >>> 0;
  out.hi = hh;
  out.lo = hl;
  return out;
}
