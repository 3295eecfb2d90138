// What the binder needs to bind read_parquet(path) / parquet_scan(path) in FROM:
// the file the path names under the copy root and the columns it can read with
// their svcdb types. sql/ binds against this narrow interface; lib/exec's
// parquet-file.ts implements it (file access and the Parquet library stay there).
import type { ColumnType } from '../core/column-type.js';

/**
 * How a Parquet column's decoded values become the rows of its svcdb type (exec/parquet-scan.ts
 * converts): the Parquet side of the pair is what the file holds, the svcdb side the column's type.
 */
export type ParquetConversion =
  | 'boolean'
  /** INT32 (INT_8, INT_16, INT_32, UINT_8, UINT_16) as BYTE, SHORT or INT. */
  | 'int'
  /** INT32 UINT_32 or INT64 as LONG (exact). */
  | 'long'
  /** INT32 UINT_32 as IPv4 (svcdb's own files). */
  | 'ipv4'
  | 'float'
  | 'double'
  /** INT64 TIMESTAMP(MILLIS / MICROS / NANOS) or INT96 as TIMESTAMP micros. */
  | 'timestampMillis'
  | 'timestampMicros'
  | 'timestampNanos'
  /** INT64 TIMESTAMP(NANOS) kept as TIMESTAMP_NS (svcdb's own files). */
  | 'timestampNs'
  /** INT32 DATE (days) or INT64 TIMESTAMP(MILLIS) as DATE (millis). */
  | 'dateDays'
  | 'dateMillis'
  /** UTF-8 text as VARCHAR; bytes as BINARY. */
  | 'varchar'
  | 'binary'
  /** A text's first UTF-16 unit as CHAR; its geohash as GEOHASH(n) (svcdb's own files). */
  | 'char'
  | 'geohash'
  /** FIXED_LEN_BYTE_ARRAY(16) UUID; FIXED_LEN_BYTE_ARRAY(32) LONG256 (svcdb's own files): big-endian bytes. */
  | 'uuid'
  | 'long256'
  /** A LIST (of LISTs ...) of DOUBLE as DOUBLE[]...: rectangular rows. */
  | 'doubleArray';

/** A column of a Parquet file as read_parquet returns it. */
export interface ParquetColumn {
  /** The top-level column's name in the file (also the result column's name). */
  readonly name: string;
  readonly type: ColumnType;
  readonly conversion: ParquetConversion;
}

/** A Parquet file read_parquet may read. */
export interface ParquetFile {
  /** The file's absolute path (inside the copy root). */
  readonly file: string;
  /** Its readable columns, in file order (unsupported ones left out; never empty). */
  readonly columns: readonly ParquetColumn[];
}

export interface ParquetSource {
  /**
   * The file `path` names (relative to the copy root, or absolute inside it) and its columns.
   * Throws QuestDB's SQL errors at `pos` (the argument): path refused, file unreadable, not
   * Parquet, no supported columns.
   */
  describe(path: string, pos: number): ParquetFile;
}
