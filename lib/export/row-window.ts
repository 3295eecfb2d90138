// Which rows of a result a response carries: all, [lo, hi), or the last n;
// and, on request, how many rows the query matched in total (counted past the
// window without serializing them). Shared by the JSON and CSV responses.
import type { Batch } from '../core/batch.js';
import { loadLazyText } from '../core/vector-ops.js';

export interface RowWindow {
  /** First row (0-based) and the row after the last; hi may be Infinity. */
  readonly lo: number;
  readonly hi: number;
  /** Instead: the last `last` rows. */
  readonly last: number | null;
}

export interface RowStats {
  /** Rows sent. */
  sent: number;
  /** Rows the query produced (all of them when counting, else as far as it was read). */
  matched: number;
  /** A failure after part of the body was sent, reported inside the body (JSON) rather than thrown. */
  error?: unknown;
}

/**
 * The parts of the stream's batches inside the window: [batch, from, to) slices. Their lazy
 * text is read unless `consumedAtOnce` (a writer that copies each slice's rows before it asks
 * for the next, while the statement runs: text it never reads, such as text it takes by its
 * dictionary codes, is then never read).
 */
export async function* windowRows(
  batches: AsyncIterable<Batch>,
  win: RowWindow | null,
  countAll: boolean,
  stats: RowStats,
  consumedAtOnce = false,
): AsyncGenerator<readonly [Batch, number, number]> {
  if (win !== null && win.last !== null) {
    const keep = win.last;
    const kept: Batch[] = [];
    let rows = 0;
    for await (const b of batches) {
      if (b.rowCount === 0) continue;
      stats.matched += b.rowCount;
      kept.push(loadLazyText(b)); // kept past the statement's end
      rows += b.rowCount;
      while (kept.length > 1 && rows - kept[0]!.rowCount >= keep) rows -= kept.shift()!.rowCount;
    }
    let skip = Math.max(0, rows - keep);
    for (const b of kept) {
      const from = Math.min(skip, b.rowCount);
      skip -= from;
      if (from < b.rowCount) {
        stats.sent += b.rowCount - from;
        yield [b, from, b.rowCount];
      }
    }
    return;
  }
  const lo = win?.lo ?? 0;
  const hi = win?.hi ?? Infinity;
  let seen = 0;
  for await (const b of batches) {
    const start = seen;
    seen += b.rowCount;
    stats.matched += b.rowCount;
    const from = Math.max(0, lo - start),
      to = Math.min(b.rowCount, hi - start);
    if (to > from) {
      stats.sent += to - from;
      yield [consumedAtOnce ? b : loadLazyText(b), from, to]; // a writer may buffer it past the statement's end
    }
    if (seen >= hi && !countAll) return; // stops the query: its generators run their finally blocks
  }
}
