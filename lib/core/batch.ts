// The data vocabulary every layer shares: a Batch (rows as one column vector
// each), an Interval of the designated timestamp, and the default batch size.
import type { ColumnVector } from './column-vector.js';

/** Half-open [lo, hi) in epoch microseconds. */
export type Interval = readonly [number, number];

/** Rows as one vector per column, all of the same length. */
export interface Batch {
  readonly rowCount: number;
  /** In the order the scan asked for. */
  readonly columns: readonly ColumnVector[];
}

/** Rows per batch when nothing else says (scans, operators). */
export const DEFAULT_BATCH_ROWS = 8192;
