// Detached partitions (ALTER TABLE DETACH / ATTACH PARTITION, FORMAT.md "Detached partitions"):
// a partition taken out of a table lives on as `<table>/<name>.detached/`, a self-contained folder
// (column files, the dictionaries of its SYMBOL columns, `_detached`), and comes back from there
// or from `<name>.attachable/` (a copy or symbolic link put in place by hand).
import {
  closeSync,
  copyFileSync,
  openSync,
  readSync,
  statSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../errors/svc-error.js';
import { typeInfo, type ColumnType } from '../core/column-type.js';
import { ColumnAppender } from './column-appender.js';
import { auxEnd, auxFile, auxValue, dataFile, directSource, readColumn, symbolFile } from './column-files.js';
import { atomicWrite, movePath, syncPath, type CommitMode } from './io.js';
import { nameKey } from './names.js';
import type { SymbolDict } from './symbol-dict.js';
import type { ColumnDef, PartitionState, TableMeta, TxnState } from './table-state.js';

export const DETACHED_FILE = '_detached';
export const ATTACH_FILE = '_attach';

/** `_detached`: what the folder holds, so ATTACH needs nothing else. */
export interface DetachedInfo {
  readonly format: 1;
  readonly table: string;
  readonly name: string;
  /** The partition folder it was taken from (`<name>.<txn>`): recovery's test of whether DETACH committed. */
  readonly sourceDir: string;
  readonly rows: number;
  readonly minTs: number;
  readonly maxTs: number;
  readonly timestampId: number;
  readonly columns: ReadonlyArray<{ readonly id: number; readonly name: string; readonly type: ColumnType }>;
}

export const detachedDir = (name: string): string => `${name}.detached`;
const tmpDir = (name: string): string => `${name}.detached.tmp`;

/** A file shared with the partition (hard link; a copy where links are refused, or `copy`). */
function linkOrCopy(from: string, to: string, copy = false): void {
  if (!copy) {
    try {
      linkSync(from, to);
      return;
    } catch {
      // another device, or links not allowed: copied below
    }
  }
  copyFileSync(from, to);
}

/**
 * The detached column's files hold at least `rows` rows (a short file would make the attached
 * partition unreadable at the next open); longer ones are cut to size by the next open.
 */
function checkSizes(folder: string, d: ColumnDef, rows: number): void {
  const short = (file: string): SvcError =>
    new SvcError(
      'BAD_REQUEST',
      `detached partition file is too short for its ${rows} rows [path=${join(folder, file)}]`,
    );
  const size = (file: string): number => (existsSync(join(folder, file)) ? statSync(join(folder, file)).size : -1);
  const info = typeInfo(d.type);
  if (info.layout !== 'var') {
    if (size(dataFile(d)) < rows * (info.layout === 'symbol' ? 4 : info.width)) throw short(dataFile(d));
    return;
  }
  if (size(auxFile(d)) < (rows + 1) * 8) throw short(auxFile(d));
  const last = new Int32Array(2);
  const fd = openSync(join(folder, auxFile(d)), 'r');
  try {
    readSync(fd, new Uint8Array(last.buffer), 0, 8, rows * 8);
  } finally {
    closeSync(fd);
  }
  if (size(dataFile(d)) < auxEnd(auxValue(last, 0))) throw short(dataFile(d));
}

/**
 * Writes `<name>.detached.tmp/` for partition `p` (column files linked, absent columns written as
 * NULLs, dictionaries cut to their committed entries, `_detached`). Returns its folder name; the
 * caller publishes the `_txn` without the partition, then calls finishDetach.
 */
export function buildDetached(
  tableDir: string,
  p: PartitionState,
  meta: TableMeta,
  txn: TxnState,
  mode: CommitMode,
): string {
  const tmp = tmpDir(p.name);
  const out = join(tableDir, tmp);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out);
  try {
    const src = join(tableDir, p.dir);
    for (const c of meta.columns) {
      if (existsSync(join(src, dataFile(c)))) {
        linkOrCopy(join(src, dataFile(c)), join(out, dataFile(c)));
        if (typeInfo(c.type).layout === 'var') linkOrCopy(join(src, auxFile(c)), join(out, auxFile(c)));
      } else {
        const a = new ColumnAppender(out, c, 0);
        try {
          a.append(readColumn(directSource, src, p.rows, c, 0, p.rows, [], true), 0, p.rows);
          a.sync(mode);
        } finally {
          a.close();
        }
      }
      if (c.type === 'SYMBOL') {
        const bytes = txn.symbols[String(c.id)]?.bytes ?? 0;
        const file = join(tableDir, symbolFile(c));
        const all = existsSync(file) ? readFileSync(file) : Buffer.alloc(0);
        writeFileSync(join(out, symbolFile(c)), all.subarray(0, bytes));
        syncPath(join(out, symbolFile(c)), mode);
      }
    }
    const info: DetachedInfo = {
      format: 1,
      table: meta.name,
      name: p.name,
      sourceDir: p.dir,
      rows: p.rows,
      minTs: p.minTs,
      maxTs: p.maxTs,
      timestampId: meta.timestampId,
      columns: meta.columns.map((c) => ({ id: c.id, name: c.name, type: c.type })),
    };
    atomicWrite(join(out, DETACHED_FILE), JSON.stringify(info), mode);
  } catch (e) {
    rmSync(out, { recursive: true, force: true });
    throw e;
  }
  return tmp;
}

/** After the commit that left the partition out: its folder takes its final name. */
export function finishDetach(tableDir: string, name: string): void {
  movePath(join(tableDir, tmpDir(name)), join(tableDir, detachedDir(name)));
}

/** The folder ATTACH takes `name` from: `<name>.attachable`, else `<name>.detached`; null if neither. */
export function attachableDir(tableDir: string, name: string): string | null {
  for (const d of [`${name}.attachable`, detachedDir(name)]) if (existsSync(join(tableDir, d))) return d;
  return null;
}

export function readDetached(folder: string): DetachedInfo {
  const file = join(folder, DETACHED_FILE);
  if (!existsSync(file))
    throw new SvcError('BAD_REQUEST', `detached partition has no ${DETACHED_FILE} file [path=${folder}]`);
  return JSON.parse(readFileSync(file, 'utf8')) as DetachedInfo;
}

/** Entries of a dictionary file: `[int32 length][UTF-8]`, in key order. */
function dictEntries(bytes: Uint8Array): string[] {
  const out: string[] = [];
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at + 4 <= bytes.length;) {
    const n = dv.getInt32(at, true);
    out.push(Buffer.from(bytes.buffer, bytes.byteOffset + at + 4, n).toString('utf8'));
    at += 4 + n;
  }
  return out;
}

/** The detached column each of the table's columns takes its rows from (same name and type), or an error. */
export function matchColumns(
  meta: TableMeta,
  info: DetachedInfo,
  folder: string,
): Map<number, DetachedInfo['columns'][number]> {
  const m = new Map<number, DetachedInfo['columns'][number]>();
  for (const c of meta.columns) {
    const d = info.columns.find((x) => nameKey(x.name) === nameKey(c.name));
    if (!d || d.type !== c.type || (c.id === meta.timestampId) !== (d.id === info.timestampId)) {
      throw new SvcError(
        'BAD_REQUEST',
        `detached partition metadata does not match the table [table=${meta.name}, partition=${folder}, column=${c.name}]`,
      );
    }
    m.set(c.id, d);
  }
  return m;
}

/**
 * Writes the table's partition folder `dir` from the detached folder (files linked, or copied where
 * links are refused; SYMBOL keys re-mapped into the table's dictionaries when they differ). Returns
 * the dictionaries whose column holds NULLs in it.
 */
export function buildAttached(
  tableDir: string,
  from: string,
  dir: string,
  meta: TableMeta,
  info: DetachedInfo,
  dicts: ReadonlyMap<number, SymbolDict>,
  mode: CommitMode,
): SymbolDict[] {
  const src = join(tableDir, from);
  const out = join(tableDir, dir);
  const match = matchColumns(meta, info, from);
  for (const c of meta.columns) checkSizes(src, { ...c, id: match.get(c.id)!.id }, info.rows);
  // Files behind a symbolic link stay the user's (cold storage): copied, so that appends to the
  // partition or a recovery's cut never change them.
  const copy = lstatSync(src).isSymbolicLink();
  mkdirSync(out);
  const nulls: SymbolDict[] = [];
  for (const c of meta.columns) {
    const d = match.get(c.id)!;
    const dd: ColumnDef = { ...c, id: d.id };
    if (c.type !== 'SYMBOL') {
      linkOrCopy(join(src, dataFile(dd)), join(out, dataFile(c)), copy);
      if (typeInfo(c.type).layout === 'var') linkOrCopy(join(src, auxFile(dd)), join(out, auxFile(c)), copy);
      continue;
    }
    const dict = dicts.get(c.id)!;
    const entries = dictEntries(readFileSync(join(src, symbolFile(dd))));
    const map = Int32Array.from(entries, (s) => dict.intern(s));
    const keys = new Int32Array(info.rows);
    const raw = readFileSync(join(src, dataFile(dd)));
    keys.set(new Int32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + info.rows * 4)));
    let same = true;
    let hasNull = false;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      if (k < 0) hasNull = true;
      else {
        if (k >= map.length)
          throw new SvcError('BAD_REQUEST', `detached partition symbol key out of range [column=${c.name}]`);
        if (map[k] !== k) same = false;
        keys[i] = map[k]!;
      }
    }
    if (hasNull) nulls.push(dict);
    if (same) linkOrCopy(join(src, dataFile(dd)), join(out, dataFile(c)), copy);
    else {
      writeFileSync(join(out, dataFile(c)), new Uint8Array(keys.buffer));
      syncPath(join(out, dataFile(c)), mode);
    }
  }
  return nulls;
}

/** Written into the attached folder before the commit: recovery's test of whether ATTACH committed. */
export function markAttach(tableDir: string, from: string, dir: string, mode: CommitMode): void {
  atomicWrite(join(tableDir, from, ATTACH_FILE), JSON.stringify({ dir }), mode);
}

/** After an ATTACH committed (or to undo its mark): the detached folder goes (a symbolic link only loses its link). */
export function finishAttach(tableDir: string, from: string, committed: boolean): void {
  const path = join(tableDir, from);
  rmSync(join(path, ATTACH_FILE), { force: true });
  if (!committed) return;
  if (lstatSync(path).isSymbolicLink()) rmSync(path);
  else rmSync(path, { recursive: true, force: true });
}

/**
 * Recovery: finishes or undoes a DETACH or ATTACH interrupted around its commit. A `.detached.tmp`
 * whose source folder `_txn` no longer lists was committed (renamed to `.detached`), otherwise it
 * goes; an `_attach` mark naming a folder `_txn` lists means the ATTACH committed (the detached
 * folder goes), otherwise the mark goes. Returns what it removed or renamed.
 */
export function recoverDetached(tableDir: string, txn: TxnState): string[] {
  const done: string[] = [];
  const listed = new Set(txn.partitions.map((p) => p.dir));
  for (const e of readdirSync(tableDir)) {
    const path = join(tableDir, e);
    if (e.endsWith('.detached.tmp')) {
      const info = existsSync(join(path, DETACHED_FILE)) ? readDetached(path) : null;
      const name = e.slice(0, -'.detached.tmp'.length);
      if (info !== null && !listed.has(info.sourceDir) && !existsSync(join(tableDir, detachedDir(name)))) {
        renameSync(path, join(tableDir, detachedDir(name)));
      } else rmSync(path, { recursive: true, force: true });
      done.push(e);
    } else if ((e.endsWith('.detached') || e.endsWith('.attachable')) && existsSync(join(path, ATTACH_FILE))) {
      const mark = JSON.parse(readFileSync(join(path, ATTACH_FILE), 'utf8')) as { dir: string };
      finishAttach(tableDir, e, listed.has(mark.dir));
      done.push(e);
    }
  }
  return done;
}
