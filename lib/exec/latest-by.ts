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
import { batchBytes, holding, type Held, pace, type ExecContext } from './context.js';
import { GroupKeys } from './group-keys.js';

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

/** The scan, its table and the column behind output `index` of `p` when it is a column passed up from a scan. */
function sourceColumn(
  p: Plan,
  index: number,
): { scan: Extract<Plan, { kind: 'scan' }>; table: string; column: string } | null {
  switch (p.kind) {
    case 'scan':
      return p.columns[index] !== undefined ? { scan: p, table: p.table, column: p.columns[index] } : null;
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
  return holding(cx.budget, 'LATEST ON', (held) => latestBy(plan, input, cx, held));
}

/**
 * The newest row per key. Keys get dense ids (GroupKeys: text hashed on its
 * bytes or mapped per dictionary code), so the best row of each key lives in
 * typed arrays indexed by id. Over a newest-first scan the first row seen per
 * key wins, and with one SYMBOL key from one dictionary the scan stops once
 * every value was found (NULL too, unless the table's committed state says the
 * column never holds NULL). Otherwise a row replaces its key's best when its
 * timestamp is not older. Batches holding a best row are kept (charged).
 */
async function* latestBy(
  plan: LatestPlan,
  input: AsyncIterable<Batch>,
  cx: ExecContext,
  held: Held,
): AsyncGenerator<Batch> {
  const ordered = newestFirst(plan.input);
  const oneSymbol = ordered && plan.keys.length === 1;
  const noNulls = oneSymbol && symbolHasNoNulls(plan, cx);
  const keys = new GroupKeys(plan.keys.map((k) => plan.input.fields[k]!.type));
  const batches: Batch[] = [];
  let bestBatch = new Int32Array(64).fill(-1),
    bestRow = new Int32Array(64),
    bestTs = new Float64Array(64);
  let ids = new Int32Array(0);
  let found = 0;
  /** The one symbol dictionary seen so far (null: none yet, or not one). */
  let dict: readonly string[] | null = null;
  let oneDict = oneSymbol;
  let keptBytes = 0;
  // One text key read newest first: how many values it can show, from the scan's partition dictionaries.
  const textSource = oneSymbol ? sourceColumn(plan.input, plan.keys[0]!) : null;
  let textValues: number | null | undefined = textSource === null ? null : undefined;
  for await (const b of input) {
    const n = b.rowCount;
    if (n === 0) continue;
    const bn = batches.length;
    batches.push(b);
    const keyCols = plan.keys.map((k) => b.columns[k]!);
    if (ids.length < n) ids = new Int32Array(n);
    keys.assign(keyCols, n, ids);
    if (bestBatch.length < keys.size) {
      const cap = Math.max(keys.size, bestBatch.length * 2);
      const bb = new Int32Array(cap).fill(-1);
      bb.set(bestBatch);
      const br = new Int32Array(cap);
      br.set(bestRow);
      const bt = new Float64Array(cap);
      bt.set(bestTs);
      bestBatch = bb;
      bestRow = br;
      bestTs = bt;
    }
    const ts = (b.columns[plan.ts] as { data: Float64Array }).data;
    const before = found;
    let used = false;
    if (ordered) {
      // Newest first within the batch too (rows in a batch stay ascending).
      for (let i = n - 1; i >= 0; i--) {
        const id = ids[i]!;
        if (bestBatch[id]! < 0) {
          bestBatch[id] = bn;
          bestRow[id] = i;
          bestTs[id] = ts[i]!;
          found++;
        }
      }
      used = found > before;
    } else {
      for (let i = 0; i < n; i++) {
        const id = ids[i]!;
        if (bestBatch[id]! < 0) {
          found++;
        } else if (!(ts[i]! >= bestTs[id]!)) continue;
        bestBatch[id] = bn;
        bestRow[id] = i;
        bestTs[id] = ts[i]!;
        used = true;
      }
    }
    if (used) keptBytes += batchBytes(b);
    else batches[bn] = EMPTY; // nothing of it is kept: let it go
    held.set(keptBytes + keys.bytes() + bestBatch.byteLength * 2 + bestTs.byteLength);
    if (textValues === undefined) {
      // Asked once the scan has its snapshot: the count is of the rows it reads (or more, never fewer).
      const reader = cx.scanReaders.get(textSource!.scan);
      textValues = reader?.textValueCount(textSource!.column, textSource!.scan.intervals ?? undefined) ?? null;
    }
    // Every value the key column holds has its newest row: stop.
    if (textValues !== null && found >= textValues) break;
    if (oneDict) {
      const k0 = keyCols[0]!;
      if (k0.kind !== 'symbol' || (dict !== null && dict !== k0.dict)) oneDict = false;
      else {
        dict = k0.dict;
        // Every dictionary value (and NULL unless the column never holds one) has its newest row: stop.
        if (found >= dict.length + (noNulls ? 0 : 1)) break;
      }
    }
    await pace(cx);
  }
  if (found === 0) return;
  const winners: Array<[number, number, number]> = [];
  for (let id = 0; id < keys.size; id++) winners.push([bestBatch[id]!, bestRow[id]!, bestTs[id]!]);
  // Oldest first; on equal timestamps the row stored earlier first (newest-first: later batch numbers are older).
  if (ordered) winners.sort((a, b) => a[2] - b[2] || b[0] - a[0] || a[1] - b[1]);
  else winners.sort((a, b) => a[2] - b[2] || a[0] - b[0] || a[1] - b[1]);
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
