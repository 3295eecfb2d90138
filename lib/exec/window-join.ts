// WINDOW JOIN: each right table is collected once (its rows' indexes grouped by key, in timestamp
// order, and its aggregates' arguments computed over all its rows), then the left side streams: each
// left row's window is found by binary search among its key's rows, the matched rows' arguments are
// gathered with the left row as group id, and the registry's aggregate states give one value per left
// row. Output: the left batch's columns, then the aggregates' (left order and timestamp kept).
import type { Batch } from '../core/batch.js';
import type { ColumnVector } from '../core/column-vector.js';
import { gatherBatch, gatherVector } from '../core/vector-ops.js';
import type { AggregateState } from '../functions/registry.js';
import type { Plan, WindowJoinPart } from '../sql/bound.js';
import { holding, pace, vectorBytes, type ExecContext, type Held } from './context.js';
import { Evaluator } from './expr.js';
import { collectKeyed, lowerBound, upperBound } from './keyed-rows.js';
import { run } from './operators.js';
import { prepareSubqueries } from './subqueries.js';
import { rowKey } from './vectors.js';

type WindowJoinPlan = Extract<Plan, { kind: 'windowJoin' }>;

/** Row pairs gathered (and filtered by the pair condition) at a time. */
const PAIRS = 8192;

export function runWindowJoin(plan: WindowJoinPlan, cx: ExecContext): AsyncGenerator<Batch> {
  return holding(cx.budget, 'WINDOW JOIN', (held) => windowJoin(plan, cx, held));
}

/** One right table, ready for lookups. */
interface Side {
  readonly part: WindowJoinPart;
  readonly rows: Batch;
  readonly ts: Float64Array;
  /** Key -> the indexes of its rows, ascending timestamp. */
  readonly byKey: Map<string, Int32Array>;
  /** The aggregates (indexes into the plan's) that read this side, with their arguments over all its rows. */
  readonly aggs: readonly number[];
  readonly args: readonly (readonly ColumnVector[])[];
  readonly residual: ((b: Batch) => ColumnVector) | null;
}

async function* windowJoin(plan: WindowJoinPlan, cx: ExecContext, held: Held): AsyncGenerator<Batch> {
  await prepareSubqueries(
    [...plan.joins.flatMap((j) => (j.residual ? [j.residual] : [])), ...plan.aggregates.flatMap((a) => a.args)],
    cx,
  );
  // Not chunked: a text argument over a whole right table is charged to the budget as one.
  const ev = new Evaluator(cx, false);
  const sides: Side[] = [];
  for (const [k, part] of plan.joins.entries()) sides.push(await prepareSide(plan, k, part, ev, cx, held));
  const nl = plan.left.fields.length;
  const lIdx = new Int32Array(PAIRS);
  const rIdx = new Int32Array(PAIRS);
  for await (const b of run(plan.left, cx)) {
    const n = b.rowCount;
    const results: ColumnVector[] = new Array<ColumnVector>(plan.aggregates.length);
    const lts = (b.columns[plan.leftTs] as { data: Float64Array }).data;
    for (const side of sides) {
      const { part, ts, byKey } = side;
      const states: AggregateState[] = side.aggs.map((a) => plan.aggregates[a]!.fn.create());
      const pairMask = side.residual
        ? (m: number): Uint8Array => {
            const li = lIdx.subarray(0, m);
            const ri = rIdx.subarray(0, m);
            const pairs: Batch = {
              rowCount: m,
              columns: [...gatherBatch(b, li).columns, ...gatherBatch(side.rows, ri).columns],
            };
            return ev.once(pairs, (p) => (side.residual!(p) as { data: Uint8Array }).data.slice(0, m));
          }
        : null;
      let m = 0;
      // The pairs so far into the states (those the pair condition keeps, in order).
      const flush = (): void => {
        let k = m;
        if (pairMask) {
          const mask = pairMask(m);
          k = 0;
          for (let i = 0; i < m; i++)
            if (mask[i]) {
              lIdx[k] = lIdx[i]!;
              rIdx[k] = rIdx[i]!;
              k++;
            }
        }
        const ri = rIdx.subarray(0, k);
        states.forEach((s, j) =>
          s.update(
            lIdx.subarray(0, k),
            side.args[j]!.map((v) => gatherVector(v, ri)),
            k,
            n,
          ),
        );
        m = 0;
      };
      const lkeys = part.leftKeys.map((c) => b.columns[c]!);
      const keyOf = (i: number): string => (lkeys.length === 0 ? '' : rowKey(lkeys, i));
      const prevailing = part.prevailing ? await findPrevailing(b, side, keyOf, lts, pairMask, lIdx, rIdx, cx) : null;
      for (let i = 0; i < n; i++) {
        const rows = byKey.get(keyOf(i));
        if (rows === undefined) continue;
        const t = lts[i]!;
        if (prevailing !== null && prevailing[i]! >= 0) {
          lIdx[m] = i;
          rIdx[m] = prevailing[i]!;
          if (++m === PAIRS) flush();
        }
        const to = upperBound(ts, rows, t + part.hi);
        for (let r = lowerBound(ts, rows, t + part.lo); r < to; r++) {
          lIdx[m] = i;
          rIdx[m] = rows[r]!;
          if (++m === PAIRS) {
            flush();
            await pace(cx);
          }
        }
      }
      flush();
      side.aggs.forEach((a, j) => {
        results[a] = states[j]!.result(n);
      });
    }
    yield { rowCount: n, columns: [...b.columns.slice(0, nl), ...results] };
    await pace(cx);
  }
}

/** Collects right table `k`, groups its rows by key and computes its aggregates' arguments. */
async function prepareSide(
  plan: WindowJoinPlan,
  k: number,
  part: WindowJoinPart,
  ev: Evaluator,
  cx: ExecContext,
  held: Held,
): Promise<Side> {
  const { rows, ts, byKey } = await collectKeyed(part, cx, held);
  const aggs = plan.aggJoin.flatMap((j, a) => (j === k ? [a] : []));
  const fns = aggs.map((a) => plan.aggregates[a]!.args.map((e) => ev.compile(e)));
  const args =
    rows.rowCount === 0
      ? fns.map((fs) => fs.map(() => null))
      : ev.once(rows, (b) => fns.map((fs) => fs.map((f) => f(b))));
  let bytes = 0;
  for (const list of args) for (const v of list) if (v !== null) bytes += vectorBytes(v);
  held.add(bytes);
  return {
    part,
    rows,
    ts,
    byKey,
    aggs,
    args: args.map((list) => list.map((v) => v ?? emptyVector())),
    residual: part.residual ? ev.compile(part.residual) : null,
  };
}

/** A vector of no rows (the arguments over an empty right table: never gathered from). */
function emptyVector(): ColumnVector {
  return { kind: 'fixed', type: 'DOUBLE', data: new Float64Array(0) };
}

/**
 * INCLUDE PREVAILING: per left row, the index of the latest right row (of its key, passing the pair
 * condition) at or before the window's start, or -1 when there is none or it lies exactly at the start
 * (then it is in the window already). With a pair condition the rows before the start are tried newest
 * first, a round of all left rows still looking at a time.
 */
async function findPrevailing(
  b: Batch,
  side: Side,
  keyOf: (i: number) => string,
  lts: Float64Array,
  pairMask: ((m: number) => Uint8Array) | null,
  lIdx: Int32Array,
  rIdx: Int32Array,
  cx: ExecContext,
): Promise<Int32Array> {
  const n = b.rowCount;
  const out = new Int32Array(n).fill(-1);
  // Per left row: its key's rows and the position among them tried next (-1: done).
  const lists: (Int32Array | undefined)[] = new Array<Int32Array | undefined>(n);
  const at = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const rows = side.byKey.get(keyOf(i));
    lists[i] = rows;
    if (rows !== undefined) at[i] = upperBound(side.ts, rows, lts[i]! + side.part.lo) - 1;
  }
  if (pairMask === null) {
    for (let i = 0; i < n; i++) if (at[i]! >= 0) out[i] = lists[i]![at[i]!]!;
  } else {
    let pending = [...Array(n).keys()].filter((i) => at[i]! >= 0);
    while (pending.length > 0) {
      const next: number[] = [];
      for (let s = 0; s < pending.length; s += lIdx.length) {
        const part = pending.slice(s, s + lIdx.length);
        part.forEach((i, j) => {
          lIdx[j] = i;
          rIdx[j] = lists[i]![at[i]!]!;
        });
        const mask = pairMask(part.length);
        part.forEach((i, j) => {
          if (mask[j]) out[i] = lists[i]![at[i]!]!;
          else if (--at[i]! >= 0) next.push(i);
        });
        await pace(cx);
      }
      pending = next;
    }
  }
  // A row exactly at the window's start is in the window: no prevailing row then.
  for (let i = 0; i < n; i++) if (out[i]! >= 0 && side.ts[out[i]!] === lts[i]! + side.part.lo) out[i] = -1;
  return out;
}
