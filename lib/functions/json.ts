// json_extract(doc, path): the value at a JSONPath (`$`, `.field`, `[n]`) of a JSON text, read by a
// hand-written scanner that keeps each value's text as written (numbers verbatim, past a double's
// digits too): a string's unescaped contents, any other value's raw text, NULL for JSON null, a
// missing step or a malformed document. The typed form (the binder makes it of
// `json_extract(doc, path)::type`, QuestDB's rewrite) converts by QuestDB's table, never failing.
import { INT_NULL, LONG_NULL } from '../core/column-type.js';
import type { ColumnVector } from '../core/column-vector.js';
import { parseTimestamp } from '../core/datetime.js';
import { int64Pair } from '../core/number-format.js';
import { parseDoubleText, parseIpv4Text } from '../core/parse-text.js';
import { f64ToInt64 } from '../core/column-vector.js';
import type { SqlType } from '../core/sql-type.js';
import { fromDoubles, textAt } from '../core/vec.js';
import { argError, type BindHook, type FunctionRegistry, type Kernel, type KernelContext } from './registry.js';
import { accept, defineScalar } from './signature.js';
import { TextOut } from './text-out.js';

/** One step of a path: a member name or an array index. */
export type JsonStep = string | number;

/** `$.a[2].b` -> ['a', 2, 'b'] (the `$` is optional); null for a path of another shape (no value then). */
export function parseJsonPath(path: string): JsonStep[] | null {
  const steps: JsonStep[] = [];
  let i = path.startsWith('$') ? 1 : 0;
  while (i < path.length) {
    const c = path[i];
    if (c === '.') {
      let j = i + 1;
      while (j < path.length && path[j] !== '.' && path[j] !== '[') j++;
      if (j === i + 1) return null;
      steps.push(path.slice(i + 1, j));
      i = j;
    } else if (c === '[') {
      const end = path.indexOf(']', i);
      const digits = end < 0 ? '' : path.slice(i + 1, end);
      if (!/^\d{1,9}$/.test(digits)) return null;
      steps.push(Number(digits));
      i = end + 1;
    } else return null;
  }
  return steps;
}

/** The kinds of JSON value. */
const Kind = { NULL: 0, TRUE: 1, FALSE: 2, NUMBER: 3, STRING: 4, ARRAY: 5, OBJECT: 6 } as const;
type Kind = (typeof Kind)[keyof typeof Kind];

/** What the path found: its kind and text (a string's unescaped contents, any other value's raw text). */
export interface JsonValue {
  readonly kind: Kind;
  readonly text: string;
}

const SPACE = 32,
  TAB = 9,
  LF = 10,
  CR = 13,
  QUOTE = 34,
  BACKSLASH = 92,
  COMMA = 44,
  COLON = 58,
  LBRACE = 123,
  RBRACE = 125,
  LBRACKET = 91,
  RBRACKET = 93;

function ws(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== SPACE && c !== TAB && c !== LF && c !== CR) break;
    i++;
  }
  return i;
}

/** End of the string token at i (after its closing quote), or -1 when it is not a valid one. */
function skipString(s: string, i: number): number {
  if (s.charCodeAt(i) !== QUOTE) return -1;
  for (i++; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) return i + 1;
    if (c < 0x20) return -1;
    if (c === BACKSLASH) {
      const e = s[++i];
      if (e === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(s.slice(i + 1, i + 5))) return -1;
        i += 4;
      } else if (e === undefined || !'"\\/bfnrt'.includes(e)) return -1;
    }
  }
  return -1;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

/** End of the number, true, false or null at i, or -1. */
function skipScalar(s: string, i: number): number {
  const c = s[i];
  for (const word of ['true', 'false', 'null']) if (c === word[0]) return s.startsWith(word, i) ? i + word.length : -1;
  NUMBER.lastIndex = i;
  return NUMBER.test(s) ? NUMBER.lastIndex : -1;
}

/**
 * End of the value at i (no space before it), or -1 when it is malformed. Iterative (a stack of
 * open containers), so deep nesting costs memory, never the call stack.
 */
function skipValue(s: string, i: number): number {
  const open: number[] = [];
  for (;;) {
    // A value is expected at i.
    i = ws(s, i);
    const c = s.charCodeAt(i);
    let done = false;
    if (c === LBRACE || c === LBRACKET) {
      const j = ws(s, i + 1);
      if (s.charCodeAt(j) === (c === LBRACE ? RBRACE : RBRACKET)) {
        i = j + 1;
        done = true;
      } else {
        open.push(c);
        i = c === LBRACE ? memberValue(s, j) : j;
        if (i < 0) return -1;
      }
    } else {
      i = c === QUOTE ? skipString(s, i) : skipScalar(s, i);
      if (i < 0) return -1;
      done = true;
    }
    // After a value: close containers or move on to the next element.
    while (done) {
      if (open.length === 0) return i;
      i = ws(s, i);
      const top = open[open.length - 1]!;
      const d = s.charCodeAt(i);
      if (d === COMMA) {
        i = top === LBRACE ? memberValue(s, ws(s, i + 1)) : i + 1;
        if (i < 0) return -1;
        done = false;
      } else if (d === (top === LBRACE ? RBRACE : RBRACKET)) {
        open.pop();
        i++;
      } else return -1;
    }
  }
}

/** Past `"key" :` at i: where the member's value starts, or -1. */
function memberValue(s: string, i: number): number {
  const k = skipString(s, i);
  if (k < 0) return -1;
  const j = ws(s, k);
  return s.charCodeAt(j) === COLON ? j + 1 : -1;
}

/** A string token's contents (JSON.parse of a token skipString accepted). */
function unescape(s: string, from: number, to: number): string {
  const raw = s.slice(from, to);
  return raw.indexOf('\\') < 0 ? raw.slice(1, -1) : (JSON.parse(raw) as string);
}

/** The value of `doc` at `steps`, or null (malformed document, a step that finds nothing). */
export function jsonAt(doc: string, steps: readonly JsonStep[]): JsonValue | null {
  let i = ws(doc, 0);
  const end = skipValue(doc, i);
  if (end < 0 || ws(doc, end) !== doc.length) return null;
  // The document is valid: the walk below can trust its structure.
  for (const step of steps) {
    const c = doc.charCodeAt(i);
    i = ws(doc, i + 1);
    if (typeof step === 'string') {
      if (c !== LBRACE || doc.charCodeAt(i) === RBRACE) return null;
      for (;;) {
        const k = skipString(doc, i);
        const key = unescape(doc, i, k);
        i = ws(doc, ws(doc, k) + 1);
        if (key === step) break;
        i = ws(doc, skipValue(doc, i));
        if (doc.charCodeAt(i) !== COMMA) return null;
        i = ws(doc, i + 1);
      }
    } else {
      if (c !== LBRACKET || doc.charCodeAt(i) === RBRACKET) return null;
      for (let k = 0; k < step; k++) {
        i = ws(doc, skipValue(doc, i));
        if (doc.charCodeAt(i) !== COMMA) return null;
        i = ws(doc, i + 1);
      }
    }
  }
  const to = skipValue(doc, i);
  const c = doc.charCodeAt(i);
  if (c === QUOTE) return { kind: Kind.STRING, text: unescape(doc, i, to) };
  const text = doc.slice(i, to);
  const kind =
    c === LBRACE
      ? Kind.OBJECT
      : c === LBRACKET
        ? Kind.ARRAY
        : text === 'null'
          ? Kind.NULL
          : text === 'true'
            ? Kind.TRUE
            : text === 'false'
              ? Kind.FALSE
              : Kind.NUMBER;
  return { kind, text };
}

/** The target types of `json_extract(doc, path)::type` (FLOAT gives DOUBLE, as QuestDB's suffix cast). */
export const JSON_TYPED: ReadonlyMap<SqlType, SqlType> = new Map<SqlType, SqlType>([
  ['BOOLEAN', 'BOOLEAN'],
  ['SHORT', 'SHORT'],
  ['INT', 'INT'],
  ['LONG', 'LONG'],
  ['FLOAT', 'DOUBLE'],
  ['DOUBLE', 'DOUBLE'],
  ['DATE', 'DATE'],
  ['TIMESTAMP', 'TIMESTAMP'],
  ['IPV4', 'IPV4'],
]);

/** The third argument the binder gives the typed form: `::` and the result type. */
export function jsonTypeTag(t: SqlType): string {
  return `::${JSON_TYPED.get(t)!}`;
}

const INTEGER = /^-?\d+$/;
const TWO63 = 9223372036854775808;

/** A number or numeric string as an integer toward zero (bigint past 2^53), or null. */
function integral(v: JsonValue | null): number | bigint | null {
  if (v === null) return null;
  switch (v.kind) {
    case Kind.TRUE:
      return 1;
    case Kind.FALSE:
      return 0;
    case Kind.NUMBER:
    case Kind.STRING: {
      if (INTEGER.test(v.text)) return v.text.length <= 15 ? Number(v.text) : BigInt(v.text);
      const x = parseDoubleText(v.text);
      return x === null || !Number.isFinite(x) ? null : Math.trunc(x);
    }
    default:
      return null;
  }
}

/** A number, numeric string or boolean as a double; NaN otherwise. */
function double(v: JsonValue | null): number {
  if (v === null) return NaN;
  switch (v.kind) {
    case Kind.TRUE:
      return 1;
    case Kind.FALSE:
      return 0;
    case Kind.NUMBER:
      return Number(v.text);
    case Kind.STRING:
      return parseDoubleText(v.text) ?? NaN;
    default:
      return NaN;
  }
}

/** An ISO string (micros) or a number (epoch units as they are, truncated); NaN otherwise. */
function temporal(v: JsonValue | null): number {
  if (v === null) return NaN;
  if (v.kind === Kind.STRING) return parseTimestamp(v.text) ?? NaN;
  if (v.kind !== Kind.NUMBER) return NaN;
  const x = Math.trunc(Number(v.text));
  return Number.isFinite(x) && Math.abs(x) < TWO63 ? x : NaN;
}

/** The typed result of every row's value (`at(i)`), by QuestDB's conversion table. */
function typedVector(type: SqlType, n: number, at: (i: number) => JsonValue | null): ColumnVector {
  switch (type) {
    case 'BOOLEAN': {
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = at(i)?.kind === Kind.TRUE ? 1 : 0;
      return { kind: 'fixed', type, data: out };
    }
    case 'SHORT':
    case 'INT': {
      const [lo, hi] = type === 'SHORT' ? [-32768, 32767] : [-2147483647, 2147483647];
      const out = type === 'SHORT' ? new Int16Array(n) : new Int32Array(n);
      for (let i = 0; i < n; i++) {
        const x = integral(at(i));
        const ok = x !== null && x >= lo && x <= hi;
        out[i] = ok ? Number(x) : type === 'SHORT' ? 0 : INT_NULL;
      }
      return { kind: 'fixed', type, data: out };
    }
    case 'LONG': {
      const data = new Float64Array(n);
      let exact: Int32Array | undefined;
      for (let i = 0; i < n; i++) {
        const x = integral(at(i));
        const big = typeof x === 'bigint' ? x : x !== null && Math.abs(x) < TWO63 ? BigInt(x) : null;
        // LONG's minimum is its NULL: out of range as much as past the maximum.
        if (big === null || big >= 9223372036854775807n + 1n || big <= -9223372036854775808n) {
          data[i] = LONG_NULL;
          if (exact) int64Pair(-9223372036854775808n, exact, i);
          continue;
        }
        data[i] = Number(big);
        if (Number.isSafeInteger(data[i])) {
          if (exact) int64Pair(big, exact, i);
          continue;
        }
        exact ??= f64ToInt64(data);
        int64Pair(big, exact, i);
        if (data[i] === LONG_NULL) data[i] = -TWO63 + 1024; // just above NULL: the pair holds the value
      }
      return exact ? { kind: 'fixed', type, data, exact } : { kind: 'fixed', type, data };
    }
    case 'DOUBLE': {
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) out[i] = double(at(i));
      return fromDoubles(type, out);
    }
    case 'DATE':
    case 'TIMESTAMP': {
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const v = at(i);
        const x = temporal(v);
        // An ISO string is micros, a DATE's number millis already.
        out[i] = type === 'DATE' && v?.kind === Kind.STRING ? Math.floor(x / 1000) : x;
      }
      return fromDoubles(type, out);
    }
    case 'IPV4': {
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const v = at(i);
        if (v?.kind === Kind.STRING) out[i] = parseIpv4Text(v.text) ?? NaN;
        else {
          const x = v?.kind === Kind.NUMBER ? integral(v) : null;
          out[i] = typeof x === 'number' && x >= 0 && x <= 0xffffffff ? x : NaN;
        }
      }
      return fromDoubles(type, out);
    }
    default:
      throw new Error(`json_extract has no typed form for ${type}`);
  }
}

/**
 * The kernel for a path parsed at bind time (null: a NULL path, no value anywhere), or for the
 * path of each row (undefined: the second argument read per row) and a result type (VARCHAR: the text).
 */
function extractKernel(steps: readonly JsonStep[] | null | undefined, type: SqlType): Kernel {
  return (args, n, kx: KernelContext) => {
    const docs = args[0]!;
    let path: string | null | undefined; // the last row's path, undefined before the first
    let rowSteps = steps;
    const at = (i: number): JsonValue | null => {
      if (steps === undefined) {
        const p = textAt(args[1]!, i);
        if (p !== path || rowSteps === undefined) rowSteps = p === null ? null : parseJsonPath(p);
        path = p;
      }
      const doc = rowSteps === null ? null : textAt(docs, i);
      return doc === null ? null : jsonAt(doc, rowSteps!);
    };
    if (type !== 'VARCHAR') return typedVector(type, n, at);
    const out = new TextOut('VARCHAR', n, kx);
    for (let i = 0; i < n; i++) {
      const v = at(i);
      out.set(i, v === null || v.kind === Kind.NULL ? null : v.text);
    }
    return out.vector();
  };
}

/** The path must be known at bind time (QuestDB: a constant or a bind variable); it is parsed once. */
function bindPath(type: SqlType): BindHook {
  return (args) => {
    const path = args[1]!;
    if (!path.constant || path.value === undefined) throw argError('constant or bind variable expected', path.pos);
    const steps = path.value === null ? null : parseJsonPath(String(path.value));
    return { kernel: extractKernel(steps, type), runArgs: [0] };
  };
}

const TYPED_BY_TAG = new Map([...JSON_TYPED.values()].map((t) => [`::${t}`, t]));

/** The typed form: its third argument must be a tag the binder wrote. */
const bindTyped: BindHook = (args, pos) => {
  const tag = args[2]!;
  const type = typeof tag.value === 'string' ? TYPED_BY_TAG.get(tag.value) : undefined;
  if (type === undefined) throw argError('please use json_extract(json,path)::type semantic', tag.pos);
  const r = bindPath(type)(args, pos) as { kernel: Kernel; runArgs: number[] };
  return { ...r, type };
};

export function registerJson(registry: FunctionRegistry): void {
  defineScalar(registry, 'json_extract', [
    {
      args: [accept.text, accept.text],
      build: () => ({ type: 'VARCHAR', kernel: extractKernel(undefined, 'VARCHAR'), bind: bindPath('VARCHAR') }),
    },
    {
      args: [accept.text, accept.text, accept.text],
      // The result type is the tag's (bindTyped); VARCHAR until the tag is read.
      build: () => ({ type: 'VARCHAR', kernel: extractKernel(undefined, 'VARCHAR'), bind: bindTyped }),
    },
  ]);
}
