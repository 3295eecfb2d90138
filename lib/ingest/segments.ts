// An import's CSV parsed on the worker pool (CsvBatcher with a pool): once
// detection has fixed the columns, the bytes are cut into segments of about
// import.segment.size at a line end outside quotes (an even count of `"` since
// the segment began), each copied once into shared memory and parsed by a pool
// thread exactly as this thread would (tokenizer, builders, row rules), and
// the segments' rows handed to the sink in file order: the rows, their order,
// the counts and the errors are the same on any number of threads. A segment
// goes to the pool unless this thread takes it back: whenever it has to wait
// for the oldest segment, it parses the newest one no pool thread has begun
// (a claim word in shared memory decides who parses it), so this thread
// parses only while it would otherwise wait, on any number of threads. A segment
// is taken only when its parse ended at a row's end, which proves where the
// next one begins; one that did not (a `"` that is content, left the count
// odd), or that failed (atomicity=abort, a value past the line limit), sends
// it and everything after it to this thread's tokenizer, continuing at its
// line, so that errors say what they say without the pool.
import type { ColumnType } from '../core/column-type.js';
import type { ColumnInput } from '../core/column-vector.js';
import type { MemoryBudget } from '../limits/memory-budget.js';
import { taskKind, type TaskOutput, type WorkerPool } from '../workers/worker-pool.js';
import { BuilderMemory, columnBuilder } from './column-builders.js';
import type { CsvTarget } from './csv-batcher.js';
import { CsvTokenizer } from './csv-tokenizer.js';
import { FastRows } from './fast-rows.js';
import { RowRules, type RowRulesOptions } from './row-rules.js';
import type { ImportIssue } from './import-issues.js';

const LF = 0x0a;
const QUOTE = 0x22;
/**
 * Without a line end at an even count of quotes for this many segments' bytes, the last line end is
 * taken anyway (the parse checks it); without any line end, the rest goes to the import's own thread.
 */
const CUT_ANYWAY = 4;
/** import.segment.size is taken as at least this. */
const MIN_SEGMENT = 64;
/** Segments queued per pool thread at most (past them this thread waits for the oldest, parsing what it can take back). */
const BACKLOG = 2;
/** A segment's claim word: no thread began it; a pool thread began it; it finished there; the import's thread took it. */
const UNCLAIMED = 0;
const IN_POOL = 1;
const POOL_DONE = 2;
const TAKEN_BACK = 3;
/** What a segment in flight is taken to hold: its bytes, and its rows in builders and on their way back. */
const IN_FLIGHT_COST = 2;

export interface SegmentRequest {
  /** The segment's bytes (in shared memory: this thread keeps them for a parse of its own). */
  readonly bytes: Uint8Array;
  readonly delimiter: number;
  readonly lineBytes: number;
  readonly types: readonly ColumnType[];
  readonly patterns: readonly (string | undefined)[];
  readonly names: readonly string[];
  readonly tsColumn: number;
  readonly rules: RowRulesOptions;
  /** Rows the segment likely holds (from the bytes of a row so far): the builders' room at first. */
  readonly rows: number;
  /** The file's last bytes: a last row without a line end ends here. */
  readonly final: boolean;
  /** Who parses it (UNCLAIMED ... TAKEN_BACK), in shared memory; absent when parsed where it is made. */
  readonly claim?: Int32Array;
}

export interface SegmentResult {
  /** Whether the parse ended at a row's end (always, for the last segment). */
  readonly clean: boolean;
  /** Physical lines the segment holds (the tokenizer's count). */
  readonly lines: number;
  readonly rows: number;
  readonly rejected: number;
  readonly errors: readonly number[];
  readonly nulled: number;
  /** Issues kept (rules.issues), their lines counted from the segment's first. */
  readonly issues: readonly ImportIssue[];
  /** The accepted rows, one input per file column (none unless clean). */
  readonly columns: readonly ColumnInput[];
}

/** One segment parsed as CsvBatcher parses the file, rows kept whole (a pool task or here). */
export function parseSegment(m: SegmentRequest): SegmentResult {
  const memory = new BuilderMemory(null, Math.max(1024, m.rows), Infinity);
  const builders = m.types.map((t, i) => columnBuilder(t, m.patterns[i], memory));
  const target: CsvTarget = { types: m.types, patterns: m.patterns, names: m.names, tsColumn: m.tsColumn };
  const tokenizer = new CsvTokenizer({ delimiter: m.delimiter, maxField: m.lineBytes, continuesAtLine: 1 });
  const rules = new RowRules(builders, target, m.rules, () => tokenizer.line, false);
  new FastRows(builders, m.delimiter, rules).push(m.bytes, tokenizer);
  if (m.final) tokenizer.end(rules);
  const clean = m.final || tokenizer.atRowBoundary;
  return {
    clean,
    lines: tokenizer.line - 1,
    rows: rules.accepted,
    rejected: rules.rejected,
    errors: rules.errors,
    nulled: rules.nulled,
    issues: rules.issues,
    columns: clean ? builders.map((b) => b.take()) : [],
  };
}

/** parseSegment in a pool thread: the columns' arrays go back transferred; null when the import's thread took it back first. */
export function parseSegmentTask(m: SegmentRequest): TaskOutput<SegmentResult | null> {
  if (m.claim !== undefined && Atomics.compareExchange(m.claim, 0, UNCLAIMED, IN_POOL) !== UNCLAIMED)
    return { value: null };
  let out: SegmentResult;
  try {
    out = parseSegment(m);
  } finally {
    if (m.claim !== undefined) Atomics.store(m.claim, 0, POOL_DONE);
  }
  const transfer = new Set<ArrayBuffer>();
  const add = (a: ArrayBufferView | null | undefined): void => {
    if (a != null && a.buffer instanceof ArrayBuffer) transfer.add(a.buffer);
  };
  for (const c of out.columns) {
    if (ArrayBuffer.isView(c)) add(c);
    else if (!Array.isArray(c)) {
      const v = c as Exclude<ColumnInput, ArrayBufferView | readonly unknown[]>;
      if (v.kind === 'fixed') {
        add(v.data);
        add(v.exact);
      } else if (v.kind === 'var') {
        add(v.bytes);
        add(v.offsets);
        add(v.nulls);
      }
    }
  }
  return { value: out, transfer: [...transfer] };
}

export const PARSE_SEGMENT = taskKind<SegmentRequest, SegmentResult | null>(import.meta.url, 'parseSegmentTask');

export interface SegmentsOptions {
  readonly delimiter: number;
  readonly lineBytes: number;
  /** Bytes a segment has at least (import.segment.size); it ends at the next line end that can be cut. */
  readonly segmentBytes: number;
  readonly target: CsvTarget;
  readonly rules: RowRulesOptions;
  /** The line the first segment begins on (the import's thread parsed the start of the file, up to a row's end), and that start's rows and bytes. */
  readonly line: number;
  readonly startRows: number;
  readonly startBytes: number;
  readonly budget: MemoryBudget;
  /** The sink: a segment's accepted rows, in file order. */
  readonly batch: (rows: number, columns: ColumnInput[]) => void | Promise<void>;
  /** The rest on the caller's thread: its tokenizer continuing at `line` is fed `chunks`... */
  readonly serially: (line: number, chunks: readonly Uint8Array[]) => Promise<void>;
  /** ...and then the rest of a chunk pushed meanwhile (through the caller's tokenizer). */
  readonly more: (chunk: Uint8Array) => Promise<void>;
  /** A segment's issues (rules.issues), their lines the file's, before its rows go to the sink. */
  readonly issues?: (list: readonly ImportIssue[]) => void;
}

interface InFlight {
  readonly request: SegmentRequest;
  readonly claim: Int32Array;
  readonly charged: number;
  /** The pool's parse: null when this thread took the segment back. */
  readonly pooled: Promise<SegmentResult | null | Error>;
  /** This thread's parse of a segment it took back. */
  local: SegmentResult | Error | null;
}

export class Segments {
  readonly #pool: WorkerPool;
  readonly #o: SegmentsOptions;
  /** Set once the rest of the file went to the caller's tokenizer. */
  serial = false;
  accepted = 0;
  rejected = 0;
  nulled = 0;
  readonly errors: number[];
  #carry: Uint8Array[] = [];
  #carryBytes = 0;
  /** Whether the carry holds a line end; the carry's size at which to look for a cut again after none was found. */
  #lf = false;
  #retryAt = 0;
  /** Rows and bytes of the segments taken: the size of a row, for the next segments' builders. */
  #rowsSeen = 0;
  #bytesSeen = 0;
  readonly #inFlight: InFlight[] = [];
  /** The line the oldest segment not yet taken begins on. */
  #line: number;
  /** No segment went to the pool yet. */
  #first = true;
  readonly #max: number;
  /** Bytes a segment has at least. */
  readonly #size: number;
  /** Shared memory of segments taken, for the next ones (fresh memory costs a page fault every 4 KiB). */
  #spare: SharedArrayBuffer[] = [];

  constructor(pool: WorkerPool, o: SegmentsOptions) {
    this.#pool = pool;
    this.#o = o;
    this.errors = o.target.types.map(() => 0);
    this.#max = (BACKLOG + 1) * pool.threads + 1;
    // Segments in flight take at most a quarter of the import's budget: smaller ones under a small budget.
    const fits = Math.floor(o.budget.limit / (4 * (this.#max + 1) * IN_FLIGHT_COST));
    this.#size = Math.max(MIN_SEGMENT, Math.min(o.segmentBytes, fits));
    this.#line = o.line;
    this.#rowsSeen = o.startRows;
    this.#bytesSeen = o.startBytes;
  }

  /** The next bytes of the file. */
  async push(chunk: Uint8Array): Promise<void> {
    // A large chunk a segment at a time: a cut copies what is carried, about a segment then.
    const size = this.#size;
    let from = 0;
    while (from < chunk.length && !this.serial) {
      const part = from === 0 && chunk.length <= size ? chunk : chunk.subarray(from, from + size);
      from += part.length;
      this.#carry.push(part);
      this.#carryBytes += part.length;
      this.#lf ||= bufferOf(part).indexOf(LF) >= 0;
      while (!this.serial && this.#carryBytes >= Math.max(size, this.#retryAt)) {
        if (this.#lf && (await this.#cut())) continue;
        // No line end to cut at for this long: the import's own thread takes the rest (and its limits).
        if (this.#carryBytes >= CUT_ANYWAY * size) await this.#toSerial();
        else this.#retryAt = this.#carryBytes + size;
        break;
      }
    }
    // Gone to the caller's tokenizer meanwhile: the rest of this chunk follows it there.
    if (this.serial && from < chunk.length) await this.#o.more(chunk.subarray(from));
  }

  /** The end of the file: the last segment, then every segment's rows. */
  async finish(): Promise<void> {
    // The rest of a file smaller than a segment is parsed here: a task's round trip would only add to it.
    if (this.#first) await this.#toSerial();
    if (!this.serial && this.#carryBytes > 0) await this.#send(this.#joined(), true);
    while (!this.serial && this.#inFlight.length > 0) await this.#takeOldest();
  }

  /** The carry as one piece of shared memory. */
  #joined(): Uint8Array {
    const all = new Uint8Array(this.#memory(this.#carryBytes), 0, this.#carryBytes);
    let at = 0;
    for (const c of this.#carry) {
      all.set(c, at);
      at += c.length;
    }
    this.#carry = [all];
    return all;
  }

  /** Shared memory for `bytes` bytes: a spare one large enough, or a new one with room to spare. */
  #memory(bytes: number): SharedArrayBuffer {
    const i = this.#spare.findIndex((b) => b.byteLength >= bytes);
    if (i >= 0) return this.#spare.splice(i, 1)[0]!;
    return new SharedArrayBuffer(Math.max(bytes, Math.ceil(this.#size * 1.5)));
  }

  /** Sends the carry up to its last line end that can be cut; false when it has none yet. */
  async #cut(): Promise<boolean> {
    const joined = this.#joined();
    let cut = lastRowEnd(joined);
    if (cut < 0) {
      if (joined.length < CUT_ANYWAY * this.#size) return false;
      cut = bufferOf(joined).lastIndexOf(LF) + 1; // quotes that are content, most likely: the parse tells
      if (cut <= 0) return false;
    }
    const segment = joined.subarray(0, cut);
    // The rest is copied into the next segment's memory: this one goes with this segment.
    const rest = joined.slice(cut);
    this.#carry = rest.length > 0 ? [rest] : [];
    this.#carryBytes = rest.length;
    this.#lf = bufferOf(rest).indexOf(LF) >= 0;
    this.#retryAt = 0;
    await this.#send(segment, false);
    return true;
  }

  async #send(bytes: Uint8Array, final: boolean): Promise<void> {
    const t = this.#o.target;
    const request: SegmentRequest = {
      bytes,
      delimiter: this.#o.delimiter,
      lineBytes: this.#o.lineBytes,
      types: t.types,
      patterns: t.patterns,
      names: t.names,
      tsColumn: t.tsColumn,
      rules: this.#o.rules,
      // A little more than the rows of the file's bytes so far suggest: the arrays need not grow.
      rows: Math.ceil((bytes.length * 1.05 * this.#rowsSeen) / Math.max(1, this.#bytesSeen)) || 1 << 16,
      final,
    };
    if (final) {
      this.#carry = [];
      this.#carryBytes = 0;
    }
    const charged = bytes.length * IN_FLIGHT_COST;
    if (!this.#o.budget.fits(charged)) {
      // Short of memory, fewer segments in flight: the oldest ones go to the sink first (what holds the
      // budget, the table writer's rows above all, fails naming itself there). With none left and
      // still no room, this thread parses the rest in its batches, within what is left. Meanwhile
      // this segment heads the carry, so that whatever sends the rest to the caller's thread sends
      // it in file order.
      this.#carry.unshift(bytes);
      this.#carryBytes += bytes.length;
      while (!this.#o.budget.fits(charged) && this.#inFlight.length > 0 && !this.serial) await this.#takeOldest();
      if (!this.serial && !this.#o.budget.fits(charged)) await this.#toSerial();
      if (this.serial) return;
      this.#carry.shift();
      this.#carryBytes -= bytes.length;
    }
    this.#o.budget.charge(charged, 'segments of the file being parsed');
    const claim = new Int32Array(new SharedArrayBuffer(4));
    const pooled = this.#pool.run(PARSE_SEGMENT, { ...request, claim }).then(
      (r) => r,
      (e: unknown) => asError(e),
    );
    this.#inFlight.push({ request, claim, charged, pooled, local: null });
    this.#first = false;
    while (!this.serial && this.#inFlight.length > this.#max) await this.#takeOldest();
  }

  /**
   * Until the oldest segment is parsed, this thread parses the newest ones no pool thread began
   * (the pool's threads take them oldest first, so the two meet in the middle).
   */
  #takeBack(): void {
    const oldest = this.#inFlight[0]!;
    for (let i = this.#inFlight.length - 1; i >= 0; i--) {
      if (oldest.local !== null || Atomics.load(oldest.claim, 0) === POOL_DONE) return;
      const s = this.#inFlight[i]!;
      if (s.local !== null || Atomics.compareExchange(s.claim, 0, UNCLAIMED, TAKEN_BACK) !== UNCLAIMED) continue;
      try {
        s.local = parseSegment(s.request);
      } catch (e) {
        s.local = asError(e);
      }
    }
  }

  /** The oldest segment's rows to the sink, or it and the rest to the caller's thread. */
  async #takeOldest(): Promise<void> {
    this.#takeBack();
    const s = this.#inFlight[0]!;
    const r = s.local ?? (await s.pooled);
    if (r === null) throw new Error('a segment taken back has no parse'); // never: taken back means parsed here
    if (r instanceof Error || !r.clean) {
      await this.#toSerial();
      return;
    }
    this.#inFlight.shift();
    this.accepted += r.rows;
    this.rejected += r.rejected;
    r.errors.forEach((e, i) => (this.errors[i]! += e));
    this.nulled += r.nulled;
    if (r.issues.length > 0) {
      const from = this.#line - 1;
      this.#o.issues?.(r.issues.map((i) => ({ ...i, line: i.line + from })));
    }
    this.#line += r.lines;
    this.#rowsSeen += r.rows + r.rejected;
    this.#bytesSeen += s.request.bytes.length;
    try {
      if (r.rows > 0) await this.#o.batch(r.rows, r.columns as ColumnInput[]);
    } finally {
      this.#o.budget.release(s.charged);
    }
    if (this.#spare.length < this.#max) this.#spare.push(s.request.bytes.buffer as SharedArrayBuffer);
  }

  /** Everything from the oldest segment not taken on to the caller's tokenizer. */
  async #toSerial(): Promise<void> {
    this.serial = true;
    const held = this.#inFlight.splice(0);
    for (const s of held) this.#o.budget.release(s.charged);
    const chunks = [...held.map((s) => s.request.bytes), ...this.#carry];
    this.#carry = [];
    this.#carryBytes = 0;
    await this.#o.serially(this.#line, chunks);
  }
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}

/** A Buffer view of `b` (its indexOf is memchr). */
function bufferOf(b: Uint8Array): Buffer {
  return Buffer.from(b.buffer, b.byteOffset, b.length);
}

/**
 * Where `b` can be cut between rows: just past its last line end (\n) with an even count of
 * quotes before it, or -1. A quote that is content makes it wrong; the parse of what is cut checks it.
 */
export function lastRowEnd(b: Uint8Array): number {
  const all = bufferOf(b);
  let end = all.lastIndexOf(LF);
  // Quotes after the candidate line end; the count before it must be even.
  let after = countQuotes(all, end + 1, all.length);
  const total = after + countQuotes(all, 0, end + 1);
  while (end >= 0 && (total - after) % 2 !== 0) {
    const prev = all.lastIndexOf(LF, end - 1);
    after += countQuotes(all, prev + 1, end + 1);
    end = prev;
  }
  return end < 0 ? -1 : end + 1;
}

function countQuotes(b: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = b.indexOf(QUOTE, from); i >= 0 && i < to; i = b.indexOf(QUOTE, i + 1)) n++;
  return n;
}
