// Parts of timestamps (extract, year .. second, day_of_week, ...) and rounding
// to units (timestamp_floor('5m', ts[, offset]), timestamp_ceil, date_trunc).
// DATE arguments are widened to micros first. Constant parts and units are
// checked when the call is bound (errors at the argument).
import { SvcError } from '../errors/svc-error.js';
import { argError, type BindHook, type Kernel, type FunctionRegistry } from './registry.js';
import { accept, defineScalar } from './signature.js';
import { nanosRoundKernel, parseNanosUnit } from './time-ns.js';
import { asDoubles, fromDoubles, textAt } from '../core/vec.js';
import { uniformText } from '../core/utf8.js';
import {
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
  addMonths,
  daysFromCivil,
  daysInMonth,
  floorTo,
  isLeapYear,
  isoWeek,
  newFields,
  parseFloorUnit,
  splitMicros,
  type FloorUnit,
} from '../core/datetime.js';

type Part = (f: Float64Array, us: number) => number;

const PARTS: Record<string, Part> = {
  millennium: (f) => Math.ceil(f[F_YEAR]! / 1000),
  century: (f) => Math.ceil(f[F_YEAR]! / 100),
  decade: (f) => Math.floor(f[F_YEAR]! / 10),
  year: (f) => f[F_YEAR]!,
  isoyear: (f) => isoWeek(f[F_YEAR]!, f[F_DOY]!, f[F_DOW]!).year,
  quarter: (f) => Math.floor((f[F_MONTH]! - 1) / 3) + 1,
  month: (f) => f[F_MONTH]!,
  week: (f) => isoWeek(f[F_YEAR]!, f[F_DOY]!, f[F_DOW]!).week,
  doy: (f) => f[F_DOY]!,
  // dow: 0 = Sunday .. 6 = Saturday (PostgreSQL); isodow: 1 = Monday .. 7 = Sunday.
  dow: (f) => f[F_DOW]! % 7,
  isodow: (f) => f[F_DOW]!,
  day: (f) => f[F_DAY]!,
  hour: (f) => f[F_HOUR]!,
  minute: (f) => f[F_MINUTE]!,
  second: (f) => f[F_SECOND]!,
  // QuestDB (unlike PostgreSQL): the fraction of the second alone, as INT milli- or microseconds.
  milliseconds: (f) => Math.floor(f[F_MICRO]! / 1000),
  microseconds: (f) => f[F_MICRO]!,
  epoch: (_f, us) => Math.floor(us / 1_000_000),
};

/** A table entry by name, never an Object.prototype member ('constructor'). */
function own<T>(table: Record<string, T>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

/** Parts QuestDB returns as LONG (the others are INT). */
const LONG_PARTS = new Set(['epoch']);

/** The INT (or LONG) value of `part` for each timestamp. */
function partKernel(part: Part, type: 'INT' | 'LONG' = 'INT'): Kernel {
  const f = newFields();
  return (args, n) => {
    const ts = asDoubles(args[args.length - 1]!);
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const us = ts[i]!;
      if (us !== us) {
        out[i] = NaN;
        continue;
      }
      splitMicros(us, f);
      out[i] = part(f, us);
    }
    return fromDoubles(type, out);
  };
}

/** extract's part is a constant (the parser makes it a literal): the part's kernel and type, or an error at it. */
const bindExtract: BindHook = (args) => {
  const p = args[0]!;
  if (p.value === undefined) throw argError('extract part must be a constant', p.pos);
  const name = String(p.value).toLowerCase();
  const part = p.value === null ? undefined : own(PARTS, name);
  if (!part) throw argError(`unsupported part '${String(p.value)}'`, p.pos);
  const type = LONG_PARTS.has(name) ? 'LONG' : 'INT';
  return { type, kernel: partKernel(part, type) };
};

/** A constant unit argument (index `at`) must parse; non-constant units are checked per row when they run. */
function checkUnit(valid: (s: string) => boolean, at = 0): BindHook {
  return (args) => {
    const u = args[at]!;
    if (u.value === undefined) return;
    if (u.value === null || !valid(String(u.value))) throw argError(`invalid unit '${String(u.value)}'`, u.pos);
  };
}

const extractKernel: Kernel = (args, n, kx) => {
  const name = uniformText(args[0]!, n);
  const one = (p: string | null): Part => {
    const part = p === null ? undefined : own(PARTS, p.toLowerCase());
    if (!part) throw new SvcError('SQL', `unsupported part '${p}'`);
    return part;
  };
  if (name !== undefined) return partKernel(one(name))(args, n, kx);
  // Rare: a part that varies per row.
  const f = newFields();
  const ts = asDoubles(args[1]!);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const us = ts[i]!;
    if (us !== us) {
      out[i] = NaN;
      continue;
    }
    splitMicros(us, f);
    out[i] = one(textAt(args[0]!, i))(f, us);
  }
  return fromDoubles('INT', out);
};

/** A unit argument read once per batch (it is a constant in practice), per row otherwise. */
function unitsOf(
  args: Parameters<Kernel>[0],
  n: number,
  parse: (s: string) => FloorUnit | null,
): (i: number) => FloorUnit {
  const bad = (s: string | null): never => {
    throw new SvcError('SQL', `invalid unit '${s}'`);
  };
  const c = uniformText(args[0]!, n);
  if (c !== undefined) {
    const u = c === null ? null : parse(c);
    if (!u) return bad(c);
    return () => u;
  }
  return (i) => {
    const s = textAt(args[0]!, i);
    return (s === null ? null : parse(s)) ?? bad(s);
  };
}

const floorKernel: Kernel = (args, n) => {
  const ts = asDoubles(args[1]!);
  const origin = args.length > 2 ? asDoubles(args[2]!) : null;
  const out = new Float64Array(n);
  if (n === 0) return fromDoubles('TIMESTAMP', out);
  const unit = unitsOf(args, n, parseFloorUnit);
  for (let i = 0; i < n; i++) {
    const us = ts[i]!;
    // A NULL offset floors from the default origin (QuestDB reads it as 0).
    const o = origin ? origin[i]! : NaN;
    out[i] = us !== us ? NaN : floorTo(us, unit(i), o === o ? o : null);
  }
  return fromDoubles('TIMESTAMP', out);
};

const ceilKernel: Kernel = (args, n) => {
  const ts = asDoubles(args[1]!);
  const out = new Float64Array(n);
  if (n === 0) return fromDoubles('TIMESTAMP', out);
  const unit = unitsOf(args, n, parseFloorUnit);
  for (let i = 0; i < n; i++) {
    const us = ts[i]!;
    if (us !== us) {
      out[i] = NaN;
      continue;
    }
    const u = unit(i);
    const fl = floorTo(us, u);
    out[i] = fl === us ? us : u.kind === 'fixed' ? fl + u.micros : addMonths(fl, u.months);
  }
  return fromDoubles('TIMESTAMP', out);
};

/** date_trunc units -> the start of the period holding `us`. */
const TRUNC: Record<string, (f: Float64Array, us: number) => number> = {
  millennium: (f) => yearStart(Math.floor((f[F_YEAR]! - 1) / 1000) * 1000 + 1),
  century: (f) => yearStart(Math.floor((f[F_YEAR]! - 1) / 100) * 100 + 1),
  decade: (f) => yearStart(Math.floor(f[F_YEAR]! / 10) * 10),
  year: (f) => yearStart(f[F_YEAR]!),
  quarter: (f) => daysFromCivil(f[F_YEAR]!, Math.floor((f[F_MONTH]! - 1) / 3) * 3 + 1, 1) * MICROS_PER_DAY,
  month: (f) => daysFromCivil(f[F_YEAR]!, f[F_MONTH]!, 1) * MICROS_PER_DAY,
  week: (f, us) => (Math.floor(us / MICROS_PER_DAY) - (f[F_DOW]! - 1)) * MICROS_PER_DAY,
  day: (_f, us) => Math.floor(us / MICROS_PER_DAY) * MICROS_PER_DAY,
  hour: (_f, us) => Math.floor(us / 3_600_000_000) * 3_600_000_000,
  minute: (_f, us) => Math.floor(us / 60_000_000) * 60_000_000,
  second: (_f, us) => Math.floor(us / 1_000_000) * 1_000_000,
  millisecond: (_f, us) => Math.floor(us / 1000) * 1000,
  microsecond: (_f, us) => us,
  nanosecond: (_f, us) => us,
};

function yearStart(y: number): number {
  return daysFromCivil(y, 1, 1) * MICROS_PER_DAY;
}

const truncKernel: Kernel = (args, n) => {
  const ts = asDoubles(args[1]!);
  const out = new Float64Array(n);
  const f = newFields();
  const name = uniformText(args[0]!, n);
  for (let i = 0; i < n; i++) {
    const us = ts[i]!;
    if (us !== us) {
      out[i] = NaN;
      continue;
    }
    const unit = name !== undefined ? name : textAt(args[0]!, i);
    const fn = unit === null ? undefined : own(TRUNC, unit.toLowerCase());
    if (!fn) throw new SvcError('SQL', `invalid unit '${unit}'`);
    splitMicros(us, f);
    out[i] = fn(f, us);
  }
  return fromDoubles('TIMESTAMP', out);
};

export function registerTimeParts(registry: FunctionRegistry): void {
  defineScalar(registry, 'extract', [
    { args: [accept.text, accept.timestamp], build: () => ({ type: 'INT', kernel: extractKernel, bind: bindExtract }) },
  ]);
  const simple: Record<string, Part> = {
    year: PARTS.year!,
    month: PARTS.month!,
    day: PARTS.day!,
    hour: PARTS.hour!,
    minute: PARTS.minute!,
    second: PARTS.second!,
    millis: (f) => Math.floor(f[F_MICRO]! / 1000),
    micros: (f) => f[F_MICRO]! % 1000,
    day_of_week: (f) => f[F_DOW]!,
    day_of_week_sunday_first: (f) => (f[F_DOW]! % 7) + 1,
    week_of_year: PARTS.week!,
    days_in_month: (f) => daysInMonth(f[F_YEAR]!, f[F_MONTH]!),
  };
  for (const [name, part] of Object.entries(simple)) {
    defineScalar(registry, name, [
      { args: [accept.timestamp], build: () => ({ type: 'INT', kernel: partKernel(part) }) },
    ]);
  }
  defineScalar(registry, 'is_leap_year', [
    {
      args: [accept.timestamp],
      build: () => ({
        type: 'BOOLEAN',
        kernel: (args, n) => {
          const f = newFields();
          const ts = asDoubles(args[0]!);
          const out = new Float64Array(n);
          for (let i = 0; i < n; i++) {
            const us = ts[i]!;
            if (us === us) {
              splitMicros(us, f);
              out[i] = isLeapYear(f[F_YEAR]!) ? 1 : 0;
            }
          }
          return fromDoubles('BOOLEAN', out);
        },
      }),
    },
  ]);
  const floorUnit = checkUnit((s) => parseFloorUnit(s) !== null);
  const nanosUnit = checkUnit((s) => parseNanosUnit(s) !== null);
  const ns = accept.exactly('TIMESTAMP_NS');
  defineScalar(registry, 'timestamp_floor', [
    {
      args: [accept.text, ns],
      build: () => ({ type: 'TIMESTAMP_NS', kernel: nanosRoundKernel(false), bind: nanosUnit }),
    },
    {
      args: [accept.text, ns, accept.timestamp],
      build: () => ({ type: 'TIMESTAMP_NS', kernel: nanosRoundKernel(false), bind: nanosUnit }),
    },
    {
      args: [accept.text, accept.timestamp],
      build: () => ({ type: 'TIMESTAMP', kernel: floorKernel, bind: floorUnit }),
    },
    {
      args: [accept.text, accept.timestamp, accept.timestamp],
      build: () => ({ type: 'TIMESTAMP', kernel: floorKernel, bind: floorUnit }),
    },
  ]);
  defineScalar(registry, 'timestamp_ceil', [
    {
      args: [accept.text, ns],
      build: () => ({ type: 'TIMESTAMP_NS', kernel: nanosRoundKernel(true), bind: nanosUnit }),
    },
    {
      args: [accept.text, accept.timestamp],
      build: () => ({ type: 'TIMESTAMP', kernel: ceilKernel, bind: floorUnit }),
    },
  ]);
  const truncUnit = checkUnit((s) => own(TRUNC, s.toLowerCase()) !== undefined);
  defineScalar(registry, 'date_trunc', [
    {
      args: [accept.text, accept.timestamp],
      build: () => ({ type: 'TIMESTAMP', kernel: truncKernel, bind: truncUnit }),
    },
  ]);
}
