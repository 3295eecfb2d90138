// The one entry point every handler and the CLI use: compile(text) parses and
// binds a statement and returns its kind, result schema and an execute
// function (DESIGN.md "Shape"; the HTTP layer only serializes).
import { SvcError } from '../errors/svc-error.js';
import type { Catalog } from '../storage/catalog.js';
import type { Batch } from '../storage/table-reader.js';
import type * as A from '../sql/ast.js';
import type { Field, Plan } from '../sql/bound.js';
import { bindQuery, type BindContext } from '../sql/binder.js';
import { COLUMNS_FIELDS, SHOW_CREATE_FIELDS, SHOW_TABLES_FIELDS } from '../sql/metadata.js';
import { parseStatement } from '../sql/parser.js';
import '../sql/functions/index.js';
import { beginStatement } from '../sql/functions/time.js';
import type { ExecContext } from './context.js';
import { runDdl } from './ddl.js';
import { explainPlan } from './explain.js';
import { runInsert } from './insert.js';
import { run } from './operators.js';
import { runUpdate } from './update.js';
import { fromValues } from './vectors.js';

export interface EngineOptions {
  readonly catalog: Catalog;
  /** Bytes a sort or hash table may hold (default 1 GiB). */
  readonly memoryLimit?: number;
  /** Named batch inputs FROM may read (the library's where() and select()); see BindContext. */
  readonly inputs?: BindContext['inputs'];
}

export interface SelectStatement {
  readonly kind: 'select';
  readonly fields: readonly Field[];
  /** Index of the designated timestamp among fields, or -1. */
  readonly timestamp: number;
  readonly plan: Plan;
  execute(signal: AbortSignal): AsyncGenerator<Batch>;
}

export interface ChangeStatement {
  /** ddl: CREATE/DROP/ALTER/TRUNCATE/RENAME; insert: INSERT; update: UPDATE. */
  readonly kind: 'ddl' | 'insert' | 'update';
  execute(signal: AbortSignal): Promise<{ readonly rows: number }>;
}

export type CompiledStatement = SelectStatement | ChangeStatement;

/** Parses and binds `text`. Throws SvcError('SQL', ..., {position}) for anything wrong with it. */
export function compile(text: string, opts: EngineOptions): CompiledStatement {
  beginStatement();
  try {
    const stmt = parseStatement(text);
    return compileStatement(stmt, opts);
  } catch (e) {
    throw tooComplex(e);
  }
}

/**
 * A stack overflow as the client error it is (400 "statement too complex"), not an internal
 * one. The depth guard (sql/depth-guard.ts) stops deep statements first with a position;
 * this is the net under it, for a recursion it does not know about.
 */
function tooComplex(e: unknown): unknown {
  if (e instanceof RangeError && /call stack/i.test(e.message)) return new SvcError('SQL', 'statement too complex', { position: 0, cause: e });
  return e;
}

async function* guarded(batches: AsyncGenerator<Batch>): AsyncGenerator<Batch> {
  try {
    yield* batches;
  } catch (e) {
    throw tooComplex(e);
  }
}

function change(kind: ChangeStatement['kind'], prepared: (cx: ExecContext) => Promise<{ readonly rows: number }>, opts: EngineOptions): ChangeStatement {
  return {
    kind,
    execute: (signal) => prepared(context(opts, signal)).catch((e: unknown) => { throw tooComplex(e); }),
  };
}

function context(opts: EngineOptions, signal: AbortSignal): ExecContext {
  return { catalog: opts.catalog, signal, memoryLimit: opts.memoryLimit ?? 1024 ** 3 };
}

function select(plan: Plan, opts: EngineOptions): SelectStatement {
  return { kind: 'select', fields: plan.fields, timestamp: plan.timestamp, plan, execute: (signal) => guarded(run(plan, context(opts, signal))) };
}

function compileStatement(stmt: A.Statement, opts: EngineOptions): CompiledStatement {
  const catalog = opts.catalog;
  switch (stmt.kind) {
    case 'query': return select(bindQuery(stmt.query, { catalog, inputs: opts.inputs }), opts);
    case 'explain': {
      const inner = compileStatement(stmt.statement, opts);
      const lines = inner.kind === 'select' ? explainPlan(inner.plan) : [`${inner.kind.toUpperCase()}`];
      const plan: Plan = { kind: 'oneRow', fields: [], timestamp: -1 };
      const fields: Field[] = [{ name: 'QUERY PLAN', type: 'STRING' }];
      return {
        kind: 'select', fields, timestamp: -1, plan,
        async *execute() { yield { rowCount: lines.length, columns: [fromValues('STRING', lines)] }; },
      };
    }
    case 'show': {
      const what = stmt.what.toUpperCase();
      const table = stmt.table;
      if (table !== null && !catalog.exists(table)) throw new SvcError('SQL', `table does not exist [table=${table}]`, { position: stmt.tablePos });
      if (what === 'TABLES') return select({ kind: 'metadata', what: 'tables', table: null, fields: SHOW_TABLES_FIELDS, timestamp: -1 }, opts);
      if (what === 'COLUMNS') return select({ kind: 'metadata', what: 'columns', table, fields: COLUMNS_FIELDS, timestamp: -1 }, opts);
      if (what === 'CREATE TABLE') return select({ kind: 'metadata', what: 'createTable', table, fields: SHOW_CREATE_FIELDS, timestamp: -1 }, opts);
      throw new SvcError('SQL', `SHOW ${stmt.what} is not supported`, { position: stmt.pos });
    }
    case 'insert': return change('insert', runInsert(stmt, catalog), opts);
    case 'createTable': case 'dropTable': case 'truncateTable': case 'renameTable': case 'alterTable':
      return change('ddl', runDdl(stmt, catalog), opts);
    case 'update': return change('update', runUpdate(stmt, catalog), opts);
    case 'unsupported': throw new SvcError('SQL', `${stmt.what} is not supported`, { position: stmt.pos });
    default: throw new SvcError('SQL', `unsupported statement [${(stmt as { kind: string }).kind}]`, { position: (stmt as { pos: number }).pos });
  }
}
