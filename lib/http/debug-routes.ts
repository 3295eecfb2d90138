// Test-only routes, served when http.debug.endpoints.enabled=true: they force
// the failures that operators' alerting and tests must see (an unhandled error,
// a critical log line, a full disk), hold a request open (graceful shutdown) or
// block the event loop (health server independence).
import { setTimeout as sleep } from 'node:timers/promises';
import { SvcError } from '../errors/svc-error.js';
import { enospc, setFsFault, setWriteFault } from '../storage/io.js';
import type { RequestContext, Route } from './router.js';

/** The `ms` parameter: milliseconds from 0 to `max`, default 1000. */
function msParam(ctx: RequestContext, max: number): number {
  const ms = Number(ctx.url.searchParams.get('ms') ?? '1000');
  if (!Number.isFinite(ms) || ms < 0 || ms > max) throw new SvcError('BAD_REQUEST', `invalid ms [expected 0..${max}]`);
  return ms;
}

export const debugRoutes: readonly Route[] = [
  {
    endpoint: 'debug.fault',
    paths: ['/debug/fault'],
    methods: {
      GET: async (ctx) => {
        const kind = ctx.url.searchParams.get('kind') ?? 'throw';
        const message = ctx.url.searchParams.get('message') ?? 'forced fault';
        switch (kind) {
          case 'throw':
            throw new Error(message);
          case 'reject':
            await Promise.resolve();
            throw new Error(message);
          case 'critical': {
            ctx.log.critical(message);
            ctx.res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"logged":"critical"}');
            return;
          }
          case 'disk-full': {
            // Until kind=disk-ok, every storage write and folder creation fails as on a full disk
            // (renames still work, as they mostly do there).
            setWriteFault((path) => {
              throw enospc(path);
            });
            setFsFault((op, path) => {
              if (op === 'mkdir') throw enospc(path, 'mkdir');
            });
            ctx.res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"disk":"full"}');
            return;
          }
          case 'disk-ok': {
            setWriteFault(null);
            setFsFault(null);
            ctx.res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"disk":"ok"}');
            return;
          }
          default:
            throw new SvcError(
              'BAD_REQUEST',
              `invalid kind [kind=${kind}, expected throw, reject, critical, disk-full or disk-ok]`,
            );
        }
      },
    },
  },
  {
    // Blocks the main event loop, as a long synchronous computation would.
    endpoint: 'debug.block',
    paths: ['/debug/block'],
    methods: {
      GET: async (ctx) => {
        const ms = msParam(ctx, 60_000);
        // Headers first, so a client knows the block has begun.
        ctx.res.writeHead(200, { 'Content-Type': 'text/plain' });
        ctx.res.write('blocking\n');
        await new Promise((r) => setImmediate(r));
        const until = Date.now() + ms;
        while (Date.now() < until) {
          /* busy on purpose */
        }
        ctx.res.end('unblocked\n');
      },
    },
  },
  {
    endpoint: 'debug.sleep',
    paths: ['/debug/sleep'],
    methods: {
      GET: async (ctx) => {
        const ms = msParam(ctx, 600_000);
        ctx.res.writeHead(200, { 'Content-Type': 'text/plain' });
        ctx.res.write('sleeping\n');
        try {
          await sleep(ms, undefined, { signal: ctx.signal });
          ctx.res.end('done\n');
        } catch {
          ctx.res.end('aborted\n');
        }
      },
    },
  },
];
