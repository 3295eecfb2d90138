// Aggregates that read their rows in scan order: twap(price, ts), the time-weighted mean price of a
// step function (each price holds until the next observation), and isOrdered(x), whether a LONG
// never decreases. Neither takes page summaries, so the executors always feed them rows in order
// (exec/aggregate.ts); the binder checks that twap's timestamp is the designated one (binder.ts).
import { SvcError } from '../errors/svc-error.js';
import { f64ToInt64, type ColumnVector } from '../core/column-vector.js';
import { isIntegral, isNumeric, type SqlType } from '../core/sql-type.js';
import { asDoubles, fromDoubles } from '../core/vec.js';
import { comparePairs } from '../core/nanos.js';
import { growF64, growI32, growU8 } from './agg-util.js';
import type { AggregateOverload, AggregateState, FunctionRegistry } from './registry.js';
import { accept, noMatch } from './signature.js';

/** QuestDB's message when twap's rows do not come in ascending designated-timestamp order. */
export const TWAP_ORDER_MESSAGE = 'twap() requires the base query to provide ascending designated timestamp order';
/** QuestDB's message when twap's second argument is not the designated timestamp (at the call). */
export const TWAP_TIMESTAMP_MESSAGE = "twap() requires the table's designated timestamp as the second argument";

/**
 * twap per group, one pass: the first and the last observation's time, the last price, the sum of
 * price x (time to the next observation) so far, and the count and sum of prices (the mean when
 * every observation has one timestamp). A row with a NULL / NaN price or a NULL time is skipped.
 * Times are TIMESTAMP micros (svcdb's only designated timestamp type).
 */
class TwapState implements AggregateState {
  #count = new Float64Array(0);
  #first = new Float64Array(0);
  #last = new Float64Array(0);
  #lastPrice = new Float64Array(0);
  #weighted = new Float64Array(0);
  #sum = new Float64Array(0);

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.#count = growF64(this.#count, groups);
    this.#first = growF64(this.#first, groups);
    this.#last = growF64(this.#last, groups);
    this.#lastPrice = growF64(this.#lastPrice, groups);
    this.#weighted = growF64(this.#weighted, groups);
    this.#sum = growF64(this.#sum, groups);
    const price = asDoubles(args[0]!);
    const times = asDoubles(args[1]!);
    const count = this.#count,
      first = this.#first,
      last = this.#last,
      lastPrice = this.#lastPrice,
      weighted = this.#weighted,
      sum = this.#sum;
    for (let i = 0; i < n; i++) {
      const p = price[i]!,
        t = times[i]!;
      if (p !== p || t !== t) continue;
      const g = ids[i]!;
      if (count[g] === 0) first[g] = t;
      else {
        // The step before this row: the previous price held from its time to this one's.
        const dt = t - last[g]!;
        if (dt < 0) throw new SvcError('SQL', TWAP_ORDER_MESSAGE);
        weighted[g]! += lastPrice[g]! * dt;
      }
      last[g] = t;
      lastPrice[g] = p;
      count[g]! += 1;
      sum[g]! += p;
    }
  }

  result(groups: number): ColumnVector {
    const out = new Float64Array(groups);
    for (let g = 0; g < groups; g++) {
      const c = g < this.#count.length ? this.#count[g]! : 0;
      const total = c === 0 ? 0 : this.#last[g]! - this.#first[g]!;
      // No rows: NULL. One observation, or all at one instant: no duration to weigh by, the plain mean.
      out[g] = c === 0 ? NaN : total === 0 ? this.#sum[g]! / c : this.#weighted[g]! / total;
    }
    return fromDoubles('DOUBLE', out);
  }

  bytes(): number {
    return this.#count.byteLength * 6;
  }
}

/**
 * isOrdered per group: still ordered (1), broken (0), and the last value as an int64 pair (exact
 * past 2^53). NULL is LONG's minimum, as in QuestDB: after a value it breaks the order. A group
 * without rows (keyless over nothing) is false, QuestDB's empty value.
 */
class IsOrderedState implements AggregateState {
  #seen = new Uint8Array(0);
  #ordered = new Uint8Array(0);
  #last = new Int32Array(0);

  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void {
    this.#seen = growU8(this.#seen, groups);
    this.#ordered = growU8(this.#ordered, groups);
    this.#last = growI32(this.#last, 2 * groups);
    const v = args[0]!;
    // int64 pairs of any integral vector (NULL: LONG's minimum, the least pair).
    const pairs = v.kind === 'fixed' && v.exact !== undefined ? v.exact : f64ToInt64(asDoubles(v));
    const seen = this.#seen,
      ordered = this.#ordered,
      last = this.#last;
    for (let i = 0; i < n; i++) {
      const g = ids[i]!;
      if (seen[g] === 0) {
        seen[g] = 1;
        ordered[g] = 1;
      } else if (ordered[g] === 0) {
        continue;
      } else if (comparePairs(pairs, i, last, g) < 0) {
        ordered[g] = 0;
        continue;
      }
      last[2 * g] = pairs[2 * i]!;
      last[2 * g + 1] = pairs[2 * i + 1]!;
    }
  }

  result(groups: number): ColumnVector {
    const out = new Uint8Array(groups);
    for (let g = 0; g < groups && g < this.#ordered.length; g++) out[g] = this.#ordered[g]!;
    return { kind: 'fixed', type: 'BOOLEAN', data: out };
  }

  bytes(): number {
    return this.#seen.byteLength * 10;
  }
}

/** isOrdered's argument: LONG and what widens to it (QuestDB's `isOrdered(L)`), TIMESTAMP and DATE as their int64. */
const ORDERABLE: ReadonlySet<SqlType> = new Set(['LONG', 'TIMESTAMP', 'TIMESTAMP_NS', 'DATE', 'NULL']);

export function registerOrderAggregates(registry: FunctionRegistry): void {
  registry.registerAggregate({
    name: 'twap',
    resolve(argTypes, distinct): AggregateOverload | string {
      const [p, t] = argTypes;
      const priceOk = p !== undefined && (isNumeric(p) || p === 'NULL');
      const timeOk = t !== undefined && (t === 'TIMESTAMP_NS' || accept.timestamp(t) !== null);
      if (distinct || argTypes.length !== 2 || !priceOk || !timeOk) return noMatch('twap', argTypes);
      return { type: 'DOUBLE', create: () => new TwapState() };
    },
  });
  registry.registerAggregate({
    name: 'isordered',
    resolve(argTypes, distinct): AggregateOverload | string {
      const t = argTypes[0];
      if (distinct || argTypes.length !== 1 || t === undefined || !(isIntegral(t) || ORDERABLE.has(t)))
        return noMatch('isOrdered', argTypes);
      return { type: 'BOOLEAN', create: () => new IsOrderedState() };
    },
  });
}
