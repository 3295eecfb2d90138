// Pattern operators: `like` / `ilike` (% any run, _ one character, \ escapes),
// `~` / `!~` (JavaScript RegExp, searched anywhere in the text like Java's
// find(); a leading Java inline flag group such as (?i) becomes RegExp flags),
// and `||` concatenation (NULL reads as empty, as in QuestDB).
import { SvcError } from '../../errors/svc-error.js';
import type { ColumnVector } from '../../storage/column-vector.js';
import { argError, type BindHook, type Kernel } from './registry.js';
import { accept, defineScalar } from './signature.js';
import type { SqlType } from '../sql-type.js';
import { boolVector, textAt } from './vec.js';
import { TextOut } from './text-out.js';
import { DictTables, uniformText } from './utf8.js';
import { renderAt } from './render.js';

/** A LIKE pattern as an anchored RegExp. */
export function likeToRegExp(pattern: string, caseInsensitive: boolean): RegExp {
  let src = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) { src += escapeRegExp(pattern[++i]!); continue; }
    if (c === '%') src += '[\\s\\S]*';
    else if (c === '_') src += '[\\s\\S]';
    else src += escapeRegExp(c);
  }
  return new RegExp(`^${src}$`, caseInsensitive ? 'iu' : 'u');
}

function escapeRegExp(c: string): string {
  return /[\\^$.*+?()[\]{}|/-]/.test(c) ? `\\${c}` : c;
}

/** Java's leading inline flags that JavaScript has as RegExp flags: (?i) case-insensitive, (?m) multiline, (?s) dot-all. */
const INLINE_FLAGS = /^\(\?([ims]+)\)/;

/**
 * A regex operand (Java syntax as QuestDB takes it) as a RegExp: a leading
 * (?ims) group becomes flags; Unicode semantics when the pattern is valid that
 * way, else plain. Throws an SvcError (without a position) when it is invalid.
 */
export function compileRegExp(pattern: string, flags = ''): RegExp {
  let source = pattern;
  const inline = INLINE_FLAGS.exec(pattern);
  if (inline) {
    source = pattern.slice(inline[0].length);
    for (const f of inline[1]!) if (!flags.includes(f)) flags += f;
  }
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    try {
      return new RegExp(source, flags);
    } catch (e) {
      throw new SvcError('SQL', `invalid regular expression: ${pattern} (${(e as Error).message})`);
    }
  }
}

/** Bind hook: a constant pattern (argument `at`) must compile; NULL is rejected as QuestDB does. */
export function checkPattern(at: number): BindHook {
  return (args) => {
    const p = args[at]!;
    if (p.value === undefined) return;
    if (p.value === null) throw argError('NULL regex', p.pos);
    try {
      compileRegExp(String(p.value));
    } catch (e) {
      throw argError((e as Error).message, p.pos);
    }
  };
}

/** Matches text rows against pattern rows; the last compiled pattern is kept (patterns are nearly always constant). */
function matcher(compile: (p: string) => RegExp, negate: boolean): Kernel {
  let lastPattern: string | null = null;
  let lastRe: RegExp | null = null;
  const re = (p: string): RegExp => {
    if (p !== lastPattern || !lastRe) { lastRe = compile(p); lastPattern = p; }
    return lastRe;
  };
  const hit = negate ? 0 : 1;
  const cache = new DictTables();
  return (args, n) => {
    const s = args[0]!, p = args[1]!;
    const out = new Uint8Array(n);
    const constant = uniformText(p, n);
    if (constant === null) return boolVector(out);
    if (constant !== undefined) {
      const r = re(constant);
      if (s.kind === 'symbol') {
        const table = cache.get(s.dict, constant, () => Uint8Array.from(s.dict, (v) => (r.test(v) ? hit : 1 - hit)));
        for (let i = 0; i < n; i++) { const k = s.keys[i]!; out[i] = k < 0 ? 0 : table[k]!; }
        return boolVector(out);
      }
      for (let i = 0; i < n; i++) { const v = textAt(s, i); out[i] = v === null ? 0 : r.test(v) ? hit : 1 - hit; }
      return boolVector(out);
    }
    for (let i = 0; i < n; i++) {
      const v = textAt(s, i), q = textAt(p, i);
      out[i] = v === null || q === null ? 0 : re(q).test(v) ? hit : 1 - hit;
    }
    return boolVector(out);
  };
}

/** VARCHAR when any argument is VARCHAR, else STRING. */
export function textResult(types: readonly SqlType[]): 'STRING' | 'VARCHAR' {
  return types.includes('VARCHAR') ? 'VARCHAR' : 'STRING';
}

/** Concatenates every argument's row text; NULL parts are empty. */
export function concatKernel(type: 'STRING' | 'VARCHAR'): Kernel {
  return (args, n, kx) => {
    const out = new TextOut(type, n, kx);
    for (let i = 0; i < n; i++) {
      let s = '';
      for (const a of args) s += renderAt(a as ColumnVector, i) ?? '';
      out.set(i, s);
    }
    return out.vector();
  };
}

export function registerPattern(): void {
  const text2 = [accept.text, accept.text];
  const boolOf = (kernel: () => Kernel, bind?: BindHook) => [{ args: text2, build: () => ({ type: 'BOOLEAN' as const, kernel: kernel(), bind }) }];
  defineScalar('like', boolOf(() => matcher((p) => likeToRegExp(p, false), false)));
  defineScalar('ilike', boolOf(() => matcher((p) => likeToRegExp(p, true), false)));
  defineScalar('~', boolOf(() => matcher((p) => compileRegExp(p), false), checkPattern(1)));
  defineScalar('!~', boolOf(() => matcher((p) => compileRegExp(p), true), checkPattern(1)));
  defineScalar('||', [{
    args: [accept.printable, accept.printable],
    build: (t) => {
      const type = textResult(t);
      return { type, kernel: concatKernel(type) };
    },
  }]);
}
