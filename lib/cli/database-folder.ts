// Whether a folder given with -d holds a database, before `svcdb import` or
// `svcdb export` opens it (opening makes one): a mistyped -d is refused
// with what to do instead of silently becoming an empty database.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The database folder when -d is not given (also `svcdb serve`'s). */
export const DEFAULT_ROOT = './svcdb-data';

/**
 * Why `root` cannot be opened by a command, or null when it can. `export`
 * needs a database (a db/ folder). `import` also takes the default folder
 * when it does not exist yet, an empty folder, one with a conf/ folder, and
 * with `create` any folder (made when missing).
 */
export function folderProblem(root: string, command: 'import' | 'export', create = false): string | null {
  const hint = command === 'import' ? ', or add --create to make a new database there' : '';
  let isDir: boolean;
  try {
    isDir = statSync(root).isDirectory();
  } catch {
    if (command === 'import' && (create || root === DEFAULT_ROOT)) return null;
    return `there is no database folder ${root}: check -d${hint}`;
  }
  if (!isDir) return `${root} is a file, not a database folder: check -d`;
  if (existsSync(join(root, 'db'))) return null;
  // A folder prepared for a database (its conf/server.conf written first) or an empty one takes an import.
  if (command === 'import' && (create || existsSync(join(root, 'conf')) || readdirSync(root).length === 0)) return null;
  return `${root} holds no svcdb database (it has no db/ folder): check -d${hint}`;
}
