// Limits on the request head (request line and header fields) of the main and
// health servers, and the answer to HTTP that node:http's parser refuses: 414
// for a request target past its limit, 431 for header fields past theirs, 408
// for a head that did not arrive in time, 400 for anything else; always a
// status and a JSON body before the connection closes, never an unhandled error.
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { SvcError } from '../errors/svc-error.js';
import { errorAnswer } from './error-answer.js';
import { LINGER } from './lingering-close.js';

export interface HeadLimits {
  /** Longest request target (path and query string) in bytes; longer gets 414. */
  readonly maxUrl: number;
  /** Most bytes of header fields (names, values, separators); more gets 431. */
  readonly maxHeaders: number;
}

/**
 * node:http's maxHeaderSize for these limits. Its parser counts the request
 * target and the header fields together, so a head within both limits never
 * trips it; past it, the parser stops and answerParseError says which part is long.
 */
export function parserLimit(l: HeadLimits): number {
  return l.maxUrl + l.maxHeaders + 1024;
}

/** The 414 or 431 a parsed head within the parser's limit deserves, or null. */
export function checkHead(req: IncomingMessage, l: HeadLimits): SvcError | null {
  const url = req.url ?? '';
  if (url.length > l.maxUrl) return urlTooLong(url.length, l);
  const raw = req.rawHeaders;
  // Latin-1 strings from the parser: one character per byte; ': ' and CRLF per field.
  let bytes = 0;
  for (let i = 0; i < raw.length; i++) bytes += (raw[i] ?? '').length + 2;
  if (bytes > l.maxHeaders) return headersTooLarge(bytes, l);
  return null;
}

function urlTooLong(length: number | null, l: HeadLimits): SvcError {
  const shown = length === null ? '' : `length=${length}, `;
  return new SvcError('URI_TOO_LONG', `URL too long [${shown}max=${l.maxUrl} bytes]`);
}

function headersTooLarge(bytes: number | null, l: HeadLimits): SvcError {
  const shown = bytes === null ? '' : `bytes=${bytes}, `;
  return new SvcError('HEADERS_TOO_LARGE', `request header fields too large [${shown}max=${l.maxHeaders} bytes]`);
}

/**
 * What a connection has shown of the head being parsed: the parser keeps the
 * request line to itself until the whole head is in, so when it overflows only
 * these bytes tell a long URL from long headers. `lineEnd` is the offset of the
 * request line's LF in the head, -1 while unseen; `seen` the head bytes before
 * the chunk being parsed. Pipelined requests are tracked on a best-effort basis.
 */
interface HeadTap {
  inHead: boolean;
  seen: number;
  lineEnd: number;
  /** The response of the request being served, if any. */
  res: ServerResponse | null;
  /** A refusal was sent: what the client still sends is read and dropped (lingering close). */
  answered: boolean;
  dropped: number;
}

/**
 * Installs the limits' answers on a node:http server created with
 * maxHeaderSize = parserLimit(limits). `onBadRequest` hears one line per refused
 * request (for an info-level log line: these are the client's mistakes).
 */
export function guardRequestHeads(server: Server, limits: HeadLimits, onBadRequest: (message: string) => void): void {
  const taps = new WeakMap<Socket, HeadTap>();
  server.on('connection', (socket: Socket) => {
    const tap: HeadTap = { inHead: true, seen: 0, lineEnd: -1, res: null, answered: false, dropped: 0 };
    taps.set(socket, tap);
    // Runs after the parser has taken the chunk (its listener came first), so
    // at an overflow the tap holds the head's earlier chunks.
    socket.on('data', (chunk: Buffer) => {
      if (tap.answered) {
        tap.dropped += chunk.length;
        if (tap.dropped > LINGER.bytes) socket.destroy();
        return;
      }
      if (!tap.inHead || tap.lineEnd >= 0) return;
      const lf = chunk.indexOf(10);
      if (lf >= 0) tap.lineEnd = tap.seen + lf;
      else tap.seen += chunk.length;
    });
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const tap = taps.get(req.socket);
    if (!tap) return;
    tap.inHead = false;
    tap.res = res;
    const next = (): void => {
      if (tap.res !== res) return;
      tap.inHead = true;
      tap.seen = 0;
      tap.lineEnd = -1;
      tap.res = null;
    };
    res.once('finish', next);
  });
  server.on(
    'clientError',
    (err: NodeJS.ErrnoException & { bytesParsed?: number; rawPacket?: Buffer }, socket: Socket) => {
      const tap = taps.get(socket);
      // The parser stays in its error state and reports each further chunk: the refusal was sent once already.
      if (tap?.answered) return;
      if (
        !tap ||
        err.code === 'ECONNRESET' ||
        err.code === 'EPIPE' ||
        !socket.writable ||
        tap.res?.headersSent === true
      ) {
        // Nothing to answer to, or a response is already under way: a status line now would corrupt it.
        socket.destroy();
        return;
      }
      const e = classify(err, tap, limits);
      onBadRequest(`bad HTTP request: ${err.code ?? 'parse error'} -> ${e.status} ${e.message}`);
      const a = errorAnswer(e, { kind: 'main' });
      const headers = Object.entries(a.headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.end(
        `HTTP/1.1 ${a.status} ${STATUS_CODES[a.status] ?? 'Bad Request'}\r\nConnection: close\r\n` +
          `${headers}Content-Length: ${Buffer.byteLength(a.body)}\r\n\r\n${a.body}`,
      );
      tap.answered = true;
      // Lingering close (lingering-close.ts), on the socket: the parser has given up on this connection.
      const timer = setTimeout(() => socket.destroy(), LINGER.ms);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
    },
  );
}

function classify(
  err: NodeJS.ErrnoException & { bytesParsed?: number; rawPacket?: Buffer },
  tap: HeadTap | undefined,
  l: HeadLimits,
): SvcError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW': {
      let lineEnd = tap?.inHead ? tap.lineEnd : -1;
      if (lineEnd < 0) {
        const raw = err.rawPacket;
        const parsed = Math.min(err.bytesParsed ?? raw?.length ?? 0, raw?.length ?? 0);
        const lf = raw ? raw.subarray(0, parsed).indexOf(10) : -1;
        const seen = tap?.inHead ? tap.seen : 0;
        // No line end yet: the request line alone is as long as the head so far, past the URL limit.
        if (lf < 0) return urlTooLong(null, l);
        lineEnd = seen + lf;
      }
      return lineEnd > l.maxUrl ? urlTooLong(null, l) : headersTooLarge(null, l);
    }
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new SvcError('PAYLOAD_TOO_LARGE', 'chunk extensions too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new SvcError('REQUEST_TIMEOUT', 'the request did not arrive in time');
    default:
      return new SvcError(
        'BAD_REQUEST',
        `malformed HTTP request [${err.code ?? 'parse error'}: ${(err as { reason?: string }).reason ?? err.message}]`,
      );
  }
}
