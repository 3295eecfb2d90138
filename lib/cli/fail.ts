// A command-line failure: `svcdb: <message>` on standard error and exit code 1.

/** Prints `svcdb: <message>` and exits with code 1. */
export function fail(message: string): never {
  process.stderr.write(`svcdb: ${message}\n`);
  process.exit(1);
}
