// `svcdb shell` (and `svcdb query`): SQL statements read from a terminal (with
// history and multi-line editing), a file (-f), the command line or standard
// input, run on a server (--host) or a database folder (-d), printed by
// shell-session.ts. A script goes on after a failed statement and ends with
// exit code 1 when any failed (--bail stops at the first).
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { VERSION } from '../../version.js';
import { ArgList } from '../arg-list.js';
import { UsageError } from '../usage-error.js';
import { OUTPUT_MODES, type OutputMode } from './result-printer.js';
import { ShellSession, type SessionSettings } from './shell-session.js';
import { FolderSource, ServerSource, SourceError, type Source } from './sources.js';
import { StatementSplitter, type Statement } from './statement-splitter.js';
import { SHELL_HELP } from '../help.js';

export interface ShellIO {
  readonly stdin: Readable & { isTTY?: boolean };
  readonly stdout: Writable & { isTTY?: boolean; columns?: number };
  readonly stderr: Writable;
  readonly env: NodeJS.ProcessEnv;
}

interface ShellArgs {
  host: string | null;
  root: string | null;
  create: boolean;
  file: string | null;
  sql: string | null;
  mode: OutputMode;
  maxRows: number | null;
  auth: string | undefined;
  bail: boolean;
  help: boolean;
}

/** Rows a table shows by default in the shell; `svcdb query "<sql>"` prints them all. */
const SHELL_MAX_ROWS = 40;
const HISTORY_SIZE = 1000;

function parseArgs(argv: readonly string[], env: NodeJS.ProcessEnv, command: string): ShellArgs {
  const a: ShellArgs = {
    host: null,
    root: null,
    create: false,
    file: null,
    sql: null,
    mode: 'table',
    maxRows: null,
    auth: env.SVCDB_AUTH,
    bail: false,
    help: false,
  };
  const list = new ArgList(argv);
  for (let arg = list.next(); arg !== undefined; arg = list.next()) {
    const flag = arg;
    const value = (): string => list.value(flag);
    if (arg === '--host') a.host = value();
    else if (arg === '--user') a.auth = value();
    else if (arg === '-d' || arg === '--root') a.root = value();
    else if (arg === '--create') a.create = true;
    else if (arg === '-f' || arg === '--file') a.file = value();
    else if (arg === '-c' || arg === '--command') a.sql = value();
    else if (arg === '--mode' || arg === '--format') {
      const m = value();
      if (!(OUTPUT_MODES as readonly string[]).includes(m))
        throw new UsageError(`${flag} must be one of ${OUTPUT_MODES.join(', ')} [got ${m}]`);
      a.mode = m as OutputMode;
    } else if (arg === '--max-rows') {
      const n = value();
      if (!/^\d+$/.test(n)) throw new UsageError(`--max-rows takes a number of rows, 0 for all [got ${n}]`);
      a.maxRows = Number(n);
    } else if (arg === '--bail') a.bail = true;
    else if (arg === '--help' || arg === '-h') a.help = true;
    else if (arg.startsWith('-') && arg !== '-')
      throw new UsageError(`unknown option for ${command}: ${arg} (see svcdb ${command} --help)`);
    else if (a.sql === null) a.sql = arg;
    else throw new UsageError(`${command} takes one SQL text (quote it, or use -f <file>)`);
  }
  if (a.host !== null && a.root !== null)
    throw new UsageError('--host and -d exclude each other: a server, or a folder no server is running on');
  if (a.create && a.root === null) throw new UsageError('--create goes with -d <root>');
  if (a.file !== null && a.sql !== null) throw new UsageError('-f and the SQL text exclude each other');
  if (a.sql !== null && a.sql.trim() === '') throw new UsageError(`${command} got an empty SQL text`);
  return a;
}

/** Runs `svcdb shell` (or `svcdb query`, `command`) with `argv`; returns the exit code. */
export async function runShell(argv: readonly string[], io: ShellIO, command = 'shell'): Promise<number> {
  let args: ShellArgs;
  try {
    args = parseArgs(argv, io.env, command);
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`svcdb: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  if (args.help) {
    io.stdout.write(SHELL_HELP);
    return 0;
  }
  const interactive = args.file === null && args.sql === null && io.stdin.isTTY === true;
  let source: Source;
  try {
    source =
      args.root !== null
        ? FolderSource.open(args.root, { create: args.create })
        : new ServerSource(args.host ?? '127.0.0.1:9000', args.auth);
  } catch (e) {
    if (e instanceof SourceError) {
      io.stderr.write(`svcdb: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
  const settings: SessionSettings = {
    mode: args.mode,
    timing: false,
    // One statement given to `svcdb query` prints every row, as it always has.
    maxRows: args.maxRows ?? (command === 'query' && args.sql !== null ? 0 : SHELL_MAX_ROWS),
    nullText: 'NULL',
  };
  const columns = Number(io.env.COLUMNS);
  const session = new ShellSession(
    source,
    {
      stdout: io.stdout,
      stderr: io.stderr,
      width: () =>
        io.stdout.isTTY === true && io.stdout.columns
          ? io.stdout.columns
          : Number.isInteger(columns) && columns > 0
            ? columns
            : null,
      color: io.stdout.isTTY === true && io.env.NO_COLOR === undefined,
    },
    settings,
  );
  try {
    if (interactive) return await interactiveLoop(session, source, io);
    // Errors name the script's line; the SQL of the command line needs no name.
    const name = args.file ?? (args.sql !== null ? null : 'stdin');
    const input: AsyncIterable<string> =
      args.sql !== null
        ? single(args.sql)
        : args.file !== null
          ? lines(createReadStream(args.file, { encoding: 'utf8' }))
          : lines(io.stdin);
    return await scriptLoop(session, input, name, args.bail);
  } catch (e) {
    if (e instanceof SourceError) {
      io.stderr.write(`svcdb: ${e.message}\n`);
      return 1;
    }
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT' && args.file !== null) {
      io.stderr.write(`svcdb: there is no file ${args.file}\n`);
      return 1;
    }
    if (err.code === 'EISDIR' && args.file !== null) {
      io.stderr.write(`svcdb: ${args.file} is a folder; -f takes a file of SQL statements\n`);
      return 1;
    }
    throw e;
  } finally {
    await source.close();
  }
}

async function* single(text: string): AsyncGenerator<string> {
  yield text;
}

/** A stream's text line by line, each with its newline. */
async function* lines(stream: Readable): AsyncGenerator<string> {
  const rl = createInterface({ input: stream, crlfDelay: Infinity, terminal: false });
  try {
    for await (const line of rl) yield `${line}\n`;
  } finally {
    rl.close();
  }
}

/** A script: every statement in order; backslash commands on lines of their own. */
async function scriptLoop(
  session: ShellSession,
  input: AsyncIterable<string>,
  name: string | null,
  bail: boolean,
): Promise<number> {
  const splitter = new StatementSplitter();
  const signal = new AbortController().signal;
  const run = async (st: Statement): Promise<boolean> =>
    (await session.statement(st.text, signal, name === null ? undefined : { name, line: st.line })) || !bail;
  for await (const text of input) {
    if (!splitter.pending && text.trimStart().startsWith('\\')) {
      splitter.push('\n'); // keeps the splitter's line count
      const before = session.errors;
      if ((await session.command(text, signal)) === 'quit') break;
      if (session.errors > before && bail) return 1;
      continue;
    }
    for (const st of splitter.push(text)) if (!(await run(st))) return 1;
  }
  const last = splitter.finish();
  if (last !== null) await run(last);
  return session.errors > 0 ? 1 : 0;
}

function historyFile(env: NodeJS.ProcessEnv): string {
  return env.SVCDB_HISTORY ?? join(homedir(), '.svcdb_history');
}

/** The history, newest first as readline keeps it (the file holds it oldest first). */
function loadHistory(path: string): string[] {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .reverse()
      .slice(0, HISTORY_SIZE);
  } catch {
    return []; // no history yet
  }
}

async function interactiveLoop(session: ShellSession, source: Source, io: ShellIO): Promise<number> {
  const path = historyFile(io.env);
  const rl: Interface = createInterface({
    input: io.stdin,
    output: io.stdout,
    terminal: true,
    history: loadHistory(path),
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
  });
  let warned = false;
  rl.on('history', (h: string[]) => {
    try {
      writeFileSync(path, [...h].reverse().join('\n') + '\n', { mode: 0o600 });
    } catch (e) {
      if (!warned) io.stderr.write(`svcdb: history not saved to ${path}: ${(e as Error).message}\n`);
      warned = true;
    }
  });
  io.stdout.write(`svcdb ${VERSION} shell on ${source.label}. Statements end with ;  \\? for help, \\q to quit.\n`);
  const splitter = new StatementSplitter();
  let running: AbortController | null = null;
  const prompt = (): void => {
    rl.setPrompt(splitter.pending ? '   ...> ' : 'svcdb> ');
    rl.prompt();
  };
  rl.on('SIGINT', () => {
    if (running !== null) {
      running.abort(new Error('cancelled'));
      return;
    }
    // Ctrl-C at the prompt drops the statement being typed, as psql does.
    io.stdout.write(splitter.pending ? '^C\n' : '^C  (\\q or Ctrl-D quits)\n');
    splitter.reset();
    prompt();
  });
  prompt();
  try {
    for await (const line of rl) {
      const trimmed = line.trim();
      if (!splitter.pending && (trimmed === 'exit' || trimmed === 'quit')) break;
      running = new AbortController();
      try {
        if (!splitter.pending && trimmed.startsWith('\\')) {
          if ((await session.command(trimmed, running.signal)) === 'quit') break;
        } else {
          for (const st of splitter.push(`${line}\n`)) {
            await session.statement(st.text, running.signal);
            if (running.signal.aborted) break;
          }
        }
      } catch (e) {
        // The server went away or answered something else: said, and the shell stays.
        if (!(e instanceof SourceError)) throw e;
        io.stderr.write(`svcdb: ${e.message}\n`);
      } finally {
        running = null;
      }
      prompt();
    }
  } finally {
    rl.close();
  }
  io.stdout.write('\n');
  return 0;
}
