// The result builder of kernels that make text per row (text functions,
// concatenation, casts and formatting to text, random text): what they build is
// charged to the evaluation's memory budget as it grows, the deadline is ticked,
// and a batch whose text passes the chunk size is handed back to the evaluator
// (RowChunkOverflow) to be redone in smaller row chunks. Also the per-value
// limit of functions that can make one value much larger than their input.
import { isLimitError as isLimitCode, SvcError } from '../errors/svc-error.js';
import type { VarVector } from '../core/column-vector.js';
import type { KernelContext } from './registry.js';
import { textVector } from '../core/vec.js';

/** The configuration key of the per-value limit (QuestDB's name and default, 1 MiB). */
export const TEXT_LIMIT_KEY = 'cairo.sql.string.function.buffer.max.size';

/** UTF-16 code units added between two charges (and deadline checks). */
const STEP = 64 * 1024;
/** Bytes charged per UTF-16 code unit while building: the strings themselves and the copy encoding flattens them into. */
const BYTES_PER_UNIT = 2;

/**
 * Thrown (it is not an SvcError) when one kernel call over several rows would
 * build more than KernelContext.chunkBytes of text; `rows` rows were built when
 * it did. The evaluator catches it and evaluates the batch again in row chunks.
 */
export class RowChunkOverflow extends Error {
  constructor(
    readonly rows: number,
    readonly bytes: number,
  ) {
    super(`text of ${rows} rows passed the chunk size (${bytes} bytes)`);
    this.name = 'RowChunkOverflow';
  }
}

/** Text values for rows 0..n-1, charged as they come; vector() encodes them. */
export class TextOut {
  readonly #values: (string | null)[];
  readonly #kx: KernelContext;
  #units = 0;
  #next = STEP;
  #charged = 0;

  constructor(
    readonly type: 'STRING' | 'VARCHAR',
    readonly n: number,
    kx: KernelContext,
  ) {
    this.#values = new Array<string | null>(n);
    this.#kx = kx;
  }

  /** Row i's value (null for NULL). */
  set(i: number, s: string | null): void {
    this.#values[i] = s;
    if (s !== null && (this.#units += s.length) >= this.#next) this.#grow(i + 1);
  }

  #grow(rows: number): void {
    const kx = this.#kx;
    const bytes = this.#units * BYTES_PER_UNIT;
    kx.budget.charge(bytes - this.#charged, 'text built by functions');
    this.#charged = bytes;
    this.#next = this.#units + STEP;
    kx.deadline.check();
    if (bytes > kx.chunkBytes && this.n > 1) throw new RowChunkOverflow(rows, bytes);
  }

  /** The values as a vector; its bytes are charged too (the evaluator releases them with the rest). */
  vector(): VarVector {
    const v = textVector(this.type, this.#values);
    this.#kx.budget.charge(v.bytes.byteLength + v.offsets.byteLength, 'text built by functions');
    return v;
  }
}

/** UTF-8 bytes of a string, without encoding it (a lone surrogate counts 3, as TextEncoder writes U+FFFD). */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let k = 0; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c < 0x80) continue;
    if (c < 0x800) {
      n += 1;
      continue;
    }
    if (c >= 0xd800 && c <= 0xdbff && k + 1 < s.length) {
      const d = s.charCodeAt(k + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 2;
        k++;
        continue;
      } // 2 units -> 4 bytes
    }
    n += 2;
  }
  return n;
}

/**
 * Fails when one value `fn` would make has more than the per-value limit
 * (QuestDB's message, with the key that sets the limit); placed at the call by
 * the evaluator.
 */
export function checkTextSize(fn: string, required: number, kx: KernelContext): void {
  if (required > kx.maxTextBytes) {
    throw new SvcError(
      'VALUE_LIMIT',
      `breached memory limit set for ${fn} [maxLength=${kx.maxTextBytes}, requiredLength=${required}, limit=${TEXT_LIMIT_KEY}]`,
    );
  }
}

/** Whether an error is a limit a kernel ran into (memory budget, per-value text size), rather than a fault of the input. */
export function isLimitError(e: unknown): boolean {
  return e instanceof RowChunkOverflow || isLimitCode(e);
}
