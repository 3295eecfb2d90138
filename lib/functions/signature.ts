// Overload matching for the function modules: what argument types a
// signature accepts and what each is cast to, QuestDB's "no matching
// function" messages, and a one-call registration of a scalar family.
import type { ArgMismatch, BindHook, Kernel, ScalarOverload, FunctionRegistry } from './registry.js';
import { isIntegral, isNumeric, isText, type SqlType } from '../core/sql-type.js';
import { typeName } from '../core/column-type.js';

/** The type an argument is cast to when a parameter accepts it, else null. */
export type Accept = (t: SqlType) => SqlType | null;

const NUMERIC_RANK: Record<string, number> = { BYTE: 0, SHORT: 1, INT: 2, LONG: 3, FLOAT: 4, DOUBLE: 5 };

export const accept = {
  /** Any numeric type as itself; NULL as DOUBLE. */
  numeric: (t: SqlType): SqlType | null => (isNumeric(t) ? t : t === 'NULL' ? 'DOUBLE' : null),
  double: (t: SqlType): SqlType | null => (isNumeric(t) || t === 'NULL' ? 'DOUBLE' : null),
  int: (t: SqlType): SqlType | null => ((isIntegral(t) && t !== 'LONG') || t === 'NULL' ? 'INT' : null),
  long: (t: SqlType): SqlType | null => (isIntegral(t) || t === 'NULL' ? 'LONG' : null),
  /**
   * TIMESTAMP, DATE (cast up to micros), ISO text (parsed), NULL, and INT or
   * LONG as epoch micros (QuestDB's implicit INT/LONG -> TIMESTAMP).
   */
  timestamp: (t: SqlType): SqlType | null =>
    t === 'TIMESTAMP' || t === 'DATE' || t === 'NULL' || t === 'INT' || t === 'LONG' || (isText(t) && t !== 'CHAR')
      ? 'TIMESTAMP'
      : null,
  /** STRING, VARCHAR, SYMBOL, CHAR as themselves; NULL as STRING. */
  text: (t: SqlType): SqlType | null => (isText(t) ? t : t === 'NULL' ? 'STRING' : null),
  boolean: (t: SqlType): SqlType | null => (t === 'BOOLEAN' || t === 'NULL' ? 'BOOLEAN' : null),
  /** Anything; NULL as STRING. */
  any: (t: SqlType): SqlType | null => (t === 'NULL' ? 'STRING' : t),
  /** Anything that prints as text (not BINARY or LONG256); NULL as STRING. */
  printable: (t: SqlType): SqlType | null => (t === 'BINARY' || t === 'LONG256' ? null : t === 'NULL' ? 'STRING' : t),
  exactly:
    (...types: SqlType[]) =>
    (t: SqlType): SqlType | null =>
      types.includes(t) ? t : null,
};

/** The wider numeric type of two (no INT floor, unlike arithmetic). */
export function widest(a: SqlType, b: SqlType): SqlType {
  return (NUMERIC_RANK[a] ?? -1) >= (NUMERIC_RANK[b] ?? -1) ? a : b;
}

const OPERATORS = new Set([
  '+',
  '-',
  '*',
  '/',
  '%',
  '=',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '||',
  '~',
  '!~',
  'and',
  'or',
  'not',
  'neg',
  '&',
  '|',
  '^',
  'bitnot',
  'like',
  'ilike',
]);

/** QuestDB's message for a call no overload accepts. */
export function noMatch(name: string, types: readonly SqlType[]): string {
  const argTypes = types.map(typeName);
  if (OPERATORS.has(name)) {
    const op = name === 'neg' ? '-' : name === 'bitnot' ? '~' : name;
    if (argTypes.length === 2)
      return `there is no matching operator \`${op}\` with the argument types: ${argTypes[0]} ${op} ${argTypes[1]}`;
    if (argTypes.length === 1) return `there is no matching operator \`${op}\` with the argument type: ${argTypes[0]}`;
  }
  return `there is no matching function \`${name}\` with the argument types: (${argTypes.join(', ')})`;
}

/** What a signature builds from the types its arguments are cast to. */
export interface Built {
  readonly type: SqlType;
  readonly kernel: Kernel;
  readonly deterministic?: boolean;
  readonly bind?: BindHook;
}

export interface Signature {
  /** One Accept per fixed parameter. */
  readonly args: readonly Accept[];
  /** Accepts any number of further arguments (variadic). */
  readonly rest?: Accept;
  /** Fewest further arguments with `rest` (default 0). */
  readonly minRest?: number;
  /** The overload for the cast-to types, or a message. */
  readonly build: (types: SqlType[]) => Built | string;
}

/** The cast-to types when `sig` accepts `argTypes`, else null. */
export function matchSignature(sig: Signature, argTypes: readonly SqlType[]): SqlType[] | null {
  const fixed = sig.args.length;
  if (argTypes.length < fixed) return null;
  if (!sig.rest && argTypes.length !== fixed) return null;
  if (sig.rest && argTypes.length - fixed < (sig.minRest ?? 0)) return null;
  const out: SqlType[] = [];
  for (let i = 0; i < argTypes.length; i++) {
    const a = i < fixed ? sig.args[i]! : sig.rest!;
    const t = a(argTypes[i]!);
    if (t === null) return null;
    out.push(t);
  }
  return out;
}

/**
 * Resolves with the first signature that accepts the arguments. When none does,
 * QuestDB's messages: a call without arguments of a function of fixed arity
 * "requires arguments"; NOT (one signature) names the argument that does not
 * fit it; otherwise "no matching function" with the argument types.
 */
export function resolveSignatures(
  name: string,
  sigs: readonly Signature[],
  argTypes: readonly SqlType[],
): ScalarOverload | string | ArgMismatch {
  for (const sig of sigs) {
    const m = matchSignature(sig, argTypes);
    if (!m) continue;
    const b = sig.build(m);
    if (typeof b === 'string') return b;
    return { type: b.type, kernel: b.kernel, argTypes: m, deterministic: b.deterministic ?? true, bind: b.bind };
  }
  if (argTypes.length === 0 && !OPERATORS.has(name) && sigs.every((s) => s.rest === undefined && s.args.length > 0)) {
    return `function \`${name}\` requires arguments`;
  }
  // NOT has one signature in QuestDB too; functions whose QuestDB overloads differ from ours keep "no matching function".
  const only = sigs.length === 1 && name === 'not' ? sigs[0]! : null;
  if (only !== null && only.rest === undefined && only.args.length === argTypes.length) {
    const i = argTypes.findIndex((t, k) => only.args[k]!(t) === null);
    const expected = i >= 0 ? only.args[i]!('NULL') : null;
    if (i >= 0 && expected !== null) {
      return {
        message: `argument type mismatch for function \`${name}\` at #${i + 1} expected: ${expected}, actual: ${argTypes[i]}`,
        arg: i,
      };
    }
  }
  return noMatch(name, argTypes);
}

/** Registers `name` (and its aliases) resolving through `sigs`. */
export function defineScalar(
  registry: FunctionRegistry,
  name: string | readonly string[],
  sigs: readonly Signature[],
): void {
  for (const n of typeof name === 'string' ? [name] : name) {
    registry.registerScalar({ name: n, resolve: (argTypes) => resolveSignatures(n, sigs, argTypes) });
  }
}
