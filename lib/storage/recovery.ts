// Opening a table folder after any stop, clean or not: the last committed
// state is what remains. Uncommitted files and folders are removed, column
// files are cut back to their committed sizes, and anything shorter than the
// commit says is reported as corruption of that table only.
import { existsSync, readdirSync, rmSync, statSync, openSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../errors/svc-error.js';
import { typeInfo } from '../core/column-type.js';
import { auxEnd, auxFile, auxValue, dataFile, symbolFile } from './column-files.js';
import { fileSize, readAt, truncateFd } from './io.js';
import { recoverDetached } from './detached.js';
import { SymbolDict } from './symbol-dict.js';
import {
  TXN_FILE,
  dirTxn,
  metaFile,
  readMeta,
  readTxn,
  type ColumnDef,
  type PartitionState,
  type TableMeta,
  type TxnState,
} from './table-state.js';

export interface Recovered {
  readonly meta: TableMeta;
  readonly txn: TxnState;
  readonly dicts: Map<number, SymbolDict>;
  /** What was cleaned up, for the log. */
  readonly removed: string[];
}

/**
 * The names svcdb writes in a table folder (FORMAT.md): _txn and its temp file, _meta.<v> and
 * theirs, symbol dictionaries, an overwrite's record (catalog.ts); partition folders
 * `<partition>.<txn>` and their out-of-order build folders `.o3`; column files and their temp files.
 */
const TABLE_FILE = /^(_txn(\.tmp)?|_meta\.\d+(\.tmp)?|\d+\.sym|_replaces(\.tmp)?)$/;
const PARTITION_DIR = /^(default|[-\d]{4,}(-\d{2}(-\d{2}(T\d{2})?)?|-W\d{2})?)\.\d+(\.o3)?$/;
const COLUMN_FILE = /^\d+\.[di](\.tmp)?$/;

/**
 * Null when the folder is an interrupted CREATE TABLE of an earlier version (only `_meta.*` and
 * `_txn.tmp`, so no rows), which is removed. CREATE TABLE now builds in a staging folder.
 */
export function recoverTable(dir: string): Recovered | null {
  const removed: string[] = [];
  if (!existsSync(join(dir, TXN_FILE))) {
    const entries = readdirSync(dir);
    const onlyCreateFiles = entries.every((e) => e.startsWith('_meta.') || e === `${TXN_FILE}.tmp`);
    if (onlyCreateFiles) {
      rmSync(dir, { recursive: true, force: true });
      return null;
    }
    throw new SvcError('INTERNAL', `table folder ${dir} has data but no ${TXN_FILE} file`);
  }
  const txn = readTxn(dir);
  const meta = readMeta(dir, txn.metaVersion);
  // A DETACH or ATTACH interrupted around its commit is finished or undone (storage/detached.ts).
  for (const e of recoverDetached(dir, txn)) removed.push(e);
  const keepDirs = new Set(txn.partitions.map((p) => p.dir));
  const keepSymbols = new Set(meta.columns.filter((c) => c.type === 'SYMBOL').map((c) => symbolFile(c)));
  for (const e of readdirSync(dir)) {
    const isDir = statSync(join(dir, e)).isDirectory();
    const keep = e === TXN_FILE || e === metaFile(meta.version) || keepSymbols.has(e) || (isDir && keepDirs.has(e));
    // Only what svcdb itself writes into a table folder is garbage; anything else is not ours to remove.
    if (!keep && (isDir ? PARTITION_DIR.test(e) : TABLE_FILE.test(e))) {
      rmSync(join(dir, e), { recursive: true, force: true });
      removed.push(e);
    }
  }
  // Loops, not push(...): a table of many columns removes many files.
  for (const p of txn.partitions) for (const f of recoverPartition(dir, p, meta.columns)) removed.push(f);
  const dicts = new Map<number, SymbolDict>();
  try {
    for (const c of meta.columns) {
      if (c.type !== 'SYMBOL') continue;
      const s = txn.symbols[String(c.id)];
      if (!s && !existsSync(join(dir, symbolFile(c)))) continue;
      dicts.set(c.id, SymbolDict.open(join(dir, symbolFile(c)), s ?? { count: 0, bytes: 0 }));
    }
  } catch (e) {
    for (const d of dicts.values()) d.close();
    throw e;
  }
  return { meta, txn, dicts, removed };
}

function recoverPartition(dir: string, p: PartitionState, columns: readonly ColumnDef[]): string[] {
  const path = join(dir, p.dir);
  if (!existsSync(path)) throw new SvcError('INTERNAL', `partition folder ${path} is missing`);
  const removed: string[] = [];
  const known = new Set<string>();
  for (const c of columns) {
    known.add(dataFile(c));
    if (typeInfo(c.type).layout === 'var') known.add(auxFile(c));
    const data = join(path, dataFile(c));
    if (!existsSync(data)) {
      if (dirTxn(p.dir) < c.addedTxn) continue; // the column came later: NULL here
      throw new SvcError('INTERNAL', `column file ${data} is missing`);
    }
    if (typeInfo(c.type).layout === 'var') {
      const auxPath = join(path, auxFile(c));
      const auxBytes = (p.rows + 1) * 8;
      const end = withFd(auxPath, (fd) => {
        const size = existsSync(auxPath) ? fileSize(fd) : 0;
        if (size < auxBytes) throw truncated(auxPath, size, auxBytes);
        const last = new Int32Array(2);
        readAt(fd, new Uint8Array(last.buffer), 0, 8, p.rows * 8);
        if (size > auxBytes) truncateFd(fd, auxBytes);
        return auxEnd(auxValue(last, 0));
      });
      cutTo(data, end);
    } else {
      cutTo(data, p.rows * typeInfo(c.type).width);
    }
  }
  for (const f of readdirSync(path)) {
    if (!known.has(f) && COLUMN_FILE.test(f)) {
      rmSync(join(path, f), { force: true });
      removed.push(`${p.dir}/${f}`);
    }
  }
  return removed;
}

function cutTo(path: string, bytes: number): void {
  withFd(path, (fd) => {
    const size = fileSize(fd);
    if (size < bytes) throw truncated(path, size, bytes);
    if (size > bytes) truncateFd(fd, bytes);
  });
}

function withFd<T>(path: string, f: (fd: number) => T): T {
  if (!existsSync(path)) throw new SvcError('INTERNAL', `file ${path} is missing`);
  const fd = openSync(path, 'r+');
  try {
    return f(fd);
  } finally {
    closeSync(fd);
  }
}

function truncated(path: string, size: number, want: number): SvcError {
  return new SvcError('INTERNAL', `file ${path} is truncated: ${size} bytes, the last commit needs ${want}`);
}
