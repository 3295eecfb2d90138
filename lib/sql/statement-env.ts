// What binding one statement resolves against besides its tables: the
// database's function registry and the statement's time, read once when it is
// compiled (interval literals, `ts IN today()`, bind-time constants), and the
// Parquet files read_parquet() may read.
import type { FunctionRegistry } from '../functions/registry.js';
import type { ParquetSource } from './parquet-source.js';

export interface StatementEnv {
  /** The functions calls and aggregates resolve against. */
  readonly registry: FunctionRegistry;
  /** The statement's time in epoch micros: now() everywhere in it. */
  readonly statementMicros: number;
  /** The Parquet files read_parquet() may read (under cairo.sql.copy.root); absent: none (refused with QuestDB's message). */
  readonly parquet?: ParquetSource;
}
