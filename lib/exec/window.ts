// Window functions (the 'window' plan node): the input is collected
// (charged to the statement's budget); per function, rows are grouped by PARTITION BY (a counting
// sort by partition id) and ordered by the window's ORDER BY within each
// partition (skipped when already in order, as rows of a timestamp-ordered scan
// are); frames become two monotone pointers, so every function is O(rows)
// after the sort. Results are written at the rows' input positions: rows leave
// in the order they came, each with one more column per function.
import type { Batch } from '../core/batch.js';
import { nullVector, type ColumnVector } from '../core/column-vector.js';
import { isByteRows, type ColumnType } from '../core/column-type.js';
import { concatVectors, gatherVector, sliceBatches } from '../core/vector-ops.js';
import type { BoundExpr, BoundWindow, Plan } from '../sql/bound.js';
import { asDoubles, fromDoubles, longVector, nullFlags } from '../core/vec.js';
import { collect } from './batches.js';
import { holding, type Held, pace, vectorBytes, type ExecContext } from './context.js';
import { exprText } from './explain.js';
import { Evaluator } from './expr.js';
import { comparable } from './sort.js';
import { isDecimal } from '../core/sql-type.js';
import { decimalAt, fitsPrecision, putDecimal } from '../core/decimal.js';
import { decimalSpec, typeInfo } from '../core/column-type.js';
import type { FixedVector } from '../core/column-vector.js';
import { divHalfEven } from '../functions/decimal-arithmetic.js';
import { SvcError } from '../errors/svc-error.js';
import { prepareSubqueries } from './subqueries.js';
import { rowKey } from './vectors.js';

type WindowPlan = Extract<Plan, { kind: 'window' }>;

/** Rows grouped by partition and ordered within each, shared by functions with the same PARTITION BY and ORDER BY. */
interface Ordering {
  /** Row numbers: partition k is perm[starts[k]] .. perm[starts[k + 1] - 1], in window order. */
  readonly perm: Int32Array;
  readonly starts: Int32Array;
  /** Whether rows a and b are peers (equal on every ORDER BY key; always without ORDER BY). */
  readonly peers: (a: number, b: number) => boolean;
  /** The first ORDER BY expression's values (RANGE frames with offsets), or null without ORDER BY. */
  readonly first: ColumnVector | null;
}

/** An expression's values over the collected rows. */
type Values = (e: BoundExpr) => ColumnVector;

export function runWindow(plan: WindowPlan, input: AsyncIterable<Batch>, cx: ExecContext): AsyncGenerator<Batch> {
  return holding(cx.budget, 'window functions', (held) => windows(plan, input, cx, held));
}

async function* windows(
  plan: WindowPlan,
  input: AsyncIterable<Batch>,
  cx: ExecContext,
  held: Held,
): AsyncGenerator<Batch> {
  const fns = plan.functions;
  await prepareSubqueries(
    fns.flatMap((f) => [...f.args, ...f.partitionBy, ...f.orderBy.map((o) => o.expr)]),
    cx,
  );
  const all = await collect(input, plan.input.fields.length, cx, held);
  const n = all.rowCount;
  if (n === 0) return;
  // Over all rows at once: what kernels build is limited by the budget alone (no row chunks), and kept (charged) while used.
  const ev = new Evaluator(cx, false);
  const value: Values = (e) => {
    const v = ev.once(all, (b) => ev.compile(e)(b));
    held.add(vectorBytes(v));
    return v;
  };
  const orderings = new Map<string, Ordering>();
  const results: ColumnVector[] = [];
  for (const f of fns) {
    const key = [
      ...f.partitionBy.map(exprText),
      '|',
      ...f.orderBy.map((o) => `${exprText(o.expr)}${o.desc ? ' desc' : ''}`),
    ].join(',');
    let o = orderings.get(key);
    if (!o) {
      held.add(n * 8);
      o = ordering(f, n, value, cx);
      orderings.set(key, o);
      held.add(o.perm.byteLength + o.starts.byteLength);
    }
    // Frame bounds, sources and output of this function: about 24 bytes a row while it runs.
    held.add(n * 24);
    const r = compute(f, o, n, value);
    held.set(held.bytes - n * 24 + vectorBytes(r));
    results.push(r);
    await pace(cx);
  }
  yield* sliceBatches({ rowCount: n, columns: [...all.columns, ...results] });
}

/** Partition ids by PARTITION BY values (first appearance order), then a counting sort and per-partition sorts. */
function ordering(f: BoundWindow, n: number, value: Values, cx: ExecContext): Ordering {
  const { ids, count } = partitionIds(f.partitionBy.map(value), n);
  const starts = new Int32Array(count + 1);
  for (let i = 0; i < n; i++) starts[ids[i]! + 1]!++;
  for (let k = 0; k < count; k++) starts[k + 1]! += starts[k]!;
  const perm = new Int32Array(n);
  const fill = starts.slice(0, count);
  for (let i = 0; i < n; i++) perm[fill[ids[i]!]!++] = i;
  if (f.orderBy.length === 0) return { perm, starts, peers: () => true, first: null };
  const orderValues = f.orderBy.map((o) => value(o.expr));
  const keys = f.orderBy.map((o, k) => {
    const c = comparable(orderValues[k]!);
    return o.desc ? (x: number, y: number) => c(y, x) : c;
  });
  const deadline = cx.deadline;
  const cmp = (x: number, y: number): number => {
    deadline.tick();
    for (let k = 0; k < keys.length; k++) {
      const r = keys[k]!(x, y);
      if (r !== 0) return r;
    }
    return x - y; // rows of a partition are in input order: ties keep it
  };
  for (let k = 0; k < count; k++) {
    const s = starts[k]!,
      e = starts[k + 1]!;
    let sorted = true;
    for (let p = s + 1; p < e && sorted; p++) sorted = cmp(perm[p - 1]!, perm[p]!) < 0;
    if (!sorted) perm.subarray(s, e).sort(cmp);
  }
  const peers = (x: number, y: number): boolean => {
    for (let k = 0; k < keys.length; k++) if (keys[k]!(x, y) !== 0) return false;
    return true;
  };
  return { perm, starts, peers, first: orderValues[0]! };
}

/** A partition id per row: one partition without keys; symbol keys and single numbers without strings per row. */
function partitionIds(cols: readonly ColumnVector[], n: number): { ids: Int32Array; count: number } {
  const ids = new Int32Array(n);
  if (cols.length === 0) return { ids, count: 1 };
  let count = 0;
  const c0 = cols[0]!;
  if (cols.length === 1 && c0.kind === 'symbol') {
    const slot = new Int32Array(c0.dict.length + 1).fill(-1); // key -1 (NULL) at slot 0
    for (let i = 0; i < n; i++) {
      const k = c0.keys[i]! + 1;
      let g = slot[k]!;
      if (g < 0) g = slot[k] = count++;
      ids[i] = g;
    }
    return { ids, count };
  }
  if (cols.length === 1 && c0.kind === 'fixed' && !isByteRows(c0.type)) {
    const x = asDoubles(c0);
    const groups = new Map<number, number>();
    let nullGroup = -1;
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      let g = v === v ? groups.get(v) : nullGroup;
      if (g === undefined || g < 0) {
        g = count++;
        if (v === v) groups.set(v, g);
        else nullGroup = g;
      }
      ids[i] = g;
    }
    return { ids, count };
  }
  const groups = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const k = rowKey(cols, i);
    let g = groups.get(k);
    if (g === undefined) {
      g = count++;
      groups.set(k, g);
    }
    ids[i] = g;
  }
  return { ids, count };
}

function compute(f: BoundWindow, o: Ordering, n: number, value: Values): ColumnVector {
  const args = f.args.map(value);
  switch (f.fn) {
    case 'row_number':
    case 'rank':
    case 'dense_rank':
    case 'percent_rank':
    case 'cume_dist':
    case 'ntile':
      return ranks(o, n, f.fn, f.offset);
    case 'lag':
    case 'lead':
      return pick(f.type, args[0]!, args[1] ?? null, offsetSources(f, o, args[0]!, n));
    case 'first_value':
    case 'last_value':
      return pick(f.type, args[0]!, null, valueSources(f, o, args[0]!, n));
    case 'nth_value': {
      // The frame's offset-th row (1-based), or NULL when the frame is shorter.
      const { lo, hi } = frameBounds(f, o, n);
      const src = new Int32Array(n);
      for (let p = 0; p < n; p++) {
        const q = lo[p]! + f.offset - 1;
        src[o.perm[p]!] = q <= hi[p]! ? o.perm[q]! : -1;
      }
      return pick(f.type, args[0]!, null, src);
    }
    case 'count':
      return counts(f, o, args[0] ?? null, n);
    case 'sum':
    case 'ksum':
    case 'avg':
      if (f.ema === undefined && isDecimal(f.type)) return decimalSums(f, o, args[0]!, n);
      return f.ema !== undefined ? emas(f.ema, o, args, n) : sums(f, o, args[0]!, n);
    case 'min':
    case 'max':
      return isDecimal(f.type) ? decimalExtremes(f, o, args[0]!, n) : extremes(f, o, args[0]!, n);
  }
}

/**
 * Ranking within each partition of m rows: row_number; rank (first peer's
 * row number) and dense_rank; percent_rank (rank - 1) / (m - 1), 0 for one
 * row; cume_dist (last peer's row number) / m; ntile(buckets), the first
 * m % buckets buckets one row larger.
 */
function ranks(o: Ordering, n: number, kind: BoundWindow['fn'], buckets: number): ColumnVector {
  const { perm, starts, peers } = o;
  const out = new Float64Array(n);
  for (let k = 0; k + 1 < starts.length; k++) {
    const s = starts[k]!,
      e = starts[k + 1]!,
      m = e - s;
    const size = Math.floor(m / buckets),
      big = m % buckets,
      threshold = big * (size + 1);
    let rank = 1,
      dense = 1,
      groupEnd = s;
    for (let p = s; p < e; p++) {
      if (p > s && !peers(perm[p - 1]!, perm[p]!)) {
        rank = p - s + 1;
        dense++;
      }
      let v: number;
      switch (kind) {
        case 'row_number':
          v = p - s + 1;
          break;
        case 'rank':
          v = rank;
          break;
        case 'dense_rank':
          v = dense;
          break;
        case 'percent_rank':
          v = m === 1 ? 0 : (rank - 1) / (m - 1);
          break;
        case 'cume_dist':
          if (groupEnd <= p) {
            groupEnd = p + 1;
            while (groupEnd < e && peers(perm[p]!, perm[groupEnd]!)) groupEnd++;
          }
          v = (groupEnd - s) / m;
          break;
        default: {
          // ntile
          const i = p - s;
          v = i < threshold ? Math.floor(i / (size + 1)) + 1 : Math.floor((i - threshold) / size) + 1 + big;
        }
      }
      out[perm[p]!] = v;
    }
  }
  return kind === 'percent_rank' || kind === 'cume_dist' ? fromDoubles('DOUBLE', out) : longVector('LONG', out);
}

/** Row i of the result: row src[i] of `value`, or where src[i] < 0 row i of `dflt` (NULL without one). */
function pick(
  type: BoundWindow['type'],
  value: ColumnVector,
  dflt: ColumnVector | null,
  src: Int32Array,
): ColumnVector {
  const n = src.length;
  const combined = concatVectors([value, dflt ?? nullVector(type as ColumnType, 1)]);
  for (let i = 0; i < n; i++) if (src[i]! < 0) src[i] = dflt ? n + i : n;
  return gatherVector(combined, src);
}

/** lag / lead: the row `offset` rows back / ahead in the partition (counting non-NULL values only with IGNORE NULLS), else -1. */
function offsetSources(f: BoundWindow, o: Ordering, value: ColumnVector, n: number): Int32Array {
  const { perm, starts } = o;
  const src = new Int32Array(n);
  const off = f.offset;
  const back = f.fn === 'lag';
  const isNull = f.ignoreNulls && off > 0 ? nullFlags(value) : null;
  const nn = isNull ? new Int32Array(n) : null; // rows with a value, in partition order
  for (let k = 0; k + 1 < starts.length; k++) {
    const s = starts[k]!,
      e = starts[k + 1]!;
    if (!isNull || !nn) {
      for (let p = s; p < e; p++) {
        const q = back ? p - off : p + off;
        src[perm[p]!] = q >= s && q < e ? perm[q]! : -1;
      }
      continue;
    }
    let c = 0;
    for (let p = s; p < e; p++) if (!isNull[perm[p]!]) nn[c++] = perm[p]!;
    let before = 0; // values strictly before p
    for (let p = s; p < e; p++) {
      const r = perm[p]!;
      const here = isNull[r] ? 0 : 1;
      const idx = back ? before - off : before + here + off - 1;
      src[r] = idx >= 0 && idx < c ? nn[idx]! : -1;
      before += here;
    }
  }
  return src;
}

/**
 * Frame bounds per position of `perm`: the frame of perm[p] is positions
 * lo[p] .. hi[p] (empty when lo > hi). Both are non-decreasing within a
 * partition, and a partition's frames lie after the previous partition's.
 */
function frameBounds(f: BoundWindow, o: Ordering, n: number): { lo: Int32Array; hi: Int32Array } {
  const { perm, starts, peers } = o;
  const { unit, start, end } = f.frame;
  const lo = new Int32Array(n);
  const hi = new Int32Array(n);
  const offsets = unit === 'RANGE' && ((start !== 0 && Number.isFinite(start)) || (end !== 0 && Number.isFinite(end)));
  // RANGE with offsets: the one ORDER BY value, negated when descending, NULL at the end it sorts to.
  let key: Float64Array | null = null;
  if (offsets) {
    const order = f.orderBy[0]!;
    const x = asDoubles(o.first!);
    key = new Float64Array(n);
    const nullKey = order.desc ? Infinity : -Infinity;
    for (let i = 0; i < n; i++) {
      const v = x[i]!;
      key[i] = v !== v ? nullKey : order.desc ? -v : v;
    }
  }
  for (let k = 0; k + 1 < starts.length; k++) {
    const s = starts[k]!,
      e = starts[k + 1]!;
    if (unit === 'ROWS') {
      for (let p = s; p < e; p++) {
        lo[p] = start === -Infinity ? s : Math.min(e, Math.max(s, p + start));
        hi[p] = end === Infinity ? e - 1 : Math.max(s - 1, Math.min(e - 1, p + end));
      }
    } else if (key) {
      let i = s,
        j = s;
      for (let p = s; p < e; p++) {
        const v = key[perm[p]!]!;
        if (start === -Infinity) lo[p] = s;
        else {
          const t = v + start;
          while (i < e && key[perm[i]!]! < t) i++;
          lo[p] = i;
        }
        if (end === Infinity) hi[p] = e - 1;
        else {
          const t = v + end;
          while (j < e && key[perm[j]!]! <= t) j++;
          hi[p] = j - 1;
        }
      }
    } else {
      // RANGE with CURRENT ROW bounds: the current row's peer group.
      let gs = s;
      for (let p = s; p < e;) {
        let ge = p + 1;
        while (ge < e && peers(perm[gs]!, perm[ge]!)) ge++;
        for (; p < ge; p++) {
          lo[p] = start === -Infinity ? s : gs;
          hi[p] = end === Infinity ? e - 1 : ge - 1;
        }
        gs = ge;
      }
    }
  }
  return { lo, hi };
}

/** first_value / last_value: the row at the frame's first / last position (first / last with a value under IGNORE NULLS), else -1. */
function valueSources(f: BoundWindow, o: Ordering, value: ColumnVector, n: number): Int32Array {
  const { perm, starts } = o;
  const { lo, hi } = frameBounds(f, o, n);
  const src = new Int32Array(n);
  const first = f.fn === 'first_value';
  if (!f.ignoreNulls) {
    for (let p = 0; p < n; p++) src[perm[p]!] = lo[p]! <= hi[p]! ? perm[first ? lo[p]! : hi[p]!]! : -1;
    return src;
  }
  // Nearest position with a value at or after (first) / at or before (last) each position, within its partition.
  const isNull = nullFlags(value);
  const near = new Int32Array(n);
  for (let k = 0; k + 1 < starts.length; k++) {
    const s = starts[k]!,
      e = starts[k + 1]!;
    if (first) {
      let q = e;
      for (let p = e - 1; p >= s; p--) {
        if (!isNull[perm[p]!]) q = p;
        near[p] = q;
      }
    } else {
      let q = s - 1;
      for (let p = s; p < e; p++) {
        if (!isNull[perm[p]!]) q = p;
        near[p] = q;
      }
    }
  }
  for (let p = 0; p < n; p++) {
    const a = lo[p]!,
      z = hi[p]!;
    let q = -1;
    if (a <= z) {
      q = first ? near[a]! : near[z]!;
      if (q < a || q > z) q = -1;
    }
    src[perm[p]!] = q < 0 ? -1 : perm[q]!;
  }
  return src;
}

/**
 * Runs a sliding frame over every position: `add` / `remove` positions as the
 * frame's ends move, `reset` when the next frame starts past the current
 * one, `emit` once the frame of position p is in place.
 */
function slide(
  lo: Int32Array,
  hi: Int32Array,
  add: (q: number) => void,
  remove: (q: number) => void,
  reset: () => void,
  emit: (p: number) => void,
): void {
  let from = 0,
    to = 0; // the state holds positions [from, to)
  for (let p = 0; p < lo.length; p++) {
    const a = lo[p]!,
      z = Math.max(a, hi[p]! + 1);
    if (a >= to) {
      reset();
      from = to = a;
    }
    while (to < z) add(to++);
    while (from < a) remove(from++);
    emit(p);
  }
}

function counts(f: BoundWindow, o: Ordering, value: ColumnVector | null, n: number): ColumnVector {
  const { perm } = o;
  const { lo, hi } = frameBounds(f, o, n);
  const out = new Float64Array(n);
  if (value === null) {
    for (let p = 0; p < n; p++) out[perm[p]!] = Math.max(0, hi[p]! - lo[p]! + 1);
    return longVector('LONG', out);
  }
  const isNull = nullFlags(value);
  const prefix = new Int32Array(n + 1); // values among positions < p
  for (let p = 0; p < n; p++) prefix[p + 1] = prefix[p]! + (isNull[perm[p]!] ? 0 : 1);
  for (let p = 0; p < n; p++) out[perm[p]!] = lo[p]! <= hi[p]! ? prefix[hi[p]! + 1]! - prefix[lo[p]!]! : 0;
  return longVector('LONG', out);
}

/** sum / ksum / avg: a running Neumaier-compensated sum (ksum is QuestDB's Kahan sum: the same compensated sum) of the frame's values (infinities counted apart, so they can leave the frame). */
/**
 * QuestDB's EMA over each partition in order: the first value starts it, then
 * ema = a * value + (1 - a) * ema, a the constant alpha or 1 - exp(-dt / tau) (1 when dt is 0);
 * a NULL value keeps the EMA (its time still counts as the last seen). VWEMA with a volume:
 * numerator and denominator smoothed alike, rows with a NULL value or volume, a zero volume or
 * (timed) no time passed skipped.
 */
function emas(ema: NonNullable<BoundWindow['ema']>, o: Ordering, args: ColumnVector[], n: number): ColumnVector {
  const { perm, starts } = o;
  const x = asDoubles(args[0]!);
  const w = ema.weighted ? asDoubles(args[1]!) : null;
  const t = ema.tau > 0 ? asDoubles(args[args.length - 1]!) : null;
  const out = new Float64Array(n).fill(NaN);
  for (let k = 0; k + 1 < starts.length; k++) {
    let value = NaN,
      num = 0,
      den = 0,
      last = NaN,
      started = false;
    for (let p = starts[k]!; p < starts[k + 1]!; p++) {
      const r = perm[p]!;
      const v = x[r]!;
      const vol = w === null ? 1 : w[r]!;
      let a = ema.alpha;
      if (t !== null && started) {
        const dt = t[r]! - last;
        a = dt === 0 ? 1 : 1 - Math.exp(-dt / ema.tau);
        if (w !== null && dt === 0) a = NaN; // VWEMA skips a row at the same time
      }
      const skip = v !== v || vol !== vol || (w !== null && (vol === 0 || a !== a));
      if (skip) {
        if (w === null && t !== null && started) last = t[r]!;
      } else if (!started) {
        started = true;
        value = v;
        num = v * vol;
        den = vol;
        if (t !== null) last = t[r]!;
      } else {
        if (w === null) value = a * v + (1 - a) * value;
        else {
          num = a * v * vol + (1 - a) * num;
          den = a * vol + (1 - a) * den;
          value = num / den;
        }
        if (t !== null) last = t[r]!;
      }
      out[r] = started ? value : NaN;
    }
  }
  return fromDoubles('DOUBLE', out);
}

function sums(f: BoundWindow, o: Ordering, value: ColumnVector, n: number): ColumnVector {
  const { perm } = o;
  const { lo, hi } = frameBounds(f, o, n);
  const x = asDoubles(value);
  const out = new Float64Array(n);
  let sum = 0,
    comp = 0,
    cnt = 0,
    pos = 0,
    neg = 0;
  const update = (v: number, sign: number): void => {
    if (v !== v) return;
    cnt += sign;
    if (v === Infinity) {
      pos += sign;
      return;
    }
    if (v === -Infinity) {
      neg += sign;
      return;
    }
    const y = sign * v;
    const t = sum + y;
    comp += Math.abs(sum) >= Math.abs(y) ? sum - t + y : y - t + sum;
    sum = t;
  };
  const average = f.fn === 'avg';
  slide(
    lo,
    hi,
    (q) => update(x[perm[q]!]!, 1),
    (q) => update(x[perm[q]!]!, -1),
    () => {
      sum = comp = cnt = pos = neg = 0;
    },
    (p) => {
      let r: number;
      if (cnt === 0 || (pos > 0 && neg > 0)) r = NaN;
      else if (pos > 0) r = Infinity;
      else if (neg > 0) r = -Infinity;
      else r = sum + comp;
      out[perm[p]!] = average ? r / cnt : r;
    },
  );
  return fromDoubles('DOUBLE', out);
}

/** min / max: a monotonic deque of frame positions (values only), its head the answer. */
function extremes(f: BoundWindow, o: Ordering, value: ColumnVector, n: number): ColumnVector {
  const { perm } = o;
  const { lo, hi } = frameBounds(f, o, n);
  const x = asDoubles(value);
  const out = new Float64Array(n);
  const dq = new Int32Array(n);
  let head = 0,
    tail = 0;
  const sign = f.fn === 'min' ? 1 : -1;
  slide(
    lo,
    hi,
    (q) => {
      const v = x[perm[q]!]!;
      if (v !== v) return;
      while (tail > head && sign * x[perm[dq[tail - 1]!]!]! >= sign * v) tail--;
      dq[tail++] = q;
    },
    (q) => {
      if (head < tail && dq[head] === q) head++;
    },
    () => {
      head = tail = 0;
    },
    (p) => {
      out[perm[p]!] = head < tail ? x[perm[dq[head]!]!]! : NaN;
    },
  );
  return fromDoubles(f.type, out);
}

/** A DECIMAL vector's unscaled values (null: NULL), read once. */
function decimals(v: ColumnVector): (bigint | null)[] {
  const w = typeInfo(v.type).width;
  const d = (v as FixedVector).data as Uint8Array;
  const out = new Array<bigint | null>(d.length / w);
  for (let i = 0; i < out.length; i++) out[i] = decimalAt(d, i, w);
  return out;
}

/**
 * sum / avg over a DECIMAL, exact on the unscaled values (QuestDB's): the sum in its widened
 * type (decimalSumType), the average in the argument's type rounded half to even; NULL when
 * the frame has no value; a sum past the type's precision is an error at the call.
 */
function decimalSums(f: BoundWindow, o: Ordering, value: ColumnVector, n: number): ColumnVector {
  const { perm } = o;
  const { lo, hi } = frameBounds(f, o, n);
  const x = decimals(value);
  const out = nullVector(f.type as ColumnType, n) as FixedVector;
  const bytes = out.data as Uint8Array;
  const { precision } = decimalSpec(f.type as ColumnType);
  const w = typeInfo(f.type as ColumnType).width;
  const average = f.fn === 'avg';
  let sum = 0n,
    cnt = 0;
  slide(
    lo,
    hi,
    (q) => {
      const v = x[perm[q]!];
      if (v === null || v === undefined) return;
      sum += v;
      cnt++;
    },
    (q) => {
      const v = x[perm[q]!];
      if (v === null || v === undefined) return;
      sum -= v;
      cnt--;
    },
    () => {
      sum = 0n;
      cnt = 0;
    },
    (p) => {
      if (cnt === 0) return;
      const r = average ? divHalfEven(sum, BigInt(cnt)) : sum;
      if (!fitsPrecision(r, precision))
        throw new SvcError('SQL', `${f.fn} aggregation failed: an overflow occurred`, { position: f.pos });
      putDecimal(bytes, perm[p]!, w, r);
    },
  );
  return out;
}

/** min / max over a DECIMAL: a monotonic deque of frame positions, compared as bigints. */
function decimalExtremes(f: BoundWindow, o: Ordering, value: ColumnVector, n: number): ColumnVector {
  const { perm } = o;
  const { lo, hi } = frameBounds(f, o, n);
  const x = decimals(value);
  const out = nullVector(f.type as ColumnType, n) as FixedVector;
  const bytes = out.data as Uint8Array;
  const w = typeInfo(f.type as ColumnType).width;
  const dq = new Int32Array(n);
  let head = 0,
    tail = 0;
  const max = f.fn === 'max';
  // Whether a is at least as good as b (the deque drops b then).
  const beats = (a: bigint, b: bigint): boolean => (max ? a >= b : a <= b);
  slide(
    lo,
    hi,
    (q) => {
      const v = x[perm[q]!];
      if (v === null || v === undefined) return;
      while (tail > head && beats(v, x[perm[dq[tail - 1]!]!]!)) tail--;
      dq[tail++] = q;
    },
    (q) => {
      if (head < tail && dq[head] === q) head++;
    },
    () => {
      head = tail = 0;
    },
    (p) => {
      if (head < tail) putDecimal(bytes, perm[p]!, w, x[perm[dq[head]!]!]!);
    },
  );
  return out;
}
