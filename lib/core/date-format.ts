// QuestDB timestamp patterns (`yyyy-MM-ddTHH:mm:ss.SSSUUU`) compiled once into
// a formatter and a parser over epoch micros (and nanos: to_timestamp_ns): to_str, to_timestamp, to_date.
// Letters that are no unit, quoted text and punctuation are literals.
import {
  DAY_NAMES,
  F_DAY,
  F_DOW,
  F_DOY,
  F_HOUR,
  F_MICRO,
  F_MINUTE,
  F_MONTH,
  F_SECOND,
  F_YEAR,
  MICROS_PER_DAY,
  MICROS_PER_HOUR,
  MICROS_PER_MINUTE,
  MICROS_PER_SECOND,
  MONTH_NAMES,
  daysFromCivil,
  daysInMonth,
  isoWeek,
  newFields,
  splitMicros,
} from './datetime.js';

type Token =
  | { readonly kind: 'lit'; readonly text: string }
  | { readonly kind: 'unit'; readonly letter: string; readonly count: number; readonly plus: boolean };

export interface DateFormat {
  format(us: number): string;
  /** Epoch micros, or null when the text does not match the pattern. */
  parse(text: string): number | null;
  /** Epoch micros and the nanoseconds within the micro (the pattern's N digits), or null (to_timestamp_ns). */
  parseNanos(text: string): [number, number] | null;
}

const UNIT_LETTERS = 'GyMwDdFEuaHkKhmsSUNzZx';

function tokenize(pattern: string): Token[] {
  const out: Token[] = [];
  let lit = '';
  const flush = (): void => {
    if (lit) {
      out.push({ kind: 'lit', text: lit });
      lit = '';
    }
  };
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i]!;
    if (c === "'") {
      const end = pattern.indexOf("'", i + 1);
      if (end === i + 1) {
        lit += "'";
        i += 2;
        continue;
      }
      lit += end < 0 ? pattern.slice(i + 1) : pattern.slice(i + 1, end);
      i = end < 0 ? pattern.length : end + 1;
      continue;
    }
    if (!UNIT_LETTERS.includes(c)) {
      lit += c;
      i++;
      continue;
    }
    let j = i;
    while (j < pattern.length && pattern[j] === c) j++;
    const plus = (c === 'U' || c === 'N') && pattern[j] === '+';
    flush();
    out.push({ kind: 'unit', letter: c, count: j - i, plus });
    i = plus ? j + 1 : j;
  }
  flush();
  return out;
}

function pad(n: number, w: number): string {
  const s = String(n);
  return s.length >= w ? s : '0'.repeat(w - s.length) + s;
}

function formatUnit(t: Extract<Token, { kind: 'unit' }>, f: Float64Array): string {
  const n = t.count;
  const hour = f[F_HOUR]!;
  switch (t.letter) {
    case 'G':
      return f[F_YEAR]! > 0 ? 'AD' : 'BC';
    case 'y': {
      const y = f[F_YEAR]!;
      if (n === 2) return pad(((y % 100) + 100) % 100, 2);
      return n === 1 ? String(y) : pad(y, n);
    }
    case 'M': {
      const m = f[F_MONTH]!;
      if (n >= 4) return MONTH_NAMES[m - 1]!;
      if (n === 3) return MONTH_NAMES[m - 1]!.slice(0, 3);
      return pad(m, n);
    }
    case 'w':
      return pad(isoWeek(f[F_YEAR]!, f[F_DOY]!, f[F_DOW]!).week, n);
    case 'D':
      return pad(f[F_DOY]!, n);
    case 'd':
      return pad(f[F_DAY]!, n);
    case 'F':
      return pad(Math.ceil(f[F_DAY]! / 7), n);
    case 'E':
      return n >= 2 ? DAY_NAMES[f[F_DOW]! - 1]! : DAY_NAMES[f[F_DOW]! - 1]!.slice(0, 3);
    case 'u':
      return String(f[F_DOW]!);
    case 'a':
      return hour < 12 ? 'AM' : 'PM';
    case 'H':
      return pad(hour, n);
    case 'k':
      return pad(hour === 0 ? 24 : hour, n);
    case 'K':
      return pad(hour % 12, n);
    case 'h':
      return pad(hour % 12 === 0 ? 12 : hour % 12, n);
    case 'm':
      return pad(f[F_MINUTE]!, n);
    case 's':
      return pad(f[F_SECOND]!, n);
    case 'S':
      return pad(Math.floor(f[F_MICRO]! / 1000), n === 1 ? 1 : 3);
    case 'U':
      return t.plus ? pad(f[F_MICRO]!, 6) : pad(f[F_MICRO]! % 1000, n === 1 ? 1 : 3);
    case 'N':
      return t.plus ? pad(f[F_MICRO]! * 1000, 9) : '0'.repeat(Math.max(n, 3) === 3 ? 3 : n);
    case 'z':
      return 'UTC';
    default:
      return 'Z'; // Z and x: every value is UTC
  }
}

/** Parse state: fields as they are read. */
interface Parsed {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  micro: number;
  /** Nanoseconds within the micro (0..999). */
  nano: number;
  pm: number;
  hour12: boolean;
  offset: number;
  twoDigitYear: boolean;
}

function readDigits(s: string, at: number, min: number, max: number): [number, number] | null {
  let i = at;
  let v = 0;
  while (i < s.length && i - at < max) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) break;
    v = v * 10 + c;
    i++;
  }
  return i - at < min ? null : [v, i];
}

function readName(s: string, at: number, names: readonly string[]): [number, number] | null {
  const rest = s.slice(at).toLowerCase();
  for (let k = 0; k < names.length; k++) {
    const full = names[k]!.toLowerCase();
    if (rest.startsWith(full)) return [k, at + full.length];
  }
  for (let k = 0; k < names.length; k++) {
    if (rest.startsWith(names[k]!.slice(0, 3).toLowerCase())) return [k, at + 3];
  }
  return null;
}

function readOffset(s: string, at: number): [number, number] | null {
  const c = s[at];
  if (c === 'Z' || c === 'z') return [0, at + 1];
  if (s.startsWith('UTC', at) || s.startsWith('GMT', at)) {
    const sign = s[at + 3];
    return sign === '+' || sign === '-' ? readOffset(s, at + 3) : [0, at + 3];
  }
  if (c !== '+' && c !== '-') return null;
  const h = readDigits(s, at + 1, 2, 2);
  if (!h) return null;
  let end = h[1];
  let m = 0;
  const colon = s[end] === ':';
  const mm = readDigits(s, colon ? end + 1 : end, 2, 2);
  if (mm) {
    m = mm[0];
    end = mm[1];
  }
  const off = h[0] * MICROS_PER_HOUR + m * MICROS_PER_MINUTE;
  return [c === '-' ? -off : off, end];
}

/** Reads one unit at `at` into `p`; returns the next position or -1. */
function parseUnit(t: Extract<Token, { kind: 'unit' }>, s: string, at: number, p: Parsed): number {
  const n = t.count;
  // One letter reads greedily (up to the field's width); a repeated letter reads exactly that many digits.
  const num = (max: number): [number, number] | null => (n === 1 ? readDigits(s, at, 1, max) : readDigits(s, at, n, n));
  let r: [number, number] | null;
  switch (t.letter) {
    case 'G':
      return s.startsWith('AD', at) || s.startsWith('BC', at) ? at + 2 : -1;
    case 'y': {
      r = n === 1 ? readDigits(s, at, 1, 9) : readDigits(s, at, n, n === 2 ? 2 : n);
      if (!r) return -1;
      p.year = r[0];
      p.twoDigitYear = r[1] - at === 2;
      return r[1];
    }
    case 'M':
      r = n >= 3 ? readName(s, at, MONTH_NAMES) : num(2);
      if (!r) return -1;
      p.month = n >= 3 ? r[0] + 1 : r[0];
      return r[1];
    case 'E':
      r = readName(s, at, DAY_NAMES);
      return r ? r[1] : -1;
    case 'a': {
      const ap = s.slice(at, at + 2).toUpperCase();
      if (ap !== 'AM' && ap !== 'PM') return -1;
      p.pm = ap === 'PM' ? 1 : 0;
      return at + 2;
    }
    case 'S':
      r = num(3);
      if (!r) return -1;
      p.micro = r[0] * 1000 + (p.micro % 1000);
      return r[1];
    case 'U':
    case 'N': {
      if (t.plus) {
        r = readDigits(s, at, 1, t.letter === 'U' ? 6 : 9);
        if (!r) return -1;
        const len = r[1] - at;
        const nanos = r[0] * 10 ** ((t.letter === 'U' ? 6 : 9) - len) * (t.letter === 'U' ? 1000 : 1);
        p.micro = Math.floor(nanos / 1000);
        p.nano = nanos % 1000;
        return r[1];
      }
      r = num(3);
      if (!r) return -1;
      // Fewer than three digits are the leading digits of the field (.1234 with SSSU is 123,400 micros).
      const scaled = r[0] * 10 ** (3 - (r[1] - at));
      if (t.letter === 'U') p.micro = Math.floor(p.micro / 1000) * 1000 + scaled;
      else p.nano = scaled;
      return r[1];
    }
    case 'z':
    case 'Z':
    case 'x':
      r = readOffset(s, at);
      if (!r) return -1;
      p.offset = r[0];
      return r[1];
    default: {
      r = num(t.letter === 'D' ? 3 : t.letter === 'u' ? 1 : 2);
      if (!r) return -1;
      const v = r[0];
      switch (t.letter) {
        case 'd':
          p.day = v;
          break;
        case 'H':
          p.hour = v;
          break;
        case 'k':
          p.hour = v === 24 ? 0 : v;
          break;
        case 'K':
          p.hour = v;
          p.hour12 = true;
          break;
        case 'h':
          p.hour = v === 12 ? 0 : v;
          p.hour12 = true;
          break;
        case 'm':
          p.minute = v;
          break;
        case 's':
          p.second = v;
          break;
        default:
          break; // w, D, F, u: read and ignored (the date comes from y, M, d)
      }
      return r[1];
    }
  }
}

/** Compiles a QuestDB timestamp pattern. */
export function compileDateFormat(pattern: string): DateFormat {
  const tokens = tokenize(pattern);
  const f = newFields();
  return {
    format(us: number): string {
      splitMicros(us, f);
      let out = '';
      for (const t of tokens) out += t.kind === 'lit' ? t.text : formatUnit(t, f);
      return out;
    },
    parse(text: string): number | null {
      return parseNanos(text)?.[0] ?? null;
    },
    parseNanos,
  };

  function parseNanos(text: string): [number, number] | null {
    const p: Parsed = {
      year: 1970,
      month: 1,
      day: 1,
      hour: 0,
      minute: 0,
      second: 0,
      micro: 0,
      nano: 0,
      pm: -1,
      hour12: false,
      offset: 0,
      twoDigitYear: false,
    };
    let at = 0;
    for (const t of tokens) {
      if (t.kind === 'lit') {
        if (!text.startsWith(t.text, at)) return null;
        at += t.text.length;
      } else {
        at = parseUnit(t, text, at, p);
        if (at < 0) return null;
      }
    }
    if (at !== text.length) return null;
    let year = p.year;
    if (p.twoDigitYear) year += 2000;
    let hour = p.hour;
    if (p.pm === 1 && hour < 12) hour += 12;
    if (p.hour12 && hour > 23) return null;
    if (p.month < 1 || p.month > 12 || p.day < 1 || p.day > daysInMonth(year, p.month)) return null;
    if (hour > 23 || p.minute > 59 || p.second > 59) return null;
    const us =
      daysFromCivil(year, p.month, p.day) * MICROS_PER_DAY +
      hour * MICROS_PER_HOUR +
      p.minute * MICROS_PER_MINUTE +
      p.second * MICROS_PER_SECOND +
      p.micro -
      p.offset;
    return [us, p.nano];
  }
}

const cache = new Map<string, DateFormat>();

/** A compiled pattern, cached (patterns are nearly always constants). */
export function dateFormat(pattern: string): DateFormat {
  let f = cache.get(pattern);
  if (!f) {
    if (cache.size > 256) cache.clear();
    f = compileDateFormat(pattern);
    cache.set(pattern, f);
  }
  return f;
}
