// read_parquet's rows: the file opened again at execution, its footer checked
// against the bound columns, then one row group at a time (hyparquet's lazy
// column scan reads only the plan's columns) converted to vectors and handed
// on in batches, the group's bytes charged to the statement's budget while held.
import { open, type FileHandle } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { parquetMetadataAsync, parquetScan, type AsyncBuffer, type Compressors } from 'hyparquet';
import type { Batch } from '../core/batch.js';
import { sliceBatches } from '../core/vector-ops.js';
import { SvcError, errorMessage } from '../errors/svc-error.js';
import type { Plan } from '../sql/bound.js';
import { holding, pace, vectorBytes, type ExecContext, type Held } from './context.js';
import { RAW_PARSERS, ioError, parquetColumns, readError } from './parquet-file.js';
import { lzoPackage } from './lzo-package.js';
import { toVector, type Decoded } from './parquet-vectors.js';

type ParquetScanPlan = Extract<Plan, { kind: 'parquetScan' }>;

export function runParquetScan(plan: ParquetScanPlan, cx: ExecContext): AsyncGenerator<Batch> {
  return holding(cx.budget, 'read_parquet', (held) => scan(plan, cx, held));
}

async function* scan(plan: ParquetScanPlan, cx: ExecContext, held: Held): AsyncGenerator<Batch> {
  let fh: FileHandle;
  try {
    fh = await open(plan.file, 'r');
  } catch (e) {
    throw ioError(e, `could not open read-only [file=${plan.file}]`, plan.pos);
  }
  // Anything the library or a conversion throws names the file, at the argument.
  const failed = (e: unknown): unknown =>
    e instanceof SvcError || cx.signal.aborted ? e : readError(plan.path, plan.pos, errorMessage(e), e);
  try {
    const file = fileBuffer(fh, (await fh.stat()).size);
    const names = plan.columns.map((c) => c.name);
    let reader: Awaited<ReturnType<typeof parquetScan>>;
    try {
      const metadata = await parquetMetadataAsync(file, { parsers: RAW_PARSERS, geoparquet: false });
      checkColumns(plan, parquetColumns(metadata));
      reader = await parquetScan({
        file,
        metadata,
        columns: names,
        compressors: await pageCompressors(),
        utf8: false,
        parsers: RAW_PARSERS,
        geoparquet: false,
      });
    } catch (e) {
      throw failed(e);
    }
    const groups = reader.metadata.row_groups;
    let groupStart = 0;
    for (const group of groups) {
      const rowStart = groupStart;
      const rows = Number(group.num_rows);
      groupStart += rows;
      if (rows === 0) continue;
      // What decoding the group holds at once: its chunks' bytes, and a slot per value.
      let estimate = rows * 16 * names.length;
      for (const c of group.columns) {
        if (c.meta_data && names.includes(c.meta_data.path_in_schema[0]!))
          estimate += Number(c.meta_data.total_uncompressed_size);
      }
      held.set(estimate);
      const columns = [];
      for (const col of plan.columns) {
        await pace(cx);
        let values: Decoded;
        try {
          values = await reader.readColumn({ column: col.name, rowStart, rowEnd: rowStart + rows });
          if (values.length !== rows) throw new Error(`column ${col.name} has ${values.length} rows, not ${rows}`);
          columns.push(toVector(col, values));
        } catch (e) {
          throw failed(e);
        }
      }
      held.set(estimate + columns.reduce((s, v) => s + vectorBytes(v), 0));
      for (const b of sliceBatches({ rowCount: rows, columns }, 0, rows)) {
        await pace(cx);
        yield b;
      }
    }
  } finally {
    await fh.close();
  }
}

/** hyparquet's file: positioned reads of the open file, each into its own ArrayBuffer. */
function fileBuffer(fh: FileHandle, size: number): AsyncBuffer {
  return {
    byteLength: size,
    async slice(start: number, end = size): Promise<ArrayBuffer> {
      const out = new Uint8Array(Math.max(0, end - start));
      let done = 0;
      while (done < out.length) {
        const { bytesRead } = await fh.read(out, done, out.length - done, start + done);
        if (bytesRead === 0) throw new Error('unexpected end of file');
        done += bytesRead;
      }
      return out.buffer;
    },
  };
}

/** The file changed between compiling and running the statement: its columns must still be those bound. */
function checkColumns(plan: ParquetScanPlan, now: ReturnType<typeof parquetColumns>): void {
  for (const c of plan.columns) {
    const at = now.find((x) => x.name === c.name);
    if (at === undefined || at.type !== c.type || at.conversion !== c.conversion)
      throw new Error(`the file changed since the statement was compiled [column=${c.name}]`);
  }
}

const require = createRequire(import.meta.url);

/** zstd-napi's decompress, or null when the native package cannot load (hyparquet-compressors' fzstd then). */
function nativeZstd(): ((data: Uint8Array) => Uint8Array) | null {
  try {
    return (require('zstd-napi') as { decompress(data: Uint8Array): Uint8Array }).decompress;
  } catch {
    // Pure JavaScript instead: slower, same bytes.
    return null;
  }
}

/** LZO pages in Hadoop's framing (big-endian uncompressed and compressed lengths per block), as svcdb writes them. */
function lzoHadoop(input: Uint8Array, outputLength: number): Uint8Array {
  const lzo = lzoPackage(); // absent: read_parquet fails naming the file and why
  const b = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const out = Buffer.alloc(outputLength);
  let p = 0,
    o = 0;
  while (p + 8 <= b.length && o < outputLength) {
    const ulen = b.readUInt32BE(p);
    const clen = b.readUInt32BE(p + 4);
    p += 8;
    o += lzo.decompress(b.subarray(p, p + clen), ulen).copy(out, o);
    p += clen;
  }
  return out;
}

/**
 * Page decompressors: node:zlib for GZIP and BROTLI and zstd-napi for ZSTD (native, as svcdb's
 * writer compresses), hyparquet-compressors (pure JavaScript) for SNAPPY, LZ4 and LZ4_RAW, the optional lzo for LZO.
 * Loaded at the first read_parquet: hyparquet-compressors instantiates WebAssembly when it loads,
 * which a server under an address-space cap must not pay for at start.
 */
let compressors: Promise<Compressors> | null = null;

function pageCompressors(): Promise<Compressors> {
  compressors ??= import('hyparquet-compressors').then(({ compressors: pure }) => {
    const zstd = nativeZstd();
    return {
      ...pure,
      GZIP: (input: Uint8Array) => gunzipSync(input),
      BROTLI: (input: Uint8Array) => brotliDecompressSync(input),
      ...(zstd !== null ? { ZSTD: (input: Uint8Array) => zstd(input) } : {}),
      LZO: lzoHadoop,
    };
  });
  // A failed load (no memory for the WebAssembly) fails this statement; the next one tries again.
  compressors.catch(() => (compressors = null));
  return compressors;
}
