// What the library's streams carry: a batch of rows as column vectors (typed
// arrays, UTF-8 bytes, symbol keys; never an object per row) that also names
// its columns, so every operator downstream knows the schema from the batch
// itself. Plain rows (one object per row) are there for convenience.
import type { Field } from '../sql/bound.js';
import { nullVector, type ColumnVector } from '../core/column-vector.js';
import type { Batch } from '../core/batch.js';
import { INT_NULL, LONG_NULL } from '../core/column-type.js';
import { renderAt } from '../core/render.js';
import { ArrayReader, isArrayType } from '../core/array-values.js';

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
 * its scale's digits); TIMESTAMP, TIMESTAMP_NS and DATE as ISO-8601 UTC text
 * (with microseconds, nanoseconds and milliseconds, as the JSON API prints
 * them); INTERVAL as QuestDB's text (`('...Z', '...Z')`); DOUBLE arrays as nested arrays of numbers (a NULL element null); null for NULL.
 */
export type Row = Record<string, RowValue>;
export type RowValue = number | string | boolean | null | RowArray;
/** A DOUBLE array's value: nested one level per dimension. */
export type RowArray = ReadonlyArray<number | null | RowArray>;

export function recordBatch(fields: readonly Field[], timestamp: number, b: Batch): RecordBatch {
  return { fields, timestamp, rowCount: b.rowCount, columns: b.columns };
}

/** A batch with no rows: it still tells a writer downstream the columns (an empty result). */
export function emptyBatch(fields: readonly Field[], timestamp: number): RecordBatch {
  return {
    fields,
    timestamp,
    rowCount: 0,
    columns: fields.map((f) => nullVector(f.type === 'NULL' ? 'STRING' : f.type, 0)),
  };
}

/** Row i of vector v as a plain value. */
export function rowValue(v: ColumnVector, i: number): RowValue {
  if (v.kind === 'fixed') {
    const x = v.data[i]!;
    switch (v.type) {
      case 'BOOLEAN':
        return x === 1;
      case 'BYTE':
      case 'SHORT':
        return x;
      case 'INT':
        return x === INT_NULL ? null : x;
      case 'LONG':
        return x === LONG_NULL ? null : x;
      case 'FLOAT':
      case 'DOUBLE':
        return x !== x ? null : x;
      default:
        break;
    }
  }
  if (v.kind === 'var' && isArrayType(v.type)) return arrayValue(new ArrayReader(v), i);
  return renderAt(v, i);
}

/** Row i of an array vector as nested arrays, or null. */
function arrayValue(r: ArrayReader, i: number): RowArray | null {
  if (r.isNull(i)) return null;
  r.open(i);
  let k = 0;
  const nest = (d: number): RowArray => {
    const out: Array<number | null | RowArray> = [];
    for (let j = 0; j < r.shape[d]!; j++) {
      if (d < r.dims - 1) {
        out.push(nest(d + 1));
        continue;
      }
      const x = r.element(k++);
      out.push(x !== x ? null : x);
    }
    return out;
  };
  return nest(0);
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
