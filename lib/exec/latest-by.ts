// LATEST ON ts PARTITION BY keys: the newest row of every key. Over a table
// read newest first (the planner sets the scan backwards when the input is in
// designated-timestamp order) the first row seen for a key is its newest and,
// with one SYMBOL key, the scan stops once every dictionary value and NULL
// were found.
// Otherwise the newest row per key is kept while everything is read. The
// chosen rows come out in timestamp order.
import type { Plan } from '../sql/bound.js';
import type { Batch } from '../core/batch.js';
import type { SqlType } from '../core/sql-type.js';
import { gatherFromBatches } from '../core/vector-ops.js';
import { batchBytes, holding, type Held, keyEntryBytes, pace, type ExecContext } from './context.js';
import { rowKey } from './vectors.js';

type LatestPlan = Extract<Plan, { kind: 'latestBy' }>;

const EMPTY: Batch = { rowCount: 0, columns: [] };

/** Whether `p` reads its table newest batch first (a backwards scan under filters and projections). */
function newestFirst(p: Plan): boolean {
  switch (p.kind) {
    case 'scan':
      return p.backwards === true;
    case 'filter':
    case 'project':
      return newestFirst(p.input);
    default:
      return false;
  }
}

/** The table and column behind output `index` of `p` when it is a column passed up from a scan. */
function sourceColumn(p: Plan, index: number): { table: string; column: string } | null {
  switch (p.kind) {
    case 'scan':
      return p.columns[index] !== undefined ? { table: p.table, column: p.columns[index] } : null;
    case 'filter':
      return sourceColumn(p.input, index);
    case 'project': {
      const e = p.exprs[index];
      return e !== undefined && e.kind === 'col' ? sourceColumn(p.input, e.index) : null;
    }
    default:
      return null;
  }
}

/** Whether the table's committed state says the symbol column never holds NULL (false when unknown). */
function symbolHasNoNulls(plan: LatestPlan, cx: ExecContext): boolean {
  const src = plan.keys.length === 1 ? sourceColumn(plan.input, plan.keys[0]!) : null;
  if (src === null || cx.catalog === null || !cx.catalog.exists(src.table)) return false;
  const t = cx.catalog.get(src.table);
  const c = t.meta.columns.find((x) => x.name.toLowerCase() === src.column.toLowerCase());
  return c !== undefined && c.type === 'SYMBOL' && t.txn.symbols[String(c.id)]?.nulls === false;
}

export function runLatestBy(plan: LatestPlan, input: AsyncIterable<Batch>, cx: ExecContext): AsyncGenerator<Batch> {
  return holding(cx.budget, 'LATEST ON', (held) =>
    newestFirst(plan.input) && plan.keys.length === 1
      ? latestBySymbol(plan, input, cx, symbolHasNoNulls(plan, cx), held)
      : latestByAny(plan, input, cx, held),
  );
}

/** Any keys, any order: the newest row per key kept while everything is read (batches with a kept row stay, charged). */
async function* latestByAny(
  plan: LatestPlan,
  input: AsyncIterable<Batch>,
  cx: ExecContext,
  held: Held,
): AsyncGenerator<Batch> {
  const ordered = newestFirst(plan.input);
  const batches: Batch[] = [];
  /** Per key: the winning row as [batch number, row, ts]. */
  const best = new Map<string | number, [number, number, number]>();
  const oneSymbol = plan.keys.length === 1;
  for await (const b of input) {
    const n = b.rowCount;
    if (n === 0) continue;
    const bn = batches.length;
    let used = false;
    let bytes = 0;
    const ts = (b.columns[plan.ts] as { data: Float64Array }).data;
    const keyCols = plan.keys.map((k) => b.columns[k]!);
    const k0 = keyCols[0]!;
    const sym = oneSymbol && k0.kind === 'symbol' ? k0 : null;
    // Newest first within the batch too when the scan runs backwards (rows in a batch stay ascending).
    for (let j = 0; j < n; j++) {
      const i = ordered ? n - 1 - j : j;
      const key: string | number = sym ? sym.keys[i]! : rowKey(keyCols, i);
      const cur = best.get(key);
      if (cur === undefined) {
        best.set(key, [bn, i, ts[i]!]);
        bytes += typeof key === 'string' ? keyEntryBytes(key.length) + 48 : 80;
        used = true;
      } else if (!ordered && ts[i]! >= cur[2]) {
        cur[0] = bn;
        cur[1] = i;
        cur[2] = ts[i]!;
        used = true;
      }
    }
    if (used) {
      batches.push(b);
      bytes += batchBytes(b);
    } else batches.push(EMPTY);
    held.add(bytes);
    await pace(cx);
  }
  if (best.size === 0) return;
  const winners = [...best.values()].sort((a, b) => a[2] - b[2] || a[0] - b[0] || a[1] - b[1]);
  yield gatherWinners(
    batches,
    winners,
    plan.fields.map((f) => f.type),
  );
}

/**
 * One key over a newest-first scan: the first row seen per key wins. A SYMBOL
 * key is tracked in arrays indexed by key; the scan stops once every value of
 * the dictionary has been seen, and NULL too unless the table's committed
 * state says the column never holds NULL. Other key types fall back to a Map.
 */
async function* latestBySymbol(
  plan: LatestPlan,
  input: AsyncIterable<Batch>,
  cx: ExecContext,
  noNulls: boolean,
  held: Held,
): AsyncGenerator<Batch> {
  const batches: Batch[] = [];
  let dict: readonly string[] | null = null;
  let bestBatch = new Int32Array(0),
    bestRow = new Int32Array(0);
  let found = 0;
  const other = new Map<string, [number, number]>();
  for await (const b of input) {
    const n = b.rowCount;
    if (n === 0) continue;
    const bn = batches.length;
    batches.push(b);
    const before = found + other.size;
    const k0 = b.columns[plan.keys[0]!]!;
    if (k0.kind === 'symbol' && (dict === null || dict === k0.dict) && other.size === 0) {
      if (dict === null) {
        dict = k0.dict;
        // Slot 0 is NULL; key k is slot k + 1.
        bestBatch = new Int32Array(dict.length + 1).fill(-1);
        bestRow = new Int32Array(dict.length + 1);
      }
      const keys = k0.keys;
      for (let i = n - 1; i >= 0; i--) {
        const slot = keys[i]! + 1;
        if (bestBatch[slot]! < 0) {
          bestBatch[slot] = bn;
          bestRow[slot] = i;
          found++;
        }
      }
      if (found === before)
        batches[bn] = EMPTY; // nothing of it is kept: let it go
      else held.add(batchBytes(b) + (found - before) * 8);
      const needed = dict.length + (noNulls ? 0 : 1);
      const nullSeen = bestBatch[0]! >= 0 ? 1 : 0;
      if (found - (noNulls ? nullSeen : 0) >= needed) break;
    } else {
      // Not one dictionary: every row through a Map (no early stop).
      if (dict !== null && other.size === 0) {
        for (let s = 0; s < bestBatch.length; s++) {
          if (bestBatch[s]! >= 0)
            other.set(rowKey([batches[bestBatch[s]!]!.columns[plan.keys[0]!]!], bestRow[s]!), [
              bestBatch[s]!,
              bestRow[s]!,
            ]);
        }
        dict = null;
      }
      const cols = [k0];
      let bytes = 0;
      for (let i = n - 1; i >= 0; i--) {
        const key = rowKey(cols, i);
        if (!other.has(key)) {
          other.set(key, [bn, i]);
          bytes += keyEntryBytes(key.length) + 40;
        }
      }
      if (found + other.size === before) batches[bn] = EMPTY;
      else held.add(bytes + batchBytes(b));
    }
    await pace(cx);
  }
  const winners: Array<[number, number]> = [];
  // A loop, not push(...): one argument per key would overflow the stack on many keys.
  if (other.size > 0) for (const w of other.values()) winners.push(w);
  else for (let s = 0; s < bestBatch.length; s++) if (bestBatch[s]! >= 0) winners.push([bestBatch[s]!, bestRow[s]!]);
  if (winners.length === 0) return;
  const tsOf = (w: [number, number]): number => (batches[w[0]]!.columns[plan.ts] as { data: Float64Array }).data[w[1]]!;
  // Oldest first; on equal timestamps the row stored earlier first (later batch numbers are older).
  winners.sort((a, b) => tsOf(a) - tsOf(b) || b[0] - a[0] || a[1] - b[1]);
  yield gatherWinners(
    batches,
    winners,
    plan.fields.map((f) => f.type),
  );
}

/** The winning rows ([batch, row] in output order) as one batch. */
function gatherWinners(
  batches: readonly Batch[],
  winners: readonly (readonly [number, number, ...number[]])[],
  types: readonly SqlType[],
): Batch {
  return {
    rowCount: winners.length,
    columns: gatherFromBatches(
      winners.map((w) => batches[w[0]]!),
      Int32Array.from(winners, (w) => w[1]),
      types,
    ),
  };
}
