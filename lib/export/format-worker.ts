// The export's tasks for the worker pool (lib/workers/worker-pool.ts), run in
// its threads: rows formatted with the same row writer as the main thread, or
// a Parquet page compressed with the same codec; the bytes go back transferred.
import { ChunkWriter } from './chunk-writer.js';
import { rowWriters, writeRows } from './row-slices.js';
import type { ValueWriter } from './value-writers.js';
import type { CompressReply, CompressRequest, FormatRequest } from './format-pool.js';
import { pageCodec, type PageCodec } from './parquet/codecs.js';
import type { TaskOutput } from '../workers/worker-pool.js';
import { textOfCodes } from '../core/vector-ops.js';

const writersByKey = new Map<string, ValueWriter[]>();
let bytesPerRow = 64;

const codecs = new Map<string, PageCodec>();

/** A Parquet page compressed (FormatPool.compress); the page's buffer goes back with it. */
export function compressPage(m: CompressRequest): TaskOutput<CompressReply> {
  const key = `${m.codec}:${m.level}`;
  let c = codecs.get(key);
  if (!c) {
    c = pageCodec(m.codec, m.level);
    codecs.set(key, c);
  }
  // Transferred when the page has a buffer of its own; else a copy (a small Buffer lives in Node's shared pool).
  const out = c.compress(m.data);
  const own =
    out.byteOffset === 0 && out.buffer instanceof ArrayBuffer && out.buffer.byteLength === out.length
      ? new Uint8Array(out.buffer)
      : new Uint8Array(out);
  const input = m.data.buffer;
  return { value: { compressed: own, input }, transfer: [own.buffer, input] };
}

/** Rows formatted (FormatPool.format). */
export function formatRows(m: FormatRequest): TaskOutput<Uint8Array> {
  const key = `${JSON.stringify(m.format)}:${m.types.join(',')}`;
  let writers = writersByKey.get(key);
  if (!writers) {
    writers = rowWriters(m.format, m.types);
    if (writersByKey.size >= 64) writersByKey.clear(); // many different results over time: start over
    writersByKey.set(key, writers);
  }
  const w = new ChunkWriter();
  w.ensure(Math.ceil(m.rows * bytesPerRow * 1.25)); // no regrowth copies
  const columns = m.columns.map((c) => (c.kind === 'coded' ? textOfCodes(c) : c));
  writeRows(w, m.format, writers, columns, 0, m.rows, m.first, false);
  const bytes = w.take();
  if (m.rows > 0) bytesPerRow = bytes.length / m.rows;
  return { value: bytes, transfer: [bytes.buffer as ArrayBuffer] };
}
