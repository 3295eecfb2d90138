// ORDER BY the designated timestamp without sorting: a table's rows are stored
// in timestamp order, so ascending order is the scan order (the sort goes) and
// descending order is a backwards scan with each batch's rows reversed. With a
// LIMIT above, the scan stops after the rows it needs (newest first for DESC),
// as QuestDB does.
import type { Plan } from './bound.js';
import { node, rederive } from './plan-timestamp.js';

export function useTimestampOrder(plan: Plan): Plan {
  switch (plan.kind) {
    case 'sort': {
      const input = useTimestampOrder(plan.input);
      const key = plan.keys.length === 1 ? plan.keys[0]! : null;
      if (key !== null && inTimestampOrder(input, key.index)) {
        if (!key.desc) return input;
        return node({ kind: 'reverse', input: backwards(input), fields: plan.fields });
      }
      return rederive({ ...plan, input });
    }
    case 'latestBy': {
      // Newest rows first when the input is the table in timestamp order: the operator can stop early.
      const input = useTimestampOrder(plan.input);
      return rederive({ ...plan, input: inTimestampOrder(input, plan.ts) ? backwards(input) : input });
    }
    case 'filter':
    case 'project':
    case 'aggregate':
    case 'window':
    case 'limit':
    case 'distinct':
    case 'reverse':
    case 'sampleFill':
    case 'designate':
      return rederive({ ...plan, input: useTimestampOrder(plan.input) });
    case 'join':
    case 'setOp':
    case 'asofJoin':
      return rederive({ ...plan, left: useTimestampOrder(plan.left), right: useTimestampOrder(plan.right) });
    case 'windowJoin':
      return rederive({
        ...plan,
        left: useTimestampOrder(plan.left),
        joins: plan.joins.map((j) => ({ ...j, right: useTimestampOrder(j.right) })),
      });
    case 'horizonJoin':
      return rederive({
        ...plan,
        left: useTimestampOrder(plan.left),
        joins: plan.joins.map((j) => ({ ...j, right: useTimestampOrder(j.right) })),
      });
    default:
      return plan;
  }
}

/** Whether `p` yields its rows in ascending order of output column `index`, the scan's designated timestamp. */
function inTimestampOrder(p: Plan, index: number): boolean {
  switch (p.kind) {
    case 'scan':
      return p.timestamp >= 0 && index === p.timestamp && p.backwards !== true;
    case 'filter':
      return inTimestampOrder(p.input, index);
    case 'project': {
      const e = p.exprs[index];
      return e !== undefined && e.kind === 'col' && inTimestampOrder(p.input, e.index);
    }
    default:
      return false;
  }
}

/** The chain of filters and projections down to the scan, reading newest batches first. */
function backwards(p: Plan): Plan {
  switch (p.kind) {
    case 'scan':
      return rederive({ ...p, backwards: true });
    case 'filter':
      return rederive({ ...p, input: backwards(p.input) });
    case 'project':
      return rederive({ ...p, input: backwards(p.input) });
    default:
      throw new Error(`not a timestamp-ordered chain: ${p.kind}`);
  }
}
