// The rows of live_views() and the text of SHOW CREATE LIVE VIEW, from a live view's definition and
// refresh state (storage/mat-views.ts). svcdb has no in-memory tier and no checkpoint timeline:
// those columns of QuestDB's are 0 or NULL.
import { formatTimestamp } from '../core/datetime.js';
import type { Catalog } from '../storage/catalog.js';
import type { Table } from '../storage/table.js';
import { ttlText } from '../storage/ttl.js';
import type { Value } from './vectors.js';

const UNITS: Readonly<Record<string, string>> = {
  ms: 'MILLISECOND',
  s: 'SECOND',
  m: 'MINUTE',
  h: 'HOUR',
  d: 'DAY',
};

/** `5s` as live_views() shows it: 5 and SECOND. */
function interval(text: string): [number | null, string | null] {
  const m = /^(\d+)(ms|s|m|h|d)$/i.exec(text);
  return m === null ? [null, null] : [Number(m[1]), UNITS[m[2]!.toLowerCase()] ?? null];
}

/** live_views(): one row per live view, in name order. */
export function liveViewRows(catalog: Catalog): Value[][] {
  return catalog.liveViews().map((t) => liveViewRow(catalog, t));
}

function liveViewRow(catalog: Catalog, t: Table): Value[] {
  const { def, state } = t.mv!;
  const live = def.live!;
  let baseTxn: number | null = null;
  try {
    baseTxn = catalog.get(def.baseTable).txn.txn;
  } catch {
    // The base table is gone: the view is invalid and there is no lag to show.
  }
  const processed = state.baseTxn < 0 ? null : state.baseTxn;
  const status = state.invalid !== null ? 'invalid' : processed === null ? 'seeding' : 'active';
  const [flushN, flushUnit] = interval(live.flushEvery);
  const [memN, memUnit] = interval(live.inMemory);
  const finished = state.lastRefreshFinish;
  return [
    t.name,
    t.name,
    def.baseTable,
    def.sql.trim(),
    status,
    state.invalid,
    flushN,
    flushUnit,
    memN,
    memUnit,
    0,
    0,
    0,
    0,
    baseTxn === null ? null : Math.max(0, baseTxn - (processed ?? 0)),
    finished === null ? null : Math.max(0, Math.round(Date.now() * 1000 - finished)),
    processed,
    processed,
    processed,
    live.startMicros,
    0,
    null,
    0,
    0,
    0,
    ...new Array<Value>(27).fill(null),
  ];
}

/** SHOW CREATE LIVE VIEW: the statement that makes the view again (START FROM NOW as the time it resolved to). */
export function createLiveViewDdl(catalog: Catalog, name: string): string {
  const t = catalog.get(name);
  const live = t.mv!.def.live!;
  const start =
    live.startFrom.toUpperCase() === 'BEGINNING' || live.startMicros === null
      ? 'BEGINNING'
      : `'${formatTimestamp(live.startMicros)}'`;
  let ddl = `CREATE LIVE VIEW '${t.name}' FLUSH EVERY ${live.flushEvery} IN MEMORY ${live.inMemory}`;
  ddl += ` PARTITION BY ${t.meta.partitionBy}`;
  if (t.meta.ttl !== undefined) ddl += ` TTL ${ttlText(t.meta.ttl)}`;
  ddl += ` START FROM ${start} AS (\n${t.mv!.def.sql.trim()}\n);`;
  return ddl;
}
