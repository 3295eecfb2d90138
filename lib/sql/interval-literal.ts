// Interval literals on the designated timestamp (`ts IN '...'`, QuestDB's
// TICK syntax, the commonly used part): partial ISO dates meaning their whole
// period ('2024', '2024-01', '2024-01-15T10'), a duration (';1h30m'), the
// older repeating form ('2024-01-15T09:00;1h;1d;5': duration, period, count),
// bracket expansion ('2024-01-[10,15..17]', 'T[09:00,14:30]'), date lists
// ('[2024-01-15,2024-03-20]T09:30', each date with its own zone or day filter
// if it has one), date variables with arithmetic and ranges ('$today',
// '$now - 2h..$now'), time zones ('@Europe/London', '@+02:00', '@CEST') and
// day filters ('#workday', '#weekend', '#Mon,Fri'). A duration runs from each
// element's start (QuestDB 9.3.3's rule, its recorded answers; newer QuestDB
// moves the end instead and takes negative durations). The result is sorted,
// merged, half-open [lo, hi) micros intervals.
import { SvcError } from '../errors/svc-error.js';
import type { Interval } from '../core/batch.js';
import { addMonths, daysFromCivil } from '../core/datetime.js';
import { resolveZone } from '../core/time-zones.js';

const US = {
  u: 1,
  T: 1000,
  s: 1_000_000,
  m: 60_000_000,
  h: 3_600_000_000,
  d: 86_400_000_000,
  w: 604_800_000_000,
} as const;
const DAY = US.d;

class LiteralError extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

/** An error in QuestDB's own words (its IntervalUtils), reported at the literal as QuestDB does. */
class QuestError extends Error {}

/** Parses `text`; errors carry `pos` (the literal's position) + 1 + the offset inside the text. */
export function parseIntervalLiteral(text: string, nowMicros: number, pos: number): Interval[] {
  try {
    return merge(parse(text, nowMicros));
  } catch (e) {
    if (e instanceof LiteralError)
      throw new SvcError('SQL', `Invalid interval [${e.message}]: '${text}'`, { position: pos + 1 + e.at });
    if (e instanceof QuestError) throw new SvcError('SQL', e.message, { position: pos });
    throw e;
  }
}

/** The statement's time while a literal is parsed (a variable range in a date list needs it). */
let nowForLists = 0;

/**
 * A date list entry: a variable range (`$today - 5bd..$today - 1bd`) stands for each of its days
 * (business days only when either end counts in `bd`), each written as its date; anything else
 * stands for itself.
 */
function rangeDays(entry: string, now: number): string[] {
  const r = splitTop(entry, '..');
  if (r.length !== 2 || !r[0]!.trim().startsWith('$')) return [entry];
  const a = point(r[0]!.trim(), now, 0);
  const b = point(r[1]!.trim(), now, 0);
  const weekdays = /\dbd\b/i.test(entry.replace(/\s+/g, ''));
  const out: string[] = [];
  for (let d = Math.floor(a.start / DAY); d * DAY < b.end && out.length <= 10_000; d++) {
    if (weekdays && dayOfWeek(d * DAY) > 5) continue;
    out.push(new Date(d * 86_400_000).toISOString().slice(0, 10));
  }
  return out;
}

/** ISO day of week, 1 (Monday) to 7 (Sunday), of an instant in micros. */
function dayOfWeek(us: number): number {
  return (((Math.floor(us / DAY) % 7) + 7 + 3) % 7) + 1; // 1970-01-01 was a Thursday (4)
}

function parse(text: string, now: number): Interval[] {
  nowForLists = now;
  const parts = splitTop(text, ';');
  const main = parts[0]!.trim();
  const duration = parts.length > 1 ? parseDuration(parts[1]!.trim()) : null;
  let out: Interval[];
  const range = splitTop(main, '..');
  if (range.length === 2) {
    const a = point(range[0]!.trim(), now, 0);
    const b = point(range[1]!.trim(), now, main.indexOf('..') + 2);
    // A range runs from the first point's start to the end of the second (a day variable: its whole day).
    out = [[a.start, Math.max(a.start, b.end)]];
  } else if (range.length > 2) {
    throw new LiteralError('more than one ".." range', main.lastIndexOf('..'));
  } else {
    // An element a day filter dropped is null: no duration may revive it.
    out = expand(main).flatMap((el) => {
      const x = element(el.text, now, el.at);
      return x === null ? [] : [x];
    });
  }
  // A duration runs from the element's start (QuestDB 9.3: '2024-01-01T05;2h' is 05:00 to 07:00).
  if (duration !== null) out = out.map(([lo]) => [lo, addDuration(lo, duration)] as Interval);
  if (parts.length === 4) {
    // The older repeating form: start;duration;period;count.
    const period = parseDuration(parts[2]!.trim());
    const count = Number(parts[3]!.trim());
    if (!/^\d+$/.test(parts[3]!.trim())) throw new QuestError('Count not a number');
    if (!Number.isInteger(count) || count < 1 || count > 100_000)
      throw new LiteralError('repeat count must be an integer from 1', text.lastIndexOf(';') + 1);
    const reps: Interval[] = [];
    for (const [lo, hi] of out) {
      for (let k = 0; k < count; k++) {
        const start = addDuration(lo, scale(period, k));
        reps.push([start, start + (hi - lo)]);
      }
    }
    out = reps;
  } else if (parts.length !== 1 && parts.length !== 2) {
    throw new QuestError('Invalid interval format');
  }
  return out;
}

// ---- durations: '1h30m', '90s', '1M', '2y', '500T' (units y M w d h m s T u)

interface Duration {
  readonly months: number;
  readonly micros: number;
}

/**
 * A duration as QuestDB 9.3 reads it: numbers (digits, `_` allowed) each followed
 * by a unit letter, with its errors: a unit without a number before it
 * ("Expected number before unit '-'" for ';-1h': 9.3 has no negative durations),
 * a number past INT, an unknown unit, digits left without a unit.
 */
function parseDuration(s: string): Duration {
  let months = 0,
    micros = 0,
    numStart = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || c === '_') continue;
    if (i === numStart) throw new QuestError(`Expected number before unit '${c}'`);
    const digits = s.slice(numStart, i);
    const n = Number(digits.replace(/_/g, ''));
    if (!/\d/.test(digits) || !Number.isInteger(n) || n > 2147483647)
      throw new QuestError(`Duration not a number: ${digits}`);
    switch (c) {
      case 'y':
        months += 12 * n;
        break;
      case 'M':
        months += n;
        break;
      case 'n':
        micros += Math.floor(n / 1000);
        break;
      case 'w':
      case 'd':
      case 'h':
      case 'm':
      case 's':
      case 'T':
      case 'u':
        micros += n * US[c];
        break;
      default:
        throw new QuestError(`Invalid duration unit: ${c}`);
    }
    numStart = i + 1;
  }
  if (numStart < s.length) throw new QuestError('Missing unit at end of duration');
  return { months, micros };
}

function scale(d: Duration, k: number): Duration {
  return { months: d.months * k, micros: d.micros * k };
}

function addDuration(us: number, d: Duration): number {
  return (d.months !== 0 ? addMonths(us, d.months) : us) + d.micros;
}

// ---- bracket expansion and lists

/** Top-level split (outside brackets). */
function splitTop(s: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0,
    last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (depth === 0 && s.startsWith(sep, i)) {
      out.push(s.slice(last, i));
      last = i + sep.length;
      i += sep.length - 1;
    }
  }
  out.push(s.slice(last));
  return out;
}

/** Every element text a (possibly bracketed) date expression stands for. */
function expand(s: string): Array<{ text: string; at: number }> {
  // A date list: '[d1, d2]suffix' where entries are dates or variables.
  if (s.startsWith('[')) {
    const close = matching(s, 0);
    const inner = s.slice(1, close);
    if (/[$-]/.test(inner) || /^\s*\d{4}/.test(inner)) {
      // The suffix's time goes after each date; a date's own @zone or #filter wins over the
      // suffix's ('[2024-01-15@UTC,2024-01-16]T08:00@+03:00': 08:00 UTC, then 08:00 at +03:00).
      const global = markers(s.slice(close + 1));
      return splitTop(inner, ',').flatMap((e) => {
        const own = markers(e.trim());
        const zone = own.zone ?? global.zone;
        const filter = own.filter ?? global.filter;
        const tail = (zone !== null ? `@${zone}` : '') + (filter !== null ? `#${filter}` : '');
        return rangeDays(own.date.trim(), nowForLists).flatMap((d) =>
          expand(d + global.date + tail).map((x) => ({ text: x.text, at: x.at + 1 })),
        );
      });
    }
  }
  const open = s.indexOf('[');
  if (open < 0) return [{ text: s, at: 0 }];
  const close = matching(s, open);
  const inner = s.slice(open + 1, close);
  const before = s.slice(0, open),
    after = s.slice(close + 1);
  const values: string[] = [];
  for (const item of inner.split(',').map((x) => x.trim())) {
    if (item.includes(':')) {
      values.push(item);
      continue;
    } // a time list entry: a whole time
    const r = /^(\d+)\s*\.\.\s*(\d+)$/.exec(item);
    if (r) {
      const a = Number(r[1]),
        b = Number(r[2]);
      if (b < a) throw new QuestError('Range must be ascending');
      if (b - a > 10_000) throw new LiteralError(`invalid range [${item}]`, open + 1);
      for (let v = a; v <= b; v++) values.push(String(v).padStart(r[1]!.length, '0'));
    } else if (/^\d+$/.test(item)) {
      // An ISO week's day of week is one digit; every other field two.
      values.push(/W\d{2}-$/.test(before) ? item : item.padStart(2, '0'));
    } else {
      throw new LiteralError(`invalid bracket value '${item}'`, open + 1);
    }
  }
  return values.flatMap((v) => expand(before + v + after));
}

function matching(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '[') depth++;
    else if (s[i] === ']' && --depth === 0) return i;
  }
  throw new LiteralError('unclosed [', open);
}

// ---- one element: date[Ttime][@zone][#filter]

const DAYS: Record<string, number> = { mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6, sun: 7 };

interface Markers {
  /** The text before the first top-level `@` or `#`. */
  readonly date: string;
  readonly zone: string | null;
  readonly filter: string | null;
  readonly filterAt: number;
}

/**
 * An element's `@zone` and `#filter` (outside brackets). When a time list entry brings its own
 * zone ('T[09:00@UTC,14:30]@+02:00' gives '09:00@UTC@+02:00'), the first of each kind wins.
 */
function markers(s: string): Markers {
  const at: number[] = [];
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (depth === 0 && (c === '@' || c === '#')) at.push(i);
  }
  let zone: string | null = null,
    filter: string | null = null,
    filterAt = 0;
  at.forEach((i, k) => {
    const value = s.slice(i + 1, at[k + 1] ?? s.length).trim();
    if (s[i] === '@') zone ??= value;
    else if (filter === null) {
      filter = value;
      filterAt = i + 1;
    }
  });
  return { date: s.slice(0, at[0] ?? s.length), zone, filter, filterAt };
}

/** One element's interval, or null when its day filter drops it. */
function element(text: string, now: number, at: number): Interval | null {
  const m = markers(text);
  const filter = m.filter !== null ? dayFilter(m.filter, at + m.filterAt) : null;
  const zone = m.zone;
  const p = point(m.date.trim(), now, at);
  let { start, end } = p;
  if (zone !== null) {
    const shiftStart = zoneOffset(zone, start);
    const shiftEnd = zoneOffset(zone, end);
    start -= shiftStart;
    end -= shiftEnd;
  }
  // The day is the local one, before the zone moves it to UTC.
  if (filter !== null && !filter.has(dayOfWeek(p.start))) return null;
  return [start, end];
}

function dayFilter(s: string, at: number): Set<number> {
  const t = s.trim().toLowerCase();
  if (t === 'workday' || t === 'wd') return new Set([1, 2, 3, 4, 5]);
  if (t === 'weekend') return new Set([6, 7]);
  const days = new Set<number>();
  for (const d of t.split(',')) {
    const k = DAYS[d.trim().slice(0, 3)];
    if (k === undefined) throw new LiteralError(`unknown day filter '${d.trim()}'`, at);
    days.add(k);
  }
  return days;
}

/** The zone's offset from UTC in micros at about `localMicros` (core/time-zones.ts resolves the name). */
function zoneOffset(zone: string, localMicros: number): number {
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone);
  if (m) return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * US.h + Number(m[3] ?? 0) * US.m);
  const off = resolveZone(zone);
  if (off === null) throw new QuestError(`invalid timezone: ${zone}`);
  // Local wall time -> offset: the offset at the UTC instant of the same wall time, corrected once.
  return off(localMicros - off(localMicros));
}

// ---- points: a literal partial date (its period) or a date variable

interface Point {
  readonly start: number;
  readonly end: number;
}

function point(s: string, now: number, at: number): Point {
  if (s.startsWith('$')) {
    // A variable with a time of day: `$todayT09:30`, `$today - 2dT14:00` (that time on its day).
    const t = /^(\$.*?)T(\d{2}(?::\d{2}(?::\d{2}(?:\.\d+)?)?)?)$/.exec(s);
    if (t !== null && !/\d\s*$/.test(t[1]!)) {
      const day = Math.floor(variable(t[1]!.trim(), now, at).start / DAY);
      return point(`${new Date(day * 86_400_000).toISOString().slice(0, 10)}T${t[2]}`, now, at);
    }
    return variable(s, now, at);
  }
  const w = /^(\d{4})-W(\d{2})(?:-(\d))?(?:[T ](.+))?$/.exec(s);
  if (w !== null) return isoWeekPoint(w, now, at);
  const m = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:[T ](\d{2})(?::(\d{2})(?::(\d{2})(?:\.(\d{1,6})\d*)?)?)?)?)?)?Z?$/.exec(
    s,
  );
  if (!m) throw new QuestError('Invalid date');
  const y = Number(m[1]),
    mo = m[2] ? Number(m[2]) : 1,
    d = m[3] ? Number(m[3]) : 1;
  const h = m[4] ? Number(m[4]) : 0,
    mi = m[5] ? Number(m[5]) : 0,
    sec = m[6] ? Number(m[6]) : 0;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59) throw new QuestError('Invalid date');
  const frac = m[7] ?? '';
  const start =
    daysFromCivil(y, mo, d) * DAY + h * US.h + mi * US.m + sec * US.s + (frac ? Number(frac.padEnd(6, '0')) : 0);
  let end: number;
  if (frac) end = start + 10 ** (6 - frac.length);
  else if (m[6]) end = start + US.s;
  else if (m[5]) end = start + US.m;
  else if (m[4]) end = start + US.h;
  else if (m[3]) end = start + DAY;
  else if (m[2]) end = addMonths(start, 1);
  else end = addMonths(start, 12);
  return { start, end };
}

/**
 * An ISO 8601 week date: `2024-W01` (the whole week, Monday to Sunday), `2024-W01-5` (its
 * Friday), `2024-W01-5T09:00` (a time that day, its precision the interval's length).
 */
function isoWeekPoint(w: RegExpExecArray, now: number, at: number): Point {
  const year = Number(w[1]);
  const week = Number(w[2]);
  const day = w[3] !== undefined ? Number(w[3]) : null;
  // Week 1 holds the year's first Thursday: its Monday is 4 January's Monday.
  const jan4 = daysFromCivil(year, 1, 4);
  const monday = jan4 - (dayOfWeek(jan4 * DAY) - 1) + (week - 1) * 7;
  const weeks = isoWeeksIn(year);
  if (week < 1 || week > weeks || (day !== null && (day < 1 || day > 7))) throw new QuestError('Invalid date');
  if (day === null) {
    if (w[4] !== undefined) throw new QuestError('Invalid date');
    return { start: monday * DAY, end: (monday + 7) * DAY };
  }
  const date = new Date((monday + day - 1) * 86_400_000).toISOString().slice(0, 10);
  return point(w[4] !== undefined ? `${date}T${w[4]}` : date, now, at);
}

/** ISO weeks in a year: 53 when it starts on a Thursday, or is a leap year starting on a Wednesday. */
function isoWeeksIn(year: number): number {
  const jan1 = dayOfWeek(daysFromCivil(year, 1, 1) * DAY);
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return jan1 === 4 || (leap && jan1 === 3) ? 53 : 52;
}

function variable(s: string, now: number, at: number): Point {
  const m = /^\$(today|yesterday|tomorrow|now)\s*(?:([+-])\s*(\d+)\s*(bd|y|M|w|d|h|m|s|T|u))?$/i.exec(s);
  if (!m)
    throw new LiteralError(
      `unknown date variable '${s}' ($now, $today, $yesterday, $tomorrow with + or - amounts)`,
      at,
    );
  const v = m[1]!.toLowerCase();
  const today = Math.floor(now / DAY) * DAY;
  let start: number, len: number;
  switch (v) {
    case 'now':
      start = now;
      len = 1;
      break;
    case 'today':
      start = today;
      len = DAY;
      break;
    case 'yesterday':
      start = today - DAY;
      len = DAY;
      break;
    default:
      start = today + DAY;
      len = DAY;
  }
  if (m[2]) {
    const n = Number(m[3]) * (m[2] === '-' ? -1 : 1);
    const unit = m[4]!;
    if (unit === 'bd') {
      let left = Math.abs(n);
      const step = n < 0 ? -DAY : DAY;
      while (left > 0) {
        start += step;
        if (dayOfWeek(start) <= 5) left--;
      }
    } else if (unit === 'M' || unit === 'y') {
      start = addMonths(start, unit === 'y' ? 12 * n : n);
    } else {
      start += n * US[unit as keyof typeof US];
    }
  }
  return { start, end: start + len };
}

/** Sorted, overlapping or touching intervals merged; empty ones dropped. */
export function merge(list: readonly Interval[]): Interval[] {
  const xs = list.filter(([a, b]) => b > a).sort((p, q) => p[0] - q[0]);
  const out: Array<[number, number]> = [];
  for (const [a, b] of xs) {
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

/** The intervals common to both lists (each sorted and merged). */
export function intersect(a: readonly Interval[], b: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let i = 0,
    j = 0;
  while (i < a.length && j < b.length) {
    const lo = Math.max(a[i]![0], b[j]![0]);
    const hi = Math.min(a[i]![1], b[j]![1]);
    if (hi > lo) out.push([lo, hi]);
    if (a[i]![1] < b[j]![1]) i++;
    else j++;
  }
  return out;
}

/** Everything outside the (sorted, merged) intervals. */
export function complement(a: readonly Interval[]): Interval[] {
  const out: Interval[] = [];
  let lo = -Infinity;
  for (const [x, y] of a) {
    if (x > lo) out.push([lo, x]);
    lo = y;
  }
  if (lo < Infinity) out.push([lo, Infinity]);
  return out;
}
