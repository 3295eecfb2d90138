// Page summaries of numeric columns (functions/page-summary.ts) for keyless
// aggregates (exec/page-aggregate.ts), and per key combination of a page's text
// codes and SAMPLE BY buckets for keyed ones (exec/page-group.ts), over the rows
// of each page that pass the scan's filter (exec/page-filter.ts), as one task
// of the worker pool or on the calling thread: the same code either way, over
// the pages' bytes as the column files hold them.
import { LONG_NULL, type ColumnType } from '../core/column-type.js';
import { int64ToF64Into, nullVector } from '../core/column-vector.js';
import { DEFAULT_BATCH_ROWS } from '../core/batch.js';
import { asDoubles } from '../core/vec.js';
import { pageSummary, type PageSummaryKind } from '../functions/page-summary.js';
import { fixedVector } from '../storage/column-files.js';
import { Buckets, type Sampling } from '../sql/sample-by.js';
import { taskKind, type TaskOutput } from '../workers/worker-pool.js';
import type { CmpOp } from '../functions/compare.js';

/**
 * A WHERE over a page's rows as a thread evaluates it (exec/page-filter.ts makes it): numeric
 * columns (indexes into the request's `types`) against constants, compared as doubles exactly as
 * functions/compare.ts does (NaN is NULL: `=` holds for NULL = NULL, `!=` for NULL against a value,
 * an ordering never), and text conditions read through the page's dictionary codes.
 */
export type PageTerm =
  | { readonly t: 'and' | 'or'; readonly a: PageTerm; readonly b: PageTerm }
  | { readonly t: 'not'; readonly a: PageTerm }
  | { readonly t: 'cmp'; readonly column: number; readonly op: CmpOp; readonly value: number }
  /** BETWEEN two constants, lo <= hi (with a NULL bound it is `never`). */
  | { readonly t: 'range'; readonly column: number; readonly lo: number; readonly hi: number }
  | { readonly t: 'never' }
  /** Text condition `leaf`: per page, whether each code of its partition's dictionary passes. */
  | { readonly t: 'text'; readonly leaf: number };

export interface PageFilter {
  readonly term: PageTerm;
  /** Per text leaf, per page: the codes of the page's rows (in shared memory) and the table of passing codes. */
  readonly codes: readonly (readonly (Uint8Array | Uint16Array)[])[];
  readonly accept: readonly (readonly Uint8Array[])[];
}

export interface PageSummaryRequest {
  /** The columns' types. */
  readonly types: readonly ColumnType[];
  /** Per summary: its kind and its column (an index into `types`; -1 for `rows`). */
  readonly kinds: readonly PageSummaryKind[];
  readonly columns: readonly number[];
  /** Per column, per page: the page's bytes (shared with the read cache where they lie in one chunk), null for a partition that predates the column. */
  readonly bytes: readonly (readonly (Uint8Array | null)[])[];
  /** Rows of each page. */
  readonly rows: readonly number[];
  /** The scan's WHERE, when it has one: only the rows that pass are summarized. */
  readonly filter?: PageFilter;
}

/** Column c of page i as doubles (asDoubles). */
function doublesOf(m: PageSummaryRequest, c: number, i: number): Float64Array {
  const n = m.rows[i]!,
    type = m.types[c]!;
  const b = m.bytes[c]![i]!;
  return asDoubles(b === null ? nullVector(type, n) : fixedVector(type, b, n));
}

const masks: Uint8Array[] = [];
let passing = new Int32Array(DEFAULT_BATCH_ROWS);
let picked = new Float64Array(DEFAULT_BATCH_ROWS);

/** A mask of n rows for nesting depth `depth` (reused). */
function maskAt(depth: number, n: number): Uint8Array {
  let s = masks[depth];
  if (s === undefined || s.length < n) masks[depth] = s = new Uint8Array(Math.max(n, DEFAULT_BATCH_ROWS));
  return s;
}

/** Whether each of page i's rows passes `term`, in maskAt(depth). */
function evaluate(
  m: PageSummaryRequest,
  f: PageFilter,
  term: PageTerm,
  i: number,
  n: number,
  depth: number,
): Uint8Array {
  const out = maskAt(depth, n);
  switch (term.t) {
    case 'and':
    case 'or': {
      evaluate(m, f, term.a, i, n, depth);
      const b = evaluate(m, f, term.b, i, n, depth + 1);
      if (term.t === 'and') for (let r = 0; r < n; r++) out[r] = out[r]! & b[r]!;
      else for (let r = 0; r < n; r++) out[r] = out[r]! | b[r]!;
      return out;
    }
    case 'not':
      evaluate(m, f, term.a, i, n, depth);
      for (let r = 0; r < n; r++) out[r] = out[r]! ^ 1;
      return out;
    case 'never':
      out.fill(0, 0, n);
      return out;
    case 'text': {
      const codes = f.codes[term.leaf]![i]!,
        accept = f.accept[term.leaf]![i]!;
      for (let r = 0; r < n; r++) out[r] = accept[codes[r]!]!;
      return out;
    }
    case 'range': {
      const x = doublesOf(m, term.column, i),
        lo = term.lo,
        hi = term.hi;
      for (let r = 0; r < n; r++) {
        const v = x[r]!;
        out[r] = v >= lo && v <= hi ? 1 : 0;
      }
      return out;
    }
    case 'cmp':
      compareInto(term.op, doublesOf(m, term.column, i), term.value, n, out);
      return out;
  }
}

/** out[r] = x[r] op y, as functions/compare.ts's numericCompare does with y in every row. */
function compareInto(op: CmpOp, x: Float64Array, y: number, n: number, out: Uint8Array): void {
  if (y !== y) {
    // Against NULL: = holds for NULL rows, != for the others, an ordering for none.
    const want = op === '=' ? 1 : op === '!=' ? 0 : -1;
    if (want < 0) out.fill(0, 0, n);
    else for (let r = 0; r < n; r++) out[r] = x[r] !== x[r] ? want : 1 - want;
    return;
  }
  switch (op) {
    case '=':
      for (let r = 0; r < n; r++) out[r] = x[r] === y ? 1 : 0;
      return;
    case '!=':
      for (let r = 0; r < n; r++) out[r] = x[r] === y ? 0 : 1;
      return;
    case '<':
      for (let r = 0; r < n; r++) out[r] = x[r]! < y ? 1 : 0;
      return;
    case '<=':
      for (let r = 0; r < n; r++) out[r] = x[r]! <= y ? 1 : 0;
      return;
    case '>':
      for (let r = 0; r < n; r++) out[r] = x[r]! > y ? 1 : 0;
      return;
    case '>=':
      for (let r = 0; r < n; r++) out[r] = x[r]! >= y ? 1 : 0;
      return;
  }
}

/**
 * The rows of page i that pass the request's filter, in order (in an array the next call reuses);
 * null without a filter (every row).
 */
export function passingRows(m: PageSummaryRequest, i: number): Int32Array | null {
  const f = m.filter;
  if (f === undefined) return null;
  const n = m.rows[i]!;
  const mask = evaluate(m, f, f.term, i, n, 0);
  if (passing.length < n) passing = new Int32Array(n);
  const p = passing;
  let k = 0;
  for (let r = 0; r < n; r++) {
    p[k] = r;
    k += mask[r]!;
  }
  return p.subarray(0, k);
}

/** x's values at `rows` (null: x itself), in an array the next call reuses. */
function pick(x: Float64Array, rows: Int32Array | null): Float64Array {
  if (rows === null) return x;
  const k = rows.length;
  if (picked.length < k) picked = new Float64Array(k);
  const out = picked;
  for (let j = 0; j < k; j++) out[j] = x[rows[j]!]!;
  return out;
}

/** codes at `rows` (null: codes itself), into `into` (grown as needed; returned). */
function pickCodes(
  codes: Uint8Array | Uint16Array,
  rows: Int32Array | null,
  into: Uint16Array,
): Uint8Array | Uint16Array {
  if (rows === null) return codes;
  const k = rows.length;
  for (let j = 0; j < k; j++) into[j] = codes[rows[j]!]!;
  return into;
}

/**
 * Summary k of page i at [k * pages + i], then the rows each page summarized (those that
 * passed the filter) at [kinds * pages + i].
 */
export function summarizePages(m: PageSummaryRequest): Float64Array {
  const pages = m.rows.length,
    kinds = m.kinds.length;
  const out = new Float64Array((kinds + 1) * pages);
  for (let i = 0; i < pages; i++) {
    const rows = passingRows(m, i);
    const n = rows === null ? m.rows[i]! : rows.length;
    out[kinds * pages + i] = n;
    for (let c = 0; c < m.types.length; c++) {
      if (!m.columns.includes(c)) continue; // a column only the filter reads
      const x = n === 0 ? picked : pick(doublesOf(m, c, i), rows);
      for (let k = 0; k < kinds; k++) if (m.columns[k] === c) out[k * pages + i] = pageSummary(m.kinds[k]!, x, n);
    }
    for (let k = 0; k < kinds; k++) if (m.columns[k] === -1) out[k * pages + i] = n;
  }
  return out;
}

/** summarizePages in a pool thread; the summaries go back transferred. */
export function summarizePagesTask(m: PageSummaryRequest): TaskOutput<Float64Array> {
  const out = summarizePages(m);
  return { value: out, transfer: [out.buffer as ArrayBuffer] };
}

export const SUMMARIZE_PAGES = taskKind<PageSummaryRequest, Float64Array>(import.meta.url, 'summarizePagesTask');

/** Past this many key combinations a partition's pages are grouped row by row (exec/page-group.ts). */
export const MAX_PAGE_COMBOS = 4096;

export interface GroupPageRequest extends PageSummaryRequest {
  /** Per text key, per page: the dictionary codes of the page's rows (in shared memory: read in place). */
  readonly codes: readonly (readonly (Uint8Array | Uint16Array)[])[];
  /** Per text key, per page: the entries of its partition's dictionary; a page's combination of codes is c0 + s0 * (c1 + s1 * ...). */
  readonly sizes: readonly (readonly number[])[];
  /**
   * SAMPLE BY: the buckets (not from the first observation) and which of `types` is the designated
   * timestamp. Each page's rows are floored and numbered as their buckets appear: the last key.
   */
  readonly bucket?: { readonly sampling: Sampling; readonly ts: number };
}

let slotOf = new Int32Array(0);
let slots = new Int32Array(0);
const times = new Float64Array(DEFAULT_BATCH_ROWS);
const floors = new Float64Array(DEFAULT_BATCH_ROWS);
const bucketNumbers = new Uint16Array(DEFAULT_BATCH_ROWS);
const bucketsBySampling = new Map<string, Buckets>();
/** Per text key: a page's codes at the rows that pass the filter. */
const pickedCodes: Uint16Array[] = [];

/**
 * The buckets of rows [0, n) of a page (their TIMESTAMP bytes `b`, null: all NULL), or of those of
 * them at `rows`, numbered as they first appear into `numbers` (one per row taken); returns the
 * buckets in that order. `floors` keeps each row's bucket.
 */
export function numberBuckets(
  buckets: Buckets,
  b: Uint8Array | null,
  n: number,
  numbers: Uint16Array,
  rows: Int32Array | null = null,
): number[] {
  if (b === null) times.fill(LONG_NULL, 0, n);
  else {
    const pairs =
      b.byteOffset % 4 === 0 ? new Int32Array(b.buffer, b.byteOffset, n * 2) : new Int32Array(b.slice().buffer);
    int64ToF64Into(pairs, times, n);
  }
  if (rows !== null) {
    // Only these rows (ascending: each moves down or stays).
    n = rows.length;
    for (let j = 0; j < n; j++) times[j] = times[rows[j]!]!;
  }
  buckets.floorAll(times, floors, n);
  // A partition's rows are in timestamp order, so their buckets come in order: a new one is the next number.
  const values: number[] = [];
  let last = NaN,
    number = -1;
  for (let r = 0; r < n; r++) {
    const v = floors[r]!;
    if (v !== last) {
      number = v > last ? -1 : values.indexOf(v);
      if (number < 0) {
        number = values.length;
        values.push(v);
      }
      last = v;
    }
    numbers[r] = number;
  }
  return values;
}

function bucketsOf(sampling: Sampling): Buckets {
  const key = JSON.stringify(sampling);
  let b = bucketsBySampling.get(key);
  if (b === undefined) {
    if (bucketsBySampling.size >= 64) bucketsBySampling.clear();
    bucketsBySampling.set(key, (b = new Buckets(sampling, null)));
  }
  return b;
}

/**
 * Per page, the key combinations its rows (those that pass the filter) have, in the order they first
 * appear, with their rows and their summaries over those rows in row order (a sum is NaN when a row is NULL): packed as,
 * page after page, [m, combination × m, rows × m, summary k of combination j at k * m + j] and,
 * with buckets, [b, the page's buckets × b] (a combination's bucket number is its last key), or
 * [-1] for a page with more than MAX_PAGE_COMBOS combinations (the caller groups its rows).
 */
export function summarizeGroupPages(m: GroupPageRequest): Float64Array {
  const pages = m.rows.length;
  const kinds = m.kinds.length;
  let size = 0;
  const parts: Float64Array[] = [];
  for (let i = 0; i < pages; i++) {
    const rows = passingRows(m, i);
    const n = rows === null ? m.rows[i]! : rows.length;
    let combos = 1;
    for (const s of m.sizes) combos *= s[i]!;
    for (let j = 0; j < m.codes.length; j++)
      if ((pickedCodes[j]?.length ?? 0) < m.rows[i]!) pickedCodes[j] = new Uint16Array(m.rows[i]!);
    const codes = m.codes.map((c, j) => pickCodes(c[i]!, rows, pickedCodes[j]!));
    const sizes = m.sizes.map((c) => c[i]!);
    let bucketValues: number[] | null = null;
    if (m.bucket !== undefined) {
      const ts = m.bytes[m.bucket.ts]![i]!;
      bucketValues = numberBuckets(bucketsOf(m.bucket.sampling), ts, m.rows[i]!, bucketNumbers, rows);
      combos *= bucketValues.length;
      codes.push(bucketNumbers);
      sizes.push(bucketValues.length);
    }
    if (combos > MAX_PAGE_COMBOS) {
      parts.push(new Float64Array([-1])); // grouped row by row by the caller
      size += 1;
      continue;
    }
    if (slotOf.length < combos) slotOf = new Int32Array(combos).fill(-1);
    if (slots.length < n) slots = new Int32Array(n);
    // Each row's combination of codes -> its slot, slots numbered as they first appear.
    const order: number[] = [];
    const c0 = codes[0]!;
    const c1 = codes.length > 1 ? codes[1]! : null;
    const c2 = codes.length > 2 ? codes[2]! : null;
    const s0 = sizes[0]!;
    const s01 = c1 === null ? 0 : s0 * sizes[1]!;
    const so = slotOf,
      sl = slots;
    for (let r = 0; r < n; r++) {
      const combo = c1 === null ? c0[r]! : c2 === null ? c0[r]! + s0 * c1[r]! : c0[r]! + s0 * c1[r]! + s01 * c2[r]!;
      let s = so[combo]!;
      if (s < 0) {
        s = so[combo] = order.length;
        order.push(combo);
      }
      sl[r] = s;
    }
    const used = order.length;
    const out = new Float64Array(1 + used * (2 + kinds) + (bucketValues === null ? 0 : 1 + bucketValues.length));
    out[0] = used;
    for (let j = 0; j < used; j++) {
      out[1 + j] = order[j]!;
      slotOf[order[j]!] = -1;
    }
    const rowsAt = 1 + used;
    for (let r = 0; r < n; r++) out[rowsAt + slots[r]!]!++;
    for (let q = 0; q < kinds; q++) {
      const at = 1 + used * (2 + q);
      const c = m.columns[q]!;
      if (c < 0) {
        out.copyWithin(at, rowsAt, rowsAt + used);
        continue;
      }
      summarizeByGroup(m.kinds[q]!, n === 0 ? picked : pick(doublesOf(m, c, i), rows), n, slots, out, at, used);
    }
    if (bucketValues !== null) {
      const at = 1 + used * (2 + kinds);
      out[at] = bucketValues.length;
      out.set(bucketValues, at + 1);
    }
    parts.push(out);
    size += out.length;
  }
  const all = new Float64Array(size);
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return all;
}

/** out[at + slot] = the summary of `kind` over the rows of each slot, in row order. */
function summarizeByGroup(
  kind: PageSummaryKind,
  x: ArrayLike<number>,
  n: number,
  slotsOfRows: Int32Array,
  out: Float64Array,
  at: number,
  used: number,
): void {
  switch (kind) {
    case 'rows':
      for (let r = 0; r < n; r++) out[at + slotsOfRows[r]!]!++;
      return;
    case 'count':
      for (let r = 0; r < n; r++) if (x[r] === x[r]) out[at + slotsOfRows[r]!]!++;
      return;
    case 'sum':
      for (let r = 0; r < n; r++) out[at + slotsOfRows[r]!]! += x[r]!;
      return;
    case 'min':
    case 'max': {
      out.fill(NaN, at, at + used);
      const min = kind === 'min';
      for (let r = 0; r < n; r++) {
        const v = x[r]!;
        if (v !== v) continue;
        const o = at + slotsOfRows[r]!;
        const m = out[o]!;
        if (m !== m || (min ? v < m : v > m)) out[o] = v;
      }
      return;
    }
  }
}

/** summarizeGroupPages in a pool thread; the result goes back transferred. */
export function summarizeGroupPagesTask(m: GroupPageRequest): TaskOutput<Float64Array> {
  const out = summarizeGroupPages(m);
  return { value: out, transfer: [out.buffer as ArrayBuffer] };
}

export const SUMMARIZE_GROUP_PAGES = taskKind<GroupPageRequest, Float64Array>(
  import.meta.url,
  'summarizeGroupPagesTask',
);

/** Per page, the rows that pass the request's filter: packed as, page after page, [k, row × k]. */
export function selectPages(m: PageSummaryRequest): Int32Array {
  const pages = m.rows.length;
  let size = pages;
  for (const n of m.rows) size += n;
  let out = new Int32Array(size);
  let at = 0;
  for (let i = 0; i < pages; i++) {
    const rows = passingRows(m, i);
    const k = rows === null ? m.rows[i]! : rows.length;
    out[at++] = k;
    if (rows === null) for (let r = 0; r < k; r++) out[at++] = r;
    else {
      out.set(rows, at);
      at += k;
    }
  }
  if (at < size) out = out.slice(0, at); // what goes back is what passed
  return out;
}

/** selectPages in a pool thread; the rows go back transferred. */
export function selectPagesTask(m: PageSummaryRequest): TaskOutput<Int32Array> {
  const out = selectPages(m);
  return { value: out, transfer: [out.buffer as ArrayBuffer] };
}

export const SELECT_PAGES = taskKind<PageSummaryRequest, Int32Array>(import.meta.url, 'selectPagesTask');
