// How many statements and imports are running in a database, and since when
// none has, so background work (building text columns' dictionary codes after
// an import) waits for a quiet moment instead of taking a user's request's CPU:
// a client sending queries back to back never waits behind it. The statements
// running (their text and start) are what query_activity() lists; CANCEL QUERY
// and cancel_query() stop one of them by its id.
import { SvcError } from '../errors/svc-error.js';

/** A statement running now, as query_activity() shows it. */
export interface RunningStatement {
  /** Unique in this database while the process lives, from 1. */
  readonly id: number;
  readonly query: string;
  /** Epoch micros when its execution began. */
  readonly startMicros: number;
}

export class Activity {
  #running = 0;
  /** performance.now() when the last one ended (or the activity was made). */
  #lastEnd = performance.now();
  #waiters: (() => void)[] = [];
  readonly #statements = new Map<number, RunningStatement>();
  /** How each listed statement is stopped (CANCEL QUERY, cancel_query()). */
  readonly #controls = new Map<number, AbortController>();
  #nextId = 1;

  /** Statements and imports running now. */
  get running(): number {
    return this.#running;
  }

  /**
   * A statement (its text given) or an import began; end() with the id returned must follow,
   * however it ends. The id is 0 when no text was given (not listed by statements()).
   * `control` is aborted when the statement is cancelled (cancel()).
   */
  begin(query?: string, control?: AbortController): number {
    this.#running++;
    if (query === undefined) return 0;
    const id = this.#nextId++;
    this.#statements.set(id, {
      id,
      query,
      startMicros: Math.round((performance.timeOrigin + performance.now()) * 1000),
    });
    if (control !== undefined) this.#controls.set(id, control);
    return id;
  }

  /** The statements running now, oldest first. */
  statements(): RunningStatement[] {
    return [...this.#statements.values()];
  }

  /**
   * Stops the running statement `id` the way a timeout or a client gone does: its signal is
   * aborted with QuestDB's `cancelled by user`, seen at its next check. False when no statement
   * with that id is running (or it cannot be stopped).
   */
  cancel(id: number): boolean {
    const control = this.#controls.get(id);
    if (control === undefined) return false;
    if (!control.signal.aborted) control.abort(new SvcError('CANCELLED', 'cancelled by user'));
    return true;
  }

  end(id = 0): void {
    this.#statements.delete(id);
    this.#controls.delete(id);
    if (this.#running === 0) return;
    if (--this.#running === 0) {
      this.#lastEnd = performance.now();
      const w = this.#waiters;
      this.#waiters = [];
      for (const wake of w) wake();
    }
  }

  /**
   * Resolves once nothing has run for `quietMs`, or after `maxMs` however busy
   * (so work someone forgot to end, or a client reading a long export slowly,
   * delays the background work without stopping it). Its timers do not keep
   * the process alive.
   */
  async quiet(quietMs: number, maxMs: number): Promise<void> {
    const until = performance.now() + maxMs;
    for (;;) {
      const now = performance.now();
      if (now >= until) return;
      if (this.#running > 0) await this.#ended(until - now);
      else {
        const calm = now - this.#lastEnd;
        if (calm >= quietMs) return;
        await sleep(Math.min(quietMs - calm, until - now));
      }
    }
  }

  /** Resolves when the last running one ends, or after `ms`. */
  #ended(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== wake);
        resolve();
      }, ms);
      timer.unref();
      this.#waiters.push(wake);
    });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
