// CREATE / DROP / ALTER LIVE VIEW. CREATE checks the query against QuestDB's rules for live views
// (one WAL base table with a designated timestamp scanned as it is, named columns, window functions
// a forward pass can keep up: bounded frames and PARTITION BY, nothing non-deterministic, no
// filter on the designated timestamp), then makes the view's table (the query's columns, its
// designated timestamp, partitioned as told or as the base table) through the materialized views'
// catalogue; a live view is a materialized view's files with CREATE LIVE VIEW's clauses
// (storage/mat-views.ts), refreshed by the same refresher (live-view-refresh.ts says how).
import { SvcError } from '../errors/svc-error.js';
import { parseTimestamp } from '../core/datetime.js';
import { isPersisted } from '../core/column-type.js';
import type * as A from '../sql/ast.js';
import { bindQuery } from '../sql/binder.js';
import { walkTree } from '../sql/tree-walk.js';
import type { Catalog, CreateTableDef } from '../storage/catalog.js';
import type { LiveViewDef, MatViewRefreshDef } from '../storage/mat-views.js';
import type { PartitionBy } from '../storage/partition-by.js';
import { checkTtl, parseTtl, type Ttl } from '../storage/ttl.js';
import type { DdlEnv } from './ddl.js';
import { findCall, setViewTtl, type MatViewControl } from './mat-view-ddl.js';

type Prepared = () => Promise<{ rows: number }>;

/** QuestDB's names of the statement types, as /validate reports them. */
export function liveViewQueryType(stmt: A.CreateLiveView | A.LiveViewCommand): string {
  switch (stmt.kind) {
    case 'createLiveView':
      return 'CREATE LIVE VIEW';
    case 'dropLiveView':
      return 'DROP LIVE VIEW';
    case 'alterLiveView':
      return 'ALTER LIVE VIEW';
  }
}

/** cairo.live.view.in.memory.max's default: the longest FLUSH EVERY and IN MEMORY (60 minutes). */
export const LIVE_VIEW_MAX_MICROS = 3_600_000_000;
const MIN_FLUSH_MICROS = 100_000;

/** A live view refreshes on its own timer: it has no REFRESH clause of a materialized view's. */
const LIVE_REFRESH: MatViewRefreshDef = {
  type: 'timer',
  every: null,
  everyMicros: null,
  start: null,
  timeZone: null,
  period: null,
};

const SIMPLE_SCAN =
  'live view select must be a simple scan of a single WAL base table; joins, subqueries, GROUP BY, ORDER BY and LIMIT are not supported yet';
const NON_DETERMINISTIC = /^(now|systimestamp|sysdate|today|tomorrow|yesterday|rnd_.*|random|timestamp_sequence)$/i;
/** Functions a forward pass cannot keep: they look ahead or need the whole partition first. */
const LOOK_AHEAD = new Set(['percent_rank', 'cume_dist', 'ntile', 'lead']);
/** Ranking: every later rank moves with an out-of-order row, so only an anchored window is maintained. */
const RANKING = new Set(['row_number', 'rank', 'dense_rank']);
/** Functions whose state is not a frame (an offset, an exponential average): PARTITION BY is all they need. */
const FRAMELESS = new Set(['lag', 'ema', 'vwema']);

export function runLiveViewDdl(
  stmt: A.CreateLiveView | A.LiveViewCommand,
  catalog: Catalog,
  env: DdlEnv,
  control: MatViewControl | undefined,
): Prepared {
  if (stmt.kind === 'createLiveView') return createLiveView(stmt, catalog, env, control);
  const t = liveView(catalog, stmt.name, stmt.namePos, stmt.kind === 'dropLiveView' && stmt.ifExists);
  if (t === null) return () => Promise.resolve({ rows: 0 });
  if (stmt.kind === 'dropLiveView') {
    return async () => {
      await catalog.drop(t.name);
      control?.dropped(t.name);
      return { rows: 0 };
    };
  }
  const clause = stmt.clause!;
  switch (clause.word) {
    case 'SET': {
      // A live view's TTL always names its unit, 0 (no TTL) too.
      if (/^\s*\d+\s*$/.test(stmt.ttl!.text))
        throw new SvcError('SQL', "missing unit, 'HOUR(S)', 'DAY(S)', 'WEEK(S)', 'MONTH(S)' or 'YEAR(S)' expected", {
          position: stmt.ttl!.pos,
        });
      return setViewTtl(catalog, t, stmt.ttl!);
    }
    case 'SUSPEND':
    case 'RESUME': {
      if (!/^(SUSPEND\s+WAL|RESUME\s+WAL(\s+FROM\s+(TRANSACTION|TXN)\s+\d+)?)$/i.test(stmt.alter ?? ''))
        throw new SvcError('SQL', "'wal' expected", { position: clause.pos });
      // svcdb applies a view's rows as it computes them; suspending stops its refreshes until RESUME.
      const suspended = clause.word === 'SUSPEND';
      return () => {
        catalog.setMatViewState(t, { ...t.mv!.state, liveSuspended: suspended });
        control?.changed(t.name);
        return Promise.resolve({ rows: 0 });
      };
    }
    case 'CONVERT':
      // Every svcdb partition is in its native format (as ALTER TABLE ... CONVERT PARTITION): nothing to do.
      return () => Promise.resolve({ rows: 0 });
    default:
      throw new SvcError('SQL', `ALTER LIVE VIEW ${clause.word} PARTITION is not supported`, { position: clause.pos });
  }
}

/** The live view `name`, null when it does not exist and `ifExists`; QuestDB's errors otherwise. */
function liveView(catalog: Catalog, name: string, pos: number, ifExists: boolean): ReturnType<Catalog['get']> | null {
  const t = catalog.exists(name) ? catalog.get(name) : null;
  if (t !== null && t.mv?.def.live !== undefined) return t;
  if (t !== null || catalog.view(name) !== null)
    throw new SvcError('SQL', 'live view name expected', { position: pos });
  if (ifExists) return null;
  throw new SvcError('SQL', 'live view does not exist', { position: pos });
}

function createLiveView(
  stmt: A.CreateLiveView,
  catalog: Catalog,
  env: DdlEnv,
  control: MatViewControl | undefined,
): Prepared {
  if (catalog.exists(stmt.name)) {
    const isLive = catalog.get(stmt.name).mv?.def.live !== undefined;
    if (stmt.ifNotExists && isLive) return () => Promise.resolve({ rows: 0 });
    if (isLive) throw new SvcError('SQL', 'live view already exists', { position: stmt.namePos });
    throw new SvcError('SQL', 'table or view with the requested name already exists', { position: stmt.namePos });
  }
  if (catalog.view(stmt.name) !== null)
    throw new SvcError('SQL', 'table or view with the requested name already exists', { position: stmt.namePos });
  const flush = durationMicros(stmt.flushEvery);
  if (flush < MIN_FLUSH_MICROS)
    throw new SvcError('SQL', 'live view FLUSH EVERY must be at least 100ms', { position: stmt.flushEvery.pos });
  if (flush > LIVE_VIEW_MAX_MICROS)
    throw new SvcError('SQL', 'live view FLUSH EVERY must be at most 60m (cairo.live.view.in.memory.max)', {
      position: stmt.flushEvery.pos,
    });
  const inMemory = stmt.inMemory !== null ? durationMicros(stmt.inMemory) : flush;
  if (stmt.inMemory !== null && inMemory < flush)
    throw new SvcError('SQL', 'live view IN MEMORY must be at least FLUSH EVERY', { position: stmt.inMemory.pos });
  if (stmt.inMemory !== null && inMemory > LIVE_VIEW_MAX_MICROS)
    throw new SvcError('SQL', 'live view IN MEMORY must be at most 60m (cairo.live.view.in.memory.max)', {
      position: stmt.inMemory.pos,
    });
  let partitionBy: PartitionBy | null = null;
  if (stmt.partitionBy !== null) {
    const u = stmt.partitionBy.unit;
    if (u !== 'YEAR' && u !== 'MONTH' && u !== 'WEEK' && u !== 'DAY' && u !== 'HOUR')
      throw new SvcError('SQL', "'year', 'month', 'week', 'day' or 'hour' expected", {
        position: stmt.partitionBy.pos,
      });
    partitionBy = u;
  }
  let startMicros: number | null = null;
  if (stmt.startFrom.kind === 'now') startMicros = env.statementMicros;
  else if (stmt.startFrom.kind === 'timestamp') {
    startMicros = parseTimestamp(stmt.startFrom.value);
    if (startMicros === null)
      throw new SvcError('SQL', `invalid START FROM timestamp [value=${stmt.startFrom.value}]`, {
        position: stmt.startFrom.pos,
      });
  }
  const base = checkQuery(stmt, catalog);
  const plan = bindQuery(stmt.query, { catalog, ...env, sql: env.sql });
  if (plan.timestamp < 0)
    throw new SvcError('SQL', "live view query must select the base table's designated timestamp", {
      position: stmt.queryPos,
    });
  const columns = plan.fields.map((f) => {
    if (f.type === 'NULL')
      throw new SvcError('SQL', `column type cannot be NULL [column=${f.name}]`, { position: stmt.queryPos });
    if (!isPersisted(f.type))
      throw new SvcError('SQL', `non-persisted type: ${f.type} [column=${f.name}]`, { position: stmt.queryPos });
    return { name: f.name, type: f.type };
  });
  const baseTable = catalog.get(base);
  const viewPartitionBy = partitionBy ?? baseTable.meta.partitionBy;
  let ttl: Ttl | undefined;
  if (stmt.ttl !== null) {
    ttl = parseTtl(stmt.ttl.text, stmt.ttl.pos);
    checkTtl(ttl, viewPartitionBy, stmt.ttl.pos);
    if (ttl.value === 0) ttl = undefined;
  }
  const def: CreateTableDef = {
    name: stmt.name,
    columns,
    timestamp: plan.fields[plan.timestamp]!.name,
    partitionBy: viewPartitionBy,
    wal: true,
    ...(ttl !== undefined ? { ttl } : {}),
  };
  const live: LiveViewDef = {
    flushEvery: stmt.flushEvery.text,
    flushEveryMicros: flush,
    inMemory: stmt.inMemory?.text ?? stmt.flushEvery.text,
    inMemoryMicros: inMemory,
    partitionBy,
    startFrom: stmt.startFrom.value,
    startMicros,
  };
  return () => {
    try {
      catalog.createMatView(def, { sql: stmt.sql, baseTable: baseTable.name, refresh: LIVE_REFRESH, live });
    } catch (e) {
      if (e instanceof SvcError && e.position === undefined && e.status < 500)
        throw new SvcError('SQL', e.message, { position: stmt.namePos });
      throw e;
    }
    control?.created(stmt.name, false);
    return Promise.resolve({ rows: 0 });
  };
}

/** `100ms`, `5s`, `30m`, `1h`, `2d`: one token, in micros. */
function durationMicros(d: A.LiveViewDuration): number {
  const m = /^(\d+)(ms|s|m|h|d)$/i.exec(d.text);
  if (m === null)
    throw new SvcError('SQL', `invalid duration, a number with a unit of ms, s, m, h or d expected [value=${d.text}]`, {
      position: d.pos,
    });
  const unit = m[2]!.toLowerCase();
  const per = unit === 'ms' ? 1e3 : unit === 's' ? 1e6 : unit === 'm' ? 6e7 : unit === 'h' ? 3.6e9 : 8.64e10;
  return Number(m[1]) * per;
}

/** QuestDB's checks of a live view's query, in its order; the base table's name. */
function checkQuery(stmt: A.CreateLiveView, catalog: Catalog): string {
  const q = stmt.query;
  if (q.kind === 'select') checkAnchors(q);
  const nd = findCall(q, (n) => NON_DETERMINISTIC.test(n));
  if (nd !== null)
    throw new SvcError('SQL', 'non-deterministic function cannot be used in live view', { position: nd.pos });
  if (q.kind !== 'select' || q.with.length > 0) throw new SvcError('SQL', SIMPLE_SCAN, { position: q.pos });
  const from = q.from;
  if (from === null || from.kind !== 'tableRef')
    throw new SvcError('SQL', SIMPLE_SCAN, { position: from?.pos ?? q.pos });
  const clause =
    q.sampleBy?.pos ??
    q.groupBy[0]?.pos ??
    q.orderBy[0]?.expr.pos ??
    q.limit?.lo.pos ??
    q.latestOn?.pos ??
    q.pivot?.pos ??
    (q.distinct || q.having !== null ? q.pos : null);
  if (clause !== null) throw new SvcError('SQL', SIMPLE_SCAN, { position: clause });
  const name = from.name;
  if (catalog.view(name) !== null) throw new SvcError('SQL', 'base table must be a WAL table', { position: from.pos });
  if (!catalog.exists(name)) throw new SvcError('SQL', `table does not exist [table=${name}]`, { position: from.pos });
  const base = catalog.get(name);
  if (base.mv?.def.live !== undefined)
    throw new SvcError('SQL', 'live views are not allowed as base tables in V1', { position: from.pos });
  if (base.meta.wal !== true) throw new SvcError('SQL', 'base table must be a WAL table', { position: from.pos });
  if (base.meta.timestampId < 0)
    throw new SvcError('SQL', 'live view base table must have a designated timestamp', { position: from.pos });
  const star = q.columns.find((c) => c.kind === 'star');
  if (star !== undefined)
    throw new SvcError('SQL', 'wildcard column select is not allowed in live view queries', { position: star.pos });
  const tsName = base.meta.columns.find((c) => c.id === base.meta.timestampId)!.name.toLowerCase();
  if (q.where !== null) {
    walkTree(q.where, (o) => {
      if (o.kind === 'column' && String(o.name).toLowerCase() === tsName)
        throw new SvcError('SQL', 'live view cannot filter on the designated timestamp of its base table', {
          position: o.pos as number,
        });
    });
  }
  const windows = windowCalls(q);
  if (windows.length === 0)
    throw new SvcError('SQL', 'live view query must contain window functions', { position: stmt.queryPos });
  for (const w of windows) checkWindow(w.call, w.spec);
  return base.name;
}

/**
 * A live view's anchored windows, before the query's other checks: named ones only (ANCHOR in an
 * inline OVER (...) is refused), at most one, and an ANCHOR EXPRESSION deterministic (the binder
 * checks the rest: ORDER BY, frame, type, constant).
 */
function checkAnchors(q: A.Select): void {
  walkTree(q.columns, (o) => {
    if (o.kind !== 'call' || o.over == null) return;
    const anchor = (o.over as A.WindowSpec).anchor;
    if (anchor != null)
      throw new SvcError('SQL', 'live view ANCHOR must be declared in a named WINDOW, not in an inline OVER (...)', {
        position: anchor.pos,
      });
  });
  const anchored = (q.windows ?? []).filter((w) => w.spec.anchor != null);
  if (anchored.length > 1)
    throw new SvcError('SQL', 'live view supports at most one anchored WINDOW', {
      position: anchored[1]!.spec.anchor!.pos,
    });
  const anchor = anchored[0]?.spec.anchor;
  if (anchor?.kind !== 'expression') return;
  const nd = findCall(anchor.expr, (n) => NON_DETERMINISTIC.test(n));
  if (nd !== null) throw new SvcError('SQL', 'ANCHOR EXPRESSION must be deterministic', { position: anchor.expr.pos });
}

/** The window function calls of the projection, each with its window (a named window merged in). */
function windowCalls(q: A.Select): Array<{ call: A.Call; spec: A.WindowSpec }> {
  const out: Array<{ call: A.Call; spec: A.WindowSpec }> = [];
  walkTree(q.columns, (o) => {
    if (o.kind !== 'call' || o.over == null) return;
    const call = o as unknown as A.Call;
    let spec = call.over!;
    const named = spec.name != null ? q.windows?.find((w) => w.name.toLowerCase() === spec.name!.toLowerCase()) : null;
    if (named != null) {
      spec = {
        ...named.spec,
        partitionBy: spec.partitionBy.length > 0 ? spec.partitionBy : named.spec.partitionBy,
        orderBy: spec.orderBy.length > 0 ? spec.orderBy : named.spec.orderBy,
        frame: spec.frame ?? named.spec.frame,
        anchor: spec.anchor ?? named.spec.anchor ?? null,
        pos: spec.pos,
      };
    }
    out.push({ call, spec });
  });
  return out;
}

/** One window function: one a forward pass over new rows can keep, or QuestDB's reason why not. */
function checkWindow(call: A.Call, spec: A.WindowSpec): void {
  const name = call.name.toLowerCase();
  if (LOOK_AHEAD.has(name))
    throw new SvcError('SQL', `window function cannot be maintained by a live view [function=${name}]`, {
      position: call.pos,
    });
  const anchored = spec.anchor != null;
  const frame = spec.frame;
  const lastValueCurrent =
    name === 'last_value' && call.nulls !== 'IGNORE' && (frame === null || frame.end.type === 'CURRENT ROW');
  // last_value(x) up to the current row is x itself: no state, no PARTITION BY needed.
  if (lastValueCurrent) return;
  if (spec.partitionBy.length === 0)
    throw new SvcError('SQL', `stateful live view window function must have PARTITION BY [function=${name}]`, {
      position: spec.pos,
    });
  if (RANKING.has(name) || FRAMELESS.has(name)) {
    if (RANKING.has(name) && !anchored)
      throw new SvcError('SQL', 'live view unbounded window must have an ANCHOR clause', { position: spec.pos });
    return;
  }
  if (frame !== null && (frame.end.type === 'FOLLOWING' || frame.end.type === 'UNBOUNDED FOLLOWING'))
    throw new SvcError('SQL', `live view window frame cannot look ahead [function=${name}]`, {
      position: frame.end.pos,
    });
  if (!anchored && (frame === null || frame.start.type === 'UNBOUNDED PRECEDING'))
    throw new SvcError('SQL', 'live view unbounded window must have an ANCHOR clause', {
      position: frame?.pos ?? spec.pos,
    });
}
