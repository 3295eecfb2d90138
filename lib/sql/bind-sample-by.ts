// Binding SAMPLE BY: the designated timestamp, as seen by the select list, is
// replaced by its bucket (a projected column under the same name), so the
// usual implicit GROUP BY groups by bucket and keys; FROM/TO bound the rows;
// FILL adds a sampleFill node after the aggregation.
import { SvcError } from '../errors/svc-error.js';
import type * as A from './ast.js';
import { bindExpr, castTo, type Scope } from './bind-expr.js';
import type { BoundExpr, FillSpec, Plan } from './bound.js';
import type { Kernel } from '../functions/registry.js';
import type { StatementEnv } from './statement-env.js';
import { pushIntervals } from './intervals.js';
import { node } from './plan-timestamp.js';
import { Buckets, checkZone, parseOffset, parseSampleInterval, type Sampling } from './sample-by.js';
import { LONG_NULL } from '../core/column-type.js';
import { walkTree } from './tree-walk.js';
import { constValue, isConstant } from './const-value.js';

/** The buckets behind each SAMPLE BY bucket kernel made here (exec/page-group.ts floors pages with them on any thread). */
export const kernelBuckets = new WeakMap<Kernel, Buckets>();

export interface SampleSetup {
  readonly plan: Plan;
  readonly scope: Scope;
  readonly buckets: Buckets;
  /** Input field index of the bucket column. */
  readonly bucketField: number;
  readonly fill: readonly A.Expr[];
  readonly from: number | null;
  readonly to: number | null;
  readonly pos: number;
}

/**
 * A constant text or timestamp expression (FROM, TO, TIME ZONE, WITH OFFSET): a literal or any
 * deterministic call of constants, folded here (`cast(1571176800000000 as timestamp)`,
 * `dateadd('d', 1, '2024-01-01')`, `to_timestamp('2024', 'yyyy')`).
 */
function constOf(env: StatementEnv, e: A.Expr, what: string, type: 'TIMESTAMP' | 'STRING'): number | string {
  const b = bindExpr(e, { env, scope: { fields: [] }, onAggregate: null });
  const v = constValue(env, type === 'TIMESTAMP' ? castTo(env, b, 'TIMESTAMP', e.pos) : b);
  if (v === undefined || v === null || typeof v === 'boolean')
    throw new SvcError('SQL', `${what} must be a constant`, { position: e.pos });
  return v;
}

export function bindSampleBy(env: StatementEnv, sb: A.SampleBy, plan: Plan, scope: Scope): SampleSetup {
  const ts = plan.timestamp;
  if (ts < 0)
    throw new SvcError('SQL', 'SAMPLE BY needs a designated timestamp; use timestamp(col) on the source', {
      position: sb.pos,
    });
  // Buckets are made as the rows come: newest first (ORDER BY ts DESC below) would make them backwards.
  if (plan.timestampDesc)
    throw new SvcError('SQL', 'base query does not provide ASC order over designated TIMESTAMP column', {
      position: sb.pos,
    });
  const { n, unit } = parseSampleInterval(sb.interval, sb.pos);
  const zone = sb.timeZone ? String(constOf(env, sb.timeZone, 'TIME ZONE', 'STRING')) : null;
  if (zone !== null) checkZone(zone, sb.timeZone!.pos);
  const offset = sb.offset ? parseOffset(String(constOf(env, sb.offset, 'WITH OFFSET', 'STRING')), sb.offset.pos) : 0;
  const from = sb.from ? Number(constOf(env, sb.from, 'FROM', 'TIMESTAMP')) : null;
  const to = sb.to ? Number(constOf(env, sb.to, 'TO', 'TIMESTAMP')) : null;
  const sampling: Sampling = { n, unit, offset, zone, firstObservation: sb.align === 'FIRST OBSERVATION' };
  const buckets = new Buckets(sampling, sampling.firstObservation ? from : null);
  // FROM/TO also bound the rows read (pushed into the scan as an interval).
  const tsType = plan.fields[ts]!.type;
  const tsCol: BoundExpr = { kind: 'col', index: ts, type: tsType };
  if (from !== null || to !== null) {
    const bound = (name: string, v: number): BoundExpr => ({
      kind: 'call',
      name,
      fn: { type: 'BOOLEAN', kernel: compare(name, v) },
      args: [tsCol],
      type: 'BOOLEAN',
      pos: sb.pos,
    });
    const terms = [...(from !== null ? [bound('>=', from)] : []), ...(to !== null ? [bound('<', to)] : [])];
    const predicate =
      terms.length === 1
        ? terms[0]!
        : {
            kind: 'call' as const,
            name: 'and',
            fn: { type: 'BOOLEAN' as const, kernel: andKernel },
            args: terms,
            type: 'BOOLEAN' as const,
            pos: sb.pos,
          };
    plan = pushIntervalsWith(plan, predicate, ts, from, to);
  }
  const bucketKernel: Kernel = (args, rows) => {
    const d = (args[0] as { data: Float64Array }).data;
    const out = new Float64Array(rows);
    buckets.floorAll(d, out, rows);
    return { kind: 'fixed', type: 'TIMESTAMP', data: out };
  };
  kernelBuckets.set(bucketKernel, buckets);
  const bucket: BoundExpr = {
    kind: 'call',
    name: 'sample_bucket',
    fn: { type: 'TIMESTAMP', kernel: bucketKernel },
    args: [tsCol],
    type: 'TIMESTAMP',
    pos: sb.pos,
  };
  const exprs: BoundExpr[] = [...plan.fields.map((f, i) => ({ kind: 'col' as const, index: i, type: f.type })), bucket];
  const tsName = scope.fields[ts]!.name;
  const fields = [
    ...plan.fields.map((f, i) => (i === ts ? { ...f, name: '$sampled_ts' } : f)),
    { name: plan.fields[ts]!.name, type: 'TIMESTAMP' as const },
  ];
  const projected: Plan = node({ kind: 'project', input: plan, exprs, fields });
  // The select list's `ts` (and any other reference to it) is the bucket.
  const newScope: Scope = {
    ...scope,
    fields: [
      ...scope.fields.map((f, i) => (i === ts ? { ...f, name: '$sampled_ts' } : f)),
      { table: scope.fields[ts]!.table, name: tsName, type: 'TIMESTAMP' },
    ],
  };
  return {
    plan: projected,
    scope: newScope,
    buckets,
    bucketField: exprs.length - 1,
    fill: sb.fill,
    from,
    to,
    pos: sb.pos,
  };
}

function compare(op: string, v: number): Kernel {
  return (args, rows) => {
    const d = (args[0] as { data: Float64Array }).data;
    const out = new Uint8Array(rows);
    for (let i = 0; i < rows; i++) {
      const t = d[i]!;
      out[i] = t !== LONG_NULL && (op === '>=' ? t >= v : t < v) ? 1 : 0;
    }
    return { kind: 'fixed', type: 'BOOLEAN', data: out };
  };
}

const andKernel: Kernel = (args, rows) => {
  const a = (args[0] as { data: Uint8Array }).data,
    b = (args[1] as { data: Uint8Array }).data;
  const out = new Uint8Array(rows);
  for (let i = 0; i < rows; i++) out[i] = a[i]! & b[i]!;
  return { kind: 'fixed', type: 'BOOLEAN', data: out };
};

/** The FROM/TO filter, with its interval pushed into a direct scan. */
function pushIntervalsWith(plan: Plan, predicate: BoundExpr, ts: number, from: number | null, to: number | null): Plan {
  const f = pushIntervals(plan, predicate);
  if (f.kind !== 'filter' || f.input.kind !== 'scan') return f;
  const scan = f.input;
  const iv: [number, number] = [from ?? -Infinity, to ?? Infinity];
  const intervals = scan.intervals
    ? scan.intervals
        .map(([a, b]) => [Math.max(a, iv[0]), Math.min(b, iv[1])] as [number, number])
        .filter(([a, b]) => b > a)
    : [iv];
  void ts;
  return { ...f, input: { ...scan, intervals } };
}

/** The FILL node over the aggregation (none for FILL(NONE) or no FILL). */
export function sampleFill(
  env: StatementEnv,
  s: SampleSetup,
  agg: Plan & { kind: 'aggregate' },
  keys: readonly BoundExpr[],
): Plan {
  const specs = s.fill.map((e) => fillSpec(env, e));
  if (specs.length === 0 || specs.every((x) => x.kind === 'none')) return agg;
  const bucketKey = keys.findIndex((k) => k.kind === 'col' && k.index === s.bucketField);
  if (bucketKey < 0)
    throw new SvcError('SQL', 'FILL needs the designated timestamp in the select list', { position: s.pos });
  const nAgg = agg.aggregates.length;
  if (specs.length !== 1 && specs.length !== nAgg) {
    throw new SvcError(
      'SQL',
      `FILL needs one value, or one per aggregate [aggregates=${nAgg}, values=${specs.length}]`,
      { position: s.fill[0]!.pos },
    );
  }
  const fills: FillSpec[] = Array.from({ length: nAgg }, (_, i) => specs[specs.length === 1 ? 0 : i]!);
  const otherKeys = keys.map((_, i) => i).filter((i) => i !== bucketKey);
  return node({
    kind: 'sampleFill',
    input: agg,
    bucket: bucketKey,
    keys: otherKeys,
    fills,
    buckets: s.buckets,
    from: s.from,
    to: s.to,
    fields: agg.fields,
  });
}

function fillSpec(env: StatementEnv, e: A.Expr): FillSpec {
  if (e.kind === 'literal' && e.type === 'NULL') return { kind: 'null' };
  if (e.kind === 'column' && e.table === null) {
    switch (e.name.toUpperCase()) {
      case 'NONE':
        return { kind: 'none' };
      case 'NULL':
        return { kind: 'null' };
      case 'PREV':
        return { kind: 'prev' };
      case 'LINEAR':
        return { kind: 'linear' };
      default:
        break;
    }
  }
  const b = bindExpr(e, { env, scope: { fields: [] }, onAggregate: null });
  // A constant expression folds to its value (FILL(cast(0 AS double)), FILL(-1 * 2)).
  const v = b.kind === 'const' ? b.value : isConstant(b) ? constValue(env, b) : undefined;
  if (v === undefined)
    throw new SvcError('SQL', 'FILL takes NONE, NULL, PREV, LINEAR or constants', { position: e.pos });
  return { kind: 'const', value: v };
}

/** The SAMPLE BY buckets of a bound plan (the kernel of its `sample_bucket` call), or null without one. */
export function planBuckets(plan: Plan): Buckets | null {
  let found: Buckets | null = null;
  walkTree(
    plan,
    (o) => {
      const fn = o.fn as { kernel?: Kernel } | undefined;
      if (o.kind === 'call' && o.name === 'sample_bucket' && fn?.kernel !== undefined)
        found = kernelBuckets.get(fn.kernel) ?? null;
      return found !== null;
    },
    (o) => o instanceof Buckets,
  );
  return found;
}
