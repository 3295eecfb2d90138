// `svcdb import`: a file (or standard input) through the same importer as
// POST /imp, straight into the database folder, no server needed. The root's
// lock keeps it from writing next to a running server. A progress bar with
// rows/s and MB/s shows on a terminal; the answer is /imp's text or JSON.
import { readFileSync, statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import cliProgress from 'cli-progress';
import { Database } from '../db/database.js';
import { isSvcError } from '../errors/svc-error.js';
import { ArgList } from './arg-list.js';
import { parseArgsOrReport, UsageError } from './usage-error.js';
import { parsePartitionBy } from '../storage/partition-by.js';
import { sanitizeName, tableNameFromFile } from '../ingest/import-names.js';
import { importJson, importText } from '../ingest/import-report.js';
import type { Atomicity, ImportOptions } from '../ingest/importer.js';
import { parseSchema } from '../ingest/schema.js';

export interface CliStreams {
  readonly stdout: Writable & { isTTY?: boolean };
  readonly stderr: Writable & { isTTY?: boolean };
  readonly stdin: Readable;
}

interface CliArgs {
  file: string;
  root: string;
  table: string | null;
  json: boolean;
  schemaFile: string | null;
  opts: Omit<ImportOptions, 'table' | 'schema' | 'analysisLines' | 'limits'>;
}

function parseArgs(args: readonly string[]): CliArgs {
  let file: string | null = null;
  const a: CliArgs = {
    file: '',
    root: './svcdb-data',
    table: null,
    json: false,
    schemaFile: null,
    opts: {
      atomicity: 'skipCol',
      delimiter: null,
      forceHeader: false,
      overwrite: false,
      create: true,
      partitionBy: null,
      timestamp: null,
      skipLev: false,
    },
  };
  const o = a.opts as { -readonly [K in keyof CliArgs['opts']]: CliArgs['opts'][K] };
  const list = new ArgList(args);
  for (let arg = list.next(); arg !== undefined; arg = list.next()) {
    const flag = arg;
    const value = (): string => list.value(flag);
    switch (arg) {
      case '-d':
      case '--root':
        a.root = value();
        break;
      case '--table':
      case '--name':
        a.table = value();
        break;
      case '--timestamp':
        o.timestamp = value();
        break;
      case '--partition-by':
      case '--partitionBy': {
        const v = value();
        const p = parsePartitionBy(v);
        if (!p) throw new UsageError(`--partition-by must be NONE, HOUR, DAY, WEEK, MONTH or YEAR [got ${v}]`);
        o.partitionBy = p;
        break;
      }
      case '--delimiter': {
        const v = value();
        const t = v === '\\t' || v.toLowerCase() === 'tab' ? '\t' : v;
        if (t.length !== 1) throw new UsageError(`--delimiter must be one character [got ${JSON.stringify(v)}]`);
        o.delimiter = t.charCodeAt(0);
        break;
      }
      case '--schema':
        a.schemaFile = value();
        break;
      case '--atomicity': {
        const v = value();
        const at = ({ skipcol: 'skipCol', skiprow: 'skipRow', abort: 'abort' } as Record<string, Atomicity>)[
          v.toLowerCase()
        ];
        if (!at) throw new UsageError(`--atomicity must be skipCol, skipRow or abort [got ${v}]`);
        o.atomicity = at;
        break;
      }
      case '--force-header':
        o.forceHeader = true;
        break;
      case '--overwrite':
        o.overwrite = true;
        break;
      case '--skip-lev':
        o.skipLev = true;
        break;
      case '--no-create':
        o.create = false;
        break;
      case '--format': {
        const v = value();
        if (v !== 'text' && v !== 'json') throw new UsageError(`--format must be text or json [got ${v}]`);
        a.json = v === 'json';
        break;
      }
      default:
        if (arg.startsWith('-') && arg !== '-')
          throw new UsageError(`unknown argument for import: ${arg} (see svcdb --help)`);
        if (file !== null) throw new UsageError('import takes one file (or - for standard input)');
        file = arg;
    }
  }
  if (file === null)
    throw new UsageError('import needs a file: svcdb import trades.csv --table trades (or - for standard input)');
  a.file = file;
  return a;
}

/** Runs the command; returns the exit code. */
export async function runImportCli(argv: readonly string[], io: CliStreams): Promise<number> {
  const args = parseArgsOrReport(() => parseArgs(argv), io.stderr);
  if (args === null) return 1;
  const fromStdin = args.file === '-';
  const total = fromStdin ? 0 : fileSize(args.file);
  const table =
    args.table !== null ? sanitizeName(args.table, 'import') : fromStdin ? null : tableNameFromFile(args.file);
  if (table === null) {
    io.stderr.write('svcdb: reading standard input needs --table\n');
    return 1;
  }
  const schema = args.schemaFile === null ? [] : parseSchema(readText(args.schemaFile));
  let db: Database;
  try {
    db = Database.open(args.root);
  } catch (e) {
    if (isSvcError(e) && e.code === 'UNAVAILABLE') {
      io.stderr.write(
        `svcdb: ${e.message}: stop the server, or import through it: curl -F data=@${fromStdin ? 'file.csv' : args.file} 'http://localhost:9000/imp?name=${table}'\n`,
      );
      return 1;
    }
    throw e;
  }
  const bar = io.stderr.isTTY ? progressBar(io.stderr, total) : null;
  const started = performance.now();
  let interrupted = false;
  const onSigint = (): void => {
    interrupted = true;
  };
  process.once('SIGINT', onSigint);
  try {
    let lastDraw = 0;
    const result = await db.importStream(fromStdin ? io.stdin : { path: args.file }, {
      opts: args.opts,
      table,
      schema,
      location: args.file,
      stopped: () => (interrupted ? new UsageError('interrupted: nothing was imported') : null),
      onChunk: (p) => {
        if (!bar || performance.now() - lastDraw <= 100) return;
        lastDraw = performance.now();
        const s = (lastDraw - started) / 1000;
        bar.update(total > 0 ? Math.min(total, p.bytes) : p.bytes, {
          rows: p.rowsImported.toLocaleString('en-US'),
          rps: Math.round(p.rowsImported / s).toLocaleString('en-US'),
          mbs: (p.bytes / 1e6 / s).toFixed(1),
        });
      },
    });
    bar?.stop();
    io.stdout.write(args.json ? `${importJson(result)}\n` : importText(result));
    return 0;
  } catch (e) {
    bar?.stop();
    if (e instanceof UsageError || (isSvcError(e) && e.status < 500)) {
      io.stderr.write(`svcdb: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    process.removeListener('SIGINT', onSigint);
    await db.close();
  }
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch (e) {
    throw new UsageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function readText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UsageError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function progressBar(out: Writable, total: number): cliProgress.SingleBar {
  const bar = new cliProgress.SingleBar(
    {
      stream: out,
      format:
        total > 0
          ? 'importing [{bar}] {percentage}% | {rows} rows | {rps} rows/s | {mbs} MB/s'
          : 'importing {value} bytes | {rows} rows | {rps} rows/s | {mbs} MB/s',
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total > 0 ? total : 1, 0, { rows: '0', rps: '0', mbs: '0.0' });
  return bar;
}
