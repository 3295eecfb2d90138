// The main HTTP server (port 9000): authentication, routing, per-request abort
// signal, metrics and the error mapper around every handler. Handlers for SQL,
// export and import plug into its Router.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostPort } from '../config/value-types.js';
import { SvcError } from '../errors/svc-error.js';
import type { Logger } from '../log/log-manager.js';
import type { Metrics } from '../metrics/metrics.js';
import { WWW_AUTHENTICATE, type BasicAuth } from './basic-auth.js';
import { sendError } from './error-response.js';
import { closeGracefully, listen } from './listen.js';
import type { RequestContext, Router } from './router.js';

export interface MainServerOptions {
  readonly router: Router;
  readonly auth: BasicAuth | null;
  readonly log: Logger;
  readonly metrics: Metrics;
}

/** Longest URL (path and query string) accepted; longer gets 414. */
export const MAX_URL = 64 * 1024;

export class MainServer {
  readonly #opts: MainServerOptions;
  readonly #server: Server;
  /** One controller per in-flight request, aborted on shutdown past the grace period. */
  readonly #inFlight = new Set<AbortController>();
  #address: AddressInfo | null = null;

  constructor(opts: MainServerOptions) {
    this.#opts = opts;
    // The request line may hold a long query: up to MAX_URL bytes of it plus ordinary headers fit.
    this.#server = createServer({ keepAlive: true, maxHeaderSize: MAX_URL + 16 * 1024 }, (req, res) => { void this.#handle(req, res); });
    // Requests with malformed HTTP get a 400 from Node; count them, never crash.
    this.#server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
      opts.log.info(`bad HTTP request: ${err.code ?? err.message}`);
      if (!socket.writable) { socket.destroy(); return; }
      if (err.code === 'HPE_HEADER_OVERFLOW') {
        const body = JSON.stringify({ error: `request line or headers too long [max=${MAX_URL} bytes of URL]` });
        socket.end(`HTTP/1.1 414 URI Too Long\r\nConnection: close\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
        return;
      }
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
    });
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
      const url = new URL(req.url ?? '/', 'http://localhost');
      path = url.pathname;
      endpoint = router.endpointOf(path);
      if (auth && !auth.check(req.headers.authorization)) {
        throw new SvcError('UNAUTHORIZED', 'unauthorized', { headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } });
      }
      if ((req.url ?? '').length > MAX_URL) throw new SvcError('URI_TOO_LONG', `URL too long [length=${(req.url ?? '').length}, max=${MAX_URL}]`);
      const resolved = router.resolve(method, path);
      if (resolved instanceof SvcError) throw resolved;
      ctx = { req, res, url, signal: controller.signal, log, stats };
      await resolved.handler(ctx);
    } catch (err) {
      sendError({ res, log, metrics, what: `${method} ${path}`, query: ctx?.errorQuery }, err);
    } finally {
      res.off('close', onClose);
      this.#inFlight.delete(controller);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const status = String(res.statusCode);
      metrics.httpRequests.inc({ server: 'main', endpoint, method, status });
      metrics.httpDuration.observe({ server: 'main', endpoint }, seconds);
      if (stats.rows > 0) metrics.httpRows.inc({ endpoint }, stats.rows);
      if (stats.bytes > 0) metrics.httpBytes.inc({ endpoint }, stats.bytes);
      if (res.statusCode >= 400 || !res.writableFinished) metrics.httpErrors.inc({ endpoint });
      log.info(`${method} ${path} ${status}${res.writableFinished ? '' : ' (cut)'} rows=${stats.rows} bytes=${stats.bytes} ${(seconds * 1000).toFixed(1)}ms`);
    }
  }
}
