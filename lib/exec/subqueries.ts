// Uncorrelated subqueries in expressions (`(SELECT ...)` as a value, `x IN
// (SELECT ...)`, touch(SELECT ...)): each runs once per execution, before the operator that uses
// it compiles its expressions, and its values are kept in the execution's
// context (ExecContext.subqueryValues), never in the plan.
// Membership tests compare numbers as doubles and text as strings; NULL
// matches NULL, as QuestDB's = does.
import { SvcError } from '../errors/svc-error.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { BoundExpr, Plan } from '../sql/bound.js';
import { asDoubles, boolVector, textVector } from '../core/vec.js';
import { nullVector } from '../core/column-vector.js';
import { isNumeric, isTemporal } from '../core/sql-type.js';
import { collect } from './batches.js';
import { Held, type ExecContext, type SubqueryResult } from './context.js';
import { run } from './operators.js';
import { repeatRow, valueAt, type Value } from './vectors.js';
import { sliceVector } from '../core/vector-ops.js';
import { typeInfo } from '../core/column-type.js';

/** Runs the subqueries in `exprs` (nested ones first) that this execution has not run yet. */
export async function prepareSubqueries(exprs: readonly (BoundExpr | null)[], cx: ExecContext): Promise<void> {
  for (const e of exprs) if (e !== null) await prepare(e, cx);
}

async function prepare(e: BoundExpr, cx: ExecContext): Promise<void> {
  switch (e.kind) {
    case 'col':
    case 'const':
      return;
    case 'call':
      for (const a of e.args) await prepare(a, cx);
      return;
    case 'inSubquery':
      await prepare(e.expr, cx);
      break;
    case 'subquery':
      break;
  }
  if (cx.subqueryValues.has(e)) return;
  if (e.kind === 'subquery' && e.touch === true) {
    cx.subqueryValues.set(e, { values: [], row: textVector('STRING', [await touch(e.plan, cx)]) });
    return;
  }
  // The values stay charged for the rest of the statement (its budget is let go as a whole at the end).
  const held = new Held(cx.budget, 'subquery');
  const b = await collect(run(e.plan, cx), 1, cx, held);
  if (e.kind === 'subquery' && b.rowCount > 1) {
    held.release();
    throw new SvcError('SQL', `scalar subquery returned more than one row [rows=${b.rowCount}]`, { position: e.pos });
  }
  const values: Value[] = [];
  // A scalar subquery's value is used as its row, exactly (LONG digits, UUID, DECIMAL, GEOHASH bytes).
  const row = e.kind === 'subquery' && b.rowCount > 0 ? repeatRow(b.columns[0]!, 1) : null;
  let bytes = 0;
  for (let i = 0; i < b.rowCount; i++) {
    const v = valueAt(b.columns[0]!, i);
    values.push(v);
    bytes += typeof v === 'string' ? 40 + 2 * v.length : 16;
  }
  // The batch is garbage now; the values (and the sets inSubquery builds of them, as much again) stay.
  held.set(2 * bytes);
  cx.subqueryValues.set(e, { values, row });
}

/** Bytes of a touched page: what touch() counts its data pages in. */
export const TOUCH_PAGE_BYTES = 4096;

/**
 * Reads the plan's rows through, every value of every column loaded (text read lazily too), and
 * says how much that was as QuestDB's touch() does: svcdb has no page cache of its own, so the
 * data pages are the bytes read (the values as held in memory) in 4 KiB pages; no index pages.
 */
async function touch(plan: Plan, cx: ExecContext): Promise<string> {
  let bytes = 0;
  for await (const b of run(plan, cx)) for (const c of b.columns) bytes += vectorBytes(c);
  const pages = Math.ceil(bytes / TOUCH_PAGE_BYTES);
  return `{"data_pages": ${pages}, "index_key_pages": 0, "index_values_pages": 0}`;
}

function vectorBytes(v: ColumnVector): number {
  switch (v.kind) {
    case 'fixed':
      return v.data.byteLength;
    case 'var':
      return v.bytes.byteLength + v.offsets.byteLength;
    case 'symbol':
      return v.keys.byteLength;
    default:
      return 0;
  }
}

/** The results an execution computed for its subquery nodes (null: no execution, e.g. INSERT VALUES, where none can be). */
export type SubqueryValues = ReadonlyMap<BoundExpr, SubqueryResult> | null;

function resultOf(e: BoundExpr & { pos: number }, results: SubqueryValues): SubqueryResult {
  const r = results?.get(e);
  if (r === undefined)
    throw new SvcError('INTERNAL', 'subquery was not run before its expression', { position: e.pos });
  return r;
}

/** The scalar subquery's value (this execution's) as a constant vector of the batch's length. */
export function scalarSubquery(
  e: Extract<BoundExpr, { kind: 'subquery' }>,
  results: SubqueryValues,
): (n: number) => ColumnVector {
  let cached: ColumnVector | null = null;
  let size = 0;
  return (n) => {
    if (cached === null || size < n) {
      size = Math.max(n, 1024);
      const row = resultOf(e, results).row;
      cached = row === null ? nullVector(e.type === 'NULL' ? 'DOUBLE' : e.type, size) : repeatRow(row, size);
    }
    return size === n ? cached : sliceVector(cached, 0, n);
  };
}

/** A membership test of `x`'s rows in the subquery's values (this execution's), as a BOOLEAN vector. */
export function inSubquery(
  e: Extract<BoundExpr, { kind: 'inSubquery' }>,
  results: SubqueryValues,
): (x: ColumnVector) => ColumnVector {
  const t = e.expr.type;
  const numeric = t === 'BOOLEAN' || (t !== 'CHAR' && t !== 'IPV4' && (isNumeric(t) || isTemporal(t)));
  let nums: Set<number> | null = null;
  let strs: Set<string> | null = null;
  let hasNull = false;
  return (x) => {
    if (nums === null && strs === null) {
      const values = resultOf(e, results).values;
      hasNull = values.includes(null);
      if (numeric)
        nums = new Set(values.filter((v) => v !== null).map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : Number(v))));
      else strs = new Set(values.filter((v) => v !== null).map(String));
    }
    const n =
      x.kind === 'var'
        ? x.offsets.length - 1
        : x.kind === 'symbol'
          ? x.keys.length
          : x.data.length / typeInfo(x.type).stride;
    const out = new Uint8Array(n);
    if (nums !== null) {
      const d = asDoubles(x);
      for (let i = 0; i < n; i++) {
        const v = d[i]!;
        out[i] = v !== v ? (hasNull ? 1 : 0) : nums.has(v) ? 1 : 0;
      }
    } else if (x.kind === 'symbol') {
      // Once per dictionary entry, not per row.
      const hit = x.dict.map((s) => (strs!.has(s) ? 1 : 0));
      for (let i = 0; i < n; i++) {
        const k = x.keys[i]!;
        out[i] = k < 0 ? (hasNull ? 1 : 0) : hit[k]!;
      }
    } else {
      for (let i = 0; i < n; i++) {
        const v = valueAt(x, i);
        out[i] = v === null ? (hasNull ? 1 : 0) : strs!.has(String(v)) ? 1 : 0;
      }
    }
    return boolVector(out);
  };
}
