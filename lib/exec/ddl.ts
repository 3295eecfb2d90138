// CREATE TABLE (also AS SELECT and LIKE), DROP, TRUNCATE, RENAME and ALTER
// TABLE against the catalog. Everything that can be checked is checked when
// the statement is compiled, so errors carry their position.
import { SvcError } from '../errors/svc-error.js';
import type { Catalog, CreateTableDef } from '../storage/catalog.js';
import type { TableWriter } from '../storage/table-writer.js';
import type { Table } from '../storage/table.js';
import type { MatViewControl } from './mat-view-ddl.js';
import { isPersisted, typeName, type ColumnType } from '../core/column-type.js';
import { checkColumnName, checkTableName, nameKey } from '../storage/names.js';
import {
  columnOptions,
  upsertKeys,
  type ColumnDef,
  type ColumnOptions,
  type TableMeta,
} from '../storage/table-state.js';
import { parsePartitionBy, partitionFloor, type PartitionBy } from '../storage/partition-by.js';
import { boolsOf, fromDoubles } from '../core/vec.js';
import { checkTtl, parseTtl, type Ttl } from '../storage/ttl.js';
import type * as A from '../sql/ast.js';
import { bindExpr, typeOf } from '../sql/bind-expr.js';
import type { BoundExpr } from '../sql/bound.js';
import { bindQuery, type BindContext } from '../sql/binder.js';
import type { StatementEnv } from '../sql/statement-env.js';
import { pace, type ExecContext } from './context.js';
import { Evaluator } from './expr.js';
import { appendRows } from './insert.js';

type Ddl = A.CreateTable | A.DropTable | A.TruncateTable | A.RenameTable | A.AlterTable;
type Prepared = (cx: ExecContext) => Promise<{ rows: number }>;

/** Storage errors (no position) become SQL errors at `pos`. */
async function at<T>(pos: number, f: () => T | Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof SvcError && e.position === undefined && e.status < 500)
      throw new SvcError('SQL', e.message, { position: pos });
    throw e;
  }
}

/** A name check (storage/names.ts) as a SQL error at the name's position. */
/** A table column's type as written: INTERVAL is a value only, refused as QuestDB refuses it (at the type). */
function columnTypeOf(t: A.TypeName): ReturnType<typeof typeOf> {
  const type = typeOf(t);
  if (!isPersisted(type)) throw new SvcError('SQL', `non-persisted type: ${t.name}`, { position: t.pos });
  return type;
}

function checkName(check: (name: string) => void, name: string, pos: number): void {
  try {
    check(name);
  } catch (e) {
    if (e instanceof SvcError) throw new SvcError('SQL', e.message, { position: pos });
    throw e;
  }
}

function durationMicros(text: string, pos: number): number {
  const m = /^(\d+)\s*(us|ms|s|m|h|d)?$/i.exec(text.trim().replace(/^'|'$/g, ''));
  if (!m) throw new SvcError('SQL', `invalid duration [value=${text}]`, { position: pos });
  const unit = { us: 1, ms: 1e3, s: 1e6, m: 6e7, h: 3.6e9, d: 8.64e10 }[(m[2] ?? 'us').toLowerCase() as 'us'];
  return Number(m[1]) * unit;
}

function params(
  list: ReadonlyArray<{ key: string; value: string }>,
  pos: number,
): { maxUncommittedRows?: number; o3MaxLag?: number } {
  const out: { maxUncommittedRows?: number; o3MaxLag?: number } = {};
  for (const p of list) {
    const k = p.key.toLowerCase();
    if (k === 'maxuncommittedrows') {
      const n = Number(p.value);
      if (!Number.isInteger(n) || n < 1)
        throw new SvcError('SQL', `invalid maxUncommittedRows [value=${p.value}]`, { position: pos });
      out.maxUncommittedRows = n;
    } else if (k === 'o3maxlag') out.o3MaxLag = durationMicros(p.value, pos);
  }
  return out;
}

/** The TTL of a CREATE's options (none when absent or 0), checked against the partitioning as QuestDB does. */
export function tableTtl(
  list: ReadonlyArray<{ key: string; value: string; pos?: number }>,
  partitionBy: PartitionBy,
): Ttl | undefined {
  const p = list.find((x) => x.key === 'TTL');
  if (p === undefined) return undefined;
  const ttl = parseTtl(p.value, p.pos ?? 0);
  checkTtl(ttl, partitionBy, p.pos ?? 0);
  return ttl.value === 0 ? undefined : ttl;
}

/** The statement's functions and time, and how CREATE TABLE AS SELECT names the columns the query does not alias. */
export type DdlEnv = StatementEnv & Pick<BindContext, 'naming' | 'sql'>;

export function runDdl(stmt: Ddl, catalog: Catalog, env: DdlEnv, matViews?: MatViewControl): Prepared {
  switch (stmt.kind) {
    case 'createTable':
      return createTable(stmt, catalog, env);
    case 'dropTable':
      return async () => {
        const names = stmt.all ? catalog.tables().map((t) => ({ name: t.name, pos: stmt.pos })) : stmt.names;
        for (const n of names) {
          if (catalog.view(n.name)) throw new SvcError('SQL', 'table expected, got view', { position: n.pos });
          if (!stmt.all && catalog.exists(n.name) && catalog.get(n.name).mv !== null) {
            const kind = catalog.get(n.name).mv!.def.live !== undefined ? 'live' : 'materialized';
            throw new SvcError('SQL', `table expected, got ${kind} view`, { position: n.pos });
          }
          await at(n.pos, () => catalog.drop(n.name, { ifExists: stmt.ifExists }));
          catalog.invalidateMatViews(n.name, 'base table is dropped');
        }
        return { rows: 0 };
      };
    case 'truncateTable':
      return async () => {
        for (const n of stmt.names) {
          const w = await at(n.pos, () => catalog.writer(n.name));
          try {
            w.truncate();
          } finally {
            w.close();
          }
          catalog.invalidateMatViews(n.name, 'truncate operation', { live: false });
        }
        return { rows: 0 };
      };
    case 'renameTable': {
      checkName(checkTableName, stmt.to, stmt.toPos);
      return async () => {
        // QuestDB points at the statement for both.
        if (!catalog.exists(stmt.from))
          throw new SvcError('SQL', `table does not exist [table=${stmt.from}]`, { position: stmt.pos });
        if (nameKey(stmt.from) !== nameKey(stmt.to) && catalog.exists(stmt.to))
          throw new SvcError('SQL', 'Rename target exists', { position: stmt.pos });
        if (catalog.get(stmt.from).mv !== null) {
          const kind = catalog.get(stmt.from).mv!.def.live !== undefined ? 'live' : 'materialized';
          throw new SvcError('SQL', `cannot rename ${kind} view`, { position: stmt.pos });
        }
        await at(stmt.toPos, () => catalog.rename(stmt.from, stmt.to));
        catalog.invalidateMatViews(stmt.from, 'base table is renamed');
        return { rows: 0 };
      };
    }
    case 'alterTable':
      return alterTable(stmt, catalog, env, matViews);
  }
}

function createTable(stmt: A.CreateTable, catalog: Catalog, env: DdlEnv): Prepared {
  const exists = catalog.exists(stmt.name);
  if (exists && !stmt.ifNotExists) throw new SvcError('SQL', 'table already exists', { position: stmt.namePos });
  // (A table an older version made with a longer name exists: IF NOT EXISTS leaves it alone.)
  if (!exists) checkName(checkTableName, stmt.name, stmt.namePos);
  let columns: Array<ColumnOptions & { name: string; type: ColumnType }>;
  const query = stmt.asSelect ? bindQuery(stmt.asSelect, { catalog, ...env }) : null;
  if (stmt.like) {
    if (!catalog.exists(stmt.like))
      throw new SvcError('SQL', `table does not exist [table=${stmt.like}]`, { position: stmt.pos });
    // The structure as a whole: columns with their options and upsert keys, designated timestamp,
    // partitioning, WAL and parameters (QuestDB's LIKE); no rows.
    const m = catalog.get(stmt.like).meta;
    const ts = m.columns.find((c) => c.id === m.timestampId);
    const like: CreateTableDef = {
      name: stmt.name,
      columns: m.columns.map((c) => ({ ...columnOptions(c), name: c.name, type: c.type })),
      timestamp: ts?.name,
      partitionBy: m.partitionBy,
      wal: m.wal === true,
      maxUncommittedRows: m.maxUncommittedRows,
      o3MaxLag: m.o3MaxLag,
    };
    return async () => {
      if (exists) return { rows: 0 }; // IF NOT EXISTS
      await at(stmt.namePos, () => catalog.create(like));
      return { rows: 0 };
    };
  } else if (query) {
    // The select list's items name the columns; with `*` among them, the query's position stands in.
    const items = stmt.asSelect!.kind === 'select' ? stmt.asSelect!.columns : [];
    const itemPos =
      items.length === query.fields.length && items.every((i) => i.kind === 'item') ? items.map((i) => i.pos) : null;
    columns = query.fields.map((f, i) => {
      checkName(checkColumnName, f.name, itemPos?.[i] ?? stmt.asSelect!.pos);
      const cast = stmt.casts.find((c) => c.column.toLowerCase() === f.name.toLowerCase());
      const type = cast ? columnTypeOf(cast.type) : f.type;
      if (type === 'NULL')
        throw new SvcError('SQL', `cannot create a column of type NULL [column=${f.name}]`, { position: stmt.pos });
      if (!isPersisted(type))
        throw new SvcError('SQL', `non-persisted type: ${typeName(type)} [column=${f.name}]`, {
          position: itemPos?.[i] ?? stmt.asSelect!.pos,
        });
      return { name: f.name, type };
    });
    for (const c of stmt.casts) {
      if (!columns.some((x) => x.name.toLowerCase() === c.column.toLowerCase()))
        throw new SvcError('SQL', `Invalid column: ${c.column}`, { position: c.pos });
    }
    // `, INDEX(col [CAPACITY n])`: an index on a SYMBOL column of the result.
    for (const ix of stmt.indexes ?? []) {
      const i = columns.findIndex((x) => x.name.toLowerCase() === ix.column.toLowerCase());
      if (i < 0) throw new SvcError('SQL', `Invalid column: ${ix.column}`, { position: ix.pos });
      const c = columns[i]!;
      // QuestDB's parser checks a column with a cast (at its name); the query's own types are checked later (at 0).
      const cast = stmt.casts.some((x) => x.column.toLowerCase() === c.name.toLowerCase());
      if (c.type !== 'SYMBOL')
        throw new SvcError('SQL', `indexes are supported only for SYMBOL columns: ${ix.column}`, {
          position: cast ? ix.pos : 0,
        });
      columns[i] = { ...c, indexed: true, ...(ix.capacity !== null ? { indexCapacity: ceilPow2(ix.capacity) } : {}) };
    }
  } else {
    const seen = new Set<string>();
    columns = stmt.columns.map((c) => {
      checkName(checkColumnName, c.name, c.pos);
      const t = columnTypeOf(c.type);
      if (t === 'NULL') throw new SvcError('SQL', 'invalid column type', { position: c.type.pos });
      if (seen.has(c.name.toLowerCase()))
        throw new SvcError('SQL', `Duplicate column [name=${c.name}]`, { position: c.pos });
      seen.add(c.name.toLowerCase());
      return { name: c.name, type: t, ...(t === 'SYMBOL' ? symbolOptions(c) : {}) };
    });
  }
  let partitionBy;
  if (stmt.partitionBy) {
    partitionBy = parsePartitionBy(stmt.partitionBy.unit);
    if (!partitionBy)
      throw new SvcError('SQL', `'NONE', 'HOUR', 'DAY', 'WEEK', 'MONTH' or 'YEAR' expected`, {
        position: stmt.partitionBy.pos,
      });
    if (partitionBy !== 'NONE' && !stmt.timestamp) {
      throw new SvcError('SQL', 'partitioning is possible only on tables with designated timestamps', {
        position: stmt.partitionBy.pos,
      });
    }
  }
  if (stmt.timestamp) {
    const c = columns.find((x) => x.name.toLowerCase() === stmt.timestamp!.column.toLowerCase());
    if (!c)
      throw new SvcError('SQL', `invalid designated timestamp column [name=${stmt.timestamp.column}]`, {
        position: stmt.timestamp.pos,
      });
    if (c.type !== 'TIMESTAMP')
      throw new SvcError('SQL', `TIMESTAMP column expected [actual=${c.type}]`, { position: stmt.timestamp.pos });
  }
  if (stmt.wal === true && (partitionBy === undefined || partitionBy === 'NONE')) {
    throw new SvcError('SQL', 'WAL Write Mode can only be used on partitioned tables', { position: stmt.namePos });
  }
  // QuestDB's default write mode: WAL for partitioned tables unless BYPASS WAL.
  const wal = stmt.wal ?? (partitionBy !== undefined && partitionBy !== 'NONE');
  if (stmt.dedupKeys) {
    checkDedupKeys(stmt.dedupKeys, columns, stmt.timestamp?.column ?? null, wal);
    const keys = new Set(stmt.dedupKeys.map((k) => k.name.toLowerCase()));
    columns = columns.map((c) => (keys.has(c.name.toLowerCase()) ? { ...c, upsertKey: true } : c));
  }
  const ttl = tableTtl(stmt.params, partitionBy ?? 'NONE');
  const def: CreateTableDef = {
    name: stmt.name,
    columns,
    timestamp: stmt.timestamp?.column,
    partitionBy,
    wal,
    ...params(stmt.params, stmt.pos),
    ...(ttl !== undefined ? { ttl } : {}),
  };
  return async (cx) => {
    if (exists) return { rows: 0 }; // IF NOT EXISTS
    if (!query) {
      await at(stmt.namePos, () => catalog.create(def));
      return { rows: 0 };
    }
    // CREATE TABLE AS SELECT is all or nothing: the table is built staged, unseen, and takes its
    // name with all its rows at the end; a failure removes only the staged folder.
    const staged = await at(stmt.namePos, () => catalog.createStaged(def));
    try {
      const w = await catalog.stagedWriter(staged);
      let rows: number;
      try {
        rows = await appendRows(
          w,
          columns.map((c) => c.name),
          query,
          cx,
          stmt.asSelect!.pos,
        );
      } finally {
        w.close();
      }
      await at(stmt.namePos, () => catalog.publishStaged(staged));
      return { rows };
    } catch (e) {
      catalog.discardStaged(staged);
      if (stmt.ifNotExists && catalog.exists(stmt.name)) return { rows: 0 }; // created meanwhile
      throw e;
    }
  };
}

/**
 * DEDUP UPSERT KEYS as QuestDB checks them: existing columns, the designated timestamp among them,
 * a WAL table. The writer then keeps one row per distinct key (the last written).
 */
function checkDedupKeys(
  keys: ReadonlyArray<{ name: string; pos: number }>,
  columns: ReadonlyArray<{ name: string }>,
  timestamp: string | null,
  wal: boolean,
): void {
  for (const k of keys) {
    if (!columns.some((c) => c.name.toLowerCase() === k.name.toLowerCase())) {
      throw new SvcError('SQL', `deduplicate key column not found [column=${k.name}]`, { position: k.pos });
    }
  }
  if (timestamp === null)
    throw new SvcError('SQL', 'deduplication is possible only on tables with a designated timestamp', {
      position: keys[0]!.pos,
    });
  if (!keys.some((k) => k.name.toLowerCase() === timestamp.toLowerCase())) {
    throw new SvcError('SQL', `deduplicate key list must include dedicated timestamp column [column=${timestamp}]`, {
      position: keys[0]!.pos,
    });
  }
  if (!wal) throw new SvcError('SQL', 'deduplication is possible only on WAL tables', { position: keys[0]!.pos });
}

/** SYMBOL CAPACITY n, CACHE/NOCACHE, INDEX [CAPACITY n] of a column definition; capacities rounded up to a power of 2 as QuestDB does. */
function symbolOptions(
  c: Pick<A.ColumnDefAst, 'symbolCapacity' | 'symbolCached' | 'indexed' | 'indexCapacity'>,
): ColumnOptions {
  const out: { -readonly [K in keyof ColumnOptions]: ColumnOptions[K] } = {};
  if (c.symbolCapacity !== undefined) out.symbolCapacity = ceilPow2(c.symbolCapacity);
  if (c.symbolCached !== undefined) out.symbolCached = c.symbolCached;
  if (c.indexed) out.indexed = true;
  if (c.indexCapacity !== undefined) out.indexCapacity = ceilPow2(c.indexCapacity);
  return out;
}

function ceilPow2(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

function alterTable(
  stmt: A.AlterTable,
  catalog: Catalog,
  env: StatementEnv,
  matViews: MatViewControl | undefined,
): Prepared {
  if (!catalog.exists(stmt.name))
    throw new SvcError('SQL', `table does not exist [table=${stmt.name}]`, { position: stmt.namePos });
  const a = stmt.action;
  if (a.kind === 'otherAlter') {
    const wal = walCommand(a.text, a.pos, catalog.get(stmt.name), stmt.namePos, catalog, matViews);
    if (wal !== null) return wal;
    const format = /^SET\s+FORMAT\s*/i.exec(a.text);
    if (format !== null) return setFormat(a.text.slice(format[0].length), a.pos + format[0].length);
  }
  if (a.kind === 'otherAlter')
    throw new SvcError('SQL', `ALTER TABLE ${a.text.split(/\s+/).slice(0, 2).join(' ')} is not supported`, {
      position: a.pos,
    });
  if (a.kind === 'convertPartition' && a.parquet)
    throw new SvcError(
      'SQL',
      'CONVERT PARTITION TO PARQUET is not supported: svcdb keeps every partition in its own (native) format',
      { position: a.pos },
    );
  const partitions =
    a.kind === 'dropPartition' || a.kind === 'movePartition' || a.kind === 'convertPartition'
      ? a.list.map((e) => {
          if (e.kind !== 'literal' || e.type !== 'STRING')
            throw new SvcError('SQL', 'partition name expected', { position: e.pos });
          return { name: String(e.value), pos: e.pos };
        })
      : [];
  const meta = catalog.get(stmt.name).meta;
  const find = (name: string): ColumnDef | undefined => meta.columns.find((c) => nameKey(c.name) === nameKey(name));
  const dropWhere =
    (a.kind === 'dropPartition' || a.kind === 'movePartition' || a.kind === 'convertPartition') && a.where
      ? partitionPredicate(a.where, meta, env)
      : null;
  if (a.kind === 'dropColumn') {
    for (const c of a.columns) {
      if (find(c.name)?.id === meta.timestampId) {
        throw new SvcError(
          'SQL',
          `cannot remove designated timestamp column [table=${meta.name}, column=${find(c.name)!.name}]`,
          { position: stmt.pos },
        );
      }
    }
  }
  // QuestDB applies an ALTER of a WAL table as one structure change: adding or dropping several
  // columns in one statement is refused.
  if ((a.kind === 'addColumn' || a.kind === 'dropColumn') && meta.wal && a.columns.length > 1) {
    throw new SvcError(
      'SQL',
      `statement is either no-op, or contains multiple transactions, such as 'alter table add column col1, col2', and currently not supported for WAL tables [table=${meta.name}, oldStructureVersion=${meta.version}, newStructureVersion=${meta.version + a.columns.length}]`,
      { position: stmt.pos },
    );
  }
  if (a.kind === 'addColumn') for (const c of a.columns) checkName(checkColumnName, c.name, c.pos);
  if (a.kind === 'renameColumn') {
    checkName(checkColumnName, a.to, a.toPos);
    if (nameKey(a.from) !== nameKey(a.to) && find(a.to))
      throw new SvcError('SQL', ' column already exists', { position: a.toPos });
  }
  if (a.kind === 'setType' && a.wal && meta.partitionBy === 'NONE')
    throw new SvcError('SQL', 'Cannot convert non-partitioned table', { position: a.pos });
  if (a.kind === 'setType' && !a.wal && upsertKeys(meta).length > 0)
    throw new SvcError('SQL', 'deduplication is possible only on WAL tables', { position: a.pos });
  if (a.kind === 'columnIndex' || a.kind === 'alterColumnType' || a.kind === 'symbolOptions') {
    const c = find(a.column);
    if (!c) throw new SvcError('SQL', `Invalid column: ${a.column}`, { position: a.columnPos });
    if (a.kind === 'symbolOptions' && c.type !== 'SYMBOL')
      throw new SvcError('SQL', `column is not a symbol [column=${c.name}, type=${typeName(c.type)}]`, {
        position: a.columnPos,
      });
    if (a.kind === 'columnIndex' && c.type !== 'SYMBOL') {
      throw new SvcError(
        'SQL',
        `indexes are only supported for symbol type [column=${c.name}, type=${typeName(c.type)}]`,
        { position: a.columnPos },
      );
    }
  }
  if (a.kind === 'dedup' && a.keys) {
    const ts = meta.columns.find((c) => c.id === meta.timestampId);
    checkDedupKeys(a.keys, meta.columns, ts?.name ?? null, meta.wal === true);
  }
  const convert =
    a.kind === 'alterColumnType'
      ? columnConversion(
          env,
          find(a.column)!,
          a.type,
          a.columnPos,
          meta.columns.find((c) => c.id === meta.timestampId),
        )
      : null;
  const types = a.kind === 'addColumn' ? a.columns.map((c) => columnTypeOf(c.type)) : [];
  const ttl = a.kind === 'setTtl' ? parseTtl(a.text, a.textPos) : null;
  if (ttl !== null && a.kind === 'setTtl') checkTtl(ttl, meta.partitionBy, a.textPos);
  return async (cx) => {
    const w = await at(stmt.namePos, () => catalog.writer(stmt.name));
    try {
      switch (a.kind) {
        case 'addColumn':
          for (let i = 0; i < a.columns.length; i++) {
            const c = a.columns[i]!;
            if (a.ifNotExists && w.meta.columns.some((x) => x.name.toLowerCase() === c.name.toLowerCase())) continue;
            await at(c.pos, () =>
              w.addColumn(c.name, types[i] as ColumnType, types[i] === 'SYMBOL' ? symbolOptions(c) : {}),
            );
          }
          break;
        case 'dropColumn':
          for (const c of a.columns) await at(c.pos, () => w.dropColumn(c.name));
          catalog.invalidateMatViews(stmt.name, 'drop column operation');
          break;
        case 'renameColumn':
          await at(a.fromPos, () => w.renameColumn(a.from, a.to));
          catalog.invalidateMatViews(stmt.name, 'rename column operation');
          break;
        case 'dropPartition':
          for (const p of partitions) await at(p.pos, () => w.dropPartition(p.name));
          if (dropWhere !== null) {
            for (const name of partitionsWhere(w, cx, dropWhere, meta))
              await at(a.where!.pos, () => w.dropPartition(name));
          }
          catalog.invalidateMatViews(stmt.name, 'drop partition operation', { live: false });
          break;
        case 'movePartition': {
          // DETACH / ATTACH PARTITION (storage/detached.ts): each partition in its own commit, as QuestDB.
          const move = (name: string): void => (a.detach ? w.detachPartition(name) : w.attachPartition(name));
          for (const p of partitions) await at(p.pos, () => move(p.name));
          if (dropWhere !== null) {
            for (const name of partitionsWhere(w, cx, dropWhere, meta)) await at(a.where!.pos, () => move(name));
          }
          catalog.invalidateMatViews(stmt.name, `${a.detach ? 'detach' : 'attach'} partition operation`);
          break;
        }
        case 'squashPartitions':
        case 'convertPartition':
          // svcdb never splits a partition, and every partition is in its native format: nothing to do.
          break;
        case 'setParam':
          w.setParams(params(a.params, a.pos));
          break;
        case 'symbolOptions':
          await at(a.columnPos, () =>
            w.setSymbolOptions(a.column, {
              ...(a.cached !== null ? { symbolCached: a.cached } : {}),
              ...(a.capacity !== null ? { symbolCapacity: ceilPow2(a.capacity) } : {}),
            }),
          );
          break;
        case 'setType':
          w.setWal(a.wal);
          break;
        case 'setTtl':
          w.setTtl(ttl!.value === 0 ? undefined : ttl!);
          break;
        case 'columnIndex':
          await at(a.columnPos, () =>
            w.setIndexed(a.column, a.add, a.capacity !== null ? ceilPow2(a.capacity) : undefined),
          );
          break;
        case 'dedup':
          await at(a.pos, () => w.setUpsertKeys(a.keys ? a.keys.map((k) => k.name) : null));
          break;
        case 'alterColumnType': {
          const ev = new Evaluator(cx, false);
          const fn = ev.compile(convert!.expr);
          const options = convert!.type === 'SYMBOL' ? symbolOptions(a) : {};
          // Partition by partition at the statement's pace: its deadline, a turn for other requests.
          await at(a.columnPos, () =>
            w.changeColumnTypeAsync(
              a.column,
              convert!.type,
              (v, rows) => ev.once({ rowCount: rows, columns: [v] }, (b) => fn(b)),
              options,
              () => pace(cx),
            ),
          );
          catalog.invalidateMatViews(stmt.name, 'change column type operation');
          break;
        }
      }
    } finally {
      w.close();
    }
    return { rows: 0 };
  };
}

/**
 * DROP PARTITION WHERE: a BOOLEAN expression over the designated timestamp alone, which QuestDB
 * evaluates once per partition with the partition's timestamp (the start of its range).
 */
function partitionPredicate(where: A.Expr, meta: TableMeta, env: StatementEnv): BoundExpr {
  const ts = meta.columns.find((c) => c.id === meta.timestampId);
  if (ts === undefined || meta.partitionBy === 'NONE')
    throw new SvcError('SQL', `table is not partitioned [table=${meta.name}]`, { position: where.pos });
  const expr = bindExpr(where, {
    env,
    scope: { fields: [{ table: null, name: ts.name, type: ts.type }] },
    onAggregate: null,
  });
  if (expr.type !== 'BOOLEAN') throw new SvcError('SQL', 'boolean expression expected', { position: where.pos });
  return expr;
}

/**
 * ALTER COLUMN c TYPE t: the column's values through cast(c AS t), as a query would convert them
 * (a value the new type cannot hold becomes NULL). The designated timestamp keeps its type.
 */
function columnConversion(
  env: StatementEnv,
  c: ColumnDef,
  typeAst: A.TypeName,
  pos: number,
  ts: ColumnDef | undefined,
): { type: ColumnType; expr: BoundExpr } {
  if (c.id === ts?.id)
    throw new SvcError('SQL', `cannot change type of designated timestamp column [column=${c.name}]`, {
      position: pos,
    });
  const type = columnTypeOf(typeAst);
  if (type === 'NULL') throw new SvcError('SQL', 'invalid column type', { position: typeAst.pos });
  const cast: A.Expr = {
    kind: 'cast',
    pos: typeAst.pos,
    expr: { kind: 'column', pos, table: null, name: c.name },
    type: typeAst,
  };
  const expr = bindExpr(cast, {
    env,
    scope: { fields: [{ table: null, name: c.name, type: c.type }] },
    onAggregate: null,
  });
  return { type, expr };
}

/** Names of the committed partitions whose floor timestamp satisfies the partition predicate (commits pending rows first). */
function partitionsWhere(w: TableWriter, cx: ExecContext, where: BoundExpr, meta: TableMeta): string[] {
  // Committed first, so the partitions the predicate sees are every row's.
  w.commit();
  const ev = new Evaluator(cx, false);
  const fn = ev.compile(where);
  const parts = w.table.txn.partitions;
  const floors = new Float64Array(parts.map((p) => partitionFloor(meta.partitionBy, p.minTs)));
  const hits = boolsOf(ev.once({ rowCount: parts.length, columns: [fromDoubles('TIMESTAMP', floors)] }, (b) => fn(b)));
  return parts.filter((_, i) => hits[i] === 1).map((p) => p.name);
}

/**
 * ALTER TABLE / MATERIALIZED VIEW x SUSPEND WAL | RESUME WAL [FROM TRANSACTION n] | REBASE WAL
 * [INTO 'dir'] (QuestDB's docs: alter-table-suspend-wal, -resume-wal, -rebase-wal), or null for
 * another ALTER. svcdb applies each commit as it is made: a suspended table refuses writes
 * (catalog.suspendWal) and has no un-applied transactions, so REBASE WAL discards none; it keeps
 * the data, gives the table a new id, restarts its WAL numbering and fully refreshes the
 * materialized views built on it.
 */
export function walCommand(
  text: string,
  pos: number,
  t: Table,
  namePos: number,
  catalog: Catalog,
  matViews: MatViewControl | undefined,
): Prepared | null {
  const m = /^(SUSPEND|RESUME|REBASE)\s+WAL\b\s*(.*)$/is.exec(text);
  if (m === null) return null;
  const verb = m[1]!.toUpperCase();
  const rest = m[2]!.trim();
  const restPos = pos + text.length - m[2]!.length;
  if (verb === 'RESUME' && rest !== '' && !/^FROM\s+(TRANSACTION|TXN)\s+\d+$/i.test(rest))
    throw new SvcError('SQL', "'from transaction' expected", { position: restPos });
  if (verb === 'SUSPEND' && rest !== '') throw new SvcError('SQL', 'unexpected token', { position: restPos });
  if (verb === 'REBASE' && rest !== '' && !/^INTO\s+'[^']*'$/i.test(rest))
    throw new SvcError('SQL', "'into' expected", { position: restPos });
  if (t.meta.wal !== true) {
    if (verb === 'REBASE') throw new SvcError('SQL', `${t.name} is not a WAL table`, { position: namePos });
    throw new SvcError('SQL', `table is not a WAL table [table=${t.name}]`, { position: namePos });
  }
  if (verb === 'SUSPEND') {
    return () => {
      catalog.suspendWal(t.name);
      return Promise.resolve({ rows: 0 });
    };
  }
  if (verb === 'RESUME') {
    return () => {
      catalog.resumeWal(t.name);
      return Promise.resolve({ rows: 0 });
    };
  }
  // REBASE: QuestDB's INTO form is issued by its replication, on a read-only replica only.
  if (rest !== '')
    throw new SvcError('SQL', 'REBASE WAL INTO is only supported on a read-only replica', { position: restPos });
  return async () => {
    if (!catalog.isSuspended(t.name))
      throw new SvcError('SQL', 'REBASE WAL requires the table to be suspended first', { position: pos });
    await catalog.rebaseWal(t.name);
    // The views' record of the base's transactions no longer maps onto it: each is rebuilt.
    for (const v of catalog.matViews())
      if (nameKey(v.mv!.def.baseTable) === nameKey(t.name)) await matViews?.refresh(v.name, { mode: 'full' });
    return { rows: 0 };
  };
}

/**
 * ALTER TABLE SET FORMAT NATIVE | PARQUET (QuestDB: the format of partitions written from now
 * on). svcdb writes every partition in its native format: NATIVE is what it already does,
 * PARQUET is refused as CONVERT PARTITION TO PARQUET is.
 */
function setFormat(word: string, pos: number): Prepared {
  const f = word.trim().toUpperCase();
  if (f === 'NATIVE') return () => Promise.resolve({ rows: 0 });
  if (f === 'PARQUET')
    throw new SvcError(
      'SQL',
      'SET FORMAT PARQUET is not supported: svcdb keeps every partition in its own (native) format',
      { position: pos },
    );
  throw new SvcError('SQL', "'native' or 'parquet' expected", { position: pos });
}
