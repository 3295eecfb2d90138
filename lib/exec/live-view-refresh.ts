// A live view's refresh. The view's window query runs over its base table's rows from START FROM
// on, every time: a window with PARTITION BY needs each partition's earlier rows, and svcdb keeps
// no window state between refreshes, so the computation is not incremental. What is written is:
// when the base table only grew in timestamp order since the last refresh (the usual ingestion),
// the rows the view already holds are the query's first rows unchanged, and only the rows after
// them are appended. Otherwise (out-of-order or deduplicated rows, an UPDATE: a base partition
// rewritten; the first refresh) the view's rows are replaced by the query's in one commit
// (TableWriter.replaceAll: readers see the old rows or the new ones). Rows the base table lost
// (TRUNCATE, DROP PARTITION, its TTL) stay in the view, which carries on after its last row, as
// QuestDB's do. The view's data is committed before its state, so a crash between them repeats
// the refresh, which finds the same rows.
import { SvcError, errorMessage } from '../errors/svc-error.js';
import type { Batch } from '../core/batch.js';
import { sliceBatch } from '../core/vector-ops.js';
import { bindQuery, type BindContext } from '../sql/binder.js';
import type { Plan } from '../sql/bound.js';
import { parseStatement } from '../sql/parser.js';
import type { MatViewState, SeenPartition } from '../storage/mat-views.js';
import type { Table } from '../storage/table.js';
import type { TableWriter } from '../storage/table-writer.js';
import { endStatement, execContext } from './context.js';
import { appendRows } from './insert.js';
import type { RefreshEnv, RefreshResult } from './mat-view-refresh.js';

/** How a refresh writes: the new rows after the view's last one, or every row. */
type Mode = 'append' | 'freeze' | 'replace';

/** Thrown inside an append when the query's first rows are not the view's rows (ties at the last timestamp). */
class NotAPrefix extends Error {}

/** Refreshes the live view `name` when its base table committed since its last refresh. */
export async function refreshLiveView(name: string, env: RefreshEnv, signal: AbortSignal): Promise<RefreshResult> {
  const { catalog } = env;
  const view = catalog.get(name);
  const mv = view.mv;
  if (mv?.def.live === undefined) throw new SvcError('SQL', `live view expected [view=${name}]`);
  const state = mv.state;
  if (state.invalid !== null || state.liveSuspended === true) return { rows: 0, interval: null };
  let base: Table;
  try {
    base = catalog.get(mv.def.baseTable);
  } catch {
    catalog.setMatViewState(view, { ...state, invalid: `base table does not exist [table=${mv.def.baseTable}]` });
    return { rows: 0, interval: null };
  }
  const txn = base.txn;
  if (txn.txn === state.baseTxn) return { rows: 0, interval: null };
  const started = nowMicros();
  const seen = txn.partitions.map((p): SeenPartition => ({
    name: p.name,
    dir: p.dir,
    rows: p.rows,
    minTs: p.minTs,
    maxTs: p.maxTs,
  }));
  let mode = state.baseTxn < 0 ? 'replace' : modeOf(state.basePartitions, seen);
  let written: { rows: number; outRows: number };
  try {
    try {
      written = await write(view, base, mode, env, signal);
    } catch (e) {
      if (!(e instanceof NotAPrefix)) throw e;
      mode = 'replace';
      written = await write(view, base, mode, env, signal);
    }
  } catch (e) {
    // The query no longer binds or runs on the base table (a SQL error): the view cannot follow it.
    if (e instanceof SvcError && e.code === 'SQL' && !signal.aborted) {
      catalog.setMatViewState(view, { ...view.mv!.state, invalid: `refresh failed: ${errorMessage(e)}` });
    }
    throw e;
  }
  const rows = view.txn.partitions;
  const next: MatViewState = {
    ...view.mv!.state,
    baseTxn: txn.txn,
    basePartitions: seen,
    lastRefreshStart: started,
    lastRefreshFinish: nowMicros(),
    liveRows: written.outRows,
    liveLastTs: rows.length === 0 ? null : rows[rows.length - 1]!.maxTs,
    liveAppended: mode !== 'replace',
  };
  catalog.setMatViewState(view, next);
  const lo = state.liveLastTs ?? null;
  return { rows: written.rows, interval: mode === 'replace' || lo === null ? null : [lo, Infinity] };
}

/**
 * How the base table changed between two lists of its partitions: only rows appended after its
 * last ones (same folders with more rows, new partitions after the old ones) is 'append'; rows
 * gone (a partition dropped or shorter) is 'freeze'; anything else (a partition rewritten: late
 * rows merged, deduplication, UPDATE; a new partition before the last) is 'replace'.
 */
export function modeOf(before: readonly SeenPartition[], now: readonly SeenPartition[]): Mode {
  const old = new Map(before.map((p) => [p.name, p]));
  const oldMax = before.reduce((m, p) => Math.max(m, p.maxTs), -Infinity);
  let mode: Mode = 'append';
  for (const p of now) {
    const o = old.get(p.name);
    old.delete(p.name);
    if (o === undefined) {
      if (p.minTs < oldMax) return 'replace';
    } else if (o.dir !== p.dir) {
      if (p.rows < o.rows) mode = 'freeze';
      else return 'replace';
    } else if (p.rows < o.rows) mode = 'freeze';
  }
  if (old.size > 0) mode = 'freeze';
  return mode;
}

/**
 * Runs the view's query (its base table's rows from START FROM on) and writes its rows: after
 * the view's last timestamp ('append', 'freeze'), or all of them in place of the old ('replace').
 * `outRows`: how many of the query's rows the view now reflects.
 */
async function write(
  view: Table,
  base: Table,
  mode: Mode,
  env: RefreshEnv,
  signal: AbortSignal,
): Promise<{ rows: number; outRows: number }> {
  const { catalog } = env;
  const mv = view.mv!;
  const live = mv.def.live!;
  const sql = mv.def.sql;
  const stmt = parseStatement(sql);
  if (stmt.kind !== 'query') throw new SvcError('INTERNAL', `live view ${view.name} has no query`);
  const bindCx: BindContext = { catalog, ...env.runtime, naming: env.bind?.naming, sql };
  const plan: Plan = bindQuery(
    stmt.query,
    live.startMicros === null
      ? bindCx
      : { ...bindCx, scanLimit: { table: base.meta.name, intervals: [[live.startMicros, Infinity]] } },
  );
  const names = plan.fields.map((f) => f.name);
  const cx = execContext(catalog, signal, env.runtime, env);
  const w: TableWriter = await catalog.writer(view.name, { matView: true });
  try {
    if (mode === 'replace') {
      w.replaceAll();
      // Its commit publishes the new rows only (no rows: the view is emptied).
      const rows = await appendRows(w, names, plan, cx, 0);
      return { rows, outRows: rows };
    }
    // The view's rows are the query's rows up to its last timestamp: those are skipped, the rest appended.
    const lastTs = mv.state.liveLastTs ?? -Infinity;
    const expect = mv.state.liveRows ?? 0;
    const tsIndex = plan.timestamp;
    let before = 0;
    let checked = mode === 'freeze';
    const keep = (b: Batch): Batch => {
      const ts = (b.columns[tsIndex] as { data: Float64Array }).data;
      let i = 0;
      while (i < b.rowCount && ts[i]! <= lastTs) i++;
      before += i;
      if (i < b.rowCount && !checked) {
        if (before !== expect) throw new NotAPrefix();
        checked = true;
      }
      return i === 0 ? b : sliceBatch(b, i, b.rowCount);
    };
    const rows = await appendRows(w, names, plan, cx, 0, keep);
    if (!checked && before !== expect) throw new NotAPrefix();
    return { rows, outRows: mode === 'freeze' ? before + rows : expect + rows };
  } finally {
    w.close();
    endStatement(cx);
  }
}

/** The wall clock in micros. */
function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}
