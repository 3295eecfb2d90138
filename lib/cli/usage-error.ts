// Command-line mistakes (svcdb import, svcdb export): printed as
// `svcdb: <message>` on standard error with exit code 1, never a stack.
import type { Writable } from 'node:stream';

export class UsageError extends Error {}

/** The parsed arguments, or null after printing the UsageError that `parse` threw. */
export function parseArgsOrReport<T>(parse: () => T, stderr: Writable): T | null {
  try {
    return parse();
  } catch (e) {
    if (e instanceof UsageError) {
      stderr.write(`svcdb: ${e.message}\n`);
      return null;
    }
    throw e;
  }
}
