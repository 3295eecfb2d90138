// HORIZON JOIN: each right side is collected once (its rows' indexes grouped by key, in timestamp
// order), then the left side streams: every left row becomes a row per offset, in offset order, and
// for each right side the row ASOF left ts + offset (the latest of its key at or before it) is found by
// binary search, the offsets of one row walking forward. Output: the left row's columns, the offset,
// left ts + offset, then each right side's columns (NULLs without a match), in batches of about 8192.
import type { Batch } from '../core/batch.js';
import type { ColumnVector } from '../core/column-vector.js';
import { nulls } from '../core/rows.js';
import { longVector } from '../core/vec.js';
import { gatherBatch, gatherOrNull } from '../core/vector-ops.js';
import type { Plan } from '../sql/bound.js';
import { holding, pace, type ExecContext, type Held } from './context.js';
import { collectKeyed, upperBound, type KeyedRows } from './keyed-rows.js';
import { run } from './operators.js';
import { rowKey } from './vectors.js';

type HorizonJoinPlan = Extract<Plan, { kind: 'horizonJoin' }>;

/** Output rows per batch, about (a left row's offsets are never split). */
const ROWS = 8192;

export function runHorizonJoin(plan: HorizonJoinPlan, cx: ExecContext): AsyncGenerator<Batch> {
  return holding(cx.budget, 'HORIZON JOIN', (held) => horizonJoin(plan, cx, held));
}

async function* horizonJoin(plan: HorizonJoinPlan, cx: ExecContext, held: Held): AsyncGenerator<Batch> {
  const sides: KeyedRows[] = [];
  for (const j of plan.joins) sides.push(await collectKeyed(j, cx, held));
  const offsets = plan.offsets;
  const m = offsets.length;
  const nl = plan.left.fields.length;
  const per = Math.max(1, Math.floor(ROWS / m));
  for await (const b of run(plan.left, cx)) {
    const lts = (b.columns[plan.leftTs] as { data: Float64Array }).data;
    const lkeys = plan.joins.map((j) => j.leftKeys.map((c) => b.columns[c]!));
    for (let s = 0; s < b.rowCount; s += per) {
      const e = Math.min(b.rowCount, s + per);
      const n = (e - s) * m;
      const lIdx = new Int32Array(n);
      const offs = new Float64Array(n);
      const at = new Float64Array(n);
      for (let i = s, r = 0; i < e; i++)
        for (let k = 0; k < m; k++, r++) {
          lIdx[r] = i;
          offs[r] = offsets[k]!;
          at[r] = lts[i]! + offsets[k]!;
        }
      const columns: ColumnVector[] = [
        ...gatherBatch(b, lIdx).columns.slice(0, nl),
        longVector('LONG', offs),
        longVector('TIMESTAMP', at),
      ];
      plan.joins.forEach((j, p) => {
        const side = sides[p]!;
        const rIdx = asofRows(side, lkeys[p]!, lts, offsets, s, e);
        for (const [c, f] of j.right.fields.entries())
          columns.push(
            f.type === 'NULL' || side.rows.rowCount === 0
              ? nulls(f.type, n)
              : gatherOrNull(side.rows.columns[c]!, rIdx, f.type),
          );
      });
      yield { rowCount: n, columns };
      await pace(cx);
    }
  }
}

/** Per left row of [s, e) and offset, the index of the right row ASOF left ts + offset among its key's rows, or -1. */
function asofRows(
  side: KeyedRows,
  keys: readonly ColumnVector[],
  lts: Float64Array,
  offsets: readonly number[],
  s: number,
  e: number,
): Int32Array {
  const m = offsets.length;
  const out = new Int32Array((e - s) * m).fill(-1);
  for (let i = s; i < e; i++) {
    const rows = side.byKey.get(keys.length === 0 ? '' : rowKey(keys, i));
    if (rows === undefined) continue;
    const base = (i - s) * m;
    // Offsets ascend, so each match is at or after the previous one.
    let pos = 0;
    for (let k = 0; k < m; k++) {
      pos = upperBound(side.ts, rows, lts[i]! + offsets[k]!, pos);
      if (pos > 0) out[base + k] = rows[pos - 1]!;
    }
  }
  return out;
}
