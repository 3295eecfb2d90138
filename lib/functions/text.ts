// Text functions (length, length_bytes, upper, lower, concat, substring, left, right, md5, sha1, sha256, quote_ident, typeof, strpos,
// replace, trims, split_part, starts_with, regexp_replace (Regex), lpad, rpad). Counts
// are in code points, except length(STRING | SYMBOL), which counts UTF-16 code
// units as QuestDB's STRING does; VARCHAR input gives VARCHAR, other text STRING.
// Functions that can make a value much longer than their input (lpad, rpad,
// replace, regexp_replace) refuse one past cairo.sql.string.function.buffer.max.size
// before building it, as QuestDB does; what all of them build is charged as it grows.
import { createHash } from 'node:crypto';
import { SvcError } from '../errors/svc-error.js';
import { INT_NULL, typeName } from '../core/column-type.js';
import type { ColumnVector } from '../core/column-vector.js';
import { argError, type BindHook, type Kernel, type KernelContext, type FunctionRegistry } from './registry.js';
import { accept, defineScalar, type Signature } from './signature.js';
import { asDoubles, boolVector, constantVector, intVector, textAt, textVector } from '../core/vec.js';
import { checkTextSize, TextOut, utf8Length } from './text-out.js';
import { codePointLength } from '../core/utf8.js';
import { checkPattern, concatKernel, textResult } from './pattern.js';
import { parseReplacement, Regex, type Replacement } from './regex.js';
import type { SqlType } from '../core/sql-type.js';

const SURROGATE = /[\uD800-\uDFFF]/;

/** Code points of s from index `from` (0-based) taking `count` (or to the end). */
function cpSlice(s: string, from: number, count?: number): string {
  if (!SURROGATE.test(s)) return count === undefined ? s.slice(from) : s.slice(from, from + count);
  const cps = Array.from(s);
  return (count === undefined ? cps.slice(from) : cps.slice(from, from + count)).join('');
}

/** One row of a text function: the first text argument, the number and text arguments by position, the kernel's context. */
type TextRowFn = (
  s: string,
  nums: readonly number[],
  texts: readonly (string | null)[],
  kx: KernelContext,
) => string | null;

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
        if (layout[j] === 'n') {
          const v = nums[j]![i]!;
          if (v !== v) isNull = true;
          nx[j] = v;
        } else {
          const t = textAt(args[j] as ColumnVector, i);
          if (t === null) isNull = true;
          tx[j] = t;
        }
      }
      out.set(i, isNull ? null : fn(tx[0]!, nx, tx, kx));
    }
    return out.vector();
  };
}

/** Signature of a text-returning function: `layout` lists text ('t') and integer ('n') parameters. */
type TextType = 'STRING' | 'VARCHAR';

function textSig(
  layout: readonly ('t' | 'n')[],
  fn: TextRowFn,
  bind?: BindHook,
  result?: TextType | ((t: readonly SqlType[]) => TextType),
): Signature {
  return {
    args: layout.map((k) => (k === 't' ? accept.text : accept.int)),
    build: (t) => {
      // By default VARCHAR in, VARCHAR out (QuestDB's Ø overloads); STRING otherwise.
      const type =
        result === undefined
          ? textResult(t[0] === 'VARCHAR' ? ['VARCHAR'] : [])
          : typeof result === 'string'
            ? result
            : result(t);
      return { type, kernel: textFn(type, fn, layout), bind };
    },
  };
}

/**
 * Java's Character.toUpperCase per character, as QuestDB maps text: one
 * character for one ('ß' stays 'ß', where String.toUpperCase gives 'SS').
 * JS maps whole strings the full way; where that changes the length, the
 * characters whose full mapping is longer keep themselves.
 */
export function javaUpper(s: string): string {
  const u = s.toUpperCase();
  return u.length === s.length ? u : perChar(s, (c) => c.toUpperCase());
}

/** Java's Character.toLowerCase per character ('İ' is 'i'). */
export function javaLower(s: string): string {
  const l = s.toLowerCase();
  return l.length === s.length ? l : perChar(s, (c) => (c === '\u0130' ? 'i' : c.toLowerCase()));
}

/**
 * QuestDB's quote_ident: the text as is when every UTF-16 unit is a letter, a digit, `_` or `$`
 * (Java's Character.isLetter / isDigit, so a lone surrogate is neither), else in double quotes
 * with each `"` doubled.
 */
const LETTER_OR_DIGIT = /[\p{L}\p{Nd}]/u;

export function quoteIdent(s: string): string {
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (!(c === '_' || c === '$' || LETTER_OR_DIGIT.test(c))) return `"${s.replaceAll('"', '""')}"`;
  }
  return s;
}

function perChar(s: string, map: (c: string) => string): string {
  let out = '';
  for (const c of s) {
    const m = map(c);
    out += m.length === c.length ? m : c;
  }
  return out;
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
// eslint-disable-next-line no-control-regex -- Java's trim() removes the control characters
const trimStart = (s: string): string => s.replace(/^[\u0000-\u0020]+/, '');
// eslint-disable-next-line no-control-regex -- as trimStart
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

/** UTF-16 code units, as a Java String's length (QuestDB's STRING and SYMBOL). */
const utf16Length = (s: string): number => s.length;

/** length: code points for VARCHAR (UTF-8 text), UTF-16 code units for the other text types; NULL is -1 (QuestDB). */
const lengthKernel: Kernel = (args, n) => {
  const v = args[0]!;
  const out = new Int32Array(n);
  const count = v.type === 'VARCHAR' ? codePointLength : utf16Length;
  if (v.kind === 'symbol') {
    const table = Int32Array.from(v.dict, count);
    for (let i = 0; i < n; i++) {
      const k = v.keys[i]!;
      out[i] = k < 0 ? -1 : table[k]!;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const s = textAt(v, i);
      out[i] = s === null ? -1 : count(s);
    }
  }
  return intVector(out);
};

function strposKernel(): Kernel {
  return (args, n) => {
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const s = textAt(args[0]!, i),
        sub = textAt(args[1]!, i);
      if (s === null || sub === null) {
        out[i] = INT_NULL;
        continue;
      }
      const at = s.indexOf(sub);
      out[i] = at < 0 ? 0 : codePointLength(s.slice(0, at)) + 1;
    }
    return intVector(out);
  };
}

const startsWithKernel: Kernel = (args, n) => {
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const s = textAt(args[0]!, i),
      p = textAt(args[1]!, i);
    out[i] = s !== null && p !== null && s.startsWith(p) ? 1 : 0;
  }
  return boolVector(out);
};

/** regexp_replace: the last compiled pattern and parsed replacement are kept (both are nearly always constant). */
function regexpReplaceKernel(type: 'STRING' | 'VARCHAR'): Kernel {
  let re: Regex | null = null;
  let rep: Replacement | null = null;
  return textFn(
    type,
    (s, _n, t, kx) => {
      const p = t[1]!,
        r = t[2]!;
      if (re === null || p !== re.pattern) {
        re = new Regex(p);
        rep = null;
        kx.deadline.tick(re.cost); // compiling is work too when patterns change from row to row
      }
      if (rep === null || r !== rep.text) rep = parseReplacement(r, re);
      return re.replaceAll(s, rep, kx);
    },
    ['t', 't', 't'],
  );
}

/** Bind hook of regexp_replace: a constant pattern must compile, and a constant replacement must fit it (its groups). */
const checkRegexpReplace: BindHook = (args, pos) => {
  checkPattern(1)(args, pos);
  const p = args[1]!,
    r = args[2]!;
  if (p.value === undefined || p.value === null || r.value === undefined || r.value === null) return;
  try {
    parseReplacement(String(r.value), new Regex(String(p.value)));
  } catch (e) {
    throw argError((e as Error).message, r.pos);
  }
};

export function registerText(registry: FunctionRegistry): void {
  defineScalar(registry, 'length', [{ args: [accept.text], build: () => ({ type: 'INT', kernel: lengthKernel }) }]);
  // QuestDB's length_bytes: the UTF-8 size of a VARCHAR, -1 for NULL as length() has it.
  defineScalar(registry, 'length_bytes', [
    {
      args: [accept.text],
      build: () => ({
        type: 'INT',
        kernel: (args, n) => {
          const out = new Int32Array(n);
          for (let i = 0; i < n; i++) {
            const s = textAt(args[0]!, i);
            out[i] = s === null ? -1 : utf8Length(s);
          }
          return intVector(out);
        },
      }),
    },
  ]);
  defineScalar(registry, 'quote_ident', [textSig(['t'], quoteIdent, undefined, 'STRING')]);
  // QuestDB's typeOf(x): the argument's type name as a STRING constant ('NULL' for a NULL literal).
  defineScalar(registry, 'typeof', [
    {
      args: [(t) => t],
      build: (t) => {
        const name = t[0] === 'NULL' ? 'NULL' : typeName(t[0]!);
        return { type: 'STRING', kernel: (_args, n) => constantVector('STRING', name, n) };
      },
    },
  ]);
  // QuestDB's upper/lower are STRING functions (a VARCHAR argument is read as a STRING).
  defineScalar(registry, ['upper', 'to_uppercase'], [textSig(['t'], javaUpper, undefined, 'STRING')]);
  defineScalar(registry, ['lower', 'to_lowercase'], [textSig(['t'], javaLower, undefined, 'STRING')]);
  defineScalar(registry, 'concat', [
    {
      args: [],
      rest: accept.printable,
      minRest: 1,
      // QuestDB's concat is a STRING whatever its arguments (VARCHAR ones included).
      build: () => ({ type: 'STRING', kernel: concatKernel('STRING') }),
    },
  ]);
  defineScalar(registry, 'substring', [
    textSig(
      ['t', 'n', 'n'],
      (s, x) => substring(s, x[1]!, x[2]),
      checkInt(2, (len) => len >= 0, NEGATIVE_LENGTH),
    ),
    textSig(['t', 'n'], (s, x) => substring(s, x[1]!, undefined)),
  ]);
  defineScalar(registry, 'left', [textSig(['t', 'n'], (s, x) => left(s, x[1]!))]);
  // Hashes of the text's UTF-8 bytes, or of a BINARY value's bytes, as lowercase hex (QuestDB's
  // md5, sha1, sha256); NULL for NULL.
  for (const algorithm of ['md5', 'sha1', 'sha256'])
    defineScalar(registry, algorithm, [
      textSig(['t'], (s) => createHash(algorithm).update(s, 'utf8').digest('hex'), undefined, 'VARCHAR'),
      {
        args: [accept.exactly('BINARY')],
        build: () => ({ type: 'VARCHAR', kernel: binaryHashKernel(algorithm) }),
      },
    ]);
  defineScalar(registry, 'right', [textSig(['t', 'n'], (s, x) => right(s, x[1]!))]);
  defineScalar(
    registry,
    ['strpos', 'position'],
    [{ args: [accept.text, accept.text], build: () => ({ type: 'INT', kernel: strposKernel() }) }],
  );
  // replace is VARCHAR only when all three arguments are (QuestDB's replace(ØØØ)); else STRING.
  defineScalar(registry, 'replace', [
    textSig(
      ['t', 't', 't'],
      (s, _x, t, kx) => replace(s, t[1]!, t[2]!, kx),
      undefined,
      (t): TextType => (t.every((x) => x === 'VARCHAR') ? 'VARCHAR' : 'STRING'),
    ),
  ]);
  defineScalar(registry, 'trim', [textSig(['t'], (s) => trimEnd(trimStart(s)))]);
  defineScalar(registry, 'ltrim', [textSig(['t'], trimStart)]);
  defineScalar(registry, 'rtrim', [textSig(['t'], trimEnd)]);
  defineScalar(registry, 'split_part', [
    textSig(
      ['t', 't', 'n'],
      (s, x, t) => splitPart(s, t[1]!, x[2]!),
      checkInt(2, (k) => k !== 0, ZERO_FIELD),
    ),
  ]);
  defineScalar(registry, 'starts_with', [
    { args: [accept.text, accept.text], build: () => ({ type: 'BOOLEAN', kernel: startsWithKernel }) },
  ]);
  defineScalar(registry, 'regexp_replace', [
    {
      args: [accept.text, accept.text, accept.text],
      build: (t) => {
        const type = textResult(t[0] === 'VARCHAR' ? ['VARCHAR'] : []);
        return { type, kernel: regexpReplaceKernel(type), bind: checkRegexpReplace };
      },
    },
  ]);
  defineScalar(registry, 'lpad', [
    textSig(['t', 'n', 't'], (s, x, t, kx) => pad('lpad', s, x[1]!, t[2]!, true, kx)),
    textSig(['t', 'n'], (s, x, _t, kx) => pad('lpad', s, x[1]!, ' ', true, kx)),
  ]);
  defineScalar(registry, 'rpad', [
    textSig(['t', 'n', 't'], (s, x, t, kx) => pad('rpad', s, x[1]!, t[2]!, false, kx)),
    textSig(['t', 'n'], (s, x, _t, kx) => pad('rpad', s, x[1]!, ' ', false, kx)),
  ]);
}

/** The hex digest of each BINARY value's bytes; NULL for NULL. */
function binaryHashKernel(algorithm: string): Kernel {
  return (args, n) => {
    const v = args[0]!;
    const out = new Array<string | null>(n);
    if (v.kind !== 'var') return textVector('VARCHAR', out.fill(null));
    const { bytes, offsets, nulls } = v;
    for (let i = 0; i < n; i++)
      out[i] =
        nulls?.[i] === 1
          ? null
          : createHash(algorithm)
              .update(bytes.subarray(offsets[i], offsets[i + 1]))
              .digest('hex');
    return textVector('VARCHAR', out);
  };
}
