// Counting and numeric aggregates over group ids: count(), count(x),
// count_distinct, sum, avg, ksum (Kahan), nsum (Neumaier) and Welford variance
// and standard deviation. NULLs are skipped; empty groups give NULL (count 0).
import type { ColumnVector } from '../../storage/column-vector.js';
import { registerAggregate, type AggregateOverload, type AggregateState } from './registry.js';
import { isIntegral, isNumeric, type SqlType } from '../sql-type.js';
import { asDoubles, fromDoubles, nullFlags } from './vec.js';
import { DistinctState, growF64 } from './agg-util.js';

/** Shared shape: per-group Float64Arrays grown together. */
abstract class GroupArrays implements AggregateState {
  protected arrays: Float64Array<ArrayBuffer>[];

  constructor(count: number) {
    this.arrays = Array.from({ length: count }, () => new Float64Array(0));
  }

  protected ensure(groups: number): void {
    for (let k = 0; k < this.arrays.length; k++) this.arrays[k] = growF64(this.arrays[k]!, groups);
  }

  abstract update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void;
  abstract result(groups: number): ColumnVector;

  bytes(): number {
    return this.arrays.reduce((s, a) => s + a.byteLength, 0);
  }
}

class CountState extends GroupArrays {
  constructor(private readonly ofColumn: boolean) { super(1); }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.ensure(groups);
    const c = this.arrays[0]!;
    if (!this.ofColumn) {
      if (groups === 1) { c[0]! += n; return; }
      for (let i = 0; i < n; i++) c[ids[i]!]!++;
      return;
    }
    const f = nullFlags(args[0]!);
    for (let i = 0; i < n; i++) if (!f[i]) c[ids[i]!]!++;
  }

  result(groups: number): ColumnVector {
    this.ensure(groups);
    return fromDoubles('LONG', this.arrays[0]!.slice(0, groups));
  }
}

/** x[0] + ... + x[n-1] in four interleaved partial sums (NaN if any is NaN). */
function sum4(x: ArrayLike<number>, n: number): number {
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  let i = 0;
  for (; i + 3 < n; i += 4) {
    s0 += x[i]!;
    s1 += x[i + 1]!;
    s2 += x[i + 2]!;
    s3 += x[i + 3]!;
  }
  for (; i < n; i++) s0 += x[i]!;
  return (s0 + s1) + (s2 + s3);
}

type SumKind = 'plain' | 'kahan' | 'neumaier';

/** sum / ksum / nsum / avg: arrays are sum, count, compensation. */
class SumState extends GroupArrays {
  constructor(private readonly kind: SumKind, private readonly type: SqlType, private readonly average: boolean) { super(3); }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.ensure(groups);
    const [sum, cnt, comp] = this.arrays as [Float64Array, Float64Array, Float64Array];
    const x = asDoubles(args[0]!);
    if (groups === 1 && this.kind === 'plain') {
      // No GROUP BY keys: four running sums in locals (independent adds pipeline), no NULL test per
      // row. A NaN result means the batch has a NULL (or infinities of both signs): then the exact loop.
      const s = sum4(x, n);
      if (s === s) {
        sum[0]! += s;
        cnt[0]! += n;
        return;
      }
      let t = 0, c = 0;
      for (let i = 0; i < n; i++) { const v = x[i]!; if (v === v) { t += v; c++; } }
      sum[0]! += t;
      cnt[0]! += c;
      return;
    }
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      if (v !== v) continue;
      const g = ids[i]!;
      cnt[g]!++;
      if (this.kind === 'plain') { sum[g]! += v; continue; }
      const s = sum[g]!;
      if (this.kind === 'kahan') {
        const y = v - comp[g]!;
        const t = s + y;
        comp[g] = (t - s) - y;
        sum[g] = t;
      } else {
        const t = s + v;
        comp[g]! += Math.abs(s) >= Math.abs(v) ? (s - t) + v : (v - t) + s;
        sum[g] = t;
      }
    }
  }

  result(groups: number): ColumnVector {
    this.ensure(groups);
    const [sum, cnt, comp] = this.arrays as [Float64Array, Float64Array, Float64Array];
    const out = new Float64Array(groups);
    for (let g = 0; g < groups; g++) {
      const c = cnt[g]!;
      const s = this.kind === 'neumaier' ? sum[g]! + comp[g]! : sum[g]!;
      out[g] = c === 0 ? NaN : this.average ? s / c : s;
    }
    return fromDoubles(this.type, out);
  }
}

type Moment = 'var_samp' | 'var_pop' | 'stddev_samp' | 'stddev_pop';

/** Welford's online mean and sum of squared deviations per group: arrays are count, mean, m2. */
class VarianceState extends GroupArrays {
  constructor(private readonly moment: Moment) { super(3); }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.ensure(groups);
    const [cnt, mean, m2] = this.arrays as [Float64Array, Float64Array, Float64Array];
    const x = asDoubles(args[0]!);
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      if (v !== v) continue;
      const g = ids[i]!;
      const c = ++cnt[g]!;
      const d = v - mean[g]!;
      mean[g]! += d / c;
      m2[g]! += d * (v - mean[g]!);
    }
  }

  result(groups: number): ColumnVector {
    this.ensure(groups);
    const [cnt, , m2] = this.arrays as [Float64Array, Float64Array, Float64Array];
    const out = new Float64Array(groups);
    const samp = this.moment === 'var_samp' || this.moment === 'stddev_samp';
    const root = this.moment === 'stddev_samp' || this.moment === 'stddev_pop';
    for (let g = 0; g < groups; g++) {
      const c = cnt[g]!;
      if (c < (samp ? 2 : 1)) { out[g] = NaN; continue; }
      const v = m2[g]! / (samp ? c - 1 : c);
      out[g] = root ? Math.sqrt(v) : v;
    }
    return fromDoubles('DOUBLE', out);
  }
}

function overload(type: SqlType, create: () => AggregateState): AggregateOverload {
  return { type, create };
}

function noMatch(name: string, argTypes: readonly SqlType[]): string {
  return `there is no matching function \`${name}\` with the argument types: (${argTypes.join(', ')})`;
}

/** Wraps in DISTINCT when asked. */
function maybeDistinct(o: AggregateOverload, distinct: boolean): AggregateOverload {
  return distinct ? { type: o.type, create: () => new DistinctState(o.create()) } : o;
}

const numericArg = (t: SqlType): boolean => isNumeric(t) || t === 'NULL';

export function registerNumericAggregates(): void {
  registerAggregate({
    name: 'count',
    resolve(argTypes, distinct) {
      if (argTypes.length === 0) return overload('LONG', () => new CountState(false));
      if (argTypes.length !== 1 || argTypes[0] === 'BINARY') return noMatch('count', argTypes);
      return maybeDistinct(overload('LONG', () => new CountState(true)), distinct);
    },
  });
  registerAggregate({
    name: 'count_distinct',
    resolve(argTypes) {
      if (argTypes.length !== 1 || argTypes[0] === 'BINARY' || argTypes[0] === 'NULL') return noMatch('count_distinct', argTypes);
      return maybeDistinct(overload('LONG', () => new CountState(true)), true);
    },
  });
  const sums: Array<[string, SumKind, boolean]> = [['sum', 'plain', false], ['avg', 'plain', true], ['ksum', 'kahan', false], ['nsum', 'neumaier', false]];
  for (const [name, kind, average] of sums) {
    registerAggregate({
      name,
      resolve(argTypes, distinct) {
        const t = argTypes[0];
        if (argTypes.length !== 1 || !numericArg(t!)) return noMatch(name, argTypes);
        // sum of integers is a LONG (no overflow check, as in QuestDB); everything else a DOUBLE.
        const type: SqlType = name === 'sum' && isIntegral(t!) ? 'LONG' : 'DOUBLE';
        return maybeDistinct(overload(type, () => new SumState(kind, type, average)), distinct);
      },
    });
  }
  const moments: Array<[string, Moment]> = [
    ['stddev_samp', 'stddev_samp'], ['stddev', 'stddev_samp'], ['stddev_pop', 'stddev_pop'],
    ['var_samp', 'var_samp'], ['variance', 'var_samp'], ['var_pop', 'var_pop'],
  ];
  for (const [name, moment] of moments) {
    registerAggregate({
      name,
      resolve(argTypes, distinct) {
        if (argTypes.length !== 1 || !numericArg(argTypes[0]!)) return noMatch(name, argTypes);
        return maybeDistinct(overload('DOUBLE', () => new VarianceState(moment)), distinct);
      },
    });
  }
}
