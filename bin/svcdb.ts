#!/usr/bin/env node
// The svcdb command line: `serve` runs the server, `query` runs SQL against a
// running one, `import` and `export` work on a database folder no server is
// running on. Thin: parses arguments and calls lib/ (or the server's HTTP API).
import { once } from 'node:events';
import { SvcdbServer } from '../lib/server.js';
import { VERSION } from '../lib/version.js';
import { printTable } from '../lib/export/text-table.js';

const HELP = `svcdb ${VERSION}: a time-series SQL database server (QuestDB dialect and HTTP API)

Usage:
  svcdb serve [-d <root>] [--service] [-Dout=<log.conf>] [-Debug]
  svcdb query "<sql>" [--host <url>] [--format table|csv|json] [--user <user:password>]
  svcdb import <file|-> [--table t] [--timestamp ts] [--partition-by DAY] [--delimiter ,]
               [--schema schema.json] [--atomicity skipCol|skipRow|abort] [--force-header]
               [--overwrite] [--skip-lev] [--format text|json] [-d <root>]
  svcdb export "<sql>" [-o <file>] [--format csv|json|jsonl|parquet] [--no-header]
               [--compression_codec zstd] [--<other /exp Parquet parameter> <value>] [-d <root>]
  svcdb --version
  svcdb --help

serve        Starts the server. REST API on port 9000, health server on 9003.
  -d <root>      Database root holding conf/, db/ and log/ (default ./svcdb-data).
                 conf/server.conf and conf/log.conf are created with defaults.
  --service      Service mode: console log lines go to log/service-<timestamp>.txt
                 instead of standard output.
  -Dout=<path>   Use this log.conf instead of <root>/conf/log.conf.
  -Debug         Debug logging on every writer (also SVC_DEBUG=true).

query        Runs one SQL statement on a running server and prints the result.
  --host <url>   Server address (default http://127.0.0.1:9000; host:port works too).
  --format f     table (aligned, the default), csv (as /exp writes it) or json (/exec's body).
  --user u:p     Basic authentication credentials (also SVCDB_AUTH=u:p).

import       Imports a CSV (or TAB/pipe/semicolon separated) file into a table of the
             database at -d <root> (default ./svcdb-data), with no server running on it:
             the same detection, conversion and rules as POST /imp. '-' reads standard
             input; .gz files are decompressed. A progress bar shows on a terminal.
  --table t      Target table (default: the file name without its extension).
  --schema f     A JSON file: [{"name": "ts", "type": "TIMESTAMP", "pattern": "yyyy-MM-dd HH:mm:ss"}, ...].
  Other options as the /imp parameters (timestamp, partitionBy, delimiter, atomicity,
  forceHeader, overwrite, skipLev); --format json prints /imp's fmt=json answer.

export       Runs a query on the database at -d <root> (default ./svcdb-data), with no server
             running on it, and writes the result as /exp and /exec write it: to standard
             output, or with -o into a file (a line on standard error then says how much).
  --format f     csv (default), json (/exec's document), jsonl (one object per row) or
                 parquet (needs -o); without it, an -o name ending in .parquet, .json or
                 .jsonl picks the format.
  --no-header    CSV without the header line.
  Parquet: the /exp parameters as options, e.g. --compression_codec snappy --row_group_size 50000.

Every server.conf key can be set by an environment variable: SVC_ + the key
upper-cased with dots as underscores (SVC_HTTP_NET_BIND_TO=127.0.0.1:9000).
`;

interface ServeArgs {
  root: string;
  service: boolean;
  logConf: string | undefined;
  debug: boolean;
}

function fail(message: string): never {
  process.stderr.write(`svcdb: ${message}\n`);
  process.exit(1);
}

function parseServe(args: string[]): ServeArgs {
  const out: ServeArgs = { root: './svcdb-data', service: false, logConf: undefined, debug: false };
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '-d' || a === '--root') {
      const v = args[++i];
      if (v === undefined || v === '') fail(`${a} needs a folder`);
      out.root = v;
    } else if (a.startsWith('-d=')) out.root = a.slice(3);
    else if (a === '--service') out.service = true;
    else if (a.startsWith('-Dout=')) {
      out.logConf = a.slice(6);
      if (out.logConf === '') fail('-Dout= needs a path');
    } else if (a === '-Debug' || a === '--debug') out.debug = true;
    else fail(`unknown argument for serve: ${a} (see svcdb --help)`);
  }
  return out;
}

async function serve(args: ServeArgs): Promise<void> {
  let server: SvcdbServer;
  try {
    server = await SvcdbServer.start(args);
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
  // An error that escapes every handler is counted and logged; the server keeps serving.
  process.on('uncaughtException', (e) => server.recordUnhandled('exception', e));
  process.on('unhandledRejection', (e) => server.recordUnhandled('promise rejection', e));
  let signals = 0;
  const onSignal = (sig: NodeJS.Signals): void => {
    if (++signals > 1) {
      process.stderr.write(`svcdb: ${sig} again, exiting now\n`);
      process.exit(1);
    }
    server.stop(`${sig} received`).then(
      () => process.exit(0),
      (e: unknown) => fail(`error while stopping: ${e instanceof Error ? e.message : String(e)}`),
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Lines still buffered when the process exits for another reason are written out.
  process.on('exit', () => server.logs.flush());
}

interface QueryArgs {
  sql: string;
  host: string;
  format: 'table' | 'csv' | 'json';
  auth: string | undefined;
}

function parseQuery(args: string[]): QueryArgs {
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
    else if (a.startsWith('--')) fail(`unknown argument for query: ${a} (see svcdb --help)`);
    else if (out.sql === undefined) out.sql = a;
    else fail('query takes one SQL text (quote it)');
  }
  if (out.sql === undefined || out.sql.trim() === '') fail('query needs the SQL text: svcdb query "select 1"');
  if (!/^https?:\/\//.test(out.host!)) out.host = `http://${out.host!}`;
  return out as QueryArgs;
}

async function query(q: QueryArgs): Promise<void> {
  const path = q.format === 'csv' ? '/exp' : '/exec';
  const url = `${q.host.replace(/\/+$/, '')}${path}?query=${encodeURIComponent(q.sql)}`;
  const headers: Record<string, string> = {};
  if (q.auth) headers.authorization = `Basic ${Buffer.from(q.auth).toString('base64')}`;
  let res: Response;
  try {
    res = await fetch(url, { headers });
  } catch (e) {
    fail(`cannot reach ${q.host}: ${e instanceof Error && e.cause instanceof Error ? e.cause.message : String(e)}`);
  }
  if (!res.ok) {
    const text = await res.text();
    let body: { error?: string; position?: number } = {};
    try { body = JSON.parse(text) as typeof body; } catch { body = { error: text || res.statusText }; }
    if (body.position !== undefined) {
      process.stderr.write(`${q.sql}\n${' '.repeat(Math.max(0, body.position))}^\n`);
      fail(`${body.error} [position=${body.position}]`);
    }
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

async function importCommand(args: string[]): Promise<void> {
  const { runImportCli } = await import('../lib/ingest/import-cli.js');
  try {
    process.exitCode = await runImportCli(args, { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin });
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
}

async function exportCommand(args: string[]): Promise<void> {
  const { runExportCli } = await import('../lib/api/export-cli.js');
  try {
    process.exitCode = await runExportCli(args, { stdout: process.stdout, stderr: process.stderr });
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
}

async function main(argv: string[]): Promise<void> {
  const [cmd, ...rest] = argv;
  switch (cmd) {
    case '--version': case '-v': case 'version':
      process.stdout.write(`svcdb ${VERSION}\n`);
      return;
    case undefined: case '--help': case '-h': case 'help':
      process.stdout.write(HELP);
      return;
    case 'serve':
      return serve(parseServe(rest));
    case 'query':
      return query(parseQuery(rest));
    case 'import':
      return importCommand(rest);
    case 'export':
      return exportCommand(rest);
    default:
      fail(`unknown command ${cmd} (see svcdb --help)`);
  }
}

await main(process.argv.slice(2));
