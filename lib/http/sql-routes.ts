// The SQL endpoints of the main server (SPEC.md "Main server"): execute
// (/api/v1/sql/execute, /execute, /exec), validate (/api/v1/sql/validate,
// /validate) and CSV export (/exp). Each compiles through the Database
// (lib/db/database.ts) and streams the result; the statement stops when the
// client goes away or its timeout passes.
import { SvcError, isSvcError } from '../errors/svc-error.js';
import type { CompiledStatement, Database, SelectStatement } from '../db/database.js';
import { Deadline } from '../limits/deadline.js';
import { csvBody } from '../export/csv-response.js';
import { jsonQueryBody } from '../export/json-response.js';
import { parseParquetOptions } from '../export/parquet/options.js';
import { parquetBody, planParquet, sourceTable } from '../export/parquet/parquet-writer.js';
import { wantBuiltTextOutputs, wantTextOutputs } from '../exec/text-keys.js';
import type { RowStats } from '../export/row-window.js';
import { expDelimiterParam, expLimitParam, expTimeoutParam } from './exp-params.js';
import { resultColumn } from '../core/column-type.js';
import { boolParam, limitParam, queryParam, timeoutHeader } from './params.js';
import type { RequestContext, Route } from './router.js';
import { sendBody } from './stream-body.js';

export interface SqlRouteOptions {
  /** The open database (throws 503 while storage is not open); its statement limits apply. */
  readonly database: () => Database;
  /** Default statement timeout (query.timeout), ms. */
  readonly queryTimeoutMs: number;
  /** Default timeout of a Parquet export (http.export.timeout), ms; query.timeout when absent. */
  readonly exportTimeoutMs?: number;
  /** Who the requests run as, as the query trace records it: http.user when basic authentication is on; default 'admin'. */
  readonly principal?: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * The statement's deadline `ms` from now (checked by synchronous work) and a
 * signal that fires when the request's does or the deadline passes (for the
 * time it waits), both with QuestDB's timeout message.
 */
function withTimeout(parent: AbortSignal, ms: number): { deadline: Deadline; signal: AbortSignal; dispose(): void } {
  const deadline = new Deadline(ms);
  return { deadline, ...deadline.signal(parent) };
}

/** Compile errors carry the query text so the error body can echo it. */
class QueryError extends Error {
  constructor(
    readonly query: string,
    readonly inner: unknown,
  ) {
    super(isSvcError(inner) ? inner.message : 'internal error');
  }
}

function sendJson(ctx: RequestContext, body: unknown): void {
  const text = JSON.stringify(body);
  ctx.res.writeHead(200, { 'Content-Type': JSON_TYPE, 'Content-Length': Buffer.byteLength(text) });
  ctx.res.end(text);
  ctx.stats.bytes += Buffer.byteLength(text);
}

/** The query text of the request; a missing, empty or undecodable one fails as its SQL error ({query, error, position}). */
function sqlText(url: URL, emptyMessage?: string): string {
  const q = queryParam(url, emptyMessage);
  if ('error' in q) throw new QueryError(q.query, q.error);
  return q.query;
}

function compileFor(query: string, opts: SqlRouteOptions): { stmt: CompiledStatement; nanos: number } {
  const t0 = process.hrtime.bigint();
  try {
    const stmt = opts.database().compile(query, opts.principal);
    return { stmt, nanos: Number(process.hrtime.bigint() - t0) };
  } catch (e) {
    throw new QueryError(query, e);
  }
}

/** Failures after the response started are logged here (the body already states them, or was cut). */
async function execute(ctx: RequestContext, opts: SqlRouteOptions): Promise<void> {
  const url = ctx.url;
  const query = sqlText(url);
  const flags = {
    count: boolParam(url, 'count'),
    nm: boolParam(url, 'nm'),
    timings: boolParam(url, 'timings'),
    explain: boolParam(url, 'explain'),
    quoteLargeNum: boolParam(url, 'quoteLargeNum'),
  };
  const window = limitParam(url, true);
  const timeout = timeoutHeader(ctx.req.headers['statement-timeout']) ?? opts.queryTimeoutMs;
  const { stmt, nanos } = compileFor(query, opts);
  const t = withTimeout(ctx.signal, timeout);
  try {
    if (stmt.kind !== 'select') {
      let r: { rows: number };
      try {
        r = await stmt.execute(t.signal, t.deadline);
      } catch (e) {
        throw new QueryError(query, e);
      }
      ctx.stats.rows += r.rows;
      if (stmt.kind === 'insert') sendJson(ctx, { dml: 'OK' });
      else if (stmt.kind === 'update') sendJson(ctx, { ddl: 'OK', updated: r.rows });
      else sendJson(ctx, { ddl: 'OK' });
      return;
    }
    const stats: RowStats = { sent: 0, matched: 0 };
    const body = jsonQueryBody(
      stmt,
      stmt.execute(t.signal, t.deadline),
      { query, ...flags, window, compileNanos: nanos, pool: opts.database().formatPool() },
      stats,
    );
    try {
      // The stream stops with the client; the timeout stops the query, whose error ends the body.
      await sendBody(ctx, { 'Content-Type': JSON_TYPE }, counted(ctx, body), ctx.signal);
    } catch (e) {
      throw ctx.res.headersSent ? e : new QueryError(query, e);
    } finally {
      ctx.stats.rows += stats.sent;
    }
    if (stats.error !== undefined) ctx.report(stats.error); // ended a body already streaming (the body says so): logged and counted by its class
  } finally {
    t.dispose();
  }
}

/** A query's metadata (without columns for nm=true), or for other statements QuestDB's `{queryType}` alone. */
function validate(ctx: RequestContext, opts: SqlRouteOptions): void {
  const query = sqlText(ctx.url);
  const { stmt } = compileFor(query, opts);
  if (stmt.kind === 'select') {
    const columns = boolParam(ctx.url, 'nm') ? {} : { columns: stmt.fields.map((f) => resultColumn(f.name, f.type)) };
    sendJson(ctx, { query, ...columns, timestamp: stmt.timestamp });
  } else {
    sendJson(ctx, { queryType: stmt.queryType });
  }
}

/** `filename` (default questdb-query-<millis>.<ext>, as QuestDB names it), safe inside a quoted header value. */
function fileName(url: URL, ext = 'csv'): string {
  const raw = url.searchParams.get('filename');
  const name = raw === null || raw.trim() === '' ? `questdb-query-${Date.now()}` : raw.trim();
  const safe = name.replace(/[^\w.\- ]/g, '_');
  return safe.toLowerCase().endsWith(`.${ext}`) ? safe : `${safe}.${ext}`;
}

/**
 * /exp?fmt=parquet: every Parquet parameter is checked (400 naming it) and the
 * codec loaded before the query runs; the file streams row group by row group.
 */
async function exportParquet(ctx: RequestContext, opts: SqlRouteOptions, query: string): Promise<void> {
  const url = ctx.url;
  const options = parseParquetOptions(url.searchParams);
  boolParam(url, 'nm'); // validated like CSV's; a Parquet file has no header row to omit
  const window = expLimitParam(url);
  const timeout = expTimeoutParam(url) ?? opts.exportTimeoutMs ?? opts.queryTimeoutMs;
  const stmt = compileExport(query, opts);
  const plan = planParquet(stmt.fields, stmt.timestamp, sourceTable(stmt.plan), options);
  wantTextOutputs(stmt.plan); // text columns come with their partitions' dictionary codes where they have them
  const t = withTimeout(ctx.signal, timeout);
  const stats: RowStats = { sent: 0, matched: 0 };
  try {
    const headers = {
      'Content-Type': 'application/vnd.apache.parquet',
      'Content-Disposition': `attachment; filename="${fileName(url, 'parquet')}"`,
    };
    await sendBody(
      ctx,
      headers,
      counted(ctx, parquetBody(plan, stmt.execute(t.signal, t.deadline), window, stats, opts.database().formatPool())),
      ctx.signal,
      { compressible: false },
    );
  } finally {
    ctx.stats.rows += stats.sent;
    t.dispose();
  }
}

/** The export's statement: only a query (QuestDB's message for anything else). */
function compileExport(query: string, opts: SqlRouteOptions): SelectStatement {
  const { stmt } = compileFor(query, opts);
  if (stmt.kind !== 'select') throw new SvcError('SQL', '/exp endpoint only accepts SELECT', { position: 0 });
  return stmt;
}

/**
 * GET /exp: CSV (or Parquet). Every error before the body starts answers as
 * QuestDB's do, {query, error, position}: the query text ('' when there is
 * none) and position 0 for errors of the request rather than of the SQL.
 */
async function exportRows(ctx: RequestContext, opts: SqlRouteOptions): Promise<void> {
  const url = ctx.url;
  const query = url.searchParams.get('query') ?? '';
  try {
    if (query === '') throw new SvcError('BAD_REQUEST', 'No query text', { position: 0 });
    const fmt = url.searchParams.get('fmt') ?? 'csv';
    if (fmt.toLowerCase() === 'parquet') return await exportParquet(ctx, opts, query);
    if (fmt.toLowerCase() !== 'csv')
      throw new SvcError('BAD_REQUEST', `unrecognised format [format=${fmt}]`, { position: 0 });
    await exportCsv(ctx, opts, query);
  } catch (e) {
    if (ctx.res.headersSent || e instanceof QueryError) throw e;
    // A client that went away is not the query's error (sqlHandler passes its reason on).
    if (!isSvcError(e) || e.position !== undefined || e.status !== 400) throw new QueryError(query, e);
    throw new QueryError(query, new SvcError(e.code, e.message, { position: 0, cause: e.cause, headers: e.headers }));
  }
}

async function exportCsv(ctx: RequestContext, opts: SqlRouteOptions, query: string): Promise<void> {
  const url = ctx.url;
  const nm = boolParam(url, 'nm');
  const window = expLimitParam(url);
  const delimiter = expDelimiterParam(url);
  const timeout = expTimeoutParam(url) ?? opts.queryTimeoutMs;
  const stmt = compileExport(query, opts);
  wantBuiltTextOutputs(stmt.plan); // text with few distinct values is written from its partitions' codes where they are built
  const t = withTimeout(ctx.signal, timeout);
  const stats: RowStats = { sent: 0, matched: 0 };
  try {
    const headers = {
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="${fileName(url)}"`,
    };
    await sendBody(
      ctx,
      headers,
      counted(
        ctx,
        csvBody(
          stmt.fields,
          stmt.execute(t.signal, t.deadline),
          { nm, window, delimiter, pool: opts.database().formatPool() },
          stats,
        ),
      ),
      ctx.signal,
    );
  } finally {
    ctx.stats.rows += stats.sent;
    t.dispose();
  }
}

/** Counts the body bytes (before compression) for the request log and metrics. */
async function* counted(ctx: RequestContext, body: AsyncGenerator<Buffer>): AsyncGenerator<Buffer> {
  for await (const chunk of body) {
    ctx.stats.bytes += chunk.length;
    yield chunk;
  }
}

/** Wraps a handler so that compile and early execution errors answer {query, error, position}. */
function sqlHandler(fn: (ctx: RequestContext, opts: SqlRouteOptions) => Promise<void> | void, opts: SqlRouteOptions) {
  return async (ctx: RequestContext): Promise<void> => {
    try {
      await fn(ctx, opts);
    } catch (e) {
      if (e instanceof QueryError) {
        ctx.errorQuery = e.query;
        // A client that went away is not the query's error.
        throw ctx.signal.aborted && !isSvcError(e.inner) ? ctx.signal.reason : e.inner;
      }
      throw ctx.signal.aborted && !isSvcError(e) ? ctx.signal.reason : e;
    }
  };
}

export function sqlRoutes(opts: SqlRouteOptions): Route[] {
  return [
    {
      endpoint: 'execute',
      paths: ['/api/v1/sql/execute', '/execute', '/exec'],
      methods: { GET: sqlHandler(execute, opts) },
    },
    {
      endpoint: 'validate',
      paths: ['/api/v1/sql/validate', '/validate'],
      methods: { GET: sqlHandler(validate, opts) },
    },
    { endpoint: 'exp', paths: ['/exp'], methods: { GET: sqlHandler(exportRows, opts) } },
  ];
}
