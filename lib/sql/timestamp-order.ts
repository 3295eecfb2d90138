// ORDER BY the designated timestamp without sorting: a table's rows are stored
// in timestamp order, so ascending order is the scan order (the sort goes) and
// descending order is a backwards scan with each batch's rows reversed. With a
// LIMIT above, the scan stops after the rows it needs (newest first for DESC),
// as QuestDB does.
import type { Plan } from './bound.js';

export function useTimestampOrder(plan: Plan): Plan {
  switch (plan.kind) {
    case 'sort': {
      const input = useTimestampOrder(plan.input);
      const key = plan.keys.length === 1 ? plan.keys[0]! : null;
      if (key !== null && inTimestampOrder(input, key.index)) {
        if (!key.desc) return input;
        return { kind: 'reverse', input: backwards(input), fields: plan.fields, timestamp: -1 };
      }
      return { ...plan, input };
    }
    case 'latestBy': {
      // Newest rows first when the input is the table in timestamp order: the operator can stop early.
      const input = useTimestampOrder(plan.input);
      return inTimestampOrder(input, plan.ts) ? { ...plan, input: backwards(input) } : { ...plan, input };
    }
    case 'filter': case 'project': case 'aggregate': case 'window': case 'limit': case 'distinct': case 'reverse': case 'sampleFill':
      return { ...plan, input: useTimestampOrder(plan.input) } as Plan;
    case 'join': case 'setOp': case 'asofJoin':
      return { ...plan, left: useTimestampOrder(plan.left), right: useTimestampOrder(plan.right) } as Plan;
    default:
      return plan;
  }
}

/** Whether `p` yields its rows in ascending order of output column `index`, the scan's designated timestamp. */
function inTimestampOrder(p: Plan, index: number): boolean {
  switch (p.kind) {
    case 'scan': return p.timestamp >= 0 && index === p.timestamp;
    case 'filter': return inTimestampOrder(p.input, index);
    case 'project': {
      const e = p.exprs[index];
      return e !== undefined && e.kind === 'col' && inTimestampOrder(p.input, e.index);
    }
    default: return false;
  }
}

/** The chain of filters and projections down to the scan, reading newest batches first (no designated order left). */
function backwards(p: Plan): Plan {
  switch (p.kind) {
    case 'scan': return { ...p, backwards: true, timestamp: -1 };
    case 'filter': return { ...p, input: backwards(p.input), timestamp: -1 };
    case 'project': return { ...p, input: backwards(p.input), timestamp: -1 };
    default: throw new Error(`not a timestamp-ordered chain: ${p.kind}`);
  }
}
