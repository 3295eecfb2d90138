// The operating system's errors (ENOENT, EISDIR, EACCES...) in the command
// line's words: what went wrong with which file or folder, and what to do.
// No errno code and no stack reaches the user from lib/cli.
import { dirname } from 'node:path';

/** Whether `e` is an error of a system call (a Node errno error). */
export function isSystemError(e: unknown): e is NodeJS.ErrnoException {
  return e instanceof Error && typeof (e as NodeJS.ErrnoException).code === 'string' && 'syscall' in e;
}

/** A file the command reads (`what`: "a CSV file", "a JSON schema file"), as a sentence. */
export function readProblem(path: string, e: NodeJS.ErrnoException, what: string): string {
  switch (e.code) {
    case 'ENOENT':
      return `file not found: ${path}`;
    case 'ENOTDIR':
      return `file not found: ${path} (a part of its path is a file, not a folder)`;
    case 'EISDIR':
      return `${path} is a directory, give ${what}`;
    case 'EACCES':
    case 'EPERM':
      return `cannot read ${path}: permission denied (check the file's permissions)`;
    default:
      return `cannot read ${path}: ${plain(e)}`;
  }
}

/** A file the command writes, as a sentence. */
export function writeProblem(path: string, e: NodeJS.ErrnoException): string {
  switch (e.code) {
    case 'ENOENT':
    case 'ENOTDIR':
      return `cannot write ${path}: the folder ${dirname(path)} does not exist`;
    case 'EISDIR':
      return `cannot write ${path}: it is a directory, give a file name`;
    case 'EACCES':
    case 'EPERM':
      return `cannot write ${path}: permission denied`;
    case 'EROFS':
      return `cannot write ${path}: the file system is read-only`;
    case 'ENOSPC':
      return `cannot write ${path}: the disk is full`;
    default:
      return `cannot write ${path}: ${plain(e)}`;
  }
}

/** A system error's message without its code, syscall and path ("ENOENT: no such file or directory, open 'x'"). */
export function plain(e: NodeJS.ErrnoException): string {
  const m = /^[A-Z0-9_]+: (.*?)(?:, [a-z_]+(?: '.*')?)?$/s.exec(e.message);
  return m?.[1] ?? e.message;
}
