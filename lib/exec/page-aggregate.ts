// Keyless aggregates over a table's numeric columns by pages (`select sum(x),
// min(y), count() from t [where ts in ... and sym = 'a' and x > 0]`): each page
// (the rows of one scan batch, aligned as TableReader.scan aligns them) is
// filtered (exec/page-filter.ts) and summarized on this thread or on the worker
// pool, reading the read cache's shared memory, and the states take the
// summaries in page order: the same result on any number of threads.
import type { Batch } from '../core/batch.js';
import { DEFAULT_BATCH_ROWS } from '../core/batch.js';
import type { SqlType } from '../core/sql-type.js';
import type { AggregateState } from '../functions/registry.js';
import type { Plan } from '../sql/bound.js';
import type { ColumnDef } from '../storage/table-state.js';
import type { TableReader } from '../storage/table-reader.js';
import { gatherVector } from '../core/vector-ops.js';
import { pace, tablesOf, type ExecContext } from './context.js';
import {
  FilterTables,
  pageScan,
  partRequest,
  requestTerm,
  type FilteredPage,
  type PartShape,
  type ScanFilter,
} from './page-filter.js';
import { pageBytes, summarizeParts } from './page-rounds.js';
import { passingRows, SUMMARIZE_PAGES, summarizePages, type PageSummaryRequest } from './page-task.js';

type AggregatePlan = Extract<Plan, { kind: 'aggregate' }>;
type ScanPlan = Extract<Plan, { kind: 'scan' }>;

/** Column types a page is summarized over (as asDoubles reads them). */
const PAGE_TYPES: ReadonlySet<SqlType> = new Set([
  'DOUBLE',
  'FLOAT',
  'INT',
  'LONG',
  'TIMESTAMP',
  'DATE',
  'SHORT',
  'BYTE',
]);

type Page = FilteredPage;

/**
 * The aggregate's batches by pages when it can run so (no keys, over a scan or a filter of one
 * that pages can evaluate, each aggregate a state that takes page summaries of one numeric column,
 * or count()); null otherwise. `rowByRow` is the general path, taken when a partition has no
 * codes for a text column the filter reads.
 */
export function pageAggregate(
  plan: AggregatePlan,
  cx: ExecContext,
  rowByRow: () => AsyncGenerator<Batch>,
): AsyncGenerator<Batch> | null {
  if (plan.keys.length !== 0 || plan.bucketKey !== undefined) return null;
  const paged = pageScan(plan.input, cx);
  if (paged === null) return null;
  const { scan, filter } = paged;
  const states = plan.aggregates.map((a) => a.fn.create());
  const columns: number[] = []; // per aggregate: index of its column in scan.columns, -1 for count()
  for (let k = 0; k < states.length; k++) {
    const s = states[k]!,
      args = plan.aggregates[k]!.args;
    if (s.pageSummary === undefined || s.takeSummary === undefined) return null;
    if (args.length === 0 && s.pageSummary === 'rows') columns.push(-1);
    else if (args.length === 1 && args[0]!.kind === 'col' && PAGE_TYPES.has(args[0]!.type) && s.pageSummary !== 'rows')
      columns.push(args[0]!.index);
    else return null;
  }
  return run(scan, filter, states, columns, cx, rowByRow);
}

async function* run(
  scan: ScanPlan,
  filter: ScanFilter | null,
  states: readonly AggregateState[],
  columns: readonly number[],
  cx: ExecContext,
  rowByRow: () => AsyncGenerator<Batch>,
): AsyncGenerator<Batch> {
  const reader = tablesOf(cx).reader(scan.table);
  const ranges = reader.ranges(scan.intervals ?? undefined);
  // The filter's tables of every partition first: one without codes for its text takes the general path.
  const tables = filter === null ? null : new FilterTables(filter, reader, scan, cx);
  if (tables !== null && !tables.cover(ranges)) {
    reader.close();
    yield* rowByRow();
    return;
  }
  cx.atEnd.push(() => reader.close());
  cx.scanReaders.set(scan, reader);
  // The columns read, each once (the aggregates' and the filter's), and each summary's column among them.
  const used = [...new Set([...columns.filter((c) => c >= 0), ...(filter?.numbers ?? [])])];
  const defs = used.map((i) => reader.column(scan.columns[i]!));
  if (defs.some((d) => !PAGE_TYPES.has(d.type))) throw new Error('page aggregate over a column that is not numeric');
  const request: RequestShape = {
    types: defs.map((d) => d.type),
    kinds: states.map((s) => s.pageSummary!),
    columns: columns.map((c) => (c < 0 ? -1 : used.indexOf(c))),
    term: filter === null ? null : requestTerm(filter.term, (c) => used.indexOf(c)),
    leaves: filter?.texts.length ?? 0,
  };
  const round: Page[] = [];
  let roundRows = 0;
  const size = DEFAULT_BATCH_ROWS;
  for (const r of ranges) {
    const pf = tables?.of(r.partition) ?? null;
    for (let lo = r.lo; lo < r.hi;) {
      const hi = Math.min(r.hi, (Math.floor(lo / size) + 1) * size);
      round.push({ p: r.partition, lo, hi, filter: pf });
      roundRows += hi - lo;
      lo = hi;
      if (roundRows >= cx.pageFrame.maxRows) {
        await summarizeRound(reader, round, roundRows, defs, request, states, cx);
        round.length = 0;
        roundRows = 0;
      }
    }
  }
  if (round.length > 0) await summarizeRound(reader, round, roundRows, defs, request, states, cx);
  yield { rowCount: 1, columns: states.map((s) => s.result(1)) };
}

type RequestShape = PartShape;

/** One round: its pages split into contiguous parts, all but the first summarized on the pool, then taken in page order. */
async function summarizeRound(
  reader: TableReader,
  pages: readonly Page[],
  rows: number,
  defs: readonly ColumnDef[],
  shape: RequestShape,
  states: readonly AggregateState[],
  cx: ExecContext,
): Promise<void> {
  await pace(cx);
  const bytes = pageBytes(reader, pages, defs);
  const partOf = (from: number, to: number): PageSummaryRequest => partRequest(shape, pages, bytes, from, to);
  // Rounds are cx.pageFrame.maxRows (pace and abort are checked between them).
  const { bounds, results } = await summarizeParts(pages, rows, cx, partOf, SUMMARIZE_PAGES, summarizePages);
  const ids = new Int32Array(DEFAULT_BATCH_ROWS);
  for (let k = 0; k < results.length; k++) {
    const out = results[k]!,
      from = bounds[k]!,
      count = bounds[k + 1]! - from;
    for (let i = 0; i < count; i++) {
      const g = pages[from + i]!,
        n = out[states.length * count + i]!; // the rows that passed the filter
      let rows: Int32Array | null | undefined;
      for (let a = 0; a < states.length; a++) {
        const s = states[a]!;
        if (s.takeSummary!(out[a * count + i]!, n)) continue;
        // The state needs the rows (a NULL in a sum, integers past 2^53): update() with those that pass, as the batch path does.
        rows ??= passingRows(partOf(from + i, from + i + 1), 0)?.slice() ?? null;
        const c = shape.columns[a]!;
        const v = reader.read(g.p, [defs[c]!], g.lo, g.hi)[0]!;
        s.update(ids.length === n ? ids : ids.subarray(0, n), [rows === null ? v : gatherVector(v, rows)], n, 1);
      }
    }
  }
}
