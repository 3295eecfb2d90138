// DECLARE variables: `DECLARE @x := expr, OVERRIDABLE @y := expr SELECT ...`. QuestDB resolves
// them before compiling (its documentation: "the variable is no longer present when the query
// is compiled"), so this is a pass over the tokens before the parser sees them: each DECLARE
// block is removed, and every `@name` in its scope becomes the tokens of its value. A block's
// scope is the rest of the query it starts: up to the `)` that closes the parentheses it is in,
// or the statement's end. An inner block shadows an outer one for its own scope only. A value
// of more than one token that is not already one parenthesized group is put in parentheses,
// so that `@x * 2` with `@x := 1 + 2` is 6, as an expression variable is.
//
// A view's stored query may declare variables too; the statement that reads the view may give
// its own values for those the view marks OVERRIDABLE (`overrides`), and fails on the others.
import { SvcError } from '../errors/svc-error.js';
import type { Token } from './lexer.js';

/** A variable a statement's outermost DECLARE gave: its value's tokens and whether a view lets it be overridden. */
export interface Declared {
  readonly tokens: readonly Token[];
  readonly overridable: boolean;
}

export interface Expanded {
  /** The tokens with every DECLARE block removed and every variable replaced (the eof token kept last). */
  readonly toks: Token[];
  /** The variables of the statement's outermost DECLARE (depth 0), by name with its `@`, lower-cased. */
  readonly declared: ReadonlyMap<string, Declared>;
}

interface Scope {
  readonly depth: number;
  readonly vars: Map<string, Declared>;
}

const QUERY_WORDS = new Set(['SELECT', 'WITH']);

/** Cheap test first: most statements have no `@`, and their tokens are returned as they are. */
export function hasDeclare(toks: readonly Token[]): boolean {
  for (const t of toks) if (t.kind === 'bind' && t.text.charCodeAt(0) === 64) return true;
  return false;
}

/**
 * Removes DECLARE blocks and replaces the variables they declare. `overrides`: values for the
 * outermost block's variables (a view's query read by a statement that declares them).
 * @throws SvcError (SQL) with the position of a malformed declaration or of a variable that
 * is not overridable.
 */
export function expandDeclarations(toks: Token[], overrides?: ReadonlyMap<string, Declared>): Expanded {
  const declared = new Map<string, Declared>();
  if (!hasDeclare(toks)) return { toks, declared };
  const out: Token[] = [];
  const scopes: Scope[] = [];
  let depth = 0;
  let i = 0;
  const lookup = (name: string): Declared | undefined => {
    for (let s = scopes.length - 1; s >= 0; s--) {
      const v = scopes[s]!.vars.get(name);
      if (v) return v;
    }
    return undefined;
  };
  /** Appends `t`, or a variable's value in its place. */
  const emit = (t: Token, into: Token[]): void => {
    if (t.kind === 'bind' && t.text.charCodeAt(0) === 64) {
      const v = lookup(t.text.toLowerCase());
      if (v) {
        into.push(...wrapped(v.tokens, t));
        return;
      }
    }
    into.push(t);
  };
  while (i < toks.length) {
    const t = toks[i]!;
    if (t.kind === 'op' && t.text === '(') depth++;
    else if (t.kind === 'op' && t.text === ')') {
      while (scopes.length > 0 && scopes[scopes.length - 1]!.depth >= depth) scopes.pop();
      depth--;
    } else if (t.kind === 'op' && t.text === ';' && depth === 0) {
      scopes.length = 0;
    } else if (t.kind === 'ident' && t.up === 'DECLARE') {
      const scope: Scope = { depth, vars: new Map() };
      scopes.push(scope);
      i = declarations(toks, i + 1, scope, (tk, into) => emit(tk, into));
      if (depth === 0 && scopes.length === 1) {
        for (const [name, v] of scope.vars) {
          const o = overrides?.get(name);
          if (o) {
            if (!v.overridable) {
              throw new SvcError('SQL', `variable is not overridable: ${name}`, { position: o.tokens[0]?.pos ?? 0 });
            }
            scope.vars.set(name, { tokens: o.tokens, overridable: true });
          }
          declared.set(name, scope.vars.get(name)!);
        }
      }
      continue;
    }
    emit(t, out);
    i++;
  }
  return { toks: out, declared };
}

/**
 * The bindings of one DECLARE block from `i` (just past the keyword) into `scope`; returns the
 * index of the first token after the block (its query's SELECT or WITH).
 */
function declarations(
  toks: readonly Token[],
  i: number,
  scope: Scope,
  emit: (t: Token, into: Token[]) => void,
): number {
  for (;;) {
    let t = toks[i]!;
    let overridable = false;
    if (t.kind === 'ident' && t.up === 'OVERRIDABLE') {
      overridable = true;
      t = toks[++i]!;
    }
    if (t.kind !== 'bind' || t.text.charCodeAt(0) !== 64) {
      throw new SvcError('SQL', 'variable name expected, such as @x', { position: t.pos });
    }
    const name = t.text.toLowerCase();
    const op = toks[++i]!;
    if (op.kind !== 'op' || op.text !== ':=') {
      throw new SvcError('SQL', 'expected variable assignment operator `:=`', { position: op.pos });
    }
    i++;
    const value: Token[] = [];
    let d = 0;
    let listComma = -1;
    for (; ; i++) {
      const v = toks[i]!;
      if (v.kind === 'eof') break;
      if (v.kind === 'op') {
        if (v.text === '(' || v.text === '[') d++;
        else if (v.text === ')' || v.text === ']') {
          if (d === 0) break;
          d--;
        } else if (v.text === ',') {
          if (d === 0) break;
          if (d === 1 && listComma < 0) listComma = v.pos;
        } else if (v.text === ';' && d === 0) break;
      } else if (d === 0 && v.kind === 'ident' && QUERY_WORDS.has(v.up)) break;
      emit(v, value);
    }
    if (value.length === 0)
      throw new SvcError('SQL', `value expected for variable ${t.text}`, { position: toks[i]!.pos });
    // `(a, b)` is a list, which QuestDB refuses; `(SELECT a, b FROM t)` and `f(a, b)` are not lists.
    if (listComma >= 0 && isGroup(value) && !(value[1]!.kind === 'ident' && QUERY_WORDS.has(value[1]!.up))) {
      throw new SvcError('SQL', 'unexpected bind expression - bracket lists not supported', {
        position: value[0]!.pos,
      });
    }
    scope.vars.set(name, { tokens: value, overridable });
    const next = toks[i]!;
    if (next.kind === 'op' && next.text === ',') {
      i++;
      continue;
    }
    if (next.kind === 'ident' && QUERY_WORDS.has(next.up)) return i;
    throw new SvcError('SQL', "'select' expected after DECLARE", { position: next.pos });
  }
}

/** True when the tokens are one parenthesized group: `( ... )` with the first `(` closed by the last `)`. */
function isGroup(value: readonly Token[]): boolean {
  if (value.length < 2) return false;
  const first = value[0]!;
  if (first.kind !== 'op' || first.text !== '(') return false;
  let d = 0;
  for (let k = 0; k < value.length; k++) {
    const v = value[k]!;
    if (v.kind !== 'op') continue;
    if (v.text === '(') d++;
    else if (v.text === ')' && --d === 0) return k === value.length - 1;
  }
  return false;
}

/** A value as it replaces a variable: one token or one group as it is, anything else in parentheses. */
function wrapped(value: readonly Token[], at: Token): readonly Token[] {
  if (value.length === 1 || isGroup(value)) return value;
  const paren = (text: string): Token => ({ kind: 'op', text, up: text, pos: at.pos, end: at.pos });
  return [paren('('), ...value, paren(')')];
}

/** The error for an `@name` no DECLARE in scope gives. */
export function undeclaredVariable(t: Token): SvcError {
  return new SvcError('SQL', `undeclared variable: ${t.text}`, { position: t.pos });
}

/**
 * The values of a statement's variables as text (name -> value), for the views it reads
 * (parser.ts parseWithOverrides re-reads them after a view's query). A value is its tokens as
 * written in `sql`, the parentheses this pass added as they are.
 */
export function variableTexts(declared: ReadonlyMap<string, Declared>, sql: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, v] of declared) {
    out.set(name, v.tokens.map((t) => (t.end > t.pos ? sql.slice(t.pos, t.end) : t.text)).join(' '));
  }
  return out;
}
