// Partitioning by the designated timestamp: the partition a timestamp falls in,
// its folder name, and the time range a partition name covers. All UTC.

export const PARTITION_BY = ['NONE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export type PartitionBy = (typeof PARTITION_BY)[number];

const HOUR_US = 3_600_000_000;
const DAY_US = 24 * HOUR_US;
/** 1970-01-01 was a Thursday; ISO weeks start on Monday. */
const MONDAY_OFFSET_US = 3 * DAY_US;

export function parsePartitionBy(text: string): PartitionBy | undefined {
  const t = text.trim().toUpperCase();
  return (PARTITION_BY as readonly string[]).includes(t) ? (t as PartitionBy) : undefined;
}

/** Start (epoch micros) of the partition holding `ts`. NONE: 0 (one partition). */
export function partitionFloor(by: PartitionBy, ts: number): number {
  switch (by) {
    case 'NONE':
      return 0;
    case 'HOUR':
      return Math.floor(ts / HOUR_US) * HOUR_US;
    case 'DAY':
      return Math.floor(ts / DAY_US) * DAY_US;
    case 'WEEK':
      return Math.floor((ts + MONDAY_OFFSET_US) / (7 * DAY_US)) * 7 * DAY_US - MONDAY_OFFSET_US;
    case 'MONTH': {
      const d = new Date(Math.floor(ts / 1000));
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) * 1000;
    }
    case 'YEAR': {
      const d = new Date(Math.floor(ts / 1000));
      return Date.UTC(d.getUTCFullYear(), 0, 1) * 1000;
    }
  }
}

/** Start of the partition after the one starting at `floor`. NONE: +Infinity. */
export function partitionCeil(by: PartitionBy, floor: number): number {
  switch (by) {
    case 'NONE':
      return Infinity;
    case 'HOUR':
      return floor + HOUR_US;
    case 'DAY':
      return floor + DAY_US;
    case 'WEEK':
      return floor + 7 * DAY_US;
    case 'MONTH': {
      const d = new Date(floor / 1000);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) * 1000;
    }
    case 'YEAR': {
      const d = new Date(floor / 1000);
      return Date.UTC(d.getUTCFullYear() + 1, 0, 1) * 1000;
    }
  }
}

const p2 = (n: number): string => String(n).padStart(2, '0');

/** Folder name of the partition starting at `floor`: 2024, 2024-01, 2024-W03, 2024-01-15, 2024-01-15T10, default. */
export function partitionName(by: PartitionBy, floor: number): string {
  if (by === 'NONE') return 'default';
  const d = new Date(floor / 1000);
  const y = String(d.getUTCFullYear()).padStart(4, '0');
  switch (by) {
    case 'YEAR':
      return y;
    case 'MONTH':
      return `${y}-${p2(d.getUTCMonth() + 1)}`;
    case 'DAY':
      return `${y}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}`;
    case 'HOUR':
      return `${y}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}T${p2(d.getUTCHours())}`;
    case 'WEEK': {
      // ISO week-numbering year: the year of the week's Thursday.
      const thursday = new Date(floor / 1000 + 3 * 86_400_000);
      const wy = thursday.getUTCFullYear();
      const jan4 = Date.UTC(wy, 0, 4);
      const week1Monday = partitionFloor('WEEK', jan4 * 1000);
      const week = Math.round((floor - week1Monday) / (7 * DAY_US)) + 1;
      return `${String(wy).padStart(4, '0')}-W${p2(week)}`;
    }
  }
}
