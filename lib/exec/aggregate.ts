// Hash aggregation: group ids per row from the key vectors (one group when
// there are no keys; a key-indexed table for a single SYMBOL key; a Map for
// others), aggregate states updated per batch (or row chunk), their size held
// against the statement's budget, then one output batch stream.
import type { Batch } from '../core/batch.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { Plan } from '../sql/bound.js';
import type { AggregateState } from '../functions/registry.js';
import { asDoubles } from '../core/vec.js';
import { holding, type Held, pace, type ExecContext } from './context.js';
import { Evaluator } from './expr.js';
import { prepareSubqueries } from './subqueries.js';
import { fromValues, rowKey, valueAt, type Value } from './vectors.js';
import { sliceBatches } from '../core/vector-ops.js';
import { isByteRows } from '../core/column-type.js';

type AggregatePlan = Extract<Plan, { kind: 'aggregate' }>;

export function runAggregate(plan: AggregatePlan, input: AsyncIterable<Batch>, cx: ExecContext): AsyncGenerator<Batch> {
  return holding(cx.budget, 'GROUP BY', (held) => aggregate(plan, input, cx, held));
}

async function* aggregate(
  plan: AggregatePlan,
  input: AsyncIterable<Batch>,
  cx: ExecContext,
  held: Held,
): AsyncGenerator<Batch> {
  await prepareSubqueries([...plan.keys, ...plan.aggregates.flatMap((a) => a.args)], cx);
  const ev = new Evaluator(cx);
  const keyFns = plan.keys.map((e) => ev.compile(e));
  const argFns = plan.aggregates.map((a) => a.args.map((e) => ev.compile(e)));
  const states: AggregateState[] = plan.aggregates.map((a) => a.fn.create());
  const keyValues: Value[][] = plan.keys.map(() => []);
  const groupOf = new Map<string, number>();
  let groups = plan.keys.length === 0 ? 1 : 0;
  let groupBytes = 0;
  // Single SYMBOL key: table keys map straight to groups while the dictionary stays the same.
  let symDict: readonly string[] | null = null;
  let symGroups = new Int32Array(0);
  const numGroups = new Map<number, number>();
  let nullGroup = -1;

  // Group ids of a batch's rows (all 0 without keys): one buffer, grown to the largest batch.
  let idBuffer = new Int32Array(0);
  // Keys and arguments of a batch (or row chunk) are all evaluated before any state changes: a chunk may be evaluated again.
  const evaluate = (b: Batch): { b: Batch; keys: ColumnVector[]; args: ColumnVector[][] } => ({
    b,
    keys: keyFns.map((f) => f(b)),
    args: argFns.map((fs) => fs.map((f) => f(b))),
  });
  for await (const batch of input) {
    for await (const { b, keys, args } of ev.chunks(batch, evaluate)) {
      const n = b.rowCount;
      if (idBuffer.length < n) idBuffer = new Int32Array(n);
      const ids = idBuffer.length === n ? idBuffer : idBuffer.subarray(0, n);
      if (keys.length > 0) assignGroups(keys, n, ids);
      for (let a = 0; a < states.length; a++) states[a]!.update(ids, args[a]!, n, groups);
      held.set(states.reduce((s, st) => s + st.bytes(), groupBytes));
    }
    await pace(cx);
  }

  function assignGroups(keys: ColumnVector[], n: number, ids: Int32Array): void {
    const k0 = keys[0]!;
    if (keys.length === 1 && k0.kind === 'symbol') {
      if (k0.dict !== symDict) {
        symDict = k0.dict;
        symGroups = new Int32Array(Math.max(16, k0.dict.length + 1)).fill(-1);
      }
      if (symGroups.length < k0.dict.length + 1) {
        const g = new Int32Array(k0.dict.length * 2 + 1).fill(-1);
        g.set(symGroups);
        symGroups = g;
      }
      for (let i = 0; i < n; i++) {
        const slot = k0.keys[i]! + 1; // NULL (-1) -> slot 0
        let g = symGroups[slot]!;
        if (g < 0) {
          const key = rowKey(keys, i);
          g = groupOf.get(key) ?? -1;
          if (g < 0) {
            g = newGroup(keys, i, key);
          }
          symGroups[slot] = g;
        }
        ids[i] = g;
      }
    } else if (keys.length === 1 && k0.kind === 'fixed' && !isByteRows(k0.type) && k0.type !== 'TIMESTAMP_NS') {
      // One numeric, temporal or boolean key: its double is the hash key (NULL as NaN), no string per row.
      const x = asDoubles(k0);
      for (let i = 0; i < n; i++) {
        const v = x[i]!;
        let g = v === v ? numGroups.get(v) : nullGroup;
        if (g === undefined || g < 0) {
          g = newGroup(keys, i, rowKey(keys, i));
          if (v === v) numGroups.set(v, g);
          else nullGroup = g;
        }
        ids[i] = g;
      }
    } else {
      for (let i = 0; i < n; i++) {
        const key = rowKey(keys, i);
        let g = groupOf.get(key);
        if (g === undefined) g = newGroup(keys, i, key);
        ids[i] = g;
      }
    }
  }

  function newGroup(keys: ColumnVector[], i: number, key: string): number {
    const g = groups++;
    groupBytes += 64 + 4 * key.length; // the key in the map and its values kept for the output
    groupOf.set(key, g);
    keys.forEach((k, j) => keyValues[j]!.push(valueAt(k, i)));
    return g;
  }

  const columns = [
    ...plan.keys.map((k, j) => fromValues(k.type, keyValues[j]!)),
    ...states.map((s) => s.result(groups)),
  ];
  yield* sliceBatches({ rowCount: groups, columns });
}
