// Command-line mistakes (svcdb import, svcdb export): printed as
// `svcdb: <message>` on standard error with exit code 1, never a stack.
import type { Writable } from 'node:stream';

export class UsageError extends Error {}

/** The parsed arguments, or null after printing the UsageError that `parse` threw. */
export function parseArgsOrReport<T>(parse: () => T, stderr: Writable): T | null {
  try {
    return parse();
  } catch (e) {
    if (e instanceof UsageError) { stderr.write(`svcdb: ${e.message}\n`); return null; }
    throw e;
  }
}

/** Command-line arguments taken one at a time; value() takes the one after a flag. */
export class ArgList {
  readonly #list: readonly string[];
  #at = -1;

  constructor(list: readonly string[]) {
    this.#list = list;
  }

  next(): string | undefined {
    return this.#list[++this.#at];
  }

  /** The argument after `flag`, or a UsageError naming the flag. */
  value(flag: string): string {
    const v = this.#list[++this.#at];
    if (v === undefined) throw new UsageError(`${flag} needs a value`);
    return v;
  }
}
