// INTERVAL functions: interval(lo, hi) (QuestDB's "invalid interval boundaries"
// when lo > hi: at the call for constants, at run time otherwise),
// interval_start / interval_end (TIMESTAMP), rnd_interval(). today(),
// yesterday() and tomorrow() make their day intervals in time.ts.
import { LONG_NULL, type ColumnType } from '../core/column-type.js';
import type { FixedVector } from '../core/column-vector.js';
import { intervalHi, intervalLo, intervalVector } from '../core/interval-values.js';
import type { SqlType } from '../core/sql-type.js';
import { asDoubles, fromDoubles } from '../core/vec.js';
import { SvcError } from '../errors/svc-error.js';
import { argError, type BindHook, type FunctionRegistry, type Kernel } from './registry.js';
import { accept, defineScalar, type Accept } from './signature.js';
import { generator, type RandomSeeds } from './random.js';

const BOUNDARIES = 'invalid interval boundaries';

/**
 * A bound of interval(): what accept.timestamp takes (TIMESTAMP, DATE, ISO
 * text, INT or LONG micros, NULL), and TIMESTAMP_NS read as micros (QuestDB
 * would make a nanosecond interval; svcdb's intervals are in micros).
 */
const bound: Accept = (t) => (t === 'TIMESTAMP_NS' ? 'TIMESTAMP' : accept.timestamp(t));

/** An INTERVAL argument; a NULL literal is the NULL interval. */
const intervalArg: Accept = (t: SqlType) => (t === 'INTERVAL' || t === 'NULL' ? 'INTERVAL' : null);

/** Constant bounds in the wrong order fail when the statement is compiled, at the call, as in QuestDB. */
const checkBounds: BindHook = (args, pos) => {
  const lo = args[0]!.value,
    hi = args[1]!.value;
  if (typeof lo === 'number' && typeof hi === 'number' && lo > hi) throw argError(BOUNDARIES, pos);
};

const intervalKernel: Kernel = (args, n) => {
  const lo = asDoubles(args[0] as FixedVector);
  const hi = asDoubles(args[1] as FixedVector);
  for (let i = 0; i < n; i++) {
    const a = lo[i]!,
      b = hi[i]!;
    // A NULL bound makes the NULL interval; QuestDB reports rows out of order at position 0.
    if (a === a && b === b && a !== LONG_NULL && b !== LONG_NULL && a > b)
      throw new SvcError('SQL', BOUNDARIES, { position: 0 });
  }
  return intervalVector(lo, hi, n);
};

function boundKernel(which: 'lo' | 'hi'): Kernel {
  const read = which === 'lo' ? intervalLo : intervalHi;
  return (args, n) => {
    const b = (args[0] as FixedVector).data as Uint8Array;
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = read(b, i);
    return fromDoubles('TIMESTAMP', out);
  };
}

/** rnd_interval(): lo uniform over [0, 1999999000000000) micros (1970..2033), hi up to about 6.3 years later. */
function rndInterval(seeds: RandomSeeds): Kernel {
  const rng = seeds.newRng();
  return (_args, n) => {
    const lo = new Float64Array(n),
      hi = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      lo[i] = rng.below(1999999000000000);
      hi[i] = lo[i]! + rng.below(199999000000000);
    }
    return intervalVector(lo, hi, n);
  };
}

export function registerInterval(registry: FunctionRegistry, seeds: RandomSeeds): void {
  defineScalar(registry, 'interval', [
    {
      args: [bound, bound],
      build: () => ({ type: 'INTERVAL' as ColumnType, kernel: intervalKernel, bind: checkBounds }),
    },
  ]);
  defineScalar(registry, 'interval_start', [
    { args: [intervalArg], build: () => ({ type: 'TIMESTAMP', kernel: boundKernel('lo') }) },
  ]);
  defineScalar(registry, 'interval_end', [
    { args: [intervalArg], build: () => ({ type: 'TIMESTAMP', kernel: boundKernel('hi') }) },
  ]);
  defineScalar(registry, 'rnd_interval', [{ args: [], build: () => generator('INTERVAL', () => rndInterval(seeds)) }]);
  registerInInterval(registry);
}

/** `ts IN <interval>` row by row (bind-expr.ts pushes a constant interval into the scan instead): lo <= ts <= hi. */
const inIntervalKernel: Kernel = (args, n) => {
  const x = asDoubles(args[0] as FixedVector);
  const b = (args[1] as FixedVector).data as Uint8Array;
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const t = x[i]!;
    const lo = intervalLo(b, i);
    // A NULL interval (both bounds NULL) holds nothing; neither does a NULL timestamp.
    out[i] = t === t && t !== LONG_NULL && lo !== LONG_NULL && lo <= t && t <= intervalHi(b, i) ? 1 : 0;
  }
  return { kind: 'fixed', type: 'BOOLEAN', data: out };
};

/** Registers in_interval(ts, interval), the row-by-row form of `ts IN <interval>` (the binder's, not a SQL name). */
function registerInInterval(registry: FunctionRegistry): void {
  defineScalar(registry, 'in_interval', [
    { args: [bound, intervalArg], build: () => ({ type: 'BOOLEAN', kernel: inIntervalKernel }) },
  ]);
}
