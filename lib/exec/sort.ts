// ORDER BY: the input is collected (memory-limited), a permutation sorted on
// the key columns (numbers as doubles, text as strings; NULLs first ascending,
// last descending), and the rows gathered in that order.
import type { Batch } from '../storage/table-reader.js';
import type { ColumnVector } from '../storage/column-vector.js';
import type { Plan } from '../sql/bound.js';
import { asDoubles, texts } from '../sql/functions/vec.js';
import { checkMemory, type ExecContext } from './context.js';
import { collect, concatBatches, gatherBatch, sliceBatches } from './batches.js';
import { valueAt } from './vectors.js';

type SortPlan = Extract<Plan, { kind: 'sort' }>;

export async function* runSort(plan: SortPlan, input: AsyncIterable<Batch>, cx: ExecContext): AsyncGenerator<Batch> {
  const width = plan.fields.length;
  const all = plan.limit !== null ? await topN(plan, input, cx) : await collect(input, width, cx, 'ORDER BY');
  if (all.rowCount === 0) return;
  yield* sliceBatches(gatherBatch(all, order(plan, all, plan.limit)));
}

/** Row numbers of `b` in sort order (the first `limit` only, when given). */
function order(plan: SortPlan, b: Batch, limit: number | null): Int32Array {
  const n = b.rowCount;
  const keys = plan.keys.map((k) => comparable(b.columns[k.index]!));
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  idx.sort((a, c) => {
    for (let k = 0; k < keys.length; k++) {
      const r = keys[k]!(a, c);
      if (r !== 0) return plan.keys[k]!.desc ? -r : r;
    }
    return a - c; // stable
  });
  return limit !== null && limit < n ? idx.subarray(0, limit) : idx;
}

/**
 * ORDER BY ... LIMIT n without sorting everything: batches are buffered and,
 * whenever the buffer passes max(4n, 64k) rows, cut back to its best n rows.
 * Memory stays O(n + batch); ties keep arrival order.
 */
async function topN(plan: SortPlan, input: AsyncIterable<Batch>, cx: ExecContext): Promise<Batch> {
  const limit = plan.limit!;
  const bound = Math.max(4 * limit, 65_536);
  const width = plan.fields.length;
  let kept: Batch = { rowCount: 0, columns: [] };
  let pending: Batch[] = [];
  let rows = 0;
  const compact = (): void => {
    const merged = concatBatches(kept.rowCount > 0 ? [kept, ...pending] : pending, width);
    kept = merged.rowCount > limit ? gatherBatch(merged, order(plan, merged, limit).slice().sort()) : merged;
    pending = [];
    rows = kept.rowCount;
  };
  for await (const b of input) {
    if (b.rowCount === 0) continue;
    pending.push(b);
    rows += b.rowCount;
    checkMemory(cx, rows * width * 8, 'ORDER BY');
    if (rows > bound) compact();
  }
  compact();
  return kept;
}

/** A comparator of two rows of a column; NULL sorts before every value. */
export function comparable(v: ColumnVector): (a: number, b: number) => number {
  if (v.kind === 'fixed' && v.type !== 'CHAR' && v.type !== 'UUID' && v.type !== 'LONG256') {
    const d = asDoubles(v);
    return (a, b) => {
      const x = d[a]!, y = d[b]!;
      if (x !== x) return y !== y ? 0 : -1;
      if (y !== y) return 1;
      return x < y ? -1 : x > y ? 1 : 0;
    };
  }
  const t = v.kind === 'fixed' ? Array.from({ length: v.data.length / (v.type === 'UUID' ? 16 : v.type === 'LONG256' ? 32 : 1) }, (_, i) => valueAt(v, i) as string | null) : texts(v);
  return (a, b) => {
    const x = t[a], y = t[b];
    if (x === null || x === undefined) return y === null || y === undefined ? 0 : -1;
    if (y === null || y === undefined) return 1;
    return x < y ? -1 : x > y ? 1 : 0;
  };
}
