// Hash aggregation: group ids per row from the key vectors (one group when
// there are no keys; otherwise GroupKeys: text hashed on its bytes or mapped
// once per dictionary code, numbers on their double, composite keys pairwise),
// aggregate states updated per batch (or row chunk), their size held against
// the statement's budget, then one output batch stream.
import type { Batch } from '../core/batch.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { Plan } from '../sql/bound.js';
import type { AggregateState } from '../functions/registry.js';
import { holding, type Held, pace, type ExecContext } from './context.js';
import { Evaluator } from './expr.js';
import { prepareSubqueries } from './subqueries.js';
import { fromValues, valueAt, type Value } from './vectors.js';
import { GroupKeys } from './group-keys.js';
import { sliceBatches } from '../core/vector-ops.js';

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
  const groupKeys = plan.keys.length === 0 ? null : new GroupKeys(plan.keys.map((k) => k.type));
  let groups = plan.keys.length === 0 ? 1 : 0;
  let valueBytes = 0;

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
      if (groupKeys !== null) {
        groupKeys.assign(keys, n, ids);
        // Ids come in first-seen order: a row whose id is the next one starts a group (its key values kept for the output).
        if (groupKeys.size > groups)
          for (let i = 0; i < n && groups < groupKeys.size; i++) {
            if (ids[i] === groups) {
              for (let j = 0; j < keys.length; j++) {
                const v = valueAt(keys[j]!, i);
                keyValues[j]!.push(v);
                valueBytes += typeof v === 'string' ? 16 + 2 * v.length : 16; // kept for the output
              }
              groups++;
            }
          }
      }
      for (let a = 0; a < states.length; a++) states[a]!.update(ids, args[a]!, n, groups);
      held.set(states.reduce((s, st) => s + st.bytes(), groupKeys === null ? 0 : groupKeys.bytes() + valueBytes));
    }
    await pace(cx);
  }

  const columns = [
    ...plan.keys.map((k, j) => fromValues(k.type, keyValues[j]!)),
    ...states.map((s) => s.result(groups)),
  ];
  yield* sliceBatches({ rowCount: groups, columns });
}
