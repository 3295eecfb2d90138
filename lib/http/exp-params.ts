// The URL parameters only /exp reads (SPEC.md "GET /exp"), parsed as QuestDB
// parses them: a malformed `limit` or `delimiter` is ignored rather than
// refused, so scripts written against QuestDB get the same rows.
import type { RowWindow } from '../export/row-window.js';

/**
 * A whole number as QuestDB's Numbers.parseLong reads it (an optional `-`,
 * digits with single `_` separators, an optional trailing `L`), or null.
 */
export function parseLongParam(text: string): number | null {
  if (!/^-?\d+(?:_\d+)*[lL]?$/.test(text)) return null;
  const n = BigInt(text.replace(/[_lL]/g, ''));
  if (n > 9223372036854775807n || n < -9223372036854775808n) return null;
  return Number(n);
}

/**
 * `limit`: `N` is the first N rows, `N,M` rows [N, M) counted from 0 (`N,` from
 * N to the end), `-N` the last N rows (SPEC.md; QuestDB 9.3.3 answers none).
 * Negative bounds of `N,M` count as 0; a part that does not parse is left at
 * its default (0 and the end), as QuestDB does; null: every row.
 */
export function expLimitParam(url: URL): RowWindow | null {
  const v = url.searchParams.get('limit');
  if (v === null) return null;
  const comma = v.indexOf(',');
  if (comma <= 0) {
    const n = parseLongParam(v);
    if (n === null) return null;
    return n < 0 ? { lo: 0, hi: Infinity, last: -n } : { lo: 0, hi: n, last: null };
  }
  const skip = parseLongParam(v.slice(0, comma));
  if (skip === null) return null;
  const rest = v.slice(comma + 1);
  const stop = rest === '' ? null : parseLongParam(rest);
  const lo = Math.max(0, skip);
  const hi = stop === null ? Infinity : Math.max(0, stop);
  return { lo, hi: Math.max(lo, hi), last: null };
}

/** The CSV field delimiter: `delimiter` when it is one character other than `"`, CR or LF; else a comma. */
export function expDelimiterParam(url: URL): number {
  const v = url.searchParams.get('delimiter');
  if (v === null || v.length !== 1) return 0x2c;
  const c = v.charCodeAt(0);
  // One byte as QuestDB takes it; a quote or a line end would make the file unreadable.
  return c < 0x80 && c !== 0x22 && c !== 0x0a && c !== 0x0d ? c : 0x2c;
}

/** `timeout` in seconds as milliseconds; null (the default applies) when absent, not a number or not positive, as QuestDB ignores it then. */
export function expTimeoutParam(url: URL): number | null {
  const v = url.searchParams.get('timeout');
  if (v === null || v.trim() === '') return null;
  const s = Number(v);
  return Number.isFinite(s) && s > 0 ? Math.max(1, Math.round(s * 1000)) : null;
}
