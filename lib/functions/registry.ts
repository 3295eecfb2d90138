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
}

/**
 * A context of its own for kernels run outside a statement (bind-time
 * constants, INSERT VALUES, tests): `memory` bytes, no deadline, QuestDB's
 * default 1 MiB per built text value unless given, no row chunks.
 */
export function standaloneKernelContext(memory = 1024 ** 3, maxTextBytes = 1024 * 1024): KernelContext {
  return { budget: new MemoryBudget(memory, 'query.memory.limit'), deadline: Deadline.NEVER, maxTextBytes, chunkBytes: Infinity };
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
}

export interface AggregateOverload {
  readonly type: SqlType;
  create(): AggregateState;
}

export interface AggregateFunction {
  readonly name: string;
  resolve(argTypes: readonly SqlType[], distinct: boolean): AggregateOverload | string;
}

const scalars = new Map<string, ScalarFunction>();
/**
 * Families of scalar functions named after a parametric type (`cast_decimal(10,2)`,
 * `cast_geohash(4c)`): each gives the function for a lower-case name, or undefined.
 */
const families: Array<(name: string) => ScalarFunction | undefined> = [];

export function registerScalarFamily(f: (name: string) => ScalarFunction | undefined): void {
  families.push(f);
}

function scalarOf(name: string): ScalarFunction | undefined {
  const lower = name.toLowerCase();
  const f = scalars.get(lower);
  if (f) return f;
  for (const family of families) {
    const g = family(lower);
    if (g) return g;
  }
  return undefined;
}
const aggregates = new Map<string, AggregateFunction>();

export function registerScalar(f: ScalarFunction): void {
  if (scalars.has(f.name)) throw new Error(`function ${f.name} registered twice`);
  scalars.set(f.name, f);
}

export function registerAggregate(f: AggregateFunction): void {
  if (aggregates.has(f.name)) throw new Error(`aggregate ${f.name} registered twice`);
  aggregates.set(f.name, f);
}

export function isAggregate(name: string): boolean {
  return aggregates.has(name.toLowerCase());
}

export function hasScalar(name: string): boolean {
  return scalarOf(name) !== undefined;
}

/** The overload of a scalar call, a message saying why none fits, or null for an unknown function. */
export function tryResolveScalar(name: string, argTypes: readonly SqlType[]): ScalarOverload | string | null {
  const f = scalarOf(name);
  if (!f) return null;
  const r = f.resolve(argTypes);
  return typeof r !== 'string' && 'message' in r ? r.message : r;
}

/** Resolves a scalar call or throws the QuestDB-style error at `pos`. */
export function resolveScalar(name: string, argTypes: readonly SqlType[], pos: number, argPos?: readonly number[]): ScalarOverload {
  const f = scalarOf(name);
  if (!f) throw new SvcError('SQL', `unknown function name: ${name}(${argTypes.map(typeName).join(', ')})`, { position: pos });
  const r = f.resolve(argTypes);
  if (typeof r === 'string') throw new SvcError('SQL', typeNamesIn(r), { position: pos });
  if ('message' in r) throw new SvcError('SQL', r.message, { position: argPos?.[r.arg] ?? pos });
  return r;
}

/** A resolution message with the types QuestDB spells otherwise (IPv4) in its spelling; the overloads' messages use the internal names. */
function typeNamesIn(message: string): string {
  return message.replace(/\bIPV4\b/g, typeName('IPV4'));
}

export function resolveAggregate(name: string, argTypes: readonly SqlType[], distinct: boolean, pos: number): AggregateOverload {
  const f = aggregates.get(name.toLowerCase());
  if (!f) throw new SvcError('SQL', `unknown function name: ${name}(${argTypes.map(typeName).join(', ')})`, { position: pos });
  const r = f.resolve(argTypes, distinct);
  if (typeof r === 'string') throw new SvcError('SQL', typeNamesIn(r), { position: pos });
  return r;
}

/** Names of every registered scalar function (operators and casts included), sorted. */
export function scalarNames(): string[] {
  return [...scalars.keys()].sort();
}

/** Names of every registered aggregate, sorted. */
export function aggregateNames(): string[] {
  return [...aggregates.keys()].sort();
}
