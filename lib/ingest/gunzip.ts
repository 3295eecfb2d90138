// Imported bytes, gunzipped on the fly when they are gzip: the file name ends
// in .gz or the bytes start with gzip's magic number. Backpressure holds:
// the source is read only as fast as the decompressed bytes are consumed, so
// a small file that expands to gigabytes is never held (the importer's limits
// stop it). When the consumer stops early the source's iterator is returned
// (a caller that wants to drain the source itself passes one that does not
// destroy it).
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { importError } from './importer.js';

/** The bytes of `stream`, gunzipped when they start with gzip's magic bytes or the name ends in .gz. */
export async function* maybeGunzip(
  stream: Readable | AsyncIterable<Uint8Array>,
  fileName: string,
): AsyncGenerator<Uint8Array> {
  const it = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  try {
    const first = await it.next();
    if (first.done) return;
    const gz =
      /\.gz$/i.test(fileName) || (first.value.length >= 2 && first.value[0] === 0x1f && first.value[1] === 0x8b);
    if (!gz) {
      yield first.value;
      for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
      return;
    }
    yield* gunzipped(first.value, it);
  } finally {
    await it.return?.();
  }
}

async function* gunzipped(first: Buffer, it: AsyncIterator<Buffer>): AsyncGenerator<Uint8Array> {
  const gunzip = createGunzip();
  async function* compressed(): AsyncGenerator<Buffer> {
    yield first;
    for (let r = await it.next(); !r.done; r = await it.next()) yield r.value;
  }
  const feeding = pipeline(Readable.from(compressed()), gunzip).catch(() => undefined); // its errors surface on gunzip
  try {
    for await (const c of gunzip) yield c as Buffer;
  } catch (e) {
    throw importError(`the data is not valid gzip: ${(e as Error).message}`);
  } finally {
    gunzip.destroy();
    await feeding;
  }
}
