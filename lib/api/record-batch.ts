// What the library's streams carry: a batch of rows as column vectors (typed
// arrays, UTF-8 bytes, symbol keys; never an object per row) that also names
// its columns, so every operator downstream knows the schema from the batch
// itself. Plain rows (one object per row) are there for convenience.
import type { Field } from '../sql/bound.js';
import { nullVector, type ColumnVector } from '../storage/column-vector.js';
import type { Batch } from '../storage/table-reader.js';
import { INT_NULL, LONG_NULL } from '../storage/column-type.js';
import { renderAt } from '../sql/functions/render.js';

export type { Field };
export type { ColumnVector };

/** A batch of rows: `columns[i]` holds `rowCount` values of `fields[i]`. */
export interface RecordBatch {
  readonly fields: readonly Field[];
  /** Index of the designated timestamp among `fields`, or -1. */
  readonly timestamp: number;
  readonly rowCount: number;
  readonly columns: readonly ColumnVector[];
}

/**
 * One row as a plain object. Numbers for BYTE, SHORT, INT, LONG (exact below
 * 2^53), FLOAT and DOUBLE; booleans; strings for text, SYMBOL, CHAR, UUID,
 * IPV4, LONG256 (0x hex), GEOHASH (base32, or bits) and DECIMAL (exact, with
 * its scale's digits); TIMESTAMP and DATE as ISO-8601 UTC text (with
 * microseconds and milliseconds, as the JSON API prints them); null for NULL.
 */
export type Row = Record<string, RowValue>;
export type RowValue = number | string | boolean | null;

export function recordBatch(fields: readonly Field[], timestamp: number, b: Batch): RecordBatch {
  return { fields, timestamp, rowCount: b.rowCount, columns: b.columns };
}

/** A batch with no rows: it still tells a writer downstream the columns (an empty result). */
export function emptyBatch(fields: readonly Field[], timestamp: number): RecordBatch {
  return { fields, timestamp, rowCount: 0, columns: fields.map((f) => nullVector(f.type === 'NULL' ? 'STRING' : f.type, 0)) };
}

/** Row i of vector v as a plain value. */
export function rowValue(v: ColumnVector, i: number): RowValue {
  if (v.kind === 'fixed') {
    const x = v.data[i]!;
    switch (v.type) {
      case 'BOOLEAN': return x === 1;
      case 'BYTE': case 'SHORT': return x;
      case 'INT': return x === INT_NULL ? null : x;
      case 'LONG': return x === LONG_NULL ? null : x;
      case 'FLOAT': case 'DOUBLE': return x !== x ? null : x;
      default: break;
    }
  }
  return renderAt(v, i);
}

/** The rows of a batch as plain objects (keys: the column names). */
export function batchRows(b: RecordBatch): Row[] {
  const rows: Row[] = [];
  const names = b.fields.map((f) => f.name);
  for (let i = 0; i < b.rowCount; i++) {
    const row: Row = {};
    for (let c = 0; c < names.length; c++) row[names[c]!] = rowValue(b.columns[c]!, i);
    rows.push(row);
  }
  return rows;
}
