// Expression parsing: precedence climbing over QuestDB's operator table, literals,
// calls with OVER windows, CASE, CAST, arrays and type names. Used by parse-query/ddl.

import type { ArrayLiteral, Binary, Call, Case, Expr, Literal, OrderItem, TypeName, WindowSpec } from './ast.js';
import type { Token } from './lexer.js';
import { isReserved, keywordNameError, NO_STOPS, RESERVED, SQL_KEYWORDS, type Cursor } from './parse-cursor.js';
import { isQueryStart, parseQuery } from './parse-query.js';
import { undeclaredVariable } from './declare.js';
import { parseWindowSpec } from './parse-window.js';

// Binding strength, loosest first, from QuestDB's operator precedence table
// (docs: reference/operators/precedence): IN/BETWEEN/WITHIN bind tighter than
// < <= > >=, which bind tighter than = != ~ LIKE.
export const P_OR = 1;
export const P_AND = 2;
export const P_NOT = 3;
export const P_EQ = 4;
export const P_REL = 5;
export const P_IN = 6;
export const P_BOR = 7;
export const P_XOR = 8;
export const P_BAND = 9;
export const P_CONCAT = 10;
export const P_SHIFT = 11;
export const P_ADD = 12;
export const P_MUL = 13;
export const P_UNARY = 14;
export const P_CAST = 15;

const OP_PREC: Readonly<Record<string, number>> = {
  '=': P_EQ,
  '!=': P_EQ,
  '<>': P_EQ,
  '~': P_EQ,
  '!~': P_EQ,
  '<': P_REL,
  '<=': P_REL,
  '>': P_REL,
  '>=': P_REL,
  '|': P_BOR,
  '^': P_XOR,
  '&': P_BAND,
  '||': P_CONCAT,
  '<<': P_SHIFT,
  '>>': P_SHIFT,
  '<<=': P_SHIFT,
  '>>=': P_SHIFT,
  '+': P_ADD,
  '-': P_ADD,
  '*': P_MUL,
  '/': P_MUL,
  '%': P_MUL,
  '::': P_CAST,
};

const WORD_PREC: Readonly<Record<string, number>> = {
  OR: P_OR,
  AND: P_AND,
  LIKE: P_EQ,
  ILIKE: P_EQ,
  IS: P_EQ,
  IN: P_IN,
  BETWEEN: P_IN,
  WITHIN: P_IN,
};

/** Parses an expression whose operators all bind at least as tightly as `minPrec`. */
export function parseExpr(c: Cursor, minPrec = P_OR): Expr {
  c.enter();
  let left = parsePrefix(c);
  // A run of AND (or OR) is collected and built as a balanced tree: `a OR b OR ... ` with
  // thousands of terms is a flat list to the user and stays shallow for every later stage
  // (both operators are associative; their kernels evaluate both sides anyway).
  let run: LogicRun | null = null;
  for (;;) {
    const t = c.tok;
    let prec: number | undefined;
    if (t.kind === 'op') prec = OP_PREC[t.text];
    else if (t.kind === 'ident') {
      prec = WORD_PREC[t.up];
      if (prec === undefined && t.up === 'NOT') {
        const n = c.peek().up;
        if (c.peek().kind === 'ident')
          prec = n === 'LIKE' || n === 'ILIKE' ? P_EQ : n === 'IN' || n === 'BETWEEN' ? P_IN : undefined;
      }
    }
    if (prec === undefined || prec < minPrec) break;
    if (t.kind === 'ident' && (t.up === 'AND' || t.up === 'OR')) {
      c.next();
      const right = parseExpr(c, prec + 1);
      if (run !== null && run.op !== t.up) {
        left = balanced(run);
        run = null;
      }
      run ??= { op: t.up, terms: [left], ops: [] };
      run.terms.push(right);
      run.ops.push(t.pos);
      continue;
    }
    if (run !== null) {
      left = balanced(run);
      run = null;
    }
    left = parseInfix(c, left, t, prec);
  }
  c.leave();
  return run === null ? left : balanced(run);
}

/** Terms joined by one associative operator; `ops[i]` is the offset of the operator after `terms[i]`. */
interface LogicRun {
  readonly op: string;
  readonly terms: Expr[];
  readonly ops: number[];
}

/**
 * `terms` joined by `op` as a balanced tree (the left half one larger, so up to three
 * terms it is the usual left-deep tree). Each node's `pos` is its operator's offset.
 */
function balanced(run: LogicRun, lo = 0, hi = run.terms.length): Expr {
  if (hi - lo === 1) return run.terms[lo]!;
  const mid = lo + Math.ceil((hi - lo) / 2);
  return {
    kind: 'binary',
    pos: run.ops[mid - 1]!,
    op: run.op,
    left: balanced(run, lo, mid),
    right: balanced(run, mid, hi),
  } satisfies Binary;
}

/** Conditions joined by AND as a balanced tree (the binder's re-assembled conjunctions). */
export function balancedAnd(terms: readonly Expr[]): Expr {
  return balanced({ op: 'AND', terms: [...terms], ops: terms.slice(1).map((t) => t.pos) });
}

function parseInfix(c: Cursor, left: Expr, t: Token, prec: number): Expr {
  c.next();
  if (t.kind === 'op') {
    if (t.text === '::') return { kind: 'cast', pos: t.pos, expr: left, type: parseTypeName(c), suffix: true };
    const right = parseExpr(c, prec + 1);
    // '<>' and '!=' are one operator; the tree spells it '!='.
    return { kind: 'binary', pos: t.pos, op: t.text === '<>' ? '!=' : t.text, left, right } satisfies Binary;
  }
  let not = false;
  let word = t.up;
  if (word === 'NOT') {
    not = true;
    word = c.next().up;
  }
  switch (word) {
    case 'IS': {
      const isNot = c.acceptKw('NOT');
      c.expectKw('NULL');
      return { kind: 'isNull', pos: t.pos, expr: left, not: isNot };
    }
    case 'IN':
      return parseInRest(c, left, t.pos, not);
    case 'BETWEEN': {
      const lo = parseExpr(c, P_BOR);
      c.expectKw('AND');
      const hi = parseExpr(c, P_BOR);
      return { kind: 'between', pos: t.pos, expr: left, lo, hi, not };
    }
    case 'WITHIN': {
      const open = c.expectOp('(');
      const items = parseExprList(c);
      c.expectOp(')');
      const list: ArrayLiteral = { kind: 'array', pos: open.pos, items };
      return { kind: 'binary', pos: t.pos, op: 'WITHIN', left, right: list };
    }
    default: {
      // LIKE, ILIKE (and NOT LIKE / NOT ILIKE); AND and OR are runs in parseExpr
      const right = parseExpr(c, prec + 1);
      return { kind: 'binary', pos: t.pos, op: not ? `NOT ${word}` : word, left, right };
    }
  }
}

/** After `x [NOT] IN`: a parenthesized list or subquery, or QuestDB's single value (`ts IN '2024-01'`, `ts IN today()`). */
function parseInRest(c: Cursor, expr: Expr, pos: number, not: boolean): Expr {
  if (c.isOp('(')) {
    if (isQueryStart(c, 1)) {
      c.next();
      const query = parseQuery(c);
      c.expectOp(')');
      return { kind: 'in', pos, expr, list: null, query, not };
    }
    const open = c.next();
    const list = parseExprList(c);
    closeParen(c, open);
    return { kind: 'in', pos, expr, list, query: null, not };
  }
  return { kind: 'in', pos, expr, list: [parseExpr(c, P_BOR)], query: null, not };
}

function parsePrefix(c: Cursor): Expr {
  const t = c.tok;
  if (t.kind === 'ident' && t.up === 'NOT') {
    c.next();
    return { kind: 'unary', pos: t.pos, op: 'NOT', arg: parseExpr(c, P_NOT) };
  }
  if (t.kind === 'op' && (t.text === '-' || t.text === '+' || t.text === '~')) {
    c.next();
    const n = c.tok;
    // `-5` folds into one literal so that LIMIT -5 and INT/LONG bounds read naturally;
    // not when a tighter operator follows (`-1::int` is -(1::int), `-2[1]`).
    if (t.text === '-' && n.kind === 'number' && !c.isOp('::', c.peek()) && !c.isOp('[', c.peek())) {
      c.next();
      return numberLiteral(c, n, t.pos, true);
    }
    return { kind: 'unary', pos: t.pos, op: t.text, arg: parseExpr(c, P_UNARY) };
  }
  return parsePostfix(c, parsePrimary(c));
}

function parsePostfix(c: Cursor, e: Expr): Expr {
  while (c.isOp('[')) {
    const open = c.next();
    const index: Expr[] = [];
    do {
      index.push(parseIndex(c));
    } while (c.acceptOp(','));
    c.expectOp(']');
    e = { kind: 'subscript', pos: open.pos, expr: e, index };
  }
  return e;
}

function parseIndex(c: Cursor): Expr {
  const pos = c.tok.pos;
  const lo = c.isOp(':') ? null : parseExpr(c);
  if (!c.acceptOp(':')) {
    if (lo === null) throw c.expected('array index');
    return lo;
  }
  const hi = c.isOp(',') || c.isOp(']') ? null : parseExpr(c);
  return { kind: 'slice', pos, lo, hi };
}

function parsePrimary(c: Cursor): Expr {
  const t = c.tok;
  switch (t.kind) {
    case 'number':
      c.next();
      return numberLiteral(c, t, t.pos, false);
    case 'string':
      c.next();
      return { kind: 'literal', pos: t.pos, type: 'STRING', value: t.text, text: c.slice(t.pos, t.end) };
    case 'geohash':
      c.next();
      return { kind: 'literal', pos: t.pos, type: 'GEOHASH', value: t.text, text: t.text };
    case 'bind':
      // Declared variables were replaced before parsing (declare.ts): this one is not declared.
      if (t.text.startsWith('@')) throw undeclaredVariable(t);
      c.next();
      return { kind: 'bindVar', pos: t.pos, name: t.text };
    case 'qident': {
      c.next();
      const e = columnRest(c, t, t.text);
      const raw = c.slice(t.pos + 1, t.end - 1);
      return e.kind === 'column' && e.table === null && raw !== t.text ? { ...e, raw } : e;
    }
    case 'ident':
      return parseWord(c, t);
    case 'op':
      if (t.text === '(') return parseParen(c);
      if (t.text === '[') return parseArrayBody(c, t.pos);
      break;
    case 'eof':
      break;
  }
  throw c.expected('expression');
}

function parseParen(c: Cursor): Expr {
  const open = c.next();
  if (isQueryStart(c, 0)) {
    const query = parseQuery(c);
    c.expectOp(')');
    return { kind: 'subquery', pos: open.pos, query };
  }
  const e = parseExpr(c);
  closeParen(c, open);
  return e;
}

/**
 * The `)` of an expression's parenthesis or call, as QuestDB's expression parser
 * reports its absence: a word or literal where an operator, `,` or `)` belongs is
 * a "dangling literal" (it is inside the parenthesis, so it cannot end the
 * expression), and the end of the text leaves the `(` "unbalanced".
 */
function closeParen(c: Cursor, open: Token): void {
  if (c.acceptOp(')')) return;
  const t = c.tok;
  if (t.kind === 'eof') throw c.error('unbalanced (', open.pos);
  if (t.kind === 'ident' || t.kind === 'qident' || t.kind === 'number' || t.kind === 'string' || t.kind === 'geohash') {
    throw c.error('dangling literal', t.pos);
  }
  throw c.expected("')'");
}

function parseWord(c: Cursor, t: Token): Expr {
  const next = c.peek();
  switch (t.up) {
    case 'TRUE':
    case 'FALSE':
      c.next();
      return { kind: 'literal', pos: t.pos, type: 'BOOLEAN', value: t.up === 'TRUE', text: t.text };
    case 'NULL':
      c.next();
      return { kind: 'literal', pos: t.pos, type: 'NULL', value: null, text: t.text };
    case 'NAN':
      // QuestDB reads the word NaN as its NULL constant (a NaN double is NULL there).
      if (c.isOp('(', next) || c.isOp('.', next)) break;
      c.next();
      return { kind: 'literal', pos: t.pos, type: 'NULL', value: null, text: t.text };
    case 'CASE':
      return parseCase(c);
    case 'CAST':
      if (c.isOp('(', next)) return parseCast(c);
      break;
    case 'ARRAY':
      if (c.isOp('[', next)) {
        c.next();
        return parseArrayBody(c, t.pos);
      }
      break;
  }
  if (c.isOp('(', next) && (!RESERVED.has(t.up) || t.up === 'LEFT' || t.up === 'RIGHT')) {
    if (t.up === 'EXTRACT') return parseExtract(c);
    return parseCall(c);
  }
  if (isReserved(t, next)) {
    if (SQL_KEYWORDS.has(t.up)) throw keywordNameError(t);
    throw c.error(`expression expected, found keyword [${t.text}]`, t.pos);
  }
  // schema-qualified function: pg_catalog.version()
  if (c.isOp('.', next) && c.peek(2).kind === 'ident' && c.isOp('(', c.peek(3))) {
    c.i += 2;
    return parseCall(c, `${t.text}.`, t.pos);
  }
  c.next();
  return columnRest(c, t, t.text);
}

/** `extract(unit FROM x)` becomes the call extract('unit', x). */
function parseExtract(c: Cursor): Call {
  const t = c.next();
  c.expectOp('(');
  const u = c.tok;
  if (u.kind !== 'ident' && u.kind !== 'string') throw c.expected('date part');
  c.next();
  const unit: Literal = {
    kind: 'literal',
    pos: u.pos,
    type: 'STRING',
    value: u.text.toLowerCase(),
    text: c.slice(u.pos, u.end),
  };
  c.expectKw('FROM');
  const arg = parseExpr(c);
  c.expectOp(')');
  return { kind: 'call', pos: t.pos, name: 'extract', args: [unit, arg], distinct: false, over: null };
}

/** After a first name: `t.col`, `"t"."col"`, or just `col`. */
function columnRest(c: Cursor, first: Token, name: string): Expr {
  if (c.isOp('.') && c.peek().pos === c.tok.pos + 1) {
    const dot = c.next();
    const n = c.tok;
    if (n.kind === 'ident' || n.kind === 'qident') {
      c.next();
      return { kind: 'column', pos: first.pos, table: name, name: n.text };
    }
    if (c.isOp('*')) throw c.error("'*' is only allowed in the select list", n.pos);
    throw c.error("column name expected after '.'", dot.end);
  }
  return { kind: 'column', pos: first.pos, table: null, name };
}

/** `name(args) [IGNORE NULLS] [OVER ...]`; `prefix`/`pos` give a schema-qualified name's start. */
export function parseCall(c: Cursor, prefix = '', pos?: number): Call {
  const nameTok = c.next();
  const open = c.expectOp('(');
  let distinct = false;
  let args: Expr[] = [];
  if (c.isOp('*') && c.isOp(')', c.peek())) {
    args = [{ kind: 'starArg', pos: c.next().pos }];
  } else if (isQueryStart(c, 0)) {
    const pos = c.tok.pos;
    args = [{ kind: 'subquery', pos, query: parseQuery(c) }];
  } else if (!c.isOp(')')) {
    distinct = c.acceptKw('DISTINCT');
    // parseExprList written out: one frame less per level of nested calls.
    args = [parseExpr(c)];
    while (c.acceptOp(',')) args.push(parseExpr(c));
  }
  closeParen(c, open);
  let nulls: 'IGNORE' | 'RESPECT' | null = null;
  let nullsPos = -1;
  if ((c.isKw('IGNORE') || c.isKw('RESPECT')) && c.isKwAt(1, 'NULLS')) {
    nullsPos = c.tok.pos;
    nulls = c.next().up as 'IGNORE' | 'RESPECT';
    c.next();
    if (!c.isKw('OVER')) throw c.expected("'over'");
  }
  let over: WindowSpec | null = null;
  if (c.isKw('OVER')) {
    const overTok = c.next();
    if (c.isOp('(')) over = parseWindowSpec(c);
    else {
      const w = c.name('window name');
      over = {
        kind: 'window',
        pos: overTok.pos,
        name: w.name,
        namePos: w.pos,
        partitionBy: [],
        orderBy: [],
        frame: null,
      };
    }
  }
  const name = (prefix + nameTok.text).toLowerCase();
  const call: Call = { kind: 'call', pos: pos ?? nameTok.pos, name, args, distinct, over };
  return nulls === null ? call : { ...call, nulls, nullsPos };
}

/** `expr [ASC|DESC], ...` for ORDER BY. */
export function parseOrderList(c: Cursor): OrderItem[] {
  const items: OrderItem[] = [];
  do {
    const pos = c.tok.pos;
    const expr = parseExpr(c);
    let desc = false;
    if (c.acceptKw('DESC')) desc = true;
    else c.acceptKw('ASC');
    items.push({ expr, desc, pos });
  } while (c.acceptOp(','));
  return items;
}

export function parseExprList(c: Cursor): Expr[] {
  const list: Expr[] = [parseExpr(c)];
  while (c.acceptOp(',')) list.push(parseExpr(c));
  return list;
}

function parseCase(c: Cursor): Case {
  const t = c.next();
  const operand = c.isKw('WHEN') ? null : parseExpr(c);
  const whens: Array<{ when: Expr; then: Expr }> = [];
  while (c.acceptKw('WHEN')) {
    const when = parseExpr(c);
    c.expectKw('THEN');
    whens.push({ when, then: parseExpr(c) });
  }
  if (whens.length === 0) throw c.expected("'when'");
  const elseExpr = c.acceptKw('ELSE') ? parseExpr(c) : null;
  // QuestDB reports a CASE left open at the CASE itself.
  if (!c.acceptKw('END')) throw c.error("unbalanced 'case'", t.pos);
  return { kind: 'case', pos: t.pos, operand, whens, else: elseExpr };
}

function parseCast(c: Cursor): Expr {
  const t = c.next();
  const open = c.expectOp('(');
  const expr = parseExpr(c);
  // QuestDB's words: `cast(x)` misses its AS at the `)`, `cast(x as)` has one argument of two.
  if (c.isOp(')')) throw c.error("'as' missing", c.tok.pos);
  c.expectKw('AS');
  if (c.isOp(')')) throw c.error("too few arguments for 'cast' [found=1,expected=2]", t.pos);
  const type = parseTypeName(c);
  closeParen(c, open);
  return { kind: 'cast', pos: t.pos, expr, type };
}

/** `[a, b, ...]` after ARRAY or bare; nested brackets are arrays too. `pos` is ARRAY's or the bracket's. */
function parseArrayBody(c: Cursor, pos: number): ArrayLiteral {
  c.enter();
  c.expectOp('[');
  const items: Expr[] = [];
  if (!c.isOp(']')) {
    do {
      items.push(c.isOp('[') ? parseArrayBody(c, c.tok.pos) : parseExpr(c));
    } while (c.acceptOp(','));
  }
  c.expectOp(']');
  c.leave();
  return { kind: 'array', pos, items };
}

/** A type name: any word, upper-cased, with `(params)` kept as written and `[]` suffixes. */
export function parseTypeName(c: Cursor): TypeName {
  const t = c.tok;
  if (t.kind !== 'ident' && t.kind !== 'qident') throw c.expected('type name');
  c.next();
  let name = t.kind === 'ident' ? t.up : t.text.toUpperCase();
  let params: string | null = null;
  let paramsPos: number | undefined;
  if (c.isOp('(')) {
    const open = c.next();
    paramsPos = open.end;
    const end = c.skipUntil(NO_STOPS);
    c.expectOp(')');
    params = c.slice(open.end, end).trim();
    if (params.length === 0) throw c.error('type parameters expected', open.end);
  }
  while (c.isOp('[') && c.isOp(']', c.peek())) {
    c.next();
    c.next();
    name += '[]';
  }
  return paramsPos === undefined
    ? { kind: 'typeName', pos: t.pos, name, params }
    : { kind: 'typeName', pos: t.pos, name, params, paramsPos };
}

const NUMBER_RE = /^((?:\d[\d_]*)?(?:\.(?:\d[\d_]*)?)?)(?:[eE]([+-]?\d+))?([A-Za-z_]\w*)?$/;
const HEX_RE = /^0[xX]([0-9a-fA-F]+)([g-zG-Z_]\w*)?$/;
const INT_MAX = 2147483647;
const LONG_MAX = 9223372036854775807n;

/** Builds the literal for a number token; `negate` folds a preceding unary minus (pos is the minus). */
export function numberLiteral(c: Cursor, t: Token, pos: number, negate: boolean): Literal {
  const sign = negate ? '-' : '';
  const text = negate ? `-${t.text}` : t.text;
  const hex = HEX_RE.exec(t.text);
  if (hex !== null) {
    // QuestDB reads 0x... only as a LONG256 constant: whole bytes (an even number of digits), at most 32 of them.
    const digits = hex[1] as string;
    if ((hex[2] ?? '') !== '' || digits.length % 2 !== 0 || digits.length > 64 || negate) throw invalidConstant(c, t);
    return { kind: 'literal', pos, type: 'LONG256', value: t.text, text: t.text };
  }
  const m = NUMBER_RE.exec(t.text);
  if (m === null || (m[1] ?? '') === '' || m[1] === '.') throw invalidConstant(c, t);
  const body = (m[1] as string).replace(/_/g, '');
  const exp = m[2];
  const suffix = m[3] ?? '';
  const fractional = body.includes('.') || exp !== undefined;
  switch (suffix) {
    case '':
      if (fractional) return doubleLiteral(pos, text, sign, body, exp);
      return integerLiteral(c, t, pos, text, BigInt(body), negate, false);
    case 'L':
    case 'l':
      if (fractional) throw invalidConstant(c, t);
      return integerLiteral(c, t, pos, text, BigInt(body), negate, true);
    case 'm':
    case 'M': {
      const digits = sign + body + (exp === undefined ? '' : `e${exp}`);
      return { kind: 'literal', pos, type: 'DECIMAL', value: digits, text };
    }
    case 'd':
    case 'D':
    case 'f':
    case 'F':
      return doubleLiteral(pos, text, sign, body, exp);
    default:
      throw invalidConstant(c, t);
  }
}

function doubleLiteral(pos: number, text: string, sign: string, body: string, exp: string | undefined): Literal {
  const value = Number(sign + body + (exp === undefined ? '' : `e${exp}`));
  return { kind: 'literal', pos, type: 'DOUBLE', value, text };
}

function integerLiteral(
  c: Cursor,
  t: Token,
  pos: number,
  text: string,
  abs: bigint,
  negate: boolean,
  long: boolean,
): Literal {
  if (abs > LONG_MAX + (negate ? 1n : 0n)) throw c.error(`number overflow [${t.text}]`, t.pos);
  const type = !long && abs <= BigInt(INT_MAX) ? 'INT' : 'LONG';
  const value = Number(negate ? -abs : abs);
  return { kind: 'literal', pos, type, value, text };
}

function invalidConstant(c: Cursor, t: Token) {
  return c.error(`invalid constant [${t.text}]`, t.pos);
}
