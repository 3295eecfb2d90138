// Casts as scalar functions `cast_<type>` (CAST, `::`, implicit conversions):
// integers narrow by truncating bits, floating values truncate toward zero and
// saturate (Java), text parses (invalid -> NULL), values print as QuestDB's.
import { retypeVar } from '../core/vector-ops.js';
import {
  LONG_NULL,
  COLUMN_TYPES,
  geohashBits,
  isParametric,
  parseColumnType,
  typeKind,
  type ColumnType,
} from '../core/column-type.js';
import { f64ToInt64, type ColumnVector, type FixedVector, internStrings } from '../core/column-vector.js';
import type { Kernel, ScalarFunction, FunctionRegistry } from './registry.js';
import { noMatch } from './signature.js';
import { isText, type SqlType } from '../core/sql-type.js';
import { asDoubles, fromDoubles, textAt, textVector, texts } from '../core/vec.js';
import { nulls } from '../core/rows.js';
import { renderTexts } from '../core/render.js';
import { parametricCastKernel } from './cast-parametric.js';
import { int64Pair } from '../core/number-format.js';
import {
  isNullPair,
  microsToNanosPair,
  nanosFromTexts,
  nanosToMicros,
  nanosVector,
  pairsOf,
  setNullPair,
} from '../core/nanos.js';
import {
  parseBooleanText,
  parseDoubleText,
  parseIntText,
  parseIpv4Text,
  parseLong256Text,
  parseLongText,
  parseTimestampText,
  parseUuidText,
} from '../core/parse-text.js';

const NUMBERISH: readonly SqlType[] = [
  'BOOLEAN',
  'BYTE',
  'SHORT',
  'CHAR',
  'INT',
  'LONG',
  'FLOAT',
  'DOUBLE',
  'DATE',
  'TIMESTAMP',
];
const TWO63 = 9223372036854775808;

/** Java's (long) of a double: truncation toward zero, saturating; NaN -> NULL. */
function toLong(x: number): number {
  if (x !== x) return NaN;
  const t = Math.trunc(x);
  return t >= TWO63 ? TWO63 - 1024 : t < -TWO63 ? -TWO63 : t;
}

/** Java's (int) of a double: truncation toward zero, saturating. */
function toInt(x: number): number {
  const t = Math.trunc(x);
  return t >= 2147483647 ? 2147483647 : t <= -2147483648 ? -2147483648 : t;
}

/** Numbers (NaN = NULL) from a numeric source -> `to`, with Java's narrowing. */
function numericTo(from: ColumnType, to: SqlType, v: FixedVector, n: number): ColumnVector {
  const src = asDoubles(v);
  const floating = from === 'FLOAT' || from === 'DOUBLE';
  const out = new Float64Array(n);
  if (from === 'DATE' && to === 'TIMESTAMP') {
    for (let i = 0; i < n; i++) out[i] = src[i]! * 1000;
    return fromDoubles(to, out);
  }
  if (from === 'TIMESTAMP' && to === 'DATE') {
    for (let i = 0; i < n; i++) out[i] = Math.floor(src[i]! / 1000);
    return fromDoubles(to, out);
  }
  // The low 32 bits of a LONG beyond 2^53 come from its exact int64 pair.
  const lowBits = (i: number): number => (v.exact ? v.exact[2 * i]! : src[i]! | 0);
  switch (to) {
    case 'DOUBLE':
      return fromDoubles(to, from === 'DOUBLE' ? Float64Array.from(src) : src);
    case 'FLOAT':
      return fromDoubles(to, src);
    case 'LONG':
    case 'TIMESTAMP':
    case 'DATE':
    case 'TIMESTAMP_NS':
      for (let i = 0; i < n; i++) out[i] = floating ? toLong(src[i]!) : src[i]!;
      return fromDoubles(to, out);
    case 'INT':
    case 'IPV4':
      for (let i = 0; i < n; i++) {
        const x = src[i]!;
        out[i] = x !== x ? NaN : floating ? toInt(x) : lowBits(i);
      }
      // An INT NULL stays NULL; -2^31 reached by narrowing reads as NULL too, as in QuestDB.
      return fromDoubles(to, out);
    case 'SHORT':
    case 'BYTE':
    case 'CHAR': {
      const shift = to === 'BYTE' ? 24 : 16;
      for (let i = 0; i < n; i++) {
        const x = src[i]!;
        if (x !== x) {
          out[i] = 0;
          continue;
        }
        const bits = floating ? toInt(x) : lowBits(i);
        out[i] = to === 'CHAR' ? bits & 0xffff : (bits << shift) >> shift;
      }
      return fromDoubles(to, out);
    }
    case 'BOOLEAN':
      for (let i = 0; i < n; i++) {
        const x = src[i]!;
        out[i] = x === x && x !== 0 ? 1 : 0;
      }
      return fromDoubles(to, out);
    default:
      throw new Error(`no numeric cast to ${to}`);
  }
}

/** Per-row text -> number parse; symbols parse each dictionary entry once. */
function parseRows(v: ColumnVector, n: number, parse: (s: string) => number): Float64Array {
  const out = new Float64Array(n);
  if (v.kind === 'symbol') {
    const table = Float64Array.from(v.dict, parse);
    for (let i = 0; i < n; i++) {
      const k = v.keys[i]!;
      out[i] = k < 0 ? NaN : table[k]!;
    }
    return out;
  }
  for (let i = 0; i < n; i++) {
    const s = textAt(v, i);
    out[i] = s === null ? NaN : parse(s);
  }
  return out;
}

function textTo(to: SqlType, v: ColumnVector, n: number): ColumnVector {
  switch (to) {
    case 'INT':
      return fromDoubles(
        to,
        parseRows(v, n, (s) => parseIntText(s) ?? NaN),
      );
    case 'SHORT':
    case 'BYTE': {
      const shift = to === 'BYTE' ? 24 : 16;
      return fromDoubles(
        to,
        parseRows(v, n, (s) => {
          const x = parseIntText(s);
          return x === null ? 0 : (x << shift) >> shift;
        }),
      );
    }
    case 'LONG': {
      const data = parseRows(v, n, (x) => {
        const b = parseLongText(x);
        return b === null ? NaN : Number(b);
      });
      const out = fromDoubles(to, data);
      // Values past 2^53 keep every digit: int64 pairs for the whole vector, exact where the text had more precision.
      let exact: Int32Array | undefined;
      for (let i = 0; i < n; i++) {
        const x = out.data[i]!;
        if (data[i] !== data[i] || Math.abs(x) < 9007199254740992) continue;
        exact ??= f64ToInt64(out.data as Float64Array);
        int64Pair(parseLongText(textAt(v, i)!)!, exact, i);
        // -2^63 + 1 .. + 511 round to the NULL double: keep them distinguishable (the pair holds the value).
        if (x === LONG_NULL) (out.data as Float64Array)[i] = -TWO63 + 1024;
      }
      return exact ? { ...out, exact } : out;
    }
    case 'FLOAT':
    case 'DOUBLE':
      return fromDoubles(
        to,
        parseRows(v, n, (s) => parseDoubleText(s) ?? NaN),
      );
    case 'TIMESTAMP':
      return fromDoubles(
        to,
        parseRows(v, n, (s) => parseTimestampText(s) ?? NaN),
      );
    case 'DATE':
      return fromDoubles(
        to,
        parseRows(v, n, (s) => {
          const us = parseTimestampText(s);
          return us === null ? NaN : Math.floor(us / 1000);
        }),
      );
    case 'BOOLEAN':
      return fromDoubles(
        to,
        parseRows(v, n, (s) => (parseBooleanText(s) ? 1 : 0)),
      );
    case 'CHAR':
      return fromDoubles(
        to,
        parseRows(v, n, (s) => (s.length === 0 ? NaN : s.charCodeAt(0))),
      );
    case 'IPV4':
      return fromDoubles(
        to,
        parseRows(v, n, (s) => parseIpv4Text(s) ?? NaN),
      );
    case 'UUID': {
      const out = nulls('UUID', n) as FixedVector;
      const bytes = out.data as Uint8Array;
      // Invalid text leaves the row's NULL bytes in place (the parser validates before writing).
      for (let i = 0; i < n; i++) {
        const t = textAt(v, i);
        if (t !== null) parseUuidText(t, bytes, i * 16);
      }
      return out;
    }
    case 'LONG256': {
      const out = nulls('LONG256', n) as FixedVector;
      const bytes = out.data as Uint8Array;
      for (let i = 0; i < n; i++) {
        const t = textAt(v, i);
        if (t !== null) parseLong256Text(t, bytes, i * 32);
      }
      return out;
    }
    default:
      throw new Error(`no text cast to ${to}`);
  }
}

/** Most entries one call site's symbol dictionary grows to before it starts a new one. */
const MAX_DICT = 1 << 16;

/**
 * Text -> SYMBOL keeping one dictionary per call site across batches (it only
 * grows, so earlier keys stay valid and GROUP BY sees one dictionary).
 */
function symbolKernel(textsOf: (args: readonly ColumnVector[], n: number) => (string | null)[]): Kernel {
  let dict: string[] = [];
  let index = new Map<string, number>();
  return (args, n) => {
    const values = textsOf(args, n);
    if (dict.length + n > MAX_DICT) {
      dict = [];
      index = new Map();
    }
    return { kind: 'symbol', type: 'SYMBOL', keys: internStrings(values, dict, index), dict };
  };
}

/**
 * A number-like vector -> TIMESTAMP_NS: TIMESTAMP micros and DATE millis scaled,
 * integers taken as nanoseconds (exact pairs of a LONG kept), floating values truncated.
 */
function toNanos(from: SqlType, v: FixedVector, n: number): FixedVector {
  const pairs = new Int32Array(2 * n);
  if (from === 'LONG' || from === 'TIMESTAMP_NS') {
    pairs.set(pairsOf(v).subarray(0, 2 * n));
    return nanosVector(pairs);
  }
  const src = asDoubles(v);
  const scale = from === 'TIMESTAMP' ? 1 : from === 'DATE' ? 1000 : 0;
  for (let i = 0; i < n; i++) {
    const x = src[i]!;
    if (x !== x) {
      setNullPair(pairs, i);
      continue;
    }
    if (scale > 0) microsToNanosPair(x * scale, 0, pairs, i);
    else int64Pair(BigInt(toLong(x)), pairs, i);
  }
  return nanosVector(pairs);
}

/** TIMESTAMP_NS -> a number-like type: TIMESTAMP and DATE floor to their unit, LONG is the nanoseconds. */
function fromNanos(to: SqlType, v: FixedVector, n: number): ColumnVector {
  const p = pairsOf(v);
  if (to === 'LONG')
    return { kind: 'fixed', type: 'LONG', data: Float64Array.from(v.data.subarray(0, n)), exact: p.slice(0, 2 * n) };
  if (to === 'TIMESTAMP' || to === 'DATE') {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      if (isNullPair(p, i)) {
        out[i] = NaN;
        continue;
      }
      const us = nanosToMicros(p[2 * i]!, p[2 * i + 1]!);
      out[i] = to === 'TIMESTAMP' ? us : Math.floor(us / 1000);
    }
    return fromDoubles(to, out);
  }
  return numericTo('LONG', to, { kind: 'fixed', type: 'LONG', data: v.data, exact: p }, n);
}

/** Text -> TIMESTAMP_NS (ISO with up to nine fraction digits; invalid -> NULL). */
function textToNanos(v: ColumnVector, n: number): FixedVector {
  return nanosFromTexts(v.kind === 'symbol' ? texts(v).slice(0, n) : Array.from({ length: n }, (_, i) => textAt(v, i)));
}

/** The kernel casting `from` to `to`, or null when QuestDB cannot cast it. */
export function castKernel(from: SqlType, to: ColumnType): Kernel | null {
  if (from === to) return (args) => args[0]!;
  if (from === 'NULL') return (_args, n) => nulls(to, n);
  if (isParametric(to) || isParametric(from)) {
    const k = parametricCastKernel(from, to);
    if (k || (to !== 'STRING' && to !== 'VARCHAR' && to !== 'SYMBOL')) return k;
  }
  if (to === 'STRING' || to === 'VARCHAR') {
    if (from === 'BINARY') return null;
    if (from === 'STRING' || from === 'VARCHAR')
      return (args) => retypeVar(args[0] as Extract<ColumnVector, { kind: 'var' }>, to);
    return (args, n) =>
      textVector(to, from === 'SYMBOL' || from === 'CHAR' ? texts(args[0]!).slice(0, n) : renderTexts(args[0]!, n));
  }
  if (to === 'SYMBOL') {
    if (from === 'BINARY') return null;
    return symbolKernel((args, n) => (isText(from) ? texts(args[0]!).slice(0, n) : renderTexts(args[0]!, n)));
  }
  const textSource = from === 'STRING' || from === 'VARCHAR' || from === 'SYMBOL';
  if (to === 'TIMESTAMP_NS') {
    if (textSource) return (args, n) => textToNanos(args[0]!, n);
    if (NUMBERISH.includes(from) && from !== 'BOOLEAN' && from !== 'CHAR')
      return (args, n) => toNanos(from, args[0] as FixedVector, n);
    return null;
  }
  if (from === 'TIMESTAMP_NS') {
    if (NUMBERISH.includes(to) && to !== 'CHAR') return (args, n) => fromNanos(to, args[0] as FixedVector, n);
    return null;
  }
  if (textSource && (NUMBERISH.includes(to) || to === 'IPV4' || to === 'UUID' || to === 'LONG256'))
    return (args, n) => textTo(to, args[0]!, n);
  if (NUMBERISH.includes(from) && NUMBERISH.includes(to)) {
    return (args, n) => numericTo(from, to, args[0] as FixedVector, n);
  }
  if (from === 'INT' && to === 'IPV4') return (args, n) => numericTo('INT', 'IPV4', args[0] as FixedVector, n);
  if (from === 'IPV4' && (to === 'INT' || to === 'LONG')) {
    return (args, n) => {
      const d = (args[0] as FixedVector).data;
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const x = d[i]!;
        out[i] = x === 0 ? NaN : to === 'LONG' ? x >>> 0 : x;
      }
      return fromDoubles(to, out);
    };
  }
  return null;
}

/** Why a cast does not exist, in QuestDB's words: a GEOHASH cannot gain bits; other pairs have no such function. */
function castRefusal(from: SqlType, to: ColumnType): string {
  if (typeKind(to) === 'GEOHASH' && from !== 'NULL' && typeKind(from) === 'GEOHASH') {
    return `CAST cannot decrease precision from GEOHASH(${geohashBits(from)}b) to GEOHASH(${geohashBits(to)}b)`;
  }
  return noMatch('cast', [from, to]);
}

/** cast_<type>: the cast to one column type. */
function castFunction(to: ColumnType): ScalarFunction {
  return {
    name: `cast_${to.toLowerCase()}`,
    resolve(argTypes) {
      if (argTypes.length !== 1)
        return `there is no matching function \`cast\` with the argument types: (${argTypes.join(', ')})`;
      const from = argTypes[0]!;
      const kernel = castKernel(from, to);
      if (!kernel) return castRefusal(from, to);
      return { type: to, kernel, deterministic: true };
    },
  };
}

/** Registers cast_<TYPE> for every plain column type, and the family of casts to parametric types (cast_decimal(10,2)...). */
export function registerCasts(registry: FunctionRegistry): void {
  for (const to of COLUMN_TYPES) registry.registerScalar(castFunction(to));
  registry.registerScalarFamily((name) => {
    if (!name.startsWith('cast_')) return undefined;
    const text = name.slice(5);
    if (!isParametric(text.toUpperCase())) return undefined;
    let to: ColumnType | undefined;
    try {
      to = parseColumnType(text);
    } catch {
      return undefined;
    }
    return to === undefined ? undefined : castFunction(to);
  });
}
