// Page summaries of numeric columns (functions/page-summary.ts) for keyless
// aggregates, as one task of the worker pool or on the calling thread: the same
// code either way, over the pages' bytes as the column files hold them.
import type { ColumnType } from '../core/column-type.js';
import { nullVector } from '../core/column-vector.js';
import { asDoubles } from '../core/vec.js';
import { pageSummary, type PageSummaryKind } from '../functions/page-summary.js';
import { fixedVector } from '../storage/column-files.js';
import { taskKind, type TaskOutput } from '../workers/worker-pool.js';

export interface PageSummaryRequest {
  /** The columns' types. */
  readonly types: readonly ColumnType[];
  /** Per summary: its kind and its column (an index into `types`; -1 for `rows`). */
  readonly kinds: readonly PageSummaryKind[];
  readonly columns: readonly number[];
  /** Per column, per page: the page's bytes (shared with the read cache where they lie in one chunk), null for a partition that predates the column. */
  readonly bytes: readonly (readonly (Uint8Array | null)[])[];
  /** Rows of each page. */
  readonly rows: readonly number[];
}

/** Summary k of page i at [k * pages + i]. */
export function summarizePages(m: PageSummaryRequest): Float64Array {
  const pages = m.rows.length;
  const out = new Float64Array(m.kinds.length * pages);
  for (let c = 0; c < m.types.length; c++) {
    const type = m.types[c]!;
    for (let i = 0; i < pages; i++) {
      const n = m.rows[i]!;
      const b = m.bytes[c]![i]!;
      const x = asDoubles(b === null ? nullVector(type, n) : fixedVector(type, b, n));
      for (let k = 0; k < m.kinds.length; k++)
        if (m.columns[k] === c) out[k * pages + i] = pageSummary(m.kinds[k]!, x, n);
    }
  }
  for (let k = 0; k < m.kinds.length; k++)
    if (m.columns[k] === -1) for (let i = 0; i < pages; i++) out[k * pages + i] = m.rows[i]!;
  return out;
}

/** summarizePages in a pool thread; the summaries go back transferred. */
export function summarizePagesTask(m: PageSummaryRequest): TaskOutput<Float64Array> {
  const out = summarizePages(m);
  return { value: out, transfer: [out.buffer as ArrayBuffer] };
}

export const SUMMARIZE_PAGES = taskKind<PageSummaryRequest, Float64Array>(import.meta.url, 'summarizePagesTask');
