// Hash joins (INNER, LEFT, CROSS): the right side is collected and its rows
// hashed by key (first row per key in a Map, the others chained through an
// Int32Array, so a key costs one Map entry whatever its number of rows); the
// left side streams. Row pairs are made at most a batch at a time: the ON
// condition's remainder runs per chunk of pairs, the statement's deadline and
// abort are checked and the event loop gets its turn between chunks, so a join
// of any size keeps memory bounded and stops at its timeout.
import type { ColumnType } from '../core/column-type.js';
import { nullVector, type ColumnVector } from '../core/column-vector.js';
import { DEFAULT_BATCH_ROWS, type Batch } from '../core/batch.js';
import type { Plan } from '../sql/bound.js';
import type { SqlType } from '../core/sql-type.js';
import { asDoubles, nullFlags } from '../core/vec.js';
import { collect } from './batches.js';
import { gatherBatch, gatherOrNull } from '../core/vector-ops.js';
import { Held, keyEntryBytes, pace, type ExecContext } from './context.js';
import { Evaluator } from './expr.js';
import { prepareSubqueries } from './subqueries.js';
import { run } from './operators.js';
import { rowKey } from './vectors.js';

type JoinPlan = Extract<Plan, { kind: 'join' }>;

/** Row pairs made and filtered at a time. */
const PAIRS = DEFAULT_BATCH_ROWS;

/** Key types whose values compare equal exactly when their doubles do (as their row keys would). */
const NUMBER_KEYS = new Set<SqlType>(['BYTE', 'SHORT', 'INT', 'LONG', 'FLOAT', 'DOUBLE', 'DATE', 'TIMESTAMP']);

/**
 * Doubles -> an int per distinct value: open addressing over the values' bits,
 * no object per entry (a Map of a million numbers spends most of a join's time
 * hashing and boxing). -0 is 0; NaN is never put in (NULL keys do not match).
 */
class NumberIndex {
  readonly #keys: Float64Array;
  readonly #values: Int32Array;
  readonly #mask: number;
  readonly #bits = new Float64Array(1);
  readonly #words = new Int32Array(this.#bits.buffer);

  /** Room for `n` distinct values at most. */
  constructor(n: number) {
    let cap = 16;
    while (cap < 2 * n) cap *= 2;
    this.#keys = new Float64Array(cap);
    this.#values = new Int32Array(cap).fill(-1);
    this.#mask = cap - 1;
  }

  #slot(v: number): number {
    const words = this.#words;
    this.#bits[0] = v;
    let h = Math.imul(words[0]! ^ Math.imul(words[1]!, 0x9e3779b1), 0x85ebca6b);
    h ^= h >>> 15;
    const keys = this.#keys,
      values = this.#values,
      mask = this.#mask;
    let slot = h & mask;
    while (values[slot]! >= 0 && keys[slot] !== v) slot = (slot + 1) & mask;
    return slot;
  }

  /** The int stored for `v`, or -1. */
  get(v: number): number {
    return this.#values[this.#slot(v + 0)]!;
  }

  /** Stores `value` for `v`; returns what was stored before, or -1. */
  swap(v: number, value: number): number {
    const w = v + 0; // -0 -> 0
    const slot = this.#slot(w);
    const old = this.#values[slot]!;
    this.#keys[slot] = w;
    this.#values[slot] = value;
    return old;
  }
}

/** The right side's rows by key: the first row of each key in an index, the next ones chained through `next` in row order. */
class JoinTable {
  readonly next: Int32Array;
  readonly #numbers: NumberIndex | null;
  readonly #strings: Map<string, number> | null;

  private constructor(rows: number, numeric: boolean) {
    this.next = new Int32Array(rows);
    this.#numbers = numeric ? new NumberIndex(rows) : null;
    this.#strings = numeric ? null : new Map();
  }

  /** Hashes `right`'s rows on `keys` (rows with a NULL key never match), charging `held` and pacing as it goes. */
  static async build(
    right: Batch,
    keys: readonly number[],
    numeric: boolean,
    cx: ExecContext,
    held: Held,
  ): Promise<JoinTable> {
    const n = right.rowCount;
    // The chains, and for numbers the index (two slots a row at most: 24 bytes).
    held.add(n * 4 + (numeric ? 24 * Math.max(8, n) : 0));
    const t = new JoinTable(n, numeric);
    if (n === 0) return t; // collected without columns
    const cols = keys.map((k) => right.columns[k]!);
    const nulls = anyNull(cols, n);
    const next = t.next;
    // Backwards, so that each key's chain runs in row order.
    if (t.#numbers !== null) {
      const index = t.#numbers;
      const x = asDoubles(cols[0]!);
      for (let i = n - 1; i >= 0; i--) {
        if (nulls !== null && nulls[i]) {
          next[i] = -1;
          continue;
        }
        next[i] = index.swap(x[i]!, i);
        if ((i & 65535) === 0) await pace(cx);
      }
      return t;
    }
    const map = t.#strings!;
    let bytes = 0;
    for (let i = n - 1; i >= 0; i--) {
      if (nulls !== null && nulls[i]) {
        next[i] = -1;
        continue;
      }
      const k = rowKey(cols, i);
      const first = map.get(k);
      if (first === undefined) bytes += keyEntryBytes(k.length);
      next[i] = first ?? -1;
      map.set(k, i);
      if ((i & 8191) === 0) {
        held.add(bytes);
        bytes = 0;
        await pace(cx);
      }
    }
    held.add(bytes);
    return t;
  }

  /** Per row of `cols` (the left keys): its first matching right row, or -1. */
  probe(cols: readonly ColumnVector[], n: number): Int32Array {
    const first = new Int32Array(n);
    const nulls = anyNull(cols, n);
    if (this.#numbers !== null) {
      const index = this.#numbers;
      const x = asDoubles(cols[0]!);
      for (let i = 0; i < n; i++) first[i] = nulls !== null && nulls[i] ? -1 : index.get(x[i]!);
    } else {
      const map = this.#strings!;
      for (let i = 0; i < n; i++) first[i] = nulls !== null && nulls[i] ? -1 : (map.get(rowKey(cols, i)) ?? -1);
    }
    return first;
  }
}

/** 1 where any of `cols` is NULL, or null when none is. */
function anyNull(cols: readonly ColumnVector[], n: number): Uint8Array | null {
  let out: Uint8Array | null = null;
  for (const c of cols) {
    const f = nullFlags(c);
    for (let i = 0; i < n; i++) if (f[i]) (out ??= new Uint8Array(n))[i] = 1;
  }
  return out;
}

export async function* runJoin(plan: JoinPlan, cx: ExecContext): AsyncGenerator<Batch> {
  const held = new Held(cx.budget, 'JOIN');
  try {
    const right = await collect(run(plan.right, cx), plan.right.fields.length, cx, held);
    await prepareSubqueries([plan.residual], cx);
    const ev = new Evaluator(cx);
    const residual = plan.residual ? ev.compile(plan.residual) : null;
    const rightTypes = plan.right.fields.map((f) => (f.type === 'NULL' ? 'DOUBLE' : f.type));
    const cross = plan.type === 'CROSS';
    const left = plan.type === 'LEFT';
    const numeric =
      plan.leftKeys.length === 1 &&
      NUMBER_KEYS.has(plan.left.fields[plan.leftKeys[0]!]!.type) &&
      NUMBER_KEYS.has(plan.right.fields[plan.rightKeys[0]!]!.type);
    const table = cross ? null : await JoinTable.build(right, plan.rightKeys, numeric, cx, held);
    const next = table?.next ?? null;
    const rightRows = right.rowCount;
    // The pairs of one chunk: left row, right row (-1: none), and whether it is its left row's last pair.
    const li = new Int32Array(PAIRS),
      ri = new Int32Array(PAIRS),
      last = new Uint8Array(PAIRS);
    const keepL = new Int32Array(PAIRS),
      keepR = new Int32Array(PAIRS);
    held.add(PAIRS * 17);
    // LEFT JOIN with an ON remainder: whether the current left row had a pair that passed it (its pairs may span chunks).
    let passed = false;
    for await (const b of run(plan.left, cx)) {
      const n = b.rowCount;
      if (n === 0) continue;
      const first = table
        ? table.probe(
            plan.leftKeys.map((k) => b.columns[k]!),
            n,
          )
        : null;
      let i = 0;
      /** The next right row of left row i; -2 before its first. */
      let r = -2;
      while (i < n) {
        let count = 0;
        while (count < PAIRS && i < n) {
          if (r === -2) {
            r = first ? first[i]! : rightRows > 0 ? 0 : -1;
            if (r < 0) {
              if (left) {
                li[count] = i;
                ri[count] = -1;
                last[count] = 1;
                count++;
              }
              i++;
              r = -2;
              continue;
            }
          }
          li[count] = i;
          ri[count] = r;
          r = next ? next[r]! : r + 1 < rightRows ? r + 1 : -1;
          if (r < 0) {
            last[count] = 1;
            i++;
            r = -2;
          } else last[count] = 0;
          count++;
        }
        if (count > 0) {
          const pairs = joinPairs(b, right, li.subarray(0, count), ri.subarray(0, count), rightTypes);
          if (!residual) {
            yield pairs;
          } else {
            const mask = new Uint8Array(count);
            let at = 0;
            for await (const m of ev.chunks(pairs, (part) => (residual(part) as { data: Uint8Array }).data)) {
              mask.set(m.subarray(0, Math.min(m.length, count - at)), at);
              at += m.length;
            }
            // Pairs that pass; a LEFT JOIN's left row whose pairs all fail still appears once, with NULLs.
            let kept = 0;
            for (let j = 0; j < count; j++) {
              if (mask[j] && ri[j]! >= 0) {
                keepL[kept] = li[j]!;
                keepR[kept] = ri[j]!;
                kept++;
                passed = true;
              }
              if (last[j]) {
                if (left && !passed) {
                  keepL[kept] = li[j]!;
                  keepR[kept] = -1;
                  kept++;
                }
                passed = false;
              }
            }
            if (kept > 0) yield joinPairs(b, right, keepL.subarray(0, kept), keepR.subarray(0, kept), rightTypes);
          }
        }
        await pace(cx);
      }
    }
  } finally {
    held.release();
  }
}

/** Left rows `li` side by side with right rows `ri` (NULLs where `ri` is -1). */
export function joinPairs(
  left: Batch,
  right: Batch,
  li: Int32Array,
  ri: Int32Array,
  rightTypes: readonly ColumnType[],
): Batch {
  const l = gatherBatch(left, li);
  // A right side without rows was collected without columns: all NULL.
  const rcols = rightTypes.map((t, c) =>
    right.rowCount === 0 ? nullVector(t, ri.length) : gatherOrNull(right.columns[c]!, ri, t),
  );
  return { rowCount: li.length, columns: [...l.columns, ...rcols] };
}
