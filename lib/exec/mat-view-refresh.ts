// A materialized view's refresh: which of its base table's time ranges changed since the view
// last saw it (the base partitions it recorded against the ones committed now: a new partition,
// a rewritten one, rows appended to the last), those ranges widened to whole SAMPLE BY buckets,
// the view's query run over them only (its scans of the base table limited to them), and the
// rows written into the view's table, whose DEDUP keys (the bucket and the query's keys) make
// them replace the buckets' old rows. The work is proportional to the rows of the changed
// buckets, not to the base table. The view's data is committed first, then the state recording
// what it reflects: a crash between the two repeats the refresh, which writes the same rows.
import { SvcError, errorMessage } from '../errors/svc-error.js';
import type { Interval } from '../core/batch.js';
import { bindQuery, type BindContext } from '../sql/binder.js';
import { planBuckets } from '../sql/bind-sample-by.js';
import { Buckets, parseSampleInterval, unitMicros } from '../sql/sample-by.js';
import type { Plan } from '../sql/bound.js';
import type { Query } from '../sql/ast.js';
import { partitionCeil, partitionFloor } from '../storage/partition-by.js';
import { parseStatement } from '../sql/parser.js';
import type { Catalog } from '../storage/catalog.js';
import type { MatViewState, SeenPartition } from '../storage/mat-views.js';
import type { Table } from '../storage/table.js';
import type { PartitionState } from '../storage/table-state.js';
import { endStatement, execContext, type StatementLimits, type StatementRuntime } from './context.js';
import { appendRows } from './insert.js';

export type RefreshMode = 'incremental' | 'full' | 'range';

export interface RefreshRequest {
  readonly mode: RefreshMode;
  /** RANGE FROM .. TO: epoch micros, half-open. */
  readonly range?: Interval;
}

export interface RefreshResult {
  /** Rows written into the view (its changed buckets' rows). */
  readonly rows: number;
  /** The base table's rows the refresh read the buckets of: [lo, hi) micros, or null when nothing changed. */
  readonly interval: Interval | null;
}

/** What a refresh needs of the database: its tables, functions, limits and time. */
export interface RefreshEnv extends StatementLimits {
  readonly catalog: Catalog;
  readonly runtime: StatementRuntime;
  readonly bind?: Pick<BindContext, 'naming'>;
}

/**
 * Refreshes the materialized view `name`: incrementally (what changed since its last refresh),
 * in full (its rows replaced by the query over the whole base table; an invalid view is valid
 * again), or over a range. An invalid view is left as it is by an incremental refresh. A base
 * table whose rows went away since the view saw it (a partition dropped or shrunk) makes the view
 * invalid instead: only a full refresh can follow that.
 */
export async function refreshMatView(
  name: string,
  req: RefreshRequest,
  env: RefreshEnv,
  signal: AbortSignal,
): Promise<RefreshResult> {
  const { catalog } = env;
  const view = catalog.get(name);
  const mv = view.mv;
  if (mv === null) throw new SvcError('SQL', `materialized view expected, got table [table=${name}]`);
  if (mv.state.invalid !== null && req.mode === 'incremental') return { rows: 0, interval: null };
  const started = nowMicros();
  const state = mv.state;
  let base: Table;
  try {
    base = catalog.get(mv.def.baseTable);
  } catch {
    catalog.setMatViewState(view, {
      ...view.mv!.state,
      invalid: `base table does not exist [table=${mv.def.baseTable}]`,
    });
    return { rows: 0, interval: null };
  }
  // The base table as committed now: what this refresh records as seen (its query reads at least this).
  const txn = base.txn;
  const seen = txn.partitions.map(seenPartition);
  let interval: Interval | null;
  let pendingFrom: number | null = null;
  let periodHi: number | null = null;
  if (req.mode === 'range') interval = req.range!;
  else if (req.mode === 'full')
    interval = seen.length === 0 ? null : [seen[0]!.minTs, seen[seen.length - 1]!.maxTs + 1];
  else {
    const changed = changedRange(state.basePartitions, seen);
    if (typeof changed === 'string') {
      catalog.setMatViewState(view, { ...view.mv!.state, invalid: changed });
      return { rows: 0, interval: null };
    }
    interval = changed;
    // PERIOD: only whole periods are applied; the rest waits (pendingFrom) for its period to close.
    const period = periodOf(view, env);
    if (period !== null) {
      periodHi = period.hi(nowMicros());
      const from = state.pendingFrom ?? null;
      if (from !== null) interval = [Math.min(interval?.[0] ?? from, from), Infinity];
      if (interval !== null) {
        pendingFrom = interval[1] > periodHi ? Math.max(interval[0], periodHi) : null;
        interval = interval[0] < periodHi ? [interval[0], Math.min(interval[1], periodHi)] : null;
      }
    }
  }
  let rows = 0;
  if (interval !== null || req.mode === 'full') {
    try {
      const r = await writeBuckets(view, base, req.mode, interval, env, signal);
      rows = r.rows;
      interval = r.interval;
    } catch (e) {
      // The query no longer binds or runs on the base table (a SQL error): the view cannot follow it.
      // Anything else (the database closing, a busy writer, a full disk) leaves it to the next refresh.
      if (e instanceof SvcError && e.code === 'SQL' && !signal.aborted && req.mode !== 'full') {
        catalog.setMatViewState(view, { ...view.mv!.state, invalid: `refresh failed: ${errorMessage(e)}` });
      }
      throw e;
    }
  }
  const next: MatViewState =
    req.mode === 'range'
      ? { ...view.mv!.state, lastRefreshStart: started, lastRefreshFinish: nowMicros() }
      : {
          baseTxn: txn.txn,
          basePartitions: seen,
          lastRefreshStart: started,
          lastRefreshFinish: nowMicros(),
          // A view invalidated while this refresh ran (an UPDATE of the base table) stays invalid.
          invalid: req.mode === 'full' ? null : (view.mv?.state.invalid ?? null),
          pendingFrom,
          periodHi,
        };
  catalog.setMatViewState(view, next);
  return { rows, interval };
}

/**
 * Runs the view's query over `interval` of the base table (widened to whole buckets; all of it
 * for null) and writes its rows into the view's table in one commit (after emptying it, in full).
 */
async function writeBuckets(
  view: Table,
  base: Table,
  mode: RefreshMode,
  interval: Interval | null,
  env: RefreshEnv,
  signal: AbortSignal,
): Promise<{ rows: number; interval: Interval | null }> {
  const { catalog } = env;
  const sql = view.mv!.def.sql;
  const bindCx: BindContext = { catalog, ...env.runtime, naming: env.bind?.naming, sql };
  const stmt = parseStatement(sql);
  if (stmt.kind !== 'query') throw new SvcError('INTERNAL', `materialized view ${view.name} has no query`);
  let plan: Plan = bindQuery(stmt.query, bindCx);
  const buckets = planBuckets(plan);
  // A passthrough view (no buckets): its own columns of the query's rows (a `SELECT *` keeps the
  // columns the view was created with), and a change replaces the view's partitions it touches.
  const query = buckets === null ? passthroughQuery(view, sql) : stmt.query;
  let replace: readonly string[] = [];
  if (interval !== null) {
    if (buckets !== null) interval = [buckets.floor(interval[0]), buckets.next(buckets.floor(interval[1] - 1))];
    else if (mode !== 'full') {
      // Rows after everything the view holds (base rows appended in order) are appended as they are,
      // in one commit; a change reaching rows the view has replaces the view partitions it touches.
      const from0 = interval[0];
      if (view.txn.partitions.some((p) => p.maxTs >= from0)) {
        const by = view.meta.partitionBy;
        const lo = partitionFloor(by, interval[0]);
        interval = [lo, partitionCeil(by, partitionFloor(by, interval[1] - 1))];
        const [from, to] = interval;
        replace = view.txn.partitions.filter((p) => p.maxTs >= from && p.minTs < to).map((p) => p.name);
      }
    }
  }
  plan =
    interval !== null
      ? bindQuery(query, { ...bindCx, scanLimit: { table: base.meta.name, intervals: [interval] } })
      : bindQuery(query, bindCx);
  const cx = execContext(catalog, signal, env.runtime, env);
  const w = await catalog.writer(view.name, { matView: true });
  try {
    // A passthrough view's rows are replaced in the one commit that writes the new ones (readers
    // see the old rows or the new, never neither); an aggregating view's full refresh empties it
    // first (its rows replace buckets through its DEDUP keys otherwise).
    if (mode === 'full') {
      if (buckets === null) w.replaceAll();
      else w.truncate();
    } else if (replace.length > 0) w.replacePartitions(replace);
    const rows =
      interval !== null
        ? await appendRows(
            w,
            plan.fields.map((f) => f.name),
            plan,
            cx,
            0,
          )
        : 0;
    return { rows, interval };
  } finally {
    w.close();
    endStatement(cx);
  }
}

/**
 * `SELECT <the view's columns> FROM (<its query>) ORDER BY <its timestamp>`: a passthrough view's
 * rows as its table has them, in the timestamp order replacing its partitions needs (the base's
 * own order: nothing is sorted unless the query reorders its rows).
 */
function passthroughQuery(view: Table, sql: string): Query {
  const quote = (name: string): string => `"${name.replace(/"/g, '""')}"`;
  const cols = view.meta.columns.map((c) => quote(c.name)).join(', ');
  const ts = view.meta.columns.find((c) => c.id === view.meta.timestampId);
  const stmt = parseStatement(`SELECT ${cols} FROM (${sql})${ts !== undefined ? ` ORDER BY ${quote(ts.name)}` : ''}`);
  if (stmt.kind !== 'query') throw new SvcError('INTERNAL', `materialized view ${view.name} has no query`);
  return stmt.query;
}

/** A PERIOD view's periods: `hi(now)` is where the last period complete at `now` (after its DELAY) ends. */
export interface Periods {
  hi(now: number): number;
  /** When the period after the one ending at `hi` closes (its end plus the DELAY), in micros. */
  nextClose(hi: number): number;
}

/** A PERIOD view's periods (LENGTH in its zone, or the SAMPLE BY buckets), or null without PERIOD. */
export function periodOf(view: Table, env: RefreshEnv): Periods | null {
  const p = view.mv?.def.refresh.period ?? null;
  if (p === null) return null;
  let buckets: Buckets | null;
  let delay = 0;
  if (p === 'sample') {
    const stmt = parseStatement(view.mv!.def.sql);
    if (stmt.kind !== 'query') return null;
    buckets = planBuckets(bindQuery(stmt.query, { catalog: env.catalog, ...env.runtime }));
  } else {
    const { n, unit } = parseSampleInterval(p.length, 0);
    buckets = new Buckets({ n, unit, offset: 0, zone: p.timeZone, firstObservation: false }, null);
    if (p.delay !== null) {
      const d = parseSampleInterval(p.delay, 0);
      delay = d.n * unitMicros(d.unit);
    }
  }
  if (buckets === null) return null;
  const b = buckets;
  return { hi: (now) => b.floor(now - delay), nextClose: (hi) => b.next(hi) + delay };
}

function seenPartition(p: PartitionState): SeenPartition {
  return { name: p.name, dir: p.dir, rows: p.rows, minTs: p.minTs, maxTs: p.maxTs };
}

/**
 * The base table's time range [lo, hi) whose rows changed between two lists of its partitions
 * (null: nothing changed), or why a refresh of new rows cannot follow the change. A new
 * partition: its whole range. A rewritten one (new folder: out-of-order rows, deduplication,
 * UPDATE): its old and new range. Rows appended in order: from the old last timestamp on.
 */
export function changedRange(
  before: readonly SeenPartition[],
  now: readonly SeenPartition[],
): Interval | null | string {
  const old = new Map(before.map((p) => [p.name, p]));
  let lo = Infinity;
  let hi = -Infinity;
  const take = (a: number, b: number): void => {
    lo = Math.min(lo, a);
    hi = Math.max(hi, b);
  };
  for (const p of now) {
    const o = old.get(p.name);
    old.delete(p.name);
    if (o === undefined) take(p.minTs, p.maxTs);
    else if (p.rows < o.rows) return `base table rows were removed [partition=${p.name}]`;
    else if (o.dir !== p.dir) take(Math.min(o.minTs, p.minTs), Math.max(o.maxTs, p.maxTs));
    else if (p.rows > o.rows) take(o.maxTs, p.maxTs);
  }
  // Partitions older than every one left went by the base table's TTL: the view keeps its rows,
  // as QuestDB's do (DROP PARTITION invalidates the view where it runs, ddl.ts).
  const oldest = now.reduce((m, p) => Math.min(m, p.minTs), Infinity);
  for (const o of old.values()) if (o.maxTs >= oldest) return `base table partition was dropped [partition=${o.name}]`;
  return lo === Infinity ? null : [lo, hi + 1];
}

/** The wall clock in micros, finer than a millisecond (refresh times are what bench:matview reports). */
function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}
