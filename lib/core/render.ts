// Any vector's rows as text, the way QuestDB prints values: DOUBLE like Java,
// LONG exact, TIMESTAMP/DATE ISO, BOOLEAN true/false. Casts to text,
// concatenation and `||` share it.
import { INT_NULL, LONG_NULL, decimalSpec, geohashBits, typeInfo, typeKind } from './column-type.js';
import { decimalAt, formatDecimal } from './decimal.js';
import { formatGeohash, geohashAt } from './geohash.js';
import type { ColumnVector } from './column-vector.js';
import { formatDate, formatTimestamp } from './datetime.js';
import { formatDouble, formatFloat, formatLong } from './number-format.js';
import { textAt } from './vec.js';
import { formatTimestampNs, pairsOf } from './nanos.js';
import { ArrayReader, formatArrayAt, isArrayType } from './array-values.js';
import { formatInterval, intervalHi, intervalLo, isIntervalNull } from './interval-values.js';

/** IPV4 as dotted quad (the int holds the address; 0 is NULL). */
export function formatIpv4(x: number): string {
  const u = x >>> 0;
  return `${u >>> 24}.${(u >>> 16) & 255}.${(u >>> 8) & 255}.${u & 255}`;
}

/** UUID bytes (two little-endian longs: lo then hi) as the canonical 8-4-4-4-12 text. */
function formatUuid(b: Uint8Array, at: number): string {
  let hex = '';
  for (let k = 15; k >= 0; k--) hex += b[at + k]!.toString(16).padStart(2, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * LONG256 bytes (four little-endian longs, least significant first) as QuestDB
 * prints them: 0x and hex digits in whole bytes, leading zero bytes left out
 * (1 -> 0x01, 0xabc -> 0x0abc, 0 -> 0x00).
 */
function formatLong256(b: Uint8Array, at: number): string {
  let top = 31;
  while (top > 0 && b[at + top] === 0) top--;
  let hex = '0x';
  for (let k = top; k >= 0; k--) hex += b[at + k]!.toString(16).padStart(2, '0');
  return hex;
}

/** Row i as text, or null for NULL. */
export function renderAt(v: ColumnVector, i: number): string | null {
  if (v.kind === 'var' && isArrayType(v.type)) return formatArrayAt(new ArrayReader(v), i);
  if (v.kind !== 'fixed' || v.type === 'CHAR') return textAt(v, i);
  const x = v.data[i]!;
  switch (v.type) {
    case 'BOOLEAN':
      return x ? 'true' : 'false';
    case 'BYTE':
    case 'SHORT':
      return String(x);
    case 'INT':
      return x === INT_NULL ? null : String(x);
    case 'LONG':
      return x === LONG_NULL ? null : formatLong(x, v.exact, i);
    case 'TIMESTAMP':
      return x === LONG_NULL ? null : formatTimestamp(x);
    case 'TIMESTAMP_NS': {
      if (x === LONG_NULL) return null;
      const p = pairsOf(v);
      return formatTimestampNs(p[2 * i]!, p[2 * i + 1]!);
    }
    case 'DATE':
      return x === LONG_NULL ? null : formatDate(x);
    case 'FLOAT':
      return x !== x ? null : formatFloat(x);
    case 'DOUBLE':
      return x !== x ? null : formatDouble(x);
    case 'IPV4':
      return x === 0 ? null : formatIpv4(x);
    // LONG128 prints as a UUID does (hi then lo, 8-4-4-4-12), as in QuestDB.
    case 'UUID':
    case 'LONG128': {
      const b = v.data as Uint8Array;
      let isNull = true;
      for (let k = 0; k < 16 && isNull; k++) isNull = b[i * 16 + k] === ((k & 7) === 7 ? 0x80 : 0);
      return isNull ? null : formatUuid(b, i * 16);
    }
    case 'INTERVAL': {
      const b = v.data as Uint8Array;
      return isIntervalNull(b, i) ? null : formatInterval(intervalLo(b, i), intervalHi(b, i));
    }
    case 'LONG256': {
      const b = v.data as Uint8Array;
      let isNull = true;
      for (let k = 0; k < 32 && isNull; k++) isNull = b[i * 32 + k] === ((k & 7) === 7 ? 0x80 : 0);
      return isNull ? null : formatLong256(b, i * 32);
    }
    default:
      break;
  }
  switch (typeKind(v.type)) {
    case 'GEOHASH': {
      const g = geohashAt(v.data as Uint8Array, i, typeInfo(v.type).width);
      return g === null ? null : formatGeohash(g, geohashBits(v.type));
    }
    case 'DECIMAL': {
      const d = decimalAt(v.data as Uint8Array, i, typeInfo(v.type).width);
      return d === null ? null : formatDecimal(d, decimalSpec(v.type).scale);
    }
    default:
      throw new Error(`cannot render ${v.type} as text`);
  }
}

/** Every row as text. */
export function renderTexts(v: ColumnVector, n: number): (string | null)[] {
  const out = new Array<string | null>(n);
  for (let i = 0; i < n; i++) out[i] = renderAt(v, i);
  return out;
}
