// The WHERE of a scan read by pages (exec/page-aggregate.ts, exec/page-group.ts)
// as a term the threads evaluate page by page (exec/page-task.ts PageTerm):
// numeric columns against constants, and any deterministic condition on one
// text column, which the engine's own kernels compute once per entry of each
// partition's dictionary (code 0 is NULL) and the rows read through their
// codes; AND, OR and NOT of those. Any other WHERE keeps the row path.
import type { ColumnVector, VarVector } from '../core/column-vector.js';
import type { ColumnType } from '../core/column-type.js';
import type { SqlType } from '../core/sql-type.js';
import { asDoubles, boolsOf } from '../core/vec.js';
import type { CmpOp } from '../functions/compare.js';
import type { BoundExpr, Plan } from '../sql/bound.js';
import { isConstant } from '../sql/const-value.js';
import type { PartitionState } from '../storage/table-state.js';
import type { TableReader } from '../storage/table-reader.js';
import type { TextCodes } from '../storage/text-codes.js';
import type { ExecContext } from './context.js';
import { Evaluator, type CompiledExpr } from './expr.js';
import type { PageBytes, PageRange } from './page-rounds.js';
import type { PageFilter, PageSummaryRequest, PageTerm } from './page-task.js';

type ScanPlan = Extract<Plan, { kind: 'scan' }>;

/** Column types compared with constants page by page: as asDoubles reads them, which is how functions/compare.ts compares them. */
const NUMBER_COLUMNS: ReadonlySet<SqlType> = new Set(['DOUBLE', 'FLOAT', 'INT', 'LONG', 'SHORT', 'BYTE']);
/** The constants' types they are compared with (NULL: NaN). */
const NUMBER_CONSTANTS: ReadonlySet<SqlType> = new Set([...NUMBER_COLUMNS, 'NULL']);
const TEXT_COLUMNS: ReadonlySet<SqlType> = new Set(['VARCHAR', 'STRING']);
const COMPARISONS: ReadonlySet<string> = new Set(['=', '!=', '<', '<=', '>', '>=']);
/** `c op col` as `col FLIPPED[op] c`. */
const FLIPPED: Readonly<Record<CmpOp, CmpOp>> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** A condition on one text column, computed per dictionary entry. */
interface TextLeaf {
  /** Its column in scan.columns. */
  readonly column: number;
  readonly expr: BoundExpr;
}

/** A scan's WHERE as a page term; its numeric leaves name scan columns (requestTerm renumbers them). */
export interface ScanFilter {
  readonly term: PageTerm;
  /** The scan columns its numeric leaves read. */
  readonly numbers: readonly number[];
  readonly texts: readonly TextLeaf[];
}

/** Per text leaf, a partition's codes of its column and which of them pass. */
export interface PartitionFilter {
  readonly codes: readonly TextCodes[];
  readonly accept: readonly Uint8Array[];
}

/** A page with its partition's filter tables (null without a filter). */
export interface FilteredPage extends PageRange {
  readonly filter: PartitionFilter | null;
}

/**
 * The scan a page path reads and its WHERE as a page term: `input` is the scan itself (filter
 * null) or a filter directly over it whose predicate pages can evaluate; null otherwise.
 */
export function pageScan(input: Plan, cx: ExecContext): { scan: ScanPlan; filter: ScanFilter | null } | null {
  let filter: ScanFilter | null = null;
  let scan = input;
  if (scan.kind === 'filter') {
    const texts: TextLeaf[] = [];
    const numbers = new Set<number>();
    const types = scan.input.fields.map((f) => f.type);
    const term = termOf(scan.predicate, types, new Evaluator(cx, false), texts, numbers);
    if (term === null) return null;
    filter = { term, numbers: [...numbers], texts };
    scan = scan.input;
  }
  if (scan.kind !== 'scan' || scan.backwards === true || scan.batchRows !== undefined) return null;
  return { scan, filter };
}

/** `e` as a page term (text leaves added to `texts`, numeric columns to `numbers`), or null. */
function termOf(
  e: BoundExpr,
  types: readonly SqlType[],
  ev: Evaluator,
  texts: TextLeaf[],
  numbers: Set<number>,
): PageTerm | null {
  if (e.type !== 'BOOLEAN') return null;
  const text = oneTextColumn(e, types);
  if (text !== null) {
    texts.push({ column: text, expr: e });
    return { t: 'text', leaf: texts.length - 1 };
  }
  if (e.kind !== 'call' || e.runArgs !== undefined) return null;
  const args = e.args;
  if ((e.name === 'and' || e.name === 'or') && args.length === 2) {
    const a = termOf(args[0]!, types, ev, texts, numbers);
    const b = a === null ? null : termOf(args[1]!, types, ev, texts, numbers);
    return b === null ? null : { t: e.name, a: a!, b };
  }
  if (e.name === 'not' && args.length === 1) {
    const a = termOf(args[0]!, types, ev, texts, numbers);
    return a === null ? null : { t: 'not', a };
  }
  if (COMPARISONS.has(e.name) && args.length === 2) {
    const op = e.name as CmpOp;
    const [x, y] = args as [BoundExpr, BoundExpr];
    const left = numberColumn(x);
    const col = left ?? numberColumn(y);
    const value = numberConstant(left !== null ? y : x, ev);
    if (col === null || value === null) return null;
    numbers.add(col);
    return { t: 'cmp', column: col, op: left !== null ? op : FLIPPED[op], value };
  }
  if ((e.name === 'is_null' || e.name === 'is_not_null') && args.length === 1) {
    // NULL is NaN as asDoubles reads the column (functions/logic.ts nullTest agrees for these types).
    const col = numberColumn(args[0]!);
    if (col === null) return null;
    numbers.add(col);
    return { t: 'cmp', column: col, op: e.name === 'is_null' ? '=' : '!=', value: NaN };
  }
  if (e.name === 'between' && args.length === 3) {
    const col = numberColumn(args[0]!);
    const a = numberConstant(args[1]!, ev),
      b = numberConstant(args[2]!, ev);
    if (col === null || a === null || b === null) return null;
    // NULL bounds hold for no row; the bounds either way round (functions/compare.ts betweenKernel).
    if (a !== a || b !== b) return { t: 'never' };
    numbers.add(col);
    return { t: 'range', column: col, lo: Math.min(a, b), hi: Math.max(a, b) };
  }
  return null;
}

function numberColumn(e: BoundExpr): number | null {
  return e.kind === 'col' && NUMBER_COLUMNS.has(e.type) ? e.index : null;
}

/** The value of a numeric constant as the comparison reads it (NaN for NULL), or null when `e` is not one. */
function numberConstant(e: BoundExpr, ev: Evaluator): number | null {
  if (!NUMBER_CONSTANTS.has(e.type) || !isConstant(e)) return null;
  const v = ev.once({ rowCount: 1, columns: [] }, ev.compile(e));
  return asDoubles(v)[0]!;
}

/** The one column `e` reads when that is a VARCHAR or STRING column and `e` is deterministic; else null. */
function oneTextColumn(e: BoundExpr, types: readonly SqlType[]): number | null {
  let column = -1;
  const walk = (x: BoundExpr): boolean => {
    if (x.kind === 'const') return true;
    if (x.kind === 'col') {
      if (column >= 0 && column !== x.index) return false;
      column = x.index;
      return true;
    }
    return x.kind === 'call' && x.fn.deterministic === true && x.args.every(walk);
  };
  if (!walk(e) || column < 0 || !TEXT_COLUMNS.has(types[column]!)) return null;
  return column;
}

/** The term with its numeric leaves' scan columns renumbered by `index` (a request's column list). */
export function requestTerm(t: PageTerm, index: (scanColumn: number) => number): PageTerm {
  switch (t.t) {
    case 'and':
    case 'or':
      return { t: t.t, a: requestTerm(t.a, index), b: requestTerm(t.b, index) };
    case 'not':
      return { t: 'not', a: requestTerm(t.a, index) };
    case 'cmp':
    case 'range':
      return { ...t, column: index(t.column) };
    default:
      return t;
  }
}

/**
 * The filter's tables per partition: each text leaf's codes of its column and the table of the
 * codes that pass, computed once per partition by the leaf's own kernels over the dictionary.
 */
export class FilterTables {
  readonly #filter: ScanFilter;
  readonly #reader: TableReader;
  readonly #scan: ScanPlan;
  readonly #ev: Evaluator;
  readonly #compiled: CompiledExpr[];
  readonly #of = new Map<PartitionState, PartitionFilter | null>();

  constructor(filter: ScanFilter, reader: TableReader, scan: ScanPlan, cx: ExecContext) {
    this.#filter = filter;
    this.#reader = reader;
    this.#scan = scan;
    this.#ev = new Evaluator(cx, false);
    this.#compiled = filter.texts.map((l) => this.#ev.compile(l.expr));
  }

  /**
   * Whether every partition the ranges touch has its tables: false when one has no codes for a
   * text leaf's column or a leaf's kernels threw over its dictionary (the row path then computes,
   * or refuses, what the tables could not).
   */
  cover(ranges: readonly { readonly partition: PartitionState; readonly lo: number; readonly hi: number }[]): boolean {
    try {
      return ranges.every((r) => r.hi <= r.lo || this.of(r.partition) !== null);
    } catch {
      return false;
    }
  }

  /**
   * Partition p's tables; null when a text leaf's column has no codes there (too many distinct
   * values, or the partition predates the column). Throws what a leaf's kernels throw.
   */
  of(p: PartitionState): PartitionFilter | null {
    let f = this.#of.get(p);
    if (f !== undefined) return f;
    const codes: TextCodes[] = [];
    const accept: Uint8Array[] = [];
    f = null;
    for (const [j, leaf] of this.#filter.texts.entries()) {
      const def = this.#reader.column(this.#scan.columns[leaf.column]!);
      const tc = this.#reader.textCodes(p, def);
      if (tc === null) break;
      codes.push(tc);
      accept.push(this.#table(j, def.type, tc));
    }
    if (codes.length === this.#filter.texts.length) f = { codes, accept };
    this.#of.set(p, f);
    return f;
  }

  /** Leaf j over each entry of the dictionary: entry k as row k (entry 0 is NULL). */
  #table(j: number, type: ColumnType, tc: TextCodes): Uint8Array {
    const size = tc.dict.size;
    const offsets = new Int32Array(size + 1);
    offsets.set(tc.dict.ends.subarray(0, size), 1);
    const nulls = new Uint8Array(size);
    nulls[0] = 1;
    const entries: VarVector = { kind: 'var', type, bytes: tc.dict.bytes, offsets, nulls };
    // The leaf reads only its column: every slot holds the entries.
    const columns: ColumnVector[] = this.#scan.columns.map(() => entries);
    const out = this.#ev.once({ rowCount: size, columns }, this.#compiled[j]!);
    return Uint8Array.from(boolsOf(out).subarray(0, size));
  }
}

/** What every part of a scan's rounds asks for: the columns' types, the summaries and their columns, the filter's term over the columns and its text leaves. */
export interface PartShape extends Pick<PageSummaryRequest, 'types' | 'kinds' | 'columns'> {
  readonly term: PageTerm | null;
  readonly leaves: number;
}

/** Pages [from, to) of a round (their bytes per column in `bytes`) as a request. */
export function partRequest(
  shape: PartShape,
  pages: readonly FilteredPage[],
  bytes: PageBytes,
  from: number,
  to: number,
): PageSummaryRequest {
  const these = pages.slice(from, to);
  const filter = filterRequest(shape.term, these, shape.leaves);
  return {
    types: shape.types,
    kinds: shape.kinds,
    columns: shape.columns,
    bytes: bytes(from, to),
    rows: these.map((g) => g.hi - g.lo),
    ...(filter === undefined ? {} : { filter }),
  };
}

/** The filter of a part of a round's pages, as a request carries it (undefined without a filter). */
function filterRequest(term: PageTerm | null, pages: readonly FilteredPage[], leaves: number): PageFilter | undefined {
  if (term === null) return undefined;
  return {
    term,
    codes: Array.from({ length: leaves }, (_, j) => pages.map((g) => g.filter!.codes[j]!.codes.subarray(g.lo, g.hi))),
    accept: Array.from({ length: leaves }, (_, j) => pages.map((g) => g.filter!.accept[j]!)),
  };
}
