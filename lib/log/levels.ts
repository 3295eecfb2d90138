// Log levels as a bit set, their one-letter markers, and the mapping
// from bunyan's numeric levels (bunyan is the logger front end).

export const Level = {
  DEBUG: 1,
  INFO: 2,
  ERROR: 4,
  CRITICAL: 8,
  ADVISORY: 16,
} as const;
export type LevelBit = (typeof Level)[keyof typeof Level];
export type LevelName = keyof typeof Level;

/** The levels on by default (SPEC.md "Server log levels"): all but DEBUG. */
export const DEFAULT_MASK = Level.ADVISORY | Level.CRITICAL | Level.ERROR | Level.INFO;

export const MARKER: Record<LevelBit, string> = {
  [Level.DEBUG]: 'D',
  [Level.INFO]: 'I',
  [Level.ERROR]: 'E',
  [Level.CRITICAL]: 'C',
  [Level.ADVISORY]: 'A',
};

/** Bunyan level -> ours: fatal->C, error->E, warn->A, info->I, debug->D (Logger logs each of ours at the matching bunyan level). */
export function fromBunyan(level: number): LevelBit {
  if (level >= 60) return Level.CRITICAL;
  if (level >= 50) return Level.ERROR;
  if (level >= 40) return Level.ADVISORY;
  if (level >= 30) return Level.INFO;
  return Level.DEBUG;
}

/** `INFO,ERROR` -> bit set. Accepts level names and their markers, any case. */
export function parseLevelList(text: string): number {
  let mask = 0;
  for (const raw of text.split(',')) {
    const s = raw.trim().toUpperCase();
    if (s === '') continue;
    const byName = (Level as Record<string, number>)[s];
    const byMarker = Object.entries(MARKER).find(([, m]) => m === s)?.[0];
    const bit = byName ?? (byMarker === undefined ? undefined : Number(byMarker));
    if (bit === undefined) {
      throw new Error(`unknown level ${raw.trim()} (expected ADVISORY, CRITICAL, ERROR, INFO or DEBUG)`);
    }
    mask |= bit;
  }
  return mask;
}
