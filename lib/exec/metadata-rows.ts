// Rows of tables(), table_columns('t'), SHOW TABLES / COLUMNS / CREATE TABLE,
// read from the catalog when the query runs.
import { ttlText } from '../storage/ttl.js';
import { readdirSync, statSync } from 'node:fs';
import { sizePretty } from '../core/number-format.js';
import { join } from 'node:path';
import type { Catalog } from '../storage/catalog.js';
import { SYMBOL_DEFAULTS, TXN_FILE, upsertKeys, type ColumnDef } from '../storage/table-state.js';
import type { Batch } from '../core/batch.js';
import { typeName } from '../core/column-type.js';
import type { DumpCategory, Plan, ViewInfo } from '../sql/bound.js';
import { parseStatement } from '../sql/parser.js';
import { walkTree } from '../sql/tree-walk.js';
import { formatTimestamp } from '../core/datetime.js';
import { QUESTDB_KEYWORDS } from '../sql/metadata.js';
import type { Table } from '../storage/table.js';
import { SvcError } from '../errors/svc-error.js';
import { fromValues, type Value } from './vectors.js';
import { pgCatalogRows } from './pg-catalog-rows.js';
import { parseExpireClause } from '../sql/parse-expire-rows.js';
import { predicateText, reclaimable } from '../sql/expire-rows.js';
import { createLiveViewDdl, liveViewRows } from './live-view-rows.js';

type MetadataPlan = Extract<Plan, { kind: 'metadata' }>;

export function metadataRows(plan: MetadataPlan, catalog: Catalog): Batch {
  const rows: Value[][] = [];
  if (plan.what === 'tables') {
    // Tables and views in one list by name, as QuestDB lists them (a view's table_type is 'V').
    const entries: Array<{ name: string; table?: Table; view?: ViewInfo }> = [
      ...catalog.tables().map((t) => ({ name: t.name, table: t })),
      ...(plan.views ?? []).map((v) => ({ name: v.name, view: v })),
    ].sort((a, b) => a.name.localeCompare(b.name));
    entries.forEach((e, i) => {
      if (plan.fields.length === 1) {
        rows.push([e.name]);
        return;
      }
      if (e.view) {
        rows.push(viewTableRow(e.view, i + 1));
        return;
      }
      const t = e.table!;
      const m = t.meta;
      const ts = m.columns.find((c) => c.id === m.timestampId);
      const parts = t.txn.partitions;
      const rowCount = parts.reduce((s, p) => s + p.rows, 0);
      // The statistics columns past table_txn (QuestDB's WAL, write amplification, merge rate and
      // replication figures) stay NULL: svcdb keeps no such figures.
      rows.push([
        i + 1,
        m.name,
        ts?.name ?? null,
        m.partitionBy,
        m.wal === true,
        upsertKeys(m).length > 0,
        m.ttl?.value ?? 0,
        m.ttl?.unit ?? 'HOUR',
        t.mv !== null && t.mv.def.live === undefined,
        m.name,
        m.maxUncommittedRows,
        m.o3MaxLag,
        t.error !== null || catalog.isSuspended(t.name),
        t.mv === null ? 'T' : t.mv.def.live !== undefined ? 'L' : 'M',
        rowCount,
        ts && parts.length ? parts[0]!.minTs : null,
        ts && parts.length ? parts[parts.length - 1]!.maxTs : null,
        lastCommit(t.dir),
        t.txn.txn,
      ]);
    });
  } else if (plan.what === 'functions' || plan.what === 'checkpointStatus') {
    for (const r of plan.rows ?? []) rows.push([...r]);
  } else if (plan.what === 'pgCatalog') {
    rows.push(...pgCatalogRows(plan.table!, catalog, plan.views ?? []));
  } else if (plan.what === 'keywords') {
    for (const k of QUESTDB_KEYWORDS) rows.push([k]);
  } else if (plan.what === 'walTables') {
    for (const t of catalog.tables()) {
      if (t.meta.wal !== true) continue;
      // The WAL numbering restarts at a REBASE WAL (walTxnBase); svcdb applies each commit at once.
      const txn = t.txn.txn - (t.meta.walTxnBase ?? 0);
      rows.push([t.name, t.error !== null || catalog.isSuspended(t.name), txn, 0, txn]);
    }
  } else if (plan.what === 'partitions') {
    const t = catalog.get(plan.table!);
    const m = t.meta;
    const parts = t.txn.partitions;
    const designated = m.timestampId >= 0;
    parts.forEach((p, i) => {
      const size = folderSize(join(t.dir, p.dir));
      rows.push([
        i,
        m.partitionBy,
        p.name,
        designated ? p.minTs : null,
        designated ? p.maxTs : null,
        p.rows,
        size,
        sizePretty(size),
        false,
        i === parts.length - 1,
        true,
        false,
        false,
        false,
        -1,
      ]);
    });
  } else if (plan.what === 'matViews') {
    for (const t of catalog.matViews()) rows.push(matViewRow(catalog, t));
  } else if (plan.what === 'liveViews') {
    rows.push(...liveViewRows(catalog));
  } else if (plan.what === 'createLiveView') {
    rows.push([createLiveViewDdl(catalog, plan.table!)]);
  } else if (plan.what === 'views') {
    for (const v of plan.views ?? []) {
      rows.push([v.name, v.sql, v.name, v.error, v.error === null ? 'valid' : 'invalid', v.updated]);
    }
  } else if (plan.what === 'columns' && plan.views !== undefined) {
    const v = plan.views[0];
    if (v && v.error !== null) throw new SvcError('SQL', v.error, { position: 0 });
    v?.fields.forEach((f, k) => rows.push([f.name, f.type, false, 0, false, 0, 0, k === v.timestamp, false]));
  } else if (plan.what === 'createMatView') {
    rows.push([showCreateMatView(catalog, plan.table!)]);
  } else if (plan.what === 'createView') {
    const v = catalog.view(plan.table!);
    if (!v) throw new SvcError('SQL', `view does not exist [view=${plan.table}]`, { position: 0 });
    rows.push([createViewDdl(v.name, v.sql)]);
  } else if (plan.what === 'createDatabase') {
    for (const ddl of createDatabaseDdl(catalog, plan.dump ?? new Set())) rows.push([ddl]);
  } else if (plan.what === 'columns') {
    const table = catalog.get(plan.table!);
    const m = table.meta;
    for (const c of m.columns) {
      const sym = c.type === 'SYMBOL';
      rows.push([
        c.name,
        typeName(c.type),
        c.indexed === true,
        sym ? (c.indexCapacity ?? SYMBOL_DEFAULTS.indexCapacity) : 0,
        sym ? (c.symbolCached ?? SYMBOL_DEFAULTS.cached) : false,
        sym ? (c.symbolCapacity ?? SYMBOL_DEFAULTS.capacity) : 0,
        sym ? (table.txn.symbols[String(c.id)]?.count ?? 0) : 0,
        c.id === m.timestampId,
        c.upsertKey === true,
      ]); // committed symbols only
    }
  } else {
    rows.push([createTableDdl(catalog, plan.table!)]);
  }
  const columns = plan.fields.map((f, c) =>
    fromValues(
      f.type,
      rows.map((r) => r[c] ?? null),
    ),
  );
  return { rowCount: rows.length, columns };
}

/** When the table's last commit was written (its _txn file), in micros; null when it cannot be read. */
export function lastCommit(dir: string): number | null {
  try {
    return Math.round(statSync(join(dir, TXN_FILE)).mtimeMs * 1000);
  } catch {
    return null;
  }
}

/**
 * The CREATE TABLE statement that recreates the table's structure (SHOW CREATE TABLE), as
 * QuestDB 9.3 writes it: what differs from the defaults only (symbol capacity and cache, index,
 * BYPASS WAL for a partitioned table, WITH parameters), then DEDUP UPSERT KEYS.
 */
export function createTableDdl(catalog: Catalog, table: string): string {
  const m = catalog.get(table).meta;
  const cols = m.columns.map((c) => `\t${quote(c.name)} ${typeName(c.type)}${symbolClause(c)}`).join(',\n');
  const ts = m.columns.find((c) => c.id === m.timestampId);
  let ddl = `CREATE TABLE '${m.name}' ( \n${cols}\n)`;
  if (ts) {
    ddl += ` timestamp(${quote(ts.name)}) PARTITION BY ${m.partitionBy}`;
    if (m.ttl !== undefined) ddl += ` TTL ${ttlText(m.ttl)}`;
    if (m.partitionBy !== 'NONE' && m.wal !== true) ddl += ' BYPASS WAL';
  }
  const withs: string[] = [];
  if (m.maxUncommittedRows !== catalog.options.maxUncommittedRows)
    withs.push(`maxUncommittedRows=${m.maxUncommittedRows}`);
  if (m.o3MaxLag !== catalog.options.o3MaxLag) withs.push(`o3MaxLag=${Math.round(m.o3MaxLag)}us`);
  if (withs.length > 0) ddl += `\nWITH ${withs.join(', ')}`;
  const keys = upsertKeys(m);
  if (keys.length > 0) ddl += `\nDEDUP UPSERT KEYS(${keys.map((k) => quote(k.name)).join(',')})`;
  return `${ddl};`;
}

function createViewDdl(name: string, sql: string): string {
  return `CREATE VIEW '${name}' AS ( \n${sql.trim()}\n);`;
}

/**
 * The CREATE MATERIALIZED VIEW statement of a view (SHOW CREATE DATABASE, SHOW CREATE MATERIALIZED
 * VIEW): base table, refresh (IMMEDIATE, MANUAL, EVERY with START and TIME ZONE, PERIOD), the query
 * as written, PARTITION BY, TTL and EXPIRE ROWS (the policy as written).
 */
export function createMatViewDdl(t: Table): string {
  const { def } = t.mv!;
  const r = def.refresh;
  let refresh = r.type === 'immediate' ? 'IMMEDIATE' : r.type === 'manual' ? 'MANUAL' : `EVERY ${r.every ?? ''}`;
  if (r.type === 'timer' && r.start !== null) refresh += ` START '${formatTimestamp(r.start)}'`;
  if (r.type === 'timer' && r.timeZone !== null) refresh += ` TIME ZONE '${r.timeZone}'`;
  if (r.period === 'sample') refresh += ' PERIOD (SAMPLE BY INTERVAL)';
  else if (r.period !== null) {
    refresh += ` PERIOD (LENGTH ${r.period.length}`;
    if (r.period.timeZone !== null) refresh += ` TIME ZONE '${r.period.timeZone}'`;
    if (r.period.delay !== null) refresh += ` DELAY ${r.period.delay}`;
    refresh += ')';
  }
  let ddl = `CREATE MATERIALIZED VIEW '${t.name}' WITH BASE '${def.baseTable}' REFRESH ${refresh} AS ( \n${def.sql.trim()}\n) PARTITION BY ${t.meta.partitionBy}`;
  if (t.meta.ttl !== undefined) ddl += ` TTL ${ttlText(t.meta.ttl)}`;
  if (def.expire !== undefined) {
    ddl += ` EXPIRE ROWS ${def.expire.clause}`;
    if (def.expire.cleanupEvery !== null) ddl += ` CLEANUP EVERY ${def.expire.cleanupEvery}`;
  }
  return `${ddl};`;
}

/** SHOW CREATE MATERIALIZED VIEW: the statement that makes the view again (createMatViewDdl). */
export function showCreateMatView(catalog: Catalog, name: string): string {
  const t = catalog.get(name);
  if (t.mv === null) throw new SvcError('SQL', `materialized view does not exist [view=${name}]`, { position: 0 });
  return createMatViewDdl(t);
}

/**
 * SHOW CREATE DATABASE: a statement per table, materialized view and view of the chosen
 * categories, each after the objects it reads (a view's FROM names, a materialized view's base),
 * alphabetical otherwise, so replaying them in order recreates the schema.
 */
function createDatabaseDdl(catalog: Catalog, dump: ReadonlySet<DumpCategory>): string[] {
  interface Obj {
    readonly key: string;
    readonly ddl: () => string;
    readonly reads: readonly string[];
  }
  const objs: Obj[] = [];
  for (const t of catalog.tables()) {
    if (t.error !== null) continue; // a table that did not open has no structure to show
    if (t.mv === null && dump.has('TABLES'))
      objs.push({ key: t.name, ddl: () => createTableDdl(catalog, t.name), reads: [] });
    if (t.mv !== null && dump.has('MATERIALIZED_VIEWS'))
      objs.push({ key: t.name, ddl: () => createMatViewDdl(t), reads: [t.mv.def.baseTable] });
  }
  if (dump.has('VIEWS'))
    for (const v of catalog.views())
      objs.push({ key: v.name, ddl: () => createViewDdl(v.name, v.sql), reads: viewReads(v.sql) });
  objs.sort((a, b) =>
    a.key.toLowerCase() < b.key.toLowerCase() ? -1 : a.key.toLowerCase() > b.key.toLowerCase() ? 1 : 0,
  );
  const pending = new Map(objs.map((o) => [o.key.toLowerCase(), o]));
  const out: string[] = [];
  // Each round emits the first object (in name order) whose dumped dependencies are all out; a
  // cycle (not possible in a valid catalog) falls back to name order.
  while (pending.size > 0) {
    let next: Obj | undefined;
    for (const o of pending.values()) {
      if (o.reads.every((r) => r.toLowerCase() === o.key.toLowerCase() || !pending.has(r.toLowerCase()))) {
        next = o;
        break;
      }
    }
    next ??= pending.values().next().value!;
    pending.delete(next.key.toLowerCase());
    out.push(next.ddl());
  }
  return out;
}

/** The names a view's query reads in FROM and JOIN (none when it no longer parses). */
function viewReads(sql: string): string[] {
  const names: string[] = [];
  try {
    walkTree(parseStatement(sql), (o) => {
      if (o['kind'] === 'tableRef' && typeof o['name'] === 'string') names.push(o['name']);
    });
  } catch (e) {
    if (!(e instanceof SvcError)) throw e;
  }
  return names;
}

function symbolClause(c: ColumnDef): string {
  if (c.type !== 'SYMBOL') return '';
  let s = '';
  if (c.symbolCapacity !== undefined && c.symbolCapacity !== SYMBOL_DEFAULTS.capacity)
    s += ` CAPACITY ${c.symbolCapacity}`;
  if (c.symbolCached === false) s += ' NOCACHE';
  if (c.indexed) {
    s += ' INDEX';
    if (c.indexCapacity !== undefined && c.indexCapacity !== SYMBOL_DEFAULTS.indexCapacity)
      s += ` CAPACITY ${c.indexCapacity}`;
  }
  return s;
}

function quote(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** A view's row of tables(): no partitions, rows or commits; its designated timestamp is its query's. */
function viewTableRow(v: ViewInfo, id: number): Value[] {
  const ts = v.timestamp >= 0 ? v.fields[v.timestamp]!.name : null;
  return [id, v.name, ts, 'N/A', false, false, 0, 'HOUR', false, v.name, 0, 0, v.error !== null, 'V'];
}

/** A materialized view's row of materialized_views(). */
function matViewRow(catalog: Catalog, t: Table): Value[] {
  const { def, state } = t.mv!;
  let baseTxn: number | null = null;
  try {
    baseTxn = catalog.get(def.baseTable).txn.txn;
  } catch {
    // The base table is gone: the view is invalid, and there is no base transaction to show.
  }
  const r = def.refresh;
  const every = r.every !== null ? /^(\d+)(\D+)$/.exec(r.every) : null;
  const period = r.period !== null && r.period !== 'sample' ? r.period : null;
  const length = period !== null ? /^(\d+)(\D+)$/.exec(period.length) : null;
  const delay = period?.delay != null ? /^(\d+)(\D+)$/.exec(period.delay) : null;
  return [
    t.name,
    r.type,
    def.baseTable,
    state.lastRefreshStart,
    state.lastRefreshFinish,
    def.sql.trim(),
    t.name,
    state.invalid,
    state.invalid !== null ? 'invalid' : 'valid',
    state.periodHi ?? null,
    state.baseTxn,
    baseTxn,
    0,
    null,
    r.timeZone,
    r.type === 'timer' ? r.start : null,
    every !== null ? Number(every[1]) : null,
    every !== null ? every[2]! : null,
    length !== null ? Number(length[1]) : null,
    length !== null ? length[2]! : null,
    delay !== null ? Number(delay[1]) : null,
    delay !== null ? delay[2]! : null,
    ...expireColumns(t),
  ];
}

/** materialized_views()' expire_clause (a WHEN's predicate, a KEEP as written), cleanup interval and enforcement. */
function expireColumns(t: Table): Value[] {
  const e = t.mv!.def.expire;
  if (e === undefined) return [null, null, null];
  const p = parseExpireClause(e.clause);
  const fields = t.meta.columns.map((c) => ({ name: c.name, type: c.type }));
  const target = { name: t.name, fields, timestamp: t.meta.columns.findIndex((c) => c.id === t.meta.timestampId) };
  return [
    p.mode === 'when' ? predicateText(p) : p.clause,
    e.cleanupEvery ?? '1h',
    reclaimable(p, target) ? 'FILTER_AND_RECLAIM' : 'FILTER_ONLY',
  ];
}

/** Bytes of the files in a partition's folder (0 when it cannot be read). */
function folderSize(dir: string): number {
  let total = 0;
  try {
    for (const f of readdirSync(dir)) {
      try {
        total += statSync(join(dir, f)).size;
      } catch {
        // A file removed meanwhile counts nothing.
      }
    }
  } catch {
    return 0;
  }
  return total;
}
