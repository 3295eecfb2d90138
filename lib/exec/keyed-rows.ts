// The right side of a WINDOW or HORIZON JOIN, collected once for lookups: its rows, their timestamps,
// and per key the indexes of its rows in timestamp order; binary searches over those indexes.
import type { Batch } from '../core/batch.js';
import type { TimeJoinSide } from '../sql/bound.js';
import { collect } from './batches.js';
import { keyEntryBytes, pace, type ExecContext, type Held } from './context.js';
import { run } from './operators.js';
import { rowKey } from './vectors.js';

export interface KeyedRows {
  readonly rows: Batch;
  readonly ts: Float64Array;
  /** Key -> the indexes of its rows, ascending timestamp. */
  readonly byKey: Map<string, Int32Array>;
}

/** Collects `side.right` (charged to `held`: its rows, then the index by key). */
export async function collectKeyed(side: TimeJoinSide, cx: ExecContext, held: Held): Promise<KeyedRows> {
  const rows = await collect(run(side.right, cx), side.right.fields.length, cx, held);
  const ts = rows.rowCount === 0 ? new Float64Array(0) : (rows.columns[side.rightTs] as { data: Float64Array }).data;
  const lists = new Map<string, number[]>();
  const keys = side.rightKeys.map((c) => rows.columns[c]!);
  let bytes = 4 * rows.rowCount;
  for (let r = 0; r < rows.rowCount; r++) {
    const key = keys.length === 0 ? '' : rowKey(keys, r);
    const list = lists.get(key);
    if (list === undefined) {
      lists.set(key, [r]);
      bytes += keyEntryBytes(key.length) + 8;
    } else list.push(r);
    if ((r & 8191) === 8191) await pace(cx);
  }
  const byKey = new Map<string, Int32Array>();
  for (const [key, list] of lists) byKey.set(key, Int32Array.from(list));
  held.add(bytes);
  return { rows, ts, byKey };
}

/** The first position among `rows` whose timestamp is >= t. */
export function lowerBound(ts: Float64Array, rows: Int32Array, t: number): number {
  let lo = 0,
    hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[rows[mid]!]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first position among `rows` (from `from` on) whose timestamp is > t (the one before it is the row ASOF t). */
export function upperBound(ts: Float64Array, rows: Int32Array, t: number, from = 0): number {
  let lo = from,
    hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[rows[mid]!]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
