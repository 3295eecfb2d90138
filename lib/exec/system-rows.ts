// Rows of the system table functions and SHOW statements (sql/bind-system.ts binds them), read
// from svcdb's own state when the query runs. Where QuestDB reports something svcdb does not
// have (a WAL transaction log, reader and writer pools, writer metrics), the rows say what is
// true of svcdb: its last commit, no pooled readers, the writers held now, -1 for counters.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Config } from '../config/config.js';
import { CONFIG_KEYS, envName, type KeySpec } from '../config/config-keys.js';
import type { Batch } from '../core/batch.js';
import { sizePretty } from '../core/number-format.js';
import type { Plan } from '../sql/bound.js';
import { SERVER_VERSION } from '../sql/metadata.js';
import type { Catalog } from '../storage/catalog.js';
import { tablesOf, type ExecContext } from './context.js';
import { listFiles } from './file-list.js';
import { lastCommit } from './metadata-rows.js';
import { fromValues, type Value } from './vectors.js';

type MetadataPlan = Extract<Plan, { kind: 'metadata' }>;

const SYSTEM_WHATS: ReadonlySet<MetadataPlan['what']> = new Set([
  'tableStorage',
  'walTransactions',
  'memoryMetrics',
  'readerPool',
  'writerPool',
  'writerMetrics',
  'queryActivity',
  'serverVersion',
  'parameters',
  'files',
  'importLog',
  'exportLog',
]);

/** Whether this module fills the node's rows (else metadata-rows.ts does). */
export function isSystemMetadata(plan: MetadataPlan): boolean {
  return SYSTEM_WHATS.has(plan.what);
}

/** QuestDB's table writer counters; svcdb counts none, so each is -1 as QuestDB's are with metrics off. */
const WRITER_METRICS = ['total_commits', 'o3commits', 'rollbacks', 'committed_rows', 'physically_written_rows'];

export function systemRows(plan: MetadataPlan, cx: ExecContext): Batch {
  const rows = rowsOf(plan, cx);
  const columns = plan.fields.map((f, c) =>
    fromValues(
      f.type,
      rows.map((r) => r[c] ?? null),
    ),
  );
  return { rowCount: rows.length, columns };
}

function rowsOf(plan: MetadataPlan, cx: ExecContext): Value[][] {
  switch (plan.what) {
    case 'tableStorage':
      return tableStorage(tablesOf(cx));
    case 'walTransactions':
      return walTransactions(tablesOf(cx), plan.table!);
    case 'memoryMetrics': {
      const m = process.memoryUsage();
      return [
        ['RSS', m.rss],
        ['HEAP_TOTAL', m.heapTotal],
        ['HEAP_USED', m.heapUsed],
        ['EXTERNAL', m.external],
        ['ARRAY_BUFFERS', m.arrayBuffers],
      ];
    }
    case 'readerPool':
      // svcdb keeps no pool of readers: each statement opens its own and closes it when it ends.
      return [];
    case 'writerPool':
      // No pool either: a writer is taken for one statement or import. Those held now, on the
      // main thread (where every writer runs); when and why it was taken is not recorded.
      return tablesOf(cx)
        .tables()
        .filter((t) => t.writerHeld)
        .map((t) => [t.name, 0, null, null]);
    case 'writerMetrics':
      return WRITER_METRICS.map((name) => [name, -1]);
    case 'queryActivity':
      // Statements run on the main thread, not on a pool worker; the user is not recorded.
      return (cx.activity?.statements() ?? []).map((s) => [
        s.id,
        null,
        null,
        null,
        s.startMicros,
        s.startMicros,
        'active',
        s.query,
      ]);
    case 'serverVersion':
      return [[SERVER_VERSION]];
    case 'parameters':
      return parameters(cx.config ?? Config.defaults());
    case 'importLog':
      return (cx.copies?.importLog() ?? []).map((r) => [...r]);
    case 'exportLog':
      return (cx.copies?.exportLog() ?? []).map((r) => [...r]);
    case 'files':
      return listFiles(plan.files!).map((f) => [f.path, f.size, sizePretty(f.size), f.modifiedMs]);
    default:
      throw new Error(`not a system metadata node: ${plan.what}`);
  }
}

/** One row per table and materialized view, by name: its partitions, rows and folder bytes. */
function tableStorage(catalog: Catalog): Value[][] {
  return catalog
    .tables()
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((t) => {
      const parts = t.txn.partitions;
      return [
        t.name,
        t.meta.wal === true,
        t.meta.partitionBy,
        parts.length,
        parts.reduce((s, p) => s + p.rows, 0),
        treeSize(t.dir),
      ];
    });
}

/**
 * svcdb keeps no log of transactions: `_txn` holds the last commit only (storage/FORMAT.md). So
 * one row: its number, when `_txn` was written, the metadata version, and the table's timestamp
 * range and row count after it. No WAL segments exist, so walId, segmentId and segmentTxn are
 * NULL; a commit is never a DDL-only transaction in this sense, so alterCommandType is 0.
 */
function walTransactions(catalog: Catalog, name: string): Value[][] {
  const t = catalog.get(name);
  const parts = t.txn.partitions;
  const designated = t.meta.timestampId >= 0 && parts.length > 0;
  return [
    [
      t.txn.txn,
      lastCommit(t.dir),
      null,
      null,
      null,
      t.txn.metaVersion,
      designated ? parts[0]!.minTs : null,
      designated ? parts[parts.length - 1]!.maxTs : null,
      parts.reduce((s, p) => s + p.rows, 0),
      0,
    ],
  ];
}

/** Every server.conf key in its order: value (secrets as ****), where it was set, whether reload_config() takes it again. */
function parameters(config: Config): Value[][] {
  return Object.entries(CONFIG_KEYS).map(([k, spec]) => {
    const s = spec as KeySpec<unknown>;
    return [
      k,
      envName(k),
      s.secret === true ? '****' : s.type.format(config.get(k as keyof typeof CONFIG_KEYS)),
      config.sourceOf(k),
      s.secret === true,
      s.reloadable === true,
    ];
  });
}

/** Bytes of every file under a folder (0 for what cannot be read); symbolic links are not followed. */
function treeSize(dir: string): number {
  let total = 0;
  let list;
  try {
    list = readdirSync(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const e of list) {
    const p = join(dir, e.name);
    if (e.isDirectory()) total += treeSize(p);
    else if (e.isFile()) {
      try {
        total += statSync(p).size;
      } catch {
        // Removed meanwhile: counts nothing.
      }
    }
  }
  return total;
}
