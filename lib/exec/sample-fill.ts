// SAMPLE BY ... FILL: after the aggregation, every key gets a row for every
// bucket from the first to the last (or FROM to TO); a bucket without data
// gets NULL, the key's previous value (PREV), the value on the straight line
// between its neighbours (LINEAR) or a constant. Rows come out by bucket, keys
// in order of first appearance. The aggregation's output is small (buckets x
// keys), so it is held as values.
import type { FillSpec, Plan } from '../sql/bound.js';
import type { SqlType } from '../core/sql-type.js';
import type { Batch } from '../core/batch.js';
import { sliceBatches } from '../core/vector-ops.js';
import { holding, type Held, pace, type ExecContext } from './context.js';
import { fromValues, rowKey, valueAt, type Value } from './vectors.js';

type FillPlan = Extract<Plan, { kind: 'sampleFill' }>;

const MAX_ROWS = 10_000_000;
/** Bytes of a value held in a JS array, roughly (a pointer and a boxed number or string header). */
const VALUE_BYTES = 32;

export function runSampleFill(plan: FillPlan, input: AsyncIterable<Batch>, cx: ExecContext): AsyncGenerator<Batch> {
  return holding(cx.budget, 'SAMPLE BY FILL', (held) => fill(plan, input, cx, held));
}

async function* fill(plan: FillPlan, input: AsyncIterable<Batch>, cx: ExecContext, held: Held): AsyncGenerator<Batch> {
  const width = plan.fields.length;
  const nKeys = plan.keys.length + 1;
  // Per key (first-appearance order): its key values and bucket -> row.
  const byKey = new Map<string, { keyRow: Value[]; rows: Map<number, Value[]> }>();
  let lo = Infinity,
    hi = -Infinity;
  for await (const b of input) {
    held.add(b.rowCount * (width * VALUE_BYTES + 64));
    const keyCols = plan.keys.map((k) => b.columns[k]!);
    const bucket = (b.columns[plan.bucket] as { data: Float64Array }).data;
    for (let i = 0; i < b.rowCount; i++) {
      const k = plan.keys.length === 0 ? '' : rowKey(keyCols, i);
      let e = byKey.get(k);
      if (!e) {
        e = { keyRow: b.columns.map((c) => valueAt(c, i)), rows: new Map() };
        byKey.set(k, e);
      }
      const t = bucket[i]!;
      e.rows.set(
        t,
        b.columns.map((c) => valueAt(c, i)),
      );
      if (t < lo) lo = t;
      if (t > hi) hi = t;
    }
  }
  const bk = plan.buckets;
  const start = plan.from !== null ? bk.floor(plan.from) : lo;
  const last = plan.to !== null ? bk.floor(plan.to - 1) : hi;
  if (!(start <= last) || byKey.size === 0) {
    if (byKey.size === 0 && plan.from !== null && plan.to !== null && plan.keys.length === 0) {
      // No rows at all but a FROM..TO range: the buckets still appear, filled.
      byKey.set('', { keyRow: plan.fields.map(() => null), rows: new Map() });
    } else {
      return;
    }
  }
  const all: number[] = [];
  // Each bucket: its number, and a row per key in the output.
  const perBucket = 8 + byKey.size * width * VALUE_BYTES;
  const base = held.bytes;
  for (let b = start; b <= last; b = bk.next(b)) {
    all.push(b);
    if ((all.length & 4095) === 0) {
      held.set(base + all.length * perBucket);
      cx.deadline.check();
    }
    if (all.length * byKey.size > MAX_ROWS) held.add(Infinity);
  }
  held.set(base + all.length * perBucket);
  const aggStart = nKeys; // aggregate columns follow the keys in the aggregation's output
  const out: Value[][] = plan.fields.map(() => []);
  // Per key and aggregate column: the buckets that have a value, for PREV and LINEAR.
  for (const b of all) {
    for (const e of byKey.values()) {
      const row = e.rows.get(b);
      if (row) {
        for (let c = 0; c < width; c++) out[c]!.push(row[c]!);
        continue;
      }
      for (let c = 0; c < width; c++) {
        if (c === plan.bucket) {
          out[c]!.push(b);
          continue;
        }
        if (c < aggStart) {
          out[c]!.push(e.keyRow[c]!);
          continue;
        }
        const spec = plan.fills[c - aggStart]!;
        // PREV and LINEAR look along the buckets: the work is buckets x buckets.
        if (spec.kind === 'prev' || spec.kind === 'linear') cx.deadline.tick(all.length);
        out[c]!.push(fillValue(spec, e.rows, b, c, all));
      }
    }
    await pace(cx);
  }
  const columns = plan.fields.map((f, c) => fromValues((f.type === 'NULL' ? 'DOUBLE' : f.type) as SqlType, out[c]!));
  yield* sliceBatches({ rowCount: all.length * byKey.size, columns });
}

function fillValue(spec: FillSpec, rows: Map<number, Value[]>, b: number, c: number, all: readonly number[]): Value {
  switch (spec.kind) {
    case 'none':
    case 'null':
      return null;
    case 'const':
      return spec.value;
    case 'prev': {
      let prev: Value = null;
      for (const t of all) {
        if (t >= b) break;
        const r = rows.get(t);
        if (r && r[c] !== null) prev = r[c]!;
      }
      return prev;
    }
    case 'linear': {
      let b0 = -Infinity,
        v0: number | null = null,
        b1 = Infinity,
        v1: number | null = null;
      for (const t of all) {
        const r = rows.get(t);
        if (!r || typeof r[c] !== 'number') continue;
        if (t < b) {
          b0 = t;
          v0 = r[c];
        } else if (t > b) {
          b1 = t;
          v1 = r[c];
          break;
        }
      }
      if (v0 === null || v1 === null) return null;
      return v0 + ((v1 - v0) * (b - b0)) / (b1 - b0);
    }
  }
}
