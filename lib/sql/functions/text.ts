// Text functions (length, upper, lower, concat, substring, left, right, strpos,
// replace, trims, split_part, starts_with, regexp_replace, lpad, rpad). Counts
// are in code points, except length(STRING | SYMBOL), which counts UTF-16 code
// units as QuestDB's STRING does; VARCHAR input gives VARCHAR, other text STRING.
import { SvcError } from '../../errors/svc-error.js';
import { INT_NULL } from '../../storage/column-type.js';
import type { ColumnVector } from '../../storage/column-vector.js';
import { argError, type BindHook, type Kernel } from './registry.js';
import { accept, defineScalar, type Signature } from './signature.js';
import type { SqlType } from '../sql-type.js';
import { asDoubles, boolVector, intVector, textAt, textVector } from './vec.js';
import { codePointLength } from './utf8.js';
import { checkPattern, compileRegExp, concatKernel, textResult } from './pattern.js';

const SURROGATE = /[\uD800-\uDFFF]/;

/** Code points of s from index `from` (0-based) taking `count` (or to the end). */
function cpSlice(s: string, from: number, count?: number): string {
  if (!SURROGATE.test(s)) return count === undefined ? s.slice(from) : s.slice(from, from + count);
  const cps = Array.from(s);
  return (count === undefined ? cps.slice(from) : cps.slice(from, from + count)).join('');
}

/** A per-row text function over text and number arguments; any NULL argument gives NULL unless `fn` handles it. */
function textFn(type: 'STRING' | 'VARCHAR', fn: (s: string, nums: readonly number[], texts: readonly (string | null)[]) => string | null,
  layout: readonly ('t' | 'n')[]): Kernel {
  return (args, n) => {
    const nums = layout.map((k, j) => (k === 'n' ? asDoubles(args[j]!) : null));
    const out = new Array<string | null>(n);
    const tx: (string | null)[] = new Array(layout.length).fill(null);
    const nx: number[] = new Array(layout.length).fill(0);
    for (let i = 0; i < n; i++) {
      let isNull = false;
      for (let j = 0; j < layout.length; j++) {
        if (layout[j] === 'n') { const v = nums[j]![i]!; if (v !== v) isNull = true; nx[j] = v; } else { const t = textAt(args[j] as ColumnVector, i); if (t === null) isNull = true; tx[j] = t; }
      }
      out[i] = isNull ? null : fn(tx[0]!, nx, tx);
    }
    return textVector(type, out);
  };
}

/** Signature of a text-returning function: `layout` lists text ('t') and integer ('n') parameters. */
function textSig(layout: readonly ('t' | 'n')[], fn: (s: string, nums: readonly number[], texts: readonly (string | null)[]) => string | null,
  bind?: BindHook): Signature {
  return {
    args: layout.map((k) => (k === 't' ? accept.text : accept.int)),
    build: (t) => {
      const type = textResult(t[0] === 'VARCHAR' ? ['VARCHAR'] : []);
      return { type, kernel: textFn(type, fn, layout), bind };
    },
  };
}

const NEGATIVE_LENGTH = 'negative substring length is not allowed';
const ZERO_FIELD = 'field position must not be zero';

/** Bind hook: a constant integer argument `at` must pass `ok` (NULL passes: the result is NULL). */
function checkInt(at: number, ok: (x: number) => boolean, message: string): BindHook {
  return (args) => {
    const a = args[at]!;
    if (typeof a.value === 'number' && !ok(a.value)) throw argError(message, a.pos);
  };
}

/** substring(s, start[, len]) with 1-based start; a start before 1 shortens the result (QuestDB / PostgreSQL). */
function substring(s: string, start: number, len: number | undefined): string | null {
  if (len === undefined) return cpSlice(s, Math.max(start, 1) - 1);
  if (len < 0) throw new SvcError('SQL', NEGATIVE_LENGTH);
  if (start >= 1) return cpSlice(s, start - 1, len);
  const end = start + len; // exclusive, 1-based
  if (end < 0) return null;
  return end <= 1 ? '' : cpSlice(s, 0, end - 1);
}

function left(s: string, k: number): string {
  const len = codePointLength(s);
  return k >= 0 ? cpSlice(s, 0, k) : cpSlice(s, 0, Math.max(len + k, 0));
}

function right(s: string, k: number): string {
  const len = codePointLength(s);
  return k >= 0 ? cpSlice(s, Math.max(len - k, 0)) : cpSlice(s, Math.min(-k, len));
}

/** Characters at or below U+0020 trimmed, as Java's String.trim(). */
const trimStart = (s: string): string => s.replace(/^[\u0000-\u0020]+/, '');
const trimEnd = (s: string): string => s.replace(/[\u0000-\u0020]+$/, '');

function splitPart(s: string, delim: string, k: number): string | null {
  if (k === 0) throw new SvcError('SQL', ZERO_FIELD);
  const parts = delim === '' ? [s] : s.split(delim);
  const idx = k > 0 ? k - 1 : parts.length + k;
  return idx >= 0 && idx < parts.length ? parts[idx]! : '';
}

function pad(s: string, len: number, fill: string, atStart: boolean): string | null {
  if (len < 0) return null;
  const cur = codePointLength(s);
  if (cur >= len) return cpSlice(s, 0, len);
  if (fill === '') return s;
  let p = '';
  while (codePointLength(p) < len - cur) p += fill;
  p = cpSlice(p, 0, len - cur);
  return atStart ? p + s : s + p;
}

/** UTF-16 code units, as a Java String's length (QuestDB's STRING and SYMBOL). */
const utf16Length = (s: string): number => s.length;

/** length: code points for VARCHAR (UTF-8 text), UTF-16 code units for the other text types; NULL is -1 (QuestDB). */
const lengthKernel: Kernel = (args, n) => {
  const v = args[0]!;
  const out = new Int32Array(n);
  const count = v.type === 'VARCHAR' ? codePointLength : utf16Length;
  if (v.kind === 'symbol') {
    const table = Int32Array.from(v.dict, count);
    for (let i = 0; i < n; i++) { const k = v.keys[i]!; out[i] = k < 0 ? -1 : table[k]!; }
  } else {
    for (let i = 0; i < n; i++) { const s = textAt(v, i); out[i] = s === null ? -1 : count(s); }
  }
  return intVector(out);
};

function strposKernel(): Kernel {
  return (args, n) => {
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const s = textAt(args[0]!, i), sub = textAt(args[1]!, i);
      if (s === null || sub === null) { out[i] = INT_NULL; continue; }
      const at = s.indexOf(sub);
      out[i] = at < 0 ? 0 : codePointLength(s.slice(0, at)) + 1;
    }
    return intVector(out);
  };
}

const startsWithKernel: Kernel = (args, n) => {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const s = textAt(args[0]!, i), p = textAt(args[1]!, i);
    out[i] = s !== null && p !== null && s.startsWith(p) ? 1 : 0;
  }
  return boolVector(out);
};

function regexpReplaceKernel(type: 'STRING' | 'VARCHAR'): Kernel {
  let lastPattern: string | null = null;
  let lastRe: RegExp | null = null;
  return textFn(type, (s, _n, t) => {
    const p = t[1]!;
    if (p !== lastPattern || !lastRe) { lastRe = compileRegExp(p, 'g'); lastPattern = p; }
    return s.replace(lastRe, t[2]!);
  }, ['t', 't', 't']);
}

export function registerText(): void {
  defineScalar('length', [{ args: [accept.text], build: () => ({ type: 'INT', kernel: lengthKernel }) }]);
  defineScalar(['upper', 'to_uppercase'], [textSig(['t'], (s) => s.toUpperCase())]);
  defineScalar(['lower', 'to_lowercase'], [textSig(['t'], (s) => s.toLowerCase())]);
  defineScalar('concat', [{
    args: [],
    rest: accept.printable,
    minRest: 1,
    build: (t: SqlType[]) => {
      const type = textResult(t);
      return { type, kernel: concatKernel(type) };
    },
  }]);
  defineScalar('substring', [
    textSig(['t', 'n', 'n'], (s, x) => substring(s, x[1]!, x[2]!), checkInt(2, (len) => len >= 0, NEGATIVE_LENGTH)),
    textSig(['t', 'n'], (s, x) => substring(s, x[1]!, undefined)),
  ]);
  defineScalar('left', [textSig(['t', 'n'], (s, x) => left(s, x[1]!))]);
  defineScalar('right', [textSig(['t', 'n'], (s, x) => right(s, x[1]!))]);
  defineScalar(['strpos', 'position'], [{ args: [accept.text, accept.text], build: () => ({ type: 'INT', kernel: strposKernel() }) }]);
  defineScalar('replace', [textSig(['t', 't', 't'], (s, _x, t) => (t[1] === '' ? s : s.split(t[1]!).join(t[2]!)))]);
  defineScalar('trim', [textSig(['t'], (s) => trimEnd(trimStart(s)))]);
  defineScalar('ltrim', [textSig(['t'], trimStart)]);
  defineScalar('rtrim', [textSig(['t'], trimEnd)]);
  defineScalar('split_part', [textSig(['t', 't', 'n'], (s, x, t) => splitPart(s, t[1]!, x[2]!), checkInt(2, (k) => k !== 0, ZERO_FIELD))]);
  defineScalar('starts_with', [{ args: [accept.text, accept.text], build: () => ({ type: 'BOOLEAN', kernel: startsWithKernel }) }]);
  defineScalar('regexp_replace', [{
    args: [accept.text, accept.text, accept.text],
    build: (t) => {
      const type = textResult(t[0] === 'VARCHAR' ? ['VARCHAR'] : []);
      return { type, kernel: regexpReplaceKernel(type), bind: checkPattern(1) };
    },
  }]);
  defineScalar('lpad', [textSig(['t', 'n', 't'], (s, x, t) => pad(s, x[1]!, t[2]!, true)), textSig(['t', 'n'], (s, x) => pad(s, x[1]!, ' ', true))]);
  defineScalar('rpad', [textSig(['t', 'n', 't'], (s, x, t) => pad(s, x[1]!, t[2]!, false)), textSig(['t', 'n'], (s, x) => pad(s, x[1]!, ' ', false))]);
}
