// The one place that turns an error into an HTTP response (STYLE.md "Errors"):
// SvcError -> its status and the SPEC.md body ({query, error, position} for
// SQL); anything else is an internal error -> 500, counted and logged critical.
import type { ServerResponse } from 'node:http';
import { SvcError, isSvcError } from '../errors/svc-error.js';
import type { Logger } from '../log/log-manager.js';
import type { Metrics } from '../metrics/metrics.js';

export interface ErrorContext {
  readonly res: ServerResponse;
  readonly log: Logger;
  readonly metrics: Metrics;
  /** What was being done, for the log line: `GET /exec`. */
  readonly what: string;
  /** The submitted SQL text, echoed in the body when there is one. */
  readonly query?: string;
}

export function sendError(ctx: ErrorContext, err: unknown): void {
  const { res } = ctx;
  let e: SvcError;
  if (isSvcError(err) && err.status < 500) {
    e = err;
    ctx.log.info(`${ctx.what} -> ${e.status} ${e.message}`);
  } else {
    e = isSvcError(err) ? err : new SvcError('INTERNAL', 'internal error', { cause: err });
    ctx.metrics.recordUnhandled();
    ctx.log.critical(`unhandled error in ${ctx.what}`, err);
  }
  if (res.headersSent) {
    // Too late for a status: cut the connection so the client sees a broken body, not a valid one.
    res.destroy();
    return;
  }
  const body: Record<string, unknown> = {};
  if (ctx.query !== undefined) body.query = ctx.query;
  body.error = e.message;
  if (e.position !== undefined) body.position = e.position;
  const text = JSON.stringify(body);
  res.writeHead(e.status, {
    ...e.headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
