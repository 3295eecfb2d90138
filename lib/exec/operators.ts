// The pull operators: each plan node becomes an async generator of batches
// that pulls from its children (DESIGN.md "Shape"). Scans read committed
// snapshots; every operator checks the abort signal and the deadline between
// batches, and what it holds counts against the statement's budget.
import { SvcError } from '../errors/svc-error.js';
import { DEFAULT_BATCH_ROWS, type Batch } from '../core/batch.js';
import type { Plan } from '../sql/bound.js';
import { runAggregate } from './aggregate.js';
import { pageAggregate } from './page-aggregate.js';
import { pageSelect } from './page-select.js';
import { pageGroupAggregate } from './page-group.js';
import { runLatestBy } from './latest-by.js';
import { runAsofJoin } from './asof-join.js';
import { runWindowJoin } from './window-join.js';
import { runHorizonJoin } from './horizon-join.js';
import { runSampleFill } from './sample-fill.js';
import { concatBatches, gatherBatch, sliceBatches } from '../core/vector-ops.js';
import { batchBytes, Held, keyEntryBytes, pace, tablesOf, type ExecContext } from './context.js';
import { Evaluator } from './expr.js';
import { runJoin } from './hash-join.js';
import { builtTextColumns, textKeyColumns } from './text-keys.js';
import { GroupKeys } from './group-keys.js';
import { prepareSubqueries } from './subqueries.js';
import { metadataRows } from './metadata-rows.js';
import { isSystemMetadata, systemRows } from './system-rows.js';
import { runParquetScan } from './parquet-scan.js';
import { runSort } from './sort.js';
import { runWindow } from './window.js';
import { rowKey } from './vectors.js';

export function run(plan: Plan, cx: ExecContext): AsyncGenerator<Batch> {
  switch (plan.kind) {
    case 'scan':
      return runScan(plan, cx);
    case 'input': {
      const input = cx.inputs?.get(plan.name);
      if (!input) throw new Error(`no batches were handed in for input ${plan.name}`);
      return (async function* () {
        yield* input;
      })();
    }
    case 'oneRow':
      return (async function* () {
        yield { rowCount: 1, columns: [] };
      })();
    case 'longSequence':
      return runLongSequence(plan.count, cx);
    case 'parquetScan':
      return runParquetScan(plan, cx);
    case 'metadata':
      return (async function* () {
        yield* sliceBatches(isSystemMetadata(plan) ? systemRows(plan, cx) : metadataRows(plan, tablesOf(cx)));
      })();
    case 'filter':
      return pageSelect(plan, cx, () => runFilter(plan, cx)) ?? runFilter(plan, cx);
    case 'project':
      return runProject(plan, cx);
    case 'aggregate': {
      const general = (): AsyncGenerator<Batch> => runAggregate(plan, run(plan.input, cx), cx);
      return pageAggregate(plan, cx, general) ?? pageGroupAggregate(plan, cx, general) ?? general();
    }
    case 'window':
      return runWindow(plan, run(plan.input, cx), cx);
    case 'sort':
      return runSort(plan, run(plan.input, cx), cx);
    case 'limit':
      return runLimit(plan, cx);
    case 'distinct':
      return runDistinct(plan, cx);
    case 'reverse':
      return runReverse(plan, cx);
    case 'designate':
      return run(plan.input, cx);
    case 'latestBy':
      return runLatestBy(plan, run(plan.input, cx), cx);
    case 'asofJoin':
      return runAsofJoin(plan, run(plan.left, cx), run(plan.right, cx)[Symbol.asyncIterator](), cx);
    case 'windowJoin':
      return runWindowJoin(plan, cx);
    case 'horizonJoin':
      return runHorizonJoin(plan, cx);
    case 'sampleFill':
      return runSampleFill(plan, run(plan.input, cx), cx);
    case 'join':
      return runJoin(plan, cx);
    case 'setOp':
      return runSetOp(plan, cx);
  }
}

async function* runScan(plan: Extract<Plan, { kind: 'scan' }>, cx: ExecContext): AsyncGenerator<Batch> {
  const reader = tablesOf(cx).reader(plan.table);
  // Closed when the statement ends: text vectors are read lazily, maybe after the scan ended.
  cx.atEnd.push(() => reader.close());
  cx.scanReaders.set(plan, reader);
  for (const b of reader.scan({
    columns: plan.columns,
    intervals: plan.intervals ?? undefined,
    backwards: plan.backwards === true,
    batchRows: plan.batchRows,
    textCodes: textKeyColumns(plan),
    textCodesIfBuilt: builtTextColumns(plan),
  })) {
    await pace(cx);
    yield b;
  }
}

async function* runLongSequence(count: number, cx: ExecContext): AsyncGenerator<Batch> {
  const size = 8192;
  for (let s = 0; s < count; s += size) {
    const n = Math.min(size, count - s);
    const x = new Float64Array(n);
    for (let i = 0; i < n; i++) x[i] = s + i + 1;
    await pace(cx);
    yield { rowCount: n, columns: [{ kind: 'fixed', type: 'LONG', data: x }] };
  }
}

async function* runFilter(plan: Extract<Plan, { kind: 'filter' }>, cx: ExecContext): AsyncGenerator<Batch> {
  await prepareSubqueries([plan.predicate], cx);
  const ev = new Evaluator(cx);
  const pred = ev.compile(plan.predicate);
  const keep = (b: Batch): Batch | null => {
    const mask = (pred(b) as { data: Uint8Array }).data;
    let count = 0;
    for (let i = 0; i < b.rowCount; i++) count += mask[i]!;
    if (count === 0) return null;
    if (count === b.rowCount) return b;
    const idx = new Int32Array(count);
    for (let i = 0, j = 0; i < b.rowCount; i++) if (mask[i]) idx[j++] = i;
    return gatherBatch(b, idx);
  };
  for await (const b of run(plan.input, cx)) {
    for await (const out of ev.chunks(b, keep)) if (out !== null) yield out;
  }
}

async function* runProject(plan: Extract<Plan, { kind: 'project' }>, cx: ExecContext): AsyncGenerator<Batch> {
  await prepareSubqueries(plan.exprs, cx);
  const ev = new Evaluator(cx);
  const fns = plan.exprs.map((e) => ev.compile(e));
  const project = (b: Batch): Batch => ({ rowCount: b.rowCount, columns: fns.map((f) => f(b)) });
  for await (const b of run(plan.input, cx)) yield* ev.chunks(b, project);
}

/**
 * The input reading batches of at most `rows` rows from its scan when only projections (or the
 * reversal of a newest-first scan: ORDER BY ts DESC) lie between them: a LIMIT of a few rows then
 * reads a few rows of each column, not a whole batch.
 */
function smallBatches(p: Plan, rows: number): Plan {
  switch (p.kind) {
    case 'scan':
      return { ...p, batchRows: Math.max(1, rows) };
    case 'project':
    case 'reverse':
      return { ...p, input: smallBatches(p.input, rows) };
    default:
      return p;
  }
}

async function* runLimit(plan: Extract<Plan, { kind: 'limit' }>, cx: ExecContext): AsyncGenerator<Batch> {
  if (plan.last !== null) {
    // Keep only the batches that can hold the last rows.
    const held = new Held(cx.budget, 'LIMIT');
    try {
      const kept: Batch[] = [];
      let rows = 0;
      for await (const b of run(plan.input, cx)) {
        kept.push(b);
        rows += b.rowCount;
        held.add(batchBytes(b));
        while (kept.length > 1 && rows - kept[0]!.rowCount >= plan.last) {
          const gone = kept.shift()!;
          rows -= gone.rowCount;
          held.set(held.bytes - batchBytes(gone));
        }
      }
      held.add(held.bytes);
      const all = concatBatches(kept, plan.fields.length);
      yield* sliceBatches(all, Math.max(0, all.rowCount - plan.last), all.rowCount);
    } finally {
      held.release();
    }
    return;
  }
  let seen = 0;
  if (plan.hi <= plan.lo) return;
  const input = plan.hi < DEFAULT_BATCH_ROWS ? smallBatches(plan.input, plan.hi) : plan.input;
  for await (const b of run(input, cx)) {
    const start = seen,
      end = seen + b.rowCount;
    seen = end;
    if (end <= plan.lo) continue;
    const from = Math.max(0, plan.lo - start),
      to = Math.min(b.rowCount, plan.hi - start);
    if (to > from) yield* sliceBatches(b, from, to);
    if (seen >= plan.hi) return; // stops the input too: its generators run their finally blocks
  }
}

async function* runReverse(plan: Extract<Plan, { kind: 'reverse' }>, cx: ExecContext): AsyncGenerator<Batch> {
  for await (const b of run(plan.input, cx)) {
    const n = b.rowCount;
    const idx = new Int32Array(n);
    for (let i = 0; i < n; i++) idx[i] = n - 1 - i;
    yield gatherBatch(b, idx);
  }
}

async function* runDistinct(plan: Extract<Plan, { kind: 'distinct' }>, cx: ExecContext): AsyncGenerator<Batch> {
  const held = new Held(cx.budget, 'DISTINCT');
  try {
    const seen = new GroupKeys(plan.fields.map((f) => f.type));
    for await (const b of run(plan.input, cx)) {
      const keep = distinctRows(b, seen, held);
      if (keep !== null) yield keep;
    }
  } finally {
    held.release();
  }
}

/** The rows of `b` whose values `seen` did not have yet (added to it; its size charged to `held`), or null. */
function distinctRows(b: Batch, seen: GroupKeys, held: Held): Batch | null {
  const n = b.rowCount;
  const ids = new Int32Array(n);
  const before = seen.size;
  seen.assign(b.columns, n, ids);
  held.set(seen.bytes());
  if (seen.size === before) return null;
  // Ids are given in the order rows show them: a row with the next id is a new value's first row.
  const keep = new Int32Array(seen.size - before);
  let next = before;
  for (let i = 0; i < n && next < seen.size; i++) if (ids[i] === next) keep[next++ - before] = i;
  return gatherBatch(b, keep);
}

async function* runSetOp(plan: Extract<Plan, { kind: 'setOp' }>, cx: ExecContext): AsyncGenerator<Batch> {
  if (plan.op === 'UNION' && plan.all) {
    yield* run(plan.left, cx);
    yield* run(plan.right, cx);
    return;
  }
  const held = new Held(cx.budget, plan.op);
  try {
    if (plan.op === 'UNION') {
      const seen = new GroupKeys(plan.fields.map((f) => f.type));
      for (const side of [plan.left, plan.right]) {
        for await (const b of run(side, cx)) {
          const keep = distinctRows(b, seen, held);
          if (keep !== null) yield keep;
        }
      }
      return;
    }
    if (plan.op !== 'INTERSECT' && plan.op !== 'EXCEPT')
      throw new SvcError('SQL', `unsupported set operation ${plan.op}`);
    const rightRows = new Map<string, number>();
    for await (const b of run(plan.right, cx)) {
      let bytes = 0;
      for (let i = 0; i < b.rowCount; i++) {
        const k = rowKey(b.columns, i);
        const had = rightRows.get(k);
        if (had === undefined) bytes += keyEntryBytes(k.length);
        rightRows.set(k, (had ?? 0) + 1);
      }
      held.add(bytes);
    }
    const emitted = new Set<string>();
    const intersect = plan.op === 'INTERSECT';
    for await (const b of run(plan.left, cx)) {
      const keep: number[] = [];
      let bytes = 0;
      for (let i = 0; i < b.rowCount; i++) {
        const k = rowKey(b.columns, i);
        if (plan.all) {
          // Bag semantics: each right row cancels (EXCEPT ALL) or matches (INTERSECT ALL) one left row.
          const left = rightRows.get(k) ?? 0;
          if (left > 0) rightRows.set(k, left - 1);
          if (intersect === left > 0) keep.push(i);
          continue;
        }
        if (intersect !== rightRows.has(k) || emitted.has(k)) continue;
        emitted.add(k);
        bytes += keyEntryBytes(k.length);
        keep.push(i);
      }
      held.add(bytes);
      if (keep.length) yield gatherBatch(b, Int32Array.from(keep));
    }
  } finally {
    held.release();
  }
}
