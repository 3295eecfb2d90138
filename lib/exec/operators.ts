// The pull operators: each plan node becomes an async generator of batches
// that pulls from its children (DESIGN.md "Shape"). Scans read committed
// snapshots; every operator checks the abort signal between batches.
import { SvcError } from '../errors/svc-error.js';
import type { ColumnVector } from '../storage/column-vector.js';
import { DEFAULT_BATCH_ROWS, type Batch } from '../storage/table-reader.js';
import type { Plan } from '../sql/bound.js';
import { runAggregate } from './aggregate.js';
import { runLatestBy } from './latest-by.js';
import { runAsofJoin } from './asof-join.js';
import { runSampleFill } from './sample-fill.js';
import { collect, concatBatches, gatherBatch, sliceBatches } from './batches.js';
import { checkMemory, pace, type ExecContext } from './context.js';
import { compileExpr } from './expr.js';
import { prepareSubqueries } from './subqueries.js';
import { metadataRows } from './metadata-rows.js';
import { runSort } from './sort.js';
import { runWindow } from './window.js';
import { fromValues, rowKey, valueAt } from './vectors.js';
import { nullVector } from '../storage/column-vector.js';
import type { ColumnType } from '../storage/column-type.js';

export function run(plan: Plan, cx: ExecContext): AsyncGenerator<Batch> {
  switch (plan.kind) {
    case 'scan': return runScan(plan, cx);
    case 'input': {
      const input = cx.inputs?.get(plan.name);
      if (!input) throw new Error(`no batches were handed in for input ${plan.name}`);
      return (async function* () { yield* input; })();
    }
    case 'oneRow': return (async function* () { yield { rowCount: 1, columns: [] }; })();
    case 'longSequence': return runLongSequence(plan.count, cx);
    case 'metadata': return (async function* () { yield* sliceBatches(metadataRows(plan, cx.catalog)); })();
    case 'filter': return runFilter(plan, cx);
    case 'project': return runProject(plan, cx);
    case 'aggregate': return runAggregate(plan, run(plan.input, cx), cx);
    case 'window': return runWindow(plan, run(plan.input, cx), cx);
    case 'sort': return runSort(plan, run(plan.input, cx), cx);
    case 'limit': return runLimit(plan, cx);
    case 'distinct': return runDistinct(plan, cx);
    case 'reverse': return runReverse(plan, cx);
    case 'latestBy': return runLatestBy(plan, run(plan.input, cx), cx);
    case 'asofJoin': return runAsofJoin(plan, run(plan.left, cx), run(plan.right, cx)[Symbol.asyncIterator](), cx);
    case 'sampleFill': return runSampleFill(plan, run(plan.input, cx), cx);
    case 'join': return runJoin(plan, cx);
    case 'setOp': return runSetOp(plan, cx);
  }
}

async function* runScan(plan: Extract<Plan, { kind: 'scan' }>, cx: ExecContext): AsyncGenerator<Batch> {
  const reader = cx.catalog.reader(plan.table);
  try {
    for (const b of reader.scan({ columns: plan.columns, intervals: plan.intervals ?? undefined, backwards: plan.backwards === true, batchRows: plan.batchRows })) {
      await pace(cx);
      yield b;
    }
  } finally {
    reader.close();
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
  const pred = compileExpr(plan.predicate);
  for await (const b of run(plan.input, cx)) {
    const mask = (pred(b) as { data: Uint8Array }).data;
    let count = 0;
    for (let i = 0; i < b.rowCount; i++) count += mask[i]!;
    if (count === 0) continue;
    if (count === b.rowCount) { yield b; continue; }
    const idx = new Int32Array(count);
    for (let i = 0, j = 0; i < b.rowCount; i++) if (mask[i]) idx[j++] = i;
    yield gatherBatch(b, idx);
  }
}

async function* runProject(plan: Extract<Plan, { kind: 'project' }>, cx: ExecContext): AsyncGenerator<Batch> {
  await prepareSubqueries(plan.exprs, cx);
  const fns = plan.exprs.map(compileExpr);
  for await (const b of run(plan.input, cx)) {
    yield { rowCount: b.rowCount, columns: fns.map((f) => f(b)) };
  }
}

/**
 * The input reading batches of at most `rows` rows from its scan when only projections (or the
 * reversal of a newest-first scan: ORDER BY ts DESC) lie between them: a LIMIT of a few rows then
 * reads a few rows of each column, not a whole batch.
 */
function smallBatches(p: Plan, rows: number): Plan {
  switch (p.kind) {
    case 'scan': return { ...p, batchRows: Math.max(1, rows) };
    case 'project': case 'reverse': return { ...p, input: smallBatches(p.input, rows) };
    default: return p;
  }
}

async function* runLimit(plan: Extract<Plan, { kind: 'limit' }>, cx: ExecContext): AsyncGenerator<Batch> {
  if (plan.last !== null) {
    // Keep only the batches that can hold the last rows.
    const kept: Batch[] = [];
    let rows = 0;
    for await (const b of run(plan.input, cx)) {
      kept.push(b);
      rows += b.rowCount;
      while (kept.length > 1 && rows - kept[0]!.rowCount >= plan.last) rows -= kept.shift()!.rowCount;
    }
    const all = concatBatches(kept, plan.fields.length);
    yield* sliceBatches(all, Math.max(0, all.rowCount - plan.last), all.rowCount);
    return;
  }
  let seen = 0;
  if (plan.hi <= plan.lo) return;
  const input = plan.hi < DEFAULT_BATCH_ROWS ? smallBatches(plan.input, plan.hi) : plan.input;
  for await (const b of run(input, cx)) {
    const start = seen, end = seen + b.rowCount;
    seen = end;
    if (end <= plan.lo) continue;
    const from = Math.max(0, plan.lo - start), to = Math.min(b.rowCount, plan.hi - start);
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
  const seen = new Set<string>();
  for await (const b of run(plan.input, cx)) {
    const keep: number[] = [];
    for (let i = 0; i < b.rowCount; i++) {
      const k = rowKey(b.columns, i);
      if (!seen.has(k)) { seen.add(k); keep.push(i); }
    }
    checkMemory(cx, seen.size * 64, 'DISTINCT');
    if (keep.length > 0) yield gatherBatch(b, Int32Array.from(keep));
  }
}

async function* runJoin(plan: Extract<Plan, { kind: 'join' }>, cx: ExecContext): AsyncGenerator<Batch> {
  const right = await collect(run(plan.right, cx), plan.right.fields.length, cx, 'JOIN');
  await prepareSubqueries([plan.residual], cx);
  const residual = plan.residual ? compileExpr(plan.residual) : null;
  const rightTypes = plan.right.fields.map((f) => (f.type === 'NULL' ? 'DOUBLE' : f.type) as ColumnType);
  // Hash of the right side's keys -> row numbers.
  const table = new Map<string, number[]>();
  if (plan.type !== 'CROSS') {
    const keyCols = plan.rightKeys.map((k) => right.columns[k]!);
    for (let i = 0; i < right.rowCount; i++) {
      const k = rowKey(keyCols, i);
      if (keyCols.some((c) => valueAt(c, i) === null)) continue; // NULL keys never match
      const list = table.get(k);
      if (list) list.push(i); else table.set(k, [i]);
    }
  }
  for await (const b of run(plan.left, cx)) {
    const li: number[] = [];
    const ri: number[] = [];
    const leftKeys = plan.leftKeys.map((k) => b.columns[k]!);
    for (let i = 0; i < b.rowCount; i++) {
      const matches = plan.type === 'CROSS' ? null : table.get(rowKey(leftKeys, i));
      if (plan.type === 'CROSS') for (let r = 0; r < right.rowCount; r++) { li.push(i); ri.push(r); }
      else if (matches) for (const r of matches) { li.push(i); ri.push(r); }
      else if (plan.type === 'LEFT') { li.push(i); ri.push(-1); }
    }
    checkMemory(cx, li.length * 8, 'JOIN');
    if (li.length === 0) { await pace(cx); continue; }
    let joined = joinRows(b, right, Int32Array.from(li), Int32Array.from(ri), rightTypes);
    if (residual) {
      const mask = (residual(joined) as { data: Uint8Array }).data;
      const keepL: number[] = [];
      const keepR: number[] = [];
      // LEFT JOIN: a left row whose matches all fail the ON condition still appears once, with NULLs.
      let i = 0;
      while (i < joined.rowCount) {
        let j = i;
        let any = false;
        while (j < joined.rowCount && li[j] === li[i]) {
          if (mask[j] && ri[j]! >= 0) { keepL.push(li[j]!); keepR.push(ri[j]!); any = true; }
          j++;
        }
        if (!any && plan.type === 'LEFT') { keepL.push(li[i]!); keepR.push(-1); }
        i = j;
      }
      joined = joinRows(b, right, Int32Array.from(keepL), Int32Array.from(keepR), rightTypes);
    }
    if (joined.rowCount > 0) yield* sliceBatches(joined);
    await pace(cx);
  }
}

export function joinRows(left: Batch, right: Batch, li: Int32Array, ri: Int32Array, rightTypes: ColumnType[]): Batch {
  const l = gatherBatch(left, li);
  const hasMissing = ri.some((r) => r < 0);
  const rcols: ColumnVector[] = rightTypes.map((t, c) => {
    if (right.rowCount === 0) return nullVector(t, ri.length);
    if (!hasMissing) return gatherBatch({ rowCount: right.rowCount, columns: [right.columns[c]!] }, ri).columns[0]!;
    const values = Array.from(ri, (r) => (r < 0 ? null : valueAt(right.columns[c]!, r)));
    return fromValues(t, values);
  });
  return { rowCount: li.length, columns: [...l.columns, ...rcols] };
}

async function* runSetOp(plan: Extract<Plan, { kind: 'setOp' }>, cx: ExecContext): AsyncGenerator<Batch> {
  if (plan.op === 'UNION' && plan.all) {
    yield* run(plan.left, cx);
    yield* run(plan.right, cx);
    return;
  }
  if (plan.op === 'UNION') {
    const seen = new Set<string>();
    for (const side of [plan.left, plan.right]) {
      for await (const b of run(side, cx)) {
        const keep: number[] = [];
        for (let i = 0; i < b.rowCount; i++) { const k = rowKey(b.columns, i); if (!seen.has(k)) { seen.add(k); keep.push(i); } }
        if (keep.length) yield gatherBatch(b, Int32Array.from(keep));
      }
    }
    return;
  }
  const rightRows = new Map<string, number>();
  for await (const b of run(plan.right, cx)) {
    for (let i = 0; i < b.rowCount; i++) { const k = rowKey(b.columns, i); rightRows.set(k, (rightRows.get(k) ?? 0) + 1); }
  }
  const emitted = new Set<string>();
  const intersect = plan.op === 'INTERSECT';
  for await (const b of run(plan.left, cx)) {
    const keep: number[] = [];
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
      keep.push(i);
    }
    if (keep.length) yield gatherBatch(b, Int32Array.from(keep));
  }
  if (plan.op !== 'INTERSECT' && plan.op !== 'EXCEPT') throw new SvcError('SQL', `unsupported set operation ${plan.op}`);
}
