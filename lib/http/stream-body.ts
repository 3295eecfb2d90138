// Sending a generated body: the first chunk is pulled before the status line
// (so a query that fails at once still gets its 400), then the rest flows
// through stream.pipeline with backpressure, gzip-compressed when the client
// accepts it. A slow client slows the query instead of filling memory.
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants as zlibConstants, createGzip } from 'node:zlib';
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

export async function sendBody(
  ctx: RequestContext, headers: Record<string, string>, body: AsyncGenerator<Buffer>, signal: AbortSignal,
): Promise<void> {
  const first = await body.next();
  const gzip = acceptsGzip(ctx.req);
  const h: Record<string, string> = { ...headers, Vary: 'Accept-Encoding' };
  if (gzip) h['Content-Encoding'] = 'gzip';
  ctx.res.writeHead(200, h);
  async function* all(): AsyncGenerator<Buffer> {
    try {
      if (!first.done) yield first.value;
      yield* body;
    } finally {
      await body.return(undefined); // runs the query's finally blocks when the client went away
    }
  }
  // Two chunks in flight at most: memory per request stays at about 128 KiB whatever the result size.
  const source = Readable.from(all(), { highWaterMark: 2 });
  if (gzip) await pipeline(source, createGzip({ level: zlibConstants.Z_BEST_SPEED }), ctx.res, { signal });
  else await pipeline(source, ctx.res, { signal });
}
