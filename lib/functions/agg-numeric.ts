// Counting and numeric aggregates over group ids: count(), count(x),
// count_distinct, sum, avg, ksum (Kahan), nsum (Neumaier), Welford variance
// and standard deviation, and over pairs covariance, correlation and the least
// squares line (covar_pop, covar_samp, corr, regr_slope, regr_intercept), and
// bit_and, bit_or, bit_xor of integers, and geomean.
// NULLs are skipped; empty groups give NULL (count 0).
import { INT_NULL, LONG_NULL } from '../core/column-type.js';
import { f64ToInt64, int64ToF64, type ColumnVector, type FixedVector } from '../core/column-vector.js';
import type { AggregateOverload, AggregateState, FunctionRegistry } from './registry.js';
import { isIntegral, isNumeric, type SqlType } from '../core/sql-type.js';
import { asDoubles, fromDoubles, nullFlags } from '../core/vec.js';
import { CountDistinctState, DistinctState, growF64, growI32, growU8 } from './agg-util.js';
import { sum4, type PageSummaryKind } from './page-summary.js';

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
  readonly pageSummary: PageSummaryKind;

  constructor(private readonly ofColumn: boolean) {
    super(1);
    this.pageSummary = ofColumn ? 'count' : 'rows';
  }

  takeSummary(s: number, _n = 0, group = 0): boolean {
    this.ensure(group + 1);
    this.arrays[0]![group]! += s;
    return true;
  }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.ensure(groups);
    const c = this.arrays[0]!;
    if (!this.ofColumn) {
      if (groups === 1) {
        c[0]! += n;
        return;
      }
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

type SumKind = 'plain' | 'kahan' | 'neumaier';

/** Past this a double no longer holds every integer: an integral sum goes on in BigInt. */
const EXACT_LIMIT = 2 ** 53;
const MIN64 = -(2n ** 63n);

/** Row i of an integral vector as a BigInt (its exact int64 pair when it has one); null for NULL. */
function exactAt(v: ColumnVector, x: Float64Array, i: number): bigint | null {
  const ex = v.kind === 'fixed' ? v.exact : undefined;
  if (ex !== undefined) {
    const r = BigInt.asIntN(64, (BigInt(ex[2 * i + 1]!) << 32n) | BigInt(ex[2 * i]! >>> 0));
    return r === MIN64 ? null : r;
  }
  const d = x[i]!;
  return d !== d ? null : BigInt(d);
}

/**
 * sum / ksum / nsum / avg: arrays are sum, count, compensation. sum() of
 * integers is an exact int64 that wraps on overflow like QuestDB's (Java long):
 * doubles while every partial sum stays below 2^53, then BigInt for the group.
 */
class SumState extends GroupArrays {
  /** Groups whose integral sum left the doubles' exact range (only with `exactInt`). */
  private big: Map<number, bigint> | null = null;
  private readonly exactInt: boolean;

  constructor(
    private readonly kind: SumKind,
    private readonly type: SqlType,
    private readonly average: boolean,
  ) {
    super(3);
    this.exactInt = type === 'LONG' && kind === 'plain' && !average;
    if (kind === 'plain') this.pageSummary = 'sum';
  }

  readonly pageSummary?: PageSummaryKind;

  /** A page's sum (four-way for one group, as update() takes it), its `n` rows counted; false for a NULL in the page or past exact integers. */
  takeSummary(s: number, n: number, group = 0): boolean {
    this.ensure(group + 1);
    const [sum, cnt] = this.arrays as [Float64Array, Float64Array];
    if (this.exactInt && !this.exactSum(s, sum[group]!)) return false;
    if (s !== s) return false;
    sum[group]! += s;
    cnt[group]! += n;
    return true;
  }

  /** Whether an integral batch sum `s` goes on in doubles after `total`: both stay below 2^53 and no group is in BigInt. */
  private exactSum(s: number, total: number): boolean {
    return (
      this.big === null && s + total < EXACT_LIMIT && s + total > -EXACT_LIMIT && s < EXACT_LIMIT && s > -EXACT_LIMIT
    );
  }

  /**
   * The batch's rows added one by one, a group going on in BigInt once its sum
   * needs it (its double sum is then NaN, so the fast test fails for it alone).
   */
  private updateExact(ids: Int32Array, v: ColumnVector, x: Float64Array, n: number, single: boolean): void {
    const [sum, cnt] = this.arrays as [Float64Array, Float64Array];
    for (let i = 0; i < n; i++) {
      const d = x[i]!;
      if (d !== d) continue;
      const g = single ? 0 : ids[i]!;
      cnt[g]!++;
      const t = sum[g]! + d;
      if (t < EXACT_LIMIT && t > -EXACT_LIMIT && d < EXACT_LIMIT && d > -EXACT_LIMIT) {
        sum[g] = t;
        continue;
      }
      const big = (this.big ??= new Map());
      const b = big.get(g);
      big.set(g, (b === undefined ? BigInt(sum[g]!) : b) + exactAt(v, x, i)!);
      sum[g] = NaN;
    }
  }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.ensure(groups);
    const [sum, cnt, comp] = this.arrays as [Float64Array, Float64Array, Float64Array];
    const x = asDoubles(args[0]!);
    if (groups === 1 && this.kind === 'plain') {
      // No GROUP BY keys: four running sums in locals (independent adds pipeline), no NULL test per
      // row. A NaN result means the batch has a NULL (or infinities of both signs): then the exact loop.
      const s = sum4(x, n);
      if (this.exactInt && !this.exactSum(s, sum[0]!)) {
        this.updateExact(ids, args[0]!, x, n, true);
        return;
      }
      if (s === s) {
        sum[0]! += s;
        cnt[0]! += n;
        return;
      }
      let t = 0,
        c = 0;
      for (let i = 0; i < n; i++) {
        const v = x[i]!;
        if (v === v) {
          t += v;
          c++;
        }
      }
      sum[0]! += t;
      cnt[0]! += c;
      return;
    }
    if (this.exactInt) {
      this.updateExact(ids, args[0]!, x, n, groups === 1);
      return;
    }
    if (this.kind === 'plain') {
      // The common case on its own: no kind test per row.
      for (let i = 0; i < n; i++) {
        const v = x[i]!;
        if (v !== v) continue;
        const g = ids[i]!;
        cnt[g]!++;
        sum[g]! += v;
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      if (v !== v) continue;
      const g = ids[i]!;
      cnt[g]!++;
      const s = sum[g]!;
      if (this.kind === 'kahan') {
        const y = v - comp[g]!;
        const t = s + y;
        comp[g] = t - s - y;
        sum[g] = t;
      } else {
        const t = s + v;
        comp[g]! += Math.abs(s) >= Math.abs(v) ? s - t + v : v - t + s;
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
    if (this.big === null || this.big.size === 0) return fromDoubles(this.type, out);
    return exactLongs(out, this.big);
  }
}

/** LONG sums (NaN = NULL) with the groups in `big` wrapped to int64 (-2^63 reads as NULL): doubles plus exact pairs. */
function exactLongs(out: Float64Array, big: Map<number, bigint>): FixedVector {
  const n = out.length;
  const data = new Float64Array(n);
  const exact = new Int32Array(2 * n);
  for (let g = 0; g < n; g++) {
    const b = big.get(g);
    const r = b !== undefined ? BigInt.asIntN(64, b) : out[g]! !== out[g]! ? MIN64 : BigInt(out[g]!);
    exact[2 * g] = Number(r & 0xffffffffn) | 0;
    exact[2 * g + 1] = Number(BigInt.asIntN(32, r >> 32n));
    const d = Number(r);
    // A value that rounds to the NULL sentinel's double keeps the nearest double above it.
    data[g] = r === MIN64 ? LONG_NULL : d === LONG_NULL ? -9223372036854774784 : d;
  }
  return { kind: 'fixed', type: 'LONG', data, exact };
}

type Moment = 'var_samp' | 'var_pop' | 'stddev_samp' | 'stddev_pop';

/** Welford's online mean and sum of squared deviations per group: arrays are count, mean, m2. */
class VarianceState extends GroupArrays {
  constructor(private readonly moment: Moment) {
    super(3);
  }

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
      if (c < (samp ? 2 : 1)) {
        out[g] = NaN;
        continue;
      }
      const v = m2[g]! / (samp ? c - 1 : c);
      out[g] = root ? Math.sqrt(v) : v;
    }
    return fromDoubles('DOUBLE', out);
  }
}

type Bivariate = 'covar_pop' | 'covar_samp' | 'corr' | 'regr_slope' | 'regr_intercept';
/** A bivariate state's arrays: count, meanY, meanX, Syy, Sxx, Sxy per group. */
type Moments = [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];

/**
 * Over pairs (y, x) where both are finite (QuestDB skips a pair with a NULL or an infinity), per
 * group: the count, both means and the sums of squared and crossed deviations (Syy, Sxx, Sxy),
 * updated by Welford's method. covar_pop is Sxy/n, covar_samp Sxy/(n-1) from 2 pairs, corr
 * Sxy/sqrt(Sxx*Syy), regr_slope(y, x) Sxy/Sxx and regr_intercept meanY - slope*meanX; NULL where
 * there are too few pairs or the divisor is 0.
 */
class BivariateState extends GroupArrays {
  constructor(private readonly kind: Bivariate) {
    super(6);
  }

  /** The per-group arrays grown to `groups`: count, meanY, meanX, Syy, Sxx, Sxy. */
  private moments(groups: number): Moments {
    this.ensure(groups);
    return this.arrays as Moments;
  }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    const [cnt, my, mx, syy, sxx, sxy] = this.moments(groups);
    const y = asDoubles(args[0]!),
      x = asDoubles(args[1]!);
    for (let i = 0; i < n; i++) {
      const a = y[i]!,
        b = x[i]!;
      if (!Number.isFinite(a) || !Number.isFinite(b)) continue;
      const g = ids[i]!;
      const c = ++cnt[g]!;
      const dy = a - my[g]!,
        dx = b - mx[g]!;
      my[g]! += dy / c;
      mx[g]! += dx / c;
      syy[g]! += dy * (a - my[g]!);
      sxx[g]! += dx * (b - mx[g]!);
      sxy[g]! += dy * (b - mx[g]!);
    }
  }

  result(groups: number): ColumnVector {
    const [cnt, my, mx, syy, sxx, sxy] = this.moments(groups);
    const out = new Float64Array(groups);
    for (let g = 0; g < groups; g++) {
      const c = cnt[g]!;
      let v = NaN;
      if (c > 0)
        switch (this.kind) {
          case 'covar_pop':
            v = sxy[g]! / c;
            break;
          case 'covar_samp':
            if (c > 1) v = sxy[g]! / (c - 1);
            break;
          case 'corr': {
            const d = Math.sqrt(sxx[g]! * syy[g]!);
            if (d !== 0) v = sxy[g]! / d;
            break;
          }
          case 'regr_slope':
            if (sxx[g] !== 0) v = sxy[g]! / sxx[g]!;
            break;
          case 'regr_intercept':
            if (sxx[g] !== 0) v = my[g]! - (sxy[g]! / sxx[g]!) * mx[g]!;
            break;
        }
      out[g] = v;
    }
    return fromDoubles('DOUBLE', out);
  }
}

/**
 * geomean: exp of the mean of ln(x) over a group's non-NULL values, the logs summed in row order;
 * NULL when the group has none, or when one is zero or negative (QuestDB's rule).
 */
class GeomeanState extends GroupArrays {
  constructor() {
    super(2);
  }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.ensure(groups);
    const [sumLn, cnt] = this.arrays as [Float64Array, Float64Array];
    const x = asDoubles(args[0]!);
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      if (v !== v) continue;
      const g = ids[i]!;
      sumLn[g]! += v > 0 ? Math.log(v) : NaN;
      cnt[g]!++;
    }
  }

  result(groups: number): ColumnVector {
    this.ensure(groups);
    const [sumLn, cnt] = this.arrays as [Float64Array, Float64Array];
    const out = new Float64Array(groups);
    for (let g = 0; g < groups; g++) out[g] = cnt[g] === 0 ? NaN : Math.exp(sumLn[g]! / cnt[g]!);
    return fromDoubles('DOUBLE', out);
  }
}

type BitOp = 'bit_and' | 'bit_or' | 'bit_xor';

/**
 * bit_and / bit_or / bit_xor of a group's non-NULL integers, in the argument's type; NULL when the
 * group has none. LONG is combined exactly, as the two 32-bit halves of each value.
 */
class BitState implements AggregateState {
  private lo = new Int32Array(0);
  private hi = new Int32Array(0);
  private has = new Uint8Array(0);

  constructor(
    private readonly op: BitOp,
    private readonly type: SqlType,
  ) {}

  private ensure(groups: number): void {
    this.lo = growI32(this.lo, groups);
    this.hi = growI32(this.hi, groups);
    this.has = growU8(this.has, groups);
  }

  private take(g: number, lo: number, hi: number): void {
    if (!this.has[g]) {
      this.has[g] = 1;
      this.lo[g] = lo;
      this.hi[g] = hi;
      return;
    }
    switch (this.op) {
      case 'bit_and':
        this.lo[g]! &= lo;
        this.hi[g]! &= hi;
        break;
      case 'bit_or':
        this.lo[g]! |= lo;
        this.hi[g]! |= hi;
        break;
      case 'bit_xor':
        this.lo[g]! ^= lo;
        this.hi[g]! ^= hi;
        break;
    }
  }

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.ensure(groups);
    const v = args[0]! as FixedVector;
    if (this.type === 'LONG') {
      const pairs = v.exact ?? f64ToInt64(asDoubles(v));
      for (let i = 0; i < n; i++) {
        const lo = pairs[2 * i]!,
          hi = pairs[2 * i + 1]!;
        if (hi === INT_NULL && lo === 0) continue; // LONG's NULL, -2^63
        this.take(ids[i]!, lo, hi);
      }
      return;
    }
    const x = asDoubles(v);
    for (let i = 0; i < n; i++) {
      const value = x[i]!;
      if (value === value) this.take(ids[i]!, value | 0, 0);
    }
  }

  result(groups: number): ColumnVector {
    this.ensure(groups);
    if (this.type === 'LONG') {
      const pairs = new Int32Array(groups * 2);
      for (let g = 0; g < groups; g++) {
        pairs[2 * g] = this.has[g] ? this.lo[g]! : 0;
        pairs[2 * g + 1] = this.has[g] ? this.hi[g]! : INT_NULL;
      }
      return { kind: 'fixed', type: 'LONG', data: int64ToF64(pairs), exact: pairs };
    }
    const out = new Float64Array(groups);
    for (let g = 0; g < groups; g++) out[g] = this.has[g] ? this.lo[g]! : NaN;
    return fromDoubles(this.type, out);
  }

  bytes(): number {
    return this.lo.byteLength + this.hi.byteLength + this.has.byteLength;
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

export function registerNumericAggregates(registry: FunctionRegistry): void {
  registry.registerAggregate({
    name: 'count',
    resolve(argTypes, distinct) {
      if (argTypes.length === 0) return overload('LONG', () => new CountState(false));
      if (argTypes.length !== 1 || argTypes[0] === 'BINARY') return noMatch('count', argTypes);
      return distinct ? overload('LONG', () => new CountDistinctState()) : overload('LONG', () => new CountState(true));
    },
  });
  registry.registerAggregate({
    name: 'count_distinct',
    resolve(argTypes) {
      if (argTypes.length !== 1 || argTypes[0] === 'BINARY' || argTypes[0] === 'NULL')
        return noMatch('count_distinct', argTypes);
      return overload('LONG', () => new CountDistinctState());
    },
  });
  const sums: Array<[string, SumKind, boolean]> = [
    ['sum', 'plain', false],
    ['avg', 'plain', true],
    ['ksum', 'kahan', false],
    ['nsum', 'neumaier', false],
  ];
  for (const [name, kind, average] of sums) {
    registry.registerAggregate({
      name,
      resolve(argTypes, distinct) {
        const t = argTypes[0];
        if (argTypes.length !== 1 || !numericArg(t!)) return noMatch(name, argTypes);
        // sum of integers is a LONG (no overflow check, as in QuestDB); everything else a DOUBLE.
        const type: SqlType = name === 'sum' && isIntegral(t!) ? 'LONG' : 'DOUBLE';
        return maybeDistinct(
          overload(type, () => new SumState(kind, type, average)),
          distinct,
        );
      },
    });
  }
  const moments: Array<[string, Moment]> = [
    ['stddev_samp', 'stddev_samp'],
    ['stddev', 'stddev_samp'],
    ['stddev_pop', 'stddev_pop'],
    ['var_samp', 'var_samp'],
    ['variance', 'var_samp'],
    ['var_pop', 'var_pop'],
  ];
  registry.registerAggregate({
    name: 'geomean',
    resolve(argTypes, distinct) {
      if (argTypes.length !== 1 || !numericArg(argTypes[0]!) || distinct) return noMatch('geomean', argTypes);
      return overload('DOUBLE', () => new GeomeanState());
    },
  });
  for (const name of ['bit_and', 'bit_or', 'bit_xor'] as const)
    registry.registerAggregate({
      name,
      resolve(argTypes, distinct) {
        const t = argTypes[0]!;
        if (argTypes.length !== 1 || distinct || !['BYTE', 'SHORT', 'INT', 'LONG'].includes(t))
          return noMatch(name, argTypes);
        return overload(t, () => new BitState(name, t));
      },
    });
  for (const name of ['covar_pop', 'covar_samp', 'corr', 'regr_slope', 'regr_intercept'] as const)
    registry.registerAggregate({
      name,
      resolve(argTypes, distinct) {
        if (argTypes.length !== 2 || !argTypes.every(numericArg) || distinct) return noMatch(name, argTypes);
        return overload('DOUBLE', () => new BivariateState(name));
      },
    });
  for (const [name, moment] of moments) {
    registry.registerAggregate({
      name,
      resolve(argTypes, distinct) {
        if (argTypes.length !== 1 || !numericArg(argTypes[0]!)) return noMatch(name, argTypes);
        return maybeDistinct(
          overload('DOUBLE', () => new VarianceState(moment)),
          distinct,
        );
      },
    });
  }
}
