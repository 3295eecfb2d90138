// The health server's node:http server, the same in the main event loop and in
// the health worker thread; what differs is the backend that supplies state.
import { createServer, type Server } from 'node:http';
import { SvcError } from '../errors/svc-error.js';
import { errorAnswer } from '../net/error-answer.js';
import { checkHead, guardRequestHeads, parserLimit, type HeadLimits } from '../net/request-head.js';
import type { HealthAnswer, HealthResponder, HealthSnapshot } from './health-responder.js';

/** The health server ignores paths and needs few headers: small limits (414, 431 past them). */
export const HEALTH_HEAD_LIMITS: HeadLimits = { maxUrl: 8 * 1024, maxHeaders: 16 * 1024 };

export interface HealthBackend {
  snapshot(): HealthSnapshot;
  /** The Prometheus exposition (from the main thread's registry). */
  metrics(): Promise<{ contentType: string; body: string }>;
  onRequest(endpoint: string, method: string, status: number, seconds: number): void;
  onError(message: string): void;
  /** A client's malformed or oversize request (an info line: not the server's fault). */
  onBadRequest(message: string): void;
}

export function createHealthHttpServer(responder: HealthResponder, backend: HealthBackend): Server {
  const server = createServer({ keepAlive: true, maxHeaderSize: parserLimit(HEALTH_HEAD_LIMITS) }, (req, res) => {
    const started = process.hrtime.bigint();
    const method = req.method ?? 'GET';
    const tooLarge = checkHead(req, HEALTH_HEAD_LIMITS);
    if (tooLarge) backend.onBadRequest(`${method} -> ${tooLarge.status} ${tooLarge.message}`);
    const answer: HealthAnswer = tooLarge
      ? { kind: 'error', endpoint: 'health', error: tooLarge }
      : responder.answer(method, req.url ?? '/', req.headers.authorization, () => backend.snapshot());
    const done = (): void => {
      backend.onRequest(answer.endpoint, method, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    };
    const send = (status: number, contentType: string, body: string, headers: Record<string, string> = {}): void => {
      // write() then end() without Content-Length: chunked, as SPEC.md shows.
      res.writeHead(status, { ...headers, 'Content-Type': contentType });
      if (method !== 'HEAD') res.write(body);
      res.end();
      done();
    };
    const sendError = (e: SvcError, framing: Record<string, string> = {}): void => {
      const a = errorAnswer(e, { kind: 'health' });
      const { 'Content-Type': contentType, ...headers } = a.headers;
      send(a.status, contentType ?? 'application/json', a.body, { ...headers, ...framing });
    };
    if (answer.kind === 'metrics') {
      backend.metrics().then(
        (m) => send(200, m.contentType, m.body),
        (e: unknown) => {
          backend.onError(`metrics scrape failed: ${e instanceof Error ? e.message : String(e)}`);
          sendError(new SvcError('UNAVAILABLE', 'metrics unavailable'));
        },
      );
      return;
    }
    // A head past the limits closes the connection after the answer.
    if (answer.kind === 'error') sendError(answer.error, answer.error === tooLarge ? { Connection: 'close' } : {});
    else send(answer.status, answer.kind === 'json' ? 'application/json' : 'text/plain', answer.body, answer.headers);
  });
  guardRequestHeads(server, HEALTH_HEAD_LIMITS, (message) => backend.onBadRequest(message));
  return server;
}
