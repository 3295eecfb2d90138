// Test helpers for function kernels: vectors from JS values, JS values from
// vectors, and calls through the registry the way the binder makes them
// (resolve by argument types, cast arguments to the overload's types, run).
import { INT_NULL, LONG_NULL } from '../../lib/core/column-type.js';
import { symbolsFromStrings, type ColumnVector } from '../../lib/core/column-vector.js';
import { standaloneKernelContext, type ScalarOverload } from '../../lib/functions/registry.js';
import { createFunctionRegistry } from '../../lib/functions/index.js';
import { clockMicros } from '../../lib/functions/clock.js';
import { length, textAt, textVector } from '../../lib/core/vec.js';
import { parseTimestamp } from '../../lib/core/datetime.js';
import type { SqlType } from '../../lib/core/sql-type.js';

export type V = number | string | boolean | null;

export const ints = (xs: readonly (number | null)[]): ColumnVector => ({
  kind: 'fixed',
  type: 'INT',
  data: Int32Array.from(xs, (x) => (x === null ? INT_NULL : x)),
});
export const longs = (xs: readonly (number | null)[], type: 'LONG' | 'TIMESTAMP' | 'DATE' = 'LONG'): ColumnVector => ({
  kind: 'fixed',
  type,
  data: Float64Array.from(xs, (x) => (x === null ? LONG_NULL : x)),
});
export const doubles = (xs: readonly (number | null)[]): ColumnVector => ({
  kind: 'fixed',
  type: 'DOUBLE',
  data: Float64Array.from(xs, (x) => (x === null ? NaN : x)),
});
export const floats = (xs: readonly (number | null)[]): ColumnVector => ({
  kind: 'fixed',
  type: 'FLOAT',
  data: Float32Array.from(xs, (x) => (x === null ? NaN : x)),
});
export const shorts = (xs: readonly number[]): ColumnVector => ({
  kind: 'fixed',
  type: 'SHORT',
  data: Int16Array.from(xs),
});
export const bytes = (xs: readonly number[]): ColumnVector => ({
  kind: 'fixed',
  type: 'BYTE',
  data: Int8Array.from(xs),
});
export const bools = (xs: readonly boolean[]): ColumnVector => ({
  kind: 'fixed',
  type: 'BOOLEAN',
  data: Uint8Array.from(xs, (x) => (x ? 1 : 0)),
});
export const chars = (xs: readonly (string | null)[]): ColumnVector => ({
  kind: 'fixed',
  type: 'CHAR',
  data: Uint16Array.from(xs, (x) => (x === null ? 0 : x.charCodeAt(0))),
});
export const strs = (xs: readonly (string | null)[], type: 'STRING' | 'VARCHAR' = 'STRING'): ColumnVector =>
  textVector(type, xs);
export const syms = (xs: readonly (string | null)[]): ColumnVector => symbolsFromStrings(xs);
/** TIMESTAMP vector from ISO texts. */
export const ts = (xs: readonly (string | null)[]): ColumnVector =>
  longs(
    xs.map((x) => (x === null ? null : parseTimestamp(x)!)),
    'TIMESTAMP',
  );
/** NULL-typed argument, as the executor builds it (a DOUBLE NaN vector). */
export const nullArg = (n: number): ColumnVector => ({
  kind: 'fixed',
  type: 'DOUBLE',
  data: new Float64Array(n).fill(NaN),
});

/** Row values as JS values (NULL -> null; BOOLEAN -> boolean; CHAR/text -> string). */
export function values(v: ColumnVector): V[] {
  const n = length(v);
  const out: V[] = [];
  for (let i = 0; i < n; i++) {
    if (v.kind !== 'fixed' || v.type === 'CHAR') {
      out.push(textAt(v, i));
      continue;
    }
    const x = v.data[i]!;
    switch (v.type) {
      case 'BOOLEAN':
        out.push(x === 1);
        break;
      case 'INT':
        out.push(x === INT_NULL ? null : x);
        break;
      case 'LONG':
      case 'TIMESTAMP':
      case 'DATE':
        out.push(x === LONG_NULL ? null : x);
        break;
      case 'FLOAT':
      case 'DOUBLE':
        out.push(x !== x ? null : x);
        break;
      case 'IPV4':
        out.push(x === 0 ? null : x);
        break;
      default:
        out.push(x);
    }
  }
  return out;
}

/** The SQL type of a vector argument (NULL-typed arguments must be given explicitly). */
export function typeOf(v: ColumnVector): SqlType {
  return v.type;
}

/** The functions these tests call: a registry of their own, as a database has. */
export const REGISTRY = createFunctionRegistry();

/** The kernels' context in these tests: a budget of its own, no deadline, default limits, the statement time when the tests started. */
export const KX = standaloneKernelContext(clockMicros());

/** Casts args to the overload's types as the binder would, through the registered cast functions. */
export function castArgs(
  fn: ScalarOverload,
  types: readonly SqlType[],
  args: readonly ColumnVector[],
  n: number,
): ColumnVector[] {
  if (!fn.argTypes) return [...args];
  return args.map((a, i) => {
    const want = fn.argTypes![i]!;
    if (want === types[i] || want === 'NULL') return a;
    return REGISTRY.resolveScalar(`cast_${want}`, [types[i]!], 0).kernel([a], n, KX);
  });
}

/** Resolves `name` for the vectors' types (or `types`), casts and runs the kernel. */
export function run(name: string, args: readonly ColumnVector[], types?: readonly SqlType[], n?: number): ColumnVector {
  const t = types ?? args.map(typeOf);
  const rows = n ?? (args.length > 0 ? length(args[0]!) : 1);
  const fn = REGISTRY.resolveScalar(name, t, 0);
  return fn.kernel(castArgs(fn, t, args, rows), rows, KX);
}

/** run() then values(). */
export function call(name: string, args: readonly ColumnVector[], types?: readonly SqlType[], n?: number): V[] {
  return values(run(name, args, types, n));
}

/** The result type of a call. */
export function resultType(name: string, types: readonly SqlType[]): SqlType {
  return REGISTRY.resolveScalar(name, types, 0).type;
}

/** The message resolve gives for a call it rejects. */
export function resolveError(name: string, types: readonly SqlType[]): string {
  try {
    REGISTRY.resolveScalar(name, types, 7);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${name}(${types.join(', ')}) resolved`);
}

/** Runs an aggregate over batches: each batch is [ids, args]; returns the values of groups 0..groups-1. */
export function aggregate(
  name: string,
  types: readonly SqlType[],
  batches: ReadonlyArray<readonly [readonly number[], readonly ColumnVector[]]>,
  groups: number,
  distinct = false,
): V[] {
  const o = REGISTRY.resolveAggregate(name, types, distinct, 0);
  const st = o.create();
  let seen = 0;
  for (const [ids, args] of batches) {
    for (const g of ids) seen = Math.max(seen, g + 1);
    st.update(Int32Array.from(ids), args, ids.length, seen);
  }
  const r = st.result(groups);
  assertType(r, o.type);
  return values(r);
}

function assertType(v: ColumnVector, t: SqlType): void {
  if (t !== 'NULL' && v.type !== t && !(v.kind === 'var' && (t === 'STRING' || t === 'VARCHAR')))
    throw new Error(`result vector type ${v.type}, resolved ${t}`);
}
