// Lingering close (RFC 9112 section 9.6): an answer given before the client has
// sent its whole request closes the connection only after what it still sends
// has been read and dropped, within a bound, so that it reads the answer instead
// of a reset (closing a socket with unread input makes the kernel send RST).
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface LingerBounds {
  /** The longest a connection lingers after its answer. */
  readonly ms: number;
  /** The most bytes read and dropped after the answer. */
  readonly bytes: number;
}

/**
 * Long and large enough for a client that writes its whole body before reading
 * (Python's http.client, requests) to finish an upload of tens of MB and read
 * the answer; past either, the connection is cut: a client that never stops
 * holds a connection for at most this long, and nothing it sends is kept.
 */
export const LINGER: LingerBounds = { ms: 5000, bytes: 64 * 1024 * 1024 };

/** Responses that gave their whole answer while their request's body was still arriving. */
const early = new WeakSet<ServerResponse>();

/** True when the request has a body that has not all arrived: an answer now comes before the client has finished sending. */
export function bodyStillComing(req: IncomingMessage): boolean {
  if (req.complete || req.destroyed) return false;
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** True when `res` gave its whole answer early (answerAndLinger), even while it still drops the request's body. */
export function answeredEarly(res: ServerResponse): boolean {
  return early.has(res);
}

/**
 * Sends a whole answer (with Content-Length and Connection: close) to a request
 * whose body is still arriving, then reads and drops the rest of the body; the
 * response ends, and node:http closes the connection, once the body has all
 * been read (nothing unread is left for the kernel to answer with RST). Past
 * the bounds, or when the client goes away, the connection is destroyed.
 * Whoever was reading the body (a multipart parser) is unpiped first.
 */
export function answerAndLinger(
  res: ServerResponse,
  status: number,
  headers: Readonly<Record<string, string | number | readonly string[]>>,
  body: string | Buffer,
  bounds: LingerBounds = LINGER,
): void {
  const req = res.req;
  res.writeHead(status, { ...headers, 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
  // Not ended: node:http would close the socket as soon as the answer is written, with the body unread.
  res.write(body);
  early.add(res);
  req.unpipe();
  let dropped = 0;
  const stop = (drained: boolean): void => {
    clearTimeout(timer);
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('close', onGone);
    res.off('close', onGone);
    if (drained) res.end();
    else res.destroy();
  };
  const onData = (chunk: Buffer): void => {
    dropped += chunk.length;
    if (dropped > bounds.bytes) stop(false);
  };
  const onEnd = (): void => stop(true);
  // The client went away (or the connection was closed under it): nothing left to answer.
  const onGone = (): void => stop(false);
  const timer = setTimeout(() => stop(false), bounds.ms);
  timer.unref();
  req.on('data', onData);
  req.once('end', onEnd);
  req.once('close', onGone);
  res.once('close', onGone);
  req.resume();
}
