// The storage column types: on-disk width, NULL sentinel, and the typed array a
// fixed-width column is read into. NULLs are sentinels, as in QuestDB (DESIGN.md).

export const COLUMN_TYPES = [
  'BOOLEAN', 'BYTE', 'SHORT', 'CHAR', 'INT', 'LONG', 'FLOAT', 'DOUBLE', 'DATE', 'TIMESTAMP',
  'SYMBOL', 'STRING', 'VARCHAR', 'UUID', 'IPV4', 'LONG256', 'BINARY', 'TIMESTAMP_NS',
] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

/** How a column is laid out on disk. */
export type Layout = 'fixed' | 'var' | 'symbol';

export interface TypeInfo {
  readonly layout: Layout;
  /** Bytes per row in the data file (fixed and symbol); 0 for var. */
  readonly width: number;
  /** Whether the type has a NULL (BOOLEAN, BYTE and SHORT do not). */
  readonly nullable: boolean;
}

export const TYPE_INFO: Readonly<Record<ColumnType, TypeInfo>> = {
  BOOLEAN: { layout: 'fixed', width: 1, nullable: false },
  BYTE: { layout: 'fixed', width: 1, nullable: false },
  SHORT: { layout: 'fixed', width: 2, nullable: false },
  CHAR: { layout: 'fixed', width: 2, nullable: true },
  INT: { layout: 'fixed', width: 4, nullable: true },
  LONG: { layout: 'fixed', width: 8, nullable: true },
  FLOAT: { layout: 'fixed', width: 4, nullable: true },
  DOUBLE: { layout: 'fixed', width: 8, nullable: true },
  DATE: { layout: 'fixed', width: 8, nullable: true },
  TIMESTAMP: { layout: 'fixed', width: 8, nullable: true },
  SYMBOL: { layout: 'symbol', width: 4, nullable: true },
  STRING: { layout: 'var', width: 0, nullable: true },
  VARCHAR: { layout: 'var', width: 0, nullable: true },
  UUID: { layout: 'fixed', width: 16, nullable: true },
  IPV4: { layout: 'fixed', width: 4, nullable: true },
  LONG256: { layout: 'fixed', width: 32, nullable: true },
  BINARY: { layout: 'var', width: 0, nullable: true },
  TIMESTAMP_NS: { layout: 'fixed', width: 8, nullable: true },
};

/** NULL of INT and SYMBOL keys. */
export const INT_NULL = -0x80000000;
/** NULL of LONG, DATE, TIMESTAMP and TIMESTAMP_NS, as a double (exact: -2^63). */
export const LONG_NULL = -9223372036854775808;
/** CHAR has NULL 0, IPV4 has NULL 0 (0.0.0.0), as in QuestDB. */
export const CHAR_NULL = 0;
export const IPV4_NULL = 0;

export function parseColumnType(text: string): ColumnType | undefined {
  const t = text.trim().toUpperCase();
  return (COLUMN_TYPES as readonly string[]).includes(t) ? (t as ColumnType) : undefined;
}

/** Whether `t` is stored as 8-byte little-endian integers (read as doubles in hot paths). */
export function isInt64(t: ColumnType): boolean {
  return t === 'LONG' || t === 'DATE' || t === 'TIMESTAMP' || t === 'TIMESTAMP_NS';
}

/**
 * Whether vectors of `t` always carry their exact int64 pairs (FixedVector.exact):
 * LONG values may pass 2^53, and TIMESTAMP_NS values (nanoseconds) do for every
 * date after 1970-04-15, so their doubles alone would lose the last digits.
 */
export function hasExactPairs(t: string): boolean {
  return t === 'LONG' || t === 'TIMESTAMP_NS';
}

/**
 * A type's name as QuestDB spells it in answers (/exec and /imp columns,
 * table_columns(), error messages): `IPv4`; every other type as it is.
 */
export function typeName(t: string): string {
  return t === 'IPV4' ? 'IPv4' : t;
}

/** A result column's type as /exec and /validate name it: a column that is only NULL (`select null`) is a STRING, as in QuestDB. */
export function resultTypeName(t: string): string {
  return t === 'NULL' ? 'STRING' : typeName(t);
}
