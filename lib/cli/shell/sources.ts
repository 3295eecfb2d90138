// Where the shell's statements run: a server's HTTP API (/exec, /exp) or a
// database folder opened in this process (lib/db's Database, with its lock).
// Both answer with the same bytes: the /exec JSON document (a statement's
// {"ddl":"OK"} too) and /exp's CSV, so the shell prints them the same way.
import { existsSync, statSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { Database } from '../../db/database.js';
import { SvcError, isSvcError } from '../../errors/svc-error.js';

/** A statement's failure: the message, and the position in the statement's text when there is one. */
export class StatementError extends Error {
  readonly position: number | undefined;
  constructor(message: string, position?: number) {
    super(message);
    this.position = position;
  }
}

/** The shell cannot go on (no server, a folder it cannot open): printed, then the shell ends with code 1. */
export class SourceError extends Error {}

export interface RunOptions {
  readonly signal: AbortSignal;
  /** Ask for the server's timings member (\timing on). */
  readonly timings: boolean;
}

/** Time of the last statement as the engine measured it (nanoseconds), when known. */
export interface EngineTime {
  readonly compileNanos: number;
  readonly executeNanos: number;
}

export interface Source {
  /** `server http://...` or `folder <root>`, for the banner. */
  readonly label: string;
  /** The statement's /exec document; a statement that fails before its rows throws a StatementError. */
  exec(sql: string, o: RunOptions): Promise<AsyncIterable<Uint8Array>>;
  /** The query's CSV as /exp writes it; null when the statement is not a query (run it with exec). */
  csv(sql: string, o: RunOptions): Promise<AsyncIterable<Uint8Array> | null>;
  /** The engine's time of the last statement run to its end (a folder's); null for a server (its document says). */
  lastTime(): EngineTime | null;
  close(): Promise<void>;
}

/** `--host` as a base URL: `h`, `h:port`, `http://h:port`; no port means 9000, the REST API's default. */
export function hostUrl(host: string): string {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? host : `http://${host}`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new SourceError(`--host ${host} is not a host name, host:port or URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new SourceError(`--host ${host}: only http:// and https:// servers are spoken to`);
  // No port written: the REST API's (a URL's default port, 80 or 443, counts only when written).
  const written = /^[a-z][a-z0-9+.-]*:\/\/(\[[^\]]*\]|[^/:]*):\d+/i.test(text);
  if (!written) url.port = '9000';
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/** What a failed fetch means, in words (no errno codes). */
function reachError(base: string, e: unknown): SourceError {
  const err = e as NodeJS.ErrnoException;
  const cause =
    err.code !== undefined
      ? err
      : e instanceof Error && e.cause instanceof Error
        ? (e.cause as NodeJS.ErrnoException)
        : null;
  const code = cause?.code ?? '';
  const why =
    code === 'ECONNREFUSED'
      ? 'nothing is listening there (is `svcdb serve` running, and on that port?)'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'no such host'
        : code === 'ECONNRESET' || code === 'HPE_INVALID_CONSTANT' || code === 'HPE_INVALID_VERSION'
          ? 'the connection was closed (is it svcdb\u2019s REST API port, 9000 by default?)'
          : code === 'ETIMEDOUT'
            ? 'the connection timed out'
            : (cause?.message ?? (e instanceof Error ? e.message : String(e)));
  return new SourceError(`cannot reach ${base}: ${why}`);
}

export class ServerSource implements Source {
  readonly label: string;
  readonly #base: string;
  readonly #headers: Record<string, string> = {};

  constructor(host: string, auth: string | undefined) {
    this.#base = hostUrl(host);
    this.label = `server ${this.#base}`;
    if (auth) this.#headers.authorization = `Basic ${Buffer.from(auth).toString('base64')}`;
  }

  /** A GET of `path` (node:http: its body streams several times faster than fetch's). */
  async #get(path: string, o: RunOptions): Promise<IncomingMessage> {
    const url = new URL(`${this.#base}${path}`);
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(url, { headers: this.#headers, signal: o.signal }, resolve);
      req.once('error', (e) => reject(o.signal.aborted ? o.signal.reason : reachError(this.#base, e)));
      req.end();
    });
    // Another program on that port (the health server on 9003, a web server): said so, not parsed.
    const type = res.headers['content-type'] ?? '';
    if (res.statusCode !== 401 && !/^(application\/json|text\/csv|application\/vnd\.apache\.parquet)/.test(type)) {
      res.resume();
      throw new SourceError(
        `${this.#base} did not answer as svcdb's ${url.pathname} (${res.statusCode ?? 0}, ${type || 'no content type'}): is this svcdb's main port (9000 by default; the health server's 9003 answers no SQL)?`,
      );
    }
    return res;
  }

  async exec(sql: string, o: RunOptions): Promise<AsyncIterable<Uint8Array>> {
    const res = await this.#get(`/exec?query=${encodeURIComponent(sql)}${o.timings ? '&timings=true' : ''}`, o);
    if (res.statusCode !== 200) throw await this.#failure(res);
    return this.#body(res, o);
  }

  /** The answer's bytes; a connection cut in the middle is said in words. */
  async *#body(res: IncomingMessage, o: RunOptions): AsyncGenerator<Uint8Array> {
    try {
      for await (const chunk of res) yield chunk as Buffer;
    } catch (e) {
      if (o.signal.aborted) throw o.signal.reason;
      throw new SourceError(
        `the connection to ${this.#base} was cut in the middle of the answer (${(e as Error).message})`,
      );
    }
  }

  /**
   * /exp with these parameters (query, fmt, the Parquet options): its bytes as they come
   * (`svcdb export --host`); a refusal is the server's message (a StatementError at its position).
   */
  async exp(params: URLSearchParams, o: Pick<RunOptions, 'signal'>): Promise<AsyncIterable<Uint8Array>> {
    const res = await this.#get(`/exp?${params.toString()}`, { ...o, timings: false });
    if (res.statusCode !== 200) throw await this.#failure(res);
    return this.#body(res, { ...o, timings: false });
  }

  async csv(sql: string, o: RunOptions): Promise<AsyncIterable<Uint8Array> | null> {
    const res = await this.#get(`/exp?query=${encodeURIComponent(sql)}`, o);
    if (res.statusCode !== 200) {
      const e = await this.#failure(res);
      // /exp runs queries only; a statement goes to /exec (nothing ran yet).
      if (res.statusCode === 400 && /only accepts SELECT/i.test(e.message)) return null;
      throw e;
    }
    return this.#body(res, o);
  }

  /** The error of a refused request: the server's message and position, or its status. */
  async #failure(res: IncomingMessage): Promise<Error> {
    const status = res.statusCode ?? 0;
    const parts: Buffer[] = [];
    for await (const chunk of res) parts.push(chunk as Buffer);
    const text = Buffer.concat(parts).toString('utf8');
    let body: { error?: unknown; position?: unknown } | null;
    try {
      body = JSON.parse(text) as { error?: unknown; position?: unknown } | null;
    } catch {
      body = null; // not JSON: said below with the status
    }
    if (status === 401)
      return new SourceError(
        `${this.#base} needs credentials${this.#headers.authorization !== undefined ? ' (these were refused)' : ''}: --user <user:password> or SVCDB_AUTH=<user:password>`,
      );
    if (body !== null && typeof body === 'object' && typeof body.error === 'string') {
      const message = status === 400 ? body.error : `${status} ${body.error}`;
      if (status >= 500 || status === 401 || status === 403) return new SourceError(message);
      return new StatementError(message, typeof body.position === 'number' ? body.position : undefined);
    }
    const shown = text.trim().replace(/\s+/g, ' ').slice(0, 120) || (res.statusMessage ?? '');
    return new SourceError(`${this.#base} answered ${status} ${shown} (is it svcdb's REST API port, 9000 by default?)`);
  }

  lastTime(): EngineTime | null {
    return null;
  }

  async close(): Promise<void> {}
}

export interface FolderOptions {
  /** Make the database when the folder does not hold one. */
  readonly create: boolean;
}

/** Why the folder cannot be opened, and what to do. */
function openFailure(root: string, e: unknown): SourceError {
  if (isSvcError(e) && e.code === 'UNAVAILABLE') {
    const pid = /process (\d+)/.exec(e.message)?.[1];
    return new SourceError(
      `the database ${root} is in use${pid ? ` by process ${pid}` : ''} (a running svcdb server, or another program ` +
        `that opened it); stop it, or connect to the server instead: svcdb shell --host <host:port>`,
    );
  }
  const err = e as NodeJS.ErrnoException;
  if (err.code === 'EACCES' || err.code === 'EPERM')
    return new SourceError(`cannot open the database ${root}: permission denied`);
  return new SourceError(`cannot open the database ${root}: ${err.message}`);
}

/** A statement error of the engine in the shell's terms; other errors pass unchanged. */
export function statementError(e: unknown): unknown {
  if (isSvcError(e)) return new StatementError(e.message, e.position);
  return e;
}

async function* oneChunk(b: Buffer): AsyncGenerator<Buffer> {
  yield b;
}

const NOT_QUERY = new SvcError('SQL', 'not a query');
const QUERY = new SvcError('SQL', 'a query');

export class FolderSource implements Source {
  readonly label: string;
  readonly #db: Database;
  #last: EngineTime | null = null;

  private constructor(root: string, db: Database) {
    this.label = `folder ${root}`;
    this.#db = db;
  }

  /** Opens `root`; refuses a folder without a database unless `create`, and one a server holds. */
  static open(root: string, o: FolderOptions): FolderSource {
    if (!o.create) {
      if (!existsSync(root))
        throw new SourceError(`there is no database folder ${root}; check the path, or add --create to make one`);
      if (!statSync(root).isDirectory()) throw new SourceError(`${root} is a file, not a database folder`);
      if (!existsSync(join(root, 'db')) && !existsSync(join(root, 'conf', 'server.conf')))
        throw new SourceError(
          `${root} holds no svcdb database (no db/ or conf/server.conf in it); check the path, or add --create to make one there`,
        );
    }
    try {
      return new FolderSource(root, Database.open(root));
    } catch (e) {
      throw openFailure(root, e);
    }
  }

  async exec(sql: string, o: RunOptions): Promise<AsyncIterable<Uint8Array>> {
    const t0 = process.hrtime.bigint();
    let body: AsyncGenerator<Buffer>;
    try {
      body = this.#db.export(sql, 'json', { query: sql, signal: o.signal }, () => NOT_QUERY);
    } catch (e) {
      if (e === NOT_QUERY) return this.#execute(sql, o, t0);
      throw statementError(e);
    }
    return this.#timed(body, t0, process.hrtime.bigint());
  }

  async csv(sql: string, o: RunOptions): Promise<AsyncIterable<Uint8Array> | null> {
    const t0 = process.hrtime.bigint();
    let body: AsyncGenerator<Buffer>;
    try {
      body = this.#db.export(sql, 'csv', { header: true, signal: o.signal }, () => NOT_QUERY);
    } catch (e) {
      if (e === NOT_QUERY) return null;
      throw statementError(e);
    }
    return this.#timed(body, t0, process.hrtime.bigint());
  }

  async #execute(sql: string, o: RunOptions, t0: bigint): Promise<AsyncIterable<Uint8Array>> {
    let r: Awaited<ReturnType<Database['execute']>>;
    try {
      r = await this.#db.execute(sql, () => QUERY, { signal: o.signal });
    } catch (e) {
      throw statementError(e);
    }
    this.#last = { compileNanos: 0, executeNanos: Number(process.hrtime.bigint() - t0) };
    // The answers /exec gives.
    const doc =
      r.kind === 'insert' ? { dml: 'OK' } : r.kind === 'update' ? { ddl: 'OK', updated: r.rows } : { ddl: 'OK' };
    return oneChunk(Buffer.from(JSON.stringify(doc)));
  }

  async *#timed(body: AsyncGenerator<Buffer>, t0: bigint, compiled: bigint): AsyncGenerator<Buffer> {
    this.#last = null;
    try {
      yield* body;
    } catch (e) {
      throw statementError(e);
    }
    this.#last = { compileNanos: Number(compiled - t0), executeNanos: Number(process.hrtime.bigint() - compiled) };
  }

  lastTime(): EngineTime | null {
    return this.#last;
  }

  async close(): Promise<void> {
    await this.#db.close();
  }
}
