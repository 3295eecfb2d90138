// `svcdb import`: a file (or standard input) through the same importer as
// POST /imp, straight into the database folder, no server needed. The root's
// lock keeps it from writing next to a running server. A progress line shows
// on a terminal; the answer is /imp's text or JSON, then (on standard error)
// the first rejected lines and values stored as NULL with line, column, value
// and reason (--rejects writes them all to a CSV file). When no row was
// imported, nothing is published (no new table stays) and the exit code is 1.
import { createWriteStream, readFileSync, statSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { Database, type ImportJob } from '../db/database.js';
import { isSvcError } from '../errors/svc-error.js';
import { ArgList } from './arg-list.js';
import { folderProblem, DEFAULT_ROOT } from './database-folder.js';
import { ProgressLine } from './progress-line.js';
import { isSystemError, readProblem, writeProblem } from './system-errors.js';
import { parseArgsOrReport, UsageError } from './usage-error.js';
import { parsePartitionBy } from '../storage/partition-by.js';
import { sanitizeName, tableNameFromFile } from '../ingest/import-names.js';
import type { ImportIssue } from '../ingest/import-issues.js';
import { importJson, importText } from '../ingest/import-report.js';
import type { Atomicity, ImportOptions, ImportResult } from '../ingest/importer.js';
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
  rejects: string | null;
  /** Make the database folder when it holds none (-d's typo is refused otherwise). */
  createRoot: boolean;
  opts: Omit<ImportOptions, 'table' | 'schema' | 'analysisLines' | 'limits'>;
}

function parseArgs(args: readonly string[]): CliArgs {
  let file: string | null = null;
  const a: CliArgs = {
    file: '',
    root: DEFAULT_ROOT,
    table: null,
    json: false,
    schemaFile: null,
    rejects: null,
    createRoot: false,
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
      case '--rejects':
        a.rejects = value();
        break;
      case '--create':
        a.createRoot = true;
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
          throw new UsageError(`unknown option for import: ${arg} (see svcdb import --help)`);
        if (file !== null) throw new UsageError('import takes one file (or - for standard input)');
        file = arg;
    }
  }
  if (file === null)
    throw new UsageError('import needs a file: svcdb import trades.csv --table trades (or - for standard input)');
  a.file = file;
  return a;
}

/** Rejected lines the report on standard error shows (--rejects has them all). */
const SHOWN_ISSUES = 5;

/** Runs the command; returns the exit code. */
export async function runImportCli(argv: readonly string[], io: CliStreams): Promise<number> {
  const args = parseArgsOrReport(() => parseArgs(argv), io.stderr);
  if (args === null) return 1;
  try {
    return await importFile(args, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`svcdb: ${e.message}\n`);
      return 1;
    }
    if (isSvcError(e) && e.status < 500) {
      io.stderr.write(`svcdb: ${inCliWords(e.message, args)}\n`);
      return 1;
    }
    if (isSystemError(e)) {
      // The CSV file, or else the database folder (made, locked, written).
      const csv = e.path === undefined || e.path === args.file;
      io.stderr.write(
        `svcdb: ${csv ? readProblem(args.file, e, 'a CSV file') : `cannot use the database folder ${args.root}: ${writeProblem(e.path!, e)}`}\n`,
      );
      return 1;
    }
    throw e;
  }
}

async function importFile(args: CliArgs, io: CliStreams): Promise<number> {
  const fromStdin = args.file === '-';
  const total = fromStdin ? 0 : csvFileSize(args.file);
  const table =
    args.table !== null ? sanitizeName(args.table, 'import') : fromStdin ? null : tableNameFromFile(args.file);
  if (table === null) throw new UsageError('reading standard input needs --table <name>');
  const schema =
    args.schemaFile === null
      ? []
      : parseSchema(readText(args.schemaFile, 'a JSON schema file'), `the --schema file ${args.schemaFile}`);
  const problem = folderProblem(args.root, 'import', args.createRoot);
  if (problem !== null) throw new UsageError(problem);
  const rejects = args.rejects === null ? null : await openRejects(args.rejects);
  const shown: ImportIssue[] = [];
  let db: Database;
  try {
    db = Database.open(args.root);
  } catch (e) {
    await rejects?.close();
    if (isSvcError(e) && e.code === 'UNAVAILABLE') {
      throw new UsageError(
        `${e.message}: stop the server, or import through it: curl -F data=@${fromStdin ? 'file.csv' : args.file} 'http://localhost:9000/imp?name=${table}'`,
      );
    }
    throw e;
  }
  const progress = io.stderr.isTTY
    ? new ProgressLine(io.stderr, fromStdin ? 'standard input' : args.file, total)
    : null;
  let interrupted = false;
  const onSigint = (): void => {
    interrupted = true;
  };
  process.once('SIGINT', onSigint);
  let job: ImportJob | null = null;
  try {
    const existed = db.tableExists(table);
    job = db.importJob({
      opts: {
        ...args.opts,
        issues: {
          keep: rejects !== null ? Infinity : SHOWN_ISSUES,
          raw: rejects !== null,
          add: (i) => {
            if (shown.length < SHOWN_ISSUES) shown.push(i);
            rejects?.add(i);
          },
        },
      },
      table,
      schema,
      location: args.file,
    });
    const result = await job.stage(fromStdin ? io.stdin : { path: args.file }, {
      stopped: () => (interrupted ? new UsageError('interrupted: nothing was imported') : null),
      onChunk: (p) => progress?.update(p.bytes, p.rowsImported),
    });
    progress?.clear();
    const nulled = job.valuesNulled;
    if (result.rowsImported === 0) {
      // Nothing to publish: a new table would stay empty, so none is made.
      job.abort();
      job = null;
      io.stderr.write(`svcdb: ${nothingImported(result, table, existed)}\n`);
      writeIssues(io.stderr, shown, result.rowsRejected, nulled, args.rejects);
      io.stderr.write(`svcdb: ${advice(shown, args)}\n`);
      return 1;
    }
    await job.publish();
    job = null;
    io.stdout.write(args.json ? `${importJson(result)}\n` : importText(result));
    if (result.rowsRejected > 0 || nulled > 0) {
      io.stderr.write(`svcdb: ${counts(result.rowsRejected, nulled)} in ${table}\n`);
      writeIssues(io.stderr, shown, result.rowsRejected, nulled, args.rejects);
    }
    return 0;
  } finally {
    progress?.clear();
    job?.abort();
    process.removeListener('SIGINT', onSigint);
    await db.close();
    await rejects?.close();
  }
}

/** The importer's messages, worded for /imp's parameters, in terms of this command's options. */
function inCliWords(message: string, args: CliArgs): string {
  const ts = args.opts.timestamp;
  if (/^(min deviation is too high|not enough lines)/.test(message))
    return `the delimiter could not be detected (${message}): give it with --delimiter (e.g. --delimiter ';' or --delimiter tab)`;
  if (message.startsWith('invalid timestamp column '))
    return `the file has no column ${ts} for --timestamp: check the name against the file's header`;
  if (message.startsWith('not a timestamp '))
    return `column ${ts} (--timestamp) was not detected as a timestamp: give its type and pattern in a --schema file, e.g. [{"name": "${ts}", "type": "TIMESTAMP", "pattern": "yyyy-MM-dd HH:mm:ss"}]`;
  if (message === 'when specifying partitionBy you must also specify timestamp')
    return '--partition-by needs --timestamp <column>';
  if (/^table does not exist \[table=(.*)\] and create param/.test(message))
    return `table ${/\[table=(.*?)\]/.exec(message)![1]} does not exist, and --no-create was given`;
  return message;
}

/** "2 rows rejected, 3 values stored as NULL". */
function counts(rejected: number, nulled: number): string {
  const parts: string[] = [];
  if (rejected > 0) parts.push(`${rejected.toLocaleString('en-US')} row${rejected === 1 ? '' : 's'} rejected`);
  if (nulled > 0)
    parts.push(`${nulled.toLocaleString('en-US')} value${nulled === 1 ? '' : 's'} that did not convert stored as NULL`);
  return parts.join(', ');
}

function nothingImported(r: ImportResult, table: string, existed: boolean): string {
  const why =
    r.rowsRejected > 0
      ? `all ${r.rowsRejected.toLocaleString('en-US')} row${r.rowsRejected === 1 ? ' was' : 's were'} rejected`
      : 'the file has no rows';
  return `nothing was imported: ${why}; ${existed ? `table ${table} is unchanged` : `no table ${table} was made`}`;
}

/** What to try when every row was rejected. */
function advice(shown: readonly ImportIssue[], args: CliArgs): string {
  const first = shown[0];
  if (first !== undefined && /TIMESTAMP|DATE/.test(first.reason) && args.schemaFile !== null)
    return `check the pattern of ${first.column ?? 'the timestamp'} in ${args.schemaFile} against the values above (e.g. yyyy-MM-ddTHH:mm:ss.SSSUUUZ for 2024-01-01T00:00:00.000000Z)`;
  if (first !== undefined && /TIMESTAMP|DATE/.test(first.reason))
    return `check the timestamp column's format: give its pattern in a --schema file ([{"name": "${first.column ?? 'ts'}", "type": "TIMESTAMP", "pattern": "yyyy-MM-dd HH:mm:ss"}]), or import without --timestamp and convert it in SQL`;
  if (args.opts.atomicity === 'skipRow')
    return 'fix the values above, or import with --atomicity skipCol (bad values become NULL)';
  return 'fix the values above (or the --schema types), then import again';
}

/** The first issues, one line each, and where the rest are. */
function writeIssues(
  out: Writable,
  shown: readonly ImportIssue[],
  rejected: number,
  nulled: number,
  rejectsFile: string | null,
): void {
  if (shown.length === 0) return;
  const more = rejected + nulled > shown.length;
  out.write(`  the first ${shown.length === 1 ? 'one' : shown.length}:\n`);
  for (const i of shown) out.write(`    ${issueLine(i)}\n`);
  if (rejectsFile !== null) out.write(`  every one is in ${rejectsFile}\n`);
  else if (more) out.write('  (--rejects <file.csv> writes every one with its line)\n');
}

function issueLine(i: ImportIssue): string {
  const value = i.value === null ? '' : `, value ${JSON.stringify(shorten(i.value))}`;
  const column = i.column === null ? '' : `, column ${i.column}`;
  const extra = i.column === null ? ' (--skip-lev keeps such rows without their extra values)' : '';
  return `line ${i.line}${column}${value}: ${i.reason}; ${i.action === 'rejected' ? 'row rejected' : 'stored as NULL'}${extra}`;
}

function shorten(v: string): string {
  return v.length > 60 ? `${v.slice(0, 57)}...` : v;
}

/** The --rejects file: a CSV of every issue, written as they come. */
interface RejectsFile {
  add(i: ImportIssue): void;
  close(): Promise<void>;
}

async function openRejects(path: string): Promise<RejectsFile> {
  const out: WriteStream = createWriteStream(path);
  let failure: Error | null = null;
  out.on('error', (e) => {
    failure = e;
  });
  try {
    await once(out, 'open');
  } catch (e) {
    throw new UsageError(isSystemError(e) ? `--rejects: ${writeProblem(path, e)}` : String(e));
  }
  out.write('line,column,value,reason,action,raw_line\n');
  return {
    add(i) {
      out.write(
        `${i.line},${csvField(i.column ?? '')},${csvField(i.value ?? '')},${csvField(i.reason)},${i.action},${csvField(i.raw ?? '')}\n`,
      );
    },
    async close() {
      if (!out.writableEnded) {
        out.end();
        await once(out, 'close').catch(() => {});
      }
      const f: Error | null = failure;
      if (f !== null) throw new UsageError(isSystemError(f) ? `--rejects: ${writeProblem(path, f)}` : f.message);
    },
  };
}

function csvField(v: string): string {
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/** The CSV file's size; a missing file, a folder or one that cannot be read refused in words. */
function csvFileSize(path: string): number {
  try {
    const st = statSync(path);
    if (st.isDirectory()) throw new UsageError(`${path} is a directory, give a CSV file`);
    return st.size;
  } catch (e) {
    if (isSystemError(e)) throw new UsageError(readProblem(path, e, 'a CSV file'));
    throw e;
  }
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    if (isSystemError(e)) throw new UsageError(readProblem(path, e, what));
    throw e;
  }
}
