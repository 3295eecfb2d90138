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
import { typeInfo } from '../core/column-type.js';

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

export type FormatReply = { readonly id: number; readonly bytes: Uint8Array } | { readonly id: number; readonly error: string };

/** Dictionaries up to this many entries are sent whole; larger ones just with the entries a slice uses. */
const WHOLE_DICT = 1024;

/** Rows [from, to) of a vector as a vector of its own (copied), with the arrays to transfer. */
export function sliceVector(v: ColumnVector, from: number, to: number, transfer: ArrayBuffer[]): ColumnVector {
  switch (v.kind) {
    case 'fixed': {
      const w = typeInfo(v.type).stride;
      const data = v.data.slice(from * w, to * w);
      const exact = v.exact?.slice(2 * from, 2 * to);
      transfer.push(data.buffer as ArrayBuffer);
      if (exact) transfer.push(exact.buffer as ArrayBuffer);
      return exact ? { kind: 'fixed', type: v.type, data, exact } : { kind: 'fixed', type: v.type, data };
    }
    case 'symbol': {
      if (v.dict.length <= WHOLE_DICT) {
        // A small dictionary goes whole (cheaper to clone than to remap every key).
        const keys = v.keys.slice(from, to);
        transfer.push(keys.buffer);
        return { kind: 'symbol', type: 'SYMBOL', keys, dict: v.dict };
      }
      const keys = new Int32Array(to - from);
      const dict: string[] = [];
      const local = new Map<number, number>();
      for (let i = from; i < to; i++) {
        const k = v.keys[i]!;
        if (k < 0) { keys[i - from] = -1; continue; }
        let l = local.get(k);
        if (l === undefined) { l = dict.length; dict.push(v.dict[k]!); local.set(k, l); }
        keys[i - from] = l;
      }
      transfer.push(keys.buffer);
      return { kind: 'symbol', type: 'SYMBOL', keys, dict };
    }
    case 'var': {
      const base = v.offsets[from]!;
      const bytes = v.bytes.slice(base, v.offsets[to]!);
      const offsets = new Int32Array(to - from + 1);
      for (let i = from; i <= to; i++) offsets[i - from] = v.offsets[i]! - base;
      const nulls = v.nulls === null ? null : v.nulls.slice(from, to);
      transfer.push(bytes.buffer, offsets.buffer);
      if (nulls) transfer.push(nulls.buffer);
      return { kind: 'var', type: v.type, bytes, offsets, nulls };
    }
  }
}

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

  get usable(): boolean { return !this.#failed; }

  /** Rows [from, to) of `columns` in `format` (row-slices.ts writeRows). */
  format(format: RowFormat, types: readonly SqlType[], columns: readonly ColumnVector[], from: number, to: number, first: boolean): Promise<Buffer> {
    const w = this.#thread();
    if (w === null) return Promise.reject(new Error('no format thread'));
    const transfer: ArrayBuffer[] = [];
    const sliced = columns.map((c) => sliceVector(c, from, to, transfer));
    return this.#send(w, { kind: 'format', id: this.#next++, format, first, types, columns: sliced, rows: to - from }, transfer);
  }

  /** `data` compressed with `codec` (codecs.ts pageCodec) on the helper thread; `data` is copied before this returns. */
  compress(codec: CodecName, level: number | null, data: Uint8Array): Promise<Buffer> {
    const w = this.#thread();
    if (w === null) return Promise.reject(new Error('no helper thread'));
    const owned = data.slice();
    return this.#send(w, { kind: 'compress', id: this.#next++, codec, level, data: owned }, [owned.buffer as ArrayBuffer]);
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

/** The process's pool (null on one core). */
export function sharedFormatPool(): FormatPool | null {
  if (shared === undefined) shared = FormatPool.forThisMachine();
  return shared !== null && shared.usable ? shared : null;
}
