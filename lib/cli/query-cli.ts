// `svcdb query` and `svcdb shell`: SQL on a running server (--host) or a
// database folder (-d), run by the shell (lib/cli/shell/). `svcdb query "<sql>"`
// prints every row of its result; without the SQL it reads a file (-f),
// standard input, or, on a terminal, opens the interactive shell.

/** The command's arguments as given (the shell parses them). */
export interface QueryArgs {
  readonly argv: readonly string[];
  readonly command: 'query' | 'shell';
}

export function parseQuery(args: string[], command: 'query' | 'shell' = 'query'): QueryArgs {
  return { argv: args, command };
}

/** Runs `svcdb query` (or `svcdb shell`); sets the exit code. */
export async function query(q: QueryArgs): Promise<void> {
  // A reader that stops early (`| head`) ends the command quietly.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(0);
    process.stderr.write(`svcdb: cannot write the result: ${e.message}\n`);
    process.exit(1);
  });
  // Ctrl-C outside the interactive prompt runs the exit handlers, which remove a table's spool file.
  process.once('SIGINT', () => process.exit(130));
  // Loaded on use: `serve` starts without the shell.
  const { runShell } = await import('./shell/shell-cli.js');
  process.exitCode = await runShell(
    q.argv,
    { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env },
    q.command,
  );
}

/** `svcdb shell`. */
export function shell(args: string[]): Promise<void> {
  return query(parseQuery(args, 'shell'));
}
