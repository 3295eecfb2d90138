// What binding one statement resolves against besides its tables: the
// database's function registry and the statement's time, read once when it is
// compiled (interval literals, `ts IN today()`, bind-time constants).
import type { FunctionRegistry } from '../functions/registry.js';

export interface StatementEnv {
  /** The functions calls and aggregates resolve against. */
  readonly registry: FunctionRegistry;
  /** The statement's time in epoch micros: now() everywhere in it. */
  readonly statementMicros: number;
}
