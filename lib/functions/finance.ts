// Market data functions (QuestDB's Finance page): mid, spread, spread_bps, wmid over numbers, and
// l2price, the average price of a market order of a given size walked through order book levels,
// given as size/price pairs or as two DOUBLE[] arrays. DOUBLE results; a NULL (NaN) argument, or
// a book too thin to fill the order, gives NULL.
import { SvcError } from '../errors/svc-error.js';
import { ArrayReader, isArrayType } from '../core/array-values.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { SqlType } from '../core/sql-type.js';
import { asDoubles, fromDoubles } from '../core/vec.js';
import type { FunctionRegistry } from './registry.js';
import { accept, defineScalar, type Signature } from './signature.js';

/** DOUBLE arguments -> DOUBLE, row by row. */
function doubles(arity: number, fn: (x: readonly number[]) => number): Signature {
  return {
    args: Array.from({ length: arity }, () => accept.double),
    build: () => ({
      type: 'DOUBLE',
      kernel: (args, n) => {
        const cols = args.map((a) => asDoubles(a));
        const out = new Float64Array(n);
        const row = new Array<number>(arity);
        for (let i = 0; i < n; i++) {
          for (let k = 0; k < arity; k++) row[k] = cols[k]![i]!;
          out[i] = fn(row);
        }
        return fromDoubles('DOUBLE', out);
      },
    }),
  };
}

/**
 * The average price of `target` filled level by level (QuestDB's rule): the levels' sizes are
 * summed until they reach the target; the first level alone gives its price, otherwise the
 * earlier levels' size * price plus what is left of the target at the last level's price, over
 * the target. NaN when the levels never reach the target (a NaN size or price stops them).
 */
export function l2price(
  target: number,
  levels: number,
  size: (k: number) => number,
  price: (k: number) => number,
): number {
  let filled = 0;
  let paid = 0;
  let left = target;
  for (let k = 0; k < levels; k++) {
    const s = size(k);
    const p = price(k);
    filled += s;
    if (filled >= target) return k === 0 ? p : (paid + left * p) / target;
    paid += s * p;
    left -= s;
  }
  return NaN;
}

const isDoubleArray = (t: SqlType): SqlType | null => (isArrayType(t) ? t : null);

export function registerFinance(registry: FunctionRegistry): void {
  defineScalar(registry, 'mid', [doubles(2, ([bid, ask]) => (bid! + ask!) / 2)]);
  defineScalar(registry, 'spread', [doubles(2, ([bid, ask]) => ask! - bid!)]);
  defineScalar(registry, 'spread_bps', [doubles(2, ([bid, ask]) => ((ask! - bid!) / ((bid! + ask!) / 2)) * 10_000)]);
  defineScalar(registry, 'wmid', [
    doubles(4, ([bidSize, bidPrice, askPrice, askSize]) => {
      const imbalance = bidSize! / (bidSize! + askSize!);
      return askPrice! * imbalance + bidPrice! * (1 - imbalance);
    }),
  ]);
  defineScalar(registry, 'l2price', [
    {
      // l2price(target, sizes DOUBLE[], prices DOUBLE[])
      args: [accept.double, isDoubleArray, isDoubleArray],
      build: () => ({
        type: 'DOUBLE',
        kernel: (args: readonly ColumnVector[], n: number) => {
          const target = asDoubles(args[0]!);
          const sizes = new ArrayReader(args[1]!);
          const prices = new ArrayReader(args[2]!);
          const out = new Float64Array(n);
          for (let i = 0; i < n; i++) {
            if (sizes.isNull(i) || prices.isNull(i)) {
              out[i] = NaN;
              continue;
            }
            sizes.open(i);
            prices.open(i);
            if (sizes.count !== prices.count)
              throw new SvcError(
                'SQL',
                `l2price: size and price arrays differ in length [sizes=${sizes.count}, prices=${prices.count}]`,
              );
            out[i] = l2price(
              target[i]!,
              sizes.count,
              (k) => sizes.element(k),
              (k) => prices.element(k),
            );
          }
          return fromDoubles('DOUBLE', out);
        },
      }),
    },
    {
      // l2price(target, size1, price1, size2, price2, ...): pairs after the target
      args: [accept.double, accept.double, accept.double],
      rest: accept.double,
      build: (t) => {
        if ((t.length - 1) % 2 !== 0) return 'l2price takes the target size, then size and price pairs';
        return {
          type: 'DOUBLE',
          kernel: (args: readonly ColumnVector[], n: number) => {
            const cols = args.map((a) => asDoubles(a));
            const levels = (cols.length - 1) / 2;
            const out = new Float64Array(n);
            for (let i = 0; i < n; i++) {
              out[i] = l2price(
                cols[0]![i]!,
                levels,
                (k) => cols[1 + 2 * k]![i]!,
                (k) => cols[2 + 2 * k]![i]!,
              );
            }
            return fromDoubles('DOUBLE', out);
          },
        };
      },
    },
  ]);
}
