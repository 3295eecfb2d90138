// The one place an SvcError becomes an HTTP answer: its status (from the code
// table), the headers its condition requires, and the body in the shape of the
// endpoint that answers (SPEC.md): {query, error, position} or {error} on the
// main server, QuestDB's text line for the HTTP layer's 404/405, /imp's
// {"status"} or text line, the health server's own content types. Pure: the
// callers (http/error-response.ts, http/imp-route.ts, request-head.ts, the
// health server) add the framing (Content-Length, chunked, Connection: close).
import type { SvcError } from '../errors/svc-error.js';

/** Who answers, which decides the body's shape. */
export type ErrorShape =
  /** The main server: {query, error, position} when the request had SQL text, else {error} (with position when known). */
  | { readonly kind: 'main'; readonly query?: string }
  /** POST /imp: {"status": message} with the error's status (fmt=json); else the message as a text line with 200, as QuestDB answers. */
  | { readonly kind: 'import'; readonly json: boolean }
  /** The health server: {error} as application/json, text lines as text/plain (no charset, as it has always answered). */
  | { readonly kind: 'health' };

export interface ErrorAnswer {
  readonly status: number;
  /** The condition's headers (Allow, WWW-Authenticate, Retry-After), then Content-Type. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

export function errorAnswer(e: SvcError, shape: ErrorShape): ErrorAnswer {
  switch (shape.kind) {
    case 'main': {
      if (e.plainText)
        return { status: e.status, headers: { ...e.headers, 'Content-Type': TEXT_TYPE }, body: `${e.message}\r\n` };
      // The SQL error body always has a position (SPEC.md); an error of the whole statement (a timeout) is at 0.
      const positioned = e.position !== undefined || shape.query !== undefined;
      const body = {
        ...(shape.query !== undefined ? { query: shape.query } : {}),
        error: e.message,
        ...(positioned ? { position: e.position ?? 0 } : {}),
      };
      return { status: e.status, headers: { ...e.headers, 'Content-Type': JSON_TYPE }, body: JSON.stringify(body) };
    }
    case 'import':
      if (e.plainText)
        return { status: e.status, headers: { ...e.headers, 'Content-Type': TEXT_TYPE }, body: `${e.message}\r\n` };
      return shape.json
        ? {
            status: e.status,
            headers: { ...e.headers, 'Content-Type': JSON_TYPE },
            body: JSON.stringify({ status: e.message }),
          }
        : { status: 200, headers: { ...e.headers, 'Content-Type': TEXT_TYPE }, body: `${e.message}\r\n` };
    case 'health':
      return e.plainText
        ? { status: e.status, headers: { ...e.headers, 'Content-Type': 'text/plain' }, body: `${e.message}\r\n` }
        : {
            status: e.status,
            headers: { ...e.headers, 'Content-Type': 'application/json' },
            body: JSON.stringify({ error: e.message }),
          };
  }
}
