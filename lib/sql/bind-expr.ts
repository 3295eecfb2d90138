// Binding expressions: names resolved against a scope, types checked and
// implicit conversions applied (a string literal compared with a TIMESTAMP is
// parsed once), operators and functions resolved to vectorized kernels.
import { SvcError } from '../errors/svc-error.js';
import type * as A from './ast.js';
import type { BoundExpr, Plan } from './bound.js';
import { node } from './plan-timestamp.js';
import { parseTimestamp } from '../core/datetime.js';
import type { BindArg, Kernel, ScalarOverload } from '../functions/registry.js';
import type { StatementEnv } from './statement-env.js';
import { parseDoubleText, parseIntText, parseIpv4Text, parseLongText } from '../core/parse-text.js';
import { intervalHi, intervalLo, isIntervalNull } from '../core/interval-values.js';
import type { FixedVector } from '../core/column-vector.js';
import { noMatch } from '../functions/signature.js';
import { JSON_TYPED, jsonTypeTag } from '../functions/json.js';
import { merge, parseIntervalLiteral } from './interval-literal.js';
import {
  ColumnTypeError,
  LONG_NULL,
  columnTypeOf,
  decimalSpec,
  geohashBits,
  geohashType,
  isParametric,
  typeKind,
  typeName,
  type ColumnType,
} from '../core/column-type.js';
import { decimalLiteral, formatDecimal } from '../core/decimal.js';
import {
  formatGeohash,
  geohashFromText,
  narrowGeohash,
  parseGeohashBinary,
  parseGeohashChars,
} from '../core/geohash.js';
import type { Interval } from '../core/batch.js';
import { constArg, isConstant, statementValue } from './const-value.js';
import { isWindowOnly } from './window-functions.js';
import { commonType, isIntegral, isNumeric, isTemporal, isText, type SqlType } from '../core/sql-type.js';

export interface ScopeField {
  /** Table name or alias the field can be qualified with. */
  readonly table: string | null;
  readonly name: string;
  readonly type: SqlType;
}

export interface Scope {
  readonly fields: readonly ScopeField[];
  /** Binds an uncorrelated subquery in the statement's context (absent: subqueries are not allowed here). */
  readonly subquery?: (q: A.Query) => Plan;
  /** The message for a name not in `fields` (default `Invalid column: <name>`): a grouped query's select list says why. */
  readonly unknownColumn?: (name: string) => string;
  /** A grouped query's rows before grouping: where an unknown function's arguments get their types. */
  readonly inner?: Scope;
}

/** Called for aggregate calls; returns the bound reference that replaces them. */
export type AggregateHook = (call: A.Call) => BoundExpr;

/** Called for window function calls (`f(...) OVER (...)`); returns the bound reference that replaces them. */
export type WindowHook = (call: A.Call) => BoundExpr;

export interface ExprContext {
  /** The statement's functions and time. */
  readonly env: StatementEnv;
  readonly scope: Scope;
  /** Aggregates allowed here (SELECT list, HAVING, ORDER BY of a grouped query). */
  readonly onAggregate: AggregateHook | null;
  /** An expression equal to a GROUP BY key binds to the key (post-aggregation scopes). */
  readonly keyOf?: (e: A.Expr) => BoundExpr | null;
  /** Window functions allowed here (SELECT list and ORDER BY of a query without grouping). */
  readonly onWindow?: WindowHook | null;
  /** Without onWindow: the message for a window function here (default: not allowed here). */
  readonly windowError?: string;
}

const OPS: Record<string, string> = {
  '=': '=',
  '!=': '!=',
  '<>': '!=',
  '<': '<',
  '<=': '<=',
  '>': '>',
  '>=': '>=',
  '+': '+',
  '-': '-',
  '*': '*',
  '/': '/',
  '%': '%',
  '||': '||',
  '&': '&',
  '|': '|',
  '^': '^',
  AND: 'and',
  OR: 'or',
  LIKE: 'like',
  ILIKE: 'ilike',
  '~': '~',
  '!~': '!~',
};

export function resolveColumn(scope: Scope, ref: A.ColumnRef): { index: number; field: ScopeField } {
  let hit = -1;
  const name = ref.name.toLowerCase();
  const table = ref.table?.toLowerCase() ?? null;
  scope.fields.forEach((f, i) => {
    if (f.name.toLowerCase() !== name) return;
    if (table !== null && f.table?.toLowerCase() !== table) return;
    if (hit >= 0) throw new SvcError('SQL', `Ambiguous column [name=${ref.name}]`, { position: ref.pos });
    hit = i;
  });
  if (hit < 0) {
    // QuestDB tells an unknown qualifier apart from an unknown column of a known one.
    if (table !== null && !scope.fields.some((f) => f.table?.toLowerCase() === table)) {
      throw new SvcError('SQL', 'Invalid table name or alias', { position: ref.pos });
    }
    const shown = `${ref.table ? `${ref.table}.` : ''}${ref.raw ?? ref.name}`;
    throw new SvcError('SQL', scope.unknownColumn ? scope.unknownColumn(shown) : `Invalid column: ${shown}`, {
      position: ref.pos,
    });
  }
  return { index: hit, field: scope.fields[hit]! };
}

/**
 * A call of `name` at `pos`: resolved by argument types, arguments cast to the
 * overload's types (a failed conversion is reported at the argument,
 * `argPos[i]`), constant arguments checked by the function's bind hook.
 */
export function call(
  env: StatementEnv,
  name: string,
  given: BoundExpr[],
  pos: number,
  argPos?: readonly number[],
): BoundExpr {
  const resolved = resolveCall(env, name, given, pos, argPos);
  let fn = resolved.fn;
  const args = resolved.args;
  const at = (i: number): number => argPos?.[i] ?? pos;
  const cast = fn.argTypes ? args.map((a, i) => castTo(env, a, fn.argTypes![i]!, at(i))) : args;
  let runArgs: readonly number[] | undefined;
  if (fn.bind) {
    const bindArgs: BindArg[] = cast.map((a, i) => {
      const c = constArg(env, a);
      return { type: a.type, value: c.value, vector: c.vector, pos: at(i), constant: isConstant(a) };
    });
    const r = fn.bind(bindArgs, pos);
    if (r) fn = { ...fn, type: r.type ?? fn.type, kernel: r.kernel ?? fn.kernel };
    runArgs = r?.runArgs;
  }
  return runArgs
    ? { kind: 'call', name, fn, args: cast, type: fn.type, pos, runArgs }
    : { kind: 'call', name, fn, args: cast, type: fn.type, pos };
}

/** Functions whose result takes its arguments' type: a CHAR constant stays CHAR there (`case when c then 'a' end` is CHAR). */
const VALUE_PASSING = new Set(['case', 'coalesce', 'nullif']);

/** Numbers a text constant converts to when no overload takes it as text, nearest first (QuestDB's overload order, narrowed to the widths its numeric functions have). */
const CHAR_NUMBERS: readonly SqlType[] = ['INT', 'LONG', 'FLOAT', 'DOUBLE'];
const STRING_NUMBERS: readonly SqlType[] = ['DOUBLE', 'LONG', 'INT', 'FLOAT'];
/** Most argument typings tried for the implicit text -> number conversions of one call. */
const MAX_TYPINGS = 256;

function isCharConst(a: BoundExpr): boolean {
  return a.kind === 'const' && a.type === 'CHAR' && a.value !== null;
}

/**
 * The overload of a call and its arguments after QuestDB's implicit
 * conversions of constants: a CHAR constant ('a') is also a string literal, so
 * it is read as STRING wherever the function takes text (the kernels see the
 * same vectors as before, and `s = 'a'` stays a text comparison), else as
 * CHAR; when no overload takes the arguments, text constants convert to
 * numbers (CHAR: its digit; STRING: the number it spells), the nearest typing
 * first, failing with QuestDB's `inconvertible value` when they do not spell
 * one. With no fit at all, the error names the types as given (CHAR included).
 */
function resolveCall(
  env: StatementEnv,
  name: string,
  args: BoundExpr[],
  pos: number,
  argPos?: readonly number[],
): { fn: ScalarOverload; args: BoundExpr[] } {
  const lower = name.toLowerCase();
  const fits = (as: readonly BoundExpr[]): ScalarOverload | null => {
    const r = env.registry.tryResolveScalar(
      lower,
      as.map((a) => a.type),
    );
    return r !== null && typeof r !== 'string' ? r : null;
  };
  if (!VALUE_PASSING.has(lower) && !lower.startsWith('cast_') && args.some(isCharConst)) {
    const asText = args.map((a): BoundExpr =>
      isCharConst(a) ? { kind: 'const', type: 'STRING', value: (a as { value: string }).value } : a,
    );
    const fn = fits(asText);
    if (fn) return { fn, args: asText };
  }
  const direct = fits(args);
  if (direct) return { fn: direct, args };
  const texts = args.flatMap((a, i) =>
    a.kind === 'const' && a.value !== null && (a.type === 'CHAR' || a.type === 'STRING' || a.type === 'VARCHAR')
      ? [i]
      : [],
  );
  if (texts.length > 0 && !lower.startsWith('cast_')) {
    for (const typing of numberTypings(texts.map((i) => (args[i]!.type === 'CHAR' ? CHAR_NUMBERS : STRING_NUMBERS)))) {
      const typed = args.map((a): BoundExpr => a);
      texts.forEach((i, k) => {
        typed[i] = { kind: 'const', type: typing[k]!, value: 0 };
      });
      const fn = fits(typed);
      if (!fn) continue;
      texts.forEach((i, k) => {
        typed[i] = implicitNumber(env, args[i] as Extract<BoundExpr, { kind: 'const' }>, typing[k]!);
      });
      return { fn, args: typed };
    }
  }
  return {
    fn: env.registry.resolveScalar(
      name,
      args.map((a) => a.type),
      pos,
      argPos,
    ),
    args,
  };
}

/** Every choice of one type per list, in order of the summed ranks (nearest first), at most MAX_TYPINGS. */
function numberTypings(lists: readonly (readonly SqlType[])[]): SqlType[][] {
  const out: SqlType[][] = [];
  const maxRank = lists.reduce((s, l) => s + l.length - 1, 0);
  for (let total = 0; total <= maxRank && out.length < MAX_TYPINGS; total++) {
    const pick = (k: number, left: number, acc: SqlType[]): void => {
      if (out.length >= MAX_TYPINGS) return;
      if (k === lists.length) {
        if (left === 0) out.push(acc);
        return;
      }
      const l = lists[k]!;
      for (let r = 0; r < l.length && r <= left; r++) pick(k + 1, left - r, [...acc, l[r]!]);
    };
    pick(0, total, []);
  }
  return out;
}

/** QuestDB's error for a constant an implicit conversion cannot take (ImplicitCastException: no position, so 0). */
export function inconvertibleValue(value: string, from: SqlType, to: SqlType): SvcError {
  // QuestDB quotes text in backticks; a CHAR or a number shows as it is.
  const shown = isText(from) && from !== 'CHAR' ? `\`${value}\`` : value;
  return new SvcError('SQL', `inconvertible value: ${shown} [${typeName(from)} -> ${typeName(to)}]`, { position: 0 });
}

/**
 * A text constant as the number `to` by QuestDB's implicit rules: a CHAR is
 * its digit ('7' -> 7), a STRING the number it spells; anything else fails
 * with `inconvertible value`.
 */
export function implicitNumber(env: StatementEnv, c: Extract<BoundExpr, { kind: 'const' }>, to: SqlType): BoundExpr {
  const text = String(c.value);
  if (c.type === 'CHAR') {
    const d = text.charCodeAt(0) - 48;
    if (d < 0 || d > 9) throw inconvertibleValue(text, 'CHAR', to);
    return { kind: 'const', type: to, value: d };
  }
  const from = c.type;
  if (to === 'DOUBLE' || to === 'FLOAT') {
    const x = parseDoubleText(text);
    if (x === null) throw inconvertibleValue(text, from, to);
    return { kind: 'const', type: to, value: x };
  }
  if (to === 'LONG') {
    const x = parseLongText(text);
    if (x === null) throw inconvertibleValue(text, from, to);
    if (Number.isSafeInteger(Number(x))) return { kind: 'const', type: to, value: Number(x) };
    return call(env, 'cast_LONG', [{ kind: 'const', type: 'STRING', value: x.toString() }], 0);
  }
  const x = parseIntText(text);
  if (x === null) throw inconvertibleValue(text, from, to);
  return { kind: 'const', type: to, value: x };
}

/** Offsets of call arguments (QuestDB's: an operator's offset for an operation). */
function positions(es: readonly A.Expr[]): number[] {
  return es.map((x) => x.pos);
}

/**
 * `e` as type `t` (a cast call when the types differ; string literals to
 * timestamps parsed now). `valuePos` marks an explicit CAST (the offset of its
 * value); without it the conversion is implicit (INSERT values, common types,
 * arguments), where a CHAR constant is its digit for a number (QuestDB).
 */
export function castTo(env: StatementEnv, e: BoundExpr, t: SqlType, pos: number, valuePos?: number): BoundExpr {
  if (e.type === t || t === 'NULL') return e;
  if (e.kind === 'const' && e.value === null) return { kind: 'const', type: t, value: null };
  if (e.kind === 'const' && e.type === 'CHAR') {
    // A one-character literal is also a string: text types take it as it is, the rest as before from STRING.
    if (t === 'STRING' || t === 'VARCHAR') return { kind: 'const', type: t, value: e.value };
    if (valuePos === undefined && isNumeric(t)) return implicitNumber(env, e, t);
    e = { kind: 'const', type: 'STRING', value: e.value };
  }
  if (
    valuePos !== undefined &&
    t === 'IPV4' &&
    e.kind === 'const' &&
    isText(e.type) &&
    parseIpv4Text(String(e.value)) === null
  ) {
    throw new SvcError('SQL', 'invalid IPv4 constant', { position: valuePos });
  }
  if (e.kind === 'const' && typeof e.value === 'string' && (t === 'TIMESTAMP' || t === 'DATE')) {
    const us = parseTimestamp(e.value);
    // An explicit CAST of text that is no date is NULL in QuestDB; an implicit conversion fails.
    if (us === null && valuePos !== undefined) return { kind: 'const', type: t, value: null };
    if (us === null) throw new SvcError('SQL', `Invalid date [str=${e.value}]`, { position: pos });
    return { kind: 'const', type: t, value: t === 'DATE' ? Math.floor(us / 1000) : us };
  }
  if (
    typeKind(t) === 'GEOHASH' &&
    e.kind === 'const' &&
    typeof e.value === 'string' &&
    isText(e.type) &&
    e.value.length > 0 &&
    geohashFromText(e.value, geohashBits(t)) === null
  ) {
    throw new SvcError('SQL', 'invalid GEOHASH', { position: valuePos ?? pos });
  }
  const c = call(env, `cast_${t}`, [e], pos);
  // A value a DECIMAL or GEOHASH cannot take is an error at the value, as QuestDB reports it.
  return valuePos !== undefined && c.kind === 'call' && isParametric(t) ? { ...c, pos: valuePos } : c;
}

export function bindExpr(e: A.Expr, cx: ExprContext): BoundExpr {
  if (cx.keyOf) {
    const k = cx.keyOf(e);
    if (k) return k;
  }
  switch (e.kind) {
    case 'literal':
      return literal(cx.env, e);
    case 'column': {
      const { index, field } = resolveColumn(cx.scope, e);
      return { kind: 'col', index, type: field.type };
    }
    case 'starArg':
      throw new SvcError('SQL', "'*' is only allowed as count(*)", { position: e.pos });
    case 'unary': {
      if (e.op === 'NOT') return call(cx.env, 'not', [bindExpr(e.arg, cx)], e.pos, [e.arg.pos]);
      if (e.op === '+') return bindExpr(e.arg, cx);
      if (e.op === '-') {
        if (e.arg.kind === 'literal' && typeof e.arg.value === 'number')
          return literal(cx.env, { ...e.arg, value: -e.arg.value, text: `-${e.arg.text}` });
        return call(cx.env, 'neg', [bindExpr(e.arg, cx)], e.pos);
      }
      if (e.op === '~') return call(cx.env, 'bitnot', [bindExpr(e.arg, cx)], e.pos);
      throw new SvcError('SQL', `unsupported operator ${e.op}`, { position: e.pos });
    }
    case 'binary':
      return binary(e, cx);
    case 'call':
      return callExpr(e, cx);
    case 'cast': {
      const t = typeOf(e.type);
      const json = e.suffix === true ? jsonExtractTyped(e.expr, t, e.type.pos, cx) : null;
      if (json !== null) return json;
      const v = bindExpr(e.expr, cx);
      // A cast QuestDB does not have is a missing `cast` overload (cast.ts says why), reported at the cast.
      // A GEOHASH cannot gain bits: that is reported at the type, as QuestDB does.
      if (v.type !== t && v.type !== 'NULL' && !(v.kind === 'const' && v.type === 'CHAR')) {
        const refused = cx.env.registry.tryResolveScalar(`cast_${t}`, [v.type]);
        const atType = t !== 'NULL' && typeKind(t) === 'GEOHASH' && typeKind(v.type) === 'GEOHASH';
        if (typeof refused === 'string') throw new SvcError('SQL', refused, { position: atType ? e.type.pos : e.pos });
      }
      return castTo(cx.env, v, t, e.type.pos, e.expr.pos);
    }
    case 'case':
      return caseExpr(e, cx);
    case 'in':
      return inExpr(e, cx);
    case 'between': {
      const at = positions([e.expr, e.lo, e.hi]);
      const bound = [bindExpr(e.expr, cx), bindExpr(e.lo, cx), bindExpr(e.hi, cx)];
      checkBetween(bound, at);
      // QuestDB's between(TIMESTAMP, TIMESTAMP, TIMESTAMP) parses text bounds that are not constants
      // (`ts BETWEEN to_str(now(), 'yyyy-MM-dd') AND ...`) as it runs, as a comparison does.
      const t0 = bound[0]!.type;
      if (t0 === 'TIMESTAMP' || t0 === 'TIMESTAMP_NS' || t0 === 'DATE')
        for (let i = 1; i < 3; i++) {
          const b = bound[i]!;
          if (b.kind !== 'const' && (b.type === 'STRING' || b.type === 'VARCHAR' || b.type === 'SYMBOL'))
            bound[i] = castTo(cx.env, b, t0, at[i]!, at[i]);
        }
      const [x, lo, hi] = unify(cx.env, bound, e.pos, at);
      const b = call(cx.env, 'between', [x!, lo!, hi!], e.pos, at);
      return e.not ? call(cx.env, 'not', [b], e.pos) : b;
    }
    case 'isNull':
      return call(cx.env, e.not ? 'is_not_null' : 'is_null', [bindExpr(e.expr, cx)], e.pos);
    case 'subquery': {
      const plan = subqueryPlan(e.query, cx, e.pos);
      return { kind: 'subquery', plan, type: plan.fields[0]!.type, pos: e.pos };
    }
    case 'bindVar':
      throw new SvcError('SQL', `bind variables are not supported by the REST API [name=${e.name}]`, {
        position: e.pos,
      });
    // ARRAY[...] (nested brackets are arrays too) and arr[i, j] / arr[i][j]: the functions in arrays.ts.
    case 'array':
      return call(
        cx.env,
        'array',
        e.items.map((x) => bindExpr(x, cx)),
        e.pos,
        positions(e.items),
      );
    case 'subscript': {
      if (e.index.some((x) => x.kind === 'slice')) return sliceExpr(e, cx);
      return call(cx.env, '[]', [bindExpr(e.expr, cx), ...e.index.map((x) => bindExpr(x, cx))], e.pos, [
        e.expr.pos,
        ...positions(e.index),
      ]);
    }
    default:
      return unknownNode(e);
  }
}

/**
 * `json_extract(doc, path)::t` for the types json_extract converts itself (QuestDB's parser rewrite
 * to its typed form: never an error, NULL / false / 0 instead); null for any other expression or type.
 */
function jsonExtractTyped(e: A.Expr, t: SqlType, typePos: number, cx: ExprContext): BoundExpr | null {
  if (e.kind !== 'call' || !isJsonExtract(e) || !JSON_TYPED.has(t)) return null;
  const args = [
    ...e.args.map((a) => bindExpr(a, cx)),
    { kind: 'const' as const, type: 'STRING' as const, value: jsonTypeTag(t) },
  ];
  return call(cx.env, 'json_extract', args, e.pos, [...positions(e.args), typePos]);
}

function unknownNode(e: { kind: string; pos: number }): never {
  throw new SvcError('SQL', `unsupported expression [${e.kind}]`, { position: e.pos });
}

export function literal(env: StatementEnv, e: A.Literal): BoundExpr {
  switch (e.type) {
    case 'LONG': {
      // Past 2^53 a double cannot hold every digit: the text goes through the exact text -> LONG cast.
      const digits = e.text.replace(/[_lL]/g, '');
      if (!Number.isSafeInteger(e.value) && /^-?\d+$/.test(digits))
        return call(env, 'cast_LONG', [{ kind: 'const', type: 'STRING', value: digits }], e.pos);
      return { kind: 'const', type: 'LONG', value: e.value as number };
    }
    case 'INT':
    case 'DOUBLE':
      return { kind: 'const', type: e.type, value: e.value as number };
    // QuestDB: a quoted literal of exactly one character ('a', not '''' or E'a') is a CHAR constant.
    case 'STRING':
      return { kind: 'const', type: isCharLiteral(e.text) ? 'CHAR' : 'STRING', value: e.value as string };
    case 'CHAR':
      return { kind: 'const', type: 'CHAR', value: e.value as string };
    // 0x and an even number of hex digits (at most 64): a LONG256 constant, parsed once by the text -> LONG256 cast.
    case 'LONG256':
      return call(env, 'cast_LONG256', [{ kind: 'const', type: 'STRING', value: e.text }], e.pos);
    case 'BOOLEAN':
      return { kind: 'const', type: 'BOOLEAN', value: e.value as boolean };
    case 'NULL':
      return { kind: 'const', type: 'NULL', value: null };
    case 'GEOHASH':
      return geohashLiteral(e.text, e.pos);
    case 'DECIMAL': {
      const d = decimalLiteral(String(e.value));
      if (d === null) throw new SvcError('SQL', `invalid constant: ${e.text}`, { position: e.pos });
      return { kind: 'const', type: d.type, value: formatDecimal(d.unscaled, decimalSpec(d.type).scale) };
    }
    default:
      throw new SvcError('SQL', `unsupported literal [${String(e.type)}]`, { position: e.pos });
  }
}

/**
 * A geohash literal as a constant holding its printed text: `#u33d` (base32,
 * 5 bits a char), `#u33d/18` (the first 18 of those bits), `##0101` (bits).
 */
function geohashLiteral(text: string, pos: number): BoundExpr {
  let p: { bits: number; value: bigint } | null;
  if (text.startsWith('##')) p = parseGeohashBinary(text.slice(2));
  else {
    const slash = text.indexOf('/');
    p = parseGeohashChars(text.slice(1, slash < 0 ? undefined : slash));
    if (p !== null && slash >= 0) {
      const bits = /^\d{1,2}$/.test(text.slice(slash + 1)) ? Number(text.slice(slash + 1)) : -1;
      p = bits >= 1 && bits <= p.bits ? { bits, value: narrowGeohash(p.value, p.bits, bits) } : null;
    }
  }
  if (p === null) throw new SvcError('SQL', `invalid constant: ${text}`, { position: pos });
  return { kind: 'const', type: geohashType(p.bits), value: formatGeohash(p.value, p.bits) };
}

/** Whether a string literal's source text is one quoted character (three UTF-16 units, as QuestDB counts). */
function isCharLiteral(text: string): boolean {
  return text.length === 3 && text.charCodeAt(0) === 39 && text.charCodeAt(2) === 39;
}

/** The canonical type a type name spells (PostgreSQL's aliases too); bad parameters fail at the parameters, as in QuestDB. */
export function typeOf(t: A.TypeName): SqlType {
  let type: ColumnType | undefined;
  try {
    type = columnTypeOf(t.name, t.params, true);
  } catch (err) {
    if (err instanceof ColumnTypeError)
      throw new SvcError('SQL', err.message, { position: (t.paramsPos ?? t.pos) + err.offset });
    throw err;
  }
  if (type === undefined) throw new SvcError('SQL', `unsupported type: ${t.name}`, { position: t.pos });
  return type;
}

function binary(e: A.Binary, cx: ExprContext): BoundExpr {
  if (e.op === 'WITHIN') return withinExpr(e, cx);
  let op = e.op;
  let negate = false;
  if (op === 'NOT LIKE' || op === 'NOT ILIKE') {
    op = op.slice(4);
    negate = true;
  }
  const name = OPS[op];
  if (!name) throw new SvcError('SQL', `unsupported operator ${e.op}`, { position: e.pos });
  let l = bindExpr(e.left, cx);
  let r = bindExpr(e.right, cx);
  // QuestDB: x = NULL means x IS NULL.
  if ((name === '=' || name === '!=') && (isNullConst(l) || isNullConst(r))) {
    return call(cx.env, name === '=' ? 'is_null' : 'is_not_null', [isNullConst(l) ? r : l], e.pos);
  }
  if (['=', '!=', '<', '<=', '>', '>='].includes(name)) {
    // A text constant against a timestamp is a timestamp.
    if (isTemporal(l.type) && r.kind === 'const' && isText(r.type)) r = castTo(cx.env, r, l.type, e.right.pos);
    else if (isTemporal(r.type) && l.kind === 'const' && isText(l.type)) l = castTo(cx.env, l, r.type, e.left.pos);
  }
  const b = call(cx.env, name, [l, r], e.pos, [e.left.pos, e.right.pos]);
  return negate ? call(cx.env, 'not', [b], e.pos) : b;
}

/**
 * `g WITHIN (#ezz, #u33d8)`: the geohash function `within` over the value and the cells. A literal
 * in the list that is NULL or not a geohash, or a column, fails here with QuestDB's messages; the
 * function's bind hook checks the rest (a GEOHASH on the left, constant cells no finer than it).
 */
function withinExpr(e: A.Binary, cx: ExprContext): BoundExpr {
  const items = e.right.kind === 'array' ? e.right.items : [e.right];
  for (const i of items) {
    // A column is no literal either, as QuestDB says; other expressions must fold to a geohash constant (the hook).
    if (i.kind === 'column') throw new SvcError('SQL', 'GeoHash literal expected', { position: i.pos });
    if (i.kind !== 'literal' || i.type === 'GEOHASH') continue;
    throw new SvcError('SQL', i.type === 'NULL' ? 'GeoHash value expected' : 'GeoHash literal expected', {
      position: i.pos,
    });
  }
  const args = [bindExpr(e.left, cx), ...items.map((i) => bindExpr(i, cx))];
  return call(cx.env, 'within', args, e.pos, positions([e.left, ...items]));
}

function isNullConst(b: BoundExpr): boolean {
  return b.kind === 'const' && b.value === null;
}

/**
 * arr[i, lo:hi, ...] with a range: the '[:]' function (arrays.ts), each index cast to INT and each
 * range's bounds to LONG (an omitted end NULL), so their types say which selector each is.
 */
function sliceExpr(e: A.Subscript, cx: ExprContext): BoundExpr {
  const args: BoundExpr[] = [bindExpr(e.expr, cx)];
  const at: number[] = [e.expr.pos];
  const integer = (x: A.Expr, type: 'INT' | 'LONG'): BoundExpr => {
    const b = bindExpr(x, cx);
    if (b.type !== 'NULL' && !isIntegral(b.type))
      throw new SvcError('SQL', `array index must be an integer, found ${b.type}`, { position: x.pos });
    return castTo(cx.env, b, type, x.pos);
  };
  for (const x of e.index) {
    if (x.kind !== 'slice') {
      args.push(integer(x, 'INT'));
      at.push(x.pos);
      continue;
    }
    args.push(x.lo === null ? { kind: 'const', type: 'LONG', value: null } : integer(x.lo, 'LONG'));
    args.push(x.hi === null ? { kind: 'const', type: 'LONG', value: null } : integer(x.hi, 'LONG'));
    at.push(x.lo?.pos ?? x.pos, x.hi?.pos ?? x.pos);
  }
  return call(cx.env, '[:]', args, e.pos, at);
}

/**
 * switch(key, k1, v1, k2, v2, ... [, else]): QuestDB's name for the simple CASE (CASE key WHEN k1
 * THEN v1 ... ELSE e END), callable by name; the keys are constants as QuestDB requires.
 */
function switchAsCase(e: A.Call): A.Case {
  const [operand, ...rest] = e.args;
  if (operand === undefined || rest.length < 2)
    throw new SvcError('SQL', 'switch() needs a key and at least one key and value pair', { position: e.pos });
  const whens: Array<{ when: A.Expr; then: A.Expr }> = [];
  for (let i = 0; i + 1 < rest.length; i += 2) {
    const when = rest[i]!;
    const constant = (x: A.Expr): boolean =>
      x.kind === 'literal' || (x.kind === 'cast' && constant(x.expr)) || (x.kind === 'unary' && constant(x.arg));
    if (!constant(when)) throw new SvcError('SQL', 'constant expected', { position: when.pos });
    whens.push({ when, then: rest[i + 1]! });
  }
  return { kind: 'case', pos: e.pos, operand, whens, else: rest.length % 2 === 1 ? rest[rest.length - 1]! : null };
}

function callExpr(e: A.Call, cx: ExprContext): BoundExpr {
  if (e.over) {
    if (!cx.onWindow)
      throw new SvcError('SQL', cx.windowError ?? 'window function is not allowed here', { position: e.pos });
    return cx.onWindow(e);
  }
  if (e.name === 'switch' && !e.over) return caseExpr(switchAsCase(e), cx);
  if (e.name === 'touch') return touchExpr(e, cx);
  if (isWindowOnly(e.name))
    throw new SvcError('SQL', 'window function called in non-window context, make sure to add OVER clause', {
      position: e.pos,
    });
  if (cx.env.registry.isAggregate(e.name) || (e.name === 'count' && e.distinct)) {
    if (!cx.onAggregate)
      throw new SvcError('SQL', `aggregate function ${e.name} is not allowed here`, { position: e.pos });
    return cx.onAggregate(e);
  }
  const at = positions(e.args);
  // After grouping, an unknown function is reported as such (with its arguments' types before
  // grouping), not as a column missing from GROUP BY.
  if (cx.scope.inner !== undefined && !cx.env.registry.hasScalar(e.name)) {
    const inner: ExprContext = { env: cx.env, scope: cx.scope.inner, onAggregate: null };
    const types = e.args.map((a) => bindExpr(a, inner).type);
    throw new SvcError('SQL', `unknown function name: ${e.name}(${types.map(typeName).join(', ')})`, {
      position: e.pos,
    });
  }
  let args = e.args.map((a) => bindExpr(a, cx));
  // coalesce takes its arguments' common type, text constants meeting a timestamp as timestamps (like CASE).
  if (e.name === 'coalesce' && args.length >= 2) args = unify(cx.env, args, e.pos, at);
  return call(cx.env, e.name, args, e.pos, at);
}

/**
 * Types BETWEEN takes: QuestDB's between(TIMESTAMP, TIMESTAMP, TIMESTAMP) takes timestamps, integers
 * (micros) and text (parsed), DECIMALs have their own (QuestDB's docs: `price BETWEEN 2100.00m AND
 * 2200.00m`); svcdb also takes FLOAT and DOUBLE, which QuestDB 9.3.3 refuses (a deliberate
 * difference: standard SQL's numeric BETWEEN, README "Differences from QuestDB").
 */
const BETWEEN_ARGS: ReadonlySet<SqlType> = new Set([
  'TIMESTAMP',
  'TIMESTAMP_NS',
  'DATE',
  'BYTE',
  'SHORT',
  'INT',
  'LONG',
  'FLOAT',
  'DOUBLE',
  'NULL',
  'CHAR',
  'STRING',
  'VARCHAR',
  'SYMBOL',
]);

/**
 * QuestDB 9.3 has BETWEEN for timestamps (and decimals) only; svcdb adds numbers. An argument
 * of another kind (BOOLEAN, UUID, GEOHASH...) fails the call, the message naming every
 * argument that is not a TIMESTAMP, at the last of them.
 */
function checkBetween(args: readonly BoundExpr[], at: readonly number[]): void {
  if (args.every((a) => BETWEEN_ARGS.has(a.type) || (a.type !== 'NULL' && typeKind(a.type) === 'DECIMAL'))) return;
  let message = 'argument type mismatch for function `between`';
  let last = 0;
  args.forEach((a, i) => {
    if (a.type === 'TIMESTAMP') return;
    message += ` at #${i + 1} expected: TIMESTAMP, actual: ${typeName(a.type)}`;
    last = i;
  });
  throw new SvcError('SQL', message, { position: at[last] });
}

/**
 * Casts every expression to their common type (commonType). A text constant
 * next to a TIMESTAMP, DATE or TIMESTAMP_NS is parsed as one; a text column is not
 * converted. A mismatch is reported at the expression that does not fit
 * (`at[i]`, else `pos`); for CASE `branches`, as QuestDB reports them.
 */
export function unify(
  env: StatementEnv,
  es: BoundExpr[],
  pos: number,
  at?: readonly number[],
  branches = false,
): BoundExpr[] {
  const where = (i: number): number => at?.[i] ?? pos;
  const temporal = es.some((x) => isTemporal(x.type) || x.type === 'TIMESTAMP_NS');
  let t: SqlType = 'NULL';
  es.forEach((x, i) => {
    if (temporal && x.kind === 'const' && isText(x.type)) return;
    // BETWEEN and IN over a timestamp take integers as epoch micros (QuestDB's `timestamp BETWEEN
    // 1746552420000000 AND 1746811620000000`), as a comparison does.
    if (temporal && !branches && isIntegral(x.type) && es.some((y) => isTemporal(y.type))) return;
    const c = commonType(t, x.type);
    if (c === null && !branches)
      throw new SvcError('SQL', `inconvertible types: ${typeName(t)} and ${typeName(x.type)}`, { position: where(i) });
    if (c === null) {
      // CASE: QuestDB converts the branches to the later type and fails at the first earlier one it cannot take.
      const to = x.type;
      const j = es.findIndex(
        (y, k) => k < i && !(temporal && y.kind === 'const' && isText(y.type)) && commonType(y.type, to) === null,
      );
      const from = j >= 0 ? es[j]!.type : t;
      throw new SvcError(
        'SQL',
        `inconvertible types: ${typeName(from)} -> ${typeName(to)} [from=${typeName(from)}, to=${typeName(to)}]`,
        { position: where(j >= 0 ? j : i) },
      );
    }
    t = c;
  });
  return es.map((x, i) => castTo(env, x, t, where(i)));
}

function caseExpr(e: A.Case, cx: ExprContext): BoundExpr {
  const conds = e.whens.map((w) => {
    const c = bindExpr(w.when, cx);
    if (!e.operand) {
      // A searched CASE's conditions are BOOLEAN (a NULL literal included: QuestDB refuses it).
      if (c.type !== 'BOOLEAN')
        throw new SvcError('SQL', `BOOLEAN expected, found ${typeName(c.type)}`, { position: w.when.pos });
      return c;
    }
    const at = [e.operand.pos, w.when.pos];
    const [a, b] = unify(cx.env, [bindExpr(e.operand, cx), c], w.when.pos, at);
    return call(cx.env, '=', [a!, b!], w.when.pos, at);
  });
  const valuePos = [...e.whens.map((w) => w.then.pos), e.else ? e.else.pos : e.pos];
  const values = unify(
    cx.env,
    [
      ...e.whens.map((w) => bindExpr(w.then, cx)),
      e.else ? bindExpr(e.else, cx) : { kind: 'const', type: 'NULL', value: null },
    ],
    e.pos,
    valuePos,
    true,
  );
  const args: BoundExpr[] = [];
  conds.forEach((c, i) => args.push(c, values[i]!));
  args.push(values[values.length - 1]!);
  return call(cx.env, 'case', args, e.pos);
}

/**
 * touch(SELECT ...): the query, of any columns, read through once per execution; its value is
 * QuestDB's STRING `{"data_pages": n, "index_key_pages": 0, "index_values_pages": 0}`.
 */
function touchExpr(e: A.Call, cx: ExprContext): BoundExpr {
  const q = e.args.length === 1 ? e.args[0]! : null;
  if (q === null || q.kind !== 'subquery')
    throw new SvcError('SQL', 'touch() takes a query: touch(SELECT ...)', { position: e.pos });
  if (!cx.scope.subquery) throw new SvcError('SQL', 'subqueries are not supported here', { position: q.pos });
  return { kind: 'subquery', plan: cx.scope.subquery(q.query), type: 'STRING', pos: q.pos, touch: true };
}

/** A subquery of one column, bound by the scope's binder. */
function subqueryPlan(q: A.Query, cx: ExprContext, pos: number): Plan {
  if (!cx.scope.subquery) throw new SvcError('SQL', 'subqueries are not supported here', { position: pos });
  const plan = cx.scope.subquery(q);
  if (plan.fields.length !== 1)
    throw new SvcError('SQL', `subquery must return exactly one column [columns=${plan.fields.length}]`, {
      position: pos,
    });
  return plan;
}

function inExpr(e: A.In, cx: ExprContext): BoundExpr {
  if (e.query) {
    let x = bindExpr(e.expr, cx);
    let plan = subqueryPlan(e.query, cx, e.query.pos);
    const inner = plan.fields[0]!;
    const t = commonType(x.type, inner.type);
    if (t === null) throw new SvcError('SQL', `inconvertible types: ${x.type} and ${inner.type}`, { position: e.pos });
    x = castTo(cx.env, x, t, e.pos);
    if (inner.type !== t) {
      const cast = castTo(cx.env, { kind: 'col', index: 0, type: inner.type }, t, e.pos);
      plan = node({ kind: 'project', input: plan, exprs: [cast], fields: [{ name: inner.name, type: t }] });
    }
    const r: BoundExpr = { kind: 'inSubquery', expr: x, plan, type: 'BOOLEAN', pos: e.pos };
    return e.not ? call(cx.env, 'not', [r], e.pos) : r;
  }
  const x = bindExpr(e.expr, cx);
  const list = (e.list ?? []).map((i) => bindExpr(i, cx));
  // ts IN <INTERVAL> (interval(a, b), today(), yesterday('Europe/London')): both bounds included.
  const iv = list.findIndex((i) => i.type === 'INTERVAL');
  if (iv >= 0) {
    const r = inInterval(x, list, iv, e, cx);
    return e.not ? call(cx.env, 'not', [r], e.pos) : r;
  }
  // ts IN '2024-01' (strings against a timestamp: interval literals) is the time-series clause.
  if (
    isTemporal(x.type) &&
    list.length > 0 &&
    list.every((i) => i.kind === 'const' && isText(i.type) && i.value !== null)
  ) {
    const now = cx.env.statementMicros;
    const intervals = merge(
      list.flatMap((i, k) => parseIntervalLiteral(String((i as { value: unknown }).value), now, e.list![k]!.pos)),
    );
    const r = inIntervals(x.type === 'DATE' ? call(cx.env, 'cast_TIMESTAMP', [x], e.pos) : x, intervals, e.pos);
    return e.not ? call(cx.env, 'not', [r], e.pos) : r;
  }
  const at = positions([e.expr, ...(e.list ?? [])]);
  const all = unify(cx.env, [x, ...list], e.pos, at);
  const r = call(cx.env, 'in_list', all, e.pos, at);
  return e.not ? call(cx.env, 'not', [r], e.pos) : r;
}

/**
 * `x IN <interval>`: an interval the same for every row of the statement (constant bounds, now(), today()...)
 * is an interval list the scan takes (its end included: one microsecond more, half-open); any other is
 * checked row by row (in_interval), as is the NULL interval, which holds nothing.
 */
function inInterval(x: BoundExpr, list: readonly BoundExpr[], at: number, e: A.In, cx: ExprContext): BoundExpr {
  const item = list[at]!;
  const itemPos = e.list![at]!.pos;
  if (list.length !== 1)
    throw new SvcError(
      'SQL',
      'an interval must be alone in an IN list: ts IN interval(lo, hi); combine others with OR',
      {
        position: itemPos,
      },
    );
  if (!isTemporal(x.type) && x.type !== 'TIMESTAMP_NS' && x.type !== 'NULL')
    throw new SvcError('SQL', noMatch('in', [x.type, 'INTERVAL']), { position: e.pos });
  const v = statementValue(cx.env, item);
  if (v !== undefined && x.type !== 'TIMESTAMP_NS') {
    const b = (v as FixedVector).data as Uint8Array;
    if (!isIntervalNull(b, 0)) {
      const ts = x.type === 'DATE' ? call(cx.env, 'cast_TIMESTAMP', [x], e.pos) : x;
      return inIntervals(ts, [[intervalLo(b, 0), intervalHi(b, 0) + 1]], e.pos);
    }
  }
  return call(cx.env, 'in_interval', [x, item], e.pos, [e.expr.pos, itemPos]);
}

/** A stable text of an expression without positions, to match GROUP BY keys and ORDER BY items. */
export function exprKey(e: A.Expr): string {
  return JSON.stringify(e, function (this: unknown, k, v: unknown) {
    // `x::t` is CAST(x AS t), but for json_extract's typed form.
    if (k === 'suffix') return isJsonExtract((this as A.Cast).expr) ? v : undefined;
    return k === 'pos' || (k.endsWith('Pos') && typeof v === 'number')
      ? undefined
      : typeof v === 'string' && k === 'name'
        ? v.toLowerCase()
        : v;
  });
}

function isJsonExtract(e: A.Expr): boolean {
  return e.kind === 'call' && e.name.toLowerCase() === 'json_extract' && e.args.length === 2 && e.over === null;
}

/** `x IN <intervals>`: a binary search per row over the sorted intervals (NULL is outside every interval). */
function inIntervals(x: BoundExpr, intervals: readonly Interval[], pos: number): BoundExpr {
  const los = Float64Array.from(intervals, (i) => i[0]);
  const his = Float64Array.from(intervals, (i) => i[1]);
  const kernel: Kernel = (args, n) => {
    const d = (args[0] as { data: Float64Array }).data;
    const out = new Uint8Array(n);
    const k = los.length;
    for (let r = 0; r < n; r++) {
      const t = d[r]!;
      // The last interval starting at or before t.
      let lo = 0,
        hi = k;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (los[mid]! <= t) lo = mid + 1;
        else hi = mid;
      }
      out[r] = lo > 0 && t < his[lo - 1]! && t !== LONG_NULL ? 1 : 0;
    }
    return { kind: 'fixed', type: 'BOOLEAN', data: out };
  };
  return {
    kind: 'call',
    name: 'in_intervals',
    fn: { type: 'BOOLEAN', kernel },
    args: [x],
    type: 'BOOLEAN',
    pos,
    intervals,
  };
}
