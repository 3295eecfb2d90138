// The one place that turns an error into an HTTP response of the main server
// (STYLE.md "Errors"): what it counts as, logged and counted, then answered
// through net/error-answer.ts (status, headers and the endpoint's body shape:
// {query, error, position} for SQL, a text line for the HTTP layer's 404 and 405). What an error
// counts as follows from its class (errorClass): a client mistake (4xx) is
// logged at info; a condition of the machine or of the server's state (507
// disk full, 503 unavailable) at error level and in
// svc_environment_errors_total; only an internal error (500: a bug, or any
// error that is not an SvcError) is logged critical and counted in
// svc_unhandled_errors_total, which the pessimistic health check watches.
// A full disk and running out of file descriptors are environment conditions
// wherever they were hit, so an ENOSPC that no layer turned into an SvcError
// still answers 507, an EMFILE 503.
import type { ServerResponse } from 'node:http';
import { SvcError, errorMessage, isSvcError } from '../errors/svc-error.js';
import type { Logger } from '../log/log-manager.js';
import type { Metrics } from '../metrics/metrics.js';
import { errorAnswer, type ErrorShape } from '../net/error-answer.js';
import { answerAndLinger, bodyStillComing } from '../net/lingering-close.js';

export interface ErrorContext {
  readonly res: ServerResponse;
  readonly log: Logger;
  readonly metrics: Metrics;
  /** What was being done, for the log line: `GET /exec`. */
  readonly what: string;
  /** The submitted SQL text, echoed in the body when there is one. */
  readonly query?: string;
}

export type ErrorClass = 'client' | 'environment' | 'internal';

/** A file system error of the machine as the SvcError it stands for; anything else unchanged. */
export function asSvcError(err: unknown): unknown {
  if (isSvcError(err)) return err;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code === 'ENOSPC' || code === 'EDQUOT') return new SvcError('DISK_FULL', `disk full [${code}]`, { cause: err });
  if (code === 'EMFILE' || code === 'ENFILE') {
    return new SvcError(
      'UNAVAILABLE',
      `too many open files [${code}]; raise the open-file limit of the server (ulimit -n) or work with fewer columns at once`,
      { cause: err },
    );
  }
  return err;
}

/** client: 4xx; environment: an SvcError with a 5xx other than 500 (507, 503); internal: everything else. */
export function errorClass(err: unknown): ErrorClass {
  err = asSvcError(err);
  if (!isSvcError(err)) return 'internal';
  if (err.status < 500) return 'client';
  return err.status === 500 ? 'internal' : 'environment';
}

/**
 * Logs and counts an error by its class and returns the SvcError to answer
 * with (an internal error's details stay in the log: the client sees
 * "internal error"). For failures after a response started, too.
 */
export function reportError(log: Logger, metrics: Metrics, what: string, err: unknown): SvcError {
  err = asSvcError(err);
  switch (errorClass(err)) {
    case 'client': {
      const e = err as SvcError;
      log.info(`${what} -> ${e.status} ${e.message}`);
      return e;
    }
    case 'environment': {
      const e = err as SvcError;
      metrics.environmentErrors.inc({ code: e.code });
      const cause = e.cause === undefined ? '' : ` (${errorMessage(e.cause)})`;
      log.error(`${what} -> ${e.status} ${e.message}${cause}`);
      return e;
    }
    case 'internal':
      metrics.recordUnhandled();
      log.critical(`unhandled error in ${what}`, err);
      return isSvcError(err) ? err : new SvcError('INTERNAL', 'internal error', { cause: err });
  }
}

export function sendError(ctx: ErrorContext, err: unknown): void {
  const e = reportError(ctx.log, ctx.metrics, ctx.what, err);
  writeError(ctx.res, e, { kind: 'main', query: ctx.query });
}

/**
 * Answers an error already reported (reportError) in `shape`, with a Content-Length
 * (and extra framing headers such as Connection: close). An answer that comes
 * before the client has sent its whole body (a refused upload, bad credentials)
 * closes the connection only after the rest of the body has been read and
 * dropped, within a bound (net/lingering-close.ts), so the client reads the answer
 * rather than a reset. After a response started it is too late for a status: the
 * connection is cut so the client sees a broken body, not a valid one.
 */
export function writeError(
  res: ServerResponse,
  e: SvcError,
  shape: ErrorShape,
  framing: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const a = errorAnswer(e, shape);
  if (bodyStillComing(res.req)) {
    answerAndLinger(res, a.status, { ...a.headers, ...framing }, a.body);
    return;
  }
  res.writeHead(a.status, { ...a.headers, 'Content-Length': Buffer.byteLength(a.body), ...framing });
  res.end(a.body);
}
