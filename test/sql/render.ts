// Renders values as the golden files and QuestDB's text outputs show them:
// DOUBLE like Java (1.0, 1.0E-7), TIMESTAMP ISO with micros, DATE with millis.
import { formatDouble, formatLong } from '../../lib/core/number-format.js';
import { formatDate, formatTimestamp } from '../../lib/core/datetime.js';
import type { Value } from '../../lib/exec/vectors.js';
import type { SqlType } from '../../lib/core/sql-type.js';

export function renderValue(v: Value, type: SqlType): string {
  if (v === null) return 'null';
  switch (type) {
    case 'LONG':
      return formatLong(v as number);
    case 'DOUBLE':
    case 'FLOAT':
      return formatDouble(v as number);
    case 'TIMESTAMP':
      return formatTimestamp(v as number);
    case 'DATE':
      return formatDate(v as number);
    default:
      return String(v);
  }
}
