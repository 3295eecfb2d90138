// The SQL parser's entry points: parseStatement / parseScript turn QuestDB-dialect
// SQL into the syntax tree of ast.ts (recursive descent; see parse-*.ts), for the binder.
// Every failure is an SvcError('SQL') carrying the offending token's position.

import type { CancelQuery, Explain, Parsed, Statement, Unsupported } from './ast.js';
import { SvcError } from '../errors/svc-error.js';
import { checkSyntaxDepth } from './depth-guard.js';
import { Cursor, UnsupportedSignal } from './parse-cursor.js';
import { expandDeclarations, type Declared } from './declare.js';
import { tokenize } from './lexer.js';
import {
  parseAlterTable,
  parseCreateTable,
  parseCreateView,
  parseDropTable,
  parseMaintenance,
  parseRenameTable,
  parseTruncate,
  parseViewCommand,
} from './parse-ddl.js';
import { parseCtes, parseQuery, parseQueryWith } from './parse-query.js';
import { parseCreateLiveView, parseLiveViewCommand } from './parse-live-view.js';
import { parseCreateMatView, parseMatViewCommand } from './parse-matview.js';
import { parseInsert, parseShow, parseUpdate } from './parse-statement.js';
import { parseCopy } from './parse-copy.js';

/**
 * Statements QuestDB has that svcdb recognises but does not run: parsed as Unsupported.
 * (DELETE is not one: QuestDB has no DELETE, so `delete from t` is the table `delete`
 * followed by an unexpected FROM, as QuestDB answers it.)
 */
const UNSUPPORTED = new Set([
  'GRANT',
  'REVOKE',
  'BACKUP',
  'CHECKPOINT',
  'SNAPSHOT',
  'CANCEL',
  'REFRESH',
  'COMPILE',
  'ASSUME',
  'EXIT',
  'SWITCH',
  'ADD',
  'REMOVE',
  'BEGIN',
  'COMMIT',
  'ROLLBACK',
  'SET',
  'RESET',
  'DISCARD',
  'DEALLOCATE',
  'PREPARE',
  'EXECUTE',
  'LISTEN',
  'UNLISTEN',
  'CLOSE',
  'FETCH',
  'VALUES',
  'RESUME',
  'SUSPEND',
  'LOCK',
  'UNLOCK',
  'MERGE',
  'CALL',
  'DO',
]);

/** Words that continue the leading keywords of an Unsupported statement (`CREATE MATERIALIZED VIEW`). */
const OBJECT_WORDS = new Set([
  'OR',
  'REPLACE',
  'MATERIALIZED',
  'LIVE',
  'VIEW',
  'USER',
  'GROUP',
  'SERVICE',
  'ACCOUNT',
  'QUERY',
  'ROLE',
]);

/**
 * Parses exactly one statement; trailing `;`s are allowed, anything after them is an error.
 * The tree is at most MAX_NESTING nodes deep (depth-guard.ts), so later stages may recurse over it.
 * @throws SvcError (code SQL) with the position of the offending token.
 */
export function parseStatement(text: string, opts: ParseOptions = {}): Parsed {
  return parseWithOverrides(text, opts.overrides).stmt;
}

/**
 * A view's query with the reading statement's variables (`overrides`: name -> value text), and
 * the text its nodes' offsets point into: the query's text, then each value's after it.
 */
export function parseWithOverrides(
  text: string,
  overrideTexts?: ReadonlyMap<string, string>,
): { stmt: Parsed; text: string } {
  let full = text;
  let overrides: Map<string, Declared> | undefined;
  if (overrideTexts !== undefined && overrideTexts.size > 0) {
    overrides = new Map();
    for (const [name, value] of overrideTexts) {
      const offset = full.length + 1;
      full += `\n${value}`;
      const tokens = tokenize(value)
        .filter((t) => t.kind !== 'eof')
        .map((t) => ({ ...t, pos: t.pos + offset, end: t.end + offset }));
      overrides.set(name, { tokens, overridable: true });
    }
  }
  const expanded = expandDeclarations(tokenize(text), overrides);
  const c = new Cursor(full, expanded.toks);
  // Only whitespace and comments (QuestDB: "empty query" at 0); a lone `;` is no statement either.
  if (c.atEnd()) throw new SvcError('SQL', 'empty query', { position: 0 });
  if (c.isOp(';')) throw new SvcError('SQL', 'empty statement', { position: c.tok.pos });
  const stmt = parseOne(c);
  while (c.acceptOp(';'));
  if (!c.atEnd()) throw c.unexpected();
  return { stmt: expanded.declared.size > 0 ? { ...stmt, variables: expanded.declared } : stmt, text: full };
}

export interface ParseOptions {
  /**
   * Values (as text) for the variables the text's outermost DECLARE gives (a view's query, read
   * by a statement that declares them): used when the view marks them OVERRIDABLE, an error otherwise.
   */
  readonly overrides?: ReadonlyMap<string, string>;
}

/**
 * Parses statements separated by `;` (empty statements are skipped).
 * @throws SvcError (code SQL) at the first syntax error.
 */
export function parseScript(text: string): Statement[] {
  const c = new Cursor(text, expandDeclarations(tokenize(text)).toks);
  const out: Statement[] = [];
  for (;;) {
    while (c.acceptOp(';'));
    if (c.atEnd()) return out;
    out.push(parseOne(c));
    if (!c.atEnd() && !c.isOp(';')) throw c.unexpected();
  }
}

/**
 * One statement at the cursor, up to (not including) its `;`, no deeper than the depth
 * guard allows. Converts the internal signal into an Unsupported node.
 */
function parseOne(c: Cursor): Statement {
  const start = c.i;
  const depth = c.depth;
  let stmt: Statement;
  try {
    stmt = parseDispatch(c);
  } catch (e) {
    if (!(e instanceof UnsupportedSignal)) throw e;
    c.i = start;
    c.depth = depth;
    skipStatement(c);
    return { kind: 'unsupported', pos: e.pos, what: e.what };
  }
  // The parser bounds its own recursion (Cursor.enter); chains it builds in loops (`1+1+...`,
  // `x::a::b...`, joins) can still make a tree deeper than that, which is measured here.
  if (depth === 0) checkSyntaxDepth(stmt);
  return stmt;
}

function parseDispatch(c: Cursor): Statement {
  const t = c.tok;
  if (t.kind === 'ident') {
    const second = c.peek();
    switch (t.up) {
      case 'SELECT':
        return { kind: 'query', pos: t.pos, query: parseQuery(c) };
      case 'WITH': {
        const ctes = parseCtes(c);
        if (c.isKw('INSERT')) return { ...parseInsert(c), pos: t.pos, with: ctes };
        if (c.isKw('UPDATE')) return { ...parseUpdate(c), pos: t.pos, with: ctes };
        if (!c.isKw('SELECT') && !c.isOp('(')) throw c.expected("'select' | 'update' | 'insert'");
        return { kind: 'query', pos: t.pos, query: parseQueryWith(c, ctes) };
      }
      case 'CREATE':
        if (c.isKw('TABLE', second) || c.isKw('ATOMIC', second) || c.isKw('BATCH', second)) return parseCreateTable(c);
        if (c.isKw('VIEW', second) || (c.isKw('OR', second) && c.isKwAt(2, 'REPLACE') && c.isKwAt(3, 'VIEW')))
          return parseCreateView(c);
        if (c.isKw('MATERIALIZED', second)) return parseCreateMatView(c);
        if (c.isKw('LIVE', second) && c.isKwAt(2, 'VIEW')) return parseCreateLiveView(c);
        return unsupported(c);
      case 'DROP':
        if (c.isKw('TABLE', second) || (c.isKw('ALL', second) && c.isKwAt(2, 'TABLES'))) return parseDropTable(c);
        if (c.isKw('VIEW', second)) return parseViewCommand(c);
        if (c.isKw('MATERIALIZED', second)) return parseMatViewCommand(c);
        if (c.isKw('LIVE', second) && c.isKwAt(2, 'VIEW')) return parseLiveViewCommand(c);
        return unsupported(c);
      case 'ALTER':
        if (c.isKw('TABLE', second)) return parseAlterTable(c);
        if (c.isKw('VIEW', second)) return parseCreateView(c);
        if (c.isKw('MATERIALIZED', second)) return parseMatViewCommand(c);
        if (c.isKw('LIVE', second) && c.isKwAt(2, 'VIEW')) return parseLiveViewCommand(c);
        return unsupported(c);
      case 'REFRESH':
        if (c.isKw('MATERIALIZED', second)) return parseMatViewCommand(c);
        return unsupported(c);
      case 'COMPILE':
        if (c.isKw('VIEW', second)) return parseViewCommand(c);
        return unsupported(c);
      case 'TRUNCATE':
        return parseTruncate(c);
      case 'RENAME':
        if (c.isKw('TABLE', second)) return parseRenameTable(c);
        return unsupported(c);
      case 'INSERT':
        return parseInsert(c);
      case 'UPDATE':
        return parseUpdate(c);
      case 'SHOW':
        return parseShow(c);
      case 'EXPLAIN':
        return parseExplain(c);
      case 'REINDEX':
      case 'VACUUM':
        return parseMaintenance(c);
      case 'CANCEL':
        if (c.isKw('QUERY', second)) return parseCancelQuery(c);
        return unsupported(c);
      case 'COPY':
        // Enterprise's COPY PERMISSIONS FROM user TO user is not an import.
        if (c.isKw('PERMISSIONS', second) && c.peek(3).kind !== 'string') return unsupported(c);
        return parseCopy(c);
    }
    if (UNSUPPORTED.has(t.up)) return unsupported(c);
  }
  if (t.kind === 'ident' || t.kind === 'qident' || t.kind === 'string' || c.isOp('(')) {
    return { kind: 'query', pos: t.pos, query: parseQuery(c) };
  }
  throw c.unexpected();
}

function parseExplain(c: Cursor): Explain {
  c.enter('statement');
  const t = c.next();
  let format: string | null = null;
  if (c.isOp('(') && c.isKw('FORMAT', c.peek())) {
    c.i += 2;
    const f = c.tok;
    if (f.kind !== 'ident') throw c.expected('explain format');
    c.next();
    format = f.up;
    c.expectOp(')');
  }
  if (c.atEnd() || c.isOp(';')) throw c.expected('statement');
  const statement = parseOne(c);
  c.leave();
  return format === null
    ? { kind: 'explain', pos: t.pos, statement }
    : { kind: 'explain', pos: t.pos, statement, format };
}

/** CANCEL QUERY id: a non-negative integer literal. */
function parseCancelQuery(c: Cursor): CancelQuery {
  const t = c.next();
  c.next();
  const idTok = c.tok;
  const id = idTok.kind === 'number' && /^[0-9]+$/.test(idTok.text) ? Number(idTok.text) : NaN;
  if (!Number.isSafeInteger(id)) throw c.error('non-negative integer literal expected as query id', idTok.pos);
  c.next();
  return { kind: 'cancelQuery', pos: t.pos, id, idPos: idTok.pos };
}

/** The leading keywords become `what`; the rest of the statement is skipped unparsed. */
function unsupported(c: Cursor): Unsupported {
  const t = c.next();
  const words = [t.up];
  while (c.tok.kind === 'ident' && OBJECT_WORDS.has(c.tok.up)) words.push(c.next().up);
  skipStatement(c);
  return { kind: 'unsupported', pos: t.pos, what: words.join(' ') };
}

/** Skips to the `;` that ends the statement (at parenthesis depth 0) or the end of the text. */
function skipStatement(c: Cursor): void {
  let depth = 0;
  while (!c.atEnd()) {
    const t = c.tok;
    if (t.kind === 'op') {
      if (t.text === '(') depth++;
      else if (t.text === ')' && depth > 0) depth--;
      else if (t.text === ';' && depth === 0) return;
    }
    c.i++;
  }
}
