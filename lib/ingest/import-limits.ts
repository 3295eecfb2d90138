// What one import may use (POST /imp, `svcdb import`, importCsv, csvToBatches):
// a memory budget every growing allocation of the import is charged to, a
// maximum column count, and the longest line (or value) held while waiting for
// the rest of it. Each error names the setting that raises the limit.
import { CONFIG_KEYS } from '../config/config-keys.js';
import type { Config } from '../config/config.js';
import { MemoryBudget } from '../limits/memory-budget.js';
import { SvcError } from '../errors/svc-error.js';

export interface ImportLimits {
  /** Bytes one import may hold (builders, held lines, detection's sample, writer buffers, late rows). */
  readonly memory: number;
  /** Columns a file may have. */
  readonly maxColumns: number;
  /** Bytes of one line held before it is complete (detection), and of one value held across reads. */
  readonly lineBytes: number;
  /** Bytes of the file a pool thread parses at once (ingest/segments.ts). */
  readonly segmentBytes: number;
  /** What sets each limit, named in the errors (server.conf keys, or the library's option names). */
  readonly keys: { readonly memory: string; readonly maxColumns: string; readonly lineBytes: string };
}

export const SERVER_LIMIT_KEYS = {
  memory: 'import.memory.limit',
  maxColumns: 'import.max.columns',
  lineBytes: 'http.text.roll.buffer.limit',
} as const;

/** The server.conf defaults. */
export const DEFAULT_IMPORT_LIMITS: ImportLimits = {
  memory: CONFIG_KEYS['import.memory.limit'].default,
  maxColumns: CONFIG_KEYS['import.max.columns'].default,
  lineBytes: CONFIG_KEYS['http.text.roll.buffer.limit'].default,
  segmentBytes: CONFIG_KEYS['import.segment.size'].default,
  keys: SERVER_LIMIT_KEYS,
};

/** The limits server.conf sets. */
export function importLimitsFromConfig(config: Config): ImportLimits {
  return {
    memory: config.get('import.memory.limit'),
    maxColumns: config.get('import.max.columns'),
    lineBytes: config.get('http.text.roll.buffer.limit'),
    segmentBytes: config.get('import.segment.size'),
    keys: SERVER_LIMIT_KEYS,
  };
}

/** A fresh budget for one import. */
export function importBudget(limits: ImportLimits): MemoryBudget {
  return new MemoryBudget(limits.memory, limits.keys.memory);
}

/** A line (or one value of it) longer than the limit; `what` says which. */
export function lineTooLong(limits: ImportLimits, what: string, line: number): SvcError {
  return new SvcError(
    'LIMIT',
    `${what} is longer than the limit of ${limits.lineBytes} bytes [limit=${limits.keys.lineBytes}, line=${line}]`,
  );
}

/** A file wider than the column limit. */
export function tooManyColumns(limits: ImportLimits, columns: number, label: string): SvcError {
  return new SvcError(
    'LIMIT',
    `the file has ${columns} columns, more than the limit of ${limits.maxColumns} [limit=${limits.keys.maxColumns}, table=${label}]`,
  );
}
