// `svcdb query`: one SQL statement on a running server over its HTTP API
// (/exec, or /exp for CSV), printed as an aligned table, CSV or /exec's JSON.
import { once } from 'node:events';
import { printTable } from '../export/text-table.js';
import { fail } from './fail.js';

export interface QueryArgs {
  sql: string;
  host: string;
  format: 'table' | 'csv' | 'json';
  auth: string | undefined;
}

export function parseQuery(args: string[]): QueryArgs {
  const out: Partial<QueryArgs> = { host: 'http://127.0.0.1:9000', format: 'table', auth: process.env.SVCDB_AUTH };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    const value = (): string => {
      const v = args[++i];
      if (v === undefined) fail(`${a} needs a value`);
      return v;
    };
    if (a === '--host') out.host = value();
    else if (a === '--format') {
      const f = value();
      if (f !== 'table' && f !== 'csv' && f !== 'json') fail(`--format must be table, csv or json [got ${f}]`);
      out.format = f;
    } else if (a === '--user') out.auth = value();
    else if (a.startsWith('--')) fail(`unknown option for query: ${a} (see svcdb query --help)`);
    else if (out.sql === undefined) out.sql = a;
    else fail('query takes one SQL text (quote it)');
  }
  if (out.sql === undefined || out.sql.trim() === '') fail('query needs the SQL text: svcdb query "select 1"');
  out.host = hostUrl(out.host!);
  return out as QueryArgs;
}

export async function query(q: QueryArgs): Promise<void> {
  const path = q.format === 'csv' ? '/exp' : '/exec';
  const url = `${q.host.replace(/\/+$/, '')}${path}?query=${encodeURIComponent(q.sql)}`;
  const headers: Record<string, string> = {};
  if (q.auth) headers.authorization = `Basic ${Buffer.from(q.auth).toString('base64')}`;
  let res: Response;
  try {
    res = await fetch(url, { headers });
  } catch (e) {
    fail(`cannot reach ${q.host}: ${reachProblem(e)}`);
  }
  // Another program on that port (the health server on 9003, a web server): said so, not parsed.
  const type = res.headers.get('content-type') ?? '';
  if (!/^(application\/json|text\/csv)/.test(type))
    fail(
      `${q.host} did not answer as svcdb's ${path} (${res.status}, ${type || 'no content type'}): is this svcdb's main port (9000 by default; the health server's 9003 answers no SQL)?`,
    );
  if (!res.ok) {
    const text = await res.text();
    let body: { error?: string; position?: number } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      body = { error: text || res.statusText };
    }
    if (body.position !== undefined) {
      process.stderr.write(`${q.sql}\n${' '.repeat(Math.max(0, body.position))}^\n`);
      fail(`${body.error} [position=${body.position}]`);
    }
    if (res.status === 401)
      fail(
        `${q.host} needs credentials${q.auth ? ' (these were refused)' : ''}: --user <user:password> or SVCDB_AUTH=<user:password>`,
      );
    fail(`${res.status} ${body.error ?? res.statusText}`);
  }
  // A reader that stops early (`| head`) ends the command quietly.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    fail(`cannot write the result: ${e.message}`);
  });
  const body = res.body as unknown as AsyncIterable<Uint8Array>;
  if (q.format !== 'table') {
    // Streamed through as the server sends it.
    for await (const chunk of body) {
      if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
    }
    if (q.format === 'json') process.stdout.write('\n');
    return;
  }
  // Ctrl-C runs the exit handlers, which remove the table's spool file.
  process.once('SIGINT', () => process.exit(130));
  let printed: Awaited<ReturnType<typeof printTable>>;
  try {
    printed = await printTable(body, process.stdout);
  } catch (e) {
    fail(`cannot read the answer of ${q.host}: ${e instanceof Error ? e.message : String(e)}`);
  }
  const { members, rows } = printed;
  // An error after rows went out (a timeout, say) ends the document; no partial table is printed.
  const error = members.get('error');
  if (error !== undefined) fail(String(error));
  if (rows === null) {
    const updated = members.get('updated');
    process.stdout.write(updated !== undefined ? `OK (${updated} rows updated)\n` : 'OK\n');
  }
}

/** `--host` as a base URL: `h`, `h:port` or a URL; without a port, 9000 (the REST API's default, not HTTP's 80). */
function hostUrl(host: string): string {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? host : `http://${host}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    fail(`--host ${host} is not a host name, host:port or URL`);
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\/(\[[^\]]*\]|[^/:]*):\d+/i.test(text)) url.port = '9000';
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** Why the server could not be reached, in words. */
function reachProblem(e: unknown): string {
  const cause = (e instanceof Error && e.cause instanceof Error ? e.cause : e) as NodeJS.ErrnoException;
  switch (cause.code) {
    case 'ECONNREFUSED':
      return 'nothing is listening there (is svcdb serve running, on that port?)';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'no such host';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return "the connection was closed (is it svcdb's main port, 9000 by default?)";
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'ETIMEDOUT':
      return 'no answer in time';
    default:
      return cause.message ?? String(e);
  }
}
