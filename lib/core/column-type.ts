// The storage column types: on-disk width, NULL sentinel, and the typed array a
// fixed-width column is read into. NULLs are sentinels, as in QuestDB (DESIGN.md).
// Parametric types (GEOHASH(4c), DECIMAL(10,2), DOUBLE[]) are one canonical string each.

/** The types named by a plain word (no parameters). */
export const COLUMN_TYPES = [
  'BOOLEAN',
  'BYTE',
  'SHORT',
  'CHAR',
  'INT',
  'LONG',
  'FLOAT',
  'DOUBLE',
  'DATE',
  'TIMESTAMP',
  'SYMBOL',
  'STRING',
  'VARCHAR',
  'UUID',
  'IPV4',
  'LONG256',
  'LONG128',
  'BINARY',
  'TIMESTAMP_NS',
  'INTERVAL',
] as const;
export type PlainColumnType = (typeof COLUMN_TYPES)[number];

/**
 * A column type: a plain name, or a parametric type in its canonical spelling:
 * `GEOHASH(<chars>c)` when the bits are a multiple of 5, else `GEOHASH(<bits>b)`;
 * `DECIMAL(<precision>,<scale>)`; `DOUBLE[]` with one `[]` per dimension.
 */
export type ColumnType = PlainColumnType | `GEOHASH(${string})` | `DECIMAL(${string})` | `DOUBLE[]${string}`;

/** What code switches on: the plain name itself, or the family of a parametric type. */
export type TypeKind = PlainColumnType | 'GEOHASH' | 'DECIMAL' | 'ARRAY';

/** How a column is laid out on disk. */
export type Layout = 'fixed' | 'var' | 'symbol';

export interface TypeInfo {
  readonly layout: Layout;
  /** Bytes per row in the data file (fixed and symbol); 0 for var. */
  readonly width: number;
  /** Whether the type has a NULL (BOOLEAN, BYTE and SHORT do not). */
  readonly nullable: boolean;
  /**
   * Elements of the in-memory typed array per row: `width` for the types held
   * as raw little-endian bytes in a Uint8Array (UUID, LONG256, GEOHASH,
   * DECIMAL), 1 for every other fixed type (one typed-array element per row).
   */
  readonly stride: number;
}

const PLAIN_INFO: Readonly<Record<PlainColumnType, TypeInfo>> = {
  BOOLEAN: { layout: 'fixed', width: 1, nullable: false, stride: 1 },
  BYTE: { layout: 'fixed', width: 1, nullable: false, stride: 1 },
  SHORT: { layout: 'fixed', width: 2, nullable: false, stride: 1 },
  CHAR: { layout: 'fixed', width: 2, nullable: true, stride: 1 },
  INT: { layout: 'fixed', width: 4, nullable: true, stride: 1 },
  LONG: { layout: 'fixed', width: 8, nullable: true, stride: 1 },
  FLOAT: { layout: 'fixed', width: 4, nullable: true, stride: 1 },
  DOUBLE: { layout: 'fixed', width: 8, nullable: true, stride: 1 },
  DATE: { layout: 'fixed', width: 8, nullable: true, stride: 1 },
  TIMESTAMP: { layout: 'fixed', width: 8, nullable: true, stride: 1 },
  TIMESTAMP_NS: { layout: 'fixed', width: 8, nullable: true, stride: 1 },
  SYMBOL: { layout: 'symbol', width: 4, nullable: true, stride: 1 },
  STRING: { layout: 'var', width: 0, nullable: true, stride: 1 },
  VARCHAR: { layout: 'var', width: 0, nullable: true, stride: 1 },
  UUID: { layout: 'fixed', width: 16, nullable: true, stride: 16 },
  IPV4: { layout: 'fixed', width: 4, nullable: true, stride: 1 },
  LONG256: { layout: 'fixed', width: 32, nullable: true, stride: 32 },
  LONG128: { layout: 'fixed', width: 16, nullable: true, stride: 16 },
  BINARY: { layout: 'var', width: 0, nullable: true, stride: 1 },
  // A runtime value only (interval(), today()): never a table column (isPersisted).
  INTERVAL: { layout: 'fixed', width: 16, nullable: true, stride: 16 },
};

/** Most bits of a GEOHASH (12 chars), as in QuestDB. */
export const GEOHASH_MAX_BITS = 60;
/** Most digits of a DECIMAL, as in QuestDB. */
export const DECIMAL_MAX_PRECISION = 76;
/** DECIMAL's precision and scale when none are given (`decimal` alone), as in QuestDB. */
export const DECIMAL_DEFAULT_PRECISION = 18;
export const DECIMAL_DEFAULT_SCALE = 3;
/** Most dimensions of an array, as in QuestDB. */
export const ARRAY_MAX_DIMS = 32;

/** The family of a type (see TypeKind). */
export function typeKind(t: ColumnType): TypeKind {
  switch (t.charCodeAt(0)) {
    case 71:
      if (t.startsWith('GEOHASH(')) return 'GEOHASH';
      break; // G
    case 68: // D
      if (t.startsWith('DECIMAL(')) return 'DECIMAL';
      if (t.startsWith('DOUBLE[')) return 'ARRAY';
      break;
  }
  return t as PlainColumnType;
}

/** Whether `t` is one of the parametric families. */
export function isParametric(t: string): boolean {
  return t.startsWith('GEOHASH(') || t.startsWith('DECIMAL(') || t.startsWith('DOUBLE[');
}

/** Bits of a GEOHASH type (1..60). */
export function geohashBits(t: ColumnType): number {
  const m = /^GEOHASH\((\d+)([bc])\)$/.exec(t);
  if (!m) throw new Error(`not a GEOHASH type: ${t}`);
  return Number(m[1]) * (m[2] === 'c' ? 5 : 1);
}

/** The canonical GEOHASH type of `bits` bits. */
export function geohashType(bits: number): ColumnType {
  return bits % 5 === 0 ? `GEOHASH(${bits / 5}c)` : `GEOHASH(${bits}b)`;
}

export interface DecimalSpec {
  readonly precision: number;
  readonly scale: number;
}

/** Precision and scale of a DECIMAL type. */
export function decimalSpec(t: ColumnType): DecimalSpec {
  const m = /^DECIMAL\((\d+),(\d+)\)$/.exec(t);
  if (!m) throw new Error(`not a DECIMAL type: ${t}`);
  return { precision: Number(m[1]), scale: Number(m[2]) };
}

/** The canonical DECIMAL type. */
export function decimalType(precision: number, scale: number): ColumnType {
  return `DECIMAL(${precision},${scale})`;
}

/** Dimensions of an array type (DOUBLE[] -> 1). */
export function arrayDims(t: ColumnType): number {
  return (t.length - t.indexOf('[')) / 2;
}

/** The canonical DOUBLE array type of `dims` dimensions. */
export function arrayType(dims: number): ColumnType {
  return `DOUBLE${'[]'.repeat(dims)}` as ColumnType;
}

/** Bytes per row of a GEOHASH of `bits` bits: 1, 2, 4 or 8, as in QuestDB. */
export function geohashWidth(bits: number): number {
  return bits <= 7 ? 1 : bits <= 15 ? 2 : bits <= 31 ? 4 : 8;
}

/** Bytes per row of a DECIMAL of `precision` digits: 1, 2, 4, 8, 16 or 32, as in QuestDB. */
export function decimalWidth(precision: number): number {
  return precision <= 2 ? 1 : precision <= 4 ? 2 : precision <= 9 ? 4 : precision <= 18 ? 8 : precision <= 38 ? 16 : 32;
}

const ARRAY_INFO: TypeInfo = { layout: 'var', width: 0, nullable: true, stride: 1 };
const BYTES_INFO = new Map<number, TypeInfo>();
function bytesInfo(width: number): TypeInfo {
  let info = BYTES_INFO.get(width);
  if (!info) {
    info = { layout: 'fixed', width, nullable: true, stride: width };
    BYTES_INFO.set(width, info);
  }
  return info;
}

/** Layout, width and NULL-ability of any type. */
export function typeInfo(t: ColumnType): TypeInfo {
  const plain = PLAIN_INFO[t as PlainColumnType];
  if (plain) return plain;
  switch (typeKind(t)) {
    case 'GEOHASH':
      return bytesInfo(geohashWidth(geohashBits(t)));
    case 'DECIMAL':
      return bytesInfo(decimalWidth(decimalSpec(t).precision));
    case 'ARRAY':
      return ARRAY_INFO;
    default:
      throw new Error(`unknown column type: ${t}`);
  }
}

/** Whether `t` is held in memory as raw bytes, `width` per row (UUID, LONG128, LONG256, INTERVAL, GEOHASH, DECIMAL). */
export function isByteRows(t: ColumnType): boolean {
  return (
    t === 'UUID' ||
    t === 'LONG128' ||
    t === 'LONG256' ||
    t === 'INTERVAL' ||
    t.startsWith('GEOHASH(') ||
    t.startsWith('DECIMAL(')
  );
}

/**
 * Whether a table column can be of type `t`: every type but INTERVAL, a value
 * QuestDB computes (interval(), today()) and never stores.
 */
export function isPersisted(t: string): boolean {
  return t !== 'INTERVAL';
}

/** A type's parameters are wrong (the message is QuestDB's); `offset` is where in the parameters text it points. */
export class ColumnTypeError extends Error {
  constructor(
    message: string,
    readonly offset = 0,
  ) {
    super(message);
  }
}

const ALIASES: Readonly<Record<string, PlainColumnType>> = {
  INTEGER: 'INT',
  BIGINT: 'LONG',
  SMALLINT: 'SHORT',
  TINYINT: 'BYTE',
  REAL: 'FLOAT',
  'DOUBLE PRECISION': 'DOUBLE',
  TEXT: 'STRING',
  BOOL: 'BOOLEAN',
  TIMESTAMPTZ: 'TIMESTAMP',
};

/**
 * The canonical type of a type name (any case; `[]` suffixes kept) and its
 * parameters as written inside the parentheses (null without), or undefined for
 * an unknown name. Bad parameters of a known name throw a ColumnTypeError.
 * `aliases`: also accept PostgreSQL's names (INTEGER, BIGINT...), as casts do.
 */
export function columnTypeOf(name: string, params: string | null, aliases = false): ColumnType | undefined {
  const n = name.trim().toUpperCase();
  if (n === 'GEOHASH') {
    if (params === null) throw new ColumnTypeError('missing GEOHASH precision');
    return geohashType(parseGeohashBits(params));
  }
  if (n === 'DECIMAL') return parseDecimalParams(params);
  if (n.endsWith('[]')) {
    const base = n.slice(0, n.indexOf('[')).trim();
    if (base !== 'DOUBLE' || params !== null) return undefined;
    const dims = (n.length - n.indexOf('[')) / 2;
    if (n.slice(n.indexOf('[')) !== '[]'.repeat(dims)) return undefined;
    if (dims > ARRAY_MAX_DIMS) throw new ColumnTypeError(`too many array dimensions [max=${ARRAY_MAX_DIMS}]`);
    return arrayType(dims);
  }
  if (params !== null) return undefined;
  if ((COLUMN_TYPES as readonly string[]).includes(n)) return n as PlainColumnType;
  return aliases ? ALIASES[n] : undefined;
}

/**
 * A type as written in SQL or an import schema (`int`, `geohash(4c)`,
 * `decimal(10, 2)`, `decimal`, `double[][]`, `timestamp_ns`) -> its canonical
 * string, or undefined for an unknown type. Bad parameters throw a ColumnTypeError.
 */
export function parseColumnType(text: string): ColumnType | undefined {
  const t = text.trim();
  const open = t.indexOf('(');
  if (open < 0) return columnTypeOf(t, null);
  if (!t.endsWith(')')) return undefined;
  return columnTypeOf(t.slice(0, open), t.slice(open + 1, -1).trim());
}

/** Whether `t` is a type in its canonical spelling (what _meta files hold). */
export function isCanonicalType(t: unknown): t is ColumnType {
  if (typeof t !== 'string') return false;
  try {
    return parseColumnType(t) === t;
  } catch {
    return false;
  }
}

/** GEOHASH parameters (`4c`, `20b`) -> bits, with QuestDB's errors. */
function parseGeohashBits(params: string): number {
  const p = params.trim();
  const m = /^(\d+)(.)$/.exec(p);
  if (!m) throw new ColumnTypeError("invalid GEOHASH size, must be number followed by 'C' or 'B' character");
  const unit = m[2]!;
  let bits = Number(m[1]);
  if (unit === 'c' || unit === 'C') bits *= 5;
  else if (unit !== 'b' && unit !== 'B')
    throw new ColumnTypeError("invalid GEOHASH size units, must be 'c', 'C' for chars, or 'b', 'B' for bits");
  if (bits < 1 || bits > GEOHASH_MAX_BITS)
    throw new ColumnTypeError(
      `invalid GEOHASH type precision range, must be [1, ${GEOHASH_MAX_BITS}] bits, provided=${bits}`,
    );
  return bits;
}

/** DECIMAL parameters (`10, 2`, `10`, none) -> the canonical type, with QuestDB's errors. */
function parseDecimalParams(params: string | null): ColumnType {
  if (params === null) return decimalType(DECIMAL_DEFAULT_PRECISION, DECIMAL_DEFAULT_SCALE);
  const parts = params.split(',').map((s) => s.trim());
  if (parts.length > 2 || !parts.every((s) => /^\d+$/.test(s)))
    throw new ColumnTypeError('invalid DECIMAL type, precision and scale must be numbers');
  const precision = Number(parts[0]);
  const scale = parts.length > 1 ? Number(parts[1]) : 0;
  if (precision < 1 || precision > DECIMAL_MAX_PRECISION) {
    throw new ColumnTypeError(`invalid DECIMAL type, precision must be between 1 and ${DECIMAL_MAX_PRECISION}`);
  }
  if (scale > precision)
    throw new ColumnTypeError('invalid DECIMAL type, scale must be less than or equal to precision');
  return decimalType(precision, scale);
}

/** NULL of INT and SYMBOL keys. */
export const INT_NULL = -0x80000000;
/** NULL of LONG, DATE, TIMESTAMP and TIMESTAMP_NS, as a double (exact: -2^63). */
export const LONG_NULL = -9223372036854775808;
/** CHAR has NULL 0, IPV4 has NULL 0 (0.0.0.0), as in QuestDB. */
export const CHAR_NULL = 0;
export const IPV4_NULL = 0;

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

/**
 * A result column as /exec and /validate describe it: `{name, type}`, and for an
 * array QuestDB's `{"name", "type": "ARRAY", "dim": N, "elemType": "DOUBLE"}`.
 */
export function resultColumn(name: string, t: string): { name: string; type: string; dim?: number; elemType?: string } {
  if (t.startsWith('DOUBLE[')) return { name, type: 'ARRAY', dim: arrayDims(t as ColumnType), elemType: 'DOUBLE' };
  return { name, type: resultTypeName(t) };
}
