// One writer per column type, chosen once per query, that appends row i of a
// vector to a ChunkWriter as JSON or as a CSV field, the way QuestDB prints
// values (QUESTDB-NOTES.md "Values"): DOUBLE like Java, LONG exact, TIMESTAMP
// ISO with micros, DATE with millis, NULL as null / an empty field.
import { INT_NULL, LONG_NULL, typeKind } from '../core/column-type.js';
import type { ColumnVector, TextDict, VarVector } from '../core/column-vector.js';
import type { SqlType } from '../core/sql-type.js';
import {
  F_DAY,
  F_MONTH,
  F_YEAR,
  daysFromCivil,
  formatDate,
  formatTimestamp,
  newFields,
  splitMicros,
} from '../core/datetime.js';
import { formatDouble, formatFloat, formatLong } from '../core/number-format.js';
import { PAIRS, SHORTEST_DOUBLE_BYTES, writeShortestDouble } from './shortest-double.js';
import { renderAt } from '../core/render.js';
import { ArrayReader, formatArrayAt, isArrayType } from '../core/array-values.js';
import { formatTimestampNs, nanosToMicros, subMicroNanos } from '../core/nanos.js';
import type { ChunkWriter } from './chunk-writer.js';

export type ValueWriter = (w: ChunkWriter, v: ColumnVector, i: number) => void;

const DAY_US = 86_400_000_000;
/** Timestamps in [0001-01-01, 10000-01-01) take the fast path; others go through formatTimestamp. */
const MIN_FAST_DAY = daysFromCivil(1, 1, 1);
const MAX_FAST_DAY = daysFromCivil(10000, 1, 1);

/**
 * Writes ISO timestamps with the text up to the second cached, so rows of the
 * same second cost a copy of 20 bytes and the fraction digits.
 */
class TimestampText {
  /** The second (since the epoch) whose `YYYY-MM-DDTHH:MM:SS.` is in #prefix, and its day. */
  #second = NaN;
  #day = NaN;
  readonly #prefix = new Uint8Array(20);
  readonly #fields = newFields();

  /** TIMESTAMP_NS: the micros' text with the three sub-micro digits before the Z. */
  writeNanos(w: ChunkWriter, lo: number, hi: number): void {
    const us = nanosToMicros(lo, hi);
    const day = Math.floor(us / DAY_US);
    // Near the ends of the int64 range the micros are not exact doubles: formatTimestampNs's BigInt path.
    if (hi >= 2_000_000_000 || hi <= -2_000_000_000 || day < MIN_FAST_DAY || day >= MAX_FAST_DAY) {
      w.ascii(formatTimestampNs(lo, hi));
      return;
    }
    this.write(w, us, 6, false);
    w.padded(subMicroNanos(lo, hi), 3);
    w.byte(90);
  }

  /** `us` as ISO text (micros: 6 fraction digits, DATE's millis: 3), with the Z unless !zone, inside quotes when `quote`. */
  write(w: ChunkWriter, us: number, fractionDigits: 6 | 3, zone = true, quote = false): void {
    const second = Math.floor(us / 1_000_000);
    const micros = us - second * 1_000_000;
    if (second !== this.#second) {
      const day = Math.floor(us / DAY_US);
      if (day < MIN_FAST_DAY || day >= MAX_FAST_DAY) {
        if (quote) w.byte(34);
        w.ascii(fractionDigits === 6 ? formatTimestamp(us) : formatDate(us / 1000));
        if (quote) w.byte(34);
        return;
      }
      this.#setSecond(second);
    }
    // One room check and straight stores: this runs once per timestamp of an export.
    w.ensure(32);
    const b = w.buf;
    let p = w.pos;
    if (quote) b[p++] = 34;
    const pre = this.#prefix;
    for (let k = 0; k < 20; k++) b[p++] = pre[k]!;
    if (fractionDigits === 6) {
      const high = (micros / 10000) | 0;
      const rest = micros - high * 10000;
      const mid = (rest / 100) | 0;
      const low = rest - mid * 100;
      b[p++] = PAIRS[2 * high]!;
      b[p++] = PAIRS[2 * high + 1]!;
      b[p++] = PAIRS[2 * mid]!;
      b[p++] = PAIRS[2 * mid + 1]!;
      b[p++] = PAIRS[2 * low]!;
      b[p++] = PAIRS[2 * low + 1]!;
    } else {
      const ms = (micros / 1000) | 0;
      const high = (ms / 100) | 0;
      const low = ms - high * 100;
      b[p++] = 48 + high;
      b[p++] = PAIRS[2 * low]!;
      b[p++] = PAIRS[2 * low + 1]!;
    }
    if (zone) b[p++] = 90;
    if (quote) b[p++] = 34;
    w.pos = p;
  }

  /** Puts `YYYY-MM-DDTHH:MM:SS.` of `second` (since the epoch) in #prefix: the date part only when the day changed. */
  #setSecond(second: number): void {
    const p = this.#prefix;
    const day = Math.floor(second / 86_400);
    if (day !== this.#day) {
      const f = this.#fields;
      splitMicros(day * DAY_US, f);
      digits(p, 0, f[F_YEAR]!, 4);
      p[4] = 45;
      digits(p, 5, f[F_MONTH]!, 2);
      p[7] = 45;
      digits(p, 8, f[F_DAY]!, 2);
      p[10] = 84;
      p[13] = 58;
      p[16] = 58;
      p[19] = 46;
      this.#day = day;
    }
    const inDay = second - day * 86_400;
    const hour = (inDay / 3600) | 0;
    const rest = inDay - hour * 3600;
    const minute = (rest / 60) | 0;
    const sec = rest - minute * 60;
    p[11] = PAIRS[2 * hour]!;
    p[12] = PAIRS[2 * hour + 1]!;
    p[14] = PAIRS[2 * minute]!;
    p[15] = PAIRS[2 * minute + 1]!;
    p[17] = PAIRS[2 * sec]!;
    p[18] = PAIRS[2 * sec + 1]!;
    this.#second = second;
  }
}

/** `n` as `width` zero-padded ASCII digits at p[at]. */
function digits(p: Uint8Array, at: number, n: number, width: number): void {
  for (let k = at + width - 1; k >= at; k--) {
    const q = Math.floor(n / 10);
    p[k] = 48 + (n - q * 10);
    n = q;
  }
}

/**
 * A DOUBLE as Java prints it: integers below 10^7 and the plain range 10^-3 <= |x| < 10^7 straight into
 * the buffer, other magnitudes (exponent layout) through formatDouble's string.
 */
function writeDouble(w: ChunkWriter, x: number): void {
  if (x > -1e7 && x < 1e7 && Math.floor(x) === x && !(x === 0 && 1 / x < 0)) {
    w.int(x);
    w.byte(46);
    w.byte(48);
    return;
  }
  w.ensure(SHORTEST_DOUBLE_BYTES);
  const end = writeShortestDouble(w.buf, w.pos, x);
  if (end >= 0) w.pos = end;
  else w.ascii(formatDouble(x));
}

function writeLong(w: ChunkWriter, x: number, v: ColumnVector, i: number): void {
  if (x > -9007199254740992 && x < 9007199254740992) w.int(x);
  else w.ascii(formatLong(x, (v as { exact?: Int32Array }).exact, i));
}

/** Encoded dictionary entries per dictionary array, built as rows ask for them. */
class DictCache {
  readonly #byDict = new WeakMap<readonly string[], (Uint8Array | undefined)[]>();
  constructor(private readonly encode: (s: string) => Uint8Array) {}

  get(dict: readonly string[], key: number): Uint8Array {
    let entries = this.#byDict.get(dict);
    if (!entries) {
      entries = [];
      this.#byDict.set(dict, entries);
    }
    let e = entries[key];
    if (e === undefined) {
      e = this.encode(dict[key]!);
      entries[key] = e;
    }
    return e;
  }
}

const jsonQuoted = (s: string): Uint8Array => Buffer.from(JSON.stringify(s), 'utf8');
/** Text as a quoted CSV field, escaped as ChunkWriter.csvEscaped escapes it (QuestDB's /exp rule). */
export function csvQuotedText(s: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is escaped
  return `"${s.replace(/["\\\x00-\x1f]/g, csvEscapeChar)}"`;
}
function csvEscapeChar(c: string): string {
  if (c === '"') return '""';
  if (c === '\\') return '\\\\';
  return JSON.stringify(c).slice(1, -1);
}
const csvQuoted = (s: string): Uint8Array => Buffer.from(csvQuotedText(s), 'utf8');

export interface JsonOptions {
  /** LONG values as JSON strings. */
  readonly quoteLargeNum: boolean;
}

/** One ArrayReader per vector, made when the writer meets a new vector (not per row). */
class ReaderCache {
  #v: ColumnVector | null = null;
  #r: ArrayReader | null = null;
  of(v: ColumnVector): ArrayReader {
    if (v !== this.#v) {
      this.#v = v;
      this.#r = new ArrayReader(v);
    }
    return this.#r!;
  }
}

/** Arrays in JSON: nested JSON arrays of numbers (NaN as null), NULL as null. */
function jsonArrayWriter(): ValueWriter {
  const readers = new ReaderCache();
  return (w, v, i) => {
    const r = readers.of(v);
    if (r.isNull(i)) {
      w.ascii('null');
      return;
    }
    r.open(i);
    let k = 0;
    const nest = (d: number): void => {
      w.byte(91);
      const len = r.shape[d]!;
      for (let j = 0; j < len; j++) {
        if (j > 0) w.byte(44);
        if (d === r.dims - 1) {
          const x = r.element(k++);
          if (x !== x || x === Infinity || x === -Infinity) w.ascii('null');
          else writeDouble(w, x);
        } else nest(d + 1);
      }
      w.byte(93);
    };
    nest(0);
  };
}

/** The JSON writer of a column of `type`. */
export function jsonValueWriter(type: SqlType, opts: JsonOptions): ValueWriter {
  if (isArrayType(type)) return jsonArrayWriter();
  switch (type) {
    case 'BOOLEAN':
      return (w, v, i) => w.ascii((v as { data: Uint8Array }).data[i] ? 'true' : 'false');
    case 'BYTE':
    case 'SHORT':
      return (w, v, i) => w.int((v as { data: Int16Array }).data[i]!);
    case 'INT':
      return (w, v, i) => {
        const x = (v as { data: Int32Array }).data[i]!;
        if (x === INT_NULL) w.ascii('null');
        else w.int(x);
      };
    case 'LONG':
      return (w, v, i) => {
        const x = (v as { data: Float64Array }).data[i]!;
        if (x === LONG_NULL) {
          w.ascii('null');
          return;
        }
        if (opts.quoteLargeNum) {
          w.byte(34);
          writeLong(w, x, v, i);
          w.byte(34);
        } else writeLong(w, x, v, i);
      };
    case 'DOUBLE':
    case 'NULL':
      return (w, v, i) => {
        const x = (v as { data: Float64Array }).data[i]!;
        if (x !== x || x === Infinity || x === -Infinity) w.ascii('null');
        else writeDouble(w, x);
      };
    case 'FLOAT':
      return (w, v, i) => {
        const x = (v as { data: Float32Array }).data[i]!;
        if (x !== x || x === Infinity || x === -Infinity) w.ascii('null');
        else w.ascii(formatFloat(x));
      };
    case 'TIMESTAMP':
    case 'DATE': {
      const ts = new TimestampText();
      const date = type === 'DATE';
      return (w, v, i) => {
        const x = (v as { data: Float64Array }).data[i]!;
        if (x === LONG_NULL) {
          w.ascii('null');
          return;
        }
        ts.write(w, date ? x * 1000 : x, date ? 3 : 6, true, true);
      };
    }
    case 'TIMESTAMP_NS': {
      const ts = new TimestampText();
      return (w, v, i) => {
        const p = (v as { exact: Int32Array }).exact;
        if ((v as { data: Float64Array }).data[i] === LONG_NULL) {
          w.ascii('null');
          return;
        }
        w.byte(34);
        ts.writeNanos(w, p[2 * i]!, p[2 * i + 1]!);
        w.byte(34);
      };
    }
    case 'SYMBOL': {
      const cache = new DictCache(jsonQuoted);
      return (w, v, i) => {
        const s = v as { keys: Int32Array; dict: readonly string[] };
        const k = s.keys[i]!;
        if (k < 0) w.ascii('null');
        else w.bytes(cache.get(s.dict, k));
      };
    }
    case 'STRING':
    case 'VARCHAR':
      return (w, v, i) => {
        const s = v as { bytes: Uint8Array; offsets: Int32Array; nulls: Uint8Array | null };
        if (s.nulls !== null && s.nulls[i]) {
          w.ascii('null');
          return;
        }
        w.byte(34);
        w.jsonEscaped(s.bytes, s.offsets[i]!, s.offsets[i + 1]!);
        w.byte(34);
      };
    // QuestDB writes a CHAR or LONG256 NULL as an empty string, not null.
    case 'CHAR':
    case 'LONG256':
      return (w, v, i) => {
        const t = renderAt(v, i);
        w.utf8(JSON.stringify(t ?? ''));
      };
    default:
      return (w, v, i) => {
        // IPV4, UUID, BINARY: rare; their text form, quoted.
        const t = renderAt(v, i);
        if (t === null) w.ascii('null');
        else w.utf8(JSON.stringify(t));
      };
  }
}

/**
 * The CSV writer of a column of `type`, as QuestDB's /exp writes it: text and
 * timestamps quoted, numbers, booleans, CHAR, IPv4, UUID and LONG256 bare,
 * NULL empty. A CHAR that is the delimiter (byte `delimiter`), `"` or a line
 * end is quoted (QuestDB writes it bare, which breaks the line).
 */
export function csvValueWriter(type: SqlType, delimiter = 0x2c): ValueWriter {
  if (isArrayType(type)) {
    // QuestDB quotes the array's text, and writes a NULL array as "null" (not an empty field).
    const readers = new ReaderCache();
    return (w, v, i) => w.utf8(csvQuotedText(formatArrayAt(readers.of(v), i) ?? 'null'));
  }
  switch (type) {
    case 'BOOLEAN':
      return (w, v, i) => w.ascii((v as { data: Uint8Array }).data[i] ? 'true' : 'false');
    case 'BYTE':
    case 'SHORT':
      return (w, v, i) => w.int((v as { data: Int16Array }).data[i]!);
    case 'INT':
      return (w, v, i) => {
        const x = (v as { data: Int32Array }).data[i]!;
        if (x !== INT_NULL) w.int(x);
      };
    case 'LONG':
      return (w, v, i) => {
        const x = (v as { data: Float64Array }).data[i]!;
        if (x !== LONG_NULL) writeLong(w, x, v, i);
      };
    case 'DOUBLE':
    case 'NULL':
      return (w, v, i) => {
        const x = (v as { data: Float64Array }).data[i]!;
        if (x === x && x !== Infinity && x !== -Infinity) writeDouble(w, x);
      };
    case 'FLOAT':
      return (w, v, i) => {
        const x = (v as { data: Float32Array }).data[i]!;
        if (x === x && x !== Infinity && x !== -Infinity) w.ascii(formatFloat(x));
      };
    case 'TIMESTAMP':
    case 'DATE': {
      const ts = new TimestampText();
      const date = type === 'DATE';
      return (w, v, i) => {
        const x = (v as { data: Float64Array }).data[i]!;
        if (x === LONG_NULL) return;
        ts.write(w, date ? x * 1000 : x, date ? 3 : 6, true, true);
      };
    }
    case 'TIMESTAMP_NS': {
      const ts = new TimestampText();
      return (w, v, i) => {
        const p = (v as { exact: Int32Array }).exact;
        if ((v as { data: Float64Array }).data[i] === LONG_NULL) return;
        w.byte(34);
        ts.writeNanos(w, p[2 * i]!, p[2 * i + 1]!);
        w.byte(34);
      };
    }
    case 'SYMBOL': {
      const cache = new DictCache(csvQuoted);
      return (w, v, i) => {
        const s = v as { keys: Int32Array; dict: readonly string[] };
        const k = s.keys[i]!;
        if (k >= 0) w.bytes(cache.get(s.dict, k));
      };
    }
    case 'STRING':
    case 'VARCHAR': {
      // Text with dictionary codes (an export's scan asks for them): each entry escaped once.
      const entries = new WeakMap<TextDict, (Uint8Array | undefined)[]>();
      let lastDict: TextDict | null = null;
      let texts: (Uint8Array | undefined)[] = [];
      return (w, v, i) => {
        const s = v as VarVector;
        const codes = s.codes;
        if (codes !== undefined) {
          const k = codes[i]!;
          if (k === 0) return; // NULL
          const d = s.dict!;
          if (d !== lastDict) {
            lastDict = d;
            let t = entries.get(d);
            if (t === undefined) entries.set(d, (t = []));
            texts = t;
          }
          const t = texts[k];
          if (t !== undefined) {
            w.bytes(t);
            return;
          }
          // The entry's first row: written as any text is, and kept.
          const at = w.pos;
          w.byte(34);
          w.csvEscaped(d.bytes, d.ends[k - 1]!, d.ends[k]!);
          w.byte(34);
          texts[k] = new Uint8Array(w.buf.subarray(at, w.pos));
          return;
        }
        if (s.nulls !== null && s.nulls[i]) return;
        w.byte(34);
        w.csvEscaped(s.bytes, s.offsets[i]!, s.offsets[i + 1]!);
        w.byte(34);
      };
    }
    // QuestDB writes these bare (z, 10.1.2.3, 0x0102, the UUID): their text never needs quotes,
    // except a CHAR that is a quote, a line break or the delimiter, which is quoted to keep the file readable.
    case 'CHAR':
      return (w, v, i) => {
        const c = (v as { data: Uint16Array }).data[i]!;
        if (c === 0) return;
        if (c === delimiter || c === 0x22 || c === 0x0a || c === 0x0d) {
          w.byte(34);
          if (c === 0x22) w.byte(34);
          w.byte(c);
          w.byte(34);
          return;
        }
        if (c < 0x80) w.byte(c);
        else w.utf8(String.fromCharCode(c >= 0xd800 && c <= 0xdfff ? 0xfffd : c));
      };
    case 'IPV4':
    case 'UUID':
    case 'LONG128':
    case 'LONG256':
      return (w, v, i) => {
        const t = renderAt(v, i);
        if (t !== null) w.ascii(t);
      };
    default:
      // QuestDB writes a NULL GEOHASH as a bare `null` (every other NULL is empty).
      if (typeKind(type) === 'GEOHASH')
        return (w, v, i) => {
          const t = renderAt(v, i);
          if (t === null) w.ascii('null');
          else w.utf8(csvQuotedText(t));
        };
      return (w, v, i) => {
        const t = renderAt(v, i);
        if (t !== null) w.utf8(csvQuotedText(t));
      };
  }
}
