// The svcdb command line: argv -> the command. `serve` runs the server,
// `query` and `shell` run SQL on a running one or a folder, `import` and `export` work on a
// database folder no server is running on (through lib/db's Database).
import { VERSION } from '../version.js';
import { fail } from './fail.js';
import { COMMAND_HELP, HELP, wantsHelp } from './help.js';
import { parseQuery, query, shell } from './query-cli.js';
import { parseServe, serve, type StartServer } from './serve-cli.js';

export interface CliDeps {
  /** Starts the server for `serve` (the composition root, lib/server.ts, above this layer). */
  readonly startServer: StartServer;
}

async function importCommand(args: string[]): Promise<void> {
  // Loaded on use: `serve` and `query` start without the importer.
  const { runImportCli } = await import('./import-cli.js');
  try {
    process.exitCode = await runImportCli(args, {
      stdout: process.stdout,
      stderr: process.stderr,
      stdin: process.stdin,
    });
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
}

async function exportCommand(args: string[]): Promise<void> {
  const { runExportCli } = await import('./export-cli.js');
  try {
    process.exitCode = await runExportCli(args, { stdout: process.stdout, stderr: process.stderr });
  } catch (e) {
    fail(e instanceof Error ? e.message : String(e));
  }
}

/** Runs the command `argv` names (process.argv without node and the script). */
export async function runCli(argv: readonly string[], deps: CliDeps): Promise<void> {
  const [cmd, ...rest] = argv;
  // `svcdb <command> --help` (or -h) anywhere in its arguments, and `svcdb help <command>`.
  const help = cmd === undefined ? undefined : COMMAND_HELP[cmd];
  if (help !== undefined && wantsHelp(rest)) {
    process.stdout.write(help);
    return;
  }
  if (cmd === 'help' && rest[0] !== undefined && COMMAND_HELP[rest[0]] !== undefined) {
    process.stdout.write(COMMAND_HELP[rest[0]]!);
    return;
  }
  switch (cmd) {
    case '--version':
    case '-v':
    case 'version':
      process.stdout.write(`svcdb ${VERSION}\n`);
      return;
    case undefined:
    case '--help':
    case '-h':
    case 'help':
      process.stdout.write(HELP);
      return;
    case 'serve':
      return serve(parseServe(rest), deps.startServer);
    case 'query':
      return query(parseQuery(rest));
    case 'shell':
      return shell(rest);
    case 'import':
      return importCommand(rest);
    case 'export':
      return exportCommand(rest);
    default:
      fail(`unknown command ${cmd} (see svcdb --help)`);
  }
}
