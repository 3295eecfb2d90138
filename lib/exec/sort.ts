// ORDER BY: the input is collected (memory-limited), a permutation sorted on
// the key columns (numbers as doubles, text as strings; NULLs first ascending,
// last descending), and the rows gathered in that order.
import type { Batch } from '../storage/table-reader.js';
import type { ColumnVector } from '../storage/column-vector.js';
import type { Plan } from '../sql/bound.js';
import { asDoubles, texts } from '../sql/functions/vec.js';
import type { ExecContext } from './context.js';
import { collect, gatherBatch, sliceBatches } from './batches.js';

type SortPlan = Extract<Plan, { kind: 'sort' }>;

export async function* runSort(plan: SortPlan, input: AsyncIterable<Batch>, cx: ExecContext): AsyncGenerator<Batch> {
  const all = await collect(input, plan.fields.length, cx, 'ORDER BY');
  const n = all.rowCount;
  if (n === 0) return;
  const keys = plan.keys.map((k) => comparable(all.columns[k.index]!));
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  idx.sort((a, b) => {
    for (let k = 0; k < keys.length; k++) {
      const c = keys[k]!(a, b);
      if (c !== 0) return plan.keys[k]!.desc ? -c : c;
    }
    return a - b; // stable
  });
  const take = plan.limit !== null && plan.limit < n ? idx.subarray(0, plan.limit) : idx;
  yield* sliceBatches(gatherBatch(all, take));
}

/** A comparator of two rows of a column; NULL sorts before every value. */
function comparable(v: ColumnVector): (a: number, b: number) => number {
  if (v.kind === 'fixed' && v.type !== 'CHAR' && v.type !== 'UUID' && v.type !== 'LONG256') {
    const d = asDoubles(v);
    return (a, b) => {
      const x = d[a]!, y = d[b]!;
      if (x !== x) return y !== y ? 0 : -1;
      if (y !== y) return 1;
      return x < y ? -1 : x > y ? 1 : 0;
    };
  }
  const t = texts(v);
  return (a, b) => {
    const x = t[a], y = t[b];
    if (x === null || x === undefined) return y === null || y === undefined ? 0 : -1;
    if (y === null || y === undefined) return 1;
    return x < y ? -1 : x > y ? 1 : 0;
  };
}
