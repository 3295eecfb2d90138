// The yield clock: when statements last gave the event loop a turn. One per
// database (the Database, the server or the library's stream stage owns it),
// shared by every statement it runs.
import { setImmediate as yieldNow } from 'node:timers/promises';

/** Work between two turns given to the event loop, at most. */
const YIELD_EVERY_MS = 8;

/**
 * Shared between the concurrent statements of one database on purpose: it is
 * the time since the event loop last got a turn from any of them, so that two
 * statements do not each wait 8 ms of their own before yielding (which made
 * this clock process-wide before it was an object).
 */
export class Pacer {
  #lastYield = performance.now();

  /** Yields to the event loop when `now` (performance.now()) is 8 ms or more past the last turn; false when no turn is due. */
  due(now: number): boolean {
    if (now - this.#lastYield < YIELD_EVERY_MS) return false;
    this.#lastYield = now;
    return true;
  }

  /** A turn of the event loop (setImmediate): timers, I/O and other requests run meanwhile. */
  yield(): Promise<void> {
    return yieldNow();
  }
}
