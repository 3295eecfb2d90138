// URL parameters and headers of the SQL endpoints, validated once: a bad value
// is a 400 naming the parameter (never silently ignored).
import { SvcError } from '../errors/svc-error.js';
import type { RowWindow } from '../export/row-window.js';

/** true/false (any case); absent or empty -> the default. */
export function boolParam(url: URL, name: string, def = false): boolean {
  const v = url.searchParams.get(name);
  if (v === null || v === '') return def;
  const l = v.toLowerCase();
  if (l === 'true') return true;
  if (l === 'false') return false;
  throw new SvcError('BAD_REQUEST', `invalid value for parameter ${name}: ${v} [expected true or false]`);
}

/** The SQL text: required, not blank. */
export function queryParam(url: URL): string {
  const q = url.searchParams.get('query');
  if (q === null || q.trim() === '') throw new SvcError('BAD_REQUEST', 'query parameter is missing or empty [parameter=query]');
  return q;
}

/**
 * `limit`: `N`, `N,M` or `-N`. For /exec (`oneBased`) `N,M` are rows N to M
 * counted from 1 (QuestDB); for /exp `N,M` is [N, M) from 0, so `N` equals
 * `0,N` (SPEC.md). `-N` is the last N rows for both.
 */
export function limitParam(url: URL, oneBased: boolean): RowWindow | null {
  const v = url.searchParams.get('limit');
  if (v === null || v === '') return null;
  const m = /^\s*(-?\d+)\s*(?:,\s*(-?\d+)\s*)?$/.exec(v);
  if (!m) throw new SvcError('BAD_REQUEST', `invalid value for parameter limit: ${v} [expected N, N,M or -N]`);
  const a = Number(m[1]);
  if (m[2] === undefined) return a < 0 ? { lo: 0, hi: Infinity, last: -a } : { lo: 0, hi: a, last: null };
  const b = Number(m[2]);
  if (a < 0 || b < 0) throw new SvcError('BAD_REQUEST', `invalid value for parameter limit: ${v} [N,M must not be negative]`);
  if (oneBased) return { lo: Math.max(0, a - 1), hi: Math.max(0, b), last: null };
  return { lo: a, hi: Math.max(a, b), last: null };
}

/** A positive number of milliseconds from a header, or null when absent. */
export function timeoutHeader(value: string | string[] | undefined, name: string): number | null {
  if (value === undefined) return null;
  const v = Array.isArray(value) ? value[0] ?? '' : value;
  if (!/^\s*\d+\s*$/.test(v) || Number(v) <= 0) throw new SvcError('BAD_REQUEST', `invalid value for header ${name}: ${v} [expected milliseconds > 0]`);
  return Number(v);
}

/** `timeout` in seconds (/exp), as milliseconds, or null when absent. */
export function timeoutSecondsParam(url: URL): number | null {
  const v = url.searchParams.get('timeout');
  if (v === null || v === '') return null;
  const s = Number(v);
  if (!Number.isFinite(s) || s <= 0) throw new SvcError('BAD_REQUEST', `invalid value for parameter timeout: ${v} [expected seconds > 0]`);
  return Math.round(s * 1000);
}
