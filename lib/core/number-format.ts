// Numbers rendered as text the way QuestDB (Java) renders them: DOUBLE and
// FLOAT keep a decimal point or an exponent (`1.0`, `1.0E-7`, `2.5E20`). Used
// by casts, concat and the JSON / CSV writers.

const TWO32 = 4294967296;

/** Shortest round-trip digits and decimal exponent -> Java's Double.toString layout. */
function javaLayout(negative: boolean, digits: string, exp: number): string {
  let s: string;
  if (exp >= -3 && exp < 7) {
    if (exp >= 0) {
      const intPart = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits.padEnd(exp + 1, '0');
      const frac = digits.length > exp + 1 ? digits.slice(exp + 1) : '0';
      s = `${intPart}.${frac}`;
    } else {
      s = `0.${'0'.repeat(-exp - 1)}${digits}`;
    }
  } else {
    s = `${digits[0]}.${digits.length > 1 ? digits.slice(1) : '0'}E${exp}`;
  }
  return negative ? `-${s}` : s;
}

/** `d.ddde±x` (JavaScript exponential notation) -> Java layout. */
function fromExponential(e: string): string {
  const negative = e.charCodeAt(0) === 45;
  const body = negative ? e.slice(1) : e;
  const at = body.indexOf('e');
  const digits = body
    .slice(0, at)
    .replace('.', '')
    .replace(/(.)0+$/, '$1');
  return javaLayout(negative, digits, Number(body.slice(at + 1)));
}

function special(x: number): string | null {
  if (x !== x) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  return null;
}

/**
 * A DOUBLE as Java prints it: the shortest digits that read back to the same
 * double, plain between 10^-3 and 10^7, else `d.dddE±n`.
 */
export function formatDouble(x: number): string {
  const s = special(x);
  if (s !== null) return s;
  const a = x < 0 ? -x : x;
  // Between 10^-3 and 10^7 JavaScript prints the same shortest digits without an exponent.
  if (a >= 1e-3 && a < 1e7) return Number.isInteger(x) ? `${x}.0` : String(x);
  const e = x.toExponential();
  // Java always shows two significant digits at least; with one shortest digit it picks the closest
  // two-digit decimal (4.9E-324 rather than 5.0E-324), which only differs from d.0 near a rounding edge.
  return fromExponential(e.indexOf('.') < 0 ? x.toExponential(1) : e);
}

/** A FLOAT (a float32 value held in a double) with the shortest digits that read back to the same float. */
export function formatFloat(x: number): string {
  const s = special(x);
  if (s !== null) return s;
  for (let p = 0; p < 9; p++) {
    const e = x.toExponential(p);
    if (Math.fround(Number(e)) === x) return fromExponential(p === 0 ? x.toExponential(1) : e);
  }
  return fromExponential(x.toExponential(8));
}

/** Decimal text of row i of a LONG-family vector value, exact beyond 2^53 when the int64 pair is known. */
export function formatLong(value: number, exact?: Int32Array, i = 0): string {
  if (exact && (value >= 9007199254740992 || value <= -9007199254740992)) {
    const lo = BigInt(exact[2 * i]! >>> 0);
    const hi = BigInt(exact[2 * i + 1]!);
    return BigInt.asIntN(64, (hi << 32n) | lo).toString();
  }
  if (Number.isSafeInteger(value)) return String(value);
  // Beyond 2^53 without the exact pair: the double's own integer value, all digits.
  return BigInt(value).toString();
}

/** A LONG's int64 (lo, hi) pair from an exactly known bigint. */
export function int64Pair(v: bigint, out: Int32Array, i: number): void {
  const u = BigInt.asUintN(64, v);
  out[2 * i] = Number(u & 0xffffffffn) | 0;
  out[2 * i + 1] = Number(u >> 32n) | 0;
}

/** The double nearest an int64 (lo, hi) pair. */
export function pairToDouble(lo: number, hi: number): number {
  return hi * TWO32 + (lo >>> 0);
}

const SIZE_UNITS = ['B', 'K', 'M', 'G', 'T', 'P', 'E', 'Z'];

/**
 * A byte count as QuestDB's size_pretty writes it: the count over the largest power of 1024 not
 * above it (as a 32-bit float, one decimal), then B, KiB, MiB, GiB, TiB, PiB or EiB.
 */
export function sizePretty(size: number): string {
  let msb = size === 0 ? -1 : size < 0 ? 63 : Math.floor(Math.log2(size));
  // log2 can round up just under a power of two: the highest set bit exactly.
  if (size > 0) {
    while (msb > 0 && 2 ** msb > size) msb--;
    while (2 ** (msb + 1) <= size) msb++;
  }
  const z = Math.trunc(msb / 10);
  const value = Math.fround(size / 2 ** (z * 10));
  const unit = SIZE_UNITS[z]!;
  return `${(Math.round(value * 10) / 10).toFixed(1)} ${unit}${z > 0 ? 'iB' : ''}`;
}
