// The parser's token cursor: lookahead, keyword checks (case-insensitive) and
// QuestDB-style errors with the offending token's position. Shared by parse-*.ts.

import { SvcError } from '../errors/svc-error.js';
import { MAX_NESTING, nestingError, type Nested } from './depth-guard.js';
import { tokenize, type Token } from './lexer.js';

/**
 * Words that cannot be a bare column, table or alias name: they start or end clauses.
 * QuestDB lets most other keywords be identifiers (`timestamp`, `offset`, `type`, `to`).
 */
export const RESERVED = new Set([
  'SELECT',
  'FROM',
  'WHERE',
  'LIMIT',
  'UNION',
  'EXCEPT',
  'INTERSECT',
  'HAVING',
  'JOIN',
  'INNER',
  'LEFT',
  'RIGHT',
  'FULL',
  'CROSS',
  'ASOF',
  'SPLICE',
  'OUTER',
  'ON',
  'USING',
  'AS',
  'AND',
  'OR',
  'NOT',
  'IS',
  'IN',
  'BETWEEN',
  'LIKE',
  'ILIKE',
  'WITHIN',
  'WHEN',
  'THEN',
  'ELSE',
  'END',
  'CASE',
  'DISTINCT',
  'WITH',
  'ASC',
  'DESC',
  'BY',
]);

/**
 * QuestDB's SQL keywords (SqlKeywords.KEYWORDS): a table name or a column alias
 * spelled as one of them must be "quoted".
 */
export const SQL_KEYWORDS: ReadonlySet<string> = new Set([
  'ADD',
  'ALIGN',
  'ALL',
  'ALTER',
  'AND',
  'ASC',
  'AS',
  'ATTACH',
  'BATCH',
  'BETWEEN',
  'BYPASS',
  'CANCEL',
  'CASE',
  'CAST',
  'COLUMN',
  'CREATE',
  'DESC',
  'DETACH',
  'DISABLE',
  'DISTINCT',
  'DROP',
  'ENABLE',
  'END',
  'EXCEPT',
  'EXISTS',
  'EXPLAIN',
  'FALSE',
  'FROM',
  'IN',
  'INSERT',
  'INTERSECT',
  'INTO',
  'LIKE',
  'LIMIT',
  'LOCK',
  'NAN',
  'JOIN',
  'NOT',
  'NULL',
  'ON',
  'ORDER',
  'OR',
  'OUTER',
  'OVER',
  'PARTITION',
  'RENAME',
  'RESUME',
  'SAMPLE',
  'SELECT',
  'SET',
  'SQUASH',
  'TABLE',
  'TO',
  'TRUE',
  'UNION',
  'UPDATE',
  'UPSERT',
  'VALUES',
  'WHERE',
  'WITHIN',
  'WITH',
]);

/** QuestDB's error for an unquoted keyword where a table name or alias is wanted. */
export function keywordNameError(t: Token): SvcError {
  return new SvcError(
    'SQL',
    `table and column names that are SQL keywords have to be enclosed in double quotes, such as "${t.text}"`,
    { position: t.pos },
  );
}

/** Clause words that are reserved only before their partner word: `latest` can be a column, `LATEST ON` cannot. */
const SOFT_RESERVED: Readonly<Record<string, readonly string[]>> = {
  LATEST: ['ON', 'BY'],
  SAMPLE: ['BY'],
  GROUP: ['BY'],
  ORDER: ['BY'],
};

/** True when identifier `t` (followed by `next`) is a keyword here rather than a name. */
export function isReserved(t: Token, next: Token): boolean {
  if (RESERVED.has(t.up)) return true;
  const partners = SOFT_RESERVED[t.up];
  return partners !== undefined && next.kind === 'ident' && partners.includes(next.up);
}

/** A position in the token list of one SQL text; the parse-*.ts functions advance it. */
export class Cursor {
  readonly text: string;
  readonly toks: Token[];
  i = 0;
  /** How many nested parse calls (expressions, queries, arrays, parentheses) are open: see enter(). */
  depth = 0;

  constructor(text: string, toks?: Token[]) {
    this.text = text;
    this.toks = toks ?? tokenize(text);
  }

  /** The current token (the eof token once past the end). */
  get tok(): Token {
    return this.toks[this.i] ?? (this.toks[this.toks.length - 1] as Token);
  }

  peek(ahead = 1): Token {
    return this.toks[this.i + ahead] ?? (this.toks[this.toks.length - 1] as Token);
  }

  next(): Token {
    const t = this.tok;
    if (t.kind !== 'eof') this.i++;
    return t;
  }

  atEnd(): boolean {
    return this.tok.kind === 'eof';
  }

  /** Offset just past the previous token (the end of what has been parsed). */
  get prevEnd(): number {
    return this.i > 0 ? (this.toks[this.i - 1] as Token).end : 0;
  }

  isKw(word: string, t: Token = this.tok): boolean {
    return t.kind === 'ident' && t.up === word;
  }

  isKwAt(ahead: number, word: string): boolean {
    return this.isKw(word, this.peek(ahead));
  }

  acceptKw(word: string): boolean {
    if (this.isKw(word)) {
      this.i++;
      return true;
    }
    return false;
  }

  /** Consumes `word` or fails with `'word' expected` at the current token. */
  expectKw(word: string): Token {
    if (!this.isKw(word)) throw this.expected(`'${word.toLowerCase()}'`);
    return this.next();
  }

  isOp(op: string, t: Token = this.tok): boolean {
    return t.kind === 'op' && t.text === op;
  }

  acceptOp(op: string): boolean {
    if (this.isOp(op)) {
      this.i++;
      return true;
    }
    return false;
  }

  expectOp(op: string): Token {
    if (!this.isOp(op)) throw this.expected(`'${op}'`);
    return this.next();
  }

  /** A bare word that can be an alias: not a keyword, not even a soft one (`FROM t group a` wants BY). */
  isAliasWord(): boolean {
    const t = this.tok;
    return t.kind === 'ident' && !RESERVED.has(t.up) && SOFT_RESERVED[t.up] === undefined;
  }

  /** A bare word that may name something here: not a clause keyword. */
  isPlainWord(): boolean {
    const t = this.tok;
    return t.kind === 'ident' && !isReserved(t, this.peek());
  }

  /** An identifier, quoted identifier or (as QuestDB allows for names) a 'string'. */
  isName(): boolean {
    const t = this.tok;
    return this.isPlainWord() || t.kind === 'qident' || t.kind === 'string';
  }

  /** Reads a table, column or alias name; `what` names it in the error. */
  name(what: string): { name: string; pos: number } {
    const t = this.tok;
    if (t.kind === 'ident' || t.kind === 'qident' || t.kind === 'string') {
      if (t.kind === 'ident' && what === 'table name' && SQL_KEYWORDS.has(t.up)) throw keywordNameError(t);
      if (t.kind === 'ident' && isReserved(t, this.peek()))
        throw this.error(`${what} expected, found keyword [${t.text}]`, t.pos);
      if (t.text.length === 0) throw this.error(`${what} expected, found empty name`, t.pos);
      this.i++;
      return { name: t.text, pos: t.pos };
    }
    throw this.expected(what);
  }

  /** After AS: any word (keywords included), a "quoted" or 'quoted' name. */
  alias(): string {
    const t = this.tok;
    if ((t.kind === 'ident' || t.kind === 'qident' || t.kind === 'string') && t.text.length > 0) {
      this.i++;
      return t.text;
    }
    throw this.expected('alias');
  }

  /** A duration or option value as written: `15m`, `-5s`, `1h`, `$1`, or a 'string' (unquoted). */
  duration(what: string): string {
    const t = this.tok;
    if (t.kind === 'number' || t.kind === 'bind') {
      this.i++;
      return this.slice(t.pos, t.end);
    }
    if (t.kind === 'string') {
      this.i++;
      return t.text;
    }
    const n = this.peek();
    if (this.isOp('-') && n.kind === 'number' && n.pos === t.end) {
      this.i += 2;
      return this.slice(t.pos, n.end);
    }
    throw this.expected(what);
  }

  /**
   * Opens one level of nesting at the current token (leave() closes it): the parser's own
   * recursion stays within the depth guard's limit, parentheses included, before any
   * tree is built (depth-guard.ts bounds the tree itself).
   */
  enter(what: Nested = 'expression'): void {
    if (++this.depth > MAX_NESTING) throw nestingError(this.tok.pos, what);
  }

  leave(): void {
    this.depth--;
  }

  /** `'x' expected` at the current token, as QuestDB words it (without what was found instead). */
  expected(what: string): SvcError {
    return this.error(`${what} expected`, this.tok.pos);
  }

  unexpected(t: Token = this.tok): SvcError {
    if (t.kind === 'eof') return this.error('unexpected end of statement', t.pos);
    if (t.kind === 'number' || t.kind === 'string' || t.kind === 'geohash')
      return this.error(`dangling literal [${tokenText(t)}]`, t.pos);
    return this.error(`unexpected token [${tokenText(t)}]`, t.pos);
  }

  error(message: string, position: number): SvcError {
    return new SvcError('SQL', message, { position });
  }

  /** The source text between two offsets (params and options are kept as written). */
  slice(from: number, to: number): string {
    return this.text.slice(from, to);
  }

  /**
   * Skips a balanced run of tokens until one of `stops` (ops or upper-case words) at
   * depth 0, or the end of the statement (`;` at depth 0). Returns the end offset.
   */
  skipUntil(stops: ReadonlySet<string>): number {
    let depth = 0;
    let end = this.tok.pos;
    for (;;) {
      const t = this.tok;
      if (t.kind === 'eof') return end;
      if (
        depth === 0 &&
        ((t.kind === 'op' && (t.text === ';' || stops.has(t.text))) || (t.kind === 'ident' && stops.has(t.up)))
      )
        return end;
      if (t.kind === 'op') {
        if (t.text === '(' || t.text === '[') depth++;
        else if (t.text === ')' || t.text === ']') {
          if (depth === 0) return end;
          depth--;
        }
      }
      end = t.end;
      this.i++;
    }
  }
}

/** A token as quoted in error messages, shortened when long. */
export function tokenText(t: Token): string {
  const text = t.text.length > 60 ? `${t.text.slice(0, 57)}...` : t.text;
  switch (t.kind) {
    case 'string':
      return `'${text}'`;
    case 'qident':
      return `"${text}"`;
    default:
      return text;
  }
}

export const NO_STOPS: ReadonlySet<string> = new Set();

/**
 * Thrown from deep inside a statement (a DECLARE block in a subquery) to make the whole
 * statement an Unsupported node; parseStatement catches it. Never escapes the parser.
 */
export class UnsupportedSignal extends Error {
  readonly what: string;
  readonly pos: number;

  constructor(what: string, pos: number) {
    super(`${what} is not supported`);
    this.what = what;
    this.pos = pos;
  }
}

/** Readonly AST nodes are assembled field by field while parsing. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };
