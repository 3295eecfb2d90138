// ORDER BY: the input is collected (charged to the statement's budget), a
// permutation sorted on the key columns (numbers as doubles, text as strings;
// NULLs first ascending, last descending), and the rows gathered in that order
// a batch at a time. The comparisons tick the deadline.
import { DEFAULT_BATCH_ROWS, type Batch } from '../core/batch.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { Deadline } from '../limits/deadline.js';
import type { Plan } from '../sql/bound.js';
import { asDoubles, texts } from '../core/vec.js';
import { comparePairs, pairsOf } from '../core/nanos.js';
import { batchBytes, Held, pace, type ExecContext } from './context.js';
import { collect } from './batches.js';
import { concatBatches, gatherBatch } from '../core/vector-ops.js';
import { valueAt } from './vectors.js';
import { isByteRows, typeInfo, typeKind } from '../core/column-type.js';
import { intervalHi, intervalLo } from '../core/interval-values.js';
import { compareDecimalRows, isDecimalNull } from '../core/decimal.js';
import { compareGeohashRows, isGeohashNull } from '../core/geohash.js';

type SortPlan = Extract<Plan, { kind: 'sort' }>;

export async function* runSort(plan: SortPlan, input: AsyncIterable<Batch>, cx: ExecContext): AsyncGenerator<Batch> {
  const width = plan.fields.length;
  const held = new Held(cx.budget, 'ORDER BY');
  try {
    const all = plan.limit !== null ? await topN(plan, input, cx, held) : await collect(input, width, cx, held);
    if (all.rowCount === 0) return;
    const idx = order(plan, all, plan.limit, cx, held);
    for (let s = 0; s < idx.length; s += DEFAULT_BATCH_ROWS) {
      yield gatherBatch(all, idx.subarray(s, Math.min(idx.length, s + DEFAULT_BATCH_ROWS)));
      await pace(cx);
    }
  } finally {
    held.release();
  }
}

/** Row numbers of `b` in sort order (the first `limit` only, when given); the keys' copies are charged to `held`. */
function order(plan: SortPlan, b: Batch, limit: number | null, cx: ExecContext, held: Held): Int32Array {
  const n = b.rowCount;
  const before = held.bytes;
  held.add(n * 4 + plan.keys.length * n * 8);
  const keys = plan.keys.map((k) => comparable(b.columns[k.index]!, held));
  const idx = new Int32Array(n);
  for (let i = 0; i < n; i++) idx[i] = i;
  const deadline: Deadline = cx.deadline;
  idx.sort((a, c) => {
    deadline.tick();
    for (let k = 0; k < keys.length; k++) {
      const r = keys[k]!(a, c);
      if (r !== 0) return plan.keys[k]!.desc ? -r : r;
    }
    return a - c; // stable
  });
  // The keys' copies are garbage now; the permutation stays.
  held.set(before + n * 4);
  return limit !== null && limit < n ? idx.subarray(0, limit) : idx;
}

/**
 * ORDER BY ... LIMIT n without sorting everything: batches are buffered and,
 * whenever the buffer passes max(4n, 64k) rows, cut back to its best n rows.
 * Memory stays O(n + batch); ties keep arrival order.
 */
async function topN(plan: SortPlan, input: AsyncIterable<Batch>, cx: ExecContext, held: Held): Promise<Batch> {
  const limit = plan.limit!;
  const bound = Math.max(4 * limit, 65_536);
  const width = plan.fields.length;
  const base = held.bytes;
  let kept: Batch = { rowCount: 0, columns: [] };
  let pending: Batch[] = [];
  let rows = 0;
  let bytes = 0;
  const compact = (): void => {
    held.set(base + 2 * bytes); // the buffered batches and their concatenation
    const merged = concatBatches(kept.rowCount > 0 ? [kept, ...pending] : pending, width);
    pending = [];
    held.set(base + batchBytes(merged));
    kept = merged.rowCount > limit ? gatherBatch(merged, order(plan, merged, limit, cx, held).slice().sort()) : merged;
    rows = kept.rowCount;
    bytes = batchBytes(kept);
    held.set(base + bytes);
  };
  for await (const b of input) {
    if (b.rowCount === 0) continue;
    pending.push(b);
    rows += b.rowCount;
    bytes += batchBytes(b);
    held.set(base + bytes);
    if (rows > bound) compact();
  }
  compact();
  return kept;
}

/** A comparator of two rows of a column; NULL sorts before every value. The text copies it makes are charged to `held`. */
export function comparable(v: ColumnVector, held?: Held): (a: number, b: number) => number {
  if (v.kind === 'fixed' && v.type === 'TIMESTAMP_NS') {
    // Nanoseconds differ below a double's precision: compared as int64 pairs (NULL, -2^63, is the smallest).
    const p = pairsOf(v);
    return (a, b) => comparePairs(p, a, p, b);
  }
  if (v.kind === 'fixed' && v.type === 'INTERVAL') {
    // By lower bound, then upper bound (NULL, both -2^63, is the smallest).
    const b = v.data as Uint8Array;
    return (a, c) => {
      const x = intervalLo(b, a),
        y = intervalLo(b, c);
      if (x !== y) return x < y ? -1 : 1;
      const p = intervalHi(b, a),
        q = intervalHi(b, c);
      return p < q ? -1 : p > q ? 1 : 0;
    };
  }
  if (v.kind === 'fixed' && v.type !== 'CHAR' && !isByteRows(v.type)) {
    const d = asDoubles(v);
    return (a, b) => {
      const x = d[a]!,
        y = d[b]!;
      if (x !== x) return y !== y ? 0 : -1;
      if (y !== y) return 1;
      return x < y ? -1 : x > y ? 1 : 0;
    };
  }
  if (v.kind === 'fixed' && (typeKind(v.type) === 'DECIMAL' || typeKind(v.type) === 'GEOHASH')) {
    // By value: a DECIMAL's unscaled integer (one scale per column), a GEOHASH's bits.
    // Compared straight from the bytes (no value per row is built).
    const w = typeInfo(v.type).width;
    const b = v.data as Uint8Array;
    const decimal = typeKind(v.type) === 'DECIMAL';
    const isNull = decimal ? isDecimalNull : isGeohashNull;
    const cmp = decimal ? compareDecimalRows : compareGeohashRows;
    return (a, c) => {
      const x = isNull(b, a, w),
        y = isNull(b, c, w);
      if (x) return y ? 0 : -1;
      if (y) return 1;
      return cmp(b, a, b, c, w);
    };
  }
  const t =
    v.kind === 'fixed'
      ? Array.from({ length: v.data.length / typeInfo(v.type).stride }, (_, i) => valueAt(v, i) as string | null)
      : texts(v);
  if (held) {
    let chars = 0;
    for (const s of t) if (s) chars += s.length;
    held.add(t.length * 16 + chars * 2);
  }
  return (a, b) => {
    const x = t[a],
      y = t[b];
    if (x === null || x === undefined) return y === null || y === undefined ? 0 : -1;
    if (y === null || y === undefined) return 1;
    return x < y ? -1 : x > y ? 1 : 0;
  };
}
