// ASOF / LT JOIN as a streaming merge over two timestamp-ordered inputs: the
// right side is read only as far as the current left row's timestamp, and the
// newest right row seen per key is remembered (a reference to its batch, so
// nothing is copied). Memory: one remembered row per key plus their batches.
import type { Plan } from '../sql/bound.js';
import type { SqlType } from '../core/sql-type.js';
import type { Batch } from '../core/batch.js';
import { gatherFromBatches } from '../core/vector-ops.js';
import { batchBytes, holding, type Held, keyEntryBytes, pace, type ExecContext } from './context.js';
import { rowKey } from './vectors.js';

type AsofPlan = Extract<Plan, { kind: 'asofJoin' }>;

export function runAsofJoin(
  plan: AsofPlan,
  left: AsyncIterable<Batch>,
  right: AsyncIterator<Batch>,
  cx: ExecContext,
): AsyncGenerator<Batch> {
  return holding(cx.budget, plan.splice ? 'SPLICE JOIN' : 'ASOF JOIN', (held) =>
    plan.splice ? runSplice(plan, left[Symbol.asyncIterator](), right, cx, held) : runAsof(plan, left, right, cx, held),
  );
}

/**
 * What the remembered rows hold: an entry per key and the batches they point
 * into (counted once per batch: a batch stays alive while any key points into it).
 */
class Remembered {
  readonly #refs = new Map<Batch, number>();
  #entries = 0;
  constructor(private readonly held: Held) {}

  /** Row `i` of `b` now stands for a key that stood for `old` (or is new, with `keyChars` characters). */
  replace(old: [Batch, number] | undefined, b: Batch, keyChars: number): void {
    if (old === undefined) this.#entries += keyEntryBytes(keyChars) + 32;
    else if (old[0] === b) return;
    else this.#unref(old[0]);
    const n = this.#refs.get(b);
    this.#refs.set(b, (n ?? 0) + 1);
    if (n === undefined) this.#entries += batchBytes(b);
  }

  #unref(b: Batch): void {
    const n = this.#refs.get(b)! - 1;
    if (n > 0) {
      this.#refs.set(b, n);
      return;
    }
    this.#refs.delete(b);
    this.#entries -= batchBytes(b);
  }

  /** Charges what is held now (once a batch: a charge per row would cost too much). */
  settle(extra = 0): void {
    this.held.set(this.#entries + extra);
  }
}

/** Row `i` of `b` is now the latest for `key` (its entry updated in place: matches copy what they need). */
function remember(last: Map<string, [Batch, number]>, key: string, b: Batch, i: number, remembered: Remembered): void {
  const old = last.get(key);
  remembered.replace(old, b, key.length);
  if (old === undefined) last.set(key, [b, i]);
  else {
    old[0] = b;
    old[1] = i;
  }
}

async function* runAsof(
  plan: AsofPlan,
  left: AsyncIterable<Batch>,
  right: AsyncIterator<Batch>,
  cx: ExecContext,
  held: Held,
): AsyncGenerator<Batch> {
  const rightTypes = plan.right.fields.map((f) => (f.type === 'NULL' ? 'DOUBLE' : f.type) as SqlType);
  const last = new Map<string, [Batch, number]>();
  const remembered = new Remembered(held);
  let rb: Batch | null = null;
  let ri = 0;
  let rightDone = false;
  const keyOf = (cols: readonly Batch['columns'][number][], i: number): string =>
    cols.length === 0 ? '' : rowKey(cols, i);
  try {
    for await (const b of left) {
      const lts = (b.columns[plan.leftTs] as { data: Float64Array }).data;
      const lkeys = plan.leftKeys.map((k) => b.columns[k]!);
      const matchBatch: (Batch | null)[] = new Array(b.rowCount).fill(null);
      const matchRow = new Int32Array(b.rowCount).fill(-1);
      for (let i = 0; i < b.rowCount; i++) {
        const t = lts[i]!;
        // Take in every right row at or before t (before t for LT).
        for (;;) {
          if (rb === null || ri >= rb.rowCount) {
            if (rightDone) break;
            const r = await right.next();
            if (r.done) {
              rightDone = true;
              break;
            }
            rb = r.value;
            ri = 0;
            remembered.settle(batchBytes(rb));
            continue;
          }
          const rt = (rb.columns[plan.rightTs] as { data: Float64Array }).data[ri]!;
          if (plan.strict ? rt >= t : rt > t) break;
          const key = keyOf(
            plan.rightKeys.map((k) => rb!.columns[k]!),
            ri,
          );
          remember(last, key, rb, ri, remembered);
          ri++;
        }
        const m = last.get(keyOf(lkeys, i));
        if (m === undefined) continue;
        if (plan.tolerance !== null) {
          const mt = (m[0].columns[plan.rightTs] as { data: Float64Array }).data[m[1]]!;
          if (t - mt > plan.tolerance) continue;
        }
        matchBatch[i] = m[0];
        matchRow[i] = m[1];
      }
      yield { rowCount: b.rowCount, columns: [...b.columns, ...gatherFromBatches(matchBatch, matchRow, rightTypes)] };
      await pace(cx);
    }
  } finally {
    await right.return?.(undefined);
  }
}

/** A cursor over the rows of a batch stream. */
class Rows {
  b: Batch | null = null;
  i = 0;
  done = false;
  constructor(
    private readonly it: AsyncIterator<Batch>,
    private readonly ts: number,
  ) {}
  /** The current row's timestamp (Infinity at the end), pulling batches as needed. */
  async peek(): Promise<number> {
    while (!this.done && (this.b === null || this.i >= this.b.rowCount)) {
      const r = await this.it.next();
      if (r.done) this.done = true;
      else {
        this.b = r.value;
        this.i = 0;
      }
    }
    return this.done ? Infinity : (this.b!.columns[this.ts] as { data: Float64Array }).data[this.i]!;
  }
}

/**
 * SPLICE JOIN: both sides merged by timestamp (left first on ties); each row
 * of either side comes out with the latest row of the other side for its key
 * at or before it (NULLs when there is none).
 */
async function* runSplice(
  plan: AsofPlan,
  leftIt: AsyncIterator<Batch>,
  rightIt: AsyncIterator<Batch>,
  cx: ExecContext,
  held: Held,
): AsyncGenerator<Batch> {
  const L = new Rows(leftIt, plan.leftTs),
    R = new Rows(rightIt, plan.rightTs);
  const lastL = new Map<string, [Batch, number]>(),
    lastR = new Map<string, [Batch, number]>();
  const remembered = new Remembered(held);
  const types = plan.fields.map((f) => (f.type === 'NULL' ? 'DOUBLE' : f.type) as SqlType);
  const nl = plan.left.fields.length;
  const out: Array<[Batch | null, number, Batch | null, number]> = [];
  const flush = (): Batch => {
    const columns = [
      ...gatherFromBatches(
        out.map((o) => o[0]),
        Int32Array.from(out, (o) => o[1]),
        types.slice(0, nl),
      ),
      ...gatherFromBatches(
        out.map((o) => o[2]),
        Int32Array.from(out, (o) => o[3]),
        types.slice(nl),
      ),
    ];
    const b = { rowCount: out.length, columns };
    out.length = 0;
    return b;
  };
  const key = (b: Batch, keys: readonly number[], i: number): string =>
    keys.length === 0
      ? ''
      : rowKey(
          keys.map((k) => b.columns[k]!),
          i,
        );
  try {
    for (;;) {
      const lt = await L.peek(),
        rt = await R.peek();
      if (lt === Infinity && rt === Infinity) break;
      if (lt <= rt) {
        const k = key(L.b!, plan.leftKeys, L.i);
        remember(lastL, k, L.b!, L.i, remembered);
        const m = lastR.get(k);
        out.push([L.b!, L.i, m?.[0] ?? null, m?.[1] ?? 0]);
        L.i++;
      } else {
        const k = key(R.b!, plan.rightKeys, R.i);
        remember(lastR, k, R.b!, R.i, remembered);
        const m = lastL.get(k);
        out.push([m?.[0] ?? null, m?.[1] ?? 0, R.b!, R.i]);
        R.i++;
      }
      if (out.length >= 8192) {
        remembered.settle(out.length * 64);
        yield flush();
        await pace(cx);
      }
    }
    if (out.length > 0) yield flush();
  } finally {
    await leftIt.return?.(undefined);
    await rightIt.return?.(undefined);
  }
}
