// Text functions (length, upper, lower, concat, substring, left, right, strpos,
// replace, trims, split_part, starts_with, regexp_replace, lpad, rpad). Counts
// are in code points, except length(STRING | SYMBOL), which counts UTF-16 code
// units as QuestDB's STRING does; VARCHAR input gives VARCHAR, other text STRING.
// Functions that can make a value much longer than their input (lpad, rpad,
// replace, regexp_replace) refuse one past cairo.sql.string.function.buffer.max.size
// before building it, as QuestDB does; what all of them build is charged as it grows.
import { SvcError } from '../../errors/svc-error.js';
import { INT_NULL } from '../../storage/column-type.js';
import type { ColumnVector } from '../../storage/column-vector.js';
import { argError, type BindHook, type Kernel, type KernelContext } from './registry.js';
import { accept, defineScalar, type Signature } from './signature.js';
import type { SqlType } from '../sql-type.js';
import { asDoubles, boolVector, intVector, textAt } from './vec.js';
import { checkTextSize, TextOut, utf8Length } from './text-out.js';
import { codePointLength } from './utf8.js';
import { checkPattern, compileRegExp, concatKernel, textResult } from './pattern.js';

const SURROGATE = /[\uD800-\uDFFF]/;

/** Code points of s from index `from` (0-based) taking `count` (or to the end). */
function cpSlice(s: string, from: number, count?: number): string {
  if (!SURROGATE.test(s)) return count === undefined ? s.slice(from) : s.slice(from, from + count);
  const cps = Array.from(s);
  return (count === undefined ? cps.slice(from) : cps.slice(from, from + count)).join('');
}

/** One row of a text function: the first text argument, the number and text arguments by position, the kernel's context. */
type TextRowFn = (s: string, nums: readonly number[], texts: readonly (string | null)[], kx: KernelContext) => string | null;

/** A per-row text function over text and number arguments; any NULL argument gives NULL unless `fn` handles it. */
function textFn(type: 'STRING' | 'VARCHAR', fn: TextRowFn, layout: readonly ('t' | 'n')[]): Kernel {
  return (args, n, kx) => {
    const nums = layout.map((k, j) => (k === 'n' ? asDoubles(args[j]!) : null));
    const out = new TextOut(type, n, kx);
    const tx: (string | null)[] = new Array(layout.length).fill(null);
    const nx: number[] = new Array(layout.length).fill(0);
    for (let i = 0; i < n; i++) {
      let isNull = false;
      for (let j = 0; j < layout.length; j++) {
        if (layout[j] === 'n') { const v = nums[j]![i]!; if (v !== v) isNull = true; nx[j] = v; } else { const t = textAt(args[j] as ColumnVector, i); if (t === null) isNull = true; tx[j] = t; }
      }
      out.set(i, isNull ? null : fn(tx[0]!, nx, tx, kx));
    }
    return out.vector();
  };
}

/** Signature of a text-returning function: `layout` lists text ('t') and integer ('n') parameters. */
function textSig(layout: readonly ('t' | 'n')[], fn: TextRowFn, bind?: BindHook): Signature {
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

/**
 * lpad / rpad: `s` cut or filled with `fill` to `len` code points. The fill is
 * whole repetitions plus a part of one, built in linear time once its size is
 * known to be within the limit.
 */
function pad(name: string, s: string, len: number, fill: string, atStart: boolean, kx: KernelContext): string | null {
  if (len < 0) return null;
  const cur = codePointLength(s);
  if (cur >= len) return cpSlice(s, 0, len);
  if (fill === '') return s;
  const need = len - cur;
  const fillPoints = codePointLength(fill);
  const whole = Math.floor(need / fillPoints);
  const part = cpSlice(fill, 0, need - whole * fillPoints);
  checkTextSize(name, utf8Length(s) + whole * utf8Length(fill) + utf8Length(part), kx);
  const p = fill.repeat(whole) + part;
  return atStart ? p + s : s + p;
}

/** replace(s, search, rep): every occurrence; refused before building when the result would pass the limit. */
function replace(s: string, search: string, rep: string, kx: KernelContext): string {
  if (search === '' || s.length < search.length) return s;
  const grows = utf8Length(rep) - utf8Length(search);
  if (grows > 0) {
    let count = 0;
    for (let at = s.indexOf(search); at >= 0; at = s.indexOf(search, at + search.length)) count++;
    if (count > 0) checkTextSize('replace', utf8Length(s) + count * grows, kx);
  }
  return s.split(search).join(rep);
}

/**
 * regexp_replace: JavaScript's replacement syntax ($1, $<name>, $&, $$). When
 * the most the result could have fits the limit, one native replace; else the
 * matches are replaced one by one and the call stops once the result passes it.
 */
function regexpReplace(s: string, re: RegExp, rep: string, kx: KernelContext): string {
  const max = kx.maxTextBytes;
  // At most s.length + 1 matches (empty ones included); a UTF-16 unit is at most 3 UTF-8 bytes.
  if (!rep.includes('$') && 3 * (s.length + (s.length + 1) * rep.length) <= max) return s.replace(re, rep);
  let units = 0, last = 0;
  const out = s.replace(re, (...m: unknown[]) => {
    const named = typeof m[m.length - 1] === 'object' && m[m.length - 1] !== null;
    const groups = named ? (m[m.length - 1] as Record<string, string | undefined>) : undefined;
    const offset = m[m.length - (named ? 3 : 2)] as number;
    const match = m[0] as string;
    const captures = m.slice(1, m.length - (named ? 3 : 2)) as (string | undefined)[];
    const r = rep.includes('$') ? expandReplacement(rep, match, captures, offset, s, groups) : rep;
    units += offset - last + r.length;
    last = offset + match.length;
    // Bytes are at least UTF-16 units: past the limit in units is past it in bytes.
    if (units > max) checkTextSize('regexp_replace', units, kx);
    return r;
  });
  checkTextSize('regexp_replace', utf8Length(out), kx);
  return out;
}

/** A JavaScript replacement pattern for one match (the substitutions String.prototype.replace makes). */
function expandReplacement(rep: string, match: string, captures: readonly (string | undefined)[], offset: number, s: string,
  groups: Record<string, string | undefined> | undefined): string {
  let out = '';
  for (let k = 0; k < rep.length; k++) {
    const c = rep[k];
    if (c !== '$' || k + 1 >= rep.length) { out += c; continue; }
    const d = rep[k + 1]!;
    if (d === '$') { out += '$'; k++; continue; }
    if (d === '&') { out += match; k++; continue; }
    if (d === '`') { out += s.slice(0, offset); k++; continue; }
    if (d === "'") { out += s.slice(offset + match.length); k++; continue; }
    if (d === '<' && groups !== undefined) {
      const end = rep.indexOf('>', k + 2);
      if (end >= 0) { out += groups[rep.slice(k + 2, end)] ?? ''; k = end; continue; }
    }
    if (d >= '0' && d <= '9') {
      const two = k + 2 < rep.length && rep[k + 2]! >= '0' && rep[k + 2]! <= '9' ? Number(d + rep[k + 2]) : -1;
      if (two >= 1 && two <= captures.length) { out += captures[two - 1] ?? ''; k += 2; continue; }
      const one = Number(d);
      if (one >= 1 && one <= captures.length) { out += captures[one - 1] ?? ''; k++; continue; }
    }
    out += c;
  }
  return out;
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
  return textFn(type, (s, _n, t, kx) => {
    const p = t[1]!;
    if (p !== lastPattern || !lastRe) { lastRe = compileRegExp(p, 'g'); lastPattern = p; }
    return regexpReplace(s, lastRe, t[2]!, kx);
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
  defineScalar('replace', [textSig(['t', 't', 't'], (s, _x, t, kx) => replace(s, t[1]!, t[2]!, kx))]);
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
  defineScalar('lpad', [
    textSig(['t', 'n', 't'], (s, x, t, kx) => pad('lpad', s, x[1]!, t[2]!, true, kx)),
    textSig(['t', 'n'], (s, x, _t, kx) => pad('lpad', s, x[1]!, ' ', true, kx)),
  ]);
  defineScalar('rpad', [
    textSig(['t', 'n', 't'], (s, x, t, kx) => pad('rpad', s, x[1]!, t[2]!, false, kx)),
    textSig(['t', 'n'], (s, x, _t, kx) => pad('rpad', s, x[1]!, ' ', false, kx)),
  ]);
}
