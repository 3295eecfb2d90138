// The helper thread of format-pool.ts: formats the rows it is sent with the
// same value writers as the main thread and sends the bytes back.
import { parentPort } from 'node:worker_threads';
import { ChunkWriter } from './chunk-writer.js';
import { csvValueWriter, type ValueWriter } from './value-writers.js';
import type { FormatReply, FormatRequest } from './format-pool.js';

const writersByTypes = new Map<string, ValueWriter[]>();
let bytesPerRow = 64;

parentPort!.on('message', (m: FormatRequest) => {
  let reply: FormatReply;
  const transfer: ArrayBuffer[] = [];
  try {
    const key = m.types.join(',');
    let writers = writersByTypes.get(key);
    if (!writers) {
      writers = m.types.map((t) => csvValueWriter(t));
      writersByTypes.set(key, writers);
    }
    const w = new ChunkWriter();
    w.ensure(Math.ceil(m.rows * bytesPerRow * 1.25)); // no regrowth copies

    const cols = m.columns;
    const width = writers.length;
    for (let i = 0; i < m.rows; i++) {
      for (let c = 0; c < width; c++) {
        if (c > 0) w.byte(44);
        writers[c]!(w, cols[c]!, i);
      }
      w.byte(10);
    }
    const bytes = w.take();
    if (m.rows > 0) bytesPerRow = bytes.length / m.rows;
    transfer.push(bytes.buffer as ArrayBuffer);
    reply = { id: m.id, bytes };
  } catch (e) {
    reply = { id: m.id, error: e instanceof Error ? e.message : String(e) };
  }
  parentPort!.postMessage(reply, transfer);
});
