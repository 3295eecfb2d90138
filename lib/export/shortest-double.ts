// Shortest round-trip digits of a DOUBLE written straight into a byte buffer,
// for the export writers, where String(x) (a heap string per value plus a
// copy) was about half of the formatting time of a table of doubles.
//
// Covered range: 10^-3 <= |x| < 10^7, where Java (and so QuestDB) prints a
// DOUBLE without an exponent. There x * 10^k for k = 16 - floor(log10 |x|)
// lies in [10^16, 10^17) with k in [10, 19], so 10^k is an exact double and
// the product is held exactly as hi + lo (Dekker's two-product). From that
// exact scaled value V and the exact half-gaps to the neighbouring doubles,
// the writer picks the shortest decimal that reads back to x, and among the
// shortest the closest to x, ties to an even last digit: the choice V8's
// String(x) makes (Steele & White / Grisu3 with a bignum fallback). Every
// comparison is between exactly representable doubles, so no step rounds.
// Outside the range the caller falls back to formatDouble().
// test/export/shortest-double.test.ts checks it against formatDouble().

const SPLITTER = 134217729; // 2^27 + 1: Veltkamp's split of a double into two 26-bit halves
const POW10: number[] = [];
const POW10_HI: number[] = [];
const POW10_LO: number[] = [];
for (let k = 0; k <= 22; k++) {
  const p = Number(`1e${k}`); // exact for k <= 22
  const t = SPLITTER * p;
  const h = t - (t - p);
  POW10.push(p);
  POW10_HI.push(h);
  POW10_LO.push(p - h);
}

/** Half an ulp of a double by its biased exponent: 2^(biased - 1076), built by exact halvings. */
const HALF_ULP = new Float64Array(2047);
{
  let v = Math.pow(2, 970); // biased 2046
  for (let b = 2046; b >= 1; b--) {
    HALF_ULP[b] = v;
    v /= 2;
  }
}

const bits = new Float64Array(1);
const words = new Uint32Array(bits.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const HI = LITTLE_ENDIAN ? 1 : 0;
const LO = LITTLE_ENDIAN ? 0 : 1;

/** The 17 digit characters of the chosen decimal, most significant first. */
const digits = new Uint8Array(17);
/** "00" .. "99": the two characters of n at PAIRS[2n], PAIRS[2n + 1] (the export's other digit writers use it too). */
export const PAIRS = new Uint8Array(200);
for (let n = 0; n < 100; n++) {
  PAIRS[2 * n] = 48 + Math.floor(n / 10);
  PAIRS[2 * n + 1] = 48 + (n % 10);
}

/** Whether the candidate I + di (di an integer) lies within the doubles that read back to x. */
function inside(di: number, lo: number, hl: number, hu: number, even: boolean): boolean {
  // The candidate's distance from V = I + lo is di - lo; both comparisons are between exact values.
  if (di >= lo) return even ? di - hu <= lo : di - hu < lo;
  return even ? lo <= di + hl : lo < di + hl;
}

/** -1, 0 or 1 as candidate a (an offset from I) is closer to V = I + lo than candidate b, equally close, or farther. */
function closer(a: number, b: number, lo: number): number {
  // a - lo may not be exact (lo can carry bits far below 1), so the distances are compared structurally.
  if (a >= lo && b >= lo) return a < b ? -1 : a > b ? 1 : 0;
  if (a < lo && b < lo) return a > b ? -1 : a < b ? 1 : 0;
  // On opposite sides of V: the lower one is closer when 2 * lo < a + b (both sides exact).
  const twice = 2 * lo;
  const sum = a + b;
  if (twice === sum) return 0;
  const lowerCloser = twice < sum;
  return a < b === lowerCloser ? -1 : 1;
}

/** The most bytes writeShortestDouble writes: a sign, "0.00" and 17 digits. */
export const SHORTEST_DOUBLE_BYTES = 24;

/** The 8 digits of n (< 10^8), two at a time, as characters at digits[at + 1 .. at + 8]. */
function pairsInto(n: number, at: number): void {
  for (let i = at + 8; i > at; i -= 2) {
    const q = (n / 100) | 0;
    const pair = (n - q * 100) << 1;
    digits[i] = PAIRS[pair + 1]!;
    digits[i - 1] = PAIRS[pair]!;
    n = q;
  }
}

/**
 * Writes x at out[pos] in Java's plain layout (`123.456`, `0.00125`, `42.0`) and returns the position
 * after it, or -1 (nothing written) when |x| is outside [10^-3, 10^7) or not finite. `out` must have
 * SHORTEST_DOUBLE_BYTES of room at pos.
 */
export function writeShortestDouble(out: Uint8Array, pos: number, x: number): number {
  const a = x < 0 ? -x : x;
  if (!(a >= 1e-3 && a < 1e7)) return -1;
  let e10 =
    a >= 1
      ? a >= 1e3
        ? a >= 1e5
          ? a >= 1e6
            ? 6
            : 5
          : a >= 1e4
            ? 4
            : 3
        : a >= 100
          ? 2
          : a >= 10
            ? 1
            : 0
      : a >= 0.1
        ? -1
        : a >= 0.01
          ? -2
          : -3;

  // Short decimals (what CSV files hold: 2498.5086, 1.989341): m = a * 10^(14 - e10) rounded has 15
  // digits. When m / 10^(14 - e10) is a (both exact, the division correctly rounded, as reading the
  // decimal back is), that decimal reads back to a; doubles are closer together than 15-digit
  // decimals, so no other 15-digit decimal does, and a shorter one would be m without its trailing
  // zeros. So m is the shortest, unique, and the general path below would choose it too.
  const ks = 14 - e10;
  const m = Math.round(a * POW10[ks]!);
  if (m / POW10[ks]! === a && m < 1e15) {
    const high = Math.floor(m / 1e7);
    pairsInto(high, -1);
    pairsInto((m - high * 1e7) * 10, 7);
    digits[16] = 48;
    return emit(out, pos, x < 0, e10);
  }

  // V = a * 10^k = hi + lo exactly, with V in [10^16, 10^17).
  const t = SPLITTER * a;
  const ah = t - (t - a);
  const al = a - ah;
  let hi: number;
  let lo: number;
  for (;;) {
    const k = 16 - e10;
    const p = POW10[k]!;
    const ph = POW10_HI[k]!;
    const pl = POW10_LO[k]!;
    hi = a * p;
    lo = ah * ph - hi + ah * pl + al * ph + al * pl;
    if (hi < 1e16 || (hi === 1e16 && lo < 0)) {
      e10--;
      continue;
    }
    if (hi > 1e17 || (hi === 1e17 && lo >= 0)) {
      e10++;
      continue;
    }
    break;
  }

  // Gaps to the neighbouring doubles, scaled like V: ulp * 10^k / 2 above, half that below a power of two.
  bits[0] = a;
  const hw = words[HI]!;
  const lw = words[LO]!;
  const biased = hw >>> 20;
  const even = (lw & 1) === 0;
  const hu = HALF_ULP[biased]! * POW10[16 - e10]!;
  const hl = (hw & 0xfffff) === 0 && lw === 0 && biased > 1 ? hu / 2 : hu;

  // I = hi + round(lo) as top * 10^9 + bot (both int32); lo keeps the exact remainder, now within [-0.5, 0.5].
  let top = Math.floor(hi / 1e9);
  let bot = hi - top * 1e9;
  const r = Math.round(lo);
  lo -= r;
  bot += r;
  if (bot < 0) {
    bot += 1e9;
    top--;
  } else if (bot >= 1e9) {
    bot -= 1e9;
    top++;
  }
  let b = bot | 0;
  let tp = top | 0;

  // Shortest: a 15-digit (or shorter) candidate is unique when one exists, since the interval is
  // narrower than 100; then 16 digits, the closest of those inside; else 17, the closest.
  let di = 0;
  let found = false;
  const r100 = b % 100;
  if (inside(-r100, lo, hl, hu, even)) {
    di = -r100;
    found = true;
  } else if (inside(100 - r100, lo, hl, hu, even)) {
    di = 100 - r100;
    found = true;
  }
  if (!found) {
    const r10 = r100 % 10;
    for (let c = -r10 - 10; c <= 20 - r10; c += 10) {
      if (!inside(c, lo, hl, hu, even)) continue;
      if (!found) {
        di = c;
        found = true;
        continue;
      }
      const cmp = closer(c, di, lo);
      // A tie goes to the even last (16th) digit: (b + c) / 10 has the parity of (I + c) / 10, 10^8 being even.
      if (cmp < 0 || (cmp === 0 && (Math.floor((b + c) / 10) & 1) === 0)) di = c;
    }
  }
  if (!found) {
    di = 0;
    if (lo === 0.5 || lo === -0.5) {
      // Halfway between I and its neighbour: the even one, if inside.
      const other = lo > 0 ? 1 : -1;
      if ((b & 1) === 1 && inside(other, lo, hl, hu, even)) di = other;
    }
    if (!inside(di, lo, hl, hu, even)) di = lo > 0 ? 1 : -1;
  }
  b = (b + di) | 0;
  if (b < 0) {
    b = (b + 1000000000) | 0;
    tp = (tp - 1) | 0;
  } else if (b >= 1000000000) {
    b = (b - 1000000000) | 0;
    tp = (tp + 1) | 0;
  }
  if (tp >= 100000000) {
    tp = 10000000;
    e10++;
  } // rounded up to 10^17: the digits become 1000...

  // The 17 digit characters (top: 8, b: 9) and the last nonzero one.
  const head = (b / 100000000) | 0;
  digits[8] = 48 + head;
  pairsInto(b - head * 100000000, 8);
  pairsInto(tp, -1);
  return emit(out, pos, x < 0, e10);
}

/** Writes the decimal in `digits` (17 characters, the first at 10^e10) in Java's plain layout at out[pos]; the end. */
function emit(out: Uint8Array, pos: number, negative: boolean, e10: number): number {
  let last = 16;
  while (last > 0 && digits[last] === 48) last--;

  let o = pos;
  if (negative) out[o++] = 45; // '-'
  if (e10 >= 0) {
    for (let i = 0; i <= e10; i++) out[o++] = digits[i]!;
    out[o++] = 46; // '.'
    if (last <= e10) out[o++] = 48;
    else for (let i = e10 + 1; i <= last; i++) out[o++] = digits[i]!;
  } else {
    out[o++] = 48;
    out[o++] = 46;
    for (let i = -1; i > e10; i--) out[o++] = 48;
    for (let i = 0; i <= last; i++) out[o++] = digits[i]!;
  }
  return o;
}
