// A bounded LRU cache of file chunks (in shared memory, readable by worker
// threads) for readers, so scans of warm data cost a memory copy (or nothing)
// and tables larger than memory still work. Size from cairo.reader.cache.size.
// Counts the bytes it reads from disk.
import { closeSync, openSync } from 'node:fs';
import { readAt } from './io.js';
import { TextCodeCache } from './text-codes.js';

interface Chunk {
  readonly data: Uint8Array;
  /** Bytes of `data` that are valid (committed) content. */
  valid: number;
}

export class ReadCache {
  readonly chunkSize: number;
  readonly capacity: number;
  #chunks = new Map<string, Chunk>();
  #bytes = 0;
  /** Bytes read from files since the cache was made (the I/O a scan caused). */
  bytesRead = 0;
  hits = 0;
  misses = 0;
  /** Dictionary codes of text columns (storage/text-codes.ts), as much memory again at most. */
  readonly codes: TextCodeCache;

  constructor(capacity: number, chunkSize = 64 * 1024) {
    if (chunkSize % 32 !== 0) throw new Error('chunk size must be a multiple of 32');
    this.capacity = Math.max(capacity, chunkSize * 4);
    this.chunkSize = chunkSize;
    this.codes = new TextCodeCache(this.capacity);
  }

  /**
   * Bytes [pos, pos+len) of the file, which has at least `limit` valid bytes
   * (the reader's committed size). Returns a view into a cached chunk when the
   * range lies in one, else a copy.
   */
  read(key: string, path: string, pos: number, len: number, limit: number): Uint8Array {
    if (len === 0) return new Uint8Array(0);
    if (pos + len > limit) throw new Error(`read past committed size of ${path}: ${pos + len} > ${limit}`);
    const cs = this.chunkSize;
    const first = Math.floor(pos / cs);
    const last = Math.floor((pos + len - 1) / cs);
    if (first === last) {
      const c = this.#chunk(key, path, first, limit);
      const off = pos - first * cs;
      return c.data.subarray(off, off + len);
    }
    const out = new Uint8Array(len);
    for (let i = first; i <= last; i++) {
      const c = this.#chunk(key, path, i, limit);
      const from = Math.max(pos, i * cs);
      const to = Math.min(pos + len, (i + 1) * cs);
      out.set(c.data.subarray(from - i * cs, to - i * cs), from - pos);
    }
    return out;
  }

  #chunk(key: string, path: string, index: number, limit: number): Chunk {
    const k = `${key}#${index}`;
    const cs = this.chunkSize;
    const want = Math.min(cs, limit - index * cs);
    let c = this.#chunks.get(k);
    if (c && c.valid >= want) {
      this.hits++;
      this.#chunks.delete(k);
      this.#chunks.set(k, c);
      return c;
    }
    this.misses++;
    if (c) {
      this.#chunks.delete(k);
      this.#bytes -= c.data.byteLength;
    }
    // Shared memory: other threads may read a chunk while this one goes on (exec/page-aggregate.ts); chunks are never written after this read.
    const data = new Uint8Array(new SharedArrayBuffer(want));
    const fd = openSync(path, 'r');
    let n: number;
    try {
      n = readAt(fd, data, 0, want, index * cs);
    } finally {
      closeSync(fd);
    }
    this.bytesRead += n;
    if (n < want)
      throw new Error(`file ${path} is shorter than its committed size (${index * cs + n} < ${index * cs + want})`);
    c = { data, valid: want };
    this.#chunks.set(k, c);
    this.#bytes += data.byteLength;
    while (this.#bytes > this.capacity) {
      const oldest = this.#chunks.keys().next().value as string;
      this.#bytes -= this.#chunks.get(oldest)!.data.byteLength;
      this.#chunks.delete(oldest);
    }
    return c;
  }

  /** Counts bytes a reader read from a file directly, around the cache. */
  countDirect(bytes: number): void {
    this.bytesRead += bytes;
  }

  /**
   * Forgets every chunk under the given paths (keys are `<table id>/<path in
   * the table folder>`): `7/` is all of table 7, `7/2024-01-01.3` a partition
   * folder, `7/2024-01-01.3/2.d` a file. One pass over the cache however many
   * paths: a commit may retire thousands of partitions at once.
   */
  evict(paths: string | readonly string[]): void {
    const set = new Set(typeof paths === 'string' ? [paths] : paths);
    if (set.size === 0) return;
    this.codes.evict(set);
    if (this.#chunks.size === 0) return;
    for (const [k, c] of this.#chunks) {
      if (under(k, set)) {
        this.#bytes -= c.data.byteLength;
        this.#chunks.delete(k);
      }
    }
  }

  get size(): number {
    return this.#bytes;
  }
}

/** Whether chunk key `k` (`<path>#<index>`) lies under one of `paths`: a folder given with or without its trailing slash, or the file. */
function under(k: string, paths: ReadonlySet<string>): boolean {
  for (let i = 0; i < k.length; i++) {
    const ch = k.charCodeAt(i);
    if (ch === 0x2f) {
      // '/'
      if (paths.has(k.slice(0, i)) || paths.has(k.slice(0, i + 1))) return true;
    } else if (ch === 0x23) {
      // '#': the file's path ends here
      return paths.has(k.slice(0, i));
    }
  }
  return false;
}
