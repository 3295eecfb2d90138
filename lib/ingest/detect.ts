// Detection from the first chunk of a file: the delimiter (the candidate that
// splits the sampled lines into the most consistent number of fields), the
// column types (the narrowest type every sampled value fits), and whether the
// first line is a header (values that do not fit their column's type, or
// distinct names over text columns).
import type { ColumnType } from '../storage/column-type.js';
import { CsvTokenizer } from './csv-tokenizer.js';
import { TimestampParser, fieldText, parseDoubleBytes } from './column-builders.js';
import { parseIpv4Text, parseUuidText } from '../sql/functions/parse-text.js';

/** Delimiters tried, in order of preference on a tie. */
export const DELIMITERS = [0x2c, 0x09, 0x7c, 0x3b] as const;

export interface Sample {
  /** Fields of each sampled line, as text; `null` marks an unquoted empty field. */
  readonly lines: (string | null)[][];
}

/** Splits `bytes` (the start of the file) into at most `maxLines` lines of fields; a last line that may be cut off is dropped. */
export function sampleLines(bytes: Uint8Array, delimiter: number, maxLines: number, complete: boolean): Sample {
  const lines: (string | null)[][] = [];
  let row: (string | null)[] = [];
  const t = new CsvTokenizer({ delimiter });
  const sink = {
    field: (b: Uint8Array, s: number, e: number, quoted: boolean): void => { row.push(e === s && !quoted ? null : fieldText(b, s, e)); },
    endRow: (): void => { if (lines.length < maxLines) lines.push(row); row = []; },
  };
  t.push(bytes, sink);
  if (complete) t.end(sink);
  return { lines };
}

/**
 * The delimiter whose field counts agree best over the sampled lines (at
 * least two fields); a comma for a one-column file of two lines or more; null
 * for a single line.
 */
export function detectDelimiter(bytes: Uint8Array, maxLines: number, complete: boolean): number | null {
  let best: { d: number; score: number } | null = null;
  for (const d of DELIMITERS) {
    const { lines } = sampleLines(bytes, d, maxLines, complete);
    if (lines.length < 2) continue;
    const counts = new Map<number, number>();
    for (const l of lines) counts.set(l.length, (counts.get(l.length) ?? 0) + 1);
    let mode = 0, hits = 0;
    for (const [n, c] of counts) if (c > hits || (c === hits && n > mode)) { mode = n; hits = c; }
    if (mode < 2) continue;
    const score = hits / lines.length + mode * 1e-6;
    if (best === null || score > best.score + 1e-9) best = { d, score };
  }
  if (best !== null) return best.d;
  // No candidate splits the lines: one column of values, if there are lines to tell.
  return sampleLines(bytes, DELIMITERS[0], maxLines, complete).lines.length >= 2 ? DELIMITERS[0] : null;
}

/** What one value looks like, from narrow to wide. */
type Kind = 'BOOLEAN' | 'INT' | 'LONG' | 'DOUBLE' | 'TIMESTAMP' | 'DMY' | 'MDY' | 'DATE_AMBIGUOUS' | 'UUID' | 'IPV4' | 'VARCHAR';

const enc = new TextEncoder();
const uuidScratch = new Uint8Array(16);
const tsParser = new TimestampParser();
const SLASH_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?:[ T](\d{2}):(\d{2})(?::(\d{2}))?)?$/;

function kindOf(v: string): Kind {
  const l = v.toLowerCase();
  if (l === 'true' || l === 'false') return 'BOOLEAN';
  if (/^[+-]?\d{1,18}$/.test(v)) {
    const n = Number(v);
    return n > -2147483648 && n <= 2147483647 ? 'INT' : 'LONG';
  }
  const b = enc.encode(v);
  if (/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v) && parseDoubleBytes(b, 0, b.length) !== null) return 'DOUBLE';
  if (/^\d{4}-\d{2}-\d{2}/.test(v) && tsParser.parse(b, 0, b.length) !== null) return 'TIMESTAMP';
  // QuestDB detects dotted-quad addresses as IPv4 and 8-4-4-4-12 hex as UUID.
  if (parseIpv4Text(v) !== null) return 'IPV4';
  if (v.length === 36 && parseUuidText(v, uuidScratch, 0)) return 'UUID';
  const m = SLASH_DATE.exec(v);
  if (m) {
    const a = Number(m[1]), c = Number(m[2]);
    if (a > 12 && c <= 12) return 'DMY';
    if (c > 12 && a <= 12) return 'MDY';
    if (a <= 12 && c <= 12) return 'DATE_AMBIGUOUS';
  }
  return 'VARCHAR';
}

const NUMERIC_RANK: Partial<Record<Kind, number>> = { INT: 0, LONG: 1, DOUBLE: 2 };

function merge(a: Kind | null, b: Kind): Kind {
  if (a === null || a === b) return b;
  const ra = NUMERIC_RANK[a], rb = NUMERIC_RANK[b];
  if (ra !== undefined && rb !== undefined) return ra > rb ? a : b;
  const dates = new Set<Kind>(['DMY', 'MDY', 'DATE_AMBIGUOUS']);
  if (dates.has(a) && dates.has(b)) {
    if (a === 'DATE_AMBIGUOUS') return b;
    if (b === 'DATE_AMBIGUOUS') return a;
    return 'VARCHAR'; // both orders seen: not one format
  }
  return 'VARCHAR';
}

export interface DetectedColumn {
  readonly type: ColumnType;
  /** A timestamp pattern the values need (dd/MM/yyyy forms), if any. */
  readonly pattern?: string;
}

function toColumn(k: Kind | null, withTime: boolean): DetectedColumn {
  switch (k) {
    case null: return { type: 'VARCHAR' }; // no value seen: text is the safe choice
    case 'DMY': return { type: 'TIMESTAMP', pattern: withTime ? 'dd/MM/yyyy HH:mm:ss' : 'dd/MM/yyyy' };
    case 'MDY': return { type: 'TIMESTAMP', pattern: withTime ? 'MM/dd/yyyy HH:mm:ss' : 'MM/dd/yyyy' };
    case 'DATE_AMBIGUOUS': return { type: 'VARCHAR' }; // day and month cannot be told apart
    default: return { type: k };
  }
}

export interface Detection {
  readonly header: boolean;
  /** Header names (when there is a header). */
  readonly names: readonly string[] | null;
  readonly columns: readonly DetectedColumn[];
}

/**
 * Types and header from sampled lines. The column count is the most common
 * field count. `forceHeader` makes the first line the header.
 */
export function detectColumns(sample: Sample, forceHeader: boolean): Detection {
  const lines = sample.lines;
  const counts = new Map<number, number>();
  for (const l of lines) counts.set(l.length, (counts.get(l.length) ?? 0) + 1);
  let width = 0, hits = -1;
  for (const [n, c] of counts) if (c > hits || (c === hits && n > width)) { width = n; hits = c; }
  const body = lines.slice(1);
  const kinds: (Kind | null)[] = Array.from({ length: width }, () => null);
  const withTime: boolean[] = Array.from({ length: width }, () => false);
  for (const l of body) {
    for (let c = 0; c < width; c++) {
      const v = l[c];
      if (v === null || v === undefined || v === '') continue;
      kinds[c] = merge(kinds[c]!, kindOf(v));
      if (/\d[ T]\d/.test(v)) withTime[c] = true;
    }
  }
  const first = lines[0] ?? [];
  let header = forceHeader;
  if (!header && lines.length > 0) {
    // A first-line value that does not fit its column's type marks a header...
    let misfit = false;
    let allText = true;
    for (let c = 0; c < width; c++) {
      const v = first[c];
      if (v === null || v === undefined || v === '') { allText = false; continue; }
      const k = kindOf(v);
      if (k !== 'VARCHAR') allText = false;
      const col = kinds[c] ?? null;
      if (col !== null && col !== 'VARCHAR' && merge(col, k) !== col) misfit = true;
    }
    // ...and so do distinct non-numeric names when every column is text (or there is no other line).
    const distinct = new Set(first.map((v) => (v ?? '').toLowerCase())).size === first.length;
    header = misfit || (allText && distinct && kinds.every((k) => k === null || k === 'VARCHAR') && body.length > 0);
  }
  if (!header) {
    // The first line is data: its values count for the types too.
    for (let c = 0; c < width; c++) {
      const v = first[c];
      if (v === null || v === undefined || v === '') continue;
      kinds[c] = merge(kinds[c]!, kindOf(v));
      if (/\d[ T]\d/.test(v)) withTime[c] = true;
    }
  }
  return {
    header,
    names: header ? first.map((v) => v ?? '') : null,
    columns: kinds.map((k, c) => toColumn(k, withTime[c]!)),
  };
}
