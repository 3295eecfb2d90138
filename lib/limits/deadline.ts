// When a statement must stop (DESIGN.md "Shape"): its timeout as a point in
// performance.now() time that synchronous loops (kernels, join pair generation)
// check every so many units of work, and a timer that aborts the statement's
// signal for the time it spends waiting (I/O, a slow client). Both fail with the
// same TIMEOUT error, QuestDB's message.
import { SvcError } from '../errors/svc-error.js';

/** Units of work (rows, bytes / 1 KiB, comparisons) between two looks at the clock in tick(). */
const CHECK_EVERY = 4096;

export class Deadline {
  /** A deadline that never passes (compile-time evaluation, statements without a timeout). */
  static readonly NEVER = new Deadline(Infinity);

  /** performance.now() at which the statement times out (Infinity: never). */
  readonly at: number;
  /** The timeout it was made from, ms, for the message. */
  readonly ms: number;
  #work = 0;

  /** A deadline `ms` milliseconds from now. */
  constructor(ms: number) {
    if (!(ms >= 0)) throw new RangeError(`timeout must be >= 0, not ${ms}`);
    this.ms = ms;
    this.at = performance.now() + ms;
  }

  /** The error of a statement past its deadline (the timer's abort reason too). */
  error(): SvcError {
    return new SvcError('TIMEOUT', `timeout, query aborted [timeout=${this.ms}ms]`);
  }

  /** Whether the deadline has passed. */
  passed(): boolean {
    return performance.now() >= this.at;
  }

  /** Throws the TIMEOUT error once the deadline has passed. */
  check(): void {
    if (this.at !== Infinity && performance.now() >= this.at) throw this.error();
  }

  /**
   * Counts `units` of work and looks at the clock every CHECK_EVERY units: cheap
   * enough for a loop to call once per row (or per KiB built).
   */
  tick(units = 1): void {
    this.#work += units;
    if (this.#work >= CHECK_EVERY) {
      this.#work = 0;
      this.check();
    }
  }

  /**
   * A signal that aborts when `parent` does or when this deadline passes (with
   * error() as its reason), for the time a statement spends awaiting. dispose()
   * clears the timer and the listener.
   */
  signal(parent: AbortSignal): { readonly signal: AbortSignal; dispose(): void } {
    const c = new AbortController();
    const onParent = (): void => c.abort(parent.reason);
    if (parent.aborted) c.abort(parent.reason);
    else parent.addEventListener('abort', onParent, { once: true });
    const timer =
      this.at === Infinity ? null : setTimeout(() => c.abort(this.error()), Math.max(0, this.at - performance.now()));
    timer?.unref();
    return {
      signal: c.signal,
      dispose: () => {
        if (timer) clearTimeout(timer);
        parent.removeEventListener('abort', onParent);
      },
    };
  }
}
