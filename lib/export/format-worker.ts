// The helper thread of format-pool.ts: formats the rows it is sent with the
// same row writer as the main thread, or compresses a Parquet page with the
// same codec, and sends the bytes back.
import { parentPort } from 'node:worker_threads';
import { ChunkWriter } from './chunk-writer.js';
import { rowWriters, writeRows } from './row-slices.js';
import type { ValueWriter } from './value-writers.js';
import type { FormatReply, HelperRequest } from './format-pool.js';
import { pageCodec, type PageCodec } from './parquet/codecs.js';

const writersByKey = new Map<string, ValueWriter[]>();
let bytesPerRow = 64;

const codecs = new Map<string, PageCodec>();

function compress(m: Extract<HelperRequest, { kind: 'compress' }>): Buffer {
  const key = `${m.codec}:${m.level}`;
  let c = codecs.get(key);
  if (!c) {
    c = pageCodec(m.codec, m.level);
    codecs.set(key, c);
  }
  return c.compress(m.data);
}

parentPort!.on('message', (m: HelperRequest) => {
  let reply: FormatReply;
  const transfer: ArrayBuffer[] = [];
  if (m.kind === 'compress') {
    try {
      // A copy of its own: a codec's buffer may live in memory that cannot be transferred.
      const own = new Uint8Array(compress(m));
      reply = { id: m.id, bytes: own };
      transfer.push(own.buffer);
    } catch (e) {
      reply = { id: m.id, error: e instanceof Error ? e.message : String(e) };
    }
    parentPort!.postMessage(reply, transfer);
    return;
  }
  try {
    const key = `${JSON.stringify(m.format)}:${m.types.join(',')}`;
    let writers = writersByKey.get(key);
    if (!writers) {
      writers = rowWriters(m.format, m.types);
      if (writersByKey.size >= 64) writersByKey.clear(); // many different results over time: start over
      writersByKey.set(key, writers);
    }
    const w = new ChunkWriter();
    w.ensure(Math.ceil(m.rows * bytesPerRow * 1.25)); // no regrowth copies
    writeRows(w, m.format, writers, m.columns, 0, m.rows, m.first, false);
    const bytes = w.take();
    if (m.rows > 0) bytesPerRow = bytes.length / m.rows;
    transfer.push(bytes.buffer as ArrayBuffer);
    reply = { id: m.id, bytes };
  } catch (e) {
    reply = { id: m.id, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(reply, transfer);
});
