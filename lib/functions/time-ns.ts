// Nanosecond and PostgreSQL-date helpers: now_ns(), timestamp_floor / timestamp_ceil's
// kernels over TIMESTAMP_NS (time-parts.ts registers them), nanos(ts) (the nanoseconds within the microsecond:
// 0 for TIMESTAMP and DATE, the last three digits of a TIMESTAMP_NS), to_timestamp_ns(text,
// pattern) (to_timestamp's patterns, N digits kept) and to_pg_date(text) (`y-MM-dd`).
import { INT_NULL } from '../core/column-type.js';
import type { ColumnVector } from '../core/column-vector.js';
import { dateFormat } from '../core/date-format.js';
import {
  isNullPair,
  microsToNanosPair,
  nanosToMicros,
  nanosVector,
  pairsOf,
  setNullPair,
  subMicroNanos,
} from '../core/nanos.js';
import type { SqlType } from '../core/sql-type.js';
import { uniformText } from '../core/utf8.js';
import { asDoubles, fromDoubles, textAt } from '../core/vec.js';
import type { FunctionRegistry, Kernel } from './registry.js';
import { accept, defineScalar } from './signature.js';
import { SvcError } from '../errors/svc-error.js';
import { addMonths, floorTo, parseFloorUnit, type FloorUnit } from '../core/datetime.js';
import { int64Pair } from '../core/number-format.js';

const nanosKernel: Kernel = (args, n) => {
  const v = args[0]!;
  const out = new Int32Array(n);
  if (v.kind === 'fixed' && v.type === 'TIMESTAMP_NS') {
    const p = pairsOf(v);
    for (let i = 0; i < n; i++) {
      const lo = p[2 * i]!,
        hi = p[2 * i + 1]!;
      out[i] = lo === 0 && hi === INT_NULL ? INT_NULL : subMicroNanos(lo, hi);
    }
  } else {
    // Micros (and millis) have no nanoseconds: 0, NULL for NULL.
    const d = asDoubles(v);
    for (let i = 0; i < n; i++) out[i] = d[i] !== d[i] ? INT_NULL : 0;
  }
  return { kind: 'fixed', type: 'INT', data: out };
};

/** Row i's pattern: the constant one, or the row's own. */
function patternAt(v: ColumnVector, constant: string | null | undefined, i: number): string | null {
  return constant === undefined ? textAt(v, i) : constant;
}

const toTimestampNsKernel: Kernel = (args, n) => {
  const pairs = new Int32Array(2 * n);
  const constant = uniformText(args[1]!, n);
  for (let i = 0; i < n; i++) {
    const s = textAt(args[0]!, i);
    const p = patternAt(args[1]!, constant, i);
    const r = s === null || p === null ? null : dateFormat(p).parseNanos(s);
    if (r === null) setNullPair(pairs, i);
    else microsToNanosPair(r[0], r[1], pairs, i);
  }
  return nanosVector(pairs);
};

/** QuestDB's PostgreSQL date pattern (PG wire's date text). */
const PG_DATE = 'y-MM-dd';

const toPgDateKernel: Kernel = (args, n) => {
  const out = new Float64Array(n);
  const f = dateFormat(PG_DATE);
  for (let i = 0; i < n; i++) {
    const s = textAt(args[0]!, i);
    const us = s === null ? null : f.parse(s);
    out[i] = us === null ? NaN : Math.floor(us / 1000);
  }
  return fromDoubles('DATE', out);
};

/** nanos' argument: TIMESTAMP_NS as itself, anything else a timestamp takes as TIMESTAMP (DATE as micros). */
const nanosArg = (t: SqlType): SqlType | null => (t === 'TIMESTAMP_NS' ? t : accept.timestamp(t));

/** A TIMESTAMP_NS floor/ceil unit: a fixed step in nanos from an origin, or whole months. */
type NanosUnit =
  | { readonly kind: 'nanos'; readonly step: bigint; readonly origin: bigint }
  | { readonly kind: 'months'; readonly unit: FloorUnit };

/** timestamp_floor's units at nanosecond resolution ('n' counts nanoseconds here), or null. */
export function parseNanosUnit(text: string): NanosUnit | null {
  const n = /^(\d*)n$/.exec(text);
  if (n) {
    const k = n[1] === '' ? 1 : Number(n[1]);
    return Number.isSafeInteger(k) && k > 0 ? { kind: 'nanos', step: BigInt(k), origin: 0n } : null;
  }
  const u = parseFloorUnit(text);
  if (u === null) return null;
  if (u.kind === 'months') return { kind: 'months', unit: u };
  return { kind: 'nanos', step: BigInt(u.micros) * 1000n, origin: BigInt(u.origin) * 1000n };
}

const TWO32N = 4294967296n;

function pairNanos(p: Int32Array, i: number): bigint {
  return BigInt(p[2 * i + 1]!) * TWO32N + BigInt(p[2 * i]! >>> 0);
}

/**
 * timestamp_floor(unit, ts_ns[, offset]) and timestamp_ceil(unit, ts_ns) over TIMESTAMP_NS: the
 * result keeps nanoseconds ('n' floors to whole nanoseconds, 'U' to micros, ...); months and
 * years round the micros as for TIMESTAMP. The offset (a TIMESTAMP) moves the origin of the steps.
 */
export function nanosRoundKernel(ceil: boolean): Kernel {
  return (args, n) => {
    const p = pairsOf(args[1]!);
    const origin = args.length > 2 ? asDoubles(args[2]!) : null;
    const out = new Int32Array(2 * n);
    const constant = uniformText(args[0]!, n);
    const parse = (s: string | null): NanosUnit => {
      const u = s === null ? null : parseNanosUnit(s);
      if (u === null) throw new SvcError('SQL', `invalid unit '${s}'`);
      return u;
    };
    const fixed = constant === undefined || n === 0 ? null : parse(constant);
    for (let i = 0; i < n; i++) {
      if (isNullPair(p, i)) {
        setNullPair(out, i);
        continue;
      }
      const u = fixed ?? parse(textAt(args[0]!, i));
      const o = origin === null ? NaN : origin[i]!;
      const ns = pairNanos(p, i);
      let r: bigint;
      if (u.kind === 'nanos') {
        const base = o === o ? BigInt(o) * 1000n : u.origin;
        let m = (ns - base) % u.step;
        if (m < 0n) m += u.step;
        r = ns - m;
        if (ceil && r !== ns) r += u.step;
      } else {
        const us = nanosToMicros(p[2 * i]!, p[2 * i + 1]!);
        const fl = floorTo(us, u.unit, o === o ? o : null);
        r = BigInt(fl) * 1000n;
        if (ceil && r !== ns) r = BigInt(addMonths(fl, u.unit.kind === 'months' ? u.unit.months : 0)) * 1000n;
      }
      int64Pair(r, out, i);
    }
    return nanosVector(out);
  };
}

export function registerTimeNs(registry: FunctionRegistry): void {
  // now_ns(): the statement's time, as now(), at nanosecond resolution (svcdb's clock reads micros).
  defineScalar(registry, 'now_ns', [
    {
      args: [],
      build: () => ({
        type: 'TIMESTAMP_NS',
        deterministic: false,
        kernel: (_args, n, kx) => {
          const out = new Int32Array(2 * n);
          for (let i = 0; i < n; i++) microsToNanosPair(kx.statementMicros, 0, out, i);
          return nanosVector(out);
        },
      }),
    },
  ]);
  defineScalar(registry, 'nanos', [{ args: [nanosArg], build: () => ({ type: 'INT', kernel: nanosKernel }) }]);
  defineScalar(registry, 'to_timestamp_ns', [
    { args: [accept.text, accept.text], build: () => ({ type: 'TIMESTAMP_NS', kernel: toTimestampNsKernel }) },
  ]);
  defineScalar(registry, 'to_pg_date', [
    { args: [accept.text], build: () => ({ type: 'DATE', kernel: toPgDateKernel }) },
  ]);
}
