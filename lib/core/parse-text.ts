// Text -> values for casts: integers (range-checked, LONG exact as int64),
// doubles (Java-like syntax), booleans, IPv4 and UUID. Invalid text gives
// null, which the cast turns into the target's NULL.
import { parseTimestamp } from './datetime.js';

const INT_TEXT = /^[+-]?\d+$/;
const DOUBLE_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[dDfF]?$/;

/** An int32 from decimal text; null when not an integer or out of range (-2^31 is NULL itself). */
export function parseIntText(s: string): number | null {
  if (!INT_TEXT.test(s)) return null;
  const v = Number(s);
  return v > 2147483647 || v <= -2147483648 ? null : v;
}

/** An int64 from decimal text (a trailing L allowed): the exact bigint, or null when invalid or out of range. */
export function parseLongText(s: string): bigint | null {
  const t = s.endsWith('L') || s.endsWith('l') ? s.slice(0, -1) : s;
  if (!INT_TEXT.test(t)) return null;
  const v = BigInt(t);
  return v > 9223372036854775807n || v <= -9223372036854775808n ? null : v;
}

/** A double from Java-like number text (`1.5`, `-2e10`, `.5`, `NaN`, `Infinity`); null when invalid. */
export function parseDoubleText(s: string): number | null {
  if (DOUBLE_TEXT.test(s)) {
    const c = s.charCodeAt(s.length - 1) | 32;
    return Number(c === 100 || c === 102 ? s.slice(0, -1) : s);
  }
  switch (s) {
    case 'NaN':
      return NaN;
    case 'Infinity':
    case '+Infinity':
      return Infinity;
    case '-Infinity':
      return -Infinity;
    default:
      return null;
  }
}

/** `true` in any case is true; everything else is false (QuestDB). */
export function parseBooleanText(s: string): boolean {
  return s.length === 4 && s.toLowerCase() === 'true';
}

/** Dotted quad -> the address as an int32 (0 = NULL); null when invalid. */
export function parseIpv4Text(s: string): number | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
  if (!m) return null;
  let v = 0;
  for (let k = 1; k <= 4; k++) {
    const b = Number(m[k]);
    if (b > 255) return null;
    v = v * 256 + b;
  }
  return v | 0;
}

/** 8-4-4-4-12 hex -> 16 bytes as QuestDB lays them out (low long then high long, little-endian); false when invalid. */
export function parseUuidText(s: string, out: Uint8Array, at: number): boolean {
  const hex = s.replace(/-/g, '');
  if (s.length !== 36 || hex.length !== 32 || !/^[0-9a-fA-F]{32}$/.test(hex)) return false;
  for (let k = 0; k < 16; k++) out[at + 15 - k] = parseInt(hex.slice(2 * k, 2 * k + 2), 16);
  return true;
}

/**
 * `0x` and whole bytes of hex (2 to 64 digits, QuestDB's LONG256 constant) -> 32
 * bytes at `at`, least significant first (four little-endian longs, low to
 * high); false when invalid.
 */
export function parseLong256Text(s: string, out: Uint8Array, at: number): boolean {
  const n = s.length - 2;
  if (
    n < 2 ||
    n > 64 ||
    n % 2 !== 0 ||
    s.charCodeAt(0) !== 48 ||
    (s.charCodeAt(1) | 32) !== 120 ||
    !/^[0-9a-fA-F]+$/.test(s.slice(2))
  )
    return false;
  out.fill(0, at, at + 32);
  for (let k = 0; k < n / 2; k++) out[at + k] = parseInt(s.slice(s.length - 2 * k - 2, s.length - 2 * k), 16);
  return true;
}

/** Epoch micros from ISO text, or from a plain integer taken as micros; null when neither. */
export function parseTimestampText(s: string): number | null {
  const ts = parseTimestamp(s);
  if (ts !== null) return ts;
  const l = parseLongText(s);
  return l === null ? null : Number(l);
}
