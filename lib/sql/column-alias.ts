// The names of result columns no alias names: QuestDB 9 names an expression after its
// normalised text (`x + 1`, `'a'::symbol`, `-(1)`, `count()`), quoted when it holds a dot,
// cut to 64 characters and made unique with `_2`, `_3`; the older style (function or
// column name, `column` for operators) with cairo.sql.column.alias.expression.enabled=false.
import type { Config } from '../config/config.js';
import type * as A from './ast.js';

/** How the binder names unaliased columns (server.conf cairo.sql.column.alias.*). */
export interface ColumnNaming {
  /** QuestDB 9's expression text (true) or the older name of the function or column (false). */
  readonly expressions: boolean;
  /** Longest generated name, in UTF-16 units (cairo.sql.column.alias.generated.max.size). */
  readonly maxLength: number;
}

export const DEFAULT_COLUMN_NAMING: ColumnNaming = { expressions: true, maxLength: 64 };

/** The naming server.conf asks for. */
export function columnNamingFromConfig(config: Config): ColumnNaming {
  return {
    expressions: config.get('cairo.sql.column.alias.expression.enabled'),
    maxLength: config.get('cairo.sql.column.alias.generated.max.size'),
  };
}

/** One column of a SELECT list: an expression with its alias, or a column a `*` expanded to. */
export interface NamedItem {
  readonly expr: A.Expr;
  readonly alias: string | null;
  readonly star: boolean;
}

/**
 * The names of a SELECT list's columns, as QuestDB gives them: the written aliases first
 * (a repeated one numbered), then each unaliased expression named after its text (or, older
 * style, its function) and made unique among the names so far; columns from `*` come last,
 * made unique with a plain number (`k1`) as QuestDB's expansion of `*` does. Names are unique
 * without regard to case. `sql` is the statement's text, where the nodes' offsets point.
 */
export function selectColumnNames(items: readonly NamedItem[], naming: ColumnNaming, sql: string | null): string[] {
  const taken = new Set<string>();
  const names: string[] = new Array<string>(items.length);
  const give = (i: number, name: string): void => {
    taken.add(name.toLowerCase());
    names[i] = name;
  };
  for (let i = 0; i < items.length; i++) {
    const alias = items[i]!.alias;
    if (alias !== null) give(i, taken.has(alias.toLowerCase()) ? numberedName(alias, taken) : alias);
  }
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    if (it.star || it.alias !== null) continue;
    give(
      i,
      naming.expressions ? expressionAlias(it.expr, naming.maxLength, taken, sql) : legacyAlias(it.expr, taken, sql),
    );
  }
  for (let i = 0; i < items.length; i++) {
    const it = items[i]!;
    if (!it.star) continue;
    const base = it.expr.kind === 'column' ? it.expr.name : 'column';
    give(i, taken.has(base.toLowerCase()) ? numberedName(base, taken) : base);
  }
  return names;
}

/** `base1`, `base2`, ...: the first not taken (QuestDB's older rule, and its `*` expansion). */
function numberedName(base: string, taken: ReadonlySet<string>): string {
  for (let n = 1; ; n++) {
    const name = `${base}${n}`;
    if (!taken.has(name.toLowerCase())) return name;
  }
}

// ---------------------------------------------------------------- QuestDB 9's expression names

/**
 * The generated name of an unaliased expression: a column keeps its name (without a table
 * prefix); anything else is its normalised text, in double quotes when it holds a dot or is
 * an operator's symbol alone. Longer than `maxLength` it is cut (never ending in a space
 * unless quoted); taken already, `_2`, `_3`, ... is added within the length.
 */
export function expressionAlias(
  e: A.Expr,
  maxLength: number,
  taken: ReadonlySet<string>,
  sql: string | null = null,
): string {
  const column = e.kind === 'column';
  const base = column ? e.name : expressionText(e, sql);
  const quote =
    !column && !isDoubleQuoted(base) && (lastUnquotedDot(base) >= 0 || OPERATOR_TOKENS.has(base.toLowerCase()));
  const baseLen = base.length;
  if (
    !quote &&
    !taken.has(base.toLowerCase()) &&
    baseLen > 0 &&
    baseLen <= maxLength &&
    base.charAt(baseLen - 1) !== ' '
  )
    return base;
  let len = quote ? baseLen + 2 : baseLen;
  for (let seq = 1; ; seq++) {
    const seqSize = seq > 1 ? String(seq).length + 1 : 0;
    len = Math.max(1, Math.min(len, maxLength - seqSize - (quote ? 1 : 0)));
    if (!quote && base.charAt(len - 1) === ' ') {
      // Not ending in a space: back to the last other character, if there is one.
      let last = len - 1;
      while (last >= 0 && base.charAt(last) === ' ') last--;
      if (last > 0) len = last + 1;
    }
    let alias = quote ? `"${base.slice(0, len - 2)}` : base.slice(0, len);
    if (seq > 1) alias += `_${seq}`;
    if (quote) alias += '"';
    if (!taken.has(alias.toLowerCase())) return alias;
  }
}

/** Starts and ends with a double quote. */
function isDoubleQuoted(s: string): boolean {
  return s.length > 1 && s.charAt(0) === '"' && s.charAt(s.length - 1) === '"';
}

/** The offset of the last `.` outside double quotes, or -1. */
function lastUnquotedDot(s: string): number {
  let inQuote = false;
  let last = -1;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) inQuote = !inQuote;
    else if (c === 46 && !inQuote) last = i;
  }
  return last;
}

/** QuestDB's operator symbols: a name equal to one of them (or empty) is quoted. */
const OPERATOR_TOKENS: ReadonlySet<string> = new Set([
  '',
  ':=',
  '-',
  '~',
  'not',
  '.',
  '::',
  '*',
  '/',
  '%',
  '+',
  '<<',
  '>>',
  '<<=',
  '>>=',
  '||',
  '&',
  '^',
  '|',
  'in',
  'between',
  'within',
  '<',
  '<=',
  '>',
  '>=',
  '=',
  '!=',
  '<>',
  '!~',
  'like',
  'ilike',
  'and',
  'or',
]);

// QuestDB's operator precedences (smaller binds tighter), which decide the parentheses.
const PREC_UNARY = 3;
const PREC_SET = 11;
const PREC_EQ = 13;
const PREC_NOT = 14;
const BINARY_PREC: Readonly<Record<string, number>> = {
  '*': 4,
  '/': 4,
  '%': 4,
  '+': 5,
  '-': 5,
  '<<': 6,
  '>>': 6,
  '<<=': 6,
  '>>=': 6,
  '&': 8,
  '^': 9,
  '|': 10,
  '<': 12,
  '<=': 12,
  '>': 12,
  '>=': 12,
  '=': PREC_EQ,
  '!=': PREC_EQ,
  '<>': PREC_EQ,
  '~': PREC_EQ,
  '!~': PREC_EQ,
  LIKE: PREC_EQ,
  ILIKE: PREC_EQ,
  AND: 15,
  OR: 16,
};

/** Rendered text, the precedence of its outermost operator (0: not an operator), and whether it is a CASE. */
interface Rendered {
  readonly text: string;
  readonly prec: number;
  readonly isCase?: boolean;
}

/**
 * QuestDB's normalised text of an expression (its ExpressionNode.toSink after the parser's
 * rewrites): operators spaced with only the parentheses precedence needs, unary operators
 * and NOT as calls (`-(x)`, `not(x)`), `||` as concat(), casts as `x::type`, IS NULL as
 * `= null`, IN and BETWEEN as `x in (a, b)`, `x between (a, b)`, count(*) as count(), CASE
 * over one column's values as switch(), literals and names as written, no OVER clause.
 */
export function expressionText(e: A.Expr, sql: string | null = null): string {
  return new Renderer(sql).render(e).text;
}

class Renderer {
  readonly #sql: string | null;

  constructor(sql: string | null) {
    this.#sql = sql;
  }

  render(e: A.Expr): Rendered {
    switch (e.kind) {
      case 'literal':
        // A folded minus is QuestDB's unary minus on the number.
        if (e.text.startsWith('-') && e.type !== 'STRING' && e.type !== 'CHAR')
          return { text: `-(${e.text.slice(1).trimStart()})`, prec: PREC_UNARY };
        return { text: e.text, prec: 0 };
      case 'column':
        return { text: e.table === null ? e.name : `${e.table}.${e.name}`, prec: 0 };
      case 'starArg':
        return { text: '*', prec: 0 };
      case 'bindVar':
        return { text: e.name, prec: 0 };
      case 'unary':
        if (e.op === '+') return this.render(e.arg);
        if (e.op === 'NOT') return { text: `not(${this.render(e.arg).text})`, prec: PREC_NOT };
        return { text: `${e.op}(${this.render(e.arg).text})`, prec: PREC_UNARY };
      case 'binary':
        return this.binary(e);
      case 'call':
        return { text: this.call(e), prec: 0 };
      case 'cast':
        return { text: this.cast(e), prec: 0 };
      case 'case':
        return this.caseExpr(e);
      case 'in': {
        const items =
          e.query !== null
            ? [{ text: this.subqueryText(e.query.pos), prec: 0 }]
            : (e.list ?? []).map((x) => this.render(x));
        const inner = this.setOp(this.render(e.expr), 'in', items);
        return e.not ? { text: `not(${inner.text})`, prec: PREC_NOT } : inner;
      }
      case 'between': {
        const inner = {
          text: `${this.render(e.expr).text} between (${this.render(e.lo).text}, ${this.render(e.hi).text})`,
          prec: PREC_SET,
        };
        return e.not ? { text: `not(${inner.text})`, prec: PREC_NOT } : inner;
      }
      case 'isNull':
        return this.operator(e.not ? '!=' : '=', PREC_EQ, this.render(e.expr), { text: 'null', prec: 0 });
      case 'subquery':
        return { text: this.subqueryText(e.query.pos), prec: 0 };
      case 'array':
        return { text: `ARRAY[${e.items.map((x) => this.render(x).text).join(', ')}]`, prec: 0 };
      case 'subscript': {
        const target = this.render(e.expr).text;
        if (e.index.length === 1) return { text: `${target}[${this.render(e.index[0]!).text}]`, prec: 0 };
        return { text: `[](${[target, ...e.index.map((x) => this.render(x).text)].join(', ')})`, prec: 0 };
      }
      case 'slice':
        return {
          text: `${e.lo === null ? '' : this.render(e.lo).text}:${e.hi === null ? '' : this.render(e.hi).text}`,
          prec: 0,
        };
    }
  }

  /** A subquery as written, with its parentheses (QuestDB writes its query model instead). */
  subqueryText(start: number): string {
    const sql = this.#sql;
    if (sql === null) return '(select)';
    let open = start - 1;
    while (open >= 0 && sql.charAt(open) !== '(') open--;
    let depth = 0;
    for (let i = open; i < sql.length; i++) {
      const c = sql.charAt(i);
      if (c === "'" || c === '"') {
        const close = sql.indexOf(c, i + 1);
        if (close < 0) break;
        i = close;
      } else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) return sql.slice(open, i + 1).replace(/\s+/g, ' ');
    }
    return '(select)';
  }

  /** `l op r`, each side in parentheses when its operator binds looser (the right side: or as loose). */
  operator(op: string, prec: number, l: Rendered, r: Rendered): Rendered {
    const lt = l.prec > prec ? `(${l.text})` : l.text;
    const rt = r.prec > 0 && r.prec >= prec ? `(${r.text})` : r.text;
    return { text: `${lt} ${op} ${rt}`, prec };
  }

  /** IN / WITHIN: one value as an operator's operand, more as a list. */
  setOp(target: Rendered, op: string, items: readonly Rendered[]): Rendered {
    if (items.length === 1) return this.operator(op, PREC_SET, target, items[0]!);
    return { text: `${target.text} ${op} (${items.map((x) => x.text).join(', ')})`, prec: PREC_SET };
  }

  binary(e: A.Binary): Rendered {
    switch (e.op) {
      case '||': {
        const args: string[] = [];
        this.concatArgs(e, args);
        return { text: `concat(${args.join(', ')})`, prec: 0 };
      }
      case 'NOT LIKE':
      case 'NOT ILIKE':
        return {
          text: `not(${this.operator(e.op.slice(4).toLowerCase(), PREC_EQ, this.render(e.left), this.render(e.right)).text})`,
          prec: PREC_NOT,
        };
      case 'WITHIN': {
        const items = e.right.kind === 'array' ? e.right.items.map((x) => this.render(x)) : [this.render(e.right)];
        return this.setOp(this.render(e.left), 'within', items);
      }
      case 'AND':
      case 'OR':
        return this.run(e);
      default: {
        const prec = BINARY_PREC[e.op] ?? PREC_EQ;
        // The tree spells '<>' as '!=': QuestDB keeps the operator as written.
        const op = e.op === '!=' && this.#sql?.startsWith('<>', e.pos) ? '<>' : e.op.toLowerCase();
        return this.operator(op, prec, this.render(e.left), this.render(e.right));
      }
    }
  }

  /**
   * A run of AND (or OR): the parser builds long runs as balanced trees, QuestDB as a chain,
   * so a right operand of the same operator is part of the chain unless it was written in
   * parentheses.
   */
  run(e: A.Binary): Rendered {
    const prec = BINARY_PREC[e.op]!;
    const op = e.op.toLowerCase();
    const terms: A.Expr[] = [];
    const collect = (x: A.Expr, right: boolean): void => {
      if (x.kind === 'binary' && x.op === e.op && !(right && this.parenthesized(x))) {
        collect(x.left, false);
        collect(x.right, true);
      } else {
        terms.push(x);
      }
    };
    collect(e, false);
    let acc = this.render(terms[0]!);
    for (let i = 1; i < terms.length; i++) acc = this.operator(op, prec, acc, this.render(terms[i]!));
    return acc;
  }

  /** Whether the source has `(` just before the expression's first character. */
  parenthesized(e: A.Expr): boolean {
    const sql = this.#sql;
    if (sql === null) return false;
    let i = startOf(e) - 1;
    while (i >= 0 && /\s/.test(sql.charAt(i))) i--;
    return i >= 0 && sql.charAt(i) === '(';
  }

  /** `a || b || concat(c, d)` is concat(a, b, c, d). */
  concatArgs(e: A.Expr, out: string[]): void {
    if (e.kind === 'binary' && e.op === '||') {
      this.concatArgs(e.left, out);
      this.concatArgs(e.right, out);
    } else if (e.kind === 'call' && e.name === 'concat' && e.over === null && e.args.length > 0) {
      for (const a of e.args) out.push(this.render(a).text);
    } else {
      out.push(this.render(e).text);
    }
  }

  /** A function name as written (the tree keeps it in lower case). */
  callName(e: A.Call): string {
    const written = this.#sql?.slice(e.pos, e.pos + e.name.length);
    return written !== undefined && written.toLowerCase() === e.name ? written : e.name;
  }

  call(e: A.Call): string {
    let name = this.callName(e);
    const args = e.args;
    if (args.length === 1 && args[0]!.kind === 'starArg' && e.name === 'count') return `${name}()`;
    if (e.distinct)
      name =
        e.name === 'count' ? 'count_distinct' : e.name === 'string_agg' ? 'string_distinct_agg' : `${name}_distinct`;
    return `${name}(${args.map((a) => this.render(a).text).join(', ')})`;
  }

  cast(e: A.Cast): string {
    const inner = this.render(e.expr);
    const lhs = inner.prec > 0 || inner.isCase === true ? `(${inner.text})` : inner.text;
    return `${lhs}::${this.typeText(e)}`;
  }

  /**
   * The type as written: DECIMAL(p, s) as decimal_p_s; after `::`, PostgreSQL's names
   * (float, float8, float4, int2, int4, int8, double precision) as QuestDB's (DOUBLE, FLOAT, ...).
   */
  typeText(e: A.Cast): string {
    const t = e.type;
    const sql = this.#sql;
    let word = t.name.replace(/\[\]/g, '');
    if (sql !== null && sql.slice(t.pos, t.pos + word.length).toUpperCase() === word)
      word = sql.slice(t.pos, t.pos + word.length);
    else word = word.toLowerCase();
    const dims = (t.name.length - t.name.replace(/\[\]/g, '').length) / 2;
    const colonCast = sql !== null && sql.startsWith('::', e.pos);
    if (colonCast) {
      const pg = PG_TYPES[word.toLowerCase()];
      if (pg !== undefined) word = pg;
    }
    let params = '';
    if (t.params !== null)
      params =
        t.name === 'DECIMAL'
          ? `_${t.params
              .split(',')
              .map((p) => p.trim())
              .join('_')}`
          : `(${t.params})`;
    return word + params + '[]'.repeat(dims);
  }

  caseExpr(e: A.Case): Rendered {
    const r = (x: A.Expr): string => this.render(x).text;
    if (e.operand !== null) {
      // CASE x WHEN ...: QuestDB's switch(x, value, result, ..., else).
      const parts = [r(e.operand)];
      for (const w of e.whens) parts.push(r(w.when), r(w.then));
      if (e.else !== null) parts.push(r(e.else));
      return { text: `switch(${parts.join(', ')})`, prec: 0 };
    }
    const sw = switchOf(e);
    if (sw !== null) {
      const parts = [r(sw.column)];
      for (let i = 0; i < e.whens.length; i++) parts.push(r(sw.values[i]!), r(e.whens[i]!.then));
      parts.push(e.else === null ? 'null' : r(e.else));
      return { text: `switch(${parts.join(', ')})`, prec: 0 };
    }
    let text = 'case';
    for (const w of e.whens) text += ` when ${r(w.when)} then ${r(w.then)}`;
    if (e.else !== null) text += ` else ${r(e.else)}`;
    return { text: `${text} end`, prec: 0, isCase: true };
  }
}

const PG_TYPES: Readonly<Record<string, string>> = {
  float: 'DOUBLE',
  float8: 'DOUBLE',
  float4: 'FLOAT',
  int4: 'INT',
  int8: 'LONG',
  int2: 'SHORT',
};

/** A literal QuestDB's parser takes as a constant (not a column, operator or call). */
function isConstant(e: A.Expr): boolean {
  return e.kind === 'literal' && !e.text.startsWith('-');
}

/**
 * `CASE WHEN c = 1 THEN ... WHEN c = 2 THEN ...`, every WHEN comparing the same column (as
 * written) with a constant: QuestDB turns it into switch(c, 1, ..., 2, ..., else).
 */
function switchOf(e: A.Case): { column: A.ColumnRef; values: A.Expr[] } | null {
  let column: A.ColumnRef | null = null;
  const values: A.Expr[] = [];
  for (const w of e.whens) {
    const c = w.when;
    if (c.kind !== 'binary' || c.op !== '=') return null;
    let col: A.Expr;
    let value: A.Expr;
    if (c.left.kind === 'column' && isConstant(c.right)) {
      col = c.left;
      value = c.right;
    } else if (isConstant(c.left) && c.right.kind === 'column') {
      col = c.right;
      value = c.left;
    } else {
      return null;
    }
    const ref = col;
    if (column === null) column = ref;
    else if (columnToken(column) !== columnToken(ref)) return null;
    values.push(value);
  }
  return column === null ? null : { column, values };
}

function columnToken(c: A.ColumnRef): string {
  return c.table === null ? c.name : `${c.table}.${c.name}`;
}

/** The offset where an expression's text starts (binary nodes sit at their operator). */
function startOf(e: A.Expr): number {
  let x: A.Expr = e;
  for (;;) {
    switch (x.kind) {
      case 'binary':
        x = x.left;
        continue;
      case 'in':
      case 'between':
      case 'isNull':
      case 'subscript':
        x = x.expr;
        continue;
      case 'cast':
        if (x.expr.pos < x.pos) {
          x = x.expr;
          continue;
        }
        return x.pos;
      default:
        return x.pos;
    }
  }
}

// ---------------------------------------------------------------- the older style

/**
 * The older name (cairo.sql.column.alias.expression.enabled=false): a column's name, a
 * function's name (`count`, `cast`, `case`, `concat`), a literal as written without its
 * quotes, `column` for operators (and numbers already taken), `column1`, `column2`, ... for
 * constants with a dot; made unique with a plain number.
 */
export function legacyAlias(e: A.Expr, taken: ReadonlySet<string>, sql: string | null = null): string {
  const token = legacyToken(e, sql);
  if (token === null) return constantName(taken);
  const operator = token !== '' && OPERATOR_TOKENS.has(token.toLowerCase());
  if (token !== '' && !operator && !taken.has(token.toLowerCase())) return token;
  const base = token === '' || operator || isInt(token) ? 'column' : token;
  if (!taken.has(base.toLowerCase())) return base;
  return numberedName(base, taken);
}

/** The node's token in QuestDB's tree; null for a constant with a dot (named column1, column2, ...). */
function legacyToken(e: A.Expr, sql: string | null): string | null {
  switch (e.kind) {
    case 'column':
      return e.name;
    case 'literal': {
      if (e.text.startsWith('-') && e.type !== 'STRING') return '-';
      if (lastUnquotedDot(e.text) >= 0) return null;
      const t = e.text;
      return t.length > 1 && (t.startsWith("'") || t.startsWith('"')) && t.endsWith(t.charAt(0)) ? t.slice(1, -1) : t;
    }
    case 'call': {
      const name = new Renderer(sql).callName(e);
      if (e.distinct && e.name === 'count') return 'count_distinct';
      return e.nulls === 'IGNORE' && e.over !== null ? `${name}_ignore_nulls` : name;
    }
    case 'cast':
      return 'cast';
    case 'case':
      return e.operand !== null || switchOf(e) !== null ? 'switch' : 'case';
    case 'binary':
      if (e.op === '||') return 'concat';
      if (e.op.startsWith('NOT ')) return 'not';
      return e.op === '!=' && sql?.startsWith('<>', e.pos) ? '<>' : e.op.toLowerCase();
    case 'unary':
      return e.op === '+' ? legacyToken(e.arg, sql) : e.op.toLowerCase();
    case 'in':
      return e.not ? 'not' : 'in';
    case 'between':
      return e.not ? 'not' : 'between';
    case 'isNull':
      return e.not ? '!=' : '=';
    case 'array':
      return 'ARRAY';
    case 'subscript':
      return '[]';
    case 'bindVar':
      return e.name;
    case 'starArg':
      return '*';
    case 'subquery':
    case 'slice':
      return '';
  }
}

/** Whether the text is an INT number (QuestDB names a repeated one `column`). */
function isInt(t: string): boolean {
  if (!/^[-+]?\d+$/.test(t)) return false;
  const v = Number(t);
  return v >= -2147483647 && v <= 2147483647;
}

/** `column1`, `column2`, ...: the first not taken. */
function constantName(taken: ReadonlySet<string>): string {
  return numberedName('column', taken);
}
