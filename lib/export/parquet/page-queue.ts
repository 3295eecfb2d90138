// The pages of a Parquet export waiting for a slow codec, shared between the
// worker pool and this thread: the pool's threads take pages from the front
// (two at a time each, so none waits for the next), and this thread takes
// them too whenever the writer would otherwise wait for a row group's pages,
// compressing in steps (ZSTD) so that it answers the pool's threads between
// them: a thread whose pages are done gets the next ones within a step.
import type { FormatPool } from '../format-pool.js';
import type { PageCodec } from './codecs.js';

/** What the queue uses of a FormatPool. */
export type PagePool = Pick<FormatPool, 'usable' | 'threads' | 'compress'>;

/** Pages smaller than this are compressed at once on this thread: handing them over costs more than it saves. */
export const INLINE_PAGE_BYTES = 16 * 1024;
/** Pages in flight per pool thread: one being compressed, one waiting there for it. */
const PER_THREAD = 2;
/** Spare page buffers kept for reuse (the pool hands each page's buffer back with its result). */
const SPARES = 8;

interface Job {
  /** The page's bytes in a buffer of its own (transferred to the pool thread that takes it). */
  readonly data: Uint8Array<ArrayBuffer>;
  readonly resolve: (b: Buffer) => void;
  readonly reject: (e: Error) => void;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Compresses pages with `codec` (at `level` on the pool's threads), in any
 * order on any thread: the bytes do not depend on where a page is compressed.
 */
export class PageQueue {
  readonly #codec: PageCodec;
  readonly #level: number | null;
  readonly #pool: PagePool | null;
  readonly #jobs: Job[] = [];
  #head = 0;
  #inFlight = 0;
  #closed = false;
  readonly #spares: ArrayBuffer[] = [];

  constructor(codec: PageCodec, level: number | null, pool: PagePool | null) {
    this.#codec = codec;
    this.#level = level;
    this.#pool = pool;
  }

  /** Pages queued and not yet taken by any thread. */
  get waiting(): number {
    return this.#jobs.length - this.#head;
  }

  /**
   * `raw` compressed: at once here (no usable pool, or a small page), else a
   * promise. `raw` is valid only during the call (a view of reused memory): it
   * is copied before this returns.
   */
  compress(raw: Uint8Array): Buffer | Promise<Buffer> {
    const pool = this.#pool;
    if (pool === null || !pool.usable || this.#closed || raw.length < INLINE_PAGE_BYTES)
      return this.#codec.compress(raw);
    const data = this.#own(raw);
    return new Promise<Buffer>((resolve, reject) => {
      this.#jobs.push({ data, resolve, reject });
      this.#pump();
    });
  }

  /**
   * Waits for `done` (promises of this queue's pages), compressing the queued
   * pages on this thread meanwhile, oldest first, so that no thread idles
   * while pages wait. Pages left when the pool closed are all done here.
   */
  async finish<T>(done: Promise<T>): Promise<T> {
    let settled = false;
    done.then(
      () => (settled = true),
      () => (settled = true),
    );
    await nextTurn(); // replies that arrived meanwhile first: the pool's threads are then fed again
    while (!settled && this.waiting > 0) await this.#runHere();
    return done;
  }

  /** Drops the pages still queued (the export ended): nothing waits for them. */
  close(): void {
    this.#closed = true;
    this.#jobs.length = 0;
    this.#head = 0;
  }

  #take(): Job {
    const job = this.#jobs[this.#head++]!;
    if (this.#head === this.#jobs.length) {
      this.#jobs.length = 0;
      this.#head = 0;
    }
    return job;
  }

  /**
   * The oldest queued page compressed on this thread: in steps when the codec has them, with a
   * turn of the event loop after each, so that the pool's replies are read and its threads fed
   * again while this thread compresses (one page at level 9 is tens of ms).
   */
  async #runHere(): Promise<void> {
    const job = this.#take();
    let out: Buffer;
    try {
      const steps = this.#codec.steps?.(job.data);
      if (steps === undefined) {
        out = this.#codec.compress(job.data);
        await nextTurn();
      } else {
        for (;;) {
          const r = steps.next();
          await nextTurn();
          if (r.done === true) {
            out = r.value;
            break;
          }
          if (this.#closed) return; // the export ended: nobody waits for this page
        }
      }
    } catch (e) {
      job.reject(e as Error);
      return;
    }
    this.#spare(job.data.buffer);
    job.resolve(out);
  }

  /** Hands queued pages to the pool, up to PER_THREAD per thread. */
  #pump(): void {
    const pool = this.#pool;
    if (pool === null) return;
    while (!this.#closed && this.waiting > 0 && this.#inFlight < PER_THREAD * pool.threads && pool.usable) {
      const job = this.#take();
      this.#inFlight++;
      pool.compress(this.#codec.name, this.#level, job.data).then(
        ({ compressed, input }) => {
          this.#inFlight--;
          this.#spare(input);
          job.resolve(compressed);
          this.#pump();
        },
        (e: unknown) => {
          this.#inFlight--;
          job.reject(e as Error);
          this.#pump();
        },
      );
    }
  }

  /** A copy of `raw` in a buffer of its own: a spare one when one is large enough. */
  #own(raw: Uint8Array): Uint8Array<ArrayBuffer> {
    const s = this.#spares;
    for (let i = s.length - 1; i >= 0; i--) {
      const b = s[i]!;
      if (b.byteLength >= raw.length) {
        s[i] = s[s.length - 1]!;
        s.pop();
        const out = new Uint8Array(b, 0, raw.length);
        out.set(raw);
        return out;
      }
    }
    return raw.slice();
  }

  #spare(b: ArrayBuffer): void {
    if (this.#closed || b.byteLength < INLINE_PAGE_BYTES) return;
    if (this.#spares.length >= SPARES) {
      // Keep the larger ones: pages of a chunk are about data_page_size each.
      let min = 0;
      for (let i = 1; i < this.#spares.length; i++)
        if (this.#spares[i]!.byteLength < this.#spares[min]!.byteLength) min = i;
      if (this.#spares[min]!.byteLength >= b.byteLength) return;
      this.#spares[min] = b;
      return;
    }
    this.#spares.push(b);
  }
}
