// Statements over named batch inputs and no tables: what the library's
// where() and select() compile and run per batch. Compiled with the same
// engine options as every statement (database.ts's engineOptions), run with
// the engine's operators over the batches given.
import type { Batch } from '../core/batch.js';
import { SvcError } from '../errors/svc-error.js';
import { execContext } from '../exec/context.js';
import { compile, type CompiledStatement, type EngineOptions } from '../exec/engine.js';
import { run } from '../exec/operators.js';
import type { Plan } from '../sql/bound.js';
import type { SchemaSource } from '../sql/schema-source.js';
import { engineOptions } from './database.js';

/** Tables are not reachable from a transform: it sees only its batches' columns. */
const NO_TABLES: SchemaSource = {
  exists: () => false,
  schema: (name: string): never => {
    throw new SvcError('NOT_FOUND', `table does not exist [table=${name}]: where() and select() see only the columns of their batches`);
  },
};

/** Parses and binds `sql` over `inputs` (names FROM may read, with their columns); SQL errors throw with their position. */
export function compileOverInputs(sql: string, inputs: NonNullable<EngineOptions['inputs']>): CompiledStatement {
  return compile(sql, engineOptions(null, {}, inputs, NO_TABLES));
}

/** Runs a plan compileOverInputs made, its inputs read from `batches` by name. */
export function runOverInputs(plan: Plan, signal: AbortSignal, batches: ReadonlyMap<string, AsyncIterable<Batch>>): AsyncGenerator<Batch> {
  return run(plan, execContext(null, signal, {}, undefined, batches));
}
