// A bounded cache of file chunks in shared memory (worker threads read them)
// for readers, so scans of warm data cost a memory copy (or nothing) and tables
// larger than memory still work. Size from cairo.reader.cache.size. Chunks are
// found by file and index; when full, the oldest chunk not read again since it
// was last passed goes (second chance: near LRU, and a hit only sets a flag).
// Counts the bytes it reads from disk.
import { closeSync, openSync } from 'node:fs';
import { readAt } from './io.js';
import { TextCodeCache } from './text-codes.js';

interface Chunk {
  readonly data: Uint8Array;
  /** Bytes of `data` that are valid (committed) content. */
  valid: number;
  /** Read since the eviction hand last passed it (a second chance before it goes). */
  used: boolean;
  readonly file: FileChunks;
  readonly index: number;
}

/** A file's cached chunks by index: a hit is an array lookup, not a key made and hashed per chunk. */
interface FileChunks {
  readonly key: string;
  readonly chunks: (Chunk | undefined)[];
  count: number;
}

export class ReadCache {
  readonly chunkSize: number;
  readonly capacity: number;
  #files = new Map<string, FileChunks>();
  /** Every chunk, oldest first: eviction takes the first not used since it was last passed (CLOCK, near enough LRU; a hit costs a flag). */
  #order = new Set<Chunk>();
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
    let f = this.#files.get(key);
    if (f === undefined) {
      f = { key, chunks: [], count: 0 };
      this.#files.set(key, f);
    }
    if (first === last) {
      const c = this.#chunk(f, path, first, limit);
      const off = pos - first * cs;
      return c.data.subarray(off, off + len);
    }
    const out = new Uint8Array(len);
    for (let i = first; i <= last; i++) {
      const c = this.#chunk(f, path, i, limit);
      const from = Math.max(pos, i * cs);
      const to = Math.min(pos + len, (i + 1) * cs);
      out.set(c.data.subarray(from - i * cs, to - i * cs), from - pos);
    }
    return out;
  }

  #chunk(f: FileChunks, path: string, index: number, limit: number): Chunk {
    const cs = this.chunkSize;
    const want = Math.min(cs, limit - index * cs);
    const had = f.chunks[index];
    if (had !== undefined && had.valid >= want) {
      this.hits++;
      had.used = true;
      return had;
    }
    this.misses++;
    if (had !== undefined) this.#remove(had);
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
    const c: Chunk = { data, valid: want, used: false, file: f, index };
    if (f.count === 0) this.#files.set(f.key, f); // evicted whole meanwhile (a read of several chunks)
    f.chunks[index] = c;
    f.count++;
    this.#order.add(c);
    this.#bytes += data.byteLength;
    for (const o of this.#order) {
      if (this.#bytes <= this.capacity) break;
      if (o === c) continue;
      if (o.used) {
        o.used = false;
        this.#order.delete(o);
        this.#order.add(o); // its second chance: to the back
      } else this.#remove(o);
    }
    return c;
  }

  /** Drops chunk c (and its file's entry with its last chunk). */
  #remove(c: Chunk): void {
    this.#order.delete(c);
    this.#bytes -= c.data.byteLength;
    const f = c.file;
    f.chunks[c.index] = undefined;
    if (--f.count === 0) {
      f.chunks.length = 0;
      if (this.#files.get(f.key) === f) this.#files.delete(f.key);
    }
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
    for (const [k, f] of this.#files) {
      if (!under(k, set)) continue;
      for (const c of f.chunks) if (c !== undefined) this.#remove(c);
      this.#files.delete(k);
    }
  }

  get size(): number {
    return this.#bytes;
  }
}

/** Whether file key `k` (`<table id>/<path in the table folder>`) lies under one of `paths`: a folder given with or without its trailing slash, or the file. */
function under(k: string, paths: ReadonlySet<string>): boolean {
  for (let i = 0; i < k.length; i++)
    if (k.charCodeAt(i) === 0x2f && (paths.has(k.slice(0, i)) || paths.has(k.slice(0, i + 1)))) return true; // '/'
  return paths.has(k);
}
