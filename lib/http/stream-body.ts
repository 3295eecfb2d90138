// Sending a generated body: the first chunk is pulled before the status line
// (so a query that fails at once still gets its 400), then the rest flows
// through stream.pipeline with backpressure, gzip-compressed when the client
// accepts it. A slow client slows the query instead of filling memory.
// A body of one chunk (most queries: up to 64 KiB) skips the stream
// machinery and goes out in one write with its Content-Length.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants as zlibConstants, createGzip, gzipSync } from 'node:zlib';
import type { RequestContext } from './router.js';

export function acceptsGzip(req: IncomingMessage): boolean {
  const ae = req.headers['accept-encoding'];
  if (typeof ae !== 'string') return false;
  return ae.split(',').some((part) => {
    const [name, ...params] = part.trim().split(';');
    if (name?.trim().toLowerCase() !== 'gzip') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** Smaller single-chunk bodies are sent as they are: gzip would save little and cost a compressor. */
const MIN_GZIP = 1024;

export async function sendBody(
  ctx: RequestContext,
  headers: Record<string, string>,
  body: AsyncGenerator<Buffer>,
  signal: AbortSignal,
  opts: { compressible?: boolean } = {},
): Promise<void> {
  const first = await body.next();
  // A body compressed already (Parquet pages) would only grow and cost CPU.
  const gzip = opts.compressible !== false && acceptsGzip(ctx.req);
  const h: Record<string, string> = { ...headers, Vary: 'Accept-Encoding' };
  const second = first.done ? first : await body.next();
  if (second.done) {
    let buf = first.done ? Buffer.alloc(0) : first.value;
    if (gzip && buf.length >= MIN_GZIP) {
      buf = gzipSync(buf, { level: zlibConstants.Z_BEST_SPEED });
      h['Content-Encoding'] = 'gzip';
    }
    h['Content-Length'] = String(buf.length);
    ctx.res.writeHead(200, h);
    ctx.res.end(buf);
    return;
  }
  if (gzip) h['Content-Encoding'] = 'gzip';
  ctx.res.writeHead(200, h);
  async function* all(): AsyncGenerator<Buffer> {
    try {
      if (!first.done) yield first.value;
      yield second.value;
      yield* body;
    } finally {
      await body.return(undefined); // runs the query's finally blocks when the client went away
    }
  }
  // Eight chunks ahead of the socket at most (CSV and JSON chunks are 64 KiB, Parquet's its pages): the
  // body is made while the client reads, and memory per request stays bounded whatever the result size.
  const source = Readable.from(all(), { highWaterMark: 8 });
  if (gzip) await pipeline(source, createGzip({ level: zlibConstants.Z_BEST_SPEED }), ctx.res, { signal });
  else await pipeline(source, ctx.res, { signal });
}
