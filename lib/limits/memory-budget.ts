// The memory one request may hold (DESIGN.md "Shape"): every allocation that
// grows with the input (import builders, collected batches, join output, hash
// tables, sorts, strings built per row) is charged here first, so a request
// that would outgrow its limit fails with a clear 4xx before the process is at
// risk. A budget may have a parent (the process-wide budget) that every charge
// also goes to; running out of a shared budget is the server being busy (503),
// not the request being too big.
import { totalmem } from 'node:os';
import { getHeapStatistics } from 'node:v8';
import { SvcError } from '../errors/svc-error.js';

export class MemoryBudget {
  /** The most bytes this budget may hold. */
  readonly limit: number;
  /** The configuration key that sets the limit, named in the error. */
  readonly key: string;
  readonly #parent: MemoryBudget | null;
  readonly #shared: boolean;
  #used = 0;
  #peak = 0;

  /**
   * `shared`: a budget that concurrent requests' budgets have as parent; past it
   * the error is a 503 (try again later) instead of a 400.
   */
  constructor(limit: number, key: string, parent: MemoryBudget | null = null, shared = false) {
    if (!(limit >= 0)) throw new RangeError(`memory limit must be >= 0, not ${limit}`);
    this.limit = limit;
    this.key = key;
    this.#parent = parent;
    this.#shared = shared;
  }

  /** Bytes charged and not yet released. */
  get used(): number {
    return this.#used;
  }
  /** The most bytes held at once. */
  get peak(): number {
    return this.#peak;
  }

  /**
   * Charges `bytes` for `what` (a phrase: `ORDER BY`, `the import's column builders`), or throws
   * the 400 naming the limit when they do not fit; nothing is charged then.
   */
  charge(bytes: number, what: string): void {
    if (bytes <= 0) return;
    if (this.#used + bytes > this.limit) throw this.#exceeded(what, bytes);
    this.#parent?.charge(bytes, what);
    this.#used += bytes;
    if (this.#used > this.#peak) this.#peak = this.#used;
  }

  /** Gives back bytes charged earlier (never more than are held). */
  release(bytes: number): void {
    const b = Math.min(Math.max(bytes, 0), this.#used);
    this.#used -= b;
    this.#parent?.release(b);
  }

  /** Moves what is held to `bytes` (charging or releasing the difference). */
  resize(held: number, bytes: number, what: string): void {
    if (bytes > held) this.charge(bytes - held, what);
    else this.release(held - bytes);
  }

  /** Whether `bytes` more would fit here and in every parent (charge() would not throw). */
  fits(bytes: number): boolean {
    return this.#used + bytes <= this.limit && (this.#parent?.fits(bytes) ?? true);
  }

  /** Throws the same error as charge() would when `bytes` more would not fit; charges nothing. */
  check(bytes: number, what: string): void {
    if (this.#used + bytes > this.limit) throw this.#exceeded(what, bytes);
    this.#parent?.check(bytes, what);
  }

  /** Releases everything (the end of the request). */
  releaseAll(): void {
    this.release(this.#used);
  }

  #exceeded(what: string, bytes: number): SvcError {
    if (this.#shared) {
      return new SvcError(
        'UNAVAILABLE',
        `server busy: ${what} needs more memory than running requests leave of ${this.limit} bytes; try again later [limit=${this.key}, held=${this.#used}, requested=${Number.isFinite(bytes) ? bytes : 'unbounded'}]`,
        { headers: { 'Retry-After': '1' } },
      );
    }
    return new SvcError(
      'LIMIT',
      `${what} needs more than the memory limit of ${this.limit} bytes [limit=${this.key}, held=${this.#used}, requested=${Number.isFinite(bytes) ? bytes : 'unbounded'}]`,
    );
  }
}

/**
 * The process-wide budget of queries (query.memory.total.limit): `configured`
 * bytes, or with 0 the smaller of half the machine's memory and three quarters
 * of the JavaScript heap limit (hash tables and strings live there), but never
 * less than one query's limit.
 */
export function queryMemoryTotal(configured: number, perQuery: number, key = 'query.memory.total.limit'): MemoryBudget {
  const auto = Math.min(totalmem() / 2, 0.75 * getHeapStatistics().heap_size_limit);
  return new MemoryBudget(Math.floor(configured > 0 ? configured : Math.max(perQuery, auto)), key, null, true);
}
