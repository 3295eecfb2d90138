// Reference semantics for the differential SQL test (differential.test.ts):
// expression trees, their SQL text and a per-row evaluator in plain JS, plus
// aggregates over arrays of rows, with QuestDB's rules: INT NULL is the -2^31
// sentinel (an INT result of -2^31 reads as NULL), DOUBLE NULL is NaN,
// arithmetic with NULL is NULL, integer division truncates and by zero is NULL,
// INT + - * wrap like Java int, ordering comparisons with NULL are false,
// `=` holds for NULL = NULL (so `x = NULL` is IS NULL), BOOLEAN has no NULL,
// text orders by code point. Nothing here imports lib/.

export type RType = 'INT' | 'LONG' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMP' | 'SYMBOL' | 'VARCHAR' | 'STRING' | 'NULL';
export type Val = number | string | boolean | null;
export type Row = readonly Val[];
export type ArithOp = '+' | '-' | '*' | '/' | '%';
export type CmpOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

/** The reference cannot state an exact answer (a LONG past 2^53, a DOUBLE division by zero): the query is dropped. */
export class Skip extends Error {}

const INT_MIN = -2147483648;
const TWO53 = 2 ** 53;

export type Expr =
  | { readonly k: 'col'; readonly name: string; readonly idx: number; readonly type: RType }
  | { readonly k: 'lit'; readonly sql: string; readonly value: Val; readonly type: RType }
  | { readonly k: 'arith'; readonly op: ArithOp; readonly a: Expr; readonly b: Expr; readonly type: RType }
  | { readonly k: 'neg'; readonly a: Expr; readonly type: RType }
  | { readonly k: 'cmp'; readonly op: CmpOp; readonly a: Expr; readonly b: Expr; readonly type: 'BOOLEAN' }
  | { readonly k: 'logic'; readonly op: 'AND' | 'OR'; readonly a: Expr; readonly b: Expr; readonly type: 'BOOLEAN' }
  | { readonly k: 'not'; readonly a: Expr; readonly type: 'BOOLEAN' }
  /** IS [NOT] NULL, or the `x = NULL` / `x != NULL` spelling of it. */
  | { readonly k: 'isNull'; readonly a: Expr; readonly not: boolean; readonly eq: boolean; readonly type: 'BOOLEAN' }
  | {
      readonly k: 'case';
      readonly whens: ReadonlyArray<{ readonly c: Expr; readonly v: Expr }>;
      readonly else: Expr | null;
      readonly type: RType;
    }
  | {
      readonly k: 'fn';
      readonly name: 'coalesce' | 'abs' | 'round' | 'length' | 'upper' | 'concat';
      readonly args: readonly Expr[];
      readonly type: RType;
    }
  | { readonly k: 'concatOp'; readonly a: Expr; readonly b: Expr; readonly type: RType }
  | {
      readonly k: 'in';
      readonly a: Expr;
      readonly list: readonly Expr[];
      readonly not: boolean;
      readonly type: 'BOOLEAN';
    }
  | {
      readonly k: 'between';
      readonly a: Expr;
      readonly lo: Expr;
      readonly hi: Expr;
      readonly not: boolean;
      readonly type: 'BOOLEAN';
    };

export const isNum = (t: RType): boolean => t === 'INT' || t === 'LONG' || t === 'DOUBLE';
export const isText = (t: RType): boolean => t === 'SYMBOL' || t === 'VARCHAR' || t === 'STRING';
const RANK: Partial<Record<RType, number>> = { INT: 0, LONG: 1, DOUBLE: 2 };

/** The type values of these types meet in (CASE, coalesce, IN, BETWEEN); NULL adopts the others. */
export function common(types: readonly RType[]): RType {
  let t: RType = 'NULL';
  for (const x of types) {
    if (x === 'NULL' || x === t) continue;
    if (t === 'NULL') t = x;
    else if (isNum(t) && isNum(x)) t = RANK[t]! >= RANK[x]! ? t : x;
    else if (isText(t) && isText(x)) t = 'STRING';
    else throw new Error(`no common type of ${t} and ${x}`);
  }
  return t;
}

// ---- constructors (the generator only builds well-typed trees) ----

export const col = (name: string, idx: number, type: RType): Expr => ({ k: 'col', name, idx, type });
export const lit = (sql: string, value: Val, type: RType): Expr => ({ k: 'lit', sql, value, type });
/**
 * Numbers widen (INT, LONG, DOUBLE); a TIMESTAMP plus or minus an integer of micros stays a
 * TIMESTAMP, and so does the difference of two (QuestDB 9.3). Two INT literals whose product
 * leaves the INT range multiply into a LONG (QuestDB folds that constant wider).
 */
export function arith(op: ArithOp, a: Expr, b: Expr): Expr {
  const ts = a.type === 'TIMESTAMP' || b.type === 'TIMESTAMP';
  let type = !ts ? common([a.type, b.type]) : 'TIMESTAMP';
  if (
    op === '*' &&
    type === 'INT' &&
    a.k === 'lit' &&
    b.k === 'lit' &&
    typeof a.value === 'number' &&
    typeof b.value === 'number'
  ) {
    const p = a.value * b.value;
    if (p > 2147483647 || p < -2147483648) type = 'LONG';
  }
  return { k: 'arith', op, a, b, type };
}
export const neg = (a: Expr): Expr => ({ k: 'neg', a, type: a.type });
export const cmp = (op: CmpOp, a: Expr, b: Expr): Expr => ({ k: 'cmp', op, a, b, type: 'BOOLEAN' });
export const logic = (op: 'AND' | 'OR', a: Expr, b: Expr): Expr => ({ k: 'logic', op, a, b, type: 'BOOLEAN' });
export const not = (a: Expr): Expr => ({ k: 'not', a, type: 'BOOLEAN' });
export const isNull = (a: Expr, negated: boolean, eq: boolean): Expr => ({
  k: 'isNull',
  a,
  not: negated,
  eq,
  type: 'BOOLEAN',
});
export const caseOf = (whens: Array<{ c: Expr; v: Expr }>, otherwise: Expr | null): Expr => ({
  k: 'case',
  whens,
  else: otherwise,
  type: common([...whens.map((w) => w.v.type), otherwise?.type ?? 'NULL']),
});
export const inList = (a: Expr, list: Expr[], negated: boolean): Expr => ({
  k: 'in',
  a,
  list,
  not: negated,
  type: 'BOOLEAN',
});
export const between = (a: Expr, lo: Expr, hi: Expr, negated: boolean): Expr => ({
  k: 'between',
  a,
  lo,
  hi,
  not: negated,
  type: 'BOOLEAN',
});
export const concatOp = (a: Expr, b: Expr): Expr => ({
  k: 'concatOp',
  a,
  b,
  type: a.type === 'VARCHAR' || b.type === 'VARCHAR' ? 'VARCHAR' : 'STRING',
});

export function fn(name: Extract<Expr, { k: 'fn' }>['name'], args: Expr[]): Expr {
  let type: RType;
  switch (name) {
    case 'coalesce':
      type = common(args.map((a) => a.type));
      break;
    case 'abs':
      type = args[0]!.type;
      break;
    case 'round':
      type = 'DOUBLE';
      break;
    case 'length':
      type = 'INT';
      break;
    case 'upper':
      type = 'STRING';
      break;
    case 'concat':
      type = args.some((a) => a.type === 'VARCHAR') ? 'VARCHAR' : 'STRING';
      break;
  }
  return { k: 'fn', name, args, type };
}

// ---- SQL text (every operator parenthesized: precedence is the parser's test, not this one's) ----

export function sql(e: Expr): string {
  switch (e.k) {
    case 'col':
      return e.name;
    case 'lit':
      return e.sql;
    case 'arith':
      return `(${sql(e.a)} ${e.op} ${sql(e.b)})`;
    case 'neg':
      return `(- ${sql(e.a)})`; // the space: `--` starts a comment
    case 'cmp':
      return `(${sql(e.a)} ${e.op} ${sql(e.b)})`;
    case 'logic':
      return `(${sql(e.a)} ${e.op} ${sql(e.b)})`;
    case 'not':
      return `(NOT ${sql(e.a)})`;
    case 'isNull':
      return e.eq ? `(${sql(e.a)} ${e.not ? '!=' : '='} NULL)` : `(${sql(e.a)} IS ${e.not ? 'NOT ' : ''}NULL)`;
    case 'case':
      return `(CASE ${e.whens.map((w) => `WHEN ${sql(w.c)} THEN ${sql(w.v)}`).join(' ')}${e.else ? ` ELSE ${sql(e.else)}` : ''} END)`;
    case 'fn':
      return `${e.name}(${e.args.map(sql).join(', ')})`;
    case 'concatOp':
      return `(${sql(e.a)} || ${sql(e.b)})`;
    case 'in':
      return `(${sql(e.a)} ${e.not ? 'NOT ' : ''}IN (${e.list.map(sql).join(', ')}))`;
    case 'between':
      return `(${sql(e.a)} ${e.not ? 'NOT ' : ''}BETWEEN ${sql(e.lo)} AND ${sql(e.hi)})`;
  }
}

// ---- evaluation ----

/** Code point order (what UTF-8 byte order gives); JS `<` compares UTF-16 units instead. */
export function compareText(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!),
    y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

function compareValues(a: Val, b: Val): number {
  if (typeof a === 'string' && typeof b === 'string') return compareText(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  return (a as number) - (b as number);
}

function integral(op: ArithOp, x: number, y: number, bits: 32 | 64): number | null {
  const a = BigInt(x),
    b = BigInt(y);
  let r: bigint;
  switch (op) {
    case '+':
      r = a + b;
      break;
    case '-':
      r = a - b;
      break;
    case '*':
      r = a * b;
      break;
    case '/':
      if (b === 0n) return null;
      r = a / b;
      break; // BigInt division truncates toward zero
    case '%':
      if (b === 0n) return null;
      r = a % b;
      break;
  }
  if (bits === 32) {
    const w = Number(BigInt.asIntN(32, r));
    return w === INT_MIN ? null : w;
  }
  // LONG: exact 64-bit values past 2^53 have no exact JS number to compare with.
  if (r > BigInt(TWO53) || r < -BigInt(TWO53)) throw new Skip(`LONG ${r} past 2^53`);
  return Number(r);
}

function arithmetic(op: ArithOp, type: RType, x: number, y: number): number | null {
  if (type === 'INT') return integral(op, x, y, 32);
  if (type === 'LONG' || type === 'TIMESTAMP') return integral(op, x, y, 64);
  if ((op === '/' || op === '%') && y === 0) throw new Skip('DOUBLE division by zero');
  let r: number;
  switch (op) {
    case '+':
      r = x + y;
      break;
    case '-':
      r = x - y;
      break;
    case '*':
      r = x * y;
      break;
    case '/':
      r = x / y;
      break;
    case '%':
      r = x % y;
      break;
  }
  if (r === Infinity || r === -Infinity) throw new Skip('DOUBLE overflow');
  return r !== r ? null : r;
}

/** round(x, scale) half away from zero on the shortest decimal form of x (what the user sees). */
export function roundHalfUp(x: number, scale: number): number {
  if (x === 0) return x;
  const [m, e] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = BigInt(m.replace('.', ''));
  const exp10 = Number(e) - (m.length > 1 ? m.length - 2 : 0); // |x| = digits * 10^exp10
  const shift = exp10 + scale;
  let r: bigint;
  if (shift >= 0) r = digits * 10n ** BigInt(shift);
  else {
    const p = 10n ** BigInt(-shift);
    r = digits / p + ((digits % p) * 2n >= p ? 1n : 0n);
  }
  const v = Number(`${r}e${-scale}`);
  return x < 0 ? -v : v;
}

const render = (v: Val): string => (v === null ? '' : String(v));

/** The value of `e` for one row. */
export function evaluate(e: Expr, row: Row): Val {
  switch (e.k) {
    case 'col':
      return row[e.idx]!;
    case 'lit':
      return e.value;
    case 'arith': {
      const x = evaluate(e.a, row),
        y = evaluate(e.b, row);
      return x === null || y === null ? null : arithmetic(e.op, e.type, x as number, y as number);
    }
    case 'neg': {
      const x = evaluate(e.a, row);
      return x === null ? null : -(x as number);
    }
    case 'cmp': {
      const x = evaluate(e.a, row),
        y = evaluate(e.b, row);
      if (e.op === '=' || e.op === '!=') {
        const same = x === null || y === null ? x === y : compareValues(x, y) === 0;
        return e.op === '=' ? same : !same;
      }
      if (x === null || y === null) return false;
      const c = compareValues(x, y);
      return e.op === '<' ? c < 0 : e.op === '<=' ? c <= 0 : e.op === '>' ? c > 0 : c >= 0;
    }
    case 'logic': {
      const x = evaluate(e.a, row) === true,
        y = evaluate(e.b, row) === true;
      return e.op === 'AND' ? x && y : x || y;
    }
    case 'not':
      return evaluate(e.a, row) !== true;
    case 'isNull':
      return (evaluate(e.a, row) === null) !== e.not;
    case 'case': {
      for (const w of e.whens) if (evaluate(w.c, row) === true) return evaluate(w.v, row);
      return e.else ? evaluate(e.else, row) : null;
    }
    case 'fn':
      return callFn(
        e.name,
        e.args.map((a) => evaluate(a, row)),
      );
    case 'concatOp':
      return render(evaluate(e.a, row)) + render(evaluate(e.b, row));
    case 'in': {
      const x = evaluate(e.a, row);
      const hit = e.list.some((l) => {
        const y = evaluate(l, row);
        return x === null || y === null ? x === y : compareValues(x, y) === 0;
      });
      return hit !== e.not;
    }
    case 'between': {
      const x = evaluate(e.a, row),
        lo = evaluate(e.lo, row),
        hi = evaluate(e.hi, row);
      let inside = false;
      if (x !== null && lo !== null && hi !== null) {
        // Bounds in either order (QuestDB: BETWEEN X AND Y is BETWEEN Y AND X), both inclusive.
        const [a, b] = compareValues(lo, hi) <= 0 ? [lo, hi] : [hi, lo];
        inside = compareValues(x, a) >= 0 && compareValues(x, b) <= 0;
      }
      return inside !== e.not;
    }
  }
}

function callFn(name: Extract<Expr, { k: 'fn' }>['name'], v: Val[]): Val {
  switch (name) {
    case 'coalesce':
      return v.find((x) => x !== null) ?? null;
    case 'abs':
      return v[0] === null ? null : Math.abs(v[0] as number);
    // round(x) is Java's Math.round (half towards +infinity); with a scale, half away from zero.
    case 'round':
      return v[0] === null || (v.length > 1 && v[1] === null)
        ? null
        : v.length > 1
          ? roundHalfUp(v[0] as number, v[1] as number)
          : Math.round(v[0] as number) + 0;
    case 'length':
      return v[0] === null ? -1 : Array.from(v[0] as string).length;
    // One character for one, as Java's Character.toUpperCase ('ß' stays).
    case 'upper':
      return v[0] === null
        ? null
        : Array.from(v[0] as string, (c) => {
            const u = c.toUpperCase();
            return u.length === c.length ? u : c;
          }).join('');
    case 'concat':
      return v.map(render).join('');
  }
}

// ---- aggregates ----

export type AggName = 'count(*)' | 'count' | 'sum' | 'avg' | 'min' | 'max' | 'first' | 'last' | 'count_distinct';

export interface Agg {
  readonly name: AggName;
  readonly arg: Expr | null;
  /** The result type, after `post`. */
  readonly type: RType;
  /** count_distinct spelled count(DISTINCT x). */
  readonly distinct: boolean;
  /** Arithmetic with an INT constant on the aggregate's value: `sum(x) * 2`. */
  readonly post: { readonly op: '+' | '-' | '*'; readonly value: number } | null;
}

/** `a` followed by arithmetic with an INT constant (numeric aggregates only). */
export function withPost(a: Agg, op: '+' | '-' | '*', value: number): Agg {
  return { ...a, post: { op, value }, type: common([a.type, 'INT']) };
}

export function agg(name: AggName, arg: Expr | null, distinct = false): Agg {
  const t = arg?.type ?? 'NULL';
  let type: RType;
  switch (name) {
    case 'count(*)':
    case 'count':
    case 'count_distinct':
      type = 'LONG';
      break;
    case 'sum':
      type = t === 'DOUBLE' ? 'DOUBLE' : 'LONG';
      break; // sum of integers is a LONG in QuestDB
    case 'avg':
      type = 'DOUBLE';
      break;
    default:
      type = t;
  }
  return { name, arg, type, distinct, post: null };
}

export function aggSql(a: Agg): string {
  const call =
    a.name === 'count(*)' ? 'count(*)' : a.distinct ? `count(DISTINCT ${sql(a.arg!)})` : `${a.name}(${sql(a.arg!)})`;
  return a.post ? `(${call} ${a.post.op} ${a.post.value})` : call;
}

/** A value with the absolute error allowed (floating-point sums depend on the order of additions). */
export interface Cell {
  readonly v: Val;
  readonly tol: number;
}

const exact = (v: Val): Cell => ({ v, tol: 0 });

/** The aggregate over `rows` (those of one group, in scan order). */
export function aggregate(a: Agg, rows: readonly Row[]): Cell {
  const c = aggregateOnly(a, rows);
  if (!a.post || c.v === null) return c;
  const v = arithmetic(a.post.op, a.type, c.v as number, a.post.value);
  return { v, tol: a.post.op === '*' ? c.tol * Math.abs(a.post.value) : c.tol };
}

function aggregateOnly(a: Agg, rows: readonly Row[]): Cell {
  if (a.name === 'count(*)') return exact(rows.length);
  const xs = rows.map((r) => evaluate(a.arg!, r));
  const present = xs.filter((x) => x !== null);
  switch (a.name) {
    case 'count':
      return exact(present.length);
    case 'count_distinct':
      return exact(new Set(present).size);
    case 'first':
      return exact(xs.length > 0 ? xs[0]! : null);
    case 'last':
      return exact(xs.length > 0 ? xs[xs.length - 1]! : null);
    case 'min':
    case 'max': {
      let best: Val = null;
      for (const x of present)
        if (best === null || (a.name === 'min' ? compareValues(x, best) < 0 : compareValues(x, best) > 0)) best = x;
      return exact(best);
    }
    case 'sum':
    case 'avg': {
      if (present.length === 0) return exact(null);
      const nums = present as number[];
      const sumAbs = nums.reduce((s, x) => s + Math.abs(x), 0);
      if (a.arg!.type !== 'DOUBLE') {
        // Exact in BigInt; a partial sum past 2^53 would not be exact in doubles either.
        if (sumAbs > TWO53) throw new Skip('integer sum past 2^53');
        const s = Number(nums.reduce((t, x) => t + BigInt(x), 0n));
        return a.name === 'sum' ? exact(s) : { v: s / nums.length, tol: Math.abs(s / nums.length) * 1e-15 };
      }
      // Neumaier summation; any order of plain additions is within n * eps * sum|x| of it.
      let s = 0,
        c = 0;
      for (const x of nums) {
        const t = s + x;
        c += Math.abs(s) >= Math.abs(x) ? s - t + x : x - t + s;
        s = t;
      }
      const tol = nums.length * 2 ** -52 * sumAbs;
      return a.name === 'sum' ? { v: s + c, tol } : { v: (s + c) / nums.length, tol: tol / nums.length };
    }
  }
}
