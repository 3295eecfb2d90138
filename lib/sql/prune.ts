// Column pruning: a table scan reads only the columns the plan above it uses
// (DESIGN.md "Performance rules": scans read only the columns asked for).
// Filters, projections and aggregates over a scan narrow it; other nodes keep
// their inputs whole.
import type { BoundExpr, Plan } from './bound.js';
import { rederive } from './plan-timestamp.js';

export function pruneColumns(plan: Plan): Plan {
  return narrow(plan, null).plan;
}

interface Narrowed {
  readonly plan: Plan;
  /** Old output index -> new output index (-1 dropped); null when unchanged. */
  readonly map: Int32Array | null;
}

function narrow(p: Plan, need: ReadonlySet<number> | null): Narrowed {
  switch (p.kind) {
    case 'scan': {
      if (need === null || need.size === p.fields.length) return { plan: p, map: null };
      const keep = [...need].sort((a, b) => a - b);
      if (keep.length === 0 && p.fields.length > 0) keep.push(p.timestamp >= 0 ? p.timestamp : 0); // row counts need one column
      const map = new Int32Array(p.fields.length).fill(-1);
      keep.forEach((old, i) => {
        map[old] = i;
      });
      return {
        plan: rederive({
          ...p,
          columns: keep.map((i) => p.columns[i]!),
          fields: keep.map((i) => p.fields[i]!),
          timestamp: p.timestamp >= 0 ? map[p.timestamp]! : -1,
        }),
        map,
      };
    }
    case 'parquetScan': {
      // The file's columns the plan uses, read alone (one when none is: row counts need one).
      if (need === null || need.size === p.fields.length) return { plan: p, map: null };
      const keep = [...need].sort((a, b) => a - b);
      if (keep.length === 0 && p.fields.length > 0) keep.push(0);
      const map = new Int32Array(p.fields.length).fill(-1);
      keep.forEach((old, i) => {
        map[old] = i;
      });
      return {
        plan: rederive({ ...p, columns: keep.map((i) => p.columns[i]!), fields: keep.map((i) => p.fields[i]!) }),
        map,
      };
    }
    case 'filter': {
      const used = new Set(need ?? range(p.fields.length));
      cols(p.predicate, used);
      const inner = narrow(p.input, used);
      return {
        plan: rederive({
          ...p,
          input: inner.plan,
          predicate: remap(p.predicate, inner.map),
          fields: inner.plan.fields,
        }),
        map: inner.map,
      };
    }
    case 'project': {
      // Only the outputs the parent needs are computed (and only their inputs read).
      const keep = need === null ? range(p.exprs.length) : [...need].sort((a, b) => a - b);
      const exprs = keep.map((i) => p.exprs[i]!);
      const used = new Set<number>();
      for (const e of exprs) cols(e, used);
      const inner = narrow(p.input, used);
      let map: Int32Array | null = null;
      if (keep.length !== p.exprs.length) {
        map = new Int32Array(p.exprs.length).fill(-1);
        keep.forEach((old, i) => {
          map![old] = i;
        });
      }
      return {
        plan: rederive({
          ...p,
          input: inner.plan,
          exprs: exprs.map((e) => remap(e, inner.map)),
          fields: keep.map((i) => p.fields[i]!),
        }),
        map,
      };
    }
    case 'aggregate': {
      const used = new Set<number>();
      for (const k of p.keys) cols(k, used);
      for (const a of p.aggregates) for (const x of a.args) cols(x, used);
      const inner = narrow(p.input, used);
      return {
        plan: rederive({
          ...p,
          input: inner.plan,
          keys: p.keys.map((k) => remap(k, inner.map)),
          aggregates: p.aggregates.map((a) => ({ ...a, args: a.args.map((x) => remap(x, inner.map)) })),
        }),
        map: null,
      };
    }
    case 'designate': {
      const used = new Set(need ?? range(p.fields.length));
      used.add(p.column);
      const inner = narrow(p.input, used);
      const column = inner.map === null ? p.column : inner.map[p.column]!;
      return { plan: rederive({ ...p, input: inner.plan, column, fields: inner.plan.fields }), map: inner.map };
    }
    case 'latestBy': {
      const used = new Set(need ?? range(p.fields.length));
      for (const k of p.keys) used.add(k);
      used.add(p.ts);
      const inner = narrow(p.input, used);
      const m = inner.map;
      const at = (i: number): number => (m === null ? i : m[i]!);
      return {
        plan: rederive({ ...p, input: inner.plan, keys: p.keys.map(at), ts: at(p.ts), fields: inner.plan.fields }),
        map: m,
      };
    }
    case 'window': {
      // Input columns asked for above and those the functions read; the function columns follow the input's.
      const width = p.input.fields.length;
      const used = new Set<number>();
      for (let i = 0; i < width; i++) if (need === null || need.has(i)) used.add(i);
      for (const f of p.functions)
        for (const e of [...f.args, ...f.partitionBy, ...f.orderBy.map((o) => o.expr)]) cols(e, used);
      const inner = narrow(p.input, used);
      if (inner.map === null) return { plan: rederive({ ...p, input: inner.plan }), map: null };
      const m = inner.map;
      const newWidth = inner.plan.fields.length;
      const map = new Int32Array(p.fields.length);
      for (let i = 0; i < p.fields.length; i++) map[i] = i < width ? m[i]! : newWidth + (i - width);
      const functions = p.functions.map((f) => ({
        ...f,
        args: f.args.map((e) => remap(e, m)),
        partitionBy: f.partitionBy.map((e) => remap(e, m)),
        orderBy: f.orderBy.map((o) => ({ expr: remap(o.expr, m), desc: o.desc })),
      }));
      const fields = [...inner.plan.fields, ...p.fields.slice(width)];
      return { plan: rederive({ ...p, input: inner.plan, functions, fields }), map };
    }
    case 'sort':
    case 'limit':
    case 'distinct':
    case 'reverse':
    case 'sampleFill':
      return { plan: rederive({ ...p, input: narrow(p.input, null).plan }), map: null };
    case 'join':
    case 'asofJoin':
      return {
        plan: rederive({ ...p, left: narrow(p.left, null).plan, right: narrow(p.right, null).plan }),
        map: null,
      };
    case 'horizonJoin':
      return narrowHorizonJoin(p, need);
    case 'windowJoin':
      return {
        plan: rederive({
          ...p,
          left: narrow(p.left, null).plan,
          joins: p.joins.map((j) => ({ ...j, right: narrow(j.right, null).plan })),
        }),
        map: null,
      };
    case 'setOp':
      return {
        plan: rederive({ ...p, left: narrow(p.left, null).plan, right: narrow(p.right, null).plan }),
        map: null,
      };
    default:
      return { plan: p, map: null };
  }
}

/**
 * HORIZON JOIN's columns are the left's, the offset and the horizon timestamp, then each right side's:
 * each side reads only the columns asked for above plus its timestamp and keys (a right side is held
 * whole while the join runs, so its wide columns cost memory when unused).
 */
function narrowHorizonJoin(p: Extract<Plan, { kind: 'horizonJoin' }>, need: ReadonlySet<number> | null): Narrowed {
  const nl = p.left.fields.length;
  const wanted = (lo: number, width: number, always: readonly number[]): Set<number> => {
    const out = new Set(always);
    for (let i = 0; i < width; i++) if (need === null || need.has(lo + i)) out.add(i);
    return out;
  };
  const left = narrow(p.left, wanted(0, nl, [p.leftTs, ...p.joins.flatMap((j) => j.leftKeys)]));
  const at = (m: Int32Array | null, i: number): number => (m === null ? i : m[i]!);
  const map = new Int32Array(p.fields.length).fill(-1);
  for (let i = 0; i < nl; i++) map[i] = at(left.map, i);
  const newNl = left.plan.fields.length;
  map[nl] = newNl;
  map[nl + 1] = newNl + 1;
  let start = nl + 2;
  let next = newNl + 2;
  const joins = p.joins.map((j) => {
    const width = j.right.fields.length;
    const right = narrow(j.right, wanted(start, width, [j.rightTs, ...j.rightKeys]));
    for (let i = 0; i < width; i++) {
      const k = at(right.map, i);
      map[start + i] = k < 0 ? -1 : next + k;
    }
    start += width;
    next += right.plan.fields.length;
    return {
      right: right.plan,
      leftKeys: j.leftKeys.map((k) => at(left.map, k)),
      rightKeys: j.rightKeys.map((k) => at(right.map, k)),
      rightTs: at(right.map, j.rightTs),
    };
  });
  const fields = [...left.plan.fields, p.fields[nl]!, p.fields[nl + 1]!, ...joins.flatMap((j) => j.right.fields)];
  const plan = rederive({ ...p, left: left.plan, leftTs: at(left.map, p.leftTs), joins, fields });
  return { plan, map: left.map === null && joins.every((j, k) => j.right === p.joins[k]!.right) ? null : map };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function cols(e: BoundExpr, into: Set<number>): void {
  if (e.kind === 'col') into.add(e.index);
  else if (e.kind === 'call') for (const a of e.args) cols(a, into);
  else if (e.kind === 'inSubquery') cols(e.expr, into); // the subquery's own plan was pruned when bound
}

function remap(e: BoundExpr, map: Int32Array | null): BoundExpr {
  if (map === null) return e;
  if (e.kind === 'col') return { ...e, index: map[e.index]! };
  if (e.kind === 'call') return { ...e, args: e.args.map((a) => remap(a, map)) };
  if (e.kind === 'inSubquery') return { ...e, expr: remap(e.expr, map) };
  return e;
}
