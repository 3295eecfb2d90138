// LATEST ON ts PARTITION BY keys: the newest row of every key. Over a table
// read newest first (the planner sets the scan backwards when the input is in
// designated-timestamp order) the first row seen for a key is its newest and,
// with one SYMBOL key, the scan stops once every dictionary value and NULL
// were found.
// Otherwise the newest row per key is kept while everything is read. The
// chosen rows come out in timestamp order.
import type { Plan } from '../sql/bound.js';
import type { Batch } from '../storage/table-reader.js';
import { concatBatches, gatherBatch } from './batches.js';
import { checkMemory, pace, type ExecContext } from './context.js';
import { rowKey } from './vectors.js';

type LatestPlan = Extract<Plan, { kind: 'latestBy' }>;

/** Whether `p` reads its table newest batch first (a backwards scan under filters and projections). */
function newestFirst(p: Plan): boolean {
  switch (p.kind) {
    case 'scan': return p.backwards === true;
    case 'filter': case 'project': return newestFirst(p.input);
    default: return false;
  }
}

export async function* runLatestBy(plan: LatestPlan, input: AsyncIterable<Batch>, cx: ExecContext): AsyncGenerator<Batch> {
  const ordered = newestFirst(plan.input);
  const batches: Batch[] = [];
  /** Per key: the winning row as [batch number, row, ts]. */
  const best = new Map<string | number, [number, number, number]>();
  let symbolDict: readonly string[] | null = null;
  const oneSymbol = plan.keys.length === 1;
  for await (const b of input) {
    const n = b.rowCount;
    if (n === 0) continue;
    const bn = batches.length;
    let used = false;
    const ts = (b.columns[plan.ts] as { data: Float64Array }).data;
    const keyCols = plan.keys.map((k) => b.columns[k]!);
    const k0 = keyCols[0]!;
    const sym = oneSymbol && k0.kind === 'symbol' ? k0 : null;
    if (sym) symbolDict = sym.dict;
    // Newest first within the batch too when the scan runs backwards (rows in a batch stay ascending).
    for (let j = 0; j < n; j++) {
      const i = ordered ? n - 1 - j : j;
      const key: string | number = sym ? sym.keys[i]! : rowKey(keyCols, i);
      const cur = best.get(key);
      if (cur === undefined) {
        best.set(key, [bn, i, ts[i]!]);
        used = true;
      } else if (!ordered && ts[i]! >= cur[2]) {
        cur[0] = bn; cur[1] = i; cur[2] = ts[i]!;
        used = true;
      }
    }
    if (used) batches.push(b); else batches.push({ rowCount: 0, columns: [] });
    checkMemory(cx, best.size * 64, 'LATEST ON');
    // Every value of the symbol and NULL found: older rows cannot change anything. (Without a NULL
    // row so far, an older one may still hold the NULL key's newest row, so the scan goes on.)
    if (ordered && sym && symbolDict !== null && best.size === symbolDict.length + 1 && best.has(-1)) break;
    await pace(cx);
  }
  if (best.size === 0) return;
  const winners = [...best.values()].sort((a, b) => a[2] - b[2] || a[0] - b[0] || a[1] - b[1]);
  const parts: Batch[] = [];
  let i = 0;
  while (i < winners.length) {
    let j = i;
    const idx: number[] = [];
    while (j < winners.length && winners[j]![0] === winners[i]![0]) idx.push(winners[j++]![1]);
    parts.push(gatherBatch(batches[winners[i]![0]]!, Int32Array.from(idx)));
    i = j;
  }
  yield concatBatches(parts, plan.fields.length);
}
