// The export helper thread. CSV and JSON rows: turning values into text is
// most of an export's CPU, and the main thread has one core: whole batches are
// handed to one helper thread while the main thread formats the next, and
// their bytes go out in order. Rows of a batch are copied into transferable
// arrays (only the rows in the window; symbols with just the dictionary
// entries they use). Parquet pages: compressed there while the main thread
// encodes the next row group (ZSTD at level 9 is most of a Parquet export).
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import type { SqlType } from '../core/sql-type.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { RowFormat } from './row-slices.js';
import type { CodecName } from './parquet/format.js';
import { copySlice } from '../core/vector-ops.js';

export type HelperRequest = FormatRequest | CompressRequest;

export interface CompressRequest {
  readonly kind: 'compress';
  readonly id: number;
  readonly codec: CodecName;
  readonly level: number | null;
  /** Transferred: the caller gives it up. */
  readonly data: Uint8Array;
}

export interface FormatRequest {
  readonly kind: 'format';
  readonly id: number;
  readonly format: RowFormat;
  /** The result's first row is the slice's first (JSON: no comma before it). */
  readonly first: boolean;
  readonly types: readonly SqlType[];
  readonly columns: readonly ColumnVector[];
  readonly rows: number;
}

export type FormatReply =
  { readonly id: number; readonly bytes: Uint8Array } | { readonly id: number; readonly error: string };

/** One helper thread, started on first use, shared by every export of the process. */
export class FormatPool {
  #worker: Worker | null = null;
  #failed = false;
  #next = 1;
  readonly #waiting = new Map<number, { resolve(b: Buffer): void; reject(e: Error): void }>();

  /** A pool only where a second core can run it. */
  static forThisMachine(): FormatPool | null {
    return availableParallelism() > 1 ? new FormatPool() : null;
  }

  get usable(): boolean {
    return !this.#failed;
  }

  /** Rows [from, to) of `columns` in `format` (row-slices.ts writeRows). */
  format(
    format: RowFormat,
    types: readonly SqlType[],
    columns: readonly ColumnVector[],
    from: number,
    to: number,
    first: boolean,
  ): Promise<Buffer> {
    const w = this.#thread();
    if (w === null) return Promise.reject(new Error('no format thread'));
    const transfer: ArrayBuffer[] = [];
    const sliced = columns.map((c) => copySlice(c, from, to, transfer));
    return this.#send(
      w,
      { kind: 'format', id: this.#next++, format, first, types, columns: sliced, rows: to - from },
      transfer,
    );
  }

  /** `data` compressed with `codec` (codecs.ts pageCodec) on the helper thread; `data` is copied before this returns. */
  compress(codec: CodecName, level: number | null, data: Uint8Array): Promise<Buffer> {
    const w = this.#thread();
    if (w === null) return Promise.reject(new Error('no helper thread'));
    const owned = data.slice();
    return this.#send(w, { kind: 'compress', id: this.#next++, codec, level, data: owned }, [owned.buffer]);
  }

  #send(w: Worker, request: HelperRequest, transfer: ArrayBuffer[]): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      this.#waiting.set(request.id, { resolve, reject });
      if (this.#waiting.size === 1) w.ref();
      w.postMessage(request, transfer);
    });
  }

  async close(): Promise<void> {
    const w = this.#worker;
    this.#worker = null;
    this.#failed = true;
    if (w) await w.terminate();
  }

  #thread(): Worker | null {
    if (this.#worker !== null || this.#failed) return this.#worker;
    let w: Worker;
    try {
      w = new Worker(new URL('./format-worker.js', import.meta.url));
    } catch {
      this.#failed = true;
      return null;
    }
    w.unref();
    w.on('message', (m: FormatReply) => {
      const p = this.#waiting.get(m.id);
      if (!p) return;
      this.#waiting.delete(m.id);
      if (this.#waiting.size === 0) w.unref();
      if ('error' in m) p.reject(new Error(m.error));
      else p.resolve(Buffer.from(m.bytes.buffer, m.bytes.byteOffset, m.bytes.byteLength));
    });
    const fail = (e: Error): void => {
      this.#failed = true;
      this.#worker = null;
      for (const p of this.#waiting.values()) p.reject(e);
      this.#waiting.clear();
    };
    w.on('error', fail);
    w.on('exit', () => fail(new Error('format thread exited')));
    this.#worker = w;
    return w;
  }
}

let shared: FormatPool | null | undefined;

/**
 * The pool of the library's free-standing writers (batchesToParquet...), which
 * have no Database to own one: made on first use, idle threads never hold the
 * process open (null on one core). A Database owns its own (Database.formatPool).
 */
export function sharedFormatPool(): FormatPool | null {
  if (shared === undefined) shared = FormatPool.forThisMachine();
  return shared !== null && shared.usable ? shared : null;
}
