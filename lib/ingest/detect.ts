// Detection from the first chunk of a file, by QuestDB's rules: the delimiter
// (the byte whose count per line varies least), the column types (the first
// probe, in QuestDB's order, that reads every non-empty sampled value of a
// column) and whether the first line is a header (every column is text when
// all lines count, and some column is not once one line is left out).
import type { ColumnType } from '../core/column-type.js';
import { CsvTokenizer } from './csv-tokenizer.js';
import { TimestampParser, fieldText, parseDoubleBytes } from './column-builders.js';

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
    field: (b: Uint8Array, s: number, e: number, quoted: boolean): void => {
      row.push(e === s && !quoted ? null : fieldText(b, s, e));
    },
    endRow: (): void => {
      if (lines.length < maxLines) lines.push(row);
      row = [];
    },
  };
  t.push(bytes, sink);
  if (complete) t.end(sink);
  return { lines };
}

/** How much the count of a delimiter per line may vary (QuestDB's text.max.required.delimiter.stddev). */
const MAX_DELIMITER_STDDEV = 0.1222;
/** How much line lengths may vary for a file without a delimiter to be one column (text.max.required.line.length.stddev). */
const MAX_LINE_LENGTH_STDDEV = 0.8;
/** Stddevs closer than this tie; the delimiter's priority, then the smaller mean, decide. */
const STDDEV_TOLERANCE = 0.05;
/** Where the line length is kept in a line's counts: a letter, never a candidate. */
const LENGTH_SLOT = 0x41;

function priority(b: number): number {
  switch (b) {
    case 0x2c:
    case 0x09:
    case 0x7c:
      return 10; // , TAB |
    case 0x3a:
      return 9; // :
    case 0x20:
    case 0x3b:
      return 8; // space ;
    default:
      return 0;
  }
}

/** Bytes that may be delimiters: ASCII other than letters and digits (quotes open a quoted run instead). */
function candidate(b: number): boolean {
  return b > 0 && b < 0x80 && !(b >= 0x30 && b <= 0x39) && !(b >= 0x41 && b <= 0x5a) && !(b >= 0x61 && b <= 0x7a);
}

/** What the delimiter scan found: the delimiter, or why there is none. */
export type DelimiterScan =
  | { readonly delimiter: number }
  | { readonly error: 'lines' }
  | { readonly error: 'deviation'; readonly detail: string };

/**
 * QuestDB's delimiter scan over the first `maxLines` non-empty lines: counts
 * of every candidate byte outside quotes, per line; the candidate with the
 * smallest standard deviation of its count (ties: higher priority, then the
 * smaller mean) is the delimiter if that deviation is under 0.1222. Failing
 * that, lines of steady length are one column (a comma); otherwise the lines
 * are too ragged to tell. Fewer than two lines cannot tell either. A last line
 * without its end counts only when the input is complete.
 */
export function detectDelimiter(bytes: Uint8Array, maxLines: number, complete: boolean): DelimiterScan {
  const counts: Int32Array[] = [];
  let row = new Int32Array(128);
  const seen = new Uint8Array(128);
  let quoted = false;
  let closing = false;
  let len = 0;
  const endLine = (): void => {
    if (len === 0) return; // empty lines are skipped
    row[LENGTH_SLOT] = len;
    counts.push(row);
    row = new Int32Array(128);
    len = 0;
  };
  for (let i = 0; i < bytes.length && counts.length < maxLines; i++) {
    const b = bytes[i]!;
    if (closing) {
      closing = false;
      if (b === 0x22) {
        len++;
        continue;
      } // a doubled quote inside quotes
      quoted = false;
    }
    if (quoted) {
      if (b === 0x22) closing = true;
      len++;
      continue;
    }
    if (b === 0x0a || b === 0x0d) {
      endLine();
      continue;
    }
    len++;
    if (b === 0x22) {
      quoted = true;
      continue;
    }
    if (candidate(b)) {
      row[b]!++;
      seen[b] = 1;
    }
  }
  if (complete && counts.length < maxLines) endLine();
  const n = counts.length;
  if (n < 2) return { error: 'lines' };
  const stddev = (slot: number): { mean: number; dev: number } => {
    let sum = 0;
    for (const c of counts) sum += c[slot]!;
    const mean = sum / n;
    let sq = 0;
    for (const c of counts) {
      const x = c[slot]! - mean;
      sq += x * x;
    }
    return { mean, dev: Math.sqrt(sq / n) };
  };
  let best = -1,
    bestDev = Infinity,
    bestPriority = -1,
    bestMean = 0;
  for (let b = 1; b < 128; b++) {
    if (!seen[b]) continue;
    const { mean, dev } = stddev(b);
    if (mean <= 0) continue;
    const p = priority(b);
    if (
      dev < bestDev ||
      (Math.abs(dev - bestDev) < STDDEV_TOLERANCE && (bestPriority < p || (bestPriority === p && bestMean > mean)))
    ) {
      best = b;
      bestDev = dev;
      bestPriority = p;
      bestMean = mean;
    }
  }
  if (best >= 0 && best !== 0x2e && bestDev < MAX_DELIMITER_STDDEV) return { delimiter: best };
  const lengthDev = stddev(LENGTH_SLOT).dev;
  if (lengthDev < MAX_LINE_LENGTH_STDDEV) return { delimiter: 0x2c };
  return {
    error: 'deviation',
    detail: `delimiterStdDev=${bestDev}, delimiterMaxStdDev=${MAX_DELIMITER_STDDEV}, lineLengthStdDev=${lengthDev}, lineLengthMaxStdDev=${MAX_LINE_LENGTH_STDDEV}, lineCountLimit=${maxLines}, lineCount=${n}`,
  };
}

/** A type a value can be read as; `pattern` is the timestamp pattern its builder needs. */
interface Probe {
  readonly type: ColumnType;
  readonly pattern?: string;
}

/**
 * QuestDB's probes in its order (CHAR, INT, LONG, DOUBLE, BOOLEAN, UUID,
 * IPv4, its date formats, then its timestamp formats), then forms QuestDB
 * leaves as text that svcdb reads as timestamps (ISO without a fraction,
 * with a space and a fraction, a column mixing ISO forms; dd/MM/yyyy and
 * MM/dd/yyyy with a time). A column gets the first probe that reads all its
 * values, so the extra ones only ever turn text into TIMESTAMP.
 */
const PROBES: readonly Probe[] = [
  { type: 'CHAR' },
  { type: 'INT' },
  { type: 'LONG' },
  { type: 'DOUBLE' },
  { type: 'BOOLEAN' },
  { type: 'UUID' },
  { type: 'IPV4' },
  { type: 'DATE', pattern: 'dd/MM/yyyy' },
  { type: 'DATE' }, // yyyy-MM-dd HH:mm:ss
  { type: 'DATE' }, // yyyy-MM-ddTHH:mm:ss.SSSz
  { type: 'DATE', pattern: 'MM/dd/yyyy' },
  { type: 'DATE' }, // yyyy-MM-dd
  { type: 'TIMESTAMP' }, // yyyy-MM-ddTHH:mm:ss.U+ with or without a zone
  { type: 'TIMESTAMP', pattern: 'dd/MM/yyyy HH:mm:ss' },
  { type: 'TIMESTAMP', pattern: 'MM/dd/yyyy HH:mm:ss' },
  { type: 'TIMESTAMP' }, // any ISO form the timestamp parser reads
];
const P = {
  CHAR: 0,
  INT: 1,
  LONG: 2,
  DOUBLE: 3,
  BOOLEAN: 4,
  UUID: 5,
  IPV4: 6,
  DATE_DMY: 7,
  DATE_SECONDS: 8,
  DATE_MILLIS_ZONE: 9,
  DATE_MDY: 10,
  DATE_DAY: 11,
  TS_FRACTION: 12,
  TS_DMY_TIME: 13,
  TS_MDY_TIME: 14,
  TS_ISO: 15,
} as const;

const enc = new TextEncoder();
const tsParser = new TimestampParser();
const LETTER = /^\p{L}$/u;
const INT_TEXT = /^[+-]?\d{1,19}$/;
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const UUID_TEXT = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const IPV4_TEXT = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const SLASH_DATE = /^(\d{2})\/(\d{2})\/(\d{4})( \d{2}:\d{2}:\d{2})?$/;
const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
const ISO_SECONDS_SPACE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const ISO_MILLIS_ZONE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(Z|z|[+-]\d{2}:?\d{2})$/;
const ISO_FRACTION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{1,9}(Z|z|[+-]\d{2}:?\d{2})?$/;
const INT_MIN = -2147483648n,
  INT_MAX = 2147483647n,
  LONG_MIN = -(2n ** 63n),
  LONG_MAX = 2n ** 63n - 1n;

function validDay(day: number, month: number, year: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const days =
    month === 2
      ? (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
        ? 29
        : 28
      : month === 4 || month === 6 || month === 9 || month === 11
        ? 30
        : 31;
  return day <= days;
}

/** Whether the timestamp parser reads `v` (an ISO form starting with a date). */
function readsAsIso(v: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}/.test(v)) return false;
  const b = enc.encode(v);
  return tsParser.parse(b, 0, b.length) !== null;
}

/** The probes that read `v` (not empty), as bits of a mask. */
export function probeMask(v: string): number {
  let m = 0;
  const c = v.charCodeAt(0);
  if (v.length === 1 && LETTER.test(v)) m |= 1 << P.CHAR;
  const digitLike = (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e;
  if (digitLike) {
    if (INT_TEXT.test(v)) {
      const n = BigInt(v);
      // The smallest value of each is its NULL: not a value a file can hold.
      if (n > INT_MIN && n <= INT_MAX) m |= 1 << P.INT;
      if (n > LONG_MIN && n <= LONG_MAX) m |= 1 << P.LONG;
    }
    if (NUMBER_TEXT.test(v)) {
      const b = enc.encode(v);
      if (parseDoubleBytes(b, 0, b.length) !== null) m |= 1 << P.DOUBLE;
    }
    const ip = IPV4_TEXT.exec(v);
    if (ip && ip.slice(1).every((x) => Number(x) <= 255)) m |= 1 << P.IPV4;
    const slash = SLASH_DATE.exec(v);
    if (slash) {
      const a = Number(slash[1]),
        b = Number(slash[2]),
        y = Number(slash[3]);
      const dmy = validDay(a, b, y),
        mdy = validDay(b, a, y);
      if (slash[4] === undefined) {
        if (dmy) m |= 1 << P.DATE_DMY;
        if (mdy) m |= 1 << P.DATE_MDY;
      } else if (/ ([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/.test(v)) {
        if (dmy) m |= 1 << P.TS_DMY_TIME;
        if (mdy) m |= 1 << P.TS_MDY_TIME;
      }
    }
    if (v.length >= 10 && readsAsIso(v)) {
      m |= 1 << P.TS_ISO;
      if (ISO_DAY.test(v)) m |= 1 << P.DATE_DAY;
      else if (ISO_SECONDS_SPACE.test(v)) m |= 1 << P.DATE_SECONDS;
      else {
        if (ISO_MILLIS_ZONE.test(v)) m |= 1 << P.DATE_MILLIS_ZONE;
        if (ISO_FRACTION.test(v)) m |= 1 << P.TS_FRACTION;
      }
    }
  } else if (v.length === 4 || v.length === 5) {
    const l = v.toLowerCase();
    if (l === 'true' || l === 'false') m |= 1 << P.BOOLEAN;
  }
  if (v.length === 36 && UUID_TEXT.test(v)) m |= 1 << P.UUID;
  return m;
}

export interface DetectedColumn {
  readonly type: ColumnType;
  /** A timestamp pattern the values need (dd/MM/yyyy forms), if any. */
  readonly pattern?: string;
}

export interface Detection {
  readonly header: boolean;
  /** The first line's values (the header's names when there is a header). */
  readonly names: readonly string[] | null;
  readonly columns: readonly DetectedColumn[];
}

const TEXT: DetectedColumn = { type: 'VARCHAR' };

/**
 * Types and header from sampled lines, by QuestDB's rule. The first line sets
 * the column count. Per column, each probe counts the values it reads;
 * blanks (and the values a short line lacks) fit every probe. Counting all
 * lines, a column takes the first probe that reads all of them (text when
 * none). If every column is text (CHAR counts as text), the count is tried
 * again with one line fewer: a column that then takes a probe other than
 * CHAR means the first line was a header, and the columns that took a probe
 * take its type. `forceHeader` makes the first line the header whatever the
 * counts say. Without a header, a column is CHAR only if every value is one
 * character: QuestDB makes it CHAR when all but one are and cuts the others
 * to their first character.
 */
export function detectColumns(sample: Sample, forceHeader: boolean): Detection {
  const lines = sample.lines;
  const first = lines[0] ?? [];
  const width = first.length;
  const probes = PROBES.length;
  const hits = new Int32Array(width * probes);
  const blanks = new Int32Array(width);
  /** Per column: whether a value of the first line, or of a later line, is longer than one character (CHAR would cut it). */
  const longFirst = new Uint8Array(width);
  const longLater = new Uint8Array(width);
  lines.forEach((l, i) => {
    const long = i === 0 ? longFirst : longLater;
    for (let c = 0; c < width; c++) {
      const v = l[c];
      if (v === null || v === undefined || v === '') {
        blanks[c]!++;
        continue;
      }
      if (v.length > 1) long[c] = 1;
      let mask = probeMask(v);
      for (let k = 0; mask !== 0; k++, mask >>>= 1) if (mask & 1) hits[c * probes + k]!++;
    }
  });
  const types: (number | null)[] = new Array<number | null>(width).fill(null);
  /** The probe of each column that reads `count` values (blanks included), or null; whether all are CHAR or text. */
  const calc = (count: number, into: (number | null)[], keepUnprobed: boolean): boolean => {
    let allText = true;
    for (let c = 0; c < width; c++) {
      const b = blanks[c]!;
      let found: number | null = null;
      for (let k = 0; k < probes; k++) {
        if (hits[c * probes + k]! + b === count && b < count) {
          found = k;
          break;
        }
      }
      if (found !== null) {
        into[c] = found;
        if (found !== P.CHAR) allText = false;
      } else if (!keepUnprobed) into[c] = null;
    }
    return allText;
  };
  const n = lines.length;
  let header = forceHeader;
  const allText = calc(n, types, false);
  if (allText) {
    const fewer = [...types];
    const withoutOne = calc(n - 1, fewer, true);
    if (!withoutOne) header = true;
    // CHAR is kept only where no value of the data is longer than a character.
    fewer.forEach((t, c) => {
      if (t !== P.CHAR) {
        if (header) types[c] = t;
        return;
      }
      if (!longLater[c] && (header || !longFirst[c])) types[c] = t;
    });
  }
  return {
    header,
    names: lines.length > 0 ? first.map((v) => v ?? '') : null,
    columns: types.map((k) => (k === null ? TEXT : PROBES[k]!)),
  };
}
