// The main HTTP server (port 9000): authentication, routing, per-request abort
// signal, metrics and the error mapper around every handler. Handlers for SQL,
// export and import plug into its Router.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostPort } from '../config/value-types.js';
import { SvcError } from '../errors/svc-error.js';
import type { Logger } from '../log/log-manager.js';
import type { Metrics } from '../metrics/metrics.js';
import { WWW_AUTHENTICATE, type BasicAuth } from '../net/basic-auth.js';
import { reportError, sendError } from './error-response.js';
import { closeGracefully, listen } from '../net/listen.js';
import { answeredEarly } from '../net/lingering-close.js';
import { checkHead, guardRequestHeads, parserLimit, type HeadLimits } from '../net/request-head.js';
import type { RequestContext, Router } from './router.js';

export interface MainServerOptions {
  readonly router: Router;
  readonly auth: BasicAuth | null;
  readonly log: Logger;
  readonly metrics: Metrics;
}

/**
 * The request head: a URL (path and query string) may hold a long query, up to
 * 64 KiB of it; header fields get Node's usual 16 KiB. Past them: 414, 431.
 */
export const HEAD_LIMITS: HeadLimits = { maxUrl: 64 * 1024, maxHeaders: 16 * 1024 };

export class MainServer {
  readonly #opts: MainServerOptions;
  readonly #server: Server;
  /** One controller per in-flight request, aborted on shutdown past the grace period. */
  readonly #inFlight = new Set<AbortController>();
  /** Answered requests whose bodies are still being read and dropped (lingering close): cut at once on stop. */
  readonly #lingering = new Set<ServerResponse>();
  #address: AddressInfo | null = null;

  constructor(opts: MainServerOptions) {
    this.#opts = opts;
    this.#server = createServer({ keepAlive: true, maxHeaderSize: parserLimit(HEAD_LIMITS) }, (req, res) => {
      void this.#handle(req, res);
    });
    // Malformed or oversize HTTP: a status and a JSON error from request-head.ts, logged at info, never counted as unhandled.
    guardRequestHeads(this.#server, HEAD_LIMITS, (message) => opts.log.info(message));
  }

  get address(): AddressInfo {
    if (!this.#address) throw new Error('main server is not listening');
    return this.#address;
  }

  async start(at: HostPort): Promise<AddressInfo> {
    this.#address = await listen(this.#server, at);
    return this.#address;
  }

  async stop(graceMs: number): Promise<void> {
    // They have their answers; the rest of their bodies is not worth the wait.
    for (const res of this.#lingering) res.destroy();
    await closeGracefully(this.#server, graceMs, () => {
      for (const c of this.#inFlight) c.abort(new SvcError('UNAVAILABLE', 'server is shutting down'));
    });
  }

  async #handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const { router, auth, log, metrics } = this.#opts;
    const started = process.hrtime.bigint();
    const controller = new AbortController();
    this.#inFlight.add(controller);
    const onClose = (): void => {
      if (!res.writableFinished) controller.abort(new SvcError('BAD_REQUEST', 'client disconnected'));
    };
    res.once('close', onClose);
    const method = req.method ?? 'GET';
    let path = '/';
    let endpoint = 'other';
    const stats = { rows: 0, bytes: 0 };
    let ctx: RequestContext | null = null;
    try {
      const tooLarge = checkHead(req, HEAD_LIMITS);
      if (tooLarge) throw tooLarge;
      const url = requestUrl(req);
      path = url.pathname;
      endpoint = router.endpointOf(path);
      if (auth && !auth.check(req.headers.authorization)) {
        throw new SvcError('UNAUTHORIZED', 'unauthorized', { headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } });
      }
      const resolved = router.resolve(method, path);
      if (resolved instanceof SvcError) throw resolved;
      ctx = {
        req,
        res,
        url,
        signal: controller.signal,
        log,
        stats,
        report: (e) => reportError(log, metrics, `${method} ${path}`, e),
      };
      await resolved.handler(ctx);
    } catch (err) {
      sendError({ res, log, metrics, what: `${method} ${path}`, query: ctx?.errorQuery }, err);
    } finally {
      res.off('close', onClose);
      this.#inFlight.delete(controller);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = String(res.statusCode);
      // An answer given before the request's body arrived is whole although the response still drains that body.
      const answered = res.writableFinished || answeredEarly(res);
      if (!res.writableFinished && answeredEarly(res) && !res.destroyed) {
        this.#lingering.add(res);
        res.once('close', () => this.#lingering.delete(res));
      }
      metrics.httpRequests.inc({ server: 'main', endpoint, method, status });
      metrics.httpDuration.observe({ server: 'main', endpoint }, seconds);
      if (stats.rows > 0) metrics.httpRows.inc({ endpoint }, stats.rows);
      if (stats.bytes > 0) metrics.httpBytes.inc({ endpoint }, stats.bytes);
      if (res.statusCode >= 400 || !answered) metrics.httpErrors.inc({ endpoint });
      log.info(
        `${method} ${path} ${status}${answered ? '' : ' (cut)'} rows=${stats.rows} bytes=${stats.bytes} ${(seconds * 1000).toFixed(1)}ms`,
      );
    }
  }
}

/** The request target as a URL; one the URL parser refuses (`//[`) is the client's mistake: 400. */
function requestUrl(req: IncomingMessage): URL {
  try {
    return new URL(req.url ?? '/', 'http://localhost');
  } catch {
    throw new SvcError('BAD_REQUEST', 'malformed request target');
  }
}
