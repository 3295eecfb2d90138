// A view's folder under <root>/db: `<name>/_view`, a small JSON file holding the view's query
// (the text between `AS (` and `)`, as written) and when it was created and last changed.
// Views share the tables' namespace (one folder per name); the catalog opens a folder with a
// `_view` file as a view and never as a table. FORMAT.md "Views" documents the file.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../errors/svc-error.js';

export const VIEW_FILE = '_view';
const VIEW_FORMAT = 1;

export interface ViewDef {
  /** The view's name as it was created (its case). */
  readonly name: string;
  /** The query, as written between `AS (` and `)`. */
  readonly sql: string;
  /** Epoch micros of CREATE VIEW and of the last ALTER VIEW / CREATE OR REPLACE. */
  readonly created: number;
  readonly updated: number;
  /** Its folder. */
  readonly dir: string;
}

/** True when the folder holds a view (its `_view` file). */
export function isViewFolder(dir: string): boolean {
  return existsSync(join(dir, VIEW_FILE));
}

/** The `_view` file's text for a definition. */
export function viewFileText(v: Omit<ViewDef, 'dir'>): string {
  return JSON.stringify({ format: VIEW_FORMAT, name: v.name, sql: v.sql, created: v.created, updated: v.updated });
}

/** Reads a view folder; a file that is not a view definition of this format is an error naming it. */
export function readView(dir: string, folderName: string): ViewDef {
  const path = join(dir, VIEW_FILE);
  let v: unknown;
  try {
    v = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new SvcError('INTERNAL', `view definition cannot be read [path=${path}]: ${(e as Error).message}`);
  }
  const o = v as Record<string, unknown>;
  if (
    typeof o !== 'object' ||
    o === null ||
    o.format !== VIEW_FORMAT ||
    typeof o.sql !== 'string' ||
    typeof o.created !== 'number' ||
    typeof o.updated !== 'number'
  ) {
    throw new SvcError('INTERNAL', `not a view definition of format ${VIEW_FORMAT} [path=${path}]`);
  }
  // The folder's name is the view's (as for a table: the catalog follows the disk).
  return { name: folderName, sql: o.sql, created: o.created, updated: o.updated, dir };
}
