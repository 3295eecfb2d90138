// EXPLAIN: the operator tree, one line per node, children indented.
import type { BoundExpr, BoundFrame, BoundWindow, Plan } from '../sql/bound.js';
import { formatTimestamp } from '../core/datetime.js';

export function explainPlan(plan: Plan, depth = 0): string[] {
  const pad = '    '.repeat(depth);
  const head = pad + describe(plan);
  const children: Plan[] = [];
  switch (plan.kind) {
    case 'filter':
    case 'project':
    case 'aggregate':
    case 'window':
    case 'sort':
    case 'limit':
    case 'distinct':
    case 'reverse':
    case 'latestBy':
    case 'sampleFill':
    case 'designate':
      children.push(plan.input);
      break;
    case 'join':
    case 'setOp':
    case 'asofJoin':
      children.push(plan.left, plan.right);
      break;
    case 'windowJoin':
    case 'horizonJoin':
      children.push(plan.left, ...plan.joins.map((j) => j.right));
      break;
    default:
      break;
  }
  return [head, ...children.flatMap((c) => explainPlan(c, depth + 1))];
}

function describe(p: Plan): string {
  switch (p.kind) {
    case 'scan':
      return `DataFrame${p.backwards ? ' backward' : ''} table: ${p.table}${p.intervals ? ` intervals: [${p.intervals.map(([a, b]) => `("${bound(a)}","${bound(b - 1)}")`).join(',')}]` : ''}`;
    case 'input':
      return `Input name: ${p.name}`;
    case 'oneRow':
      return 'VirtualRecord (one row)';
    case 'longSequence':
      return `long_sequence count: ${p.count}`;
    case 'parquetScan':
      return `parquet file sequential scan path: ${p.path}`;
    case 'metadata':
      return `Metadata ${p.what}${p.table ? ` table: ${p.table}` : ''}`;
    case 'filter':
      return `Filter filter: ${expr(p.predicate)}`;
    case 'project':
      return `VirtualRecord functions: [${p.exprs.map(expr).join(',')}]`;
    case 'aggregate':
      return `GroupBy keys: [${p.keys.map(expr).join(',')}] values: [${p.aggregates.map((a) => `${a.name}(${a.args.map(expr).join(',')})`).join(',')}]`;
    case 'window':
      return `Window functions: [${p.functions.map(windowText).join(', ')}]`;
    case 'sort':
      return `Sort${p.limit !== null ? ` light lo: ${p.limit}` : ''} keys: [${p.keys.map((k) => `${k.index}${k.desc ? ' desc' : ''}`).join(', ')}]`;
    case 'limit':
      return p.last !== null ? `Limit last: ${p.last}` : `Limit lo: ${p.lo} hi: ${p.hi}`;
    case 'distinct':
      return 'Distinct';
    case 'reverse':
      return 'Reverse (designated timestamp descending)';
    case 'designate':
      return `Timestamp column: $${p.column}`;
    case 'sampleFill':
      return `SampleByFill fill: [${p.fills.map((f) => (f.kind === 'const' ? String(f.value) : f.kind)).join(',')}]`;
    case 'asofJoin':
      return `${p.splice ? 'Splice' : p.strict ? 'Lt' : 'AsOf'} Join keys: [${p.leftKeys.join(',')}] = [${p.rightKeys.join(',')}]${p.tolerance !== null ? ` tolerance: ${p.tolerance}us` : ''}`;
    case 'horizonJoin':
      return `Horizon Join ${horizonJoinText(p)}`;
    case 'windowJoin':
      return `Window Join ${windowJoinText(p)} aggregates: [${p.aggregates.map((a, i) => `${a.name}(${a.args.map(expr).join(',')})@${p.aggJoin[i]}`).join(',')}]`;
    case 'latestBy':
      return `LatestBy keys: [${p.keys.map((k) => `$${k}`).join(',')}] timestamp: $${p.ts}`;
    case 'join':
      return `Hash ${p.type} Join keys: [${p.leftKeys.join(',')}] = [${p.rightKeys.join(',')}]${p.residual ? ` filter: ${expr(p.residual)}` : ''}`;
    case 'setOp':
      return `${p.op}${p.all ? ' ALL' : ''}`;
  }
}

/** `fn(args) over (partition by [..] order by [..] rows|range between .. and ..)`. */
function windowText(w: BoundWindow): string {
  const args =
    w.fn === 'lag' || w.fn === 'lead'
      ? [expr(w.args[0]!), String(w.offset), w.args[1] ? expr(w.args[1]) : 'NULL']
      : w.fn === 'ntile'
        ? [String(w.offset)]
        : w.args.map(expr);
  const parts: string[] = [];
  if (w.partitionBy.length > 0) parts.push(`partition by [${w.partitionBy.map(expr).join(',')}]`);
  if (w.orderBy.length > 0)
    parts.push(`order by [${w.orderBy.map((o) => `${expr(o.expr)}${o.desc ? ' desc' : ''}`).join(',')}]`);
  if (!['row_number', 'rank', 'dense_rank', 'percent_rank', 'cume_dist', 'ntile', 'lag', 'lead'].includes(w.fn))
    parts.push(frameText(w.frame));
  return `${w.fn}(${args.join(',')})${w.ignoreNulls ? ' ignore nulls' : ''} over (${parts.join(' ')})`;
}

function frameText(f: BoundFrame): string {
  const bound = (x: number): string =>
    x === -Infinity
      ? 'unbounded preceding'
      : x === Infinity
        ? 'unbounded following'
        : x === 0
          ? 'current row'
          : x < 0
            ? `${-x} preceding`
            : `${x} following`;
  return `${f.unit.toLowerCase()} between ${bound(f.start)} and ${bound(f.end)}`;
}

/** An expression as EXPLAIN prints it ($n for input column n). */
export function exprText(e: BoundExpr): string {
  return expr(e);
}

function expr(e: BoundExpr): string {
  switch (e.kind) {
    case 'col':
      return `$${e.index}`;
    case 'const':
      return typeof e.value === 'string' ? `'${e.value}'` : String(e.value);
    case 'call':
      return /^[^a-z]/.test(e.name) && e.args.length === 2
        ? `${expr(e.args[0]!)}${e.name}${expr(e.args[1]!)}`
        : `${e.name}(${e.args.map(expr).join(',')})`;
    case 'subquery':
      return `(${explainPlan(e.plan)
        .map((l) => l.trim())
        .join(' <- ')})`;
    case 'inSubquery':
      return `${expr(e.expr)} in (${explainPlan(e.plan)
        .map((l) => l.trim())
        .join(' <- ')})`;
  }
}

/** Each join of a WINDOW JOIN chain: keys, window in micros (QuestDB's lo/hi wording), prevailing, pair filter. */
function windowJoinText(p: Extract<Plan, { kind: 'windowJoin' }>): string {
  return p.joins
    .map((j) => {
      const side = (v: number): string => `${Math.abs(v)} ${v < 0 ? 'preceding' : 'following'}`;
      const keys = j.leftKeys.length > 0 ? `keys: [${j.leftKeys.join(',')}] = [${j.rightKeys.join(',')}] ` : '';
      const filter = j.residual ? ` filter: ${expr(j.residual)}` : '';
      return `${keys}window lo: ${side(j.lo)} (${j.prevailing ? 'include' : 'exclude'} prevailing) hi: ${side(j.hi)}${filter}`;
    })
    .join('; ');
}

/** HORIZON JOIN: its offsets in micros, then each join's keys (left = right column indexes). */
function horizonJoinText(p: Extract<Plan, { kind: 'horizonJoin' }>): string {
  const joins = p.joins.map((j) =>
    j.leftKeys.length > 0 ? `keys: [${j.leftKeys.join(',')}] = [${j.rightKeys.join(',')}]` : 'keys: none',
  );
  return `offsets: [${p.offsets.join(',')}] ${p.joins.length > 1 ? `tables: ${p.joins.length} ` : ''}${joins.join('; ')}`;
}

/** An interval end as QuestDB prints it: ISO micros, MIN/MAX when open. */
function bound(us: number): string {
  return us === -Infinity ? 'MIN' : us >= Infinity - 1 || us === Infinity ? 'MAX' : formatTimestamp(us);
}
