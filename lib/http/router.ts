// The routing table of the main server: exact paths (with aliases) and path
// prefixes (the console's files) to handlers per method. Unknown path -> 404;
// known path, other method -> 405 with Allow; both as QuestDB sends them, one
// line of text/plain. HEAD is not GET without a body here: most routes run a
// statement or an import, so a HEAD would execute it (a `curl -I` creating a
// table); a route answers HEAD only if it registers a HEAD handler itself.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SvcError } from '../errors/svc-error.js';
import type { Logger } from '../log/log-manager.js';

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly url: URL;
  /** Fires when the client goes away or the server shuts down. */
  readonly signal: AbortSignal;
  readonly log: Logger;
  /** Rows and body bytes sent, for the request log line and metrics. */
  readonly stats: { rows: number; bytes: number };
  /** The SQL text to echo in an error body ({query, error, position}), set by the SQL handlers. */
  errorQuery?: string;
  /**
   * Logs and counts an error by its class (error-response.ts reportError) and returns the SvcError
   * to answer with: for handlers that answer an error in their own shape, or after streaming began.
   */
  report(err: unknown): SvcError;
}

export type Handler = (ctx: RequestContext) => Promise<void> | void;

export interface Route {
  /** Name used in metrics and logs (`execute` for /exec, /execute and /api/v1/sql/execute). */
  readonly endpoint: string;
  readonly paths: readonly string[];
  /** Path prefixes (ending in `/`) the route also answers under, e.g. `/console/` for the console's files. */
  readonly prefixes?: readonly string[];
  readonly methods: Readonly<Partial<Record<string, Handler>>>;
}

export interface Resolved {
  readonly endpoint: string;
  readonly handler: Handler;
}

export class Router {
  readonly #byPath = new Map<string, Route>();
  readonly #byPrefix: Array<{ prefix: string; route: Route }> = [];

  add(route: Route): this {
    for (const p of route.paths) {
      if (this.#byPath.has(p)) throw new Error(`route ${p} is defined twice`);
      this.#byPath.set(p, route);
    }
    for (const prefix of route.prefixes ?? []) {
      if (!prefix.endsWith('/')) throw new Error(`route prefix ${prefix} must end with /`);
      if (this.#byPrefix.some((e) => e.prefix === prefix)) throw new Error(`route prefix ${prefix} is defined twice`);
      this.#byPrefix.push({ prefix, route });
    }
    // The longest prefix wins.
    this.#byPrefix.sort((a, b) => b.prefix.length - a.prefix.length);
    return this;
  }

  #routeOf(path: string): Route | undefined {
    return this.#byPath.get(path) ?? this.#byPrefix.find((e) => path.startsWith(e.prefix))?.route;
  }

  /** The handler for method and path, or an SvcError (404, 405) to send. */
  resolve(method: string, path: string): Resolved | SvcError {
    const route = this.#routeOf(path);
    if (!route) return new SvcError('NOT_FOUND', 'Not Found', { plainText: true });
    const handler = Object.hasOwn(route.methods, method) ? route.methods[method] : undefined;
    if (!handler) {
      const allow = Object.keys(route.methods).join(', ');
      return new SvcError('METHOD_NOT_ALLOWED', `Method ${method} not supported`, {
        headers: { Allow: allow },
        plainText: true,
      });
    }
    return { endpoint: route.endpoint, handler };
  }

  /** The endpoint name of a path, for metrics; `other` for unknown paths (bounded label set). */
  endpointOf(path: string): string {
    return this.#routeOf(path)?.endpoint ?? 'other';
  }
}
