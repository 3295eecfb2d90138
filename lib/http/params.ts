// URL parameters and headers of the SQL endpoints, read as QuestDB reads them:
// flags are true only when they say `true`, a number that does not parse
// leaves the default in place, and the query text must be valid UTF-8.
import { SvcError } from '../errors/svc-error.js';
import type { RowWindow } from '../export/row-window.js';

/** `true` in any case is true; anything else (absent, empty, `yes`, `1`) is the default. */
export function boolParam(url: URL, name: string, def = false): boolean {
  const v = url.searchParams.get(name);
  if (v === null || v === '') return def;
  return v.toLowerCase() === 'true';
}

/**
 * The query text, or the SQL error for a request without one: `message` is the
 * endpoint's text for a missing or empty parameter (/exec and /validate answer
 * `empty query`, /exp `No query text`), at position 0 with an empty `query`.
 * Text that is not valid UTF-8 is refused (QuestDB: "Bad UTF8 encoding in query
 * text"); the error echoes its bytes one character each, as QuestDB does.
 */
export function queryParam(url: URL, message = 'empty query'): { query: string } | { query: string; error: SvcError } {
  const raw = rawParam(url.search, 'query');
  if (raw === null || raw.length === 0) return { query: '', error: new SvcError('SQL', message, { position: 0 }) };
  try {
    return { query: UTF8.decode(raw) };
  } catch {
    // Each byte as the character a Java byte widens to (0x80.. -> 0xff80..), QuestDB's echo.
    let echo = '';
    for (const b of raw) echo += String.fromCharCode(b < 0x80 ? b : 0xff00 | b);
    return { query: echo, error: new SvcError('SQL', 'Bad UTF8 encoding in query text', { position: 0 }) };
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The bytes of the first parameter `name` of a query string (`+` is a space, %XX a byte), or null. */
function rawParam(search: string, name: string): Uint8Array | null {
  const s = search.startsWith('?') ? search.slice(1) : search;
  for (const part of s.split('&')) {
    const eq = part.indexOf('=');
    const key = eq < 0 ? part : part.slice(0, eq);
    if (decodeLoose(key) !== name) continue;
    return percentBytes(eq < 0 ? '' : part.slice(eq + 1));
  }
  return null;
}

function decodeLoose(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
}

/** %XX escapes as bytes, `+` as a space, other characters as their UTF-8 bytes. */
function percentBytes(s: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const ch = s.charCodeAt(i);
    if (ch === 0x25 && i + 2 < s.length && /^[0-9a-fA-F]{2}$/.test(s.slice(i + 1, i + 3))) {
      out.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (ch === 0x2b) {
      out.push(0x20);
    } else if (ch < 0x80) {
      out.push(ch);
    } else {
      const cp = s.codePointAt(i) as number;
      if (cp > 0xffff) i++;
      for (const b of Buffer.from(String.fromCodePoint(cp), 'utf8')) out.push(b);
    }
  }
  return Uint8Array.from(out);
}

/**
 * `limit`: `N`, `N,M` or `-N`. For /exec (`oneBased`) `N,M` are rows N to M
 * counted from 1 (QuestDB); for /exp `N,M` is [N, M) from 0, so `N` equals
 * `0,N` (SPEC.md). `-N` is the last N rows for both. As in QuestDB a part that
 * is not a whole number keeps its default: `abc`, `2.5` and `,` mean no limit,
 * `1,abc` and `5,` no upper bound.
 */
export function limitParam(url: URL, oneBased: boolean): RowWindow | null {
  const v = url.searchParams.get('limit');
  if (v === null || v === '') return null;
  const sep = v.indexOf(',');
  const a = wholeNumber(sep > 0 ? v.slice(0, sep) : v);
  if (a === null) return null;
  if (sep <= 0) return a < 0 ? { lo: 0, hi: Infinity, last: -a } : { lo: 0, hi: a, last: null };
  const b = wholeNumber(v.slice(sep + 1));
  const lo = oneBased ? Math.max(0, a - 1) : Math.max(0, a);
  const hi = b === null ? Infinity : Math.max(lo, b);
  return { lo, hi, last: null };
}

function wholeNumber(s: string): number | null {
  const t = s.trim();
  return /^-?\d+$/.test(t) ? Number(t) : null;
}

/** A positive number of milliseconds from a header, or null when absent or not one (QuestDB keeps its default). */
export function timeoutHeader(value: string | string[] | undefined): number | null {
  if (value === undefined) return null;
  const v = (Array.isArray(value) ? (value[0] ?? '') : value).trim();
  if (!/^\d+$/.test(v) || Number(v) <= 0) return null;
  return Number(v);
}

/** `timeout` in seconds (/exp), as milliseconds, or null when absent. */
export function timeoutSecondsParam(url: URL): number | null {
  const v = url.searchParams.get('timeout');
  if (v === null || v === '') return null;
  const s = Number(v);
  if (!Number.isFinite(s) || s <= 0)
    throw new SvcError('BAD_REQUEST', `invalid value for parameter timeout: ${v} [expected seconds > 0]`);
  return Math.round(s * 1000);
}
