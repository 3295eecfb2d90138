// Keyed aggregates over a table's text keys by pages (`select sym, side,
// avg(price), count() from t [where ts in ...]`, the keys VARCHAR or STRING
// columns as /imp makes them), and SAMPLE BY with or without such keys: each
// page (the rows of one scan batch) is grouped by its partitions' dictionary
// codes (and its rows' time buckets, floored and numbered per page by the
// thread that takes it) and summarized per key combination, on this thread or
// on the worker pool,
// reading the codes and the read cache's pages in shared memory; the states
// take the summaries in page order, so the groups, their order and every value
// are the same on any number of threads. A page the summaries cannot stand for
// (a NULL under a sum, too many combinations) is grouped row by row at its turn.
import type { Batch } from '../core/batch.js';
import { DEFAULT_BATCH_ROWS } from '../core/batch.js';
import type { ColumnVector } from '../core/column-vector.js';
import { LONG_NULL } from '../core/column-type.js';
import type { SqlType } from '../core/sql-type.js';
import { gatherVector, sliceBatches } from '../core/vector-ops.js';
import type { AggregateState } from '../functions/registry.js';
import type { PageSummaryKind } from '../functions/page-summary.js';
import type { Plan } from '../sql/bound.js';
import { kernelBuckets } from '../sql/bind-sample-by.js';
import type { Buckets } from '../sql/sample-by.js';
import type { ColumnDef, PartitionState } from '../storage/table-state.js';
import type { TableReader } from '../storage/table-reader.js';
import type { TextCodes } from '../storage/text-codes.js';
import { holding, pace, tablesOf, type ExecContext, type Held } from './context.js';
import {
  FilterTables,
  pageScan,
  partRequest,
  requestTerm,
  type FilteredPage,
  type PartitionFilter,
  type PartShape,
  type ScanFilter,
} from './page-filter.js';
import { pageBytes, summarizeParts } from './page-rounds.js';
import {
  numberBuckets,
  passingRows,
  SUMMARIZE_GROUP_PAGES,
  summarizeGroupPages,
  type GroupPageRequest,
} from './page-task.js';
import { fromValues, type Value } from './vectors.js';

type AggregatePlan = Extract<Plan, { kind: 'aggregate' }>;
type ScanPlan = Extract<Plan, { kind: 'scan' }>;

/**
 * A grouped page's rows cost more than a keyless aggregate's (codes combined, buckets floored):
 * its parts are this share of cairo.sql.page.frame.min.rows. Measured on 2M rows and 2 threads
 * (paired A/B): parts of 512k rows took GROUP BY from 12.2 to 9.4 ms and SAMPLE BY from 39 to
 * 27 ms, while the same parts made a keyless sum slower (2.10 to 2.39 ms).
 */
const GROUPED_PART_SHARE = 0.5;
/** Key columns grouped by their codes. */
const KEY_TYPES: ReadonlySet<SqlType> = new Set(['VARCHAR', 'STRING']);
/** Argument columns summarized per key combination: exact in doubles, so a sum's order is its only rounding. */
const ARG_TYPES: ReadonlySet<SqlType> = new Set(['DOUBLE', 'FLOAT', 'INT', 'SHORT', 'BYTE']);
/** At most this many key columns. */
const MAX_KEYS = 3;
/** A partition's key combinations map to groups through an array up to this many (4 MiB), through a Map past it. */
const LOCAL_ARRAY = 1 << 20;

interface Page extends FilteredPage {
  /** Per key: its partition's codes. */
  readonly codes: readonly TextCodes[];
  /** Per key: the entries its partition's dictionary had when the query began (codes grow as rows are added). */
  readonly sizes: readonly number[];
}

/** SAMPLE BY's buckets (not from the first observation: a pure function of the time) and the scan column of the designated timestamp. */
interface Bucketing {
  readonly buckets: Buckets;
  readonly ts: number;
}

const decoder = new TextDecoder();

/**
 * The aggregate's batches by pages when it can run so (keys that are text columns of a scan, and
 * SAMPLE BY's bucket of its designated timestamp; each aggregate a state that takes page summaries
 * of one numeric column, or count()); null otherwise. `rowByRow` is the general path, taken when
 * a partition has no codes for a key.
 */
export function pageGroupAggregate(
  plan: AggregatePlan,
  cx: ExecContext,
  rowByRow: () => AsyncGenerator<Batch>,
): AsyncGenerator<Batch> | null {
  let scan: Plan = plan.input;
  let bucket: Bucketing | null = null;
  // The scan column of each of the aggregate's input columns (-1: none): itself, or through SAMPLE BY's projection.
  let columnOf = (i: number): number => i;
  if (plan.bucketKey !== undefined) {
    // SAMPLE BY: scan columns (those used) and the bucket of the designated timestamp.
    const proj = scan;
    if (proj.kind !== 'project') return null;
    const key = plan.keys[plan.bucketKey]!;
    const expr = key.kind === 'col' ? proj.exprs[key.index] : undefined;
    if (expr === undefined || expr.kind !== 'call' || expr.name !== 'sample_bucket' || expr.args.length !== 1)
      return null;
    const ts = expr.args[0]!;
    const buckets = kernelBuckets.get(expr.fn.kernel);
    if (ts.kind !== 'col' || ts.type !== 'TIMESTAMP' || buckets === undefined || buckets.s.firstObservation)
      return null;
    bucket = { buckets, ts: ts.index };
    columnOf = (i) => {
      const e = proj.exprs[i];
      return e !== undefined && e.kind === 'col' ? e.index : -1;
    };
    scan = proj.input;
  }
  const paged = pageScan(scan, cx);
  if (paged === null) return null;
  const filter = paged.filter;
  const keys: number[] = []; // the text keys' columns in scan.columns, in the keys' order (the bucket left out)
  plan.keys.forEach((k, j) => {
    if (j === plan.bucketKey) return;
    keys.push(k.kind === 'col' && KEY_TYPES.has(k.type) ? columnOf(k.index) : -1);
  });
  if (keys.includes(-1) || keys.length + (bucket === null ? 0 : 1) > MAX_KEYS) return null;
  if (keys.length === 0 && bucket === null) return null;
  const states = plan.aggregates.map((a) => a.fn.create());
  const columns: number[] = []; // per aggregate: index of its column in scan.columns, -1 for count()
  for (const [k, a] of plan.aggregates.entries()) {
    const s = states[k]!;
    if (s.pageSummary === undefined || s.takeSummary === undefined) return null;
    const arg = a.args[0];
    if (a.args.length === 0 && s.pageSummary === 'rows') columns.push(-1);
    else if (a.args.length === 1 && arg!.kind === 'col' && ARG_TYPES.has(arg!.type) && s.pageSummary !== 'rows') {
      const c = columnOf(arg!.index);
      if (c < 0) return null;
      columns.push(c);
    } else return null;
  }
  return holding(cx.budget, 'GROUP BY', (held) =>
    run(plan, paged.scan, filter, keys, bucket, states, columns, cx, held, rowByRow),
  );
}

async function* run(
  plan: AggregatePlan,
  scan: ScanPlan,
  filter: ScanFilter | null,
  keys: readonly number[],
  bucket: Bucketing | null,
  states: readonly AggregateState[],
  columns: readonly number[],
  cx: ExecContext,
  held: Held,
  rowByRow: () => AsyncGenerator<Batch>,
): AsyncGenerator<Batch> {
  const reader = tablesOf(cx).reader(scan.table);
  const keyDefs = keys.map((i) => reader.column(scan.columns[i]!));
  // Every partition's codes (and the filter's tables) first: one without them (too many distinct values) takes the general path.
  const ranges = reader.ranges(scan.intervals ?? undefined);
  const tables = filter === null ? null : new FilterTables(filter, reader, scan, cx);
  const codesOf = new Map<PartitionState, { codes: TextCodes[]; sizes: number[]; filter: PartitionFilter | null }>();
  for (const r of ranges) {
    if (codesOf.has(r.partition) || r.hi <= r.lo) continue;
    const codes: TextCodes[] = [];
    for (const d of keyDefs) {
      const tc = reader.textCodes(r.partition, d);
      if (tc === null) break;
      codes.push(tc);
    }
    const pf = tables !== null && tables.cover([r]) ? tables.of(r.partition) : null;
    if (codes.length < keyDefs.length || (tables !== null && pf === null)) {
      reader.close();
      yield* rowByRow();
      return;
    }
    codesOf.set(r.partition, { codes, sizes: codes.map((tc) => tc.dict.size), filter: pf });
  }
  cx.atEnd.push(() => reader.close());
  cx.scanReaders.set(scan, reader);
  await pace(cx);

  const used = [
    ...new Set([...columns.filter((c) => c >= 0), ...(bucket === null ? [] : [bucket.ts]), ...(filter?.numbers ?? [])]),
  ];
  const defs = used.map((i) => reader.column(scan.columns[i]!));
  const shape: Shape = {
    types: defs.map((d) => d.type),
    kinds: states.map((s) => s.pageSummary!),
    columns: columns.map((c) => (c < 0 ? -1 : used.indexOf(c))),
    ...(bucket === null ? {} : { bucket: { sampling: bucket.buckets.s, ts: used.indexOf(bucket.ts) } }),
    term: filter === null ? null : requestTerm(filter.term, (c) => used.indexOf(c)),
    leaves: filter?.texts.length ?? 0,
  };
  const groups = new Groups(keys.length, bucket !== null);
  const merge = new Merger(reader, states, defs, shape, groups, bucket?.buckets ?? null);
  const round: Page[] = [];
  let roundRows = 0;
  const size = DEFAULT_BATCH_ROWS;
  const summarize = async (): Promise<void> => {
    await summarizeRound(reader, round, roundRows, defs, shape, merge, cx);
    held.set(groups.bytes() + states.reduce((s, st) => s + st.bytes(), 0));
    round.length = 0;
    roundRows = 0;
  };
  for (const r of ranges) {
    const coded = codesOf.get(r.partition);
    if (coded === undefined) continue;
    for (let lo = r.lo; lo < r.hi;) {
      const hi = Math.min(r.hi, (Math.floor(lo / size) + 1) * size);
      round.push({ p: r.partition, lo, hi, codes: coded.codes, sizes: coded.sizes, filter: coded.filter });
      roundRows += hi - lo;
      lo = hi;
      if (roundRows >= cx.pageFrame.maxRows) await summarize();
    }
  }
  if (round.length > 0) await summarize();
  let text = 0;
  const out = [
    ...plan.keys.map((k, j) =>
      j === plan.bucketKey ? fromValues(k.type, groups.buckets) : fromValues(k.type, groups.values(text++)),
    ),
    ...states.map((s) => s.result(groups.size)),
  ];
  yield* sliceBatches({ rowCount: groups.size, columns: out });
}

interface Shape extends PartShape, Pick<GroupPageRequest, 'bucket'> {}

/** One round: its pages split into contiguous parts, all but the first summarized on the pool, then merged in page order. */
async function summarizeRound(
  reader: TableReader,
  pages: readonly Page[],
  rows: number,
  defs: readonly ColumnDef[],
  shape: Shape,
  merge: Merger,
  cx: ExecContext,
): Promise<void> {
  await pace(cx);
  const bytes = pageBytes(reader, pages, defs);
  const keys = pages[0]!.codes.length;
  const partOf = (from: number, to: number): GroupPageRequest => {
    const these = pages.slice(from, to);
    return {
      ...partRequest(shape, pages, bytes, from, to),
      ...(shape.bucket === undefined ? {} : { bucket: shape.bucket }),
      codes: Array.from({ length: keys }, (_, j) => these.map((g) => g.codes[j]!.codes.subarray(g.lo, g.hi))),
      sizes: Array.from({ length: keys }, (_, j) => these.map((g) => g.sizes[j]!)),
    };
  };
  const { bounds, results } = await summarizeParts(
    pages,
    rows,
    cx,
    partOf,
    SUMMARIZE_GROUP_PAGES,
    summarizeGroupPages,
    Math.max(1, Math.floor(cx.pageFrame.minRows * GROUPED_PART_SHARE)),
  );
  for (let k = 0; k < results.length; k++) {
    const out = results[k]!;
    let at = 0;
    for (let i = bounds[k]!; i < bounds[k + 1]!; i++)
      at = merge.page(pages[i]!, out, at, () => passingRows(partOf(i, i + 1), 0)?.slice() ?? null);
  }
}

/**
 * The groups: ids in first-seen order. Each combination of a partition's text codes is mapped
 * once to the text keys' id; with SAMPLE BY, a group is a bucket and such an id.
 */
class Groups {
  /** Per text key: each text id's value. */
  readonly #text: Value[][];
  readonly #textIds = new Map<string | null, number>();
  /** Per partition: text combination -> text id + 1 (0: not seen), in an array up to LOCAL_ARRAY combinations. */
  readonly #local = new Map<PartitionState, Int32Array | Map<number, number>>();
  #lastPartition: PartitionState | null = null;
  #lastLocal: Int32Array | Map<number, number> | null = null;
  #chars = 0;
  #textSize = 0;
  /** SAMPLE BY: per group, its bucket and its text id; bucket -> its groups by text id (-1 or a hole: none yet). */
  readonly #bucketed: boolean;
  readonly buckets: Value[] = [];
  readonly #textOf: number[] = [];
  readonly #byBucket = new Map<number, number[]>();
  #lastBucket = NaN;
  #lastBucketGroups: number[] | null = null;
  /** Without text keys: bucket -> group. */
  readonly #bucketGroups = new Map<number, number>();
  #lastBucketGroup = -1;

  constructor(textKeys: number, bucketed: boolean) {
    this.#text = Array.from({ length: textKeys }, () => []);
    this.#bucketed = bucketed;
  }

  get size(): number {
    return this.#bucketed ? this.#textOf.length : this.#textSize;
  }

  /** Text key `j`'s value of each group. */
  values(j: number): Value[] {
    const text = this.#text[j]!;
    return this.#bucketed ? this.#textOf.map((t) => text[t]!) : text;
  }

  /**
   * The group of text combination `combo` of partition `p`'s codes (c0 + s0 * (c1 + s1 * ...))
   * and, with SAMPLE BY, of bucket `bucket`: a new one at its first row.
   */
  of(p: PartitionState, codes: readonly TextCodes[], sizes: readonly number[], combo: number, bucket = NaN): number {
    const t = this.#textId(p, codes, sizes, combo);
    if (!this.#bucketed) return t;
    if (this.#text.length === 0) return this.#bucketOnly(bucket);
    let groups = bucket === this.#lastBucket ? this.#lastBucketGroups : this.#byBucket.get(bucket);
    if (groups === undefined || groups === null) this.#byBucket.set(bucket, (groups = []));
    this.#lastBucket = bucket;
    this.#lastBucketGroups = groups;
    let g = groups[t] ?? -1;
    if (g < 0) {
      g = this.#textOf.length;
      while (groups.length < t) groups.push(-1); // no holes: the array stays packed
      groups[t] = g;
      this.#textOf.push(t);
      this.buckets.push(bucket === LONG_NULL || bucket !== bucket ? null : bucket);
    }
    return g;
  }

  /** Without text keys: a group per bucket. */
  #bucketOnly(bucket: number): number {
    if (bucket === this.#lastBucket) return this.#lastBucketGroup;
    let g = this.#bucketGroups.get(bucket);
    if (g === undefined) {
      g = this.#textOf.length;
      this.#bucketGroups.set(bucket, g);
      this.#textOf.push(0);
      this.buckets.push(bucket === LONG_NULL || bucket !== bucket ? null : bucket);
    }
    this.#lastBucket = bucket;
    this.#lastBucketGroups = null;
    this.#lastBucketGroup = g;
    return g;
  }

  #textId(p: PartitionState, codes: readonly TextCodes[], sizes: readonly number[], combo: number): number {
    let local = p === this.#lastPartition ? this.#lastLocal! : this.#local.get(p);
    if (local === undefined) {
      const combos = sizes.reduce((a, b) => a * b, 1);
      this.#local.set(p, (local = combos <= LOCAL_ARRAY ? new Int32Array(combos) : new Map()));
    }
    this.#lastPartition = p;
    this.#lastLocal = local;
    const known = local instanceof Int32Array ? local[combo]! - 1 : (local.get(combo) ?? -1);
    if (known >= 0) return known;
    const values: (string | null)[] = [];
    let rest = combo;
    for (let j = 0; j < codes.length; j++) {
      const tc = codes[j]!,
        size = sizes[j]!;
      const code = rest % size;
      rest = (rest - code) / size;
      values.push(
        code === 0 ? null : decoder.decode(tc.dict.bytes.subarray(tc.dict.ends[code - 1], tc.dict.ends[code])),
      );
    }
    const key = values.length === 1 ? values[0]! : JSON.stringify(values);
    let id = this.#textIds.get(key);
    if (id === undefined) {
      id = this.#textSize++;
      this.#textIds.set(key, id);
      for (let j = 0; j < values.length; j++) {
        this.#text[j]!.push(values[j]!);
        this.#chars += values[j]?.length ?? 0;
      }
    }
    if (local instanceof Int32Array) local[combo] = id + 1;
    else local.set(combo, id);
    return id;
  }

  bytes(): number {
    let locals = 0;
    for (const m of this.#local.values()) locals += m instanceof Int32Array ? m.byteLength : m.size * 48;
    return (this.#textSize + this.#textOf.length * 2) * 48 + locals + this.#chars * 4;
  }
}

/** Takes pages' summaries (or rows) into the states, page after page. */
class Merger {
  #ids = new Int32Array(DEFAULT_BATCH_ROWS);
  readonly #numbers = new Uint16Array(DEFAULT_BATCH_ROWS);
  readonly #kinds: readonly PageSummaryKind[];
  readonly #columns: readonly number[];
  /** SAMPLE BY: which of `defs` is the designated timestamp (-1: none). */
  readonly #ts: number;

  constructor(
    private readonly reader: TableReader,
    private readonly states: readonly AggregateState[],
    private readonly defs: readonly ColumnDef[],
    shape: Shape,
    private readonly groups: Groups,
    private readonly buckets: Buckets | null,
  ) {
    this.#kinds = shape.kinds;
    this.#columns = shape.columns;
    this.#ts = shape.bucket?.ts ?? -1;
  }

  /**
   * Page `g` from its summaries at out[at...] (or by its rows: those `passing` gives, null for
   * all); returns where the next page's begin.
   */
  page(g: Page, out: Float64Array, at: number, passing: () => Int32Array | null): number {
    const m = out[at]!;
    if (m < 0) {
      this.#byRows(g, passing());
      return at + 1;
    }
    const kinds = this.#kinds.length;
    let next = at + 1 + m * (2 + kinds);
    let buckets: Float64Array | null = null;
    if (this.buckets !== null) {
      const b = out[next]!;
      buckets = out.subarray(next + 1, next + 1 + b);
      next += 1 + b;
    }
    // A NULL under a sum: the page's rows instead (the states are not touched before this test).
    for (let q = 0; q < kinds; q++) {
      if (this.#kinds[q] !== 'sum') continue;
      const from = at + 1 + m * (2 + q);
      for (let j = 0; j < m; j++)
        if (out[from + j] !== out[from + j]) {
          this.#byRows(g, passing());
          return next;
        }
    }
    // A combination is the text keys' (below `texts`), then the bucket's number.
    const texts = g.sizes.reduce((x, y) => x * y, 1);
    for (let j = 0; j < m; j++) {
      const combo = out[at + 1 + j]!;
      const text = combo % texts;
      const group = this.groups.of(g.p, g.codes, g.sizes, text, buckets?.[(combo - text) / texts]);
      const rows = out[at + 1 + m + j]!;
      for (let q = 0; q < kinds; q++)
        if (!this.states[q]!.takeSummary!(out[at + 1 + m * (2 + q) + j]!, rows, group))
          throw new Error(`a page summary of ${this.#kinds[q]} was refused`);
    }
    return next;
  }

  /** Page `g` row by row (those at `rows`, null for all): each row's group, then update() with the page's columns. */
  #byRows(g: Page, rows: Int32Array | null): void {
    const n = rows === null ? g.hi - g.lo : rows.length;
    if (this.#ids.length < n) this.#ids = new Int32Array(n);
    const ids = this.#ids.length === n ? this.#ids : this.#ids.subarray(0, n);
    let buckets: number[] | null = null;
    if (this.buckets !== null) {
      const bytes = this.reader.fixedBytes(g.p, this.defs[this.#ts]!);
      buckets = numberBuckets(
        this.buckets,
        bytes === null ? null : bytes(g.lo, g.hi),
        g.hi - g.lo,
        this.#numbers,
        rows,
      );
    }
    for (let i = 0; i < n; i++) {
      const r = g.lo + (rows === null ? i : rows[i]!);
      let combo = 0;
      for (let j = g.codes.length - 1; j >= 0; j--) combo = combo * g.sizes[j]! + g.codes[j]!.codes[r]!;
      ids[i] = this.groups.of(g.p, g.codes, g.sizes, combo, buckets?.[this.#numbers[i]!]);
    }
    let vectors: ColumnVector[] = this.reader.read(g.p, this.defs, g.lo, g.hi);
    if (rows !== null) vectors = vectors.map((v) => gatherVector(v, rows));
    for (let q = 0; q < this.states.length; q++) {
      const c = this.#columns[q]!;
      this.states[q]!.update(ids, c < 0 ? [] : [vectors[c]!], n, this.groups.size);
    }
  }
}
