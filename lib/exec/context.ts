// What running operators need: the catalog, the request's abort signal, the
// statement's memory budget (every operator charges what it holds and gives it
// back when done), its deadline, its functions and time, the subquery values of
// this execution, and cooperative yielding (the database's Pacer) so a long scan
// never starves the event loop (DESIGN.md "Shape").
import { SvcError } from '../errors/svc-error.js';
import { Deadline } from '../limits/deadline.js';
import { MemoryBudget } from '../limits/memory-budget.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { Catalog } from '../storage/catalog.js';
import type { Batch } from '../core/batch.js';
import type { BoundExpr, Plan } from '../sql/bound.js';
import type { TableReader } from '../storage/table-reader.js';
import type { StatementEnv } from '../sql/statement-env.js';
import type { Pacer } from './pacer.js';
import type { Value } from './vectors.js';
import type { WorkerPool } from '../workers/worker-pool.js';
import type { Config } from '../config/config.js';
import type { Activity } from '../limits/activity.js';
import type { CopyControl } from './copy.js';

/** The key of the per-statement memory limit, named in its error. */
export const MEMORY_LIMIT_KEY = 'query.memory.limit';
/** QuestDB's default cairo.sql.string.function.buffer.max.size: 1 MiB per built text value. */
export const DEFAULT_MAX_TEXT_BYTES = 1024 * 1024;

/** What one run of a subquery gave: its values (IN lists), and for a scalar subquery its row as a vector of one row, exact (null: no rows). */
export interface SubqueryResult {
  readonly values: readonly Value[];
  readonly row: ColumnVector | null;
}

/** One execution of a statement; `registry` and `statementMicros` (StatementEnv) are the compiled statement's. */
export interface ExecContext extends StatementEnv {
  /** The database's tables; null when there are none (the library's where() and select()). */
  readonly catalog: Catalog | null;
  readonly signal: AbortSignal;
  /** What the statement holds (collected batches, hash tables, sorts, text built per row), at most query.memory.limit. */
  readonly budget: MemoryBudget;
  /** When the statement times out: synchronous loops check it (the timer behind `signal` cannot fire while they run). */
  readonly deadline: Deadline;
  /** The per-value limit of text-building functions (cairo.sql.string.function.buffer.max.size). */
  readonly maxTextBytes: number;
  /** Batches for the plan's `input` nodes, by name (the library's stream operators). */
  readonly inputs?: ReadonlyMap<string, AsyncIterable<Batch>>;
  /** The database's yield clock, shared with its other statements. */
  readonly pacer: Pacer;
  /**
   * The values of the uncorrelated subqueries this execution has run, by their bound node
   * (prepareSubqueries in subqueries.ts): never written into the plan, so one compiled
   * statement can run twice, or twice at once, each execution with its own values.
   */
  readonly subqueryValues: Map<BoundExpr, SubqueryResult>;
  /**
   * What to do when the statement ends, however it ends (endStatement): table readers are
   * closed there, not when their scan ends, because vectors read lazily (text, storage/
   * text-codes.ts) may be read after their scan ended, by an operator that kept them.
   */
  readonly atEnd: Array<() => void>;
  /** The reader of each scan node that has started, so an operator above can ask about the same snapshot. */
  readonly scanReaders: Map<Plan, TableReader>;
  /** The database's worker pool (shared.worker.count), null when work stays on this thread. */
  readonly workers: () => WorkerPool | null;
  readonly pageFrame: PageFrame;
  /** The server's configuration (SHOW PARAMETERS); null: the defaults (an engine without a Database). */
  readonly config: Config | null;
  /** The database's running statements (query_activity()); null when none are tracked. */
  readonly activity: Activity | null;
  /** COPY's jobs and logs (sys.text_import_log, sys.copy_export_log); null: none. */
  readonly copies: CopyControl | null;
}

/** What every execution of one statement shares: its functions and time, and the database's pacer. */
export interface StatementRuntime extends StatementEnv {
  readonly pacer: Pacer;
}

/** The limits of one statement execution. */
export interface StatementLimits {
  /** Bytes the statement may hold (default 1 GiB). */
  readonly memoryLimit?: number;
  /** The process-wide budget every statement's charges also go to, if any. */
  readonly parentBudget?: MemoryBudget | null;
  /** Per-value limit of built text (default 1 MiB). */
  readonly maxTextBytes?: number;
  /** The worker pool scans may use (none by default: everything on this thread). */
  readonly workers?: () => WorkerPool | null;
  /** How parallel scans cut their work (DEFAULT_PAGE_FRAME by default). */
  readonly pageFrame?: PageFrame;
  /** What the system functions report: the configuration, the running statements. */
  readonly config?: Config;
  readonly activity?: Activity;
  readonly copies?: CopyControl;
}

/** cairo.sql.page.frame.*: the fewest rows a pool thread takes as one task, and the most rows handed out at once. */
export interface PageFrame {
  readonly minRows: number;
  readonly maxRows: number;
}

export const DEFAULT_PAGE_FRAME: PageFrame = { minRows: 1 << 20, maxRows: 1 << 23 };

/**
 * A context for one execution of the statement `runtime` describes: a fresh budget (under
 * the parent, if any), the deadline (none by default), no subquery values yet.
 */
export function execContext(
  catalog: Catalog | null,
  signal: AbortSignal,
  runtime: StatementRuntime,
  limits: StatementLimits,
  deadline = Deadline.NEVER,
  inputs?: ReadonlyMap<string, AsyncIterable<Batch>>,
): ExecContext {
  return {
    catalog,
    signal,
    deadline,
    inputs,
    registry: runtime.registry,
    statementMicros: runtime.statementMicros,
    pacer: runtime.pacer,
    budget: new MemoryBudget(limits.memoryLimit ?? 1024 ** 3, MEMORY_LIMIT_KEY, limits.parentBudget ?? null),
    maxTextBytes: limits.maxTextBytes ?? DEFAULT_MAX_TEXT_BYTES,
    subqueryValues: new Map(),
    atEnd: [],
    scanReaders: new Map(),
    workers: limits.workers ?? noWorkers,
    pageFrame: limits.pageFrame ?? DEFAULT_PAGE_FRAME,
    config: limits.config ?? null,
    activity: limits.activity ?? null,
    copies: limits.copies ?? null,
  };
}

const noWorkers = (): null => null;

/** Ends a statement's execution: its atEnd work (last registered first), then its budget given back. */
export function endStatement(cx: ExecContext): void {
  try {
    while (cx.atEnd.length > 0) cx.atEnd.pop()!();
  } finally {
    cx.budget.releaseAll();
  }
}

/** The catalog of a plan that reads tables (a plan bound without tables has no such node). */
export function tablesOf(cx: ExecContext): Catalog {
  if (cx.catalog === null) throw new SvcError('INTERNAL', 'a plan that reads tables ran without a catalog');
  return cx.catalog;
}

/** Checks for abort and the deadline, and yields to the event loop every few milliseconds of work (the database's Pacer). */
export async function pace(cx: ExecContext): Promise<void> {
  if (cx.signal.aborted) throw abortError(cx.signal);
  const now = performance.now();
  if (now >= cx.deadline.at) throw cx.deadline.error();
  if (cx.pacer.due(now)) {
    await cx.pacer.yield();
    if (cx.signal.aborted) throw abortError(cx.signal);
  }
}

function abortError(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new SvcError('TIMEOUT', 'query aborted');
}

/**
 * What one operator holds, charged to the statement's budget under a phrase
 * for the error (`ORDER BY`, `JOIN`): set() moves it to a new size, release()
 * gives it all back (in the operator's finally).
 */
export class Held {
  #bytes = 0;
  constructor(
    private readonly budget: MemoryBudget,
    readonly what: string,
  ) {}

  get bytes(): number {
    return this.#bytes;
  }

  /** Now holding `bytes` (the difference is charged or released); throws the limit's 400 when it does not fit. */
  set(bytes: number): void {
    this.budget.resize(this.#bytes, bytes, this.what);
    this.#bytes = bytes;
  }

  /** Holding `bytes` more. */
  add(bytes: number): void {
    this.budget.charge(bytes, this.what);
    this.#bytes += bytes;
  }

  release(): void {
    this.budget.release(this.#bytes);
    this.#bytes = 0;
  }
}

/**
 * Runs an operator's generator with a Held charged under `what`, given back
 * however the generator ends (done, failed, or stopped by its consumer).
 */
export async function* holding<T>(
  budget: MemoryBudget,
  what: string,
  run: (held: Held) => AsyncGenerator<T>,
): AsyncGenerator<T> {
  const held = new Held(budget, what);
  try {
    yield* run(held);
  } finally {
    held.release();
  }
}

/** Bytes of a vector's arrays (a slice of a text vector counts all the bytes it shares). */
export function vectorBytes(v: ColumnVector): number {
  switch (v.kind) {
    case 'fixed':
      return v.data.byteLength + (v.exact?.byteLength ?? 0);
    case 'symbol':
      return v.keys.byteLength;
    case 'var':
      return v.bytes.byteLength + v.offsets.byteLength + (v.nulls?.byteLength ?? 0);
  }
}

export function batchBytes(b: Batch): number {
  let s = 0;
  for (const c of b.columns) s += vectorBytes(c);
  return s;
}

/** Bytes a JS Map or Set entry keyed by a string of `chars` characters costs, roughly (entry, hash slot, string header). */
export function keyEntryBytes(chars: number): number {
  return 64 + 2 * chars;
}
