// What the reliability suite (test/reliability) shares: a server under an
// address-space cap with small configured limits, requests that never throw on
// a bad answer, and checks that the process is still alive and within bounds.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { startServer, type ServerProcess, type StartOptions } from './server-process.js';

/** The address-space cap of the suite's servers: an idle server maps ~1.7 GB; queries get 256 MiB. */
export const SUITE_ADDRESS_SPACE = 4 * 1024 ** 3;
/** query.memory.limit of the suite's servers. */
export const SUITE_QUERY_MEMORY = 256 * 1024 ** 2;

/** A server under the suite's address-space cap and limits (`env` adds or overrides SVC_* settings). */
export function startCappedServer(opts: StartOptions = {}): Promise<ServerProcess> {
  return startServer({
    addressSpaceLimit: SUITE_ADDRESS_SPACE,
    ...opts,
    env: { SVC_QUERY_MEMORY_LIMIT: String(SUITE_QUERY_MEMORY), SVC_METRICS_ENABLED: 'true', ...opts.env },
  });
}

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** The body as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

/** Any request; the whole answer. A transport failure (connection reset) rejects. */
export async function send(url: string, init: Parameters<typeof request>[1] = {}): Promise<Answer> {
  const res = await request(url, { headersTimeout: 600_000, bodyTimeout: 600_000, ...init });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** GET /exec?query=... with optional headers. */
export function exec(server: ServerProcess, query: string, headers: Record<string, string> = {}): Promise<Answer> {
  return send(`${server.mainUrl}/exec?query=${encodeURIComponent(query)}`, { headers });
}

/** Fails unless the server process runs and its health check and a query answer. */
export async function assertAlive(server: ServerProcess, context = ''): Promise<void> {
  assert.equal(server.child.exitCode, null, `server exited (${context}); stderr:\n${server.stderr().slice(-4000)}`);
  assert.equal(server.child.signalCode, null, `server was killed by ${server.child.signalCode} (${context})`);
  const h = await send(`${server.healthUrl}/`);
  assert.equal(h.status, 200, `health check after ${context}: ${h.status} ${h.text}`);
  const q = await exec(server, 'select 1');
  assert.equal(q.status, 200, `select 1 after ${context}: ${q.status} ${q.text}`);
}

/** svc_unhandled_errors_total from /metrics (needs metrics.enabled). */
export async function unhandledErrors(server: ServerProcess): Promise<number> {
  const m = await send(`${server.healthUrl}/metrics`);
  const line = /^svc_unhandled_errors_total(?:\{[^}]*\})? (\S+)$/m.exec(m.text);
  return line ? Number(line[1]) : 0;
}

/** The server's resident set now and at its peak (VmRSS, VmHWM), in bytes. */
export function rss(server: ServerProcess): { now: number; peak: number } {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  const kb = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { now: kb('VmRSS'), peak: kb('VmHWM') };
}
