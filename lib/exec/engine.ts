// The one entry point every handler and the CLI use: compile(text) parses and
// binds a statement and returns its kind, result schema and an execute
// function (DESIGN.md "Shape"; the HTTP layer only serializes). The caller
// gives the database's function registry and pacer; the statement's time is
// read from the clock once, here, for binding and every execution.
import { markTextKeys } from './text-keys.js';
import { SvcError } from '../errors/svc-error.js';
import type { Catalog } from '../storage/catalog.js';
import type { Batch } from '../core/batch.js';
import type * as A from '../sql/ast.js';
import type { Field, Plan } from '../sql/bound.js';
import { bindQuery, showPlan, type BindContext } from '../sql/binder.js';
import { variableTexts } from '../sql/declare.js';
import type { SchemaSource } from '../sql/schema-source.js';
import { node } from '../sql/plan-timestamp.js';
import type { WorkerPool } from '../workers/worker-pool.js';
import type { PageFrame } from './context.js';
import type { ColumnNaming } from '../sql/column-alias.js';
import { parseStatement } from '../sql/parser.js';
import { standaloneKernelContext, type FunctionRegistry } from '../functions/registry.js';
import { WALL_CLOCK, type Clock } from '../functions/clock.js';
import type { Activity } from '../limits/activity.js';
import type { Config } from '../config/config.js';
import type { CopyRoots } from '../sql/bind-system.js';
import type { Deadline } from '../limits/deadline.js';
import type { MemoryBudget } from '../limits/memory-budget.js';
import { endStatement, execContext, type ExecContext, type StatementRuntime } from './context.js';
import type { Pacer } from './pacer.js';
import { runDdl } from './ddl.js';
import { runMaintenance } from './maintenance.js';
import { runViewDdl, viewQueryType } from './view-ddl.js';
import { matViewQueryType, runMatViewDdl, type MatViewControl } from './mat-view-ddl.js';
import { liveViewQueryType, runLiveViewDdl } from './live-view-ddl.js';
import { explainPlan } from './explain.js';
import { runInsert } from './insert.js';
import { run } from './operators.js';
import { runUpdate } from './update.js';
import { fromValues } from './vectors.js';
import { parquetSource } from './parquet-file.js';
import { compileCopy, type CopyControl } from './copy.js';

export interface EngineOptions {
  /** The database's tables; null for none (the library's where() and select(), over their batches alone). */
  readonly catalog: Catalog | null;
  /** The tables FROM may name, when not the catalog's (where() and select(): none, with their own message). */
  readonly tables?: SchemaSource;
  /** The functions statements resolve against (createFunctionRegistry(): one per database). */
  readonly registry: FunctionRegistry;
  /** The yield clock the database's statements share (one per database). */
  readonly pacer: Pacer;
  /** Where the statement's time (now()) is read, once per compile() (default: the wall clock). */
  readonly clock?: Clock;
  /** Bytes one execution may hold in collected rows, sorts, hash tables and text built per row (default 1 GiB). */
  readonly memoryLimit?: number;
  /** The process-wide budget every execution's charges also go to (none by default). */
  readonly parentBudget?: MemoryBudget | null;
  /** Most bytes of one text value lpad, rpad, replace, regexp_replace may build (default 1 MiB). */
  readonly maxTextBytes?: number;
  /** Named batch inputs FROM may read (the library's where() and select()); see BindContext. */
  readonly inputs?: BindContext['inputs'];
  /** The worker pool scans may use (none by default). */
  readonly workers?: () => WorkerPool | null;
  /** How parallel scans cut their work (cairo.sql.page.frame.*). */
  readonly pageFrame?: PageFrame;
  /** Told when each execution begins and ends (the database's, so background work waits for quiet). */
  readonly activity?: Activity;
  /** How unaliased result columns are named (server.conf cairo.sql.column.alias.*; QuestDB 9's expression text by default). */
  readonly columnNaming?: ColumnNaming;
  /** What refreshes materialized views (lib/db's refresher); without it REFRESH MATERIALIZED VIEW is refused. */
  readonly matViews?: MatViewControl;
  /** The server's configuration, for SHOW PARAMETERS (default: every key at its default). */
  readonly config?: Config;
  /** The folders import_files(), export_files(), files() and glob() may list (none by default: they are disabled). */
  readonly copyRoots?: CopyRoots;
  /** The folder read_parquet() reads under (cairo.sql.copy.root, absolute); absent or empty: read_parquet is refused. */
  readonly copyRoot?: string;
  /** What runs COPY's imports and exports and keeps their logs (lib/db's); absent: COPY is disabled, the logs empty. */
  readonly copies?: CopyControl;
  /** Told each execution's text, start and length when tracing is on (query.tracing.enabled; lib/db's _query_trace). */
  readonly tracer?: StatementTracer;
  /** Who runs the statement, as the trace records it (the HTTP basic-auth user; default QuestDB's 'admin'). */
  readonly principal?: string;
}

/** Where executions are traced: read once at each start, so a statement costs nothing more while it is off. */
export interface StatementTracer {
  readonly enabled: boolean;
  /** One finished execution (however it ended); must not throw. */
  record(text: string, principal: string, startMicros: number, micros: number): void;
}

/** Epoch micros now, with the sub-millisecond part (the trace's start and length). */
function nowMicros(): number {
  return (performance.timeOrigin + performance.now()) * 1000;
}

/** The start of a traced execution, or -1 when tracing is off. */
function traceStart(opts: EngineOptions): number {
  return opts.tracer?.enabled === true ? nowMicros() : -1;
}

function traceEnd(opts: EngineOptions, text: string, start: number): void {
  if (start < 0) return;
  opts.tracer!.record(text, opts.principal ?? 'admin', Math.round(start), Math.round(nowMicros() - start));
}

export interface SelectStatement {
  readonly kind: 'select';
  readonly fields: readonly Field[];
  /** Index of the designated timestamp among fields, or -1. */
  readonly timestamp: number;
  readonly plan: Plan;
  /** The statement's time (epoch micros), read when it was compiled: now() in every execution. */
  readonly statementMicros: number;
  /** Runs the query; `deadline` is the statement's timeout, which synchronous work checks (none by default). */
  execute(signal: AbortSignal, deadline?: Deadline): AsyncGenerator<Batch>;
}

export interface ChangeStatement {
  /** ddl: CREATE/DROP/ALTER/TRUNCATE/RENAME; insert: INSERT; update: UPDATE. */
  readonly kind: 'ddl' | 'insert' | 'update';
  /** The statement's type as QuestDB's /validate names it: `CREATE TABLE`, `INSERT`, `DROP`, ... */
  readonly queryType: string;
  execute(signal: AbortSignal, deadline?: Deadline): Promise<{ readonly rows: number }>;
}

export type CompiledStatement = SelectStatement | ChangeStatement;

/** Parses and binds `text`. Throws SvcError('SQL', ..., {position}) for anything wrong with it. */
export function compile(text: string, opts: EngineOptions): CompiledStatement {
  const runtime: StatementRuntime = {
    registry: opts.registry,
    pacer: opts.pacer,
    statementMicros: (opts.clock ?? WALL_CLOCK).micros(),
  };
  try {
    const stmt = parseStatement(text);
    return compileStatement(stmt, opts, runtime, text);
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
  if (e instanceof RangeError && /call stack/i.test(e.message))
    return new SvcError('SQL', 'statement too complex', { position: 0, cause: e });
  return e;
}

/** The catalog a statement that reads or changes tables needs. */
function catalogOf(opts: EngineOptions): Catalog {
  if (opts.catalog === null) throw new SvcError('INTERNAL', 'a statement on tables was compiled without a catalog');
  return opts.catalog;
}

function context(
  opts: EngineOptions,
  runtime: StatementRuntime,
  signal: AbortSignal,
  deadline: Deadline | undefined,
): ExecContext {
  return execContext(opts.catalog, signal, runtime, opts, deadline);
}

/** The request's signal, also aborted when the statement is cancelled through `control` (CANCEL QUERY). */
function cancellable(signal: AbortSignal, control: AbortController): AbortSignal {
  return AbortSignal.any([signal, control.signal]);
}

/** The plan's batches; whatever the execution still holds is given back when it ends, however it ends. */
async function* runStatement(
  plan: Plan,
  cx: ExecContext,
  opts: EngineOptions,
  text: string,
  control: AbortController,
): AsyncGenerator<Batch> {
  markTextKeys(plan);
  const traced = traceStart(opts);
  const id = opts.activity?.begin(text, control);
  try {
    yield* run(plan, cx);
  } catch (e) {
    throw tooComplex(e);
  } finally {
    opts.activity?.end(id);
    endStatement(cx);
    traceEnd(opts, text, traced);
  }
}

/** A change statement's execution, its budget given back at the end. */
function change(
  prepared: (cx: ExecContext) => Promise<{ rows: number }>,
  opts: EngineOptions,
  runtime: StatementRuntime,
  text: string,
) {
  return async (signal: AbortSignal, deadline?: Deadline): Promise<{ rows: number }> => {
    const control = new AbortController();
    const cx = context(opts, runtime, cancellable(signal, control), deadline);
    const traced = traceStart(opts);
    const id = opts.activity?.begin(text, control);
    try {
      return await prepared(cx);
    } catch (e) {
      throw tooComplex(e);
    } finally {
      opts.activity?.end(id);
      endStatement(cx);
      traceEnd(opts, text, traced);
    }
  };
}

function selectOf(plan: Plan, opts: EngineOptions, runtime: StatementRuntime, text: string): SelectStatement {
  return {
    kind: 'select',
    fields: plan.fields,
    timestamp: plan.timestamp,
    plan,
    statementMicros: runtime.statementMicros,
    execute: (signal, deadline) => {
      const control = new AbortController();
      const cx = context(opts, runtime, cancellable(signal, control), deadline);
      return runStatement(plan, cx, opts, text, control);
    },
  };
}

/** QuestDB's names of the DDL statement types (CompiledQuery), as /validate reports them. */
function ddlQueryType(stmt: A.CreateTable | A.DropTable | A.TruncateTable | A.RenameTable | A.AlterTable): string {
  switch (stmt.kind) {
    case 'createTable':
      return stmt.asSelect === null ? 'CREATE TABLE' : 'CREATE TABLE AS SELECT';
    case 'dropTable':
      return 'DROP';
    case 'truncateTable':
      return 'TRUNCATE';
    case 'renameTable':
      return 'RENAME TABLE';
    case 'alterTable':
      return 'ALTER';
  }
}

function compileStatement(
  stmt: A.Statement,
  opts: EngineOptions,
  runtime: StatementRuntime,
  text: string,
): CompiledStatement {
  const env = {
    registry: runtime.registry,
    statementMicros: runtime.statementMicros,
    naming: opts.columnNaming,
    sql: text,
    copyRoots: opts.copyRoots,
    parquet: parquetSource(opts.copyRoot ?? ''),
  };
  const select = (plan: Plan): SelectStatement => selectOf(plan, opts, runtime, text);
  switch (stmt.kind) {
    case 'query': {
      const variables = (stmt as A.Parsed).variables;
      return select(
        bindQuery(stmt.query, {
          catalog: opts.tables ?? catalogOf(opts),
          inputs: opts.inputs,
          ...env,
          ...(variables ? { variables: variableTexts(variables, text) } : {}),
        }),
      );
    }
    case 'createMatView':
    case 'dropMatView':
    case 'refreshMatView':
    case 'alterMatView': {
      const prepared = runMatViewDdl(stmt, catalogOf(opts), env, opts.matViews);
      return { kind: 'ddl', queryType: matViewQueryType(stmt), execute: change(prepared, opts, runtime, text) };
    }
    case 'createLiveView':
    case 'dropLiveView':
    case 'alterLiveView': {
      const prepared = runLiveViewDdl(stmt, catalogOf(opts), env, opts.matViews);
      return { kind: 'ddl', queryType: liveViewQueryType(stmt), execute: change(prepared, opts, runtime, text) };
    }
    case 'createView':
    case 'dropView':
    case 'compileView': {
      const prepared = runViewDdl(stmt, catalogOf(opts), env);
      return { kind: 'ddl', queryType: viewQueryType(stmt), execute: change(prepared, opts, runtime, text) };
    }
    case 'explain': {
      const inner = compileStatement(stmt.statement, opts, runtime, text);
      const lines = inner.kind === 'select' ? explainPlan(inner.plan) : [`${inner.kind.toUpperCase()}`];
      const plan: Plan = node({ kind: 'oneRow', fields: [] });
      const fields: Field[] = [{ name: 'QUERY PLAN', type: 'STRING' }];
      return {
        kind: 'select',
        fields,
        timestamp: -1,
        plan,
        statementMicros: runtime.statementMicros,
        async *execute() {
          yield { rowCount: lines.length, columns: [fromValues('STRING', lines)] };
        },
      };
    }
    case 'show':
      return select(showPlan(stmt, { catalog: catalogOf(opts), ...env }));
    case 'insert': {
      const prepared = runInsert(
        stmt,
        catalogOf(opts),
        env,
        standaloneKernelContext(runtime.statementMicros, opts.memoryLimit, opts.maxTextBytes),
      );
      return {
        kind: 'insert',
        queryType: stmt.query === null ? 'INSERT' : 'INSERT AS SELECT',
        execute: change(prepared, opts, runtime, text),
      };
    }
    case 'createTable':
    case 'dropTable':
    case 'truncateTable':
    case 'renameTable':
    case 'alterTable': {
      const prepared = runDdl(stmt, catalogOf(opts), env, opts.matViews);
      return { kind: 'ddl', queryType: ddlQueryType(stmt), execute: change(prepared, opts, runtime, text) };
    }
    case 'update': {
      const prepared = runUpdate(stmt, catalogOf(opts), env);
      return { kind: 'update', queryType: 'UPDATE', execute: change(prepared, opts, runtime, text) };
    }
    case 'copy': {
      const copy = compileCopy(stmt, opts.copies, { catalog: opts.tables ?? catalogOf(opts), ...env });
      return {
        kind: 'select',
        fields: copy.fields,
        timestamp: -1,
        plan: node({ kind: 'oneRow', fields: [] }),
        statementMicros: runtime.statementMicros,
        async *execute() {
          yield copy.run();
        },
      };
    }
    case 'maintenance': {
      const prepared = runMaintenance(stmt, catalogOf(opts));
      return {
        kind: 'ddl',
        queryType: stmt.op === 'vacuum' ? 'VACUUM' : 'REPAIR',
        execute: change(prepared, opts, runtime, text),
      };
    }
    case 'cancelQuery': {
      const { id, idPos } = stmt;
      const prepared = (): Promise<{ rows: number }> => {
        if (opts.activity?.cancel(id) !== true)
          throw new SvcError('SQL', `query to cancel not found in registry [id=${id}]`, { position: idPos });
        return Promise.resolve({ rows: 0 });
      };
      return { kind: 'ddl', queryType: 'CANCEL QUERY', execute: change(prepared, opts, runtime, text) };
    }
    case 'unsupported':
      if (stmt.what === 'CHECKPOINT')
        throw new SvcError(
          'SQL',
          'CHECKPOINT is not supported: svcdb has no checkpoint mode (no saved table states to restore from); back up a stopped database',
          { position: stmt.pos },
        );
      throw new SvcError('SQL', `${stmt.what} is not supported`, { position: stmt.pos });
    default:
      throw new SvcError('SQL', `unsupported statement [${(stmt as { kind: string }).kind}]`, {
        position: (stmt as { pos: number }).pos,
      });
  }
}
