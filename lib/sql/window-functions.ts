// The window functions: which names run with OVER (...), which only do, which
// ignore the frame, which take IGNORE NULLS, and the result type for argument
// types (QuestDB's: ranking LONG, percent_rank and cume_dist DOUBLE, sum/avg
// DOUBLE (over a DECIMAL: sum widened as decimalSumType, avg the same type), count LONG, the rest the
// argument's type with integers as LONG and FLOAT as DOUBLE). The binder (bind-window.ts) checks calls against this.
import type { WindowFunctionName } from './bound.js';
import { noMatch } from '../functions/signature.js';
import { isDecimal, isIntegral, isNumeric, isTemporal, type SqlType } from '../core/sql-type.js';
import { decimalSpec, decimalType, DECIMAL_MAX_PRECISION, type ColumnType } from '../core/column-type.js';

export interface WindowFunctionDef {
  readonly name: WindowFunctionName;
  /** Means nothing without OVER (row_number(), lag(x) ...): called without one it is an error. */
  readonly windowOnly: boolean;
  /** Ranking and offset functions work on the whole partition in its order; a frame clause is ignored. */
  readonly usesFrame: boolean;
  /** Accepts IGNORE NULLS / RESPECT NULLS. */
  readonly nulls: boolean;
  /** A frame clause or EXCLUDE is an error (cume_dist, ntile), not just ignored. */
  readonly rejectsFrame?: boolean;
  /** The result type, or QuestDB's message when the arguments do not fit. */
  resolve(argTypes: readonly SqlType[]): SqlType | { readonly error: string };
}

const mismatch = (name: string, ts: readonly SqlType[]): { error: string } => ({ error: noMatch(name, ts) });

/**
 * The type a value keeps through lag, lead, first_value, last_value, min and
 * max: QuestDB computes integers as LONG and FLOAT as DOUBLE (its window
 * functions exist for LONG, DOUBLE, TIMESTAMP, DATE, ...); other types stay.
 * A bare NULL computes as DOUBLE.
 */
export const windowValueType = (t: SqlType): SqlType =>
  t === 'NULL' || t === 'FLOAT' ? 'DOUBLE' : t === 'BYTE' || t === 'SHORT' || t === 'INT' ? 'LONG' : t;
const concrete = windowValueType;

function ranking(name: WindowFunctionName, type: SqlType = 'LONG', rejectsFrame = false): WindowFunctionDef {
  return {
    name,
    windowOnly: true,
    usesFrame: false,
    nulls: false,
    rejectsFrame,
    resolve: (ts) => (ts.length === 0 ? type : mismatch(name, ts)),
  };
}

/** ntile(n): n buckets, a constant positive integer checked by the binder. */
const NTILE: WindowFunctionDef = {
  name: 'ntile',
  windowOnly: true,
  usesFrame: false,
  nulls: false,
  rejectsFrame: true,
  resolve: (ts) => (ts.length === 1 && (isIntegral(ts[0]!) || ts[0] === 'NULL') ? 'LONG' : mismatch('ntile', ts)),
};

function offset(name: WindowFunctionName): WindowFunctionDef {
  // The offset and default are checked by the binder (constant, non-negative; default unified with the value).
  return {
    name,
    windowOnly: true,
    usesFrame: false,
    nulls: true,
    resolve: (ts) => (ts.length >= 1 && ts[0] !== 'BINARY' ? concrete(ts[0]!) : mismatch(name, ts)),
  };
}

function value(name: WindowFunctionName): WindowFunctionDef {
  return {
    name,
    windowOnly: true,
    usesFrame: true,
    nulls: true,
    resolve: (ts) => (ts.length === 1 && ts[0] !== 'BINARY' ? concrete(ts[0]!) : mismatch(name, ts)),
  };
}

function aggregate(
  name: WindowFunctionName,
  accepts: (t: SqlType) => boolean,
  type: (t: SqlType) => SqlType,
): WindowFunctionDef {
  return {
    name,
    windowOnly: false,
    usesFrame: true,
    nulls: false,
    resolve: (ts) => (ts.length === 1 && (accepts(ts[0]!) || ts[0] === 'NULL') ? type(ts[0]!) : mismatch(name, ts)),
  };
}

/** nth_value(x, n): the frame's n-th row's value (n a constant positive integer, checked by the binder). */
const NTH_VALUE: WindowFunctionDef = {
  name: 'nth_value',
  windowOnly: true,
  usesFrame: true,
  nulls: false,
  resolve: (ts) =>
    ts.length === 2 && ts[0] !== 'BINARY' && (isIntegral(ts[1]!) || ts[1] === 'NULL')
      ? concrete(ts[0]!)
      : mismatch('nth_value', ts),
};

const COUNT: WindowFunctionDef = {
  name: 'count',
  windowOnly: false,
  usesFrame: true,
  nulls: false,
  resolve: (ts) => (ts.length === 0 || (ts.length === 1 && ts[0] !== 'BINARY') ? 'LONG' : mismatch('count', ts)),
};

const DEFS: ReadonlyMap<string, WindowFunctionDef> = new Map(
  [
    ranking('row_number'),
    ranking('rank'),
    ranking('dense_rank'),
    ranking('percent_rank', 'DOUBLE'),
    ranking('cume_dist', 'DOUBLE', true),
    NTILE,
    offset('lag'),
    offset('lead'),
    value('first_value'),
    value('last_value'),
    NTH_VALUE,
    aggregate(
      'sum',
      (t) => isNumeric(t) || isDecimal(t),
      (t) => (isDecimal(t) ? decimalSumType(t) : 'DOUBLE'),
    ),
    aggregate('ksum', isNumeric, () => 'DOUBLE'),
    aggregate(
      'avg',
      (t) => isNumeric(t) || isDecimal(t),
      (t) => (isDecimal(t) ? t : 'DOUBLE'),
    ),
    aggregate('min', (t) => isNumeric(t) || isTemporal(t) || isDecimal(t), concrete),
    aggregate('max', (t) => isNumeric(t) || isTemporal(t) || isDecimal(t), concrete),
    COUNT,
  ].map((d): [string, WindowFunctionDef] => [d.name, d]),
);

/** The window function `name` (lower case), or undefined. */
export function windowFunction(name: string): WindowFunctionDef | undefined {
  return DEFS.get(name);
}

/** Whether `name` exists only as a window function (so a call without OVER is a mistake). */
export function isWindowOnly(name: string): boolean {
  return DEFS.get(name)?.windowOnly === true;
}

/** Names of every window function, sorted. */
export function windowFunctionNames(): string[] {
  return [...DEFS.keys()].sort();
}

/**
 * A DECIMAL sum's type (QuestDB's): the argument's scale, the precision widened by storage
 * width: up to 4 digits -> 18, up to 18 -> 38, more -> 76.
 */
export function decimalSumType(t: SqlType): SqlType {
  const { precision, scale } = decimalSpec(t as ColumnType);
  return decimalType(precision <= 4 ? 18 : precision <= 18 ? 38 : DECIMAL_MAX_PRECISION, scale);
}
