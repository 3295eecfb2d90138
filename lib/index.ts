// svcdb as a library: `import { openDatabase, csvToBatches, ... } from 'svcdb'`.
// The embedded database and the stream operators are the pieces the server
// composes (README "Use as a library"); everything else under lib/ is
// internal and may change.
export { openDatabase, Database } from './embed/database.js';
export type {
  DatabaseOptions,
  QueryOptions,
  QueryStream,
  ExecuteResult,
  CsvSource,
  ImportCsvOptions,
  ImportResult,
} from './embed/database.js';
export {
  csvToBatches,
  where,
  select,
  batchesToCsv,
  batchesToJson,
  batchesToJsonLines,
  batchesToParquet,
} from './embed/operators.js';
export type {
  CsvToBatchesOptions,
  CsvToBatchesStream,
  CsvResult,
  Progress,
  WriterOptions,
  BatchesToCsvOptions,
  BatchesToJsonOptions,
  BatchesToParquetOptions,
} from './embed/operators.js';
export { batchRows } from './embed/record-batch.js';
export type { RecordBatch, Row, RowValue, Field, ColumnVector } from './embed/record-batch.js';
export { SvcError } from './errors/svc-error.js';
export type { SqlType } from './core/sql-type.js';
export { VERSION } from './version.js';
