// One open table shared by its writer and readers in this process: current
// metadata and committed state, symbol dictionaries, the writer lock, and
// epoch-based deletion of files that old snapshots may still read.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../errors/svc-error.js';
import type { PrepTicket } from './file-prep.js';
import { diskFullError, type CommitMode } from './io.js';
import type { ReadCache } from './read-cache.js';
import type { SymbolDict } from './symbol-dict.js';
import { metaFile, readTxn, writeMeta, writeTxn, type TableMeta, type TxnState } from './table-state.js';

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
  readonly writerWaitMs: number;
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
  dropped = false;
  #epoch = 0;
  #readers = new Map<number, number>();
  #garbage: Array<{ epoch: number; paths: string[] }> = [];
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

  get name(): string { return this.meta.name; }

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
    if (n > 0) this.#readers.set(s.epoch, n); else this.#readers.delete(s.epoch);
    if (this.dropped) this.#removeDropped(); else this.collect();
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
    try {
      rmSync(this.dir, { recursive: true, force: true });
    } catch {
      // The drop itself is done (the folder is in .trash): the next open empties .trash.
    }
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
  }

  /** A _meta.<version> just written for a commit that failed: removed unless the _txn on disk uses it. */
  #removeUnusedMeta(version: number): void {
    try {
      if (readTxn(this.dir).metaVersion !== version) rmSync(join(this.dir, metaFile(version)), { force: true });
    } catch {
      // Never referenced by a _txn: recovery removes it at the next open, or the next publish of that version replaces it.
    }
  }

  /** Deletes retired files no reader can still see. */
  collect(): void {
    if (this.#garbage.length === 0) return;
    let oldest = Infinity;
    for (const e of this.#readers.keys()) oldest = Math.min(oldest, e);
    const keep: Array<{ epoch: number; paths: string[] }> = [];
    for (const g of this.#garbage) {
      if (g.epoch <= oldest) {
        for (const p of g.paths) {
          rmSync(join(this.dir, p), { recursive: true, force: true });
          this.cache.evict(`${this.meta.id}/${p}`);
        }
      } else keep.push(g);
    }
    this.#garbage = keep;
  }

  /** Waits (bounded) for the single writer slot. */
  async lockWriter(): Promise<void> {
    this.check();
    if (!this.#writerHeld) { this.#writerHeld = true; return; }
    const ms = this.options.writerWaitMs;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(grant), 1);
        reject(new SvcError('TABLE_BUSY', `table busy [table=${this.meta.name}]: another writer holds it (waited ${ms} ms)`));
      }, ms);
      const grant = (): void => { clearTimeout(timer); resolve(); };
      this.#waiters.push(grant);
    });
    this.check();
  }

  unlockWriter(): void {
    const next = this.#waiters.shift();
    if (next) next(); else this.#writerHeld = false;
  }

  get writerHeld(): boolean { return this.#writerHeld; }

  close(): void {
    // Files its writer had started creating ahead of time (a writer left open at shutdown).
    const prep = this.preparedFiles;
    this.preparedFiles = null;
    prep?.cancel();
    for (const d of this.dicts.values()) d.close();
  }
}
