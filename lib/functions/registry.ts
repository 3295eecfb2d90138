// The function registry: scalar functions (operators included: '+', '=', ...)
// and aggregates, each resolving an overload from argument types to a result
// type and a vectorized kernel. The binder calls resolve(); executors call the
// kernels on whole batches.
import { SvcError } from '../errors/svc-error.js';
import { Deadline } from '../limits/deadline.js';
import { MemoryBudget } from '../limits/memory-budget.js';
import type { ColumnVector } from '../core/column-vector.js';
import { typeName } from '../core/column-type.js';
import type { SqlType } from '../core/sql-type.js';
import type { PageSummaryKind } from './page-summary.js';

/**
 * What a kernel may need beyond its arguments: the memory its evaluation may
 * hold (text built per row is charged as it grows), the statement's deadline
 * (loops whose cost per row is unbounded tick it) and the limits on built text.
 */
export interface KernelContext {
  /** Charged for what kernels build; the evaluator releases it after each batch. */
  readonly budget: MemoryBudget;
  readonly deadline: Deadline;
  /** Most UTF-8 bytes of one value a text-building function (lpad, rpad, replace...) may make (cairo.sql.string.function.buffer.max.size). */
  readonly maxTextBytes: number;
  /**
   * Bytes of text one kernel call may build over a batch of several rows before
   * it throws RowChunkOverflow, so that the evaluator redoes the batch in smaller
   * row chunks (Infinity where nobody would catch it).
   */
  readonly chunkBytes: number;
  /** The statement's time in epoch micros (now(), today()), read once from its clock when it is compiled. */
  readonly statementMicros: number;
  /** The database's running statements (cancel_query()); absent or null outside a database. */
  readonly activity?: { cancel(id: number): boolean } | null;
  /** The server's configuration (reload_config()); absent or null outside a database: nothing reloads. */
  readonly config?: { reload(): boolean } | null;
}

/**
 * A context of its own for kernels run outside an operator (bind-time
 * constants, INSERT VALUES, tests) of the statement at `statementMicros`:
 * `memory` bytes, no deadline, QuestDB's default 1 MiB per built text value
 * unless given, no row chunks.
 */
export function standaloneKernelContext(
  statementMicros: number,
  memory = 1024 ** 3,
  maxTextBytes = 1024 * 1024,
): KernelContext {
  return {
    budget: new MemoryBudget(memory, 'query.memory.limit'),
    deadline: Deadline.NEVER,
    maxTextBytes,
    chunkBytes: Infinity,
    statementMicros,
  };
}

/** Computes a result vector of `n` rows from argument vectors of `n` rows. */
export type Kernel = (args: readonly ColumnVector[], n: number, kx: KernelContext) => ColumnVector;

/** A constant argument's value at bind time: numbers (BOOLEAN as 0/1), text, or null for NULL. */
export type ConstValue = number | string | boolean | null;

/** An argument as a bind hook sees it (after the implicit casts). */
export interface BindArg {
  readonly type: SqlType;
  /** The value when the argument is constant (a literal or a deterministic expression of literals), else undefined. */
  readonly value: ConstValue | undefined;
  /** Offset of the argument in the SQL text, for errors. */
  readonly pos: number;
  /**
   * Whether the argument is the same for every row (a literal or a deterministic call of
   * constants), even when `value` cannot show it (UUID, LONG256).
   */
  readonly constant: boolean;
  /** A constant argument's value as a vector of one row (any type), else undefined. */
  readonly vector: ColumnVector | undefined;
}

/** What a bind hook may specialise once the constant arguments are known. */
export interface BindResult {
  readonly type?: SqlType;
  readonly kernel?: Kernel;
  /**
   * The arguments `kernel` is given at run time, by index, in order (default:
   * all): one that has taken constants in at bind time need not see them again.
   */
  readonly runArgs?: readonly number[];
}

/**
 * Checks a call's constant arguments when it is bound, throwing an SvcError at
 * the offending argument's position (or the call's, `pos`), and may return a
 * result type and kernel chosen for those constants.
 */
export type BindHook = (args: readonly BindArg[], pos: number) => BindResult | void;

/** The SQL error of a bad argument, at `position`. */
export function argError(message: string, position: number): SvcError {
  return new SvcError('SQL', message, { position });
}

export interface ScalarOverload {
  readonly type: SqlType;
  readonly kernel: Kernel;
  /** Types the binder must cast the arguments to first (same length as args), when they differ. */
  readonly argTypes?: readonly SqlType[];
  /** Result depends only on arguments (constant folding allowed). False for now(), rnd_*(). */
  readonly deterministic?: boolean;
  /** Bind-time checks of constant arguments (see BindHook). */
  readonly bind?: BindHook;
}

export interface ScalarFunction {
  readonly name: string;
  /** The overload for these argument types, or a message saying what is wrong (at argument `arg` for an ArgMismatch). */
  resolve(argTypes: readonly SqlType[]): ScalarOverload | string | ArgMismatch;
}

/** A call refused because of one argument: the error points at that argument. */
export interface ArgMismatch {
  readonly message: string;
  /** Index of the argument. */
  readonly arg: number;
}

/** Grouped aggregate state over group ids (hash aggregation) or one group (ids all 0). */
export interface AggregateState {
  /** Adds rows: row i goes to group ids[i]. `groups` is the number of groups so far. */
  update(ids: Int32Array, args: readonly ColumnVector[], n: number, groups: number): void;
  /** One value per group 0..groups-1. */
  result(groups: number): ColumnVector;
  /** Bytes held, for the memory limit. */
  bytes(): number;
  /**
   * Over a table's numeric column, without GROUP BY keys (exec/page-aggregate.ts) or per key
   * combination of a page (exec/page-group.ts): the summary of a page's rows this state can take
   * instead of the rows (functions/page-summary.ts).
   */
  readonly pageSummary?: PageSummaryKind;
  /**
   * Takes the summary `s` of `n` rows of a page into group `group` (default 0), leaving the state
   * as update() with those rows would (exactly so for one group: exec/page-aggregate.ts); false
   * when it needs the rows instead (then update() is called with them, the state unchanged so far).
   * With keys (exec/page-group.ts), a sum's page summary is the rows' sum in row order.
   */
  takeSummary?(s: number, n: number, group?: number): boolean;
}

export interface AggregateOverload {
  readonly type: SqlType;
  create(): AggregateState;
}

export interface AggregateFunction {
  readonly name: string;
  resolve(argTypes: readonly SqlType[], distinct: boolean): AggregateOverload | string;
}

/** A family of scalar functions named after a parametric type: the function a lower-case name names, or undefined. */
export type ScalarFamily = (name: string) => ScalarFunction | undefined;

/**
 * The functions one database binds against: scalar functions by name,
 * families of scalar functions named after a parametric type
 * (`cast_decimal(10,2)`, `cast_geohash(4c)`), and aggregates.
 * createFunctionRegistry() (index.ts) fills one and seals it: after that it is
 * read-only, so one registry can serve concurrent statements.
 */
export class FunctionRegistry {
  readonly #scalars = new Map<string, ScalarFunction>();
  readonly #families: ScalarFamily[] = [];
  readonly #aggregates = new Map<string, AggregateFunction>();
  #sealed = false;

  registerScalar(f: ScalarFunction): void {
    this.#checkOpen(f.name);
    if (this.#scalars.has(f.name)) throw new Error(`function ${f.name} registered twice`);
    this.#scalars.set(f.name, f);
  }

  registerScalarFamily(f: ScalarFamily): void {
    this.#checkOpen('a scalar family');
    this.#families.push(f);
  }

  registerAggregate(f: AggregateFunction): void {
    this.#checkOpen(f.name);
    if (this.#aggregates.has(f.name)) throw new Error(`aggregate ${f.name} registered twice`);
    this.#aggregates.set(f.name, f);
  }

  /** No registration after this: the registry is shared by every statement of its database. */
  seal(): this {
    this.#sealed = true;
    return this;
  }

  get sealed(): boolean {
    return this.#sealed;
  }

  isAggregate(name: string): boolean {
    return this.#aggregates.has(name.toLowerCase());
  }

  hasScalar(name: string): boolean {
    return this.#scalarOf(name) !== undefined;
  }

  /** The overload of a scalar call, a message saying why none fits, or null for an unknown function. */
  tryResolveScalar(name: string, argTypes: readonly SqlType[]): ScalarOverload | string | null {
    const f = this.#scalarOf(name);
    if (!f) return null;
    const r = f.resolve(argTypes);
    return typeof r !== 'string' && 'message' in r ? r.message : r;
  }

  /** Resolves a scalar call or throws the QuestDB-style error at `pos`. */
  resolveScalar(name: string, argTypes: readonly SqlType[], pos: number, argPos?: readonly number[]): ScalarOverload {
    const f = this.#scalarOf(name);
    if (!f)
      throw new SvcError('SQL', `unknown function name: ${name}(${argTypes.map(typeName).join(', ')})`, {
        position: pos,
      });
    const r = f.resolve(argTypes);
    if (typeof r === 'string') throw new SvcError('SQL', typeNamesIn(r), { position: pos });
    if ('message' in r) throw new SvcError('SQL', r.message, { position: argPos?.[r.arg] ?? pos });
    return r;
  }

  resolveAggregate(name: string, argTypes: readonly SqlType[], distinct: boolean, pos: number): AggregateOverload {
    const f = this.#aggregates.get(name.toLowerCase());
    if (!f)
      throw new SvcError('SQL', `unknown function name: ${name}(${argTypes.map(typeName).join(', ')})`, {
        position: pos,
      });
    const r = f.resolve(argTypes, distinct);
    if (typeof r === 'string') throw new SvcError('SQL', typeNamesIn(r), { position: pos });
    return r;
  }

  /** Names of every registered scalar function (operators and casts included), sorted. */
  scalarNames(): string[] {
    return [...this.#scalars.keys()].sort();
  }

  /** Names of every registered aggregate, sorted. */
  aggregateNames(): string[] {
    return [...this.#aggregates.keys()].sort();
  }

  #scalarOf(name: string): ScalarFunction | undefined {
    const lower = name.toLowerCase();
    const f = this.#scalars.get(lower);
    if (f) return f;
    for (const family of this.#families) {
      const g = family(lower);
      if (g) return g;
    }
    return undefined;
  }

  #checkOpen(what: string): void {
    if (this.#sealed) throw new Error(`cannot register ${what}: the function registry is sealed`);
  }
}

/** A resolution message with the types QuestDB spells otherwise (IPv4) in its spelling; the overloads' messages use the internal names. */
function typeNamesIn(message: string): string {
  return message.replace(/\bIPV4\b/g, typeName('IPV4'));
}
