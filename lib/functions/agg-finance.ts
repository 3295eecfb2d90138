// Aggregates common in finance and IoT: vwap(price, volume) and
// weighted_avg(value, weight) (sum(v*w)/sum(w) over rows where both are set),
// and percentiles over a group's values: percentile_disc(x, p) (the smallest
// value whose cumulative share reaches p), percentile_cont(x, p) (linear
// between the two nearest ranks) and approx_percentile(x, p[, digits]),
// computed exactly here (the values are kept; memory-limited like any group).
import { SvcError } from '../errors/svc-error.js';
import type { ColumnVector } from '../core/column-vector.js';
import { isNumeric, type SqlType } from '../core/sql-type.js';
import { growF64 } from './agg-util.js';
import type { AggregateOverload, AggregateState, FunctionRegistry } from './registry.js';
import { asDoubles, fromDoubles } from '../core/vec.js';

class WeightedState implements AggregateState {
  #num = new Float64Array(0);
  #den = new Float64Array(0);

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.#num = growF64(this.#num, groups);
    this.#den = growF64(this.#den, groups);
    const v = asDoubles(args[0]!),
      w = asDoubles(args[1]!);
    const num = this.#num,
      den = this.#den;
    for (let i = 0; i < n; i++) {
      const x = v[i]!,
        y = w[i]!;
      if (x !== x || y !== y) continue;
      const g = ids[i]!;
      num[g]! += x * y;
      den[g]! += y;
    }
  }

  result(groups: number): ColumnVector {
    const out = new Float64Array(groups);
    for (let g = 0; g < groups; g++) {
      const d = g < this.#den.length ? this.#den[g]! : 0;
      out[g] = d === 0 ? NaN : this.#num[g]! / d;
    }
    return fromDoubles('DOUBLE', out);
  }

  bytes(): number {
    return this.#num.byteLength * 2;
  }
}

type PercentileKind = 'disc' | 'cont';

class PercentileState implements AggregateState {
  readonly #values: number[][] = [];
  #p: number | null;
  #count = 0;

  /** `p`: a fixed percentile (approx_median's 0.5) instead of the second argument's. */
  constructor(
    private readonly kind: PercentileKind,
    p: number | null = null,
  ) {
    this.#p = p;
  }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    while (this.#values.length < groups) this.#values.push([]);
    const v = asDoubles(args[0]!);
    if (this.#p === null && n > 0) {
      const p = asDoubles(args[1]!)[0]!;
      if (!(p >= 0 && p <= 1)) throw new SvcError('SQL', `percentile must be between 0 and 1 [p=${p}]`);
      this.#p = p;
    }
    for (let i = 0; i < n; i++) {
      const x = v[i]!;
      if (x === x) {
        this.#values[ids[i]!]!.push(x);
        this.#count++;
      }
    }
  }

  result(groups: number): ColumnVector {
    const out = new Float64Array(groups);
    const p = this.#p ?? 0.5;
    for (let g = 0; g < groups; g++) {
      const xs = (this.#values[g] ?? []).sort((a, b) => a - b);
      const n = xs.length;
      if (n === 0) {
        out[g] = NaN;
        continue;
      }
      if (this.kind === 'disc') {
        out[g] = xs[Math.max(0, Math.ceil(p * n) - 1)]!;
      } else {
        const r = p * (n - 1);
        const lo = Math.floor(r),
          hi = Math.ceil(r);
        out[g] = xs[lo]! + (xs[hi]! - xs[lo]!) * (r - lo);
      }
    }
    return fromDoubles('DOUBLE', out);
  }

  bytes(): number {
    return this.#count * 8 + this.#values.length * 32;
  }
}

const num = (t: SqlType | undefined): boolean => t !== undefined && (isNumeric(t) || t === 'NULL');

function noMatch(name: string, argTypes: readonly SqlType[]): string {
  return `there is no matching function \`${name}\` with the argument types: (${argTypes.join(', ')})`;
}

export function registerFinanceAggregates(registry: FunctionRegistry): void {
  for (const name of ['vwap', 'weighted_avg']) {
    registry.registerAggregate({
      name,
      resolve(argTypes): AggregateOverload | string {
        if (argTypes.length !== 2 || !num(argTypes[0]) || !num(argTypes[1])) return noMatch(name, argTypes);
        return { type: 'DOUBLE', create: () => new WeightedState() };
      },
    });
  }
  const percentiles: Array<[string, PercentileKind]> = [
    ['percentile_disc', 'disc'],
    ['percentile_cont', 'cont'],
    ['approx_percentile', 'disc'],
  ];
  for (const [name, kind] of percentiles) {
    registry.registerAggregate({
      name,
      resolve(argTypes): AggregateOverload | string {
        const okArity = argTypes.length === 2 || (name === 'approx_percentile' && argTypes.length === 3);
        if (!okArity || !num(argTypes[0]) || !num(argTypes[1]) || (argTypes.length === 3 && !num(argTypes[2])))
          return noMatch(name, argTypes);
        return { type: 'DOUBLE', create: () => new PercentileState(kind) };
      },
    });
  }
  // approx_median(x[, digits]): approx_percentile(x, 0.5[, digits]); exact here, as approx_percentile is.
  registry.registerAggregate({
    name: 'approx_median',
    resolve(argTypes): AggregateOverload | string {
      if (
        argTypes.length < 1 ||
        argTypes.length > 2 ||
        !num(argTypes[0]) ||
        (argTypes.length === 2 && !num(argTypes[1]))
      )
        return noMatch('approx_median', argTypes);
      return { type: 'DOUBLE', create: () => new PercentileState('disc', 0.5) };
    },
  });
  for (const [names, kind] of [
    [['weighted_stddev', 'weighted_stddev_rel'], 'rel'],
    [['weighted_stddev_freq'], 'freq'],
  ] as const) {
    for (const name of names) {
      registry.registerAggregate({
        name,
        resolve(argTypes): AggregateOverload | string {
          if (argTypes.length !== 2 || !num(argTypes[0]) || !num(argTypes[1])) return noMatch(name, argTypes);
          return { type: 'DOUBLE', create: () => new WeightedStdDevState(kind) };
        },
      });
    }
  }
}

/**
 * weighted_stddev_rel / _freq: West's weighted incremental mean and sum of squares over the rows
 * whose value and weight are finite and whose weight is not zero (QuestDB's rule). Reliability
 * weights divide by sum(w) - sum(w^2) / sum(w), frequency weights by sum(w) - 1; NULL with fewer
 * than two such rows or a divisor that is not positive (QuestDB: a sum of weights that is not).
 */
class WeightedStdDevState implements AggregateState {
  #w = new Float64Array(0);
  #w2 = new Float64Array(0);
  #mean = new Float64Array(0);
  #s = new Float64Array(0);
  #n = new Float64Array(0);

  constructor(private readonly kind: 'rel' | 'freq') {}

  #grow(groups: number): void {
    this.#w = growF64(this.#w, groups);
    this.#w2 = growF64(this.#w2, groups);
    this.#mean = growF64(this.#mean, groups);
    this.#s = growF64(this.#s, groups);
    this.#n = growF64(this.#n, groups);
  }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.#grow(groups);
    const x = asDoubles(args[0]!);
    const w = asDoubles(args[1]!);
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      const wi = w[i]!;
      if (!Number.isFinite(v) || !Number.isFinite(wi) || wi === 0) continue;
      const g = ids[i]!;
      const sum = this.#w[g]! + wi;
      const old = this.#mean[g]!;
      const mean = old + (wi / sum) * (v - old);
      this.#s[g] = this.#s[g]! + wi * (v - old) * (v - mean);
      this.#mean[g] = mean;
      this.#w[g] = sum;
      this.#w2[g] = this.#w2[g]! + wi * wi;
      this.#n[g] = this.#n[g]! + 1;
    }
  }

  result(groups: number): ColumnVector {
    this.#grow(groups);
    const out = new Float64Array(groups);
    for (let g = 0; g < groups; g++) {
      const sw = this.#w[g]!;
      const divisor = this.kind === 'freq' ? sw - 1 : sw - this.#w2[g]! / sw;
      out[g] = this.#n[g]! < 2 || !(sw > 0) || !(divisor > 0) ? NaN : Math.sqrt(this.#s[g]! / divisor);
    }
    return fromDoubles('DOUBLE', out);
  }

  bytes(): number {
    return this.#w.byteLength * 5;
  }
}
