// read_parquet's files: the path checked against the copy root as QuestDB
// checks it, the footer read (hyparquet parses it) and each top-level column
// mapped to its svcdb type, or left out when svcdb has no type for it. The
// binder calls this through sql/parquet-source.ts; parquet-scan.ts reads rows.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parquetMetadata, parquetSchema, type FileMetaData, type SchemaTree } from 'hyparquet';
import { SvcError, errorMessage } from '../errors/svc-error.js';
import { arrayType, isCanonicalType, typeKind, type ColumnType } from '../core/column-type.js';
import type { ParquetColumn, ParquetFile, ParquetSource } from '../sql/parquet-source.js';

/** Values as the file holds them: read_parquet converts them itself (no Date objects, text as bytes). */
export const RAW_PARSERS = {
  timestampFromMilliseconds: (x: bigint): bigint => x,
  timestampFromMicroseconds: (x: bigint): bigint => x,
  timestampFromNanoseconds: (x: bigint): bigint => x,
  dateFromDays: (x: number): number => x,
  stringFromBytes: (x: Uint8Array): Uint8Array => x,
  jsonFromBytes: (x: Uint8Array): Uint8Array => x,
  uuidFromBytes: (x: Uint8Array): Uint8Array => x,
  geometryFromBytes: (x: Uint8Array): Uint8Array => x,
  geographyFromBytes: (x: Uint8Array): Uint8Array => x,
};

/** The ParquetSource of a database whose copy root is `copyRoot` (absolute; empty: none configured). */
export function parquetSource(copyRoot: string): ParquetSource {
  return {
    describe(path: string, pos: number): ParquetFile {
      const file = resolveParquetPath(copyRoot, path, pos);
      const metadata = readFooter(file, path, pos);
      const columns = parquetColumns(metadata);
      if (columns.length === 0)
        throw new SvcError('SQL', `no supported columns found in parquet file: ${path}`, { position: pos });
      return { file, columns };
    },
  };
}

/** QuestDB's error of a file it could not read: `failed to read parquet file: <path>: <why>` at the argument. */
export function readError(path: string, pos: number, why: string, cause?: unknown): SvcError {
  return new SvcError('SQL', `failed to read parquet file: ${path}: ${why}`, { position: pos, cause });
}

/** An I/O error as QuestDB words it: `error reading parquet file [<errno>]: <what>`. */
export function ioError(e: unknown, what: string, pos: number): SvcError {
  const code = (e as { code?: unknown }).code;
  const errno = typeof code === 'string' ? ((osConstants.errno as Record<string, number>)[code] ?? 0) : 0;
  return new SvcError('SQL', `error reading parquet file [${errno}]: ${what}`, { position: pos, cause: e });
}

/**
 * The file `path` names: an absolute path inside the copy root as it is, anything else under the
 * root (an absolute path outside it too, as QuestDB joins it); `../` refused, and any path that
 * would still leave the root. QuestDB's checks fail inside its reader, so their text carries
 * the `[position]` of the argument after the path.
 */
export function resolveParquetPath(root: string, path: string, pos: number): string {
  const refuse = (why: string): SvcError => readError(path, pos, `[${pos}] ${why}`);
  if (root.trim() === '')
    throw refuse(
      'parquet files can only be read from cairo.sql.copy.root, please add cairo.sql.copy.root=<path> to your configuration',
    );
  if (path.trim() === '') throw refuse('parquet file path pattern is empty');
  if (path.includes('../') || path.includes('..\\')) throw refuse('relative path is not allowed');
  const file = copyRootFile(root, path);
  if (file === null) throw refuse('relative path is not allowed');
  return file;
}

/**
 * The file `path` names under the copy root `root` (read_parquet's rule, COPY's too): an absolute
 * path inside the root as it is, anything else joined to the root; null when it would leave it.
 */
export function copyRootFile(root: string, path: string): string | null {
  if (path.includes('../') || path.includes('..\\')) return null;
  const base = root.endsWith(sep) ? root : root + sep;
  const file = isAbsolute(path) && path.length > base.length && path.startsWith(base) ? path : join(root, path);
  // `a/..` has no `../` but still names the root's parent when it ends the path.
  const rel = relative(resolve(root), resolve(file));
  if (rel === '..' || rel.startsWith('..' + sep) || isAbsolute(rel)) return null;
  return file;
}

/** The file's footer, parsed (read synchronously at bind time: a few KiB at the end of the file). */
export function readFooter(file: string, path: string, pos: number): FileMetaData {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    throw ioError(e, `could not open read-only [file=${file}]`, pos);
  }
  try {
    let tail: Uint8Array;
    try {
      const size = fstatSync(fd).size;
      if (size < 12) throw readError(path, pos, 'parquet file is too short');
      const trailer = readAt(fd, size - 8, 8);
      if (Buffer.from(trailer.subarray(4)).toString('latin1') !== 'PAR1')
        throw readError(path, pos, 'not a parquet file (no PAR1 magic at its end)');
      const length = new DataView(trailer.buffer, trailer.byteOffset).getUint32(0, true);
      if (length > size - 12) throw readError(path, pos, `parquet footer length ${length} exceeds the file`);
      tail = readAt(fd, size - 8 - length, length + 8);
    } catch (e) {
      if (e instanceof SvcError) throw e;
      throw ioError(e, `could not read [file=${file}]`, pos);
    }
    try {
      return parquetMetadata(tail, { parsers: RAW_PARSERS, geoparquet: false });
    } catch (e) {
      throw readError(path, pos, errorMessage(e), e);
    }
  } finally {
    closeSync(fd);
  }
}

function readAt(fd: number, at: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, out, done, length - done, at + done);
    if (n === 0) throw new Error('unexpected end of file');
    done += n;
  }
  return out;
}

/**
 * The top-level columns svcdb can read, in file order, each with its type: the file's own
 * (physical, converted and logical types), refined by svcdb's `svcdb.column_types` when svcdb
 * wrote the file (BYTE, SHORT, CHAR, IPv4, GEOHASH, LONG256, DATE, TIMESTAMP_NS come back as
 * such). SYMBOL and STRING come back as VARCHAR, as QuestDB's read_parquet returns them.
 * Nested groups other than LISTs of DOUBLE, DECIMAL, TIME, INTERVAL and repeated fields are left out.
 */
export function parquetColumns(metadata: FileMetaData): ParquetColumn[] {
  const tree = parquetSchema(metadata);
  const hints = svcdbTypes(metadata, tree.children.length);
  const out: ParquetColumn[] = [];
  const seen = new Set<string>();
  tree.children.forEach((child, i) => {
    const c = columnOf(child, hints?.[i] ?? null);
    const key = child.element.name.toLowerCase();
    if (c === null || seen.has(key)) return;
    seen.add(key);
    out.push(c);
  });
  return out;
}

/** svcdb's column types of a file it exported (parquet-writer.ts), when they match its columns. */
function svcdbTypes(metadata: FileMetaData, columns: number): (ColumnType | null)[] | null {
  const kv = metadata.key_value_metadata?.find((e) => e.key === 'svcdb.column_types');
  if (kv?.value === undefined) return null;
  try {
    const types: unknown = JSON.parse(kv.value);
    if (!Array.isArray(types) || types.length !== columns) return null;
    return types.map((t) => (isCanonicalType(t) ? t : null));
  } catch {
    // Not svcdb's metadata after all: the file's own types alone.
    return null;
  }
}

function columnOf(node: SchemaTree, hint: ColumnType | null): ParquetColumn | null {
  const name = node.element.name;
  const col = (type: ColumnType, conversion: ParquetColumn['conversion']): ParquetColumn => ({
    name,
    type,
    conversion,
  });
  if (node.children.length > 0 || isList(node)) {
    const dims = doubleListDims(node);
    return dims > 0 ? col(arrayType(dims), 'doubleArray') : null;
  }
  const e = node.element;
  if (e.repetition_type === 'REPEATED') return null;
  const ct = e.converted_type;
  const lt = e.logical_type;
  if (ct === 'DECIMAL' || lt?.type === 'DECIMAL' || ct === 'INTERVAL' || lt?.type === 'INTERVAL') return null;
  if (ct === 'TIME_MILLIS' || ct === 'TIME_MICROS' || lt?.type === 'TIME') return null;
  switch (e.type) {
    case 'BOOLEAN':
      return col('BOOLEAN', 'boolean');
    case 'INT32': {
      if (ct === 'DATE' || lt?.type === 'DATE') return col('DATE', 'dateDays');
      const bits = lt?.type === 'INTEGER' ? lt.bitWidth : intBits(ct);
      const signed = lt?.type === 'INTEGER' ? lt.isSigned : !ct?.startsWith('UINT');
      if (bits === 8 && signed) return col('BYTE', 'int');
      if ((bits === 16 && signed) || (bits === 8 && !signed)) return col('SHORT', 'int');
      if (bits === 16 && !signed) return col('INT', 'int');
      if (bits === 32 && !signed) return hint === 'IPV4' ? col('IPV4', 'ipv4') : col('LONG', 'long');
      return col('INT', 'int');
    }
    case 'INT64': {
      const unit = lt?.type === 'TIMESTAMP' ? lt.unit : timestampUnit(ct);
      if (unit === 'MILLIS') return hint === 'DATE' ? col('DATE', 'dateMillis') : col('TIMESTAMP', 'timestampMillis');
      if (unit === 'MICROS') return col('TIMESTAMP', 'timestampMicros');
      if (unit === 'NANOS')
        return hint === 'TIMESTAMP_NS' ? col('TIMESTAMP_NS', 'timestampNs') : col('TIMESTAMP', 'timestampNanos');
      return col('LONG', 'long');
    }
    case 'INT96':
      return col('TIMESTAMP', 'timestampNanos');
    case 'FLOAT':
      return col('FLOAT', 'float');
    case 'DOUBLE':
      return col('DOUBLE', 'double');
    case 'BYTE_ARRAY': {
      if (lt?.type === 'BSON' || ct === 'BSON' || lt?.type === 'VARIANT') return null;
      const text = ct === 'UTF8' || ct === 'ENUM' || ct === 'JSON' || lt?.type === 'STRING' || lt?.type === 'ENUM';
      if (!text && lt?.type !== 'JSON') return col('BINARY', 'binary');
      if (hint === 'CHAR') return col('CHAR', 'char');
      if (hint !== null && typeKind(hint) === 'GEOHASH') return col(hint, 'geohash');
      return col('VARCHAR', 'varchar');
    }
    case 'FIXED_LEN_BYTE_ARRAY':
      if (lt?.type === 'UUID' && e.type_length === 16) return col('UUID', 'uuid');
      if (lt?.type === 'FLOAT16') return col('FLOAT', 'float');
      if (hint === 'LONG256' && e.type_length === 32) return col('LONG256', 'long256');
      return col('BINARY', 'binary');
    default:
      return null;
  }
}

function intBits(ct: string | undefined): number {
  switch (ct) {
    case 'INT_8':
    case 'UINT_8':
      return 8;
    case 'INT_16':
    case 'UINT_16':
      return 16;
    default:
      return 32;
  }
}

function timestampUnit(ct: string | undefined): 'MILLIS' | 'MICROS' | null {
  return ct === 'TIMESTAMP_MILLIS' ? 'MILLIS' : ct === 'TIMESTAMP_MICROS' ? 'MICROS' : null;
}

function isList(node: SchemaTree): boolean {
  return node.element.converted_type === 'LIST' || node.element.logical_type?.type === 'LIST';
}

/**
 * The dimensions of a LIST (of LISTs ...) of DOUBLE (3-level lists, or 2-level ones whose repeated
 * field is the element), or 0 for anything else.
 */
function doubleListDims(node: SchemaTree): number {
  let dims = 0;
  let at = node;
  while (isList(at)) {
    const rep = at.children[0];
    if (at.children.length !== 1 || rep === undefined || rep.element.repetition_type !== 'REPEATED') return 0;
    if (rep.children.length === 0) {
      at = rep;
    } else {
      if (rep.children.length !== 1) return 0;
      at = rep.children[0]!;
    }
    dims++;
  }
  if (dims === 0 || at.children.length > 0 || at.element.type !== 'DOUBLE') return 0;
  return dims;
}
