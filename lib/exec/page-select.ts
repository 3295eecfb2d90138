// A WHERE over a table's scan by pages (`select * from t where sym in ('a',
// 'b') and price > 10`), when exec/page-filter.ts can make a page term of it:
// which rows of each page pass is found on this thread and on the worker pool
// (exec/page-task.ts selectPages, reading the read cache's shared memory and
// the partitions' text codes), then this thread reads the columns of the
// pages that have passing rows and keeps those rows, page after page in scan
// order: the rows and their order are the row path's on any number of threads.
// Rounds start at one batch and double up to cairo.sql.page.frame.max.rows,
// so that a LIMIT that is met early reads little more than the row path does.
import type { Batch } from '../core/batch.js';
import { DEFAULT_BATCH_ROWS } from '../core/batch.js';
import { gatherBatch } from '../core/vector-ops.js';
import type { Plan } from '../sql/bound.js';
import type { ColumnDef } from '../storage/table-state.js';
import { pace, tablesOf, type ExecContext } from './context.js';
import { FilterTables, pageScan, partRequest, requestTerm, type FilteredPage, type PartShape } from './page-filter.js';
import { pageBytes, summarizeParts, type PageBytes } from './page-rounds.js';
import { SELECT_PAGES, selectPages, type PageSummaryRequest } from './page-task.js';
import { builtTextColumns, textKeyColumns } from './text-keys.js';

type FilterPlan = Extract<Plan, { kind: 'filter' }>;

/** The filter's batches by pages when pages can evaluate its predicate over a scan; null otherwise. `rowByRow` is the general path. */
export function pageSelect(
  plan: FilterPlan,
  cx: ExecContext,
  rowByRow: () => AsyncGenerator<Batch>,
): AsyncGenerator<Batch> | null {
  const paged = pageScan(plan, cx);
  if (paged === null || paged.filter === null) return null;
  const { scan, filter } = paged;
  return (async function* () {
    const reader = tablesOf(cx).reader(scan.table);
    const ranges = reader.ranges(scan.intervals ?? undefined);
    const tables = new FilterTables(filter, reader, scan, cx);
    if (!tables.cover(ranges)) {
      reader.close();
      yield* rowByRow();
      return;
    }
    cx.atEnd.push(() => reader.close());
    cx.scanReaders.set(scan, reader);
    const cols = scan.columns.map((n) => reader.column(n));
    // The text columns wanted with codes, as runScan reads them.
    const textOf = (want: ReadonlySet<string> | undefined): Set<ColumnDef> | undefined =>
      want === undefined || want.size === 0
        ? undefined
        : new Set(cols.filter((c) => (c.type === 'VARCHAR' || c.type === 'STRING') && want.has(c.name)));
    const coded = textOf(textKeyColumns(scan));
    const codedIfBuilt = textOf(builtTextColumns(scan));
    const used = filter.numbers;
    const defs = used.map((i) => cols[i]!);
    const shape: PartShape = {
      types: defs.map((d) => d.type),
      kinds: [],
      columns: [],
      term: requestTerm(filter.term, (c) => used.indexOf(c)),
      leaves: filter.texts.length,
    };
    const partOf =
      (pages: readonly FilteredPage[], bytes: PageBytes) =>
      (from: number, to: number): PageSummaryRequest =>
        partRequest(shape, pages, bytes, from, to);
    const size = DEFAULT_BATCH_ROWS;
    let round: FilteredPage[] = [];
    let roundRows = 0;
    let limit = size;
    const pages = function* (): Generator<FilteredPage[]> {
      for (const r of ranges) {
        const pf = r.hi > r.lo ? tables.of(r.partition) : null;
        for (let lo = r.lo; lo < r.hi;) {
          const hi = Math.min(r.hi, (Math.floor(lo / size) + 1) * size);
          round.push({ p: r.partition, lo, hi, filter: pf });
          roundRows += hi - lo;
          lo = hi;
          if (roundRows >= limit) {
            yield round;
            round = [];
            roundRows = 0;
            limit = Math.min(limit * 2, Math.max(size, cx.pageFrame.maxRows));
          }
        }
      }
      if (round.length > 0) yield round;
    };
    for (const these of pages()) {
      await pace(cx);
      const rows = these.reduce((s, g) => s + g.hi - g.lo, 0);
      const bytes = pageBytes(reader, these, defs);
      const { results } = await summarizeParts(these, rows, cx, partOf(these, bytes), SELECT_PAGES, selectPages);
      let i = 0;
      for (const out of results) {
        for (let at = 0; at < out.length; i++) {
          const g = these[i]!,
            k = out[at]!;
          const passing = out.subarray(at + 1, at + 1 + k);
          at += 1 + k;
          if (k === 0) continue;
          const b: Batch = { rowCount: g.hi - g.lo, columns: reader.read(g.p, cols, g.lo, g.hi, coded, codedIfBuilt) };
          yield k === b.rowCount ? b : gatherBatch(b, passing);
        }
      }
    }
  })();
}
