// The helper thread of format-pool.ts: formats the rows it is sent with the
// same row writer as the main thread and sends the bytes back.
import { parentPort } from 'node:worker_threads';
import { ChunkWriter } from './chunk-writer.js';
import { rowWriters, writeRows } from './row-slices.js';
import type { ValueWriter } from './value-writers.js';
import type { FormatReply, FormatRequest } from './format-pool.js';

const writersByKey = new Map<string, ValueWriter[]>();
let bytesPerRow = 64;

parentPort!.on('message', (m: FormatRequest) => {
  let reply: FormatReply;
  const transfer: ArrayBuffer[] = [];
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
