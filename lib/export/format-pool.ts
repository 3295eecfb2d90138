// The export's work on the worker pool (lib/workers/worker-pool.ts). CSV and
// JSON rows: turning values into text is most of an export's CPU, so whole
// slices of batches go to the pool's threads while this thread formats others,
// and their bytes go out in order (row-slices.ts). Rows of a slice are copied
// into transferable arrays (only the rows in the window; symbols with just the
// dictionary entries they use). Parquet pages: compressed there while this
// thread encodes the next row group (ZSTD at level 9 is most of a Parquet export).
import type { SqlType } from '../core/sql-type.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { RowFormat } from './row-slices.js';
import type { CodecName } from './parquet/format.js';
import { codedSlice, copySlice, type CodedTextSlice } from '../core/vector-ops.js';
import { sharedWorkerPool, taskKind, type WorkerPool } from '../workers/worker-pool.js';

export interface CompressRequest {
  readonly codec: CodecName;
  readonly level: number | null;
  /** Transferred (its whole buffer): the caller gives it up. */
  readonly data: Uint8Array<ArrayBuffer>;
}

/** A compressed page, and the page's buffer handed back for reuse. */
export interface CompressReply {
  readonly compressed: Uint8Array;
  readonly input: ArrayBuffer;
}

/** A compressed page (FormatPool.compress). */
export interface CompressedPage {
  readonly compressed: Buffer;
  /** The buffer of the page that was sent, free for the next page. */
  readonly input: ArrayBuffer;
}

export interface FormatRequest {
  readonly format: RowFormat;
  /** The result's first row is the slice's first (JSON: no comma before it). */
  readonly first: boolean;
  readonly types: readonly SqlType[];
  /** Text with few distinct values goes as its dictionary codes (format-worker.ts makes it a vector again). */
  readonly columns: readonly (ColumnVector | CodedTextSlice)[];
  readonly rows: number;
}

const TASKS = new URL('./format-worker.js', import.meta.url);
const FORMAT = taskKind<FormatRequest, Uint8Array>(TASKS, 'formatRows');
const COMPRESS = taskKind<CompressRequest, CompressReply>(TASKS, 'compressPage');

const asBuffer = (b: Uint8Array): Buffer => Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** An export's view of a worker pool: row formatting and page compression as its tasks. */
export class FormatPool {
  readonly #pool: WorkerPool;

  constructor(pool: WorkerPool) {
    this.#pool = pool;
  }

  /** False once the pool closed or failed: the export then does everything on its own thread. */
  get usable(): boolean {
    return this.#pool.usable;
  }

  /** The pool's helper threads (how many slices are worth handing out at once). */
  get threads(): number {
    return this.#pool.threads;
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
    const transfer: ArrayBuffer[] = [];
    // CSV writes a coded text column's entries once each (value-writers.ts); JSON reads the text.
    const coded = format.kind === 'csv';
    const sliced = columns.map(
      (c) => (coded ? codedSlice(c, from, to, transfer) : null) ?? copySlice(c, from, to, transfer),
    );
    return this.#pool.run(FORMAT, { format, first, types, columns: sliced, rows: to - from }, transfer).then(asBuffer);
  }

  /**
   * `data` compressed with `codec` (codecs.ts pageCodec) on a pool thread. Its buffer is
   * transferred there (the caller gives it up) and comes back with the result, for reuse.
   */
  compress(codec: CodecName, level: number | null, data: Uint8Array<ArrayBuffer>): Promise<CompressedPage> {
    return this.#pool
      .run(COMPRESS, { codec, level, data }, [data.buffer])
      .then((r) => ({ compressed: asBuffer(r.compressed), input: r.input }));
  }

  /** Closes the pool underneath. */
  close(): Promise<void> {
    return this.#pool.close();
  }
}

let shared: FormatPool | null = null;

/**
 * The export tasks of the library's free-standing writers (batchesToParquet...),
 * which have no Database to own a pool: on the process's shared pool (null on
 * one core). A Database's exports use its own (Database.formatPool).
 */
export function sharedFormatPool(): FormatPool | null {
  const pool = sharedWorkerPool();
  if (pool === null) return null;
  if (shared === null) shared = new FormatPool(pool);
  return shared;
}
