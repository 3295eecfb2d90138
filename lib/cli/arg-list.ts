// ArgList: command-line arguments taken one at a time, a flag's value taken
// with it (a missing one is a UsageError naming the flag).
import { UsageError } from './usage-error.js';

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
