// Typed column builders for the import: a field's bytes become a value in a
// reusable typed array (numbers, timestamps and text without a string per
// field), or are refused (the importer then applies the atomicity rule). A
// batch is handed to the table writer, which copies it, and the builder
// starts over in the same memory. The arrays start small and grow, each
// growth charged to the import's memory budget (BuilderMemory).
import type { MemoryBudget } from '../limits/memory-budget.js';
import type { ColumnType } from '../core/column-type.js';
import {
  COLUMN_TYPES,
  INT_NULL,
  LONG_NULL,
  decimalSpec,
  geohashBits,
  typeInfo,
  typeKind,
} from '../core/column-type.js';
import { fitsPrecision, parseDecimalText, putDecimal } from '../core/decimal.js';
import { geohashFromText, putGeohash } from '../core/geohash.js';
import type { ColumnInput } from '../core/column-vector.js';
import { daysFromCivil } from '../core/datetime.js';
import { dateFormat } from '../core/date-format.js';
import {
  parseDoubleText,
  parseIpv4Text,
  parseLongText,
  parseTimestampText,
  parseUuidText,
} from '../core/parse-text.js';
import { int64Pair } from '../core/number-format.js';
import { parseTimestampNsText } from '../core/nanos.js';

export interface ColumnBuilder {
  readonly type: ColumnType;
  /** Adds the value in `buf[start, end)`; false when it does not convert (nothing was added). */
  add(buf: Uint8Array, start: number, end: number, quoted: boolean): boolean;
  addNull(): void;
  /** Removes the last value (a row rejected after this column took its field). */
  pop(): void;
  /** The value added last, as a number (fixed-width numeric builders). */
  last?(): number;
  /**
   * Parses the unquoted field at `i` of `b` while finding its end (the delimiter `d`, \n or \r, before
   * `n`), adds its value exactly as add() would and returns the end's index; -1, with nothing added,
   * when it is not a plain value of the common form (ingest/fast-rows.ts then leaves the row to the
   * tokenizer). Builders without it are scanned first and then given to add().
   */
  scan?(d: number, b: Uint8Array, i: number, n: number): number;
  readonly length: number;
  /** The values as writer input (views valid until the next add), then empty again. */
  take(): ColumnInput;
}

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

/**
 * ColumnBuilder.scan for a builder without a scan of its own: the field's end found first (an
 * unquoted, non-empty field), then its add().
 */
export function scanField(builder: ColumnBuilder, d: number, b: Uint8Array, i: number, n: number): number {
  if (i >= n || b[i] === QUOTE) return -1;
  const hi = d > CR ? d : CR;
  let j = i;
  let x: number;
  while (j < n && ((x = b[j]!) > hi || (x !== d && x !== LF && x !== CR))) j++;
  if (j === i || j >= n) return -1;
  return builder.add(b, i, j, false) ? j : -1;
}

const decoder = new TextDecoder();
/** Bytes as Latin-1 text: short ones by hand (cheaper than a Buffer view), long ones natively (a string per byte would bury the GC). */
const latin1 = (b: Uint8Array, s: number, e: number): string => {
  if (e - s > 64) return Buffer.from(b.buffer, b.byteOffset + s, e - s).toString('latin1');
  let out = '';
  for (let i = s; i < e; i++) out += String.fromCharCode(b[i]!);
  return out;
};
const isAscii = (b: Uint8Array, s: number, e: number): boolean => {
  for (let i = s; i < e; i++) if (b[i]! >= 0x80) return false;
  return true;
};
/** A field as a JS string (UTF-8). */
export const fieldText = (b: Uint8Array, s: number, e: number): string =>
  isAscii(b, s, e) ? latin1(b, s, e) : decoder.decode(b.subarray(s, e));

const POW10 = Array.from({ length: 23 }, (_, i) => 10 ** i);

/** The parts of the decimal readDecimal read last (one object for the process: no allocation per value). */
const decimal = { neg: false, mantissa: 0, digits: 0, scale: 0 };

/**
 * `[+-]digits[.digits]` from `b[i]` (no further than `e`): returns where it ends, its sign, digits
 * as an integer, how many, and the power of ten to scale by in `decimal`. Each byte is read once
 * (`x >>> 0 > 9`: not a digit, as a byte below '0' wraps around).
 */
function readDecimal(b: Uint8Array, i: number, e: number): number {
  let neg = false;
  if (i < e && (b[i] === 45 || b[i] === 43)) {
    neg = b[i] === 45;
    i++;
  }
  let m = 0;
  let x: number;
  const intStart = i;
  while (i < e && (x = b[i]! - 48) >>> 0 <= 9) {
    m = m * 10 + x;
    i++;
  }
  let digits = i - intStart;
  let scale = 0;
  if (i < e && b[i] === 46) {
    const fracStart = ++i;
    while (i < e && (x = b[i]! - 48) >>> 0 <= 9) {
      m = m * 10 + x;
      i++;
    }
    scale = fracStart - i;
    digits -= scale;
  }
  decimal.neg = neg;
  decimal.mantissa = m;
  decimal.digits = digits;
  decimal.scale = scale;
  return i;
}

/**
 * A decimal number from bytes: `[+-]digits[.digits][(e|E)[+-]digits]`. Exact
 * (one rounding) when the digits fit 2^53 and the power of ten is at most 22
 * (Clinger's fast path); other forms go through Number() on the text.
 */
export function parseDoubleBytes(b: Uint8Array, s: number, e: number): number | null {
  let i = readDecimal(b, s, e);
  const { neg, mantissa: m, digits } = decimal;
  let scale = decimal.scale;
  if (digits === 0) return slowDouble(b, s, e);
  if (i < e && (b[i] === 101 || b[i] === 69)) {
    i++;
    let eneg = false;
    if (i < e && (b[i] === 45 || b[i] === 43)) {
      eneg = b[i] === 45;
      i++;
    }
    let x = 0;
    let ed = 0;
    while (i < e && b[i]! >= 48 && b[i]! <= 57 && ed < 6) {
      x = x * 10 + (b[i]! - 48);
      i++;
      ed++;
    }
    if (ed === 0) return null;
    scale += eneg ? -x : x;
  }
  if (i !== e) return slowDouble(b, s, e);
  if (digits > 15 || scale > 22 || scale < -22) return slowDouble(b, s, e);
  const v = scale >= 0 ? m * POW10[scale]! : m / POW10[-scale]!;
  return neg ? -v : v;
}

function slowDouble(b: Uint8Array, s: number, e: number): number | null {
  const v = parseDoubleText(latin1(b, s, e));
  return v === null || v !== v ? null : v;
}

/** An integer from bytes with an optional sign; null when not all digits or past `max` in magnitude. */
function parseIntBytes(b: Uint8Array, s: number, e: number, max: number): number | null {
  let i = s;
  let neg = false;
  if (i < e && (b[i] === 45 || b[i] === 43)) {
    neg = b[i] === 45;
    i++;
  }
  if (i === e || e - i > 16) return null;
  let v = 0;
  for (; i < e; i++) {
    const d = b[i]! - 48;
    if (d < 0 || d > 9) return null;
    v = v * 10 + d;
  }
  if (v > max) return null;
  return neg ? -v : v;
}

const DAY_US = 86_400_000_000;
/** TimestampParser's fast form read whole, naming a day its month does not have. */
const NO_SUCH_DAY = -2;

/** Two ASCII digits at `i` as a number, or -1. */
function two(b: Uint8Array, i: number): number {
  const x = b[i]! - 48;
  const y = b[i + 1]! - 48;
  return x >= 0 && x <= 9 && y >= 0 && y <= 9 ? x * 10 + y : -1;
}

/**
 * ISO-8601 timestamps from bytes on the fast path: `yyyy-MM-dd`, then `T` or a
 * space and `HH:mm:ss`, an optional fraction of 1-9 digits (micros kept) and
 * an optional `Z`. The day number is cached while consecutive rows share a
 * date. Anything else (offsets, partial times) goes through the full parser.
 */
export class TimestampParser {
  #dateKey = -1;
  #day = 0;
  /** The value the last successful scan() read. */
  value = 0;

  /** Where the last #iso() form ended (also when its day does not exist in its month). */
  #end = 0;

  parse(b: Uint8Array, s: number, e: number): number | null {
    const end = this.#iso(b, s, e);
    if (end === e) return this.value;
    // The whole text in the fast form, on a day its month does not have (2024-02-30).
    if (end === NO_SUCH_DAY && this.#end === e) return null;
    return this.#slow(b, s, e);
  }

  /**
   * The fast form at `i`, ending at the delimiter `d`, \n or \r before `n`: the end's index (the
   * value in `value`, as parse() reads it), or -1 for anything else.
   */
  scan(d: number, b: Uint8Array, i: number, n: number): number {
    const j = this.#iso(b, i, n);
    if (j < 0 || j >= n) return -1;
    const t = b[j]!;
    return t === d || t === 0x0a || t === 0x0d ? j : -1;
  }

  /** The fast form from `s`, read no further than `e`: where it ends (the value in `value`), NO_SUCH_DAY, or -1. */
  #iso(b: Uint8Array, s: number, e: number): number {
    if (
      e - s >= 19 &&
      b[s + 4] === 45 &&
      b[s + 7] === 45 &&
      (b[s + 10] === 84 || b[s + 10] === 32) &&
      b[s + 13] === 58 &&
      b[s + 16] === 58
    ) {
      const y1 = two(b, s),
        y2 = two(b, s + 2),
        mo = two(b, s + 5),
        dd = two(b, s + 8),
        hh = two(b, s + 11),
        mi = two(b, s + 14),
        ss = two(b, s + 17);
      if (
        y1 >= 0 &&
        y2 >= 0 &&
        mo >= 1 &&
        mo <= 12 &&
        dd >= 1 &&
        dd <= 31 &&
        hh >= 0 &&
        hh <= 23 &&
        mi >= 0 &&
        mi <= 59 &&
        ss >= 0 &&
        ss <= 59
      ) {
        let i = s + 19;
        let micros = 0;
        if (i < e && b[i] === 46) {
          i++;
          let k = 0;
          let x: number;
          while (i < e && (x = b[i]! - 48) >>> 0 <= 9) {
            if (k < 6) micros = micros * 10 + x;
            k++;
            i++;
          }
          if (k === 0 || k > 9) return -1;
          for (; k < 6; k++) micros *= 10;
        }
        if (i < e && (b[i] === 90 || b[i] === 122)) i++;
        const key = ((y1 * 100 + y2) * 100 + mo) * 100 + dd;
        if (key !== this.#dateKey) {
          const year = y1 * 100 + y2;
          if (dd > daysInMonth(year, mo)) {
            this.#end = i;
            return NO_SUCH_DAY;
          }
          this.#day = daysFromCivil(year, mo, dd);
          this.#dateKey = key;
        }
        this.value = this.#day * DAY_US + ((hh * 60 + mi) * 60 + ss) * 1_000_000 + micros;
        return i;
      }
    }
    return -1;
  }

  #slow(b: Uint8Array, s: number, e: number): number | null {
    const text = latin1(b, s, e);
    // A bare integer is not a timestamp here (detection relies on that); columns of epoch values use a pattern.
    if (/^[+-]?\d+$/.test(text)) return null;
    return parseTimestampText(text);
  }
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Timestamp text with a schema pattern: QuestDB pattern letters, or `millis` / `micros` for epoch numbers. */
export function patternParser(pattern: string): (b: Uint8Array, s: number, e: number) => number | null {
  const p = pattern.trim().toLowerCase();
  if (p === 'millis' || p === 'micros' || p === 'seconds') {
    const scale = p === 'millis' ? 1000 : p === 'micros' ? 1 : 1_000_000;
    return (b, s, e) => {
      const v = parseIntBytes(b, s, e, 9007199254740991);
      return v === null ? null : v * scale;
    };
  }
  const f = dateFormat(pattern);
  return (b, s, e) => f.parse(fieldText(b, s, e));
}

/**
 * What the builders of one import share: the budget their arrays are charged
 * to, the rows they start with room for (a wide file's batches are short, so
 * its builders never allocate more than a batch needs), and the signal that
 * text outgrew a batch's bytes (the batcher then hands the batch over at the
 * end of the row).
 */
export class BuilderMemory {
  constructor(
    readonly budget: MemoryBudget | null,
    /** Rows the arrays have room for at first (they double from there as rows come). */
    readonly initialRows: number,
    /** Text bytes past which a batch is handed over before its row count is reached. */
    readonly batchBytes: number,
    /** Called when a text builder holds more than batchBytes (the batcher ends the batch with the row). */
    readonly full: () => void = () => undefined,
  ) {}

  charge(bytes: number): void {
    this.budget?.charge(bytes, "the import's column builders");
  }
}

/** Builders that are not part of an import (tests): no budget, 64k rows. */
const UNBOUNDED = new BuilderMemory(null, 1 << 16, Infinity);

/** A growable typed array with a length; every allocation is charged first. */
class Grow<T extends Float64Array | Int32Array | Int16Array | Int8Array | Uint8Array | Uint16Array | Float32Array> {
  data: T;
  length = 0;
  constructor(
    readonly make: (n: number) => T,
    capacity: number,
    readonly mem: BuilderMemory,
  ) {
    const data = make(0);
    mem.charge(capacity * data.BYTES_PER_ELEMENT);
    this.data = make(capacity);
  }
  ensure(extra: number): void {
    if (this.length + extra <= this.data.length) return;
    const n = Math.max(this.data.length * 2, this.length + extra);
    this.mem.charge((n - this.data.length) * this.data.BYTES_PER_ELEMENT);
    const bigger = this.make(n);
    bigger.set(this.data.subarray(0, this.length));
    this.data = bigger;
  }
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }
}

abstract class FixedBuilder<
  T extends Float64Array | Int32Array | Int16Array | Int8Array | Uint8Array | Uint16Array | Float32Array,
> implements ColumnBuilder {
  protected readonly g: Grow<T>;
  constructor(
    readonly type: ColumnType,
    make: (n: number) => T,
    readonly nullValue: number,
    protected readonly mem: BuilderMemory,
  ) {
    this.g = new Grow(make, mem.initialRows, mem);
  }
  get length(): number {
    return this.g.length;
  }
  abstract add(buf: Uint8Array, start: number, end: number, quoted: boolean): boolean;
  addNull(): void {
    this.put(this.nullValue);
  }
  protected put(v: number): void {
    this.g.ensure(1);
    this.g.data[this.g.length++] = v;
  }
  pop(): void {
    this.g.length--;
  }
  last(): number {
    return this.g.data[this.g.length - 1]!;
  }
  take(): ColumnInput {
    const v = this.g.view();
    this.g.length = 0;
    return v;
  }
}

class DoubleBuilder extends FixedBuilder<Float64Array> {
  constructor(mem: BuilderMemory) {
    super('DOUBLE', (n) => new Float64Array(n), NaN, mem);
  }
  add(b: Uint8Array, s: number, e: number): boolean {
    const v = parseDoubleBytes(b, s, e);
    if (v === null) return false;
    this.put(v);
    return true;
  }
  /** `[+-]digits[.digits]` of at most 15 digits, as parseDoubleBytes computes it (one pass over the bytes). */
  scan(d: number, b: Uint8Array, i: number, n: number): number {
    const j = readDecimal(b, i, n);
    if (decimal.digits === 0 || decimal.digits > 15 || j >= n) return -1;
    const t = b[j]!;
    if (t !== d && t !== LF && t !== CR) return -1;
    const v = decimal.mantissa / POW10[-decimal.scale]!;
    this.put(decimal.neg ? -v : v);
    return j;
  }
}

class FloatBuilder extends FixedBuilder<Float32Array> {
  constructor(mem: BuilderMemory) {
    super('FLOAT', (n) => new Float32Array(n), NaN, mem);
  }
  add(b: Uint8Array, s: number, e: number): boolean {
    const v = parseDoubleBytes(b, s, e);
    if (v === null) return false;
    this.put(v);
    return true;
  }
}

class IntBuilder extends FixedBuilder<Int32Array> {
  constructor(mem: BuilderMemory) {
    super('INT', (n) => new Int32Array(n), INT_NULL, mem);
  }
  add(b: Uint8Array, s: number, e: number): boolean {
    const v = parseIntBytes(b, s, e, 2147483647);
    if (v === null) return false;
    this.put(v);
    return true;
  }
}

class SmallIntBuilder extends FixedBuilder<Int16Array | Int8Array> {
  readonly #max: number;
  constructor(type: 'SHORT' | 'BYTE', mem: BuilderMemory) {
    super(type, (n) => (type === 'SHORT' ? new Int16Array(n) : new Int8Array(n)), 0, mem);
    this.#max = type === 'SHORT' ? 32767 : 127;
  }
  add(b: Uint8Array, s: number, e: number): boolean {
    const v = parseIntBytes(b, s, e, this.#max + 1);
    if (v === null || v > this.#max) return false;
    this.put(v);
    return true;
  }
}

class BooleanBuilder extends FixedBuilder<Uint8Array> {
  constructor(mem: BuilderMemory) {
    super('BOOLEAN', (n) => new Uint8Array(n), 0, mem);
  }
  add(b: Uint8Array, s: number, e: number): boolean {
    const n = e - s;
    if (
      n === 4 &&
      (b[s]! | 32) === 116 &&
      (b[s + 1]! | 32) === 114 &&
      (b[s + 2]! | 32) === 117 &&
      (b[s + 3]! | 32) === 101
    ) {
      this.put(1);
      return true;
    }
    if (
      n === 5 &&
      (b[s]! | 32) === 102 &&
      (b[s + 1]! | 32) === 97 &&
      (b[s + 2]! | 32) === 108 &&
      (b[s + 3]! | 32) === 115 &&
      (b[s + 4]! | 32) === 101
    ) {
      this.put(0);
      return true;
    }
    return false;
  }
}

class CharBuilder extends FixedBuilder<Uint16Array> {
  constructor(mem: BuilderMemory) {
    super('CHAR', (n) => new Uint16Array(n), 0, mem);
  }
  add(b: Uint8Array, s: number, e: number): boolean {
    const t = fieldText(b, s, e);
    if (t.length !== 1) return false;
    this.put(t.charCodeAt(0));
    return true;
  }
}

class Ipv4Builder extends FixedBuilder<Int32Array> {
  constructor(mem: BuilderMemory) {
    super('IPV4', (n) => new Int32Array(n), 0, mem);
  }
  add(b: Uint8Array, s: number, e: number): boolean {
    const v = parseIpv4Text(latin1(b, s, e));
    if (v === null) return false;
    this.put(v);
    return true;
  }
}

/** LONG, TIMESTAMP, DATE and TIMESTAMP_NS: doubles, with exact int64 pairs once a value passes 2^53 (TIMESTAMP_NS: always). */
class Int64Builder extends FixedBuilder<Float64Array> {
  #exact: Grow<Int32Array> | null = null;
  readonly #parse: (b: Uint8Array, s: number, e: number) => number | null;
  constructor(type: 'LONG' | 'TIMESTAMP' | 'DATE' | 'TIMESTAMP_NS', pattern: string | undefined, mem: BuilderMemory) {
    super(type, (n) => new Float64Array(n), LONG_NULL, mem);
    if (type === 'TIMESTAMP_NS') {
      // Nanoseconds pass 2^53: every row keeps its exact pair (a pattern's micros scaled by 1000).
      const p = pattern === undefined ? null : patternParser(pattern);
      this.#parse = (b, s, e) => {
        let ns: bigint | null;
        if (p === null) ns = parseTimestampNsText(latin1(b, s, e));
        else {
          const us = p(b, s, e);
          ns = us === null ? null : BigInt(us) * 1000n;
        }
        if (ns === null) return null;
        this.#exactPair(ns);
        return Number(ns);
      };
    } else if (pattern !== undefined) {
      const p = patternParser(pattern);
      this.#parse =
        type === 'DATE'
          ? (b, s, e) => {
              const v = p(b, s, e);
              return v === null ? null : Math.floor(v / 1000);
            }
          : p;
    } else if (type === 'LONG') {
      this.#parse = (b, s, e) => this.#long(b, s, e);
    } else {
      const ts = new TimestampParser();
      if (type === 'TIMESTAMP') this.#ts = ts;
      this.#parse =
        type === 'DATE'
          ? (b, s, e) => {
              const v = ts.parse(b, s, e);
              return v === null ? null : Math.floor(v / 1000);
            }
          : (b, s, e) => ts.parse(b, s, e);
    }
  }
  #long(b: Uint8Array, s: number, e: number): number | null {
    const v = parseIntBytes(b, s, e, 9007199254740991);
    if (v !== null) return v;
    const big = parseLongText(latin1(b, s, e));
    if (big === null) return null;
    this.#exactPair(big);
    return Number(big);
  }
  #exactPair(big: bigint): void {
    if (this.#exact === null) {
      this.#exact = new Grow((n) => new Int32Array(n), Math.max(this.g.data.length, 1) * 2, this.mem);
      // Earlier rows of this batch get their pairs from their doubles.
      for (let i = 0; i < this.g.length; i++) this.#pushPair(this.g.data[i]!);
    }
    this.#exact.ensure(2);
    int64Pair(big, this.#exact.data, this.#exact.length / 2);
    this.#exact.length += 2;
    this.#pendingExact = true;
  }
  #pendingExact = false;
  #pushPair(x: number): void {
    const ex = this.#exact!;
    ex.ensure(2);
    int64Pair(x === LONG_NULL ? -(2n ** 63n) : BigInt(x), ex.data, ex.length / 2);
    ex.length += 2;
  }
  override put(v: number): void {
    super.put(v);
    if (this.#exact !== null) {
      if (this.#pendingExact) this.#pendingExact = false;
      else this.#pushPair(v);
    }
  }
  override pop(): void {
    super.pop();
    if (this.#exact !== null) this.#exact.length -= 2;
  }
  /** TIMESTAMP without a pattern: the parser scan() reads through. */
  readonly #ts: TimestampParser | null = null;
  scan(d: number, b: Uint8Array, i: number, n: number): number {
    const ts = this.#ts;
    if (ts === null) return scanField(this, d, b, i, n);
    const j = ts.scan(d, b, i, n);
    if (j >= 0) this.put(ts.value);
    return j;
  }
  add(b: Uint8Array, s: number, e: number): boolean {
    const v = this.#parse(b, s, e);
    if (v === null || v === LONG_NULL) {
      this.#pendingExact = false;
      if (this.#exact) this.#exact.length = Math.min(this.#exact.length, this.g.length * 2);
      return false;
    }
    this.put(v);
    return true;
  }
  override take(): ColumnInput {
    if (this.#exact === null) return super.take();
    const pairs = this.#exact.view();
    const out = new BigInt64Array(pairs.buffer, pairs.byteOffset, pairs.length / 2);
    this.g.length = 0;
    this.#exact.length = 0;
    return out;
  }
}

class UuidBuilder implements ColumnBuilder {
  readonly type = 'UUID';
  readonly #g: Grow<Uint8Array>;
  constructor(mem: BuilderMemory) {
    this.#g = new Grow((n) => new Uint8Array(n), mem.initialRows * 16, mem);
  }
  get length(): number {
    return this.#g.length / 16;
  }
  add(b: Uint8Array, s: number, e: number): boolean {
    this.#g.ensure(16);
    if (!parseUuidText(latin1(b, s, e), this.#g.data, this.#g.length)) return false;
    this.#g.length += 16;
    return true;
  }
  addNull(): void {
    this.#g.ensure(16);
    this.#g.data.fill(0, this.#g.length, this.#g.length + 16);
    this.#g.data[this.#g.length + 7] = 0x80;
    this.#g.data[this.#g.length + 15] = 0x80;
    this.#g.length += 16;
  }
  pop(): void {
    this.#g.length -= 16;
  }
  take(): ColumnInput {
    const v = this.#g.view();
    this.#g.length = 0;
    return v;
  }
}

/**
 * GEOHASH (base32 text, at least the column's bits, extra ones cut off) and
 * DECIMAL (a number, rounded to the column's scale, within its precision):
 * their bytes, `width` a row; anything else is a bad value.
 */
class ByteRowsBuilder implements ColumnBuilder {
  readonly #g: Grow<Uint8Array>;
  readonly #w: number;
  readonly #put: (text: string, at: number) => boolean;
  constructor(
    readonly type: ColumnType,
    mem: BuilderMemory,
  ) {
    const w = typeInfo(type).width;
    this.#w = w;
    this.#g = new Grow((n) => new Uint8Array(n), mem.initialRows * w, mem);
    if (typeKind(type) === 'GEOHASH') {
      const bits = geohashBits(type);
      this.#put = (text, row) => {
        const x = geohashFromText(text, bits);
        if (x === null) return false;
        putGeohash(this.#g.data, row, w, x);
        return true;
      };
    } else {
      const { precision, scale } = decimalSpec(type);
      this.#put = (text, row) => {
        const x = parseDecimalText(text, scale);
        if (x === null || !fitsPrecision(x, precision)) return false;
        putDecimal(this.#g.data, row, w, x);
        return true;
      };
    }
  }
  get length(): number {
    return this.#g.length / this.#w;
  }
  add(b: Uint8Array, s: number, e: number): boolean {
    this.#g.ensure(this.#w);
    if (!this.#put(latin1(b, s, e), this.#g.length / this.#w)) return false;
    this.#g.length += this.#w;
    return true;
  }
  addNull(): void {
    this.#g.ensure(this.#w);
    if (typeKind(this.type) === 'GEOHASH') putGeohash(this.#g.data, this.#g.length / this.#w, this.#w, null);
    else putDecimal(this.#g.data, this.#g.length / this.#w, this.#w, null);
    this.#g.length += this.#w;
  }
  pop(): void {
    this.#g.length -= this.#w;
  }
  take(): ColumnInput {
    const v = this.#g.view();
    this.#g.length = 0;
    return v;
  }
}

/** STRING, VARCHAR and BINARY: the field's bytes as they are, NULL for an unquoted empty field. */
class TextBuilder implements ColumnBuilder {
  readonly #bytes: Grow<Uint8Array>;
  readonly #offsets: Grow<Int32Array>;
  readonly #nulls: Grow<Uint8Array>;
  readonly #mem: BuilderMemory;
  #anyNull = false;
  constructor(
    readonly type: ColumnType,
    mem: BuilderMemory,
  ) {
    this.#mem = mem;
    this.#bytes = new Grow((n) => new Uint8Array(n), mem.initialRows * 16, mem);
    this.#offsets = new Grow((n) => new Int32Array(n), mem.initialRows + 1, mem);
    this.#nulls = new Grow((n) => new Uint8Array(n), mem.initialRows, mem);
    this.#offsets.length = 1;
  }
  get length(): number {
    return this.#nulls.length;
  }
  /** The field's bytes copied as they are scanned. */
  scan(d: number, b: Uint8Array, i: number, n: number): number {
    if (i >= n || b[i] === QUOTE) return -1;
    const hi = d > CR ? d : CR;
    const bytes = this.#bytes;
    const from = bytes.length;
    let data = bytes.data;
    let at = from;
    let j = i;
    let x: number;
    while (j < n && ((x = b[j]!) > hi || (x !== d && x !== LF && x !== CR))) {
      if (at === data.length) {
        bytes.length = at;
        bytes.ensure(1);
        data = bytes.data;
      }
      data[at++] = x;
      j++;
    }
    if (j === i || j >= n) {
      bytes.length = from;
      return -1;
    }
    bytes.length = at;
    if (at > this.#mem.batchBytes) this.#mem.full();
    this.#end(0);
    return j;
  }
  add(b: Uint8Array, s: number, e: number): boolean {
    const n = e - s;
    this.#bytes.ensure(n);
    const d = this.#bytes.data;
    let at = this.#bytes.length;
    // Short values (most text fields) byte by byte: a subarray + set per field costs more than the copy.
    if (n <= 32) for (let i = s; i < e; i++) d[at++] = b[i]!;
    else {
      d.set(b.subarray(s, e), at);
      at += n;
    }
    this.#bytes.length = at;
    // Long values make a batch big before its row count is reached: hand it over early.
    if (at > this.#mem.batchBytes) this.#mem.full();
    this.#end(0);
    return true;
  }
  addNull(): void {
    this.#anyNull = true;
    this.#end(1);
  }
  #end(isNull: number): void {
    this.#offsets.ensure(1);
    this.#offsets.data[this.#offsets.length++] = this.#bytes.length;
    this.#nulls.ensure(1);
    this.#nulls.data[this.#nulls.length++] = isNull;
  }
  pop(): void {
    this.#offsets.length--;
    this.#nulls.length--;
    this.#bytes.length = this.#offsets.data[this.#offsets.length - 1]!;
  }
  take(): ColumnInput {
    const v = {
      kind: 'var' as const,
      type: this.type,
      bytes: this.#bytes.view(),
      offsets: this.#offsets.view(),
      nulls: this.#anyNull ? this.#nulls.view() : null,
    };
    this.#bytes.length = 0;
    this.#offsets.length = 1;
    this.#nulls.length = 0;
    this.#anyNull = false;
    return v;
  }
}

/** SYMBOL: keys into one dictionary for the whole import (the writer maps it to the table's once per value). */
class SymbolBuilder implements ColumnBuilder {
  readonly type = 'SYMBOL';
  readonly #dict: string[] = [];
  readonly #index = new Map<string, number>();
  readonly #keys: Grow<Int32Array>;
  readonly #mem: BuilderMemory;
  constructor(mem: BuilderMemory) {
    this.#mem = mem;
    this.#keys = new Grow((n) => new Int32Array(n), mem.initialRows, mem);
  }
  get length(): number {
    return this.#keys.length;
  }
  add(b: Uint8Array, s: number, e: number): boolean {
    const t = fieldText(b, s, e);
    let k = this.#index.get(t);
    if (k === undefined) {
      // The dictionary lives for the whole import (and the table's copy with it): each new value is charged.
      this.#mem.budget?.charge(SYMBOL_ENTRY_BYTES + 2 * t.length, "the import's SYMBOL dictionaries");
      k = this.#dict.length;
      this.#dict.push(t);
      this.#index.set(t, k);
    }
    this.#keys.ensure(1);
    this.#keys.data[this.#keys.length++] = k;
    return true;
  }
  addNull(): void {
    this.#keys.ensure(1);
    this.#keys.data[this.#keys.length++] = -1;
  }
  pop(): void {
    this.#keys.length--;
  }
  take(): ColumnInput {
    const v = { kind: 'symbol' as const, type: 'SYMBOL' as const, keys: this.#keys.view(), dict: this.#dict };
    this.#keys.length = 0;
    return v;
  }
}

/**
 * What one new SYMBOL value costs beyond its characters, here and in the table
 * writer's mapping: string headers, the Map entry, the array slot.
 */
const SYMBOL_ENTRY_BYTES = 96;

/**
 * Column types a file can be imported into: every plain type but LONG256, LONG128 and INTERVAL (not a column type)
 * (GEOHASH and DECIMAL of any parameters too: importable()).
 */
export const IMPORTABLE: readonly ColumnType[] = COLUMN_TYPES.filter(
  (t) => t !== 'LONG256' && t !== 'LONG128' && t !== 'INTERVAL',
);

/** Whether a file can be imported into a column of `type`. */
export function importable(type: ColumnType): boolean {
  const kind = typeKind(type);
  return IMPORTABLE.includes(type) || kind === 'GEOHASH' || kind === 'DECIMAL';
}

/** A builder for `type`; its arrays are charged to `mem`'s budget. */
export function columnBuilder(type: ColumnType, pattern?: string, mem: BuilderMemory = UNBOUNDED): ColumnBuilder {
  switch (type) {
    case 'BOOLEAN':
      return new BooleanBuilder(mem);
    case 'BYTE':
    case 'SHORT':
      return new SmallIntBuilder(type, mem);
    case 'CHAR':
      return new CharBuilder(mem);
    case 'INT':
      return new IntBuilder(mem);
    case 'LONG':
    case 'TIMESTAMP':
    case 'DATE':
    case 'TIMESTAMP_NS':
      return new Int64Builder(type, pattern, mem);
    case 'FLOAT':
      return new FloatBuilder(mem);
    case 'DOUBLE':
      return new DoubleBuilder(mem);
    case 'SYMBOL':
      return new SymbolBuilder(mem);
    case 'STRING':
    case 'VARCHAR':
    case 'BINARY':
      return new TextBuilder(type, mem);
    case 'UUID':
      return new UuidBuilder(mem);
    case 'IPV4':
      return new Ipv4Builder(mem);
    default:
      if (typeKind(type) === 'GEOHASH' || typeKind(type) === 'DECIMAL') return new ByteRowsBuilder(type, mem);
      throw new Error(`a file cannot be imported into a ${type} column`);
  }
}
