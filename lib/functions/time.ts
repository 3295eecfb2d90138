// Clock and calendar functions: now (the statement's time, from its kernel
// context), systimestamp / sysdate (read per batch), today, to_timestamp,
// to_date, to_str (QuestDB patterns), dateadd and datediff.
import type { ColumnVector } from '../core/column-vector.js';
import { argError, type BindHook, type Kernel, type KernelContext, type FunctionRegistry } from './registry.js';
import { clockMicros } from './clock.js';
import { accept, defineScalar } from './signature.js';
import { asDoubles, fromDoubles, textAt } from '../core/vec.js';
import { TextOut } from './text-out.js';
import { uniformText } from '../core/utf8.js';
import { intervalVector } from '../core/interval-values.js';
import { dateFormat } from '../core/date-format.js';
import { offsetAt } from './time-zone.js';
import {
  MICROS_PER_DAY,
  MICROS_PER_HOUR,
  MICROS_PER_MINUTE,
  MICROS_PER_SECOND,
  MICROS_PER_WEEK,
  addMonths,
  monthIndex,
  monthStart,
} from '../core/datetime.js';

/** The unit letter of each row of a CHAR or text argument (0 when it is not one character). */
export function unitLetters(v: ColumnVector, n: number): Uint16Array {
  if (v.kind === 'fixed' && v.type === 'CHAR') return v.data as Uint16Array;
  const out = new Uint16Array(n);
  const c = uniformText(v, n);
  if (c !== undefined) return out.fill(c !== null && c.length === 1 ? c.charCodeAt(0) : 0);
  for (let i = 0; i < n; i++) {
    const s = textAt(v, i);
    out[i] = s !== null && s.length === 1 ? s.charCodeAt(0) : 0;
  }
  return out;
}

/** Micros in one fixed-size unit, or 0 for calendar units and unknown letters. */
function unitMicros(u: number): number {
  switch (String.fromCharCode(u)) {
    case 'w':
      return MICROS_PER_WEEK;
    case 'd':
      return MICROS_PER_DAY;
    case 'h':
      return MICROS_PER_HOUR;
    case 'm':
      return MICROS_PER_MINUTE;
    case 's':
      return MICROS_PER_SECOND;
    case 'T':
      return 1000;
    case 'u':
    case 'U':
      return 1;
    default:
      return 0;
  }
}

const Y = 121,
  M = 77,
  N = 110; // 'y', 'M', 'n'

/** The unit letters dateadd and datediff take. */
const UNITS = 'yMwdhmsTuUn';

/**
 * A constant unit must be one of UNITS (an error at it when bound); a unit that
 * varies per row and is unknown gives NULL for that row.
 */
const checkDateUnit: BindHook = (args) => {
  const u = args[0]!;
  if (u.value === undefined) return;
  const s = u.value === null ? null : String(u.value);
  if (s === null || s.length !== 1 || !UNITS.includes(s)) throw argError(`invalid unit '${String(s)}'`, u.pos);
};

/** ts + k units; NULL for NULL input or an unknown unit. */
export function dateAdd(u: number, k: number, ts: number): number {
  if (k !== k || ts !== ts) return NaN;
  if (u === Y) return addMonths(ts, 12 * k);
  if (u === M) return addMonths(ts, k);
  if (u === N) return ts + Math.trunc(k / 1000);
  const size = unitMicros(u);
  return size === 0 ? NaN : ts + k * size;
}

/** Whole units between two timestamps, always non-negative; NaN for NULL or an unknown unit. */
export function dateDiff(u: number, a: number, b: number): number {
  if (a !== a || b !== b) return NaN;
  const lo = Math.min(a, b),
    hi = Math.max(a, b);
  if (u === Y || u === M) {
    // Whole months: one fewer when the later day-of-month and time fall before the earlier's (Jan 31 -> Feb 29 is 0).
    let months = monthIndex(hi) - monthIndex(lo);
    if (months > 0 && hi - monthStart(monthIndex(hi)) < lo - monthStart(monthIndex(lo))) months--;
    return u === Y ? Math.floor(months / 12) : months;
  }
  if (u === N) return (hi - lo) * 1000;
  const size = unitMicros(u);
  return size === 0 ? NaN : Math.floor((hi - lo) / size);
}

const dateaddKernel: Kernel = (args, n) => {
  const u = unitLetters(args[0]!, n),
    k = asDoubles(args[1]!),
    ts = asDoubles(args[2]!);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = dateAdd(u[i]!, k[i]!, ts[i]!);
  return fromDoubles('TIMESTAMP', out);
};

/**
 * dateadd(unit, n, ts, zone): n units added to the zone's wall-clock time of ts, the result taken
 * back to UTC (QuestDB: to_utc(dateadd(unit, n, to_timezone(ts, zone)), zone)), so that a day or a
 * week across a DST change keeps the local time of day. A NULL ts is NULL; a NULL stride, unit or
 * zone and an unknown unit or zone are errors (at the argument: `pos`, the arguments' offsets).
 */
function dateaddZoneKernel(pos: readonly number[]): Kernel {
  const zones = new Map<string, (utc: number) => number>();
  const zoneOf = (z: string | null): ((utc: number) => number) => {
    if (z === null) throw argError('NULL timezone', pos[3]!);
    let off = zones.get(z);
    if (off === undefined) {
      try {
        off = offsetAt(z);
      } catch {
        throw argError(`invalid timezone: ${z}`, pos[3]!);
      }
      zones.set(z, off);
    }
    return off;
  };
  return (args, n) => {
    const u = unitLetters(args[0]!, n),
      k = asDoubles(args[1]!),
      ts = asDoubles(args[2]!);
    const zone = uniformText(args[3]!, n);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      if (k[i] !== k[i]) throw argError('`null` is not a valid stride', pos[1]!);
      const off = zoneOf(zone === undefined ? textAt(args[3]!, i) : zone);
      const unit = u[i]!;
      if (!UNITS.includes(String.fromCharCode(unit)) || unit === 0)
        throw argError(`invalid period [period=${String.fromCharCode(unit)}]`, pos[0]!);
      const t = ts[i]!;
      if (t !== t) {
        out[i] = NaN;
        continue;
      }
      const local = dateAdd(unit, k[i]!, t + off(t));
      // Wall clock -> UTC: the offset at the instant near that wall time, corrected once (to_utc).
      out[i] = local - off(local - off(local));
    }
    return fromDoubles('TIMESTAMP', out);
  };
}

/** dateadd with a zone: constant arguments checked when bound (QuestDB's messages), the kernel told where each argument is. */
const bindDateaddZone: BindHook = (args) => {
  const [unit, stride, , zone] = args;
  if (unit!.value !== undefined) {
    const s = unit!.value === null ? '' : String(unit!.value);
    if (s.length !== 1 || !UNITS.includes(s)) throw argError(`invalid time period [unit=${s}]`, unit!.pos);
  }
  if (stride!.value === null) throw argError('`null` is not a valid stride', stride!.pos);
  if (zone!.value === null) throw argError('NULL timezone', zone!.pos);
  if (zone!.value !== undefined) {
    try {
      offsetAt(String(zone!.value));
    } catch {
      throw argError(`invalid timezone: ${String(zone!.value)}`, zone!.pos);
    }
  }
  return { kernel: dateaddZoneKernel(args.map((a) => a.pos)) };
};

const datediffKernel: Kernel = (args, n) => {
  const u = unitLetters(args[0]!, n),
    a = asDoubles(args[1]!),
    b = asDoubles(args[2]!);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = dateDiff(u[i]!, a[i]!, b[i]!);
  return fromDoubles('LONG', out);
};

/** to_timestamp / to_date: text parsed with a pattern (the last compiled pattern is reused). */
function parseWith(type: 'TIMESTAMP' | 'DATE'): Kernel {
  return (args, n) => {
    const out = new Float64Array(n);
    const constant = uniformText(args[1]!, n);
    for (let i = 0; i < n; i++) {
      const s = textAt(args[0]!, i);
      const p = constant === undefined ? textAt(args[1]!, i) : constant;
      const us = s === null || p === null ? null : dateFormat(p).parse(s);
      out[i] = us === null ? NaN : type === 'DATE' ? Math.floor(us / 1000) : us;
    }
    return fromDoubles(type, out);
  };
}

const toStrKernel: Kernel = (args, n, kx) => {
  const ts = args[0]!.kind === 'fixed' ? asDoubles(args[0]!) : new Float64Array(n).fill(NaN);
  const constant = uniformText(args[1]!, n);
  const out = new TextOut('STRING', n, kx);
  for (let i = 0; i < n; i++) {
    const p = constant === undefined ? textAt(args[1]!, i) : constant;
    const x = ts[i]!;
    out.set(i, x !== x || p === null ? null : dateFormat(p).format(x));
  }
  return out.vector();
};

function constantTime(type: 'TIMESTAMP' | 'DATE', value: (kx: KernelContext) => number): Kernel {
  return (_args, n, kx) => fromDoubles(type, new Float64Array(n).fill(value(kx)));
}

export type DayName = 'today' | 'yesterday' | 'tomorrow';

/**
 * The [start, end) micros of today, yesterday or tomorrow as days of `zone`
 * (UTC without one) around `now`: QuestDB's today(), yesterday(), tomorrow()
 * intervals. Throws for an unknown zone.
 */
export function dayInterval(which: DayName, zone: string | null, now: number): [number, number] {
  const shift = which === 'yesterday' ? -1 : which === 'tomorrow' ? 1 : 0;
  if (zone === null) {
    const start = (Math.floor(now / MICROS_PER_DAY) + shift) * MICROS_PER_DAY;
    return [start, start + MICROS_PER_DAY];
  }
  const off = offsetAt(zone);
  const localStart = (Math.floor((now + off(now)) / MICROS_PER_DAY) + shift) * MICROS_PER_DAY;
  return [wallToUtc(localStart, off), wallToUtc(localStart + MICROS_PER_DAY, off)];
}

/**
 * The UTC instant of a zone's wall-clock time, where clocks change at that
 * time too: the offsets a day before and after are the two candidates. A wall
 * time that exists twice (clocks went back) is its earlier instant; one that
 * does not exist (clocks went forward) is the instant of the change.
 */
function wallToUtc(wall: number, off: (utc: number) => number): number {
  const before = off(wall - MICROS_PER_DAY);
  const after = off(wall + MICROS_PER_DAY);
  const early = wall - before;
  const late = wall - after;
  const earlyHolds = off(early) === before;
  const lateHolds = off(late) === after;
  if (earlyHolds && lateHolds) return Math.min(early, late);
  if (lateHolds) return late;
  return early; // also the gap: wall - (offset before the change) is the change itself
}

/**
 * today(), yesterday(), tomorrow() [in a zone]: the day as an INTERVAL, its last microsecond included, as in
 * QuestDB 9. The zone may change by row (a column); NULL is UTC, as QuestDB reads it.
 */
function dayOf(which: DayName): Kernel {
  return (args, n, kx) => {
    const los = new Float64Array(n),
      his = new Float64Array(n);
    const days = new Map<string | null, [number, number]>();
    const zones = args[0];
    const uniform = zones === undefined ? null : uniformText(zones, n);
    for (let i = 0; i < n; i++) {
      const zone = uniform !== undefined ? uniform : textAt(zones!, i);
      let day = days.get(zone);
      if (day === undefined) {
        try {
          day = dayInterval(which, zone, kx.statementMicros);
        } catch {
          throw argError(`invalid timezone [${zone}]`, 0);
        }
        days.set(zone, day);
      }
      los[i] = day[0];
      his[i] = day[1] - 1;
    }
    return intervalVector(los, his, n);
  };
}

const checkDayZone: BindHook = (args) => {
  const z = args[0];
  if (z === undefined || z.value === undefined || z.value === null) return;
  try {
    offsetAt(String(z.value));
  } catch {
    throw argError(`invalid timezone [${String(z.value)}]`, z.pos);
  }
};

const nowOf = (kx: KernelContext): number => kx.statementMicros;

export function registerTime(registry: FunctionRegistry): void {
  // now() is the statement's time (KernelContext.statementMicros), one value for every call site in it.
  // Not deterministic: never folded at bind time, where there is no statement time to read.
  defineScalar(registry, 'now', [
    { args: [], build: () => ({ type: 'TIMESTAMP', kernel: constantTime('TIMESTAMP', nowOf), deterministic: false }) },
  ]);
  defineScalar(registry, 'systimestamp', [
    {
      args: [],
      build: () => ({ type: 'TIMESTAMP', kernel: constantTime('TIMESTAMP', clockMicros), deterministic: false }),
    },
  ]);
  defineScalar(registry, 'sysdate', [
    {
      args: [],
      build: () => ({
        type: 'DATE',
        kernel: constantTime('DATE', () => Math.floor(clockMicros() / 1000)),
        deterministic: false,
      }),
    },
  ]);
  // INTERVAL values (QuestDB 9); `ts IN today()` is pushed into the scan as the day (bind-expr.ts).
  for (const which of ['today', 'yesterday', 'tomorrow'] as const) {
    defineScalar(registry, which, [
      { args: [], build: () => ({ type: 'INTERVAL', kernel: dayOf(which), deterministic: false }) },
      {
        args: [accept.text],
        build: () => ({ type: 'INTERVAL', kernel: dayOf(which), deterministic: false, bind: checkDayZone }),
      },
    ]);
  }
  defineScalar(registry, 'to_timestamp', [
    { args: [accept.text, accept.text], build: () => ({ type: 'TIMESTAMP', kernel: parseWith('TIMESTAMP') }) },
  ]);
  defineScalar(registry, 'to_date', [
    { args: [accept.text, accept.text], build: () => ({ type: 'DATE', kernel: parseWith('DATE') }) },
  ]);
  defineScalar(registry, 'to_str', [
    { args: [accept.timestamp, accept.text], build: () => ({ type: 'STRING', kernel: toStrKernel }) },
  ]);
  defineScalar(registry, 'dateadd', [
    {
      args: [accept.text, accept.long, accept.timestamp],
      build: () => ({ type: 'TIMESTAMP', kernel: dateaddKernel, bind: checkDateUnit }),
    },
    {
      args: [accept.text, accept.long, accept.timestamp, accept.text],
      build: () => ({ type: 'TIMESTAMP', kernel: dateaddZoneKernel([0, 0, 0, 0]), bind: bindDateaddZone }),
    },
  ]);
  defineScalar(registry, 'datediff', [
    {
      args: [accept.text, accept.timestamp, accept.timestamp],
      build: () => ({ type: 'LONG', kernel: datediffKernel, bind: checkDateUnit }),
    },
  ]);
}
