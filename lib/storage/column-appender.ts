// Appends rows to one column's files in one partition folder, buffering writes
// and tracking the logical end so rollback can truncate back (FORMAT.md).
import { closeSync, existsSync, openSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { typeInfo, isInt64, type TypeInfo } from '../core/column-type.js';
import { f64ToInt64Into, fixedBytes, nullVector, type ColumnVector, type FixedVector } from '../core/column-vector.js';
import { auxEnd, auxFile, auxValue, dataFile } from './column-files.js';
import { readAt, syncFd, syncPath, truncateFd, writeAll, type CommitMode } from './io.js';
import type { ColumnDef } from './table-state.js';

/**
 * Appends of at least this many bytes are written straight from the caller's
 * memory (no copy); smaller ones collect in a stage of this size. Small, since
 * every open file of every partition being written has one.
 */
export const STAGING = 64 << 10;
/** The first staging buffer of a file (see BufferedFile.#grow). */
const STAGING_START = 1 << 10;
const TWO32 = 4294967296;

/**
 * One reusable conversion buffer for the whole process (int64 encoding of
 * doubles, VARCHAR offsets): every use is synchronous and the bytes are
 * written or staged before append() returns, so a new array per batch (fresh
 * pages to fault in, garbage to collect) is never needed.
 */
let scratch = new Int32Array(0);

function scratchInt32(n: number): Int32Array {
  if (scratch.length < n) scratch = new Int32Array(Math.max(n, scratch.length * 2));
  return scratch.length === n ? scratch : scratch.subarray(0, n);
}

/**
 * A file written through one reusable staging buffer: small appends are
 * copied into it, appends of STAGING bytes or more are written straight from
 * the caller's memory (writeSync is done with it when it returns).
 */
class BufferedFile {
  readonly path: string;
  readonly fd: number;
  /** Logical size: bytes written plus bytes staged. */
  size: number;
  #stage: Uint8Array | null = null;
  #staged = 0;

  /** `fd`: the file already open (created empty ahead of time, file-prep.ts). */
  constructor(path: string, size: number, fd?: number) {
    this.path = path;
    this.fd = fd ?? openSync(path, existsSync(path) ? 'r+' : 'w+');
    this.size = size;
  }

  append(b: Uint8Array): void {
    const n = b.byteLength;
    if (n === 0) return;
    if (n >= STAGING) {
      this.flush();
      writeAll(this.fd, this.path, b, this.size);
      this.size += n;
      return;
    }
    if (this.#staged + n > STAGING) this.flush();
    const need = this.#staged + n;
    if (this.#stage === null || this.#stage.length < need) this.#grow(need);
    this.#stage!.set(b, this.#staged);
    this.#staged += n;
    this.size += n;
  }

  /**
   * The staging buffer grows by doubling from STAGING_START to STAGING: a
   * merge of late rows into thousands of partitions writes a row or two to
   * each of their files, and 64 KiB zeroed for each (13 GB for 200,000
   * files) cost more than the writes.
   */
  #grow(need: number): void {
    let size = Math.max(STAGING_START, (this.#stage?.length ?? 0) * 2);
    while (size < need) size *= 2;
    const grown = new Uint8Array(Math.min(size, STAGING));
    if (this.#stage !== null) grown.set(this.#stage.subarray(0, this.#staged));
    this.#stage = grown;
  }

  flush(): void {
    if (this.#staged === 0) return;
    const n = this.#staged;
    this.#staged = 0;
    writeAll(this.fd, this.path, this.#stage!.subarray(0, n), this.size - n);
  }

  /** Forgets staged bytes without writing them. */
  drop(): void {
    this.size -= this.#staged;
    this.#staged = 0;
  }

  truncate(size: number): void {
    this.#staged = 0;
    truncateFd(this.fd, size);
    this.size = size;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** The on-disk bytes of rows [lo, hi) of a fixed vector; int64 types converted for those rows only. */
function fixedRange(v: FixedVector, lo: number, hi: number): Uint8Array {
  const w = typeInfo(v.type).width;
  if (isInt64(v.type)) {
    if (v.exact) return new Uint8Array(v.exact.buffer, v.exact.byteOffset + lo * 8, (hi - lo) * 8);
    const pairs = f64ToInt64Into((v.data as Float64Array).subarray(lo, hi), scratchInt32((hi - lo) * 2));
    return new Uint8Array(pairs.buffer, pairs.byteOffset, pairs.byteLength);
  }
  // Row r starts at byte r * width in every other fixed layout (UUID and LONG256 are byte arrays).
  return new Uint8Array(v.data.buffer, v.data.byteOffset + lo * w, (hi - lo) * w);
}

/**
 * Gives a partition that predates a column its files: `rows` NULLs, written to
 * temporary names and renamed into place (the data file last, since its
 * presence is what readers and recovery check), so a crash never leaves a
 * partial fill that would read as a truncated file.
 */
function writeNullFill(partPath: string, def: ColumnDef, rows: number): void {
  const info = typeInfo(def.type);
  const dataPath = join(partPath, dataFile(def));
  const put = (path: string, bytes: Uint8Array): void => {
    const fd = openSync(path + '.tmp', 'w');
    try {
      writeAll(fd, path + '.tmp', bytes, 0);
    } finally {
      closeSync(fd);
    }
    renameSync(path + '.tmp', path);
  };
  if (info.layout === 'var') {
    // Entry 0 is 0; every row ends at 0 and is NULL (-0 - 1 = -1 in every byte).
    const aux = new Uint8Array((rows + 1) * 8).fill(0xff);
    aux.fill(0, 0, 8);
    put(join(partPath, auxFile(def)), aux);
    put(dataPath, new Uint8Array(0));
    return;
  }
  const v = nullVector(def.type, rows);
  put(dataPath, v.kind === 'symbol' ? new Uint8Array(v.keys.buffer) : fixedBytes(v as FixedVector));
}

/** The files of a column in a partition folder, in the order ColumnAppender takes them pre-created. */
export function columnFiles(partPath: string, def: ColumnDef): string[] {
  const data = join(partPath, dataFile(def));
  return typeInfo(def.type).layout === 'var' ? [data, join(partPath, auxFile(def))] : [data];
}

export class ColumnAppender {
  readonly def: ColumnDef;
  readonly #info: TypeInfo;
  readonly #data: BufferedFile;
  readonly #aux: BufferedFile | null;
  /** var: where the next row's data starts. */
  #dataEnd = 0;

  /**
   * Opens the column's files in `partPath` holding `rows` rows. When the files
   * do not exist (a new partition, or a column added after the partition was
   * written) they are created, NULL-filled for the existing rows. `created`:
   * the files of a new partition, already created empty and open (the data
   * file's descriptor, then the aux file's; see columnFiles()).
   */
  constructor(partPath: string, def: ColumnDef, rows: number, created?: readonly number[]) {
    this.def = def;
    this.#info = typeInfo(def.type);
    const dataPath = join(partPath, dataFile(def));
    if (created !== undefined && rows !== 0) throw new Error('pre-created column files are for an empty partition');
    let fresh = created !== undefined || !existsSync(dataPath);
    if (fresh && rows > 0) {
      writeNullFill(partPath, def, rows);
      fresh = false;
    }
    if (this.#info.layout === 'var') {
      this.#data = new BufferedFile(dataPath, 0, created?.[0]);
      this.#aux = new BufferedFile(join(partPath, auxFile(def)), 0, created?.[1]);
      if (fresh) {
        this.#aux.append(new Uint8Array(8)); // entry 0: row 0 starts at 0
      } else {
        const last = new Int32Array(2);
        readAt(this.#aux.fd, new Uint8Array(last.buffer), 0, 8, rows * 8);
        this.#dataEnd = auxEnd(auxValue(last, 0));
        this.#data.size = this.#dataEnd;
        this.#aux.size = (rows + 1) * 8;
      }
    } else {
      this.#aux = null;
      this.#data = new BufferedFile(dataPath, fresh ? 0 : rows * this.#info.width, created?.[0]);
    }
  }

  /** Appends rows [lo, hi) of `v` (SYMBOL keys must already be table keys). */
  append(v: ColumnVector, lo: number, hi: number): void {
    if (hi <= lo) return;
    if (v.kind === 'symbol') {
      this.#data.append(new Uint8Array(v.keys.buffer, v.keys.byteOffset + lo * 4, (hi - lo) * 4));
    } else if (v.kind === 'fixed') {
      this.#data.append(fixedRange(v, lo, hi));
    } else {
      const n = hi - lo;
      const base = v.offsets[lo]!;
      this.#data.append(v.bytes.subarray(base, v.offsets[hi]));
      const aux = scratchInt32(n * 2);
      const start = this.#dataEnd - base;
      const nulls = v.nulls;
      const offsets = v.offsets;
      if (nulls === null && start + offsets[hi]! <= 0x7fffffff) {
        // The common case (no NULLs, data file under 2 GiB): high words are all 0.
        for (let i = 0, j = lo + 1; i < n; i++, j++) {
          aux[2 * i] = start + offsets[j]!;
          aux[2 * i + 1] = 0;
        }
      } else {
        for (let i = 0; i < n; i++) {
          const end = start + offsets[lo + i + 1]!;
          const enc = nulls !== null && nulls[lo + i] === 1 ? -end - 1 : end;
          if (enc >= -0x80000000 && enc <= 0x7fffffff) {
            aux[2 * i] = enc;
            aux[2 * i + 1] = enc < 0 ? -1 : 0;
          } else {
            const hiWord = Math.floor(enc / TWO32);
            aux[2 * i] = (enc - hiWord * TWO32) | 0;
            aux[2 * i + 1] = hiWord | 0;
          }
        }
      }
      this.#dataEnd += v.offsets[hi]! - base;
      this.#aux!.append(new Uint8Array(aux.buffer, aux.byteOffset, n * 8));
    }
  }

  flush(): void {
    this.#data.flush();
    this.#aux?.flush();
  }

  /** Writes what is buffered; sync waits for fsync, async starts one on its own descriptor. */
  sync(mode: CommitMode): void {
    this.flush();
    for (const f of this.#aux ? [this.#data, this.#aux] : [this.#data]) {
      if (mode === 'sync') syncFd(f.fd, mode);
      else if (mode === 'async') syncPath(f.path, mode);
    }
  }

  /** Back to `rows` rows (rollback). */
  truncate(rows: number): void {
    if (this.#aux) {
      this.#aux.flush();
      const last = new Int32Array(2);
      readAt(this.#aux.fd, new Uint8Array(last.buffer), 0, 8, rows * 8);
      this.#dataEnd = auxEnd(auxValue(last, 0));
      this.#aux.truncate((rows + 1) * 8);
      this.#data.truncate(this.#dataEnd);
    } else {
      this.#data.truncate(rows * this.#info.width);
    }
  }

  /** Closes the files, dropping what is buffered (the folder is being deleted). */
  discard(): void {
    this.#data.drop();
    this.#aux?.drop();
    this.#data.close();
    this.#aux?.close();
  }

  /** Writes what is buffered and closes the files. */
  close(): void {
    try {
      this.flush();
    } finally {
      this.#data.close();
      this.#aux?.close();
    }
  }
}
