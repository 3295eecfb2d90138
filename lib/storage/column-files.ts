// Column files of one partition (FORMAT.md): names, committed sizes, and
// reading a row range into a ColumnVector through a byte source (the reader's
// cache, or direct reads for the writer's merges).
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../errors/svc-error.js';
import { typeInfo, isByteRows, isInt64, hasExactPairs, type ColumnType } from '../core/column-type.js';
import { int64ToF64, nullVector, type ColumnVector, type FixedArray } from '../core/column-vector.js';
import { readAt } from './io.js';
import { dirTxn, type ColumnDef } from './table-state.js';

export const dataFile = (c: ColumnDef): string => `${c.id}.d`;
export const auxFile = (c: ColumnDef): string => `${c.id}.i`;
export const symbolFile = (c: ColumnDef): string => `${c.id}.sym`;

/** Reads bytes [pos, pos+len) of a file that has at least `limit` valid bytes. */
export type ByteSource = (file: string, pos: number, len: number, limit: number) => Uint8Array;

/** Uncached reads, for the writer (its own uncommitted rows are in the files, not in any cache). */
export const directSource: ByteSource = (file, pos, len) => {
  const out = new Uint8Array(new ArrayBuffer(len));
  const fd = openSync(file, 'r');
  try {
    if (readAt(fd, out, 0, len, pos) < len) throw new SvcError('INTERNAL', `file ${file} is shorter than expected`);
  } finally {
    closeSync(fd);
  }
  return out;
};

const TWO32 = 4294967296;

/** An aux entry: the end offset of a row's data, negative (-end-1) when the row is NULL. */
export function auxValue(pairs: Int32Array, i: number): number {
  return pairs[2 * i + 1]! * TWO32 + (pairs[2 * i]! >>> 0);
}

export function auxEnd(v: number): number {
  return v < 0 ? -v - 1 : v;
}

/** Whether the partition folder lacks the column's files because the column was added after it was written. */
export function columnAbsent(partitionPath: string, c: ColumnDef): boolean {
  if (existsSync(join(partitionPath, dataFile(c)))) return false;
  if (dirTxn(partitionPath) < c.addedTxn) return true;
  throw new SvcError('INTERNAL', `column file ${join(partitionPath, dataFile(c))} is missing`);
}

/** Copies `bytes` into a fresh buffer aligned for `width`-byte elements when the view is not. */
function aligned(bytes: Uint8Array, width: number): Uint8Array {
  if (bytes.byteOffset % Math.min(width, 8) === 0) return bytes;
  return bytes.slice();
}

function fixedArray(type: ColumnType, b: Uint8Array): FixedArray {
  const buf = b.buffer,
    off = b.byteOffset,
    len = b.byteLength;
  if (isByteRows(type)) return b;
  switch (type) {
    case 'BOOLEAN':
      return b;
    case 'BYTE':
      return new Int8Array(buf, off, len);
    case 'SHORT':
      return new Int16Array(buf, off, len / 2);
    case 'CHAR':
      return new Uint16Array(buf, off, len / 2);
    case 'INT':
    case 'IPV4':
      return new Int32Array(buf, off, len / 4);
    case 'FLOAT':
      return new Float32Array(buf, off, len / 4);
    case 'DOUBLE':
      return new Float64Array(buf, off, len / 8);
    default:
      throw new Error(`not a plain fixed type: ${type}`);
  }
}

/** The vector of `n` rows of a fixed-width column from their bytes in the column file (a view of them where aligned). */
export function fixedVector(type: ColumnType, bytes: Uint8Array, n: number): ColumnVector {
  const b = aligned(bytes, typeInfo(type).width);
  if (isInt64(type)) {
    const pairs = new Int32Array(b.buffer, b.byteOffset, n * 2);
    return { kind: 'fixed', type, data: int64ToF64(pairs), exact: hasExactPairs(type) ? pairs : undefined };
  }
  return { kind: 'fixed', type, data: fixedArray(type, b) };
}

/**
 * Rows [lo, hi) of column `c` in a partition folder (`partPath`) with
 * `partRows` committed rows. `dict` is the symbol dictionary for SYMBOL columns;
 * `absent` says the partition predates the column (callers that read many
 * batches compute it once); `dataLimit` is a var column's committed data size.
 */
export function readColumn(
  src: ByteSource,
  partPath: string,
  partRows: number,
  c: ColumnDef,
  lo: number,
  hi: number,
  dict: readonly string[],
  absent: boolean = columnAbsent(partPath, c),
  dataLimit?: number,
): ColumnVector {
  const n = hi - lo;
  if (absent) return nullVector(c.type, n, dict);
  const info = typeInfo(c.type);
  const data = join(partPath, dataFile(c));
  if (info.layout === 'symbol') {
    const b = aligned(src(data, lo * 4, n * 4, partRows * 4), 4);
    return { kind: 'symbol', type: 'SYMBOL', keys: new Int32Array(b.buffer, b.byteOffset, n), dict };
  }
  if (info.layout === 'fixed') {
    const w = info.width;
    return fixedVector(c.type, src(data, lo * w, n * w, partRows * w), n);
  }
  // var: aux has partRows + 1 entries; entry i is where row i starts (entry 0 is 0).
  const auxPath = join(partPath, auxFile(c));
  const ab = aligned(src(auxPath, lo * 8, (n + 1) * 8, (partRows + 1) * 8), 8);
  const pairs = new Int32Array(ab.buffer, ab.byteOffset, (n + 1) * 2);
  const start = auxEnd(auxValue(pairs, 0));
  const end = auxEnd(auxValue(pairs, n));
  // Every byte below `end` is committed (hi <= partRows); `dataLimit` (the partition's
  // committed data size, when the caller knows it) lets the cache keep whole chunks.
  const bytes = end > start ? src(data, start, end - start, dataLimit ?? end) : new Uint8Array(0);
  const offsets = new Int32Array(n + 1);
  let nulls: Uint8Array | null = null;
  for (let i = 1; i <= n; i++) {
    const v = auxValue(pairs, i);
    if (v < 0) {
      nulls ??= new Uint8Array(n);
      nulls[i - 1] = 1;
    }
    offsets[i] = auxEnd(v) - start;
  }
  return { kind: 'var', type: c.type, bytes, offsets, nulls };
}
