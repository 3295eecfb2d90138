// The tables under <root>/db: opening (with recovery) at startup, lookup by
// case-insensitive name, create, drop, rename, and the writer and reader
// factories. Holds <root>/db/.lock so two processes never share a root.
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Config } from '../config/config.js';
import { SvcError, errorMessage } from '../errors/svc-error.js';
import type { ColumnType } from './column-type.js';
import type { CommitMode } from './io.js';
import { checkColumnName, checkTableName, nameKey } from './names.js';
import type { PartitionBy } from './partition-by.js';
import { ReadCache } from './read-cache.js';
import { recoverTable } from './recovery.js';
import { Table } from './table.js';
import { TableReader } from './table-reader.js';
import { FORMAT_VERSION, writeMeta, writeTxn, type ColumnDef, type TableMeta } from './table-state.js';
import { TableWriter } from './table-writer.js';

export interface CatalogOptions {
  readonly commitMode: CommitMode;
  /** How long a second writer waits for a table before `table busy`. */
  readonly writerWaitMs: number;
  /** Bytes of column data the readers' cache may hold. */
  readonly readerCacheSize: number;
  readonly maxUncommittedRows: number;
  /** Micros. */
  readonly o3MaxLag: number;
  /** Called after each table is opened, for the storage component's progress. */
  readonly onProgress?: (done: number, total: number, table: string) => void;
}

/** The catalog options server.conf sets (the server, `svcdb import` and the embedded database use the same). */
export function catalogOptions(config: Config): CatalogOptions {
  return {
    commitMode: config.get('cairo.commit.mode'),
    writerWaitMs: config.get('cairo.writer.wait.timeout'),
    readerCacheSize: config.get('cairo.reader.cache.size'),
    maxUncommittedRows: config.get('cairo.max.uncommitted.rows'),
    o3MaxLag: config.get('cairo.o3.max.lag') * 1000,
  };
}

export interface CreateTableDef {
  readonly name: string;
  readonly columns: ReadonlyArray<{ readonly name: string; readonly type: ColumnType }>;
  /** Designated timestamp column (a TIMESTAMP column of the list). */
  readonly timestamp?: string;
  readonly partitionBy?: PartitionBy;
  readonly maxUncommittedRows?: number;
  readonly o3MaxLag?: number;
}

export interface TableProblem {
  readonly table: string;
  readonly error: string;
}

const LOCK = '.lock';
const TRASH = '.trash';
const STAGING = '.staging-';

export class Catalog {
  readonly dir: string;
  readonly options: CatalogOptions;
  readonly cache: ReadCache;
  /** Tables that could not be opened; each fails with its error when used. */
  readonly problems: TableProblem[] = [];
  /** Folders and files cleaned up by recovery, per table. */
  readonly recovered: Array<{ table: string; removed: string[] }> = [];
  readonly #tables = new Map<string, Table>();
  #closed = false;

  private constructor(dir: string, options: CatalogOptions) {
    this.dir = dir;
    this.options = options;
    this.cache = new ReadCache(options.readerCacheSize);
  }

  /** Opens <root>/db, taking its lock and recovering every table. */
  static open(dir: string, options: CatalogOptions): Catalog {
    mkdirSync(dir, { recursive: true });
    takeLock(dir);
    const c = new Catalog(dir, options);
    try {
      rmSync(join(dir, TRASH), { recursive: true, force: true });
      // Tables an import was building when the process stopped: never published, so garbage.
      for (const n of readdirSync(dir)) if (n.startsWith(STAGING)) rmSync(join(dir, n), { recursive: true, force: true });
      const names = readdirSync(dir).filter((n) => !n.startsWith('.') && statSync(join(dir, n)).isDirectory());
      names.forEach((name, i) => {
        c.#openTable(name);
        options.onProgress?.(i + 1, names.length, name);
      });
    } catch (e) {
      releaseLock(dir);
      throw e;
    }
    return c;
  }

  #openTable(name: string): void {
    const path = join(this.dir, name);
    const tableOptions = { commitMode: this.options.commitMode, writerWaitMs: this.options.writerWaitMs };
    try {
      const r = recoverTable(path);
      if (!r) { this.recovered.push({ table: name, removed: ['(interrupted CREATE TABLE)'] }); return; }
      const t = new Table(path, r.meta, r.txn, this.cache, tableOptions);
      for (const [id, d] of r.dicts) t.dicts.set(id, d);
      this.#tables.set(nameKey(name), t);
      if (r.removed.length > 0) this.recovered.push({ table: name, removed: r.removed });
    } catch (e) {
      const error = e instanceof SvcError ? e : new SvcError('INTERNAL', errorMessage(e), { cause: e });
      this.problems.push({ table: name, error: error.message });
      const placeholder: TableMeta = {
        formatVersion: FORMAT_VERSION, id: `broken-${name}`, name, version: 0, columns: [], timestampId: -1,
        partitionBy: 'NONE', maxUncommittedRows: 0, o3MaxLag: 0, nextColumnId: 0,
      };
      const t = new Table(path, placeholder, { txn: 0, metaVersion: 0, partitions: [], symbols: {} }, this.cache, tableOptions);
      t.error = new SvcError('INTERNAL', `table is corrupt [table=${name}]: ${error.message}`);
      this.#tables.set(nameKey(name), t);
    }
  }

  /** Every table, healthy or not, in name order. */
  tables(): Table[] {
    return [...this.#tables.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  exists(name: string): boolean {
    return this.#tables.has(nameKey(name));
  }

  /** The table, or `table does not exist [table=x]`. */
  get(name: string): Table {
    const t = this.#tables.get(nameKey(name));
    if (!t) throw new SvcError('NOT_FOUND', `table does not exist [table=${name}]`);
    return t;
  }

  create(def: CreateTableDef, opts: { ifNotExists?: boolean } = {}): Table {
    this.#check();
    checkTableName(def.name);
    if (this.exists(def.name)) {
      if (opts.ifNotExists) return this.get(def.name);
      throw new SvcError('BAD_REQUEST', `table already exists [table=${def.name}]`);
    }
    const t = this.#make(def, def.name);
    this.#tables.set(nameKey(def.name), t);
    return t;
  }

  /**
   * A new table that no lookup or query sees until publishStaged() gives it
   * its name (an import builds a table there, committing as it goes, and
   * readers see all of it or nothing). Its folder is `.staging-<uuid>`; one
   * left behind by a crash is removed at the next open.
   */
  createStaged(def: CreateTableDef): Table {
    this.#check();
    checkTableName(def.name);
    return this.#make(def, `${STAGING}${randomUUID()}`);
  }

  /** The writer of a staged table (not reachable by name). */
  async stagedWriter(t: Table): Promise<TableWriter> {
    this.#check();
    await t.lockWriter();
    return new TableWriter(t);
  }

  /**
   * Gives a staged table its name in one rename. With `replace`, a table of
   * that name is dropped first (an import with overwrite=true).
   */
  async publishStaged(t: Table, opts: { replace?: boolean } = {}): Promise<void> {
    this.#check();
    if (this.exists(t.name)) {
      if (!opts.replace) throw new SvcError('BAD_REQUEST', `table already exists [table=${t.name}]`);
      await this.drop(t.name);
    }
    const path = join(this.dir, t.name);
    renameSync(t.dir, path);
    t.dir = path;
    this.#tables.set(nameKey(t.name), t);
  }

  /** Removes a staged table and everything written to it. */
  discardStaged(t: Table): void {
    t.close();
    rmSync(t.dir, { recursive: true, force: true });
  }

  #make(def: CreateTableDef, folder: string): Table {
    if (def.columns.length === 0) throw new SvcError('BAD_REQUEST', `a table needs at least one column [table=${def.name}]`);
    const seen = new Set<string>();
    const columns: ColumnDef[] = def.columns.map((c, id) => {
      checkColumnName(c.name);
      if (seen.has(nameKey(c.name))) throw new SvcError('BAD_REQUEST', `duplicate column [name=${c.name}]`);
      seen.add(nameKey(c.name));
      return { id, name: c.name, type: c.type, addedTxn: 0 };
    });
    let timestampId = -1;
    if (def.timestamp !== undefined) {
      const ts = columns.find((c) => nameKey(c.name) === nameKey(def.timestamp!));
      if (!ts) throw new SvcError('BAD_REQUEST', `designated timestamp column does not exist [column=${def.timestamp}]`);
      if (ts.type !== 'TIMESTAMP') throw new SvcError('BAD_REQUEST', `designated timestamp column must be of type TIMESTAMP [column=${ts.name}, type=${ts.type}]`);
      timestampId = ts.id;
    }
    const partitionBy = def.partitionBy ?? 'NONE';
    if (partitionBy !== 'NONE' && timestampId < 0) {
      throw new SvcError('BAD_REQUEST', `partitioning is possible only on tables with a designated timestamp [table=${def.name}]`);
    }
    const meta: TableMeta = {
      formatVersion: FORMAT_VERSION, id: randomUUID(), name: def.name, version: 0, columns, timestampId, partitionBy,
      maxUncommittedRows: def.maxUncommittedRows ?? this.options.maxUncommittedRows,
      o3MaxLag: def.o3MaxLag ?? this.options.o3MaxLag, nextColumnId: columns.length,
    };
    const path = join(this.dir, folder);
    const txn = { txn: 0, metaVersion: 0, partitions: [], symbols: {} };
    try {
      mkdirSync(path);
      writeMeta(path, meta, this.options.commitMode);
      writeTxn(path, txn, this.options.commitMode); // the table exists once _txn does
    } catch (e) {
      rmSync(path, { recursive: true, force: true });
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') throw new SvcError('BAD_REQUEST', `table already exists [table=${def.name}]`);
      throw e;
    }
    return new Table(path, meta, txn, this.cache, { commitMode: this.options.commitMode, writerWaitMs: this.options.writerWaitMs });
  }

  /** Drops a table once its writer is free; readers already open finish on their snapshot. */
  async drop(name: string, opts: { ifExists?: boolean } = {}): Promise<void> {
    this.#check();
    const t = this.#tables.get(nameKey(name));
    if (!t) {
      if (opts.ifExists) return;
      throw new SvcError('NOT_FOUND', `table does not exist [table=${name}]`);
    }
    if (!t.error) await t.lockWriter();
    this.#tables.delete(nameKey(name));
    const trash = join(this.dir, TRASH, `${t.name}.${randomUUID()}`);
    mkdirSync(join(this.dir, TRASH), { recursive: true });
    renameSync(t.dir, trash);
    t.markDropped(trash);
    t.unlockWriter();
  }

  async rename(from: string, to: string): Promise<void> {
    this.#check();
    checkTableName(to);
    const t = this.get(from);
    if (nameKey(from) !== nameKey(to) && this.exists(to)) throw new SvcError('BAD_REQUEST', `table already exists [table=${to}]`);
    await t.lockWriter();
    try {
      const path = join(this.dir, to);
      renameSync(t.dir, path);
      t.dir = path;
      const meta = { ...t.meta, name: to, version: t.meta.version + 1 };
      t.publish(meta, { ...t.txn, txn: t.txn.txn + 1, metaVersion: meta.version }, []);
      this.#tables.delete(nameKey(from));
      this.#tables.set(nameKey(to), t);
    } finally {
      t.unlockWriter();
    }
  }

  /** The table's single writer; waits up to cairo.writer.wait.timeout, then `table busy`. Close it when done. */
  async writer(name: string): Promise<TableWriter> {
    this.#check();
    const t = this.get(name);
    await t.lockWriter();
    return new TableWriter(t);
  }

  /** A reader of the table's last commit. Close it when done. */
  reader(name: string): TableReader {
    this.#check();
    return new TableReader(this.get(name));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#tables.values()) t.close();
    releaseLock(this.dir);
  }

  #check(): void {
    if (this.#closed) throw new SvcError('UNAVAILABLE', 'storage is closed');
  }
}

/** <root>/db/.lock holds the owner's pid; a lock of a process that is gone is taken over. */
function takeLock(dir: string): void {
  const path = join(dir, LOCK);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(pid) && pid > 0 && alive(pid)) {
        throw new SvcError('UNAVAILABLE', `the database ${dir} is in use by process ${pid}`);
      }
      unlinkSync(path);
    }
  }
  throw new SvcError('UNAVAILABLE', `cannot lock the database ${dir}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseLock(dir: string): void {
  const path = join(dir, LOCK);
  try {
    if (existsSync(path) && readFileSync(path, 'utf8').trim() === String(process.pid)) unlinkSync(path);
  } catch {
    // Best effort: a stale lock is taken over at the next start.
  }
}
