// One open table shared by its writer and readers in this process: current
// metadata and committed state, symbol dictionaries, the writer lock, and
// epoch-based deletion of files that old snapshots may still read.
import type { MatViewFiles } from './mat-views.js';
import { randomUUID } from 'node:crypto';
import { renameSync, rmSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../errors/svc-error.js';
import type { PrepTicket } from './file-prep.js';
import { diskFullError, type CommitMode } from './io.js';
import type { ReadCache } from './read-cache.js';
import type { SymbolDict } from './symbol-dict.js';
import { metaFile, readTxn, writeMeta, writeTxn, type TableMeta, type TxnState } from './table-state.js';

const pathExists = (p: string): boolean => {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
};

/** Removals of retired paths running in the background, of every table (see Table.#remove). */
const removals = new Set<Promise<void>>();

/** Resolves once every retired path handed over so far, of any table, is removed (tests; a shutdown that wants a tidy folder). */
export async function removalsDone(): Promise<void> {
  while (removals.size > 0) await Promise.all(removals);
}

/** What a reader sees: fixed for its lifetime. */
export interface Snapshot {
  readonly meta: TableMeta;
  readonly txn: TxnState;
  /** Symbol values by column id; only keys below txn.symbols[id].count are used. */
  readonly dicts: ReadonlyMap<number, readonly string[]>;
  readonly epoch: number;
}

export interface TableOptions {
  readonly commitMode: CommitMode;
  /** Told after each commit is published (the database's materialized views follow their base tables). */
  readonly onCommit?: (t: Table) => void;
  readonly writerWaitMs: number;
  /** The database's .trash folder: retired files are moved there before they are removed. */
  readonly trashDir: string;
}

export class Table {
  dir: string;
  meta: TableMeta;
  txn: TxnState;
  readonly dicts = new Map<number, SymbolDict>();
  readonly cache: ReadCache;
  readonly options: TableOptions;
  /** Set when the table could not be opened cleanly; every use fails with it. */
  error: SvcError | null = null;
  /** A materialized view's definition and refresh state (mat-views.ts); null for a table. */
  mv: MatViewFiles | null = null;
  dropped = false;
  #epoch = 0;
  #readers = new Map<number, number>();
  #garbage: Array<{ epoch: number; paths: string[] }> = [];
  /** Retired paths (absolute) no reader can see, being removed in the background, and the removal running. */
  #removing: string[] = [];
  #remover: Promise<void> | null = null;
  #writerHeld = false;
  /**
   * Column files known to exist (`<partition path>/<column id>`), so readers skip the check on every
   * query: a committed partition's files stay until the partition does. Absence is not remembered
   * (a partition older than a column gets its files when rows are appended to it).
   */
  readonly columnFilesSeen = new Set<string>();
  /** The writer's request for the next partition's files (table-writer.ts), cancelled if the table closes first. */
  preparedFiles: PrepTicket | null = null;
  #waiters: Array<() => void> = [];

  constructor(dir: string, meta: TableMeta, txn: TxnState, cache: ReadCache, options: TableOptions) {
    this.dir = dir;
    this.meta = meta;
    this.txn = txn;
    this.cache = cache;
    this.options = options;
  }

  get name(): string {
    return this.meta.name;
  }

  /** Throws the table's open error, or `table does not exist` once dropped. */
  check(): void {
    if (this.dropped) throw new SvcError('NOT_FOUND', `table does not exist [table=${this.meta.name}]`);
    if (this.error) throw this.error;
  }

  /** Registers a reader at the current state. Pair with release(). */
  acquire(): Snapshot {
    this.check();
    const dicts = new Map<number, readonly string[]>();
    for (const [id, d] of this.dicts) dicts.set(id, d.values);
    this.#readers.set(this.#epoch, (this.#readers.get(this.#epoch) ?? 0) + 1);
    return { meta: this.meta, txn: this.txn, dicts, epoch: this.#epoch };
  }

  release(s: Snapshot): void {
    const n = (this.#readers.get(s.epoch) ?? 0) - 1;
    if (n > 0) this.#readers.set(s.epoch, n);
    else this.#readers.delete(s.epoch);
    if (this.dropped) this.#removeDropped();
    else this.collect();
  }

  /**
   * Marks the table dropped (new readers and writers fail), its folder already
   * moved to `trashDir`; the folder goes once the last reader is done.
   */
  markDropped(trashDir: string): void {
    this.dropped = true;
    this.dir = trashDir;
    this.#removeDropped();
  }

  #removeDropped(): void {
    if (this.activeReaders > 0) return;
    this.close();
    this.cache.evict(`${this.meta.id}/`);
    // The drop itself is done (the folder is in .trash; the next open empties .trash if this fails).
    this.removeFolder();
  }

  /** Removes the table's folder in the background (a dropped table, a discarded staged one); closed first. */
  removeFolder(): void {
    this.#remove(this.dir);
  }

  get activeReaders(): number {
    let n = 0;
    for (const c of this.#readers.values()) n += c;
    return n;
  }

  /**
   * Makes a new state visible: writes the meta version if it is new, then the
   * txn file (the atomic commit point), then retires `garbage` (paths relative
   * to the table folder) once no reader of an older state remains.
   */
  publish(meta: TableMeta, txn: TxnState, garbage: string[]): void {
    const newMeta = meta.version !== this.meta.version;
    try {
      if (newMeta) writeMeta(this.dir, meta, this.options.commitMode);
      writeTxn(this.dir, txn, this.options.commitMode);
    } catch (e) {
      if (newMeta) this.#removeUnusedMeta(meta.version);
      throw diskFullError(e, `while committing table ${this.meta.name}; the table is at its last commit`);
    }
    const oldMeta = this.meta.version;
    this.meta = meta;
    this.txn = txn;
    this.#epoch++;
    if (meta.version !== oldMeta) garbage.push(`_meta.${oldMeta}`);
    if (garbage.length > 0) this.#garbage.push({ epoch: this.#epoch, paths: garbage });
    this.collect();
    // The listener only schedules work (materialized views' refreshes); the commit is done either way.
    this.options.onCommit?.(this);
  }

  /** A _meta.<version> just written for a commit that failed: removed unless the _txn on disk uses it. */
  #removeUnusedMeta(version: number): void {
    try {
      if (readTxn(this.dir).metaVersion !== version) rmSync(join(this.dir, metaFile(version)), { force: true });
    } catch {
      // Never referenced by a _txn: recovery removes it at the next open, or the next publish of that version replaces it.
    }
  }

  /** Deletes retired files no reader can still see (in the background: see #remove). */
  collect(): void {
    if (this.#garbage.length === 0) return;
    let oldest = Infinity;
    for (const e of this.#readers.keys()) oldest = Math.min(oldest, e);
    const keep: Array<{ epoch: number; paths: string[] }> = [];
    const evicted: string[] = [];
    for (const g of this.#garbage) {
      if (g.epoch <= oldest) {
        for (const p of g.paths) {
          this.removeSoon(p);
          evicted.push(`${this.meta.id}/${p}`);
        }
      } else keep.push(g);
    }
    this.#garbage = keep;
    this.cache.evict(evicted);
  }

  /**
   * A path of this table (relative to its folder) that nothing refers to any
   * more (retired by a commit, or written by one rolled back) leaves the
   * folder at once, renamed to a name of its own in .trash, and is removed
   * from there in the background: its name may be used again right away (a
   * rolled-back partition folder is), the table's folder may be renamed,
   * replaced or recreated meanwhile, and a removal still running must never
   * reach into it. If the rename fails (no .trash, another device), it is
   * removed here and now.
   */
  removeSoon(rel: string): void {
    const path = join(this.dir, rel);
    const to = join(this.options.trashDir, `retired-${randomUUID()}`);
    try {
      renameSync(path, to);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' && !pathExists(path)) return;
      try {
        rmSync(path, { recursive: true, force: true });
      } catch {
        /* left for recovery at the next open */
      }
      return;
    }
    this.#remove(to);
  }

  /**
   * Removes a path no one can reach any more (in .trash, or a staged folder
   * named by a UUID) with asynchronous file operations, one path at a time: a
   * commit that retires thousands of partition folders (an out-of-order
   * merge, a truncate) or the drop of such a table would otherwise hold the
   * event loop for seconds. A process that stops first leaves them to the
   * next open, which empties .trash and removes staged folders.
   */
  #remove(path: string): void {
    this.#removing.push(path);
    if (this.#remover !== null) return;
    const r = this.#drain();
    this.#remover = r;
    removals.add(r);
    void r.finally(() => removals.delete(r));
  }

  async #drain(): Promise<void> {
    for (let path = this.#removing.shift(); path !== undefined; path = this.#removing.shift()) {
      try {
        await rm(path, { recursive: true, force: true });
      } catch {
        // Left for recovery at the next open (it removes what no _txn refers to).
      }
    }
    this.#remover = null;
  }

  /** Waits (bounded) for the single writer slot. */
  async lockWriter(): Promise<void> {
    this.check();
    if (!this.#writerHeld) {
      this.#writerHeld = true;
      return;
    }
    const ms = this.options.writerWaitMs;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(grant), 1);
        reject(
          new SvcError('TABLE_BUSY', `table busy [table=${this.meta.name}]: another writer holds it (waited ${ms} ms)`),
        );
      }, ms);
      const grant = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.#waiters.push(grant);
    });
    this.check();
  }

  unlockWriter(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#writerHeld = false;
  }

  get writerHeld(): boolean {
    return this.#writerHeld;
  }

  close(): void {
    // Files its writer had started creating ahead of time (a writer left open at shutdown).
    const prep = this.preparedFiles;
    this.preparedFiles = null;
    prep?.cancel();
    for (const d of this.dicts.values()) d.close();
  }
}
