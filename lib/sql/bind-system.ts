// The system table functions of FROM bound to metadata plan nodes, with QuestDB's argument
// checks and messages at their positions: table_storage(), wal_transactions('t'),
// memory_metrics(), reader_pool(), writer_pool(), table_writer_metrics(), query_activity(),
// files('dir'), import_files(), export_files(), glob('pattern'). Their rows are read when the
// statement runs (exec/system-rows.ts).
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { SvcError } from '../errors/svc-error.js';
import type * as A from './ast.js';
import type { Plan } from './bound.js';
import {
  FILES_FIELDS,
  MEMORY_METRICS_FIELDS,
  QUERY_ACTIVITY_FIELDS,
  READER_POOL_FIELDS,
  TABLE_STORAGE_FIELDS,
  WAL_TRANSACTIONS_FIELDS,
  WRITER_METRICS_FIELDS,
  WRITER_POOL_FIELDS,
} from './metadata.js';
import { node } from './plan-timestamp.js';
import type { SchemaSource } from './schema-source.js';

/**
 * The folders the file functions may list: QuestDB's cairo.sql.copy.root (import_files(),
 * relative glob patterns) and cairo.sql.copy.export.root (export_files()); null: not set.
 */
export interface CopyRoots {
  readonly input: string | null;
  readonly export: string | null;
}

/** What a file listing reads: every file under `dir` (paths shown relative to it), or those a glob pattern matches. */
export interface FileListing {
  readonly dir: string;
  /** The copy root `dir` is inside: the listing never leaves it (symbolic links are not followed). */
  readonly root: string;
  /** The pattern's segments below `dir` (glob()), or null for every file (files(), import_files(), export_files()). */
  readonly glob: readonly string[] | null;
  /** What the listed paths start with: '' (relative to `dir`), or the part of a glob pattern before its wildcards. */
  readonly prefix: string;
}

export const SYSTEM_TABLE_FUNCTIONS: readonly string[] = [
  'table_storage',
  'wal_transactions',
  'memory_metrics',
  'reader_pool',
  'writer_pool',
  'table_writer_metrics',
  'query_activity',
  'files',
  'import_files',
  'export_files',
  'glob',
];

/** The no-argument ones, which FROM also finds by their bare name. */
export const SYSTEM_NO_ARGUMENT_FUNCTIONS: readonly string[] = [
  'table_storage',
  'memory_metrics',
  'reader_pool',
  'writer_pool',
  'table_writer_metrics',
  'query_activity',
  'import_files',
  'export_files',
];

type MetadataWhat = Extract<Plan, { kind: 'metadata' }>['what'];

const NO_ARGUMENTS: ReadonlyMap<string, { what: MetadataWhat; fields: Plan['fields'] }> = new Map([
  ['table_storage', { what: 'tableStorage', fields: TABLE_STORAGE_FIELDS }],
  ['memory_metrics', { what: 'memoryMetrics', fields: MEMORY_METRICS_FIELDS }],
  ['reader_pool', { what: 'readerPool', fields: READER_POOL_FIELDS }],
  ['writer_pool', { what: 'writerPool', fields: WRITER_POOL_FIELDS }],
  ['table_writer_metrics', { what: 'writerMetrics', fields: WRITER_METRICS_FIELDS }],
  ['query_activity', { what: 'queryActivity', fields: QUERY_ACTIVITY_FIELDS }],
]);

/** The plan of a system table function, or null when `call` names none. */
export function bindSystemFunction(call: A.Call, catalog: SchemaSource, roots: CopyRoots | undefined): Plan | null {
  const name = call.name;
  const fixed = NO_ARGUMENTS.get(name);
  if (fixed !== undefined) {
    arity(call, 0);
    return node({ kind: 'metadata', what: fixed.what, table: null, fields: fixed.fields });
  }
  switch (name) {
    case 'wal_transactions':
      return bindWalTransactions(call, catalog);
    case 'import_files':
    case 'export_files': {
      arity(call, 0);
      const key = name === 'import_files' ? 'cairo.sql.copy.root' : 'cairo.sql.copy.export.root';
      const dir = name === 'import_files' ? roots?.input : roots?.export;
      if (dir == null || dir === '')
        throw new SvcError('SQL', `${name}() is disabled ['${key}' is not set?]`, { position: call.pos });
      return filesPlan({ dir: resolve(dir), root: resolve(dir), glob: null, prefix: '' });
    }
    case 'files':
      return bindFiles(call, roots);
    case 'glob':
      return bindGlob(call, roots);
  }
  return null;
}

/** QuestDB's message for a call with the wrong number of arguments, at the function's name. */
function arity(call: A.Call, expected: number): void {
  if (call.args.length !== expected)
    throw new SvcError(
      'SQL',
      `wrong number of arguments for function \`${call.name}\`; expected: ${expected}, provided: ${call.args.length}`,
      { position: call.pos },
    );
}

/** The constant text argument of a one-argument function: its value (null for NULL) and position. */
function textArgument(call: A.Call, what: string): { value: string | null; pos: number } {
  arity(call, 1);
  const a = call.args[0]!;
  if (a.kind === 'literal' && a.type === 'NULL') return { value: null, pos: a.pos };
  if (a.kind !== 'literal' || a.type !== 'STRING')
    throw new SvcError('SQL', `${what} must be a constant string`, { position: a.pos });
  return { value: String(a.value), pos: a.pos };
}

function bindWalTransactions(call: A.Call, catalog: SchemaSource): Plan {
  const { value, pos } = textArgument(call, 'table name');
  if (value === null) throw new SvcError('SQL', 'table name cannot be NULL', { position: pos });
  if (!catalog.exists(value)) throw new SvcError('SQL', `table does not exist: ${value}`, { position: pos });
  const schema = catalog.schema(value);
  if (schema.wal !== true) throw new SvcError('SQL', `table is not a WAL table: ${value}`, { position: pos });
  return node({ kind: 'metadata', what: 'walTransactions', table: schema.name, fields: WAL_TRANSACTIONS_FIELDS });
}

function filesPlan(files: FileListing): Plan {
  return node({ kind: 'metadata', what: 'files', table: null, fields: FILES_FIELDS, files });
}

/**
 * files('dir'): every file under a folder. QuestDB lists any folder of the server; svcdb only
 * one inside a copy root (a relative path is under cairo.sql.copy.root), never past it.
 */
function bindFiles(call: A.Call, roots: CopyRoots | undefined): Plan {
  const { value, pos } = textArgument(call, 'root path');
  if (value === null || value.trim() === '')
    throw new SvcError('SQL', 'root path must be non-empty', { position: call.pos });
  return filesPlan({ ...insideRoot(value, pos, roots, 'files()'), glob: null, prefix: '' });
}

/**
 * glob('pattern'): the files a pattern matches (`*`, `?`, `[abc]`, `[a-z]`, `[!x]`, `\` escapes
 * within a name; `**` any depth, once). A relative pattern is under cairo.sql.copy.root; an
 * absolute one must be inside a copy root (QuestDB takes any absolute path).
 */
function bindGlob(call: A.Call, roots: CopyRoots | undefined): Plan {
  const { value, pos } = textArgument(call, 'glob pattern');
  if (value === null || value === '')
    throw new SvcError('SQL', 'glob pattern cannot be null or empty', { position: pos });
  const absolute = value.startsWith('/');
  if (!absolute && (roots?.input == null || roots.input === ''))
    throw new SvcError('SQL', "'cairo.sql.copy.root' is not set", { position: call.pos });
  const segments = value.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.filter((s) => s === '**').length > 1)
    throw new SvcError('SQL', "cannot use multiple '**' in one path", { position: pos });
  if (segments.includes('..')) throw new SvcError('SQL', `'..' is not allowed in a path: ${value}`, { position: pos });
  // The literal segments before the first wildcard name the folder the match starts in.
  let k = 0;
  while (k < segments.length - 1 && !hasWildcard(segments[k]!)) k++;
  const base = segments.slice(0, k).map(unescape).join('/');
  const at = insideRoot(absolute ? `/${base}` : base === '' ? '.' : base, pos, roots, 'glob()');
  return filesPlan({ ...at, glob: segments.slice(k), prefix: absolute ? at.dir : base });
}

function hasWildcard(segment: string): boolean {
  return segment === '**' || /(^|[^\\])[*?[]/.test(segment);
}

function unescape(segment: string): string {
  return segment.replace(/\\(.)/g, '$1');
}

/**
 * The absolute folder `path` names, which must be inside a copy root: an absolute path inside
 * one, or a relative one under cairo.sql.copy.root; `..` is refused (SQL error at `pos`).
 */
function insideRoot(
  path: string,
  pos: number,
  roots: CopyRoots | undefined,
  fn: string,
): { dir: string; root: string } {
  const set = [roots?.input, roots?.export].filter((r): r is string => r != null && r !== '').map((r) => resolve(r));
  if (set.length === 0)
    throw new SvcError('SQL', `${fn} is disabled ['cairo.sql.copy.root' is not set?]`, { position: pos });
  if (path.split(/[\\/]/).includes('..'))
    throw new SvcError('SQL', `'..' is not allowed in a path: ${path}`, { position: pos });
  if (!isAbsolute(path)) {
    if (roots?.input == null || roots.input === '')
      throw new SvcError('SQL', "'cairo.sql.copy.root' is not set", { position: pos });
    return { dir: resolve(roots.input, path), root: resolve(roots.input) };
  }
  const abs = resolve(path);
  for (const r of set) {
    const rel = relative(r, abs);
    if (rel === '' || (!rel.startsWith('..') && !isAbsolute(rel) && !rel.startsWith(sep))) return { dir: abs, root: r };
  }
  throw new SvcError('SQL', `path is outside the copy roots: ${path}`, { position: pos });
}
