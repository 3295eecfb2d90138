// NULL values per type: the sentinel a fixed type's typed array holds, and a
// vector of NULLs of a SQL type (row movement is in vector-ops.ts).
import { INT_NULL, LONG_NULL } from './column-type.js';
import { nullVector, type ColumnVector } from './column-vector.js';
import type { SqlType } from './sql-type.js';
import { constantVector } from './vec.js';

/** The NULL sentinel of a fixed type held in its typed array. */
export function nullValue(type: string): number {
  switch (type) {
    case 'INT':
      return INT_NULL;
    case 'LONG':
    case 'TIMESTAMP':
    case 'DATE':
    case 'TIMESTAMP_NS':
      return LONG_NULL;
    case 'FLOAT':
    case 'DOUBLE':
      return NaN;
    default:
      return 0;
  }
}

/** `n` NULLs of a SQL type (the NULL type is a DOUBLE NaN vector, as the executor builds it). */
export function nulls(type: SqlType, n: number): ColumnVector {
  return type === 'NULL' ? constantVector(type, null, n) : nullVector(type, n);
}
