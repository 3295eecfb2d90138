// Calendar arithmetic on epoch microseconds (proleptic Gregorian, UTC): ISO
// timestamp parsing and printing, field extraction, month arithmetic and
// flooring. Shared by casts, time functions, the binder and the writers.

export const MICROS_PER_SECOND = 1_000_000;
export const MICROS_PER_MINUTE = 60_000_000;
export const MICROS_PER_HOUR = 3_600_000_000;
export const MICROS_PER_DAY = 86_400_000_000;
export const MICROS_PER_WEEK = 7 * MICROS_PER_DAY;

export const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
/** Monday first, as ISO day numbers 1..7 index them (minus one). */
export const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** Days from 1970-01-01 to y-m-d (m 1..12). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const mp = (m + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Fields of a timestamp, filled by splitMicros: reused, never allocated per row. */
export const F_YEAR = 0,
  F_MONTH = 1,
  F_DAY = 2,
  F_HOUR = 3,
  F_MINUTE = 4,
  F_SECOND = 5,
  F_MICRO = 6,
  F_DOW = 7,
  F_DOY = 8;

export function newFields(): Float64Array {
  return new Float64Array(9);
}

/** Writes year, month (1-12), day, hour, minute, second, micros of second, ISO day of week (1 = Monday) and day of year. */
export function splitMicros(us: number, out: Float64Array): void {
  const days = Math.floor(us / MICROS_PER_DAY);
  let rem = us - days * MICROS_PER_DAY;
  // Consecutive rows of a time series mostly share a day: the calendar part is reused.
  if (days !== cachedDay) civil(days);
  out[F_YEAR] = cachedYear;
  out[F_MONTH] = cachedMonth;
  out[F_DAY] = cachedDate;
  out[F_HOUR] = Math.floor(rem / MICROS_PER_HOUR);
  rem -= out[F_HOUR] * MICROS_PER_HOUR;
  out[F_MINUTE] = Math.floor(rem / MICROS_PER_MINUTE);
  rem -= out[F_MINUTE] * MICROS_PER_MINUTE;
  out[F_SECOND] = Math.floor(rem / MICROS_PER_SECOND);
  out[F_MICRO] = rem - out[F_SECOND] * MICROS_PER_SECOND;
  out[F_DOW] = cachedDow;
  out[F_DOY] = cachedDoy;
}

let cachedDay = NaN,
  cachedYear = 0,
  cachedMonth = 0,
  cachedDate = 0,
  cachedDow = 0,
  cachedDoy = 0;

/** Calendar fields of a day number into the cache. */
function civil(days: number): void {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doyMar = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doyMar + 2) / 153);
  const d = doyMar - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  cachedDay = days;
  cachedYear = y;
  cachedMonth = m;
  cachedDate = d;
  // 1970-01-01 was a Thursday (ISO 4).
  cachedDow = ((((days + 3) % 7) + 7) % 7) + 1;
  cachedDoy = days - daysFromCivil(y, 1, 1) + 1;
}

export function isLeapYear(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeapYear(y) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** ISO week number (1..53) and its year for a date. */
export function isoWeek(y: number, doy: number, dow: number): { week: number; year: number } {
  const w = Math.floor((doy - dow + 10) / 7);
  if (w < 1) {
    const py = y - 1;
    const pdoy = doy + (isLeapYear(py) ? 366 : 365);
    return { week: Math.floor((pdoy - dow + 10) / 7), year: py };
  }
  const daysInYear = isLeapYear(y) ? 366 : 365;
  if (w === 53 && doy - dow + 4 > daysInYear) return { week: 1, year: y + 1 };
  return { week: w, year: y };
}

const scratch = newFields();

/** `us` plus `n` calendar months, the day clamped to the target month's length. */
export function addMonths(us: number, n: number): number {
  splitMicros(us, scratch);
  const tod = us - Math.floor(us / MICROS_PER_DAY) * MICROS_PER_DAY;
  const idx = scratch[F_YEAR]! * 12 + (scratch[F_MONTH]! - 1) + n;
  const y = Math.floor(idx / 12);
  const m = idx - y * 12 + 1;
  const d = Math.min(scratch[F_DAY]!, daysInMonth(y, m));
  return daysFromCivil(y, m, d) * MICROS_PER_DAY + tod;
}

/** Months since 1970-01 of the month holding `us`. */
export function monthIndex(us: number): number {
  splitMicros(us, scratch);
  return (scratch[F_YEAR]! - 1970) * 12 + scratch[F_MONTH]! - 1;
}

/** The first microsecond of month index `idx` (months since 1970-01). */
export function monthStart(idx: number): number {
  const y = 1970 + Math.floor(idx / 12);
  const m = idx - (y - 1970) * 12 + 1;
  return daysFromCivil(y, m, 1) * MICROS_PER_DAY;
}

function pad(n: number, w: number): string {
  const s = String(n);
  return s.length >= w ? s : '0'.repeat(w - s.length) + s;
}

function yearText(y: number): string {
  return y < 0 ? `-${pad(-y, 4)}` : pad(y, 4);
}

const fmtScratch = newFields();

/** `2024-01-01T00:00:00.000000Z` (micros). */
export function formatTimestamp(us: number): string {
  splitMicros(us, fmtScratch);
  const f = fmtScratch;
  return `${yearText(f[F_YEAR]!)}-${pad(f[F_MONTH]!, 2)}-${pad(f[F_DAY]!, 2)}T${pad(f[F_HOUR]!, 2)}:${pad(f[F_MINUTE]!, 2)}:${pad(f[F_SECOND]!, 2)}.${pad(f[F_MICRO]!, 6)}Z`;
}

/** `2024-01-01T00:00:00.000Z` (DATE: millis). */
export function formatDate(ms: number): string {
  const s = formatTimestamp(ms * 1000);
  return `${s.slice(0, s.length - 4)}Z`;
}

/** Reads `len` digits at `at`; -1 if any is not a digit. */
function digits(s: string, at: number, len: number): number {
  if (at + len > s.length) return -1;
  let v = 0;
  for (let i = at; i < at + len; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** `Z`, `+hh`, `+hhmm`, `+hh:mm` (or `-`) from `at` to the end -> offset in micros, or null. */
function parseOffset(s: string, at: number): number | null {
  if (at === s.length) return 0;
  const c = s[at];
  if (c === 'Z' || c === 'z') return at + 1 === s.length ? 0 : null;
  if (c !== '+' && c !== '-') return null;
  const h = digits(s, at + 1, 2);
  if (h < 0 || h > 23) return null;
  let m = 0;
  const rest = s.length - (at + 3);
  if (rest === 3 && s[at + 3] === ':') m = digits(s, at + 4, 2);
  else if (rest === 2) m = digits(s, at + 3, 2);
  else if (rest !== 0) return null;
  if (m < 0 || m > 59) return null;
  const off = h * MICROS_PER_HOUR + m * MICROS_PER_MINUTE;
  return c === '-' ? -off : off;
}

/**
 * ISO-8601 text -> epoch micros, or null: `2024`, `2024-01`, `2024-01-15`,
 * then `T` or a space and `10`, `10:30`, `10:30:00`, `10:30:00.f` (1-9
 * fraction digits, micros kept), then optionally `Z` or a `±hh:mm` offset.
 */
export function parseTimestamp(text: string): number | null {
  return parseIso(text);
}

/** The last text parseIso accepted: its whole seconds (in micros), micros of the second, and nanos (7th to 9th digits). */
let lastSeconds = 0,
  lastFrac = 0,
  lastNanos = 0;

/** ISO text -> epoch nanoseconds (TIMESTAMP_NS keeps all nine fraction digits), or null. */
export function parseTimestampNanos(text: string): bigint | null {
  if (parseIso(text) === null) return null;
  return (BigInt(lastSeconds) + BigInt(lastFrac)) * 1000n + BigInt(lastNanos);
}

function parseIso(text: string): number | null {
  const s = text;
  lastNanos = 0;
  const y = digits(s, 0, 4);
  if (y < 0) return null;
  let mo = 1,
    d = 1,
    h = 0,
    mi = 0,
    sec = 0,
    frac = 0;
  let at = 4;
  const done = (): number | null => {
    const off = parseOffset(s, at);
    if (off === null) return null;
    if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || sec > 59) return null;
    // Whole seconds are even numbers of micros, exact as doubles up to 2^54 (past the year 2255, where adding frac may round).
    lastSeconds =
      daysFromCivil(y, mo, d) * MICROS_PER_DAY +
      h * MICROS_PER_HOUR +
      mi * MICROS_PER_MINUTE +
      sec * MICROS_PER_SECOND -
      off;
    lastFrac = frac;
    return lastSeconds + frac;
  };
  if (s[at] !== '-') return done();
  mo = digits(s, at + 1, 2);
  if (mo < 0) return null;
  at += 3;
  if (s[at] !== '-') return done();
  d = digits(s, at + 1, 2);
  if (d < 0) return null;
  at += 3;
  if (s[at] !== 'T' && s[at] !== ' ') return done();
  h = digits(s, at + 1, 2);
  if (h < 0) return null;
  at += 3;
  if (s[at] !== ':') return done();
  mi = digits(s, at + 1, 2);
  if (mi < 0) return null;
  at += 3;
  if (s[at] !== ':') return done();
  sec = digits(s, at + 1, 2);
  if (sec < 0) return null;
  at += 3;
  if (s[at] !== '.') return done();
  at++;
  let n = 0,
    nanos = 0;
  while (at < s.length && n < 9) {
    const c = s.charCodeAt(at) - 48;
    if (c < 0 || c > 9) break;
    if (n < 6) frac = frac * 10 + c;
    else nanos = nanos * 10 + c;
    n++;
    at++;
  }
  if (n === 0) return null;
  for (let k = Math.min(n, 6); k < 6; k++) frac *= 10;
  for (let k = Math.max(n, 6); k < 9; k++) nanos *= 10;
  lastNanos = nanos;
  return done();
}

/** Flooring units of timestamp_floor and SAMPLE BY: fixed sizes in micros, or calendar months. */
export type FloorUnit =
  | { readonly kind: 'fixed'; readonly micros: number; readonly origin: number }
  | { readonly kind: 'months'; readonly months: number };

/** Weeks start on Monday: 1969-12-29 is the origin of week flooring without an explicit one. */
const MONDAY_ORIGIN = -3 * MICROS_PER_DAY;

/** `5d`, `h`, `15m`, `1M`, `y`, `T`, `U`/`u`, `n`, `w` -> a unit, or null. */
export function parseFloorUnit(text: string): FloorUnit | null {
  const m = /^(\d*)([yMwdhmsTUun])$/.exec(text);
  if (!m) return null;
  const k = m[1] === '' ? 1 : Number(m[1]);
  if (!Number.isSafeInteger(k) || k <= 0) return null;
  switch (m[2]) {
    case 'y':
      return { kind: 'months', months: 12 * k };
    case 'M':
      return { kind: 'months', months: k };
    case 'w':
      return { kind: 'fixed', micros: k * MICROS_PER_WEEK, origin: MONDAY_ORIGIN };
    case 'd':
      return { kind: 'fixed', micros: k * MICROS_PER_DAY, origin: 0 };
    case 'h':
      return { kind: 'fixed', micros: k * MICROS_PER_HOUR, origin: 0 };
    case 'm':
      return { kind: 'fixed', micros: k * MICROS_PER_MINUTE, origin: 0 };
    case 's':
      return { kind: 'fixed', micros: k * MICROS_PER_SECOND, origin: 0 };
    case 'T':
      return { kind: 'fixed', micros: k * 1000, origin: 0 };
    // Nanoseconds do not exist at micro resolution: 'n' floors to the microsecond.
    default:
      return { kind: 'fixed', micros: m[2] === 'n' ? Math.max(1, Math.floor(k / 1000)) : k, origin: 0 };
  }
}

/** Floors `us` to a multiple of `unit` counted from `origin` (the epoch, or Monday for weeks, by default; months from the origin's day and time). */
export function floorTo(us: number, unit: FloorUnit, origin: number | null = null): number {
  if (unit.kind === 'fixed') {
    const o = origin ?? unit.origin;
    return Math.floor((us - o) / unit.micros) * unit.micros + o;
  }
  if (origin === null) return monthStart(Math.floor(monthIndex(us) / unit.months) * unit.months);
  // From an origin: the latest origin + k months (k a multiple of the stride; days clamped to the month's end) not after us.
  let k = Math.floor((monthIndex(us) - monthIndex(origin)) / unit.months) * unit.months;
  let t = addMonths(origin, k);
  while (t > us) {
    k -= unit.months;
    t = addMonths(origin, k);
  }
  return t;
}
