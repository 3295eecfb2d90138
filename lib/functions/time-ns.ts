// Nanosecond and PostgreSQL-date helpers: nanos(ts) (the nanoseconds within the microsecond:
// 0 for TIMESTAMP and DATE, the last three digits of a TIMESTAMP_NS), to_timestamp_ns(text,
// pattern) (to_timestamp's patterns, N digits kept) and to_pg_date(text) (`y-MM-dd`).
import { INT_NULL } from '../core/column-type.js';
import type { ColumnVector } from '../core/column-vector.js';
import { dateFormat } from '../core/date-format.js';
import { microsToNanosPair, nanosVector, pairsOf, setNullPair, subMicroNanos } from '../core/nanos.js';
import type { SqlType } from '../core/sql-type.js';
import { uniformText } from '../core/utf8.js';
import { asDoubles, fromDoubles, textAt } from '../core/vec.js';
import type { FunctionRegistry, Kernel } from './registry.js';
import { accept, defineScalar } from './signature.js';

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

export function registerTimeNs(registry: FunctionRegistry): void {
  defineScalar(registry, 'nanos', [{ args: [nanosArg], build: () => ({ type: 'INT', kernel: nanosKernel }) }]);
  defineScalar(registry, 'to_timestamp_ns', [
    { args: [accept.text, accept.text], build: () => ({ type: 'TIMESTAMP_NS', kernel: toTimestampNsKernel }) },
  ]);
  defineScalar(registry, 'to_pg_date', [
    { args: [accept.text], build: () => ({ type: 'DATE', kernel: toPgDateKernel }) },
  ]);
}
