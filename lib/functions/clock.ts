// The clock a statement's time (now()) is read from, once per statement: the
// wall clock by default; EngineOptions.clock lets a test fix it.

/** Gives the current time in epoch microseconds. */
export interface Clock {
  micros(): number;
}

/** Wall clock in epoch micros. */
export function clockMicros(): number {
  return Math.floor((performance.timeOrigin + performance.now()) * 1000);
}

export const WALL_CLOCK: Clock = { micros: clockMicros };

/** A clock that always shows `micros` (tests). */
export function fixedClock(micros: number): Clock {
  return { micros: () => micros };
}
