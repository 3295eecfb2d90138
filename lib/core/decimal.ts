// DECIMAL values: the unscaled integer (value × 10^scale) as little-endian
// two's complement bytes, `width` per row (FORMAT.md), read and written as
// bigints; text in and out as QuestDB prints it (scale digits kept: -0.50).
import { SvcError } from '../errors/svc-error.js';
import { decimalSpec, decimalType, typeInfo, DECIMAL_MAX_PRECISION, type ColumnType } from './column-type.js';

const POW10: bigint[] = [1n];
for (let i = 1; i <= 2 * DECIMAL_MAX_PRECISION + 2; i++) POW10.push(POW10[i - 1]! * 10n);

/** 10^n as a bigint. */
export function pow10(n: number): bigint {
  return POW10[n] ?? 10n ** BigInt(n);
}

/** Whether row i of `b` (rows of `w` bytes) is NULL: the width's most negative value (top byte 0x80, the rest 0). */
export function isDecimalNull(b: Uint8Array, i: number, w: number): boolean {
  const at = i * w;
  if (b[at + w - 1] !== 0x80) return false;
  for (let k = 0; k < w - 1; k++) if (b[at + k] !== 0) return false;
  return true;
}

/**
 * Compares row i of `a` with row j of `b` (both non-NULL, rows of `w` bytes)
 * by value without building bigints: the top byte signed, the rest unsigned,
 * from the most significant down.
 */
export function compareDecimalRows(a: Uint8Array, i: number, b: Uint8Array, j: number, w: number): number {
  const p = i * w,
    q = j * w;
  const top = ((a[p + w - 1]! << 24) >> 24) - ((b[q + w - 1]! << 24) >> 24);
  if (top !== 0) return top < 0 ? -1 : 1;
  for (let k = w - 2; k >= 0; k--) {
    const d = a[p + k]! - b[q + k]!;
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** Row i's unscaled value, or null for NULL. */
export function decimalAt(b: Uint8Array, i: number, w: number): bigint | null {
  if (isDecimalNull(b, i, w)) return null;
  const at = i * w;
  if (w <= 4) {
    // Small widths fit a JS number: sign-extend the top byte.
    let x = (b[at + w - 1]! << 24) >> 24;
    for (let k = w - 2; k >= 0; k--) x = x * 256 + b[at + k]!;
    return BigInt(x);
  }
  let x = BigInt((b[at + w - 1]! << 24) >> 24);
  for (let k = w - 2; k >= 0; k--) x = (x << 8n) | BigInt(b[at + k]!);
  return x;
}

/** Writes an unscaled value (null: NULL) into row i. */
export function putDecimal(b: Uint8Array, i: number, w: number, x: bigint | null): void {
  const at = i * w;
  if (x === null) {
    b.fill(0, at, at + w - 1);
    b[at + w - 1] = 0x80;
    return;
  }
  let v = BigInt.asUintN(w * 8, x);
  for (let k = 0; k < w; k++) {
    b[at + k] = Number(v & 0xffn);
    v >>= 8n;
  }
}

/** An unscaled value as text with exactly `scale` fraction digits (QuestDB's: 12.34, -0.50, 7). */
export function formatDecimal(x: bigint, scale: number): string {
  const neg = x < 0n;
  let digits = (neg ? -x : x).toString();
  if (scale === 0) return neg ? `-${digits}` : digits;
  if (digits.length <= scale) digits = '0'.repeat(scale - digits.length + 1) + digits;
  const s = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  return neg ? `-${s}` : s;
}

/** `x` (unscaled at `from` digits) at scale `to`: more digits append zeros, fewer round half away from zero. */
export function rescale(x: bigint, from: number, to: number): bigint {
  if (to >= from) return x * pow10(to - from);
  const d = pow10(from - to);
  const q = x / d;
  const r = x % d;
  const twice = (r < 0n ? -r : r) * 2n;
  return twice >= d ? q + (x < 0n ? -1n : 1n) : q;
}

/** Whether an unscaled value has at most `precision` digits. */
export function fitsPrecision(x: bigint, precision: number): boolean {
  return (x < 0n ? -x : x) < pow10(precision);
}

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$/;

/** Text as an unscaled value and its own scale (`1.50` -> 150n, 2), or null when it is no number. */
export function parseDecimalParts(text: string): { unscaled: bigint; scale: number } | null {
  const m = DECIMAL_TEXT.exec(text.trim());
  if (!m) return null;
  const int = m[2]!,
    frac = m[3] ?? '';
  if (int.length === 0 && frac.length === 0) return null;
  let scale = frac.length - (m[4] ? Number(m[4]) : 0);
  let unscaled = BigInt(`${int}${frac}` || '0');
  if (scale < 0) {
    unscaled *= pow10(-scale);
    scale = 0;
  }
  return { unscaled: m[1] === '-' ? -unscaled : unscaled, scale };
}

/** Text as an unscaled value at `scale` (rounded half away from zero), or null when it is no number. */
export function parseDecimalText(text: string, scale: number): bigint | null {
  const p = parseDecimalParts(text);
  return p === null ? null : rescale(p.unscaled, p.scale, scale);
}

/**
 * A decimal literal's type and value (`1.25m` -> DECIMAL(3,2) 125n): the scale
 * is its fraction digits, the precision its digits (at least the scale, at least 1).
 */
export function decimalLiteral(digits: string): { type: ColumnType; unscaled: bigint } | null {
  const p = parseDecimalParts(digits);
  if (p === null) return null;
  const abs = p.unscaled < 0n ? -p.unscaled : p.unscaled;
  const precision = Math.max(abs === 0n ? 1 : abs.toString().length, p.scale, 1);
  if (precision > DECIMAL_MAX_PRECISION) return null;
  return { type: decimalType(precision, p.scale), unscaled: p.unscaled };
}

/** The error of a value too wide for a DECIMAL type (QuestDB's implicit-cast error). */
export function decimalOverflow(shown: string, from: string, to: ColumnType): SvcError {
  return new SvcError('SQL', `inconvertible value: ${shown} [${from} -> ${to}]`);
}

/** Width and scale of a DECIMAL type, for kernels. */
export function decimalLayout(t: ColumnType): { width: number; precision: number; scale: number } {
  const { precision, scale } = decimalSpec(t);
  return { width: typeInfo(t).width, precision, scale };
}
