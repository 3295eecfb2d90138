// One round of a scan by pages (exec/page-aggregate.ts, exec/page-group.ts):
// the pages' bytes as the read cache holds them (looked up part by part), and the round cut into
// contiguous parts, all but the first summarized on the worker pool and the
// first on this thread meanwhile; the results come back in part order.
import type { PartitionState, ColumnDef } from '../storage/table-state.js';
import type { TableReader } from '../storage/table-reader.js';
import type { TaskKind } from '../workers/worker-pool.js';
import type { ExecContext } from './context.js';

/** A page: rows [lo, hi) of one partition (at most one scan batch). */
export interface PageRange {
  readonly p: PartitionState;
  readonly lo: number;
  readonly hi: number;
}

/**
 * Per column, per page of [from, to): the page's bytes (shared with the read cache where they lie
 * in one chunk), null for a partition that predates the column.
 */
export type PageBytes = (from: number, to: number) => (Uint8Array | null)[][];

/**
 * The pages' bytes as the read cache holds them, looked up a part at a time when the part is made
 * (summarizeParts makes the pool's parts first, so the threads start while this one looks up its own).
 */
export function pageBytes(reader: TableReader, pages: readonly PageRange[], defs: readonly ColumnDef[]): PageBytes {
  // Per column: the partition last looked at and its reader of pages (null: the partition predates the column).
  const parts: (PartitionState | null)[] = defs.map(() => null);
  const ats: (((lo: number, hi: number) => Uint8Array) | null)[] = defs.map(() => null);
  return (from, to) =>
    defs.map((d, c) => {
      const out = new Array<Uint8Array | null>(to - from);
      for (let i = from; i < to; i++) {
        const g = pages[i]!;
        if (g.p !== parts[c]) {
          parts[c] = g.p;
          ats[c] = reader.fixedBytes(g.p, d);
        }
        const at = ats[c]!;
        out[i - from] = at === null ? null : at(g.lo, g.hi);
      }
      return out;
    });
}

/**
 * The `pages` (`rows` in all) cut into parts of contiguous pages, one per thread, each summarized by
 * `summarize` (the task `kind` on a pool thread; the first part here), results in part order with
 * the page bounds of each part. A part smaller than `minRows` (cx.pageFrame.minRows unless the
 * caller's rows cost more) stays on this thread: the task's round trip (its shared pages posted,
 * the thread's reply) would cost more than it saves.
 */
export async function summarizeParts<I, O>(
  pages: readonly PageRange[],
  rows: number,
  cx: ExecContext,
  partOf: (from: number, to: number) => I,
  kind: TaskKind<I, O>,
  summarize: (input: I) => O,
  minRows = cx.pageFrame.minRows,
): Promise<{ readonly bounds: readonly number[]; readonly results: readonly O[] }> {
  const pool = cx.workers();
  const parts = pool === null ? 1 : Math.max(1, Math.min(pool.threads + 1, Math.floor(rows / minRows)));
  // Part boundaries by pages (pages are at most one batch: near enough to equal rows).
  const bounds = Array.from({ length: parts + 1 }, (_, k) => Math.round((k * pages.length) / parts));
  const tasks: Promise<O>[] = [];
  for (let k = 1; k < parts; k++) {
    const part = partOf(bounds[k]!, bounds[k + 1]!);
    tasks.push(
      pool!.run(kind, part, [], cx.signal).catch((e: unknown) => {
        if (cx.signal.aborted) throw e;
        return summarize(part); // a thread that failed (died, pool closing): the work here instead
      }),
    );
  }
  const results = [summarize(partOf(bounds[0]!, bounds[1]!)), ...(await Promise.all(tasks))];
  return { bounds, results };
}
