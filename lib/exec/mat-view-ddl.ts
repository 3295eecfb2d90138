// CREATE / DROP / REFRESH / ALTER MATERIALIZED VIEW. CREATE binds the query and checks it is one
// a refresh of new rows can keep up to date (QuestDB's rules: SAMPLE BY without FILL, FROM-TO or
// ALIGN TO FIRST OBSERVATION, deterministic, one base table or WITH BASE), then makes the view's
// table: the query's columns, its designated timestamp, partitioned by the sampling interval
// unless told, DEDUP UPSERT KEYS on the timestamp and the query's keys (a refresh's rows replace
// a bucket's). Refreshing itself is mat-view-refresh.ts; when and how often, lib/db's refresher.
import { SvcError } from '../errors/svc-error.js';
import { parseTimestamp } from '../core/datetime.js';
import type * as A from '../sql/ast.js';
import { bindQuery } from '../sql/binder.js';
import { planBuckets } from '../sql/bind-sample-by.js';
import { hasAggregate } from '../sql/bind-window.js';
import type { Plan } from '../sql/bound.js';
import { isPersisted } from '../core/column-type.js';
import { parseSampleInterval, unitMicros } from '../sql/sample-by.js';
import { walkTree } from '../sql/tree-walk.js';
import type { Catalog, CreateTableDef } from '../storage/catalog.js';
import type { MatViewExpireDef, MatViewRefreshDef } from '../storage/mat-views.js';
import { checkExpireColumns, expireFilterSql, predicateText, type ExpireTarget } from '../sql/expire-rows.js';
import { parseStatement } from '../sql/parser.js';
import type { PartitionBy } from '../storage/partition-by.js';
import type { Table } from '../storage/table.js';
import { checkTtl, parseTtl } from '../storage/ttl.js';
import type { ExecContext } from './context.js';
import { tableTtl, walCommand, type DdlEnv } from './ddl.js';
import type { RefreshRequest, RefreshResult } from './mat-view-refresh.js';

type Prepared = (cx: ExecContext) => Promise<{ rows: number }>;

/** What runs materialized views' refreshes (lib/db's refresher): told of new, changed and dropped views. */
export interface MatViewControl {
  created(name: string, deferred: boolean): void;
  changed(name: string): void;
  dropped(name: string): void;
  /** A refresh now (after one already running), resolved when done. */
  refresh(name: string, req: RefreshRequest): Promise<RefreshResult>;
}

/** QuestDB's names of the statement types, as /validate reports them. */
export function matViewQueryType(stmt: A.CreateMatView | A.MatViewCommand): string {
  switch (stmt.kind) {
    case 'createMatView':
      return 'CREATE MATERIALIZED VIEW';
    case 'dropMatView':
      return 'DROP MATERIALIZED VIEW';
    case 'refreshMatView':
      return 'REFRESH MATERIALIZED VIEW';
    case 'alterMatView':
      return 'ALTER MATERIALIZED VIEW';
  }
}

const NON_DETERMINISTIC = /^(now|systimestamp|sysdate|today|tomorrow|yesterday|rnd_.*|random|timestamp_sequence)$/i;

export function runMatViewDdl(
  stmt: A.CreateMatView | A.MatViewCommand,
  catalog: Catalog,
  env: DdlEnv,
  control: MatViewControl | undefined,
): Prepared {
  if (stmt.kind === 'createMatView') return createMatView(stmt, catalog, env, control);
  const t = catalog.exists(stmt.name) ? catalog.get(stmt.name) : null;
  if (t === null || t.mv === null) {
    if (t !== null) throw new SvcError('SQL', 'materialized view expected, got table', { position: stmt.namePos });
    if (catalog.view(stmt.name) !== null)
      throw new SvcError('SQL', 'materialized view expected, got view', { position: stmt.namePos });
    if (stmt.kind === 'dropMatView' && stmt.ifExists) return () => Promise.resolve({ rows: 0 });
    throw new SvcError('SQL', `materialized view does not exist [view=${stmt.name}]`, { position: stmt.namePos });
  }
  switch (stmt.kind) {
    case 'dropMatView':
      return async () => {
        await catalog.drop(t.name);
        control?.dropped(t.name);
        return { rows: 0 };
      };
    case 'refreshMatView': {
      if (stmt.alter !== null) return () => Promise.resolve({ rows: 0 }); // REFRESH ... STATS: nothing to gather
      if (control === undefined)
        throw new SvcError('SQL', 'materialized views are not refreshed here', { position: stmt.pos });
      let range: readonly [number, number] | undefined;
      if (stmt.range !== null) range = [timestampLiteral(stmt.range.from), timestampLiteral(stmt.range.to)];
      return async () => {
        const r = await control.refresh(t.name, range ? { mode: stmt.mode, range } : { mode: stmt.mode });
        return { rows: r.rows };
      };
    }
    case 'alterMatView': {
      if (stmt.refresh !== null) {
        const refresh = refreshDef(stmt.refresh, stmt.namePos);
        return () => {
          catalog.setMatViewDef(t, { ...t.mv!.def, refresh });
          control?.changed(t.name);
          return Promise.resolve({ rows: 0 });
        };
      }
      if (stmt.expire !== undefined && stmt.expire !== null) {
        const expire = stmt.expire;
        if (expire === 'drop') {
          const { expire: _old, ...rest } = t.mv.def;
          return () => {
            catalog.setMatViewDef(t, rest);
            return Promise.resolve({ rows: 0 });
          };
        }
        const dependents = catalog.matViews().filter((m) => m.mv!.def.baseTable.toLowerCase() === t.name.toLowerCase());
        if (dependents.length > 0)
          throw new SvcError(
            'SQL',
            `cannot set an EXPIRE ROWS policy on '${t.name}': it is the base of ${dependents.length} view(s), including '${dependents[0]!.name}', which would copy expired rows on refresh`,
            { position: stmt.namePos },
          );
        const fields = t.meta.columns.map((c) => ({ name: c.name, type: c.type }));
        const ts = t.meta.columns.findIndex((c) => c.id === t.meta.timestampId);
        const def = expireDef(expire, { name: t.name, fields, timestamp: ts }, catalog, env);
        return () => {
          catalog.setMatViewDef(t, { ...t.mv!.def, expire: def });
          return Promise.resolve({ rows: 0 });
        };
      }
      if (stmt.ttl !== null) return setViewTtl(catalog, t, stmt.ttl);
      // SUSPEND / RESUME / REBASE WAL as for a table (a view is a WAL table).
      const wal = stmt.alter !== null ? walCommand(stmt.alter, stmt.alterPos, t, stmt.namePos, catalog, control) : null;
      if (wal !== null) return wal;
      // SET REFRESH LIMIT, indexes: svcdb's views keep every row; the change is accepted and has
      // nothing to do (README "Materialized views").
      if (/^(SET\s+REFRESH\s+LIMIT|ALTER\s+COLUMN\s+\S+\s+(ADD|DROP)\s+INDEX)\b/i.test(stmt.alter ?? ''))
        return () => Promise.resolve({ rows: 0 });
      throw new SvcError('SQL', `ALTER MATERIALIZED VIEW ${stmt.alter ?? ''} is not supported`, { position: stmt.pos });
    }
  }
}

function createMatView(
  stmt: A.CreateMatView,
  catalog: Catalog,
  env: DdlEnv,
  control: MatViewControl | undefined,
): Prepared {
  if (catalog.exists(stmt.name)) {
    const isView = catalog.get(stmt.name).mv !== null;
    if (stmt.ifNotExists && isView) return () => Promise.resolve({ rows: 0 });
    if (isView) throw new SvcError('SQL', 'materialized view already exists', { position: stmt.namePos });
    throw new SvcError('SQL', `table already exists [table=${stmt.name}]`, { position: stmt.namePos });
  }
  if (catalog.view(stmt.name) !== null)
    throw new SvcError('SQL', `table already exists [table=${stmt.name}]`, { position: stmt.namePos });
  const q = stmt.query;
  const nd = findCall(q, (n) => NON_DETERMINISTIC.test(n));
  if (nd !== null) {
    throw new SvcError('SQL', `non-deterministic function cannot be used in materialized view: ${nd.name}`, {
      position: nd.pos,
    });
  }
  if (q.kind !== 'select')
    throw new SvcError('SQL', 'materialized view query cannot be a set operation', { position: q.pos });
  const sb = q.sampleBy;
  if (sb !== null) {
    if (sb.fill.length > 0)
      throw new SvcError('SQL', 'FILL is not supported for materialized views', { position: sb.pos });
    if (sb.from !== null || sb.to !== null)
      throw new SvcError('SQL', 'FROM-TO is not supported for materialized views', { position: sb.pos });
    if (sb.align === 'FIRST OBSERVATION')
      throw new SvcError('SQL', 'ALIGN TO FIRST OBSERVATION is not supported for materialized views', {
        position: sb.pos,
      });
  }
  if (q.limit !== null) throw new SvcError('SQL', 'LIMIT is not supported for materialized views', { position: q.pos });
  const plan = bindQuery(q, { catalog, ...env });
  const passthrough = isPassthrough(q, env);
  if (passthrough) checkPassthrough(q, stmt);
  else if (planBuckets(plan) === null || sb === null) {
    throw new SvcError('SQL', 'materialized view query requires a sampling interval, use SAMPLE BY', {
      position: stmt.queryPos,
    });
  }
  if (plan.timestamp < 0) {
    throw new SvcError('SQL', 'materialized view query is required to have designated timestamp', {
      position: stmt.queryPos,
    });
  }
  const tables = scannedTables(plan);
  let base: string;
  if (stmt.base !== null) {
    const b = tables.find((n) => n.toLowerCase() === stmt.base!.name.toLowerCase());
    if (b === undefined)
      throw new SvcError('SQL', `base table is not referenced in materialized view query: ${stmt.base.name}`, {
        position: stmt.base.pos,
      });
    base = b;
  } else if (tables.length !== 1) {
    throw new SvcError('SQL', "more than one table used in query, base table has to be set using 'WITH BASE'", {
      position: stmt.queryPos,
    });
  } else base = tables[0]!;
  if (catalog.get(base).mv !== null && catalog.get(base).mv!.def.baseTable.toLowerCase() === stmt.name.toLowerCase())
    throw new SvcError('SQL', 'a materialized view cannot be its own base', { position: stmt.queryPos });
  // A view with an EXPIRE ROWS policy stands alone: a view over it would copy its expired rows.
  const policied = tables.find((n) => catalog.expireRows(n) !== null);
  if (policied !== undefined)
    throw new SvcError(
      'SQL',
      `materialized view query cannot read a view with an EXPIRE ROWS policy [view=${policied}]`,
      {
        position: stmt.queryPos,
      },
    );
  // The keys: the timestamp and every column that is not an aggregate (a bucket's rows replace its old ones).
  // A passthrough view has none: its rows are the base table's, one for one (its refresh replaces partitions).
  if (!passthrough && q.columns.some((c) => c.kind === 'star'))
    throw new SvcError('SQL', 'materialized view query must name its columns', { position: q.pos });
  const keys = new Set<number>(passthrough ? [] : [plan.timestamp]);
  if (!passthrough)
    q.columns.forEach((c, i) => {
      if (c.kind === 'item' && !hasAggregate(env, c.expr)) keys.add(i);
    });
  const columns = plan.fields.map((f, i) => {
    if (f.type === 'NULL')
      throw new SvcError('SQL', `column type cannot be NULL [column=${f.name}]`, { position: stmt.queryPos });
    if (!isPersisted(f.type))
      throw new SvcError('SQL', `non-persisted type: ${f.type} [column=${f.name}]`, { position: stmt.queryPos });
    return { name: f.name, type: f.type, ...(keys.has(i) ? { upsertKey: true } : {}) };
  });
  const ts = plan.fields[plan.timestamp]!.name;
  if (stmt.timestamp !== null && stmt.timestamp.column.toLowerCase() !== ts.toLowerCase())
    throw new SvcError('SQL', `TIMESTAMP column does not match the query's designated timestamp [column=${ts}]`, {
      position: stmt.timestamp.pos,
    });
  const basePartitionBy = catalog.get(base).meta.partitionBy;
  const partitionBy =
    stmt.partitionBy !== null
      ? partitionUnit(stmt.partitionBy)
      : sb !== null
        ? defaultPartitionBy(sb)
        : basePartitionBy === 'NONE'
          ? 'DAY'
          : basePartitionBy;
  if (passthrough && stmt.refresh.period !== null)
    throw new SvcError('SQL', 'REFRESH PERIOD is not supported for passthrough materialized views', {
      position: stmt.pos,
    });
  const refresh = refreshDef(stmt.refresh, stmt.pos);
  const expire =
    stmt.expire !== null
      ? expireDef(stmt.expire, { name: stmt.name, fields: plan.fields, timestamp: plan.timestamp }, catalog, env)
      : undefined;
  const ttl = tableTtl(stmt.params, partitionBy);
  const def: CreateTableDef = {
    name: stmt.name,
    columns,
    timestamp: ts,
    partitionBy,
    wal: true,
    ...(ttl !== undefined ? { ttl } : {}),
  };
  return () => {
    try {
      catalog.createMatView(def, { sql: stmt.sql, baseTable: base, refresh, ...(expire ? { expire } : {}) });
    } catch (e) {
      if (e instanceof SvcError && e.position === undefined && e.status < 500)
        throw new SvcError('SQL', e.message, { position: stmt.namePos });
      throw e;
    }
    control?.created(stmt.name, stmt.deferred);
    return Promise.resolve({ rows: 0 });
  };
}

/**
 * A passthrough query (QuestDB 10.2): no SAMPLE BY, GROUP BY or aggregate, so the view's rows are
 * the base table's one for one (a projection, with or without a filter).
 */
export function isPassthrough(q: A.Query, env: DdlEnv): boolean {
  if (q.kind !== 'select' || q.sampleBy !== null || q.groupBy.length > 0) return false;
  return !q.columns.some((c) => c.kind === 'item' && hasAggregate(env, c.expr));
}

/** What a refresh of new rows cannot keep one for one: DISTINCT, LATEST ON, joins, window functions. */
function checkPassthrough(q: A.Query, stmt: A.CreateMatView): void {
  if (q.kind !== 'select') return;
  if (q.distinct || q.latestOn !== null || q.from === null || q.from.kind !== 'tableRef' || q.having !== null)
    throw new SvcError(
      'SQL',
      'materialized view query requires a sampling interval, use SAMPLE BY or GROUP BY timestamp_floor()',
      {
        position: stmt.queryPos,
      },
    );
  const w = findWindow(q.columns);
  if (w !== null)
    throw new SvcError('SQL', 'window functions are not supported in passthrough materialized views', { position: w });
}

function findWindow(root: unknown): number | null {
  let pos: number | null = null;
  walkTree(root, (o) => {
    if (o.kind === 'call' && o.over !== null && o.over !== undefined) pos = o.pos as number;
    return pos !== null;
  });
  return pos;
}

/**
 * An EXPIRE ROWS policy checked against the view's columns (its KEEP columns; its predicate bound
 * in the filter over them, errors at their place in the statement) and made ready to store.
 */
function expireDef(p: A.ExpireRows, target: ExpireTarget, catalog: Catalog, env: DdlEnv): MatViewExpireDef {
  checkExpireColumns(p, target);
  const sql = expireFilterSql(p, target);
  const inputs = new Map([[target.name.toLowerCase(), { fields: target.fields, timestamp: target.timestamp }]]);
  let parsed;
  try {
    parsed = parseStatement(sql);
    if (parsed.kind !== 'query') throw new SvcError('SQL', 'not a query', { position: 0 });
    bindQuery(parsed.query, { catalog, ...env, sql, inputs });
  } catch (e) {
    if (!(e instanceof SvcError) || (e.code !== 'SQL' && e.code !== 'NOT_FOUND')) throw e;
    // The predicate's text is in the filter's text: an error inside it points into the statement.
    let position = p.pos;
    if (p.mode === 'when') {
      const pred = predicateText(p);
      const at = sql.indexOf(pred);
      const predPos = p.clausePos + p.clause.length - pred.length;
      if (at >= 0 && e.position !== undefined && e.position >= at && e.position <= at + pred.length)
        position = predPos + e.position - at;
      else position = predPos;
    }
    throw new SvcError('SQL', `invalid EXPIRE ROWS predicate: ${e.message}`, { position, cause: e });
  }
  return { clause: p.clause, cleanupEvery: p.cleanupEvery?.text ?? null };
}

/** The refresh definition as stored: the timer's interval in micros, its start as a timestamp. */
function refreshDef(r: A.MatViewRefresh, pos: number): MatViewRefreshDef {
  let everyMicros: number | null = null;
  if (r.every !== null) {
    const { n, unit } = parseSampleInterval(r.every, pos);
    everyMicros = n * unitMicros(unit);
    // QuestDB's minimum timer interval; a faster one is IMMEDIATE's job.
    if (everyMicros < 6e7)
      throw new SvcError('SQL', `refresh interval must be at least 1m, use REFRESH IMMEDIATE [interval=${r.every}]`, {
        position: pos,
      });
  }
  let start: number | null = null;
  if (r.start !== null) {
    start = parseTimestamp(r.start);
    if (start === null) throw new SvcError('SQL', `invalid START timestamp [value=${r.start}]`, { position: pos });
  }
  if (r.period !== null && r.period !== 'sample') {
    parseSampleInterval(r.period.length, pos);
    if (r.period.delay !== null) parseSampleInterval(r.period.delay, pos);
  }
  return { type: r.type, every: r.every, everyMicros, start, timeZone: r.timeZone, period: r.period };
}

/** QuestDB's default: YEAR above an hour's buckets, MONTH above a minute's, DAY for a minute and less. */
function defaultPartitionBy(sb: A.SampleBy): PartitionBy {
  const { n, unit } = parseSampleInterval(sb.interval, sb.pos);
  const us = n * unitMicros(unit);
  if (us > 3.6e9) return 'YEAR';
  if (us > 6e7) return 'MONTH';
  return 'DAY';
}

function partitionUnit(p: { unit: string; pos: number }): PartitionBy {
  const u = p.unit.toUpperCase();
  if (u === 'HOUR' || u === 'DAY' || u === 'WEEK' || u === 'MONTH' || u === 'YEAR') return u;
  throw new SvcError('SQL', `invalid partition unit for a materialized view [unit=${p.unit}]`, { position: p.pos });
}

/** The tables a plan scans, each once. */
function scannedTables(plan: Plan): string[] {
  const out: string[] = [];
  walkTree(plan, (o) => {
    if (o.kind === 'scan' && typeof o.table === 'string' && !out.includes(o.table)) out.push(o.table);
  });
  return out;
}

/** The first call (by position) whose name matches, anywhere in the syntax tree. */
export function findCall(root: unknown, match: (name: string) => boolean): { name: string; pos: number } | null {
  let best: { name: string; pos: number } | null = null;
  walkTree(root, (o) => {
    if (
      o.kind === 'call' &&
      typeof o.name === 'string' &&
      match(o.name) &&
      (best === null || (o.pos as number) < best.pos)
    )
      best = { name: o.name, pos: o.pos as number };
  });
  return best;
}

/** RANGE FROM / TO: a timestamp literal, in micros. */
function timestampLiteral(e: A.Expr): number {
  if (e.kind === 'literal' && e.type === 'STRING') {
    const v = parseTimestamp(String(e.value));
    if (v !== null) return v;
  }
  throw new SvcError('SQL', 'timestamp literal expected', { position: e.pos });
}

/** ALTER MATERIALIZED / LIVE VIEW v SET TTL: checked against the view's partitioning, set through its writer (0: none). */
export function setViewTtl(
  catalog: Catalog,
  t: Table,
  written: { text: string; pos: number },
): () => Promise<{ rows: number }> {
  const ttl = parseTtl(written.text, written.pos);
  checkTtl(ttl, t.meta.partitionBy, written.pos);
  return async () => {
    const w = await catalog.writer(t.name, { matView: true });
    try {
      w.setTtl(ttl.value === 0 ? undefined : ttl);
    } finally {
      w.close();
    }
    return { rows: 0 };
  };
}
