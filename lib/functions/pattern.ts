// Pattern operators: `like` / `ilike` (% any run, _ one character, \ escapes;
// LikeMatcher), `~` / `!~` (RE2 syntax, searched anywhere in the text like
// Java's find(); Regex), and `||` concatenation (NULL reads as empty, as in QuestDB).
import { argError, type BindHook, type Kernel, type KernelContext, type FunctionRegistry } from './registry.js';
import { accept, defineScalar } from './signature.js';
import type { SqlType } from '../core/sql-type.js';
import { boolVector, textAt } from '../core/vec.js';
import { TextOut } from './text-out.js';
import { DictTables, uniformText } from '../core/utf8.js';
import { renderAt } from '../core/render.js';
import { LikeMatcher } from './like-matcher.js';
import { Regex } from './regex.js';

/** What a row is tested with: a LIKE matcher or a regular expression. */
interface TextTest {
  test(s: string): boolean;
  /** Most work per character of text (for the deadline: the clock is looked at every so much work). */
  readonly cost: number;
}

/** Bind hook: a constant pattern (argument `at`) must compile; NULL is rejected as QuestDB does. */
export function checkPattern(at: number): BindHook {
  return (args) => {
    const p = args[at]!;
    if (p.value === undefined) return;
    if (p.value === null) throw argError('NULL regex', p.pos);
    try {
      new Regex(String(p.value));
    } catch (e) {
      throw argError((e as Error).message, p.pos);
    }
  };
}

/**
 * Matches text rows against pattern rows; the last compiled pattern is kept
 * (patterns are nearly always constant). Each row counts towards the deadline
 * by its length times the pattern's cost: texts and patterns can be long.
 */
function matcher(compile: (p: string) => TextTest, negate: boolean): Kernel {
  let lastPattern: string | null = null;
  let lastRe: TextTest | null = null;
  const re = (p: string, kx: KernelContext): TextTest => {
    if (p !== lastPattern || !lastRe) {
      lastRe = compile(p);
      lastPattern = p;
      kx.deadline.tick(lastRe.cost); // compiling is work too when patterns change from row to row
    }
    return lastRe;
  };
  const hit = negate ? 0 : 1;
  // A NULL text does not match, so its negation (`!~`, QuestDB's not(~)) is true.
  const miss = 1 - hit;
  const cache = new DictTables();
  return (args, n, kx) => {
    const s = args[0]!,
      p = args[1]!;
    const out = new Uint8Array(n);
    const deadline = kx.deadline;
    const constant = uniformText(p, n);
    if (constant === null) return boolVector(out);
    if (constant !== undefined) {
      const r = re(constant, kx);
      if (s.kind === 'symbol') {
        const table = cache.get(s.dict, constant, () =>
          Uint8Array.from(s.dict, (v) => {
            deadline.tick(1 + (v.length * r.cost) / 1024);
            return r.test(v) ? hit : 1 - hit;
          }),
        );
        for (let i = 0; i < n; i++) {
          const k = s.keys[i]!;
          out[i] = k < 0 ? miss : table[k]!;
        }
        return boolVector(out);
      }
      for (let i = 0; i < n; i++) {
        const v = textAt(s, i);
        if (v === null) {
          out[i] = miss;
          continue;
        }
        out[i] = r.test(v) ? hit : 1 - hit;
        deadline.tick(1 + (v.length * r.cost) / 1024);
      }
      return boolVector(out);
    }
    for (let i = 0; i < n; i++) {
      const v = textAt(s, i),
        q = textAt(p, i);
      if (v === null || q === null) {
        out[i] = miss;
        continue;
      }
      const r = re(q, kx);
      out[i] = r.test(v) ? hit : 1 - hit;
      deadline.tick(1 + (v.length * r.cost + q.length) / 1024);
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
      for (const a of args) s += renderAt(a, i) ?? '';
      out.set(i, s);
    }
    return out.vector();
  };
}

export function registerPattern(registry: FunctionRegistry): void {
  const text2 = [accept.text, accept.text];
  const boolOf = (kernel: () => Kernel, bind?: BindHook) => [
    { args: text2, build: () => ({ type: 'BOOLEAN' as const, kernel: kernel(), bind }) },
  ];
  defineScalar(
    registry,
    'like',
    boolOf(() => matcher((p) => new LikeMatcher(p, false), false)),
  );
  defineScalar(
    registry,
    'ilike',
    boolOf(() => matcher((p) => new LikeMatcher(p, true), false)),
  );
  defineScalar(
    registry,
    '~',
    boolOf(() => matcher((p) => new Regex(p), false), checkPattern(1)),
  );
  defineScalar(
    registry,
    '!~',
    boolOf(() => matcher((p) => new Regex(p), true), checkPattern(1)),
  );
  // `a || b` is concat(a, b): a STRING, as in QuestDB.
  defineScalar(registry, '||', [
    {
      args: [accept.printable, accept.printable],
      build: () => ({ type: 'STRING', kernel: concatKernel('STRING') }),
    },
  ]);
}
