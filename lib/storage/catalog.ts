// The tables under <root>/db: opening (with recovery) at startup, lookup by
// case-insensitive name, create, drop, rename, and the writer and reader
// factories. Holds <root>/db/.lock so two processes never share a root.
import type { Ttl } from './ttl.js';
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { randomUUID } from 'node:crypto';
import { basename, join } from 'node:path';
import type { Config } from '../config/config.js';
import { SvcError, errorMessage } from '../errors/svc-error.js';
import type { ColumnType } from '../core/column-type.js';
import { atomicWrite, diskFullError, makeDir, movePath, syncPath, type CommitMode } from './io.js';
import { checkColumnName, checkTableName, nameKey } from './names.js';
import type { PartitionBy } from './partition-by.js';
import { ReadCache } from './read-cache.js';
import { recoverTable } from './recovery.js';
import { Table, type TableOptions } from './table.js';
import { TableReader } from './table-reader.js';
import {
  FORMAT_VERSION,
  columnOptions,
  writeMeta,
  writeTxn,
  type ColumnDef,
  type ColumnOptions,
  type TableMeta,
} from './table-state.js';
import { TableWriter } from './table-writer.js';
import { isViewFolder, readView, VIEW_FILE, viewFileText, type ViewDef } from './views.js';
import {
  isMatViewFolder,
  NEW_STATE,
  readMatView,
  writeMatViewDef,
  writeMatViewState,
  type MatViewDef,
  type MatViewExpireDef,
  type MatViewState,
} from './mat-views.js';

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
  /** Called after each commit of any table (TableOptions.onCommit). */
  readonly onCommit?: (t: Table) => void;
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
  /** Optional SYMBOL options and the upsert key flag as in ColumnDef. */
  readonly columns: ReadonlyArray<ColumnOptions & { readonly name: string; readonly type: ColumnType }>;
  /** WAL write mode (TableMeta.wal); absent: QuestDB's default, true for a partitioned table. */
  readonly wal?: boolean;
  /** Designated timestamp column (a TIMESTAMP column of the list). */
  readonly timestamp?: string;
  readonly partitionBy?: PartitionBy;
  readonly maxUncommittedRows?: number;
  readonly o3MaxLag?: number;
  /** Time to live (TableMeta.ttl); absent: none. */
  readonly ttl?: Ttl;
}

export interface TableProblem {
  readonly table: string;
  readonly error: string;
}

const LOCK = '.lock';
const TRASH = '.trash';
const STAGING = '.staging-';
/**
 * Written into a staged table's folder before it replaces a table (an import
 * with overwrite=true): the replaced table's folder name and where it waits in
 * .trash, so a failure or crash between the two renames can be undone.
 */
const REPLACES = '_replaces';

/*
 * The rules every operation here keeps (issue 15):
 * - it removes only folders and files it created itself in that same
 *   operation (a table is built in `.staging-<uuid>` and renamed into place;
 *   a dropped one is renamed to `.trash/<uuid>`): a folder it did not make,
 *   such as one of the table's name it finds on disk, is never removed;
 * - the disk changes first, by one rename where it can; the in-memory catalog
 *   follows only once that succeeded; a failure midway is undone, so the
 *   operation happened or nothing changed;
 * - a full disk is a 507 saying so (diskFullError).
 * At open, `.staging-*` and `.trash` are emptied (both are only ever made
 * here), after putting back a table an interrupted overwrite had moved aside.
 */
export class Catalog {
  readonly dir: string;
  readonly options: CatalogOptions;
  readonly cache: ReadCache;
  /** Tables that could not be opened; each fails with its error when used. */
  readonly problems: TableProblem[] = [];
  /** Folders and files cleaned up by recovery, per table. */
  readonly recovered: Array<{ table: string; removed: string[] }> = [];
  readonly #tables = new Map<string, Table>();
  /** Views by name key: they share the tables' namespace (storage/views.ts). */
  readonly #views = new Map<string, ViewDef>();
  #closed = false;
  /** Tables under SUSPEND WAL (name keys), until RESUME WAL or REBASE WAL; a drop or rename ends it. */
  readonly #suspended = new Set<string>();
  #onCommit: ((t: Table) => void) | undefined;

  private constructor(dir: string, options: CatalogOptions) {
    this.dir = dir;
    this.options = options;
    this.cache = new ReadCache(options.readerCacheSize);
    this.#onCommit = options.onCommit;
  }

  /** Who is told after each commit (the database's materialized views, once they are set up). */
  setCommitListener(f: ((t: Table) => void) | undefined): void {
    this.#onCommit = f;
  }

  /** Opens <root>/db, taking its lock and recovering every table. */
  static open(dir: string, options: CatalogOptions): Catalog {
    mkdirSync(dir, { recursive: true });
    takeLock(dir);
    const c = new Catalog(dir, options);
    try {
      c.#cleanUp();
      const names = readdirSync(dir).filter((n) => !n.startsWith('.') && statSync(join(dir, n)).isDirectory());
      names.forEach((name, i) => {
        if (isViewFolder(join(dir, name))) c.#openView(name);
        else c.#openTable(name);
        options.onProgress?.(i + 1, names.length, name);
      });
    } catch (e) {
      releaseLock(dir);
      throw e;
    }
    return c;
  }

  /** Undoes interrupted overwrites, then empties what earlier runs left in `.staging-*` and `.trash`. */
  #cleanUp(): void {
    let keepTrash = false;
    for (const n of readdirSync(this.dir)) {
      if (!n.startsWith(STAGING)) continue;
      const staged = join(this.dir, n);
      const held = this.#heldByOverwrite(staged);
      if (held) {
        try {
          movePath(held.path, held.back);
        } catch {
          // Still held: the record and .trash stay for the next open to try again.
          keepTrash = true;
          continue;
        }
      }
      // Tables an import or CREATE was building when the process stopped: never published, so garbage.
      rmSync(staged, { recursive: true, force: true });
    }
    const trash = join(this.dir, TRASH);
    if (!keepTrash) rmSync(trash, { recursive: true, force: true });
    // Made now, while there is likely space, so that DROP TABLE on a full disk needs only a rename.
    try {
      makeDir(trash);
    } catch {
      /* made again by the first drop */
    }
  }

  #openTable(name: string): void {
    const path = join(this.dir, name);
    const tableOptions = this.#tableOptions();
    const twin = this.#tables.get(nameKey(name));
    if (twin) {
      this.problems.push({
        table: name,
        error: `not opened: the folder of table ${twin.name} has the same name in another case`,
      });
      return;
    }
    try {
      const r = recoverTable(path);
      if (!r) {
        this.recovered.push({ table: name, removed: ['(interrupted CREATE TABLE)'] });
        return;
      }
      // The folder's name is the table's: a crash between RENAME TABLE's folder rename and its
      // metadata write leaves the old name in _meta (the next metadata write stores the new one).
      const meta = r.meta.name === name ? r.meta : { ...r.meta, name };
      const t = new Table(path, meta, r.txn, this.cache, tableOptions);
      for (const [id, d] of r.dicts) t.dicts.set(id, d);
      if (isMatViewFolder(path)) t.mv = readMatView(path);
      this.#tables.set(nameKey(name), t);
      if (r.removed.length > 0) this.recovered.push({ table: name, removed: r.removed });
    } catch (e) {
      const error = e instanceof SvcError ? e : new SvcError('INTERNAL', errorMessage(e), { cause: e });
      this.problems.push({ table: name, error: error.message });
      const placeholder: TableMeta = {
        formatVersion: FORMAT_VERSION,
        id: `broken-${name}`,
        name,
        version: 0,
        columns: [],
        timestampId: -1,
        partitionBy: 'NONE',
        maxUncommittedRows: 0,
        o3MaxLag: 0,
        nextColumnId: 0,
      };
      const t = new Table(
        path,
        placeholder,
        { txn: 0, metaVersion: 0, partitions: [], symbols: {} },
        this.cache,
        tableOptions,
      );
      t.error = new SvcError('INTERNAL', `table is corrupt [table=${name}]: ${error.message}`);
      this.#tables.set(nameKey(name), t);
    }
  }

  #openView(name: string): void {
    const key = nameKey(name);
    if (this.#views.has(key) || this.#tables.has(key)) {
      this.problems.push({ table: name, error: 'not opened: another folder has the same name in another case' });
      return;
    }
    try {
      this.#views.set(key, readView(join(this.dir, name), name));
    } catch (e) {
      this.problems.push({ table: name, error: errorMessage(e) });
    }
  }

  /** Every view, in name order. */
  views(): ViewDef[] {
    return [...this.#views.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The view of that name, or null (the binder's SchemaSource.view). */
  view(name: string): ViewDef | null {
    return this.#views.get(nameKey(name)) ?? null;
  }

  /**
   * A new view, its folder made aside and renamed into place; with `replace`, an existing view's
   * query is replaced in one atomic write (CREATE OR REPLACE, ALTER VIEW). The caller has
   * checked the query binds. `table already exists` when a table has the name.
   */
  putView(name: string, sql: string, now: number, opts: { replace?: boolean } = {}): ViewDef {
    this.#check();
    checkTableName(name);
    const key = nameKey(name);
    if (this.#tables.has(key)) throw new SvcError('BAD_REQUEST', `table already exists [table=${name}]`);
    const old = this.#views.get(key);
    if (old) {
      if (!opts.replace) throw new SvcError('BAD_REQUEST', `view already exists [view=${old.name}]`);
      const v: ViewDef = { ...old, sql, updated: now };
      try {
        atomicWrite(join(old.dir, VIEW_FILE), viewFileText(v), this.options.commitMode);
      } catch (e) {
        throw diskFullError(e, `while changing view ${old.name}; the view is unchanged`);
      }
      this.#views.set(key, v);
      return v;
    }
    const path = join(this.dir, name);
    if (existsSync(path)) {
      throw new SvcError(
        'BAD_REQUEST',
        `table already exists [table=${name}]: the database folder has a folder of that name that is not an open table or view (restart to open it, or remove it)`,
      );
    }
    const staged = join(this.dir, STAGING + randomUUID());
    const v: ViewDef = { name, sql, created: now, updated: now, dir: path };
    try {
      makeDir(staged);
      atomicWrite(join(staged, VIEW_FILE), viewFileText(v), this.options.commitMode);
      movePath(staged, path);
    } catch (e) {
      rmSync(staged, { recursive: true, force: true });
      throw diskFullError(e, `while creating view ${name}; nothing was created`);
    }
    this.#views.set(key, v);
    this.#syncDir();
    return v;
  }

  /** Drops a view: its folder is renamed into .trash and removed. */
  dropView(name: string, opts: { ifExists?: boolean } = {}): void {
    this.#check();
    const key = nameKey(name);
    const v = this.#views.get(key);
    if (!v) {
      if (opts.ifExists) return;
      throw new SvcError('NOT_FOUND', `view does not exist [view=${name}]`);
    }
    const trash = join(this.dir, TRASH, randomUUID());
    try {
      this.#trashReady();
      movePath(v.dir, trash);
    } catch (e) {
      throw diskFullError(e, `while dropping view ${v.name}; the view is unchanged`);
    }
    this.#views.delete(key);
    this.#syncDir();
    rmSync(trash, { recursive: true, force: true });
  }

  /** Every table, healthy or not, in name order. */
  tables(): Table[] {
    return [...this.#tables.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  exists(name: string): boolean {
    return this.#tables.has(nameKey(name));
  }

  /**
   * The table's metadata as it is now, for binding (the binder's SchemaSource,
   * sql/schema-source.ts): `table does not exist` (NOT_FOUND) or the table's error.
   */
  schema(name: string): TableMeta {
    const t = this.get(name);
    t.check();
    return t.meta;
  }

  /** The table, or `table does not exist [table=x]`. */
  get(name: string): Table {
    const t = this.#tables.get(nameKey(name));
    if (!t) throw new SvcError('NOT_FOUND', `table does not exist [table=${name}]`);
    return t;
  }

  /** A new table, built aside and renamed into place: it exists whole or not at all. */
  create(def: CreateTableDef, opts: { ifNotExists?: boolean } = {}): Table {
    this.#check();
    checkTableName(def.name);
    const existing = this.#tables.get(nameKey(def.name));
    if (existing) {
      if (opts.ifNotExists) return existing;
      throw new SvcError('BAD_REQUEST', `table already exists [table=${def.name}]`);
    }
    this.#notAView(def.name);
    const t = this.#make(def);
    try {
      this.#place(t);
    } catch (e) {
      this.discardStaged(t);
      throw e;
    }
    this.#tables.set(nameKey(def.name), t);
    this.#syncDir();
    return t;
  }

  /**
   * A new materialized view: its table made as create() makes one, with the view's definition
   * and a state of never refreshed written into the staged folder before it is renamed into place.
   */
  createMatView(def: CreateTableDef, mv: MatViewDef): Table {
    this.#check();
    checkTableName(def.name);
    if (this.#tables.has(nameKey(def.name)))
      throw new SvcError('BAD_REQUEST', `table already exists [table=${def.name}]`);
    this.#notAView(def.name);
    const t = this.#make(def);
    try {
      writeMatViewDef(t.dir, mv, this.options.commitMode);
      writeMatViewState(t.dir, NEW_STATE, this.options.commitMode);
      this.#place(t);
    } catch (e) {
      this.discardStaged(t);
      throw diskFullError(e, `while creating materialized view ${def.name}; nothing was created`);
    }
    t.mv = { def: mv, state: NEW_STATE };
    this.#tables.set(nameKey(def.name), t);
    this.#syncDir();
    return t;
  }

  /** A materialized view's EXPIRE ROWS policy, or null (the binder's SchemaSource filters reads by it). */
  expireRows(name: string): MatViewExpireDef | null {
    return this.#tables.get(nameKey(name))?.mv?.def.expire ?? null;
  }

  /** Every materialized view, in name order (live views are apart: liveViews()). */
  matViews(): Table[] {
    return this.tables().filter((t) => t.mv !== null && t.mv.def.live === undefined);
  }

  /** Whether `name` is a live view. */
  isLiveView(name: string): boolean {
    return this.exists(name) && this.get(name).mv?.def.live !== undefined;
  }

  /** Every live view, in name order: a materialized view's files with CREATE LIVE VIEW's clauses. */
  liveViews(): Table[] {
    return this.tables().filter((t) => t.mv?.def.live !== undefined);
  }

  /** Records a materialized view's refresh state (atomically; the state in memory follows the disk). */
  setMatViewState(t: Table, state: MatViewState): void {
    if (t.mv === null || t.dropped) return;
    writeMatViewState(t.dir, state, this.options.commitMode);
    t.mv = { ...t.mv, state };
  }

  /** Records a materialized view's definition (ALTER MATERIALIZED VIEW SET REFRESH). */
  setMatViewDef(t: Table, def: MatViewDef): void {
    if (t.mv === null) return;
    writeMatViewDef(t.dir, def, this.options.commitMode);
    t.mv = { ...t.mv, def };
  }

  /**
   * Marks the materialized views over `base` invalid (its data changed in a way a refresh of new
   * rows cannot follow: TRUNCATE, UPDATE, a dropped partition or column, a drop or rename).
   * The first reason stays; REFRESH ... FULL makes a view valid again.
   */
  invalidateMatViews(base: string, reason: string, opts: { live?: boolean } = {}): void {
    for (const t of this.#tables.values()) {
      if (t.mv === null || nameKey(t.mv.def.baseTable) !== nameKey(base) || t.mv.state.invalid !== null) continue;
      // Live views keep their rows through TRUNCATE and DROP PARTITION and carry on (QuestDB's rule).
      if (t.mv.def.live !== undefined && opts.live === false) continue;
      try {
        this.setMatViewState(t, { ...t.mv.state, invalid: reason });
      } catch {
        // The state file could not be written: the view's next refresh finds the change itself.
      }
    }
  }

  /**
   * A new table that no lookup or query sees until publishStaged() gives it
   * its name (an import or CREATE TABLE AS SELECT builds a table there,
   * committing as it goes, and readers see all of it or nothing). Its folder
   * is `.staging-<uuid>`; one left behind by a crash is removed at the next open.
   */
  createStaged(def: CreateTableDef): Table {
    this.#check();
    checkTableName(def.name);
    return this.#make(def);
  }

  /** The writer of a staged table (not reachable by name). */
  async stagedWriter(t: Table): Promise<TableWriter> {
    this.#check();
    await t.lockWriter();
    return new TableWriter(t);
  }

  /**
   * Gives a staged table its name in one rename. With `replace`, a table of
   * that name is replaced (an import with overwrite=true): it is moved to
   * .trash first and put back if the second rename fails.
   */
  async publishStaged(t: Table, opts: { replace?: boolean } = {}): Promise<void> {
    this.#check();
    const key = nameKey(t.name);
    const old = this.#tables.get(key);
    if (!old) {
      this.#notAView(t.name);
      this.#place(t);
      this.#tables.set(key, t);
      this.#syncDir();
      return;
    }
    if (!opts.replace) throw new SvcError('BAD_REQUEST', `table already exists [table=${t.name}]`);
    if (old.mv !== null) throw new SvcError('BAD_REQUEST', `cannot modify materialized view [view=${old.name}]`);
    const locked = await this.#lockCurrent(old, key);
    if (locked === 'gone') return this.publishStaged(t, opts);
    try {
      this.#replace(old, t);
      this.#tables.set(key, t);
    } finally {
      if (locked) old.unlockWriter();
    }
    this.#syncDir(); // the replaced table's folder is removed in the background, as a dropped one's
  }

  /** Removes a staged table and everything written to it. */
  discardStaged(t: Table): void {
    t.close();
    // Only a staged folder: a published table is never removed through here.
    if (!basename(t.dir).startsWith(STAGING)) throw new Error(`not a staged table: ${t.dir}`);
    // The record of a replaced table still held in .trash stays for the next open, which puts it back.
    if (this.#heldByOverwrite(t.dir)) return;
    t.removeFolder(); // in the background: a staged table may have thousands of partitions
  }

  /** Validates the definition, then writes the table's files into a new `.staging-<uuid>` folder. */
  #make(def: CreateTableDef): Table {
    if (def.columns.length === 0)
      throw new SvcError('BAD_REQUEST', `a table needs at least one column [table=${def.name}]`);
    const seen = new Set<string>();
    const columns: ColumnDef[] = def.columns.map((c, id) => {
      checkColumnName(c.name);
      if (seen.has(nameKey(c.name))) throw new SvcError('BAD_REQUEST', `duplicate column [name=${c.name}]`);
      seen.add(nameKey(c.name));
      return { ...columnOptions(c), id, name: c.name, type: c.type, addedTxn: 0 };
    });
    let timestampId = -1;
    if (def.timestamp !== undefined) {
      const ts = columns.find((c) => nameKey(c.name) === nameKey(def.timestamp!));
      if (!ts)
        throw new SvcError('BAD_REQUEST', `designated timestamp column does not exist [column=${def.timestamp}]`);
      if (ts.type !== 'TIMESTAMP')
        throw new SvcError(
          'BAD_REQUEST',
          `designated timestamp column must be of type TIMESTAMP [column=${ts.name}, type=${ts.type}]`,
        );
      timestampId = ts.id;
    }
    const partitionBy = def.partitionBy ?? 'NONE';
    if (partitionBy !== 'NONE' && timestampId < 0) {
      throw new SvcError(
        'BAD_REQUEST',
        `partitioning is possible only on tables with a designated timestamp [table=${def.name}]`,
      );
    }
    const meta: TableMeta = {
      formatVersion: FORMAT_VERSION,
      id: randomUUID(),
      name: def.name,
      version: 0,
      columns,
      timestampId,
      partitionBy,
      maxUncommittedRows: def.maxUncommittedRows ?? this.options.maxUncommittedRows,
      o3MaxLag: def.o3MaxLag ?? this.options.o3MaxLag,
      nextColumnId: columns.length,
      // QuestDB's default (cairo.wal.enabled.default): a partitioned table is a WAL table.
      ...((def.wal ?? partitionBy !== 'NONE') ? { wal: true } : {}),
      ...(def.ttl !== undefined && def.ttl.value > 0 ? { ttl: def.ttl } : {}),
    };
    const path = join(this.dir, `${STAGING}${randomUUID()}`);
    const txn = { txn: 0, metaVersion: 0, partitions: [], symbols: {} };
    let made = false;
    try {
      makeDir(path);
      made = true;
      writeMeta(path, meta, this.options.commitMode);
      writeTxn(path, txn, this.options.commitMode);
    } catch (e) {
      // Everything in the folder was written just now; if removing it fails, the next open does.
      if (made)
        try {
          rmSync(path, { recursive: true, force: true });
        } catch {
          /* the write's error is the one to report */
        }
      throw diskFullError(e, `while creating table ${def.name}; nothing was created`);
    }
    return new Table(path, meta, txn, this.cache, this.#tableOptions());
  }

  /** Renames a staged table's folder to the table's name, which must be free on disk too. */
  #place(t: Table): void {
    const path = join(this.dir, t.name);
    if (existsSync(path)) {
      // Not a table this catalog opened (a copy made while running, a folder of an older version):
      // not ours to replace.
      throw new SvcError(
        'BAD_REQUEST',
        `table already exists [table=${t.name}]: the database folder has a folder of that name that is not an open table (restart to open it, or remove it)`,
      );
    }
    try {
      movePath(t.dir, path);
    } catch (e) {
      throw diskFullError(e, `while creating table ${t.name}; nothing was created`);
    }
    t.dir = path;
  }

  /** `fresh` (staged) takes the place of `old` (writer held): two renames, the first undone if the second fails. */
  #replace(old: Table, fresh: Table): void {
    const trashName = randomUUID();
    const held = join(this.dir, TRASH, trashName);
    const folder = old.dir;
    try {
      atomicWrite(
        join(fresh.dir, REPLACES),
        JSON.stringify({ folder: basename(folder), trash: trashName }),
        this.options.commitMode,
      );
      this.#trashReady();
      movePath(folder, held);
    } catch (e) {
      throw diskFullError(e, `while replacing table ${old.name}; the table is unchanged`);
    }
    try {
      this.#place(fresh);
    } catch (e) {
      try {
        movePath(held, folder);
      } catch {
        // Served from where it is held until the next open puts it back (the staged folder keeps the record).
        old.dir = held;
      }
      throw e;
    }
    old.markDropped(held);
    try {
      unlinkSync(join(fresh.dir, REPLACES));
    } catch {
      /* recovery removes it at the next open */
    }
  }

  /** Where the table an interrupted overwrite moved aside waits, if it still does and its folder name is free. */
  #heldByOverwrite(staged: string): { path: string; back: string } | null {
    let r: { folder?: unknown; trash?: unknown };
    try {
      r = JSON.parse(readFileSync(join(staged, REPLACES), 'utf8')) as typeof r;
    } catch {
      return null; // no record (or a half-written one: then nothing was moved yet)
    }
    if (
      typeof r.folder !== 'string' ||
      typeof r.trash !== 'string' ||
      !/^[0-9a-f-]{36}$/.test(r.trash) ||
      r.folder === '' ||
      r.folder.startsWith('.') ||
      /[\\/]/.test(r.folder)
    )
      return null;
    const path = join(this.dir, TRASH, r.trash);
    const back = join(this.dir, r.folder);
    return existsSync(path) && !existsSync(back) ? { path, back } : null;
  }

  /** With cairo.commit.mode=sync, makes the renames in <root>/db durable (done: the catalog already shows them). */
  #syncDir(): void {
    syncPath(this.dir, this.options.commitMode);
  }

  #tableOptions(): TableOptions {
    return {
      commitMode: this.options.commitMode,
      writerWaitMs: this.options.writerWaitMs,
      trashDir: join(this.dir, TRASH),
      onCommit: (t) => this.#onCommit?.(t),
    };
  }

  #trashReady(): void {
    const trash = join(this.dir, TRASH);
    if (!existsSync(trash)) makeDir(trash);
  }

  /**
   * Takes the writer slot of the table the catalog holds under `key`: true when taken, false for
   * a broken table (no writer to take), 'gone' when the table was renamed or dropped meanwhile.
   */
  async #lockCurrent(t: Table, key: string): Promise<boolean | 'gone'> {
    if (t.error) return false;
    try {
      await t.lockWriter();
    } catch (e) {
      if (t.dropped) return 'gone';
      throw e;
    }
    if (this.#tables.get(key) === t) return true;
    t.unlockWriter();
    return 'gone';
  }

  /** Drops a table once its writer is free; readers already open finish on their snapshot. */
  async drop(name: string, opts: { ifExists?: boolean } = {}): Promise<void> {
    this.#check();
    const key = nameKey(name);
    this.#suspended.delete(key);
    const t = this.#tables.get(key);
    if (!t) {
      if (opts.ifExists) return;
      throw new SvcError('NOT_FOUND', `table does not exist [table=${name}]`);
    }
    const locked = await this.#lockCurrent(t, key);
    if (locked === 'gone') return this.drop(name, opts);
    try {
      // A name-free place in .trash: the rename cannot fail for the table's name's length.
      const trash = join(this.dir, TRASH, randomUUID());
      try {
        this.#trashReady();
        movePath(t.dir, trash);
      } catch (e) {
        throw diskFullError(e, `while dropping table ${t.name}; the table is unchanged`);
      }
      this.#tables.delete(key);
      t.markDropped(trash);
    } finally {
      if (locked) t.unlockWriter();
    }
    this.#syncDir();
    // Its folder is removed in the background (once no reader holds it): a table of thousands of partitions
    // takes seconds to remove under load, and the DROP is done once the folder is out of the way.
  }

  /** Renames the table's folder, then records the name in its metadata; a failure of the second undoes the first. */
  async rename(from: string, to: string): Promise<void> {
    this.#check();
    checkTableName(to);
    const fromKey = nameKey(from);
    this.#suspended.delete(fromKey);
    const toKey = nameKey(to);
    const t = this.get(from);
    if (fromKey !== toKey && this.exists(to)) throw new SvcError('BAD_REQUEST', `table already exists [table=${to}]`);
    this.#notAView(to);
    const locked = await this.#lockCurrent(t, fromKey);
    if (locked === 'gone') return this.rename(from, to);
    if (!locked) t.check(); // a broken table: its error
    try {
      if (fromKey !== toKey && this.exists(to)) throw new SvcError('BAD_REQUEST', `table already exists [table=${to}]`);
      const path = join(this.dir, to);
      const oldDir = t.dir;
      // Changing only the case names the same table: on a case-insensitive file system the folder "exists".
      if (fromKey !== toKey && existsSync(path)) {
        throw new SvcError(
          'BAD_REQUEST',
          `table already exists [table=${to}]: the database folder has a folder of that name that is not an open table (restart to open it, or remove it)`,
        );
      }
      try {
        movePath(oldDir, path);
      } catch (e) {
        throw diskFullError(e, `while renaming table ${t.name}; the table is unchanged`);
      }
      t.dir = path;
      const meta = { ...t.meta, name: to, version: t.meta.version + 1 };
      try {
        t.publish(meta, { ...t.txn, txn: t.txn.txn + 1, metaVersion: meta.version }, []);
      } catch (e) {
        try {
          movePath(path, oldDir);
          t.dir = oldDir;
        } catch {
          // The folder keeps its new name, which is the table's name from now on (and at the next
          // open): the catalog follows the disk.
          t.meta = { ...t.meta, name: to };
          this.#tables.delete(fromKey);
          this.#tables.set(toKey, t);
        }
        throw e;
      }
      this.#tables.delete(fromKey);
      this.#tables.set(toKey, t);
    } finally {
      if (locked) t.unlockWriter();
    }
    this.#syncDir();
  }

  /**
   * ALTER ... SUSPEND WAL: the table takes no writes until RESUME WAL or REBASE WAL (svcdb applies
   * each commit as it is made, so it has no queue to hold them: a suspended table refuses them, as
   * QuestDB's does with cairo.wal.apply.suspended.write.denied=true). Kept in memory: a restart resumes.
   */
  suspendWal(name: string): void {
    this.#suspended.add(nameKey(this.get(name).name));
  }

  /** Whether the table (or materialized view) is suspended. */
  isSuspended(name: string): boolean {
    return this.#suspended.has(nameKey(name));
  }

  resumeWal(name: string): void {
    this.#suspended.delete(nameKey(name));
  }

  /** REBASE WAL of a suspended table: its data kept under a new id, WAL numbering restarted, resumed. */
  async rebaseWal(name: string): Promise<void> {
    const w = await this.writer(name, { matView: true, suspended: true });
    try {
      w.rebaseWal();
    } finally {
      w.close();
    }
    this.resumeWal(name);
  }

  /** The table's single writer; waits up to cairo.writer.wait.timeout, then `table busy`. Close it when done. */
  async writer(name: string, opts: { matView?: boolean; suspended?: boolean } = {}): Promise<TableWriter> {
    this.#check();
    const key = nameKey(name);
    const t = this.get(name);
    if (t.mv !== null && opts.matView !== true) {
      const kind = t.mv.def.live !== undefined ? 'live' : 'materialized';
      throw new SvcError('BAD_REQUEST', `cannot modify ${kind} view [view=${t.name}]`);
    }
    if (opts.suspended !== true && this.#suspended.has(key))
      throw new SvcError('BAD_REQUEST', `table is suspended, writes are denied [table=${t.name}]`);
    const locked = await this.#lockCurrent(t, key);
    if (locked === 'gone') return this.writer(name);
    if (!locked) t.check();
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

  /** `table already exists` when a view has the name (views and tables share one namespace). */
  #notAView(name: string): void {
    const v = this.#views.get(nameKey(name));
    if (v) throw new SvcError('BAD_REQUEST', `table already exists [table=${name}]: it is a view`);
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
