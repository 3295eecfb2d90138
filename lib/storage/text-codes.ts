// Dictionary codes of a partition's text column (VARCHAR, STRING): each row's
// code into the partition's distinct values, built once from the committed
// rows by hashing their bytes, kept in shared memory beside the read cache and
// extended when the partition grows. Scans whose keys are hashed get vectors
// that carry the codes and read the text itself only if something asks for it.
// A column with too many distinct values gets no codes (remembered).
import { BytesIds } from '../core/key-ids.js';
import type { VarVector } from '../core/column-vector.js';

/** Codes are Uint16: at most this many entries (NULL's included). */
const MAX_CODES = 65536;
/** Past this many rows, a column with more distinct values than a quarter of its rows gets no codes. */
const SPARSE_AFTER_ROWS = 65536;
/** Rows hashed per read while building. */
const BUILD_ROWS = 65536;

/** The codes of a partition column's first `rows` rows. */
export interface TextCodes {
  readonly dict: BytesIds;
  readonly codes: Uint8Array | Uint16Array;
  readonly rows: number;
  /** Whether a row is NULL (code 0). */
  readonly hasNull: boolean;
}

/**
 * Codes of rows [0, rows) of a text column read by `read`, continuing `prev`
 * (which covers fewer rows; its codes stay valid: the dictionary only grows),
 * or null when the column has too many distinct values.
 */
export function buildTextCodes(
  read: (lo: number, hi: number) => VarVector,
  rows: number,
  prev: TextCodes | undefined,
): TextCodes | null {
  const dict = prev?.dict ?? new BytesIds();
  if (prev === undefined) dict.nullId(); // code 0
  const codes = new Uint16Array(rows);
  if (prev !== undefined) codes.set(prev.codes);
  let hasNull = prev?.hasNull ?? false;
  for (let lo = prev?.rows ?? 0; lo < rows; lo += BUILD_ROWS) {
    const hi = Math.min(rows, lo + BUILD_ROWS);
    const v = read(lo, hi);
    const b = v.bytes,
      offs = v.offsets,
      nulls = v.nulls;
    if (nulls !== null) {
      for (let i = 0, r = lo; r < hi; i++, r++) codes[r] = nulls[i] ? 0 : dict.id(b, offs[i]!, offs[i + 1]!);
      if (!hasNull) for (let i = 0; i < hi - lo; i++) if (nulls[i]) hasNull = true;
    } else for (let i = 0, r = lo; r < hi; i++, r++) codes[r] = dict.id(b, offs[i]!, offs[i + 1]!);
    if (dict.size > MAX_CODES - 1 || (hi > SPARSE_AFTER_ROWS && dict.size * 4 > hi)) return null;
  }
  // In shared memory: worker threads read a page's codes in place (exec/page-group.ts).
  const shared =
    dict.size <= 256 ? new Uint8Array(new SharedArrayBuffer(rows)) : new Uint16Array(new SharedArrayBuffer(rows * 2));
  shared.set(codes);
  return { dict, codes: shared, rows, hasNull };
}

/** Bytes an entry holds: its codes and its dictionary. */
function entryBytes(e: TextCodes | null): number {
  return e === null ? 64 : e.codes.byteLength + e.dict.memory() + 64;
}

/**
 * Codes by partition column (keys `<table id>/<partition folder>/<column id>`),
 * least recently used dropped past `capacity` bytes; null remembers a column
 * that has too many distinct values.
 */
export class TextCodeCache {
  readonly capacity: number;
  readonly #entries = new Map<string, TextCodes | null>();
  #bytes = 0;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get(key: string): TextCodes | null | undefined {
    const e = this.#entries.get(key);
    if (e !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, e);
    }
    return e;
  }

  set(key: string, e: TextCodes | null): void {
    const old = this.#entries.get(key);
    if (old !== undefined) {
      this.#bytes -= entryBytes(old);
      this.#entries.delete(key);
    }
    this.#entries.set(key, e);
    this.#bytes += entryBytes(e);
    while (this.#bytes > this.capacity && this.#entries.size > 1) {
      const oldest = this.#entries.keys().next().value as string;
      this.#bytes -= entryBytes(this.#entries.get(oldest)!);
      this.#entries.delete(oldest);
    }
  }

  /** Forgets the entries under the given table or partition paths (ReadCache.evict's keys). */
  evict(paths: ReadonlySet<string>): void {
    for (const [k, e] of this.#entries) {
      if (under(k, paths)) {
        this.#bytes -= entryBytes(e);
        this.#entries.delete(k);
      }
    }
  }

  get size(): number {
    return this.#bytes;
  }
}

/** Whether key `k` (`<table id>/<partition>/<column id>`) lies under one of `paths` (a folder, with or without its slash). */
function under(k: string, paths: ReadonlySet<string>): boolean {
  for (let i = k.indexOf('/'); i >= 0; i = k.indexOf('/', i + 1)) {
    if (paths.has(k.slice(0, i)) || paths.has(k.slice(0, i + 1))) return true;
  }
  return paths.has(k);
}
