// The /exp Parquet body: an async generator of Buffer chunks over the query's
// batches. Rows are gathered into one row group at a time (at most
// row_group_size rows, never two partition_by periods of the designated
// timestamp), encoded, their pages compressed (on the pool's threads while the
// next row group is gathered, and on this thread while it waits for them:
// page-queue.ts), yielded in order, bloom filters after their row group, and
// the footer ends the file. Memory is bounded by two row groups whatever the
// result size (three while the ones compressing hold under 32 MiB of pages).
import { SvcError } from '../../errors/svc-error.js';
import type { Field, Plan } from '../../sql/bound.js';
import { partitionCeil, partitionFloor, type PartitionBy } from '../../storage/partition-by.js';
import type { Batch } from '../../core/batch.js';
import { VERSION } from '../../version.js';
import { windowRows, type RowStats, type RowWindow } from '../row-window.js';
import { pageCodec, type PageCodec } from './codecs.js';
import { finishChunk, planChunk, type ChunkPlan } from './column-chunk.js';
import { ChunkValues } from './column-values.js';
import { PageQueue, type PagePool } from './page-queue.js';
import { writeFileMetaData, type ColumnChunkMeta, type RowGroupMeta } from './format.js';
import type { ParquetOptions } from './options.js';
import { columnSpec, type ColumnSpec } from './schema.js';

const MAGIC = Buffer.from('PAR1', 'latin1');
/**
 * Codecs whose pages go to the helper thread: the slow ones. SNAPPY and the LZ4s compress at GB/s,
 * so handing their pages over (a copy each way, and starting the thread) costs more than it saves.
 */
const OFFLOADED: ReadonlySet<string> = new Set(['ZSTD', 'GZIP', 'BROTLI', 'LZO']);

/** What a query's export needs, checked against its columns before any byte is sent. */
export interface ParquetPlan {
  readonly fields: readonly Field[];
  readonly specs: readonly ColumnSpec[];
  /** Per column: gets a bloom filter. */
  readonly bloom: readonly boolean[];
  /** Designated timestamp column, or -1. */
  readonly timestamp: number;
  /** Effective partitioning: NONE without a designated timestamp. */
  readonly partitionBy: PartitionBy;
  readonly codec: PageCodec;
  readonly options: ParquetOptions;
  readonly keyValues: ReadonlyArray<readonly [string, string]>;
}

/** The single table a plan reads, or null (several tables, or none). */
export function sourceTable(plan: Plan): string | null {
  const tables = new Set<string>();
  const walk = (p: Plan): void => {
    switch (p.kind) {
      case 'scan':
        tables.add(p.table);
        return;
      case 'oneRow':
      case 'longSequence':
      case 'metadata':
      case 'parquetScan':
      case 'input':
        return;
      case 'join':
      case 'setOp':
      case 'asofJoin':
        walk(p.left);
        walk(p.right);
        return;
      case 'windowJoin':
      case 'horizonJoin':
        walk(p.left);
        for (const j of p.joins) walk(j.right);
        return;
      default:
        walk(p.input);
    }
  };
  walk(plan);
  return tables.size === 1 ? [...tables][0]! : null;
}

/** Checks the options against the result's columns (400 naming the parameter) and loads the codec. */
export function planParquet(
  fields: readonly Field[],
  timestamp: number,
  table: string | null,
  options: ParquetOptions,
): ParquetPlan {
  const specs = fields.map(columnSpec);
  const bloom = fields.map(() => false);
  for (const name of options.bloomColumns) {
    const i = fields.findIndex((f) => f.name.toLowerCase() === name.toLowerCase());
    if (i < 0)
      throw new SvcError(
        'BAD_REQUEST',
        `invalid value for parameter bloom_filter_columns: ${name} is not a column of the result`,
      );
    if (fields[i]!.type === 'BOOLEAN')
      throw new SvcError(
        'BAD_REQUEST',
        `invalid value for parameter bloom_filter_columns: ${name} is BOOLEAN, which has no bloom filter`,
      );
    bloom[i] = true;
  }
  const codec = pageCodec(options.codec, options.level);
  const keyValues: [string, string][] = [];
  if (table !== null) keyValues.push(['svcdb.table_name', table]);
  if (timestamp >= 0) keyValues.push(['svcdb.designated_timestamp', fields[timestamp]!.name]);
  keyValues.push(['svcdb.column_types', JSON.stringify(fields.map((f) => f.type))]);
  return {
    fields,
    specs,
    bloom,
    timestamp,
    codec,
    options,
    keyValues,
    partitionBy: timestamp >= 0 ? options.partitionBy : 'NONE',
  };
}

/** Row groups whose pages may still be compressing while the next is gathered. */
const AHEAD = 2;
/** Past this many bytes of pages in flight, one row group only: large row groups keep memory at two of them. */
const AHEAD_BYTES = 32 * 1024 * 1024;

/** Parts at least this large go out as they are; smaller ones (page headers, levels, small pages) are joined. */
const OWN_CHUNK_BYTES = 64 * 1024;

/** `parts` in order as fewer buffers: runs of small parts joined, large ones (page bodies) not copied. */
function* coalesced(parts: readonly Buffer[]): Generator<Buffer> {
  let from = 0;
  for (let i = 0; i < parts.length; i++) {
    if (parts[i]!.length < OWN_CHUNK_BYTES) continue;
    if (i > from) yield from + 1 === i ? parts[from]! : Buffer.concat(parts.slice(from, i));
    yield parts[i]!;
    from = i + 1;
  }
  if (parts.length > from) yield from + 1 === parts.length ? parts[from]! : Buffer.concat(parts.slice(from));
}

function placed(m: ColumnChunkMeta, at: number): ColumnChunkMeta {
  return {
    ...m,
    dataPageOffset: m.dataPageOffset + at,
    dictionaryPageOffset: m.dictionaryPageOffset === undefined ? undefined : m.dictionaryPageOffset + at,
  };
}

/**
 * The Parquet file of `rows`, in chunks; `stats` counts the rows sent. With a
 * helper thread (`pool`), a row group's pages are compressed there while this
 * thread gathers and encodes the next one; the bytes go out in order.
 */
export async function* parquetBody(
  plan: ParquetPlan,
  rows: AsyncIterable<Batch>,
  window: RowWindow | null,
  stats: RowStats,
  pool: PagePool | null = null,
): AsyncGenerator<Buffer> {
  const { specs, options } = plan;
  const rgSize = options.rowGroupSize;
  const cols = specs.map((s) => new ChunkValues(s.kind, s.width, Math.min(rgSize, 1 << 16)));
  const chunkOpts = specs.map((_, c) => ({
    version: options.version,
    codecName: plan.codec.name,
    dataPageSize: options.dataPageSize,
    statistics: options.statistics,
    bloomFpp: plan.bloom[c] ? options.bloomFpp : null,
    probe: OFFLOADED.has(plan.codec.name),
  }));
  const queue = new PageQueue(plan.codec, options.level, OFFLOADED.has(plan.codec.name) ? pool : null);
  // The queue copies the page before it returns, as planChunk needs.
  const compress = (raw: Uint8Array): Buffer | Promise<Buffer> => queue.compress(raw);
  const rowGroups: RowGroupMeta[] = [];
  let pos = 0;
  let totalRows = 0;
  let pending: Buffer | null = MAGIC; // the magic goes out with the first row group: errors before it still get a 400

  interface RowGroupWork {
    readonly rows: number;
    readonly chunks: readonly ChunkPlan[];
    readonly bodies: Promise<Buffer[][]>;
    /** Every page compressed: it can go out without waiting. */
    done: boolean;
    /** Its pages' bytes before compression. */
    readonly bytes: number;
  }

  /** The gathered rows encoded up to compression, which starts now; the gatherers are free again. */
  function encode(): RowGroupWork | null {
    const n = cols[0]?.rows ?? 0;
    if (n === 0 && specs.length > 0) return null;
    const chunks = specs.map((s, c) => planChunk(s, cols[c]!, chunkOpts[c]!, compress));
    for (const c of cols) c.reset();
    // A body is a Buffer or, while compressing, a Promise of one: Promise.all takes both.
    // eslint-disable-next-line @typescript-eslint/await-thenable
    const bodies = Promise.all(chunks.map((ch) => Promise.all(ch.pages.map((p) => p.body))));
    // Pages compressed here already (no pool, a fast codec, small pages): done now.
    const done = chunks.every((ch) => ch.pages.every((p) => Buffer.isBuffer(p.body)));
    let bytes = 0;
    for (const ch of chunks) for (const p of ch.pages) bytes += p.header.uncompressed;
    const work: RowGroupWork = { rows: n, chunks, bodies, done, bytes };
    // Awaited in order later (a failure surfaces there).
    bodies.then(
      () => (work.done = true),
      () => undefined,
    );
    return work;
  }

  /** A row group's bytes, its bloom filters after it, in file order. */
  function* emit(work: RowGroupWork, bodies: Buffer[][]): Generator<Buffer> {
    if (pending !== null) {
      pos += pending.length;
    }
    const start = pos;
    const metas: ColumnChunkMeta[] = [];
    const blooms: (Buffer | null)[] = [];
    let uncompressed = 0;
    for (let c = 0; c < specs.length; c++) {
      const enc = finishChunk(work.chunks[c]!, bodies[c]!);
      metas.push(placed(enc.meta, pos));
      blooms.push(enc.bloom);
      uncompressed += enc.meta.totalUncompressed;
      pos += enc.byteLength;
      const parts = pending === null ? enc.parts : [pending, ...enc.parts];
      pending = null;
      yield* coalesced(parts);
    }
    // Bloom filters after their row group (the spec allows them between row groups): memory stays per row group.
    const bloomParts: Buffer[] = [];
    blooms.forEach((b, c) => {
      if (b === null) return;
      metas[c]!.bloomOffset = pos;
      metas[c]!.bloomLength = b.length;
      pos += b.length;
      bloomParts.push(b);
    });
    if (bloomParts.length > 0) yield Buffer.concat(bloomParts);
    rowGroups.push({
      columns: metas,
      numRows: work.rows,
      totalByteSize: uncompressed,
      totalCompressed: metas.reduce((s, m) => s + m.totalCompressed, 0),
      fileOffset: start,
    });
    totalRows += work.rows;
  }

  // Row groups encoded and not yet sent, oldest first: up to AHEAD compress while the next is
  // gathered (one only once they hold AHEAD_BYTES), so this thread waits for the pool only when
  // it is that far ahead (it compresses queued pages meanwhile). A row group whose pages are all
  // done goes out at once.
  const inFlight: RowGroupWork[] = [];
  let inFlightBytes = 0;
  async function* sendReady(ahead: number): AsyncGenerator<Buffer> {
    while (
      inFlight.length > 0 &&
      (inFlight.length > ahead || inFlight[0]!.done || (inFlight.length > 1 && inFlightBytes > AHEAD_BYTES))
    ) {
      const work = inFlight.shift()!;
      inFlightBytes -= work.bytes;
      yield* emit(work, work.done ? await work.bodies : await queue.finish(work.bodies));
    }
  }
  async function* flush(): AsyncGenerator<Buffer> {
    const next = encode();
    if (next !== null) {
      inFlight.push(next);
      inFlightBytes += next.bytes;
    }
    yield* sendReady(AHEAD);
  }

  const part = plan.partitionBy;
  const tsCol = plan.timestamp;
  let periodFrom = 0,
    periodTo = Infinity;
  try {
    // Each slice's rows are gathered before the next is asked for: text taken by its codes is never read.
    for await (const [b, from, to] of windowRows(rows, window, false, stats, true)) {
      let i = from;
      while (i < to) {
        const have = cols[0]?.rows ?? 0;
        let end = Math.min(to, i + (rgSize - have));
        let boundary = false;
        if (part !== 'NONE') {
          const ts = (b.columns[tsCol] as { data: Float64Array }).data;
          if (have === 0) {
            periodFrom = partitionFloor(part, ts[i]!);
            periodTo = partitionCeil(part, periodFrom);
          }
          let j = i;
          while (j < end) {
            const t = ts[j]!;
            if (t < periodFrom || t >= periodTo) break;
            j++;
          }
          if (j < end) {
            end = j;
            boundary = true;
          }
        }
        if (end > i) for (let c = 0; c < specs.length; c++) specs[c]!.gather(cols[c]!, b.columns[c]!, i, end);
        i = end;
        if ((cols[0]?.rows ?? 0) >= rgSize || boundary) yield* flush();
      }
    }
    const last = encode();
    if (last !== null) {
      inFlight.push(last);
      inFlightBytes += last.bytes;
    }
    yield* sendReady(0);
  } finally {
    queue.close(); // an export that ends early (an error, a client gone) leaves no page to compress
  }
  const footer = writeFileMetaData({
    version: options.version,
    columns: specs.map((s) => s.schema),
    numRows: totalRows,
    rowGroups,
    keyValues: plan.keyValues,
    createdBy: `svcdb version ${VERSION}`,
  });
  const tail = Buffer.alloc(8);
  tail.writeInt32LE(footer.length, 0);
  MAGIC.copy(tail, 4);
  yield Buffer.concat(pending === null ? [footer, tail] : [pending, footer, tail]);
}
