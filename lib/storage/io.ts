// The storage layer's file operations: whole writes, positioned reads, fsync
// per commit mode, atomic replace (write temp, rename), the catalog's folder
// creations and renames, and disk-full errors. One place, so tests can inject
// failures (a full disk) and every path sees them.
import {
  closeSync,
  fsyncSync,
  fsync as fsyncAsync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeSync,
  ftruncateSync,
  fstatSync,
} from 'node:fs';
import { dirname } from 'node:path';
import { SvcError } from '../errors/svc-error.js';

export const COMMIT_MODES = ['nosync', 'async', 'sync'] as const;
export type CommitMode = (typeof COMMIT_MODES)[number];

/** Test hook: called before every data write with the byte count; throw to fail the write. */
let writeFault: ((path: string, bytes: number) => void) | null = null;

export function setWriteFault(f: ((path: string, bytes: number) => void) | null): void {
  writeFault = f;
}

/** Test hook: called before every folder creation and rename made through makeDir and movePath; throw to fail it. */
let fsFault: ((op: 'mkdir' | 'rename', path: string) => void) | null = null;

export function setFsFault(f: ((op: 'mkdir' | 'rename', path: string) => void) | null): void {
  fsFault = f;
}

/** An ENOSPC error like the one a full disk raises. */
export function enospc(path: string, syscall = 'write'): NodeJS.ErrnoException {
  const e = new Error(`ENOSPC: no space left on device, ${syscall} '${path}'`) as NodeJS.ErrnoException;
  e.code = 'ENOSPC';
  e.errno = -28;
  return e;
}

/** Whether `e` says the disk (or the user's quota on it) is full. */
export function isDiskFull(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || (e instanceof SvcError && e.code === 'DISK_FULL');
}

/**
 * A disk-full failure as the 507 a client gets (`disk full <doing>`), or `e`
 * unchanged when it is something else.
 */
export function diskFullError(e: unknown, doing: string): unknown {
  if (e instanceof SvcError || !isDiskFull(e)) return e;
  return new SvcError('DISK_FULL', `disk full ${doing}`, { cause: e });
}

/** Creates one folder (its parent must exist); EEXIST when something has that name. */
export function makeDir(path: string): void {
  fsFault?.('mkdir', path);
  mkdirSync(path);
}

/** rename(2): atomic; a folder only ever replaces an empty folder. */
export function movePath(from: string, to: string): void {
  fsFault?.('rename', to);
  renameSync(from, to);
}

/** Writes all of `buf` at `position` (or the current end with 'a' files). */
export function writeAll(fd: number, path: string, buf: Uint8Array, position: number | null): void {
  if (buf.byteLength === 0) return;
  writeFault?.(path, buf.byteLength);
  let off = 0;
  while (off < buf.byteLength) {
    const n = writeSync(fd, buf, off, buf.byteLength - off, position === null ? null : position + off);
    off += n;
  }
}

/** Reads `length` bytes at `position` into `into` at `offset`; returns the bytes read (short at EOF). */
export function readAt(fd: number, into: Uint8Array, offset: number, length: number, position: number): number {
  let done = 0;
  while (done < length) {
    const n = readSync(fd, into, offset + done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}

export function fileSize(fd: number): number {
  return fstatSync(fd).size;
}

export function truncateFd(fd: number, size: number): void {
  ftruncateSync(fd, size);
}

/** fsync of an open descriptor in sync mode (async callers use syncPath, which owns its descriptor). */
export function syncFd(fd: number, mode: CommitMode): void {
  if (mode === 'sync') fsyncSync(fd);
}

/** Same for a path: opens, fsyncs (sync) or schedules it (async), closes. */
export function syncPath(path: string, mode: CommitMode): void {
  if (mode === 'nosync') return;
  const fd = openSync(path, 'r');
  if (mode === 'sync') {
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } else {
    fsyncAsync(fd, () => closeSync(fd));
  }
}

/**
 * Replaces `path` atomically with `data`: writes `path.tmp`, flushes it per the
 * commit mode, renames it over `path`, and (sync) flushes the folder so the
 * rename itself is durable.
 */
export function atomicWrite(path: string, data: string | Uint8Array, mode: CommitMode): void {
  const tmp = path + '.tmp';
  const fd = openSync(tmp, 'w');
  try {
    try {
      writeAll(fd, tmp, typeof data === 'string' ? Buffer.from(data) : data, 0);
      if (mode === 'sync') fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    movePath(tmp, path);
  } catch (e) {
    // `path` is untouched; the half-written temp file was made here, so it goes too
    // (if even that fails, recovery removes it at the next open).
    try {
      rmSync(tmp, { force: true });
    } catch {
      /* the write's error is the one to report */
    }
    throw e;
  }
  syncPath(dirname(path), mode);
}
