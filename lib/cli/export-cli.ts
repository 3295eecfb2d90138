// `svcdb export`: a query of a database folder (no server running on it) to
// CSV, JSON, JSON lines or Parquet, on standard output or into a file, through
// the Database's export (the library's writers: the same bytes as /exp and
// /exec write); or, with --host, a running server's /exp (CSV or Parquet)
// streamed into the file. With -o, one line on standard error says what was written.
import { createWriteStream } from 'node:fs';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Database, openError, type ExportProgress } from '../db/database.js';
import { SvcError, isSqlError, isSvcError } from '../errors/svc-error.js';
import { BATCH_FORMATS, type BatchFormat } from '../export/batch-formats.js';
import { ArgList } from './arg-list.js';
import { DEFAULT_ROOT, folderProblem } from './database-folder.js';
import { humanBytes } from './progress-line.js';
import { isSystemError, plain, writeProblem } from './system-errors.js';
import { hostUrl, ServerSource, SourceError, StatementError } from './shell/sources.js';
import { parseArgsOrReport, UsageError } from './usage-error.js';
import { PARQUET_PARAMETERS, parseParquetOptions } from '../export/parquet/options.js';

export interface ExportStreams {
  readonly stdout: Writable;
  readonly stderr: Writable;
}

const FORMATS = BATCH_FORMATS;
type Format = BatchFormat;

interface ExportArgs {
  sql: string;
  root: string;
  format: Format;
  out: string | null;
  header: boolean;
  parquet: Record<string, string>;
  /** A running server's REST API (--host), or null: the folder at `root`. */
  host: string | null;
  auth: string | undefined;
  rootGiven: boolean;
}

function parseArgs(args: readonly string[]): ExportArgs {
  const a: ExportArgs = {
    sql: '',
    root: DEFAULT_ROOT,
    format: 'csv',
    out: null,
    header: true,
    parquet: {},
    host: null,
    auth: process.env.SVCDB_AUTH,
    rootGiven: false,
  };
  let sql: string | null = null;
  let formatGiven = false;
  const list = new ArgList(args);
  for (let arg = list.next(); arg !== undefined; arg = list.next()) {
    const flag = arg;
    const value = (): string => list.value(flag);
    if (arg === '-d' || arg === '--root') {
      a.root = value();
      a.rootGiven = true;
    } else if (arg === '--host') a.host = value();
    else if (arg === '--user') a.auth = value();
    else if (arg === '-o' || arg === '--output') a.out = value();
    else if (arg === '--format') {
      const f = value();
      if (!(FORMATS as readonly string[]).includes(f))
        throw new UsageError(`--format must be one of ${FORMATS.join(', ')} [got ${f}]`);
      a.format = f as Format;
      formatGiven = true;
    } else if (arg === '--no-header') a.header = false;
    else if (arg.startsWith('--')) {
      // The /exp Parquet parameters: --compression_codec zstd or --compression_codec=zstd (dashes work too).
      const eq = arg.indexOf('=');
      const name = (eq < 0 ? arg.slice(2) : arg.slice(2, eq)).replace(/-/g, '_');
      if (!PARQUET_PARAMETERS.includes(name))
        throw new UsageError(`unknown option for export: ${arg} (see svcdb export --help)`);
      a.parquet[name] = eq < 0 ? value() : arg.slice(eq + 1);
    } else if (sql === null) sql = arg;
    else throw new UsageError('export takes one SQL text (quote it)');
  }
  if (sql === null || sql.trim() === '')
    throw new UsageError('export needs the SQL text: svcdb export "select * from trades" -o trades.csv');
  a.sql = sql;
  // The file name's extension picks the format when --format does not.
  if (!formatGiven && a.out !== null) {
    const ext = /\.([a-z]+)$/i.exec(a.out)?.[1]?.toLowerCase();
    if (ext === 'parquet' || ext === 'json' || ext === 'jsonl') a.format = ext;
    else if (ext === 'ndjson') a.format = 'jsonl';
  }
  if (Object.keys(a.parquet).length > 0 && a.format !== 'parquet')
    throw new UsageError(
      `Parquet options need --format parquet (or an -o file ending in .parquet) [format=${a.format}]`,
    );
  if (a.format === 'parquet' && a.out === null) throw new UsageError('Parquet goes to a file: add -o <file>.parquet');
  if (a.host !== null) {
    if (a.rootGiven) throw new UsageError('--host and -d exclude each other: a running server, or a folder');
    if (a.format !== 'csv' && a.format !== 'parquet')
      throw new UsageError(`a server's /exp writes csv or parquet [format=${a.format}]; use svcdb query for json`);
    if (!a.header)
      throw new UsageError("--no-header is for a folder's export; a server's /exp always writes the header");
  }
  return a;
}

/** Runs the command; returns the exit code. */
export async function runExportCli(argv: readonly string[], io: ExportStreams): Promise<number> {
  const args = parseArgsOrReport(() => parseArgs(argv), io.stderr);
  if (args === null) return 1;
  let progress: ExportProgress = { rows: 0, bytes: 0 };
  const onProgress = (p: ExportProgress): void => {
    progress = p;
  };
  try {
    // The Parquet options are checked before the folder is opened (400 naming the parameter).
    const parquet = args.format === 'parquet' ? parseParquetOptions(new URLSearchParams(args.parquet)) : undefined;
    if (args.host !== null) {
      await exportFromServer(args, args.host, io);
      return 0;
    }
    // A folder without a database is refused: opening it would make an empty one.
    const problem = folderProblem(args.root, 'export');
    if (problem !== null) throw new UsageError(problem);
    let db: Database;
    try {
      db = Database.open(args.root);
    } catch (e) {
      const err = openError(args.root, e);
      // A folder a server holds: the server can export it (--host).
      if (isSvcError(err) && err.code === 'UNAVAILABLE')
        throw new UsageError(`${err.message}: svcdb export --host <host[:port]> exports from the running server`);
      throw err;
    }
    try {
      const notSelect = (stmt: { kind: string }): SvcError =>
        new SvcError('SQL', `query() runs SELECT statements; use execute() for ${stmt.kind.toUpperCase()}`, {
          position: 0,
        });
      const bytes = Readable.from(
        db.export(args.sql, args.format, { header: args.header, query: args.sql, parquet, onProgress }, notSelect),
        { objectMode: false },
      );
      if (args.out === null) {
        await pipeline(bytes, io.stdout, { end: false });
        if (args.format === 'json') io.stdout.write('\n');
      } else {
        await pipeline(bytes, createWriteStream(args.out));
        io.stderr.write(
          `exported ${progress.rows.toLocaleString('en-US')} rows, ${humanBytes(progress.bytes)} of ${args.format} to ${args.out}\n`,
        );
      }
    } finally {
      await db.close();
    }
    return 0;
  } catch (e) {
    // The reader went away (`svcdb export ... | head`): not an error.
    if (
      (e as NodeJS.ErrnoException).code === 'EPIPE' ||
      (e as NodeJS.ErrnoException).code === 'ERR_STREAM_PREMATURE_CLOSE'
    )
      return 0;
    if (e instanceof UsageError) {
      io.stderr.write(`svcdb: ${e.message}\n`);
      return 1;
    }
    if (isSvcError(e) && e.status < 500) {
      if (e.position !== undefined && isSqlError(e))
        io.stderr.write(`${args.sql}\n${' '.repeat(Math.max(0, e.position))}^\n`);
      io.stderr.write(
        `svcdb: ${e.message}${e.position !== undefined && isSqlError(e) ? ` [position=${e.position}]` : ''}\n`,
      );
      return 1;
    }
    if (isSystemError(e)) {
      io.stderr.write(
        `svcdb: ${args.out !== null && (e.path === undefined || e.path === args.out) ? writeProblem(args.out, e) : plain(e)}\n`,
      );
      return 1;
    }
    throw e;
  }
}

/**
 * `--host`: the server's /exp (fmt=csv or parquet, the Parquet options as its parameters) streamed
 * to the file or standard output, as `curl -G .../exp` would, so a running server's data can be
 * exported without stopping it; through the shell's ServerSource (its port, credential and
 * not-svcdb messages). Refusals are the server's message, with the caret at its position.
 */
async function exportFromServer(args: ExportArgs, host: string, io: ExportStreams): Promise<void> {
  const source = new ServerSource(host, args.auth);
  let body: AsyncIterable<Uint8Array>;
  try {
    body = await source.exp(new URLSearchParams({ query: args.sql, fmt: args.format, ...args.parquet }), {
      signal: new AbortController().signal,
    });
  } catch (e) {
    if (e instanceof StatementError)
      throw new SvcError('SQL', e.message, e.position === undefined ? {} : { position: e.position });
    if (e instanceof SourceError) throw new UsageError(e.message);
    throw e;
  }
  let bytes = 0;
  const counted = async function* (): AsyncGenerator<Uint8Array> {
    for await (const c of body) {
      bytes += c.length;
      yield c;
    }
  };
  if (args.out === null) await pipeline(Readable.from(counted()), io.stdout, { end: false });
  else {
    await pipeline(Readable.from(counted()), createWriteStream(args.out));
    io.stderr.write(`exported ${humanBytes(bytes)} of ${args.format} from ${hostUrl(host)} to ${args.out}\n`);
  }
}
