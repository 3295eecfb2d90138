// Statements over named batch inputs and no tables: what the library's
// where() and select() compile and run per batch. Compiled with the same
// engine options as every statement (database.ts's engineOptions), run with
// the engine's operators over the batches given.
import type { Batch } from '../core/batch.js';
import { SvcError } from '../errors/svc-error.js';
import { execContext } from '../exec/context.js';
import { compile, type CompiledStatement, type EngineOptions, type SelectStatement } from '../exec/engine.js';
import { run } from '../exec/operators.js';
import { Pacer } from '../exec/pacer.js';
import { createFunctionRegistry } from '../functions/index.js';
import type { SchemaSource } from '../sql/schema-source.js';
import { engineOptions, type StatementEngine } from './database.js';

/** Tables are not reachable from a transform: it sees only its batches' columns. */
const NO_TABLES: SchemaSource = {
  exists: () => false,
  schema: (name: string): never => {
    throw new SvcError(
      'NOT_FOUND',
      `table does not exist [table=${name}]: where() and select() see only the columns of their batches`,
    );
  },
};

/** The functions and yield clock of one transform stage: a stage is a small database of its own, without tables. */
export function transformEngine(): StatementEngine {
  return { registry: createFunctionRegistry(), pacer: new Pacer() };
}

/** Parses and binds `sql` over `inputs` (names FROM may read, with their columns); SQL errors throw with their position. */
export function compileOverInputs(
  sql: string,
  inputs: NonNullable<EngineOptions['inputs']>,
  engine: StatementEngine,
): CompiledStatement {
  return compile(sql, engineOptions(null, {}, engine, inputs, NO_TABLES));
}

/** Runs a statement compileOverInputs made (at its statement time), its inputs read from `batches` by name. */
export function runOverInputs(
  stmt: SelectStatement,
  engine: StatementEngine,
  signal: AbortSignal,
  batches: ReadonlyMap<string, AsyncIterable<Batch>>,
): AsyncGenerator<Batch> {
  return run(
    stmt.plan,
    execContext(null, signal, { ...engine, statementMicros: stmt.statementMicros }, {}, undefined, batches),
  );
}
