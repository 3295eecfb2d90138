// The designated timestamp of a plan node's rows (the `timestamp` of /exec
// answers): one rule per node kind, from the node and its inputs, as QuestDB's
// factories derive RecordMetadata.getTimestampIndex(). Every node is made by node().
import { SvcError } from '../errors/svc-error.js';
import type { Plan, PlanKind } from './bound.js';

/** What node() derives; a scan and an input are given their timestamp (the table's, the caller's). */
type Derived<K extends PlanKind> = K extends 'scan' | 'input' ? 'timestampDesc' : 'timestamp' | 'timestampDesc';

/** A plan node without the fields node() derives. */
export type PlanSpec<K extends PlanKind = PlanKind> = K extends PlanKind
  ? Omit<Extract<Plan, { kind: K }>, Derived<K>>
  : never;

/** The node with its designated timestamp derived from its inputs. */
export function node<K extends PlanKind>(spec: PlanSpec<K> & { readonly kind: K }): Extract<Plan, { kind: K }> {
  const { index, desc } = designated(spec);
  const out = { ...spec, timestamp: index } as Record<string, unknown>;
  if (desc) out.timestampDesc = true;
  else delete out.timestampDesc;
  return out as unknown as Extract<Plan, { kind: K }>;
}

/** The same node over changed inputs (or columns), its timestamp derived again. */
export function rederive<P extends Plan>(p: P): P {
  return node<PlanKind>(p) as unknown as P;
}

/**
 * `TIMESTAMP(col)` after a FROM source: `col` (a TIMESTAMP column of the source) becomes its designated
 * timestamp. Naming the one it already has, in ascending order, changes nothing (interval scans stay).
 */
export function designateTimestamp(plan: Plan, column: string, pos: number): Plan {
  const lower = column.toLowerCase();
  const index = plan.fields.findIndex((f) => f.name.toLowerCase() === lower);
  if (index < 0) throw new SvcError('SQL', `Invalid column: ${column}`, { position: pos });
  if (plan.fields[index]!.type !== 'TIMESTAMP') throw new SvcError('SQL', 'not a TIMESTAMP', { position: pos });
  if (index === plan.timestamp && plan.timestampDesc !== true) return plan;
  return node({ kind: 'designate', input: plan, column: index, fields: plan.fields });
}

interface Designated {
  /** Output column index, or -1. */
  readonly index: number;
  /** Rows come newest first (ORDER BY ts DESC, a backward scan): SAMPLE BY and time-series joins refuse them. */
  readonly desc: boolean;
}

const NONE: Designated = { index: -1, desc: false };

function of(p: Plan): Designated {
  return p.timestamp < 0 ? NONE : { index: p.timestamp, desc: p.timestampDesc === true };
}

function designated(p: PlanSpec): Designated {
  switch (p.kind) {
    // Leaves: the table's designated timestamp (read newest first when backwards), the caller's.
    case 'scan':
      return p.timestamp < 0 ? NONE : { index: p.timestamp, desc: p.backwards === true };
    case 'input':
      return p.timestamp < 0 ? NONE : { index: p.timestamp, desc: false };
    case 'oneRow':
    case 'longSequence':
    case 'metadata':
    case 'parquetScan':
      return NONE;
    // Rows kept or cut in their order, columns unchanged.
    case 'filter':
    case 'limit':
    case 'window':
      return of(p.input);
    // The first output that is the input's timestamp column itself (an alias keeps it, an expression of it does not).
    case 'project': {
      const ts = of(p.input);
      if (ts.index < 0) return NONE;
      const i = p.exprs.findIndex((e) => e.kind === 'col' && e.index === ts.index);
      return i < 0 ? NONE : { index: i, desc: ts.desc };
    }
    // GROUP BY gives groups in no time order; SAMPLE BY gives its buckets in order.
    case 'aggregate':
      return p.bucketKey === undefined ? NONE : { index: p.bucketKey, desc: false };
    case 'sampleFill':
      return { index: p.bucket, desc: false };
    // Sorting by a timestamp column first makes it the designated timestamp, in the sort's direction.
    case 'sort': {
      const k = p.keys[0];
      return k !== undefined && p.fields[k.index]?.type === 'TIMESTAMP' ? { index: k.index, desc: k.desc } : NONE;
    }
    // Over a backward scan: rows newest first.
    case 'reverse': {
      const ts = of(p.input);
      return ts.index < 0 ? NONE : { index: ts.index, desc: true };
    }
    // TIMESTAMP(col) on a FROM source names it.
    case 'designate':
      return { index: p.column, desc: false };
    // One row per key, in the order of the LATEST ON column.
    case 'latestBy':
      return { index: p.ts, desc: false };
    case 'distinct':
      return NONE;
    // Joins keep the left side's (its rows lead); SPLICE interleaves both sides and has none.
    case 'join':
      return of(p.left);
    case 'asofJoin':
      return p.splice ? NONE : of(p.left);
    // One row per left row, in its order.
    case 'windowJoin':
      return of(p.left);
    // A row per left row and offset, in left order: the left's timestamp stays in order (h.timestamp does not).
    case 'horizonJoin':
      return of(p.left);
    // UNION mixes both sides' rows; EXCEPT and INTERSECT keep rows of the left side in its order.
    case 'setOp':
      return p.op === 'UNION' ? NONE : of(p.left);
  }
}
