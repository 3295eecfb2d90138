// Out-of-order rows at commit: sorted by timestamp, grouped by partition, and
// merged with each partition's rows into a new version of its folder, which
// the commit then publishes (readers of the old version are unaffected).
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { ColumnAppender } from './column-appender.js';
import { directSource, readColumn } from './column-files.js';
import { rowsOf, type ColumnVector } from '../core/column-vector.js';
import { syncPath } from './io.js';
import { partitionFloor, partitionName } from './partition-by.js';
import type { PartWrite, TableWriter } from './table-writer.js';
import { concatVectors, gatherVector } from '../core/vector-ops.js';

export interface O3Batch {
  /** Late rows, in meta column order (copies, or a previous merge's kept rows). */
  readonly vectors: ColumnVector[];
  /** The rows of `vectors` to use, or null for all. */
  readonly idx: Int32Array | null;
  readonly tsIndex: number;
}

export interface O3Rows {
  batches: O3Batch[];
  rows: number;
}

/**
 * Merges the buffered rows older than `lagFrom` into their partitions, writing
 * folders `<name>.<newTxn>` and listing replaced folders in `garbage`. Returns
 * the rows kept back (newer than `lagFrom`). Yields after each partition, so a
 * caller may check its deadline and let other work run between partitions
 * (thousands of them take seconds); a caller that stops early rolls back.
 */
export function* mergeOutOfOrder(
  w: TableWriter,
  o3: O3Rows,
  lagFrom: number,
  newTxn: number,
  garbage: string[],
): Generator<void, O3Rows, void> {
  const meta = w.meta;
  const tsIndex = o3.batches[0]!.tsIndex;
  // All buffered rows as one set of vectors.
  const parts = o3.batches.map((b) => (b.idx ? b.vectors.map((v) => gatherVector(v, b.idx!)) : b.vectors));
  const cols = parts[0]!.map((_, c) => concatVectors(parts.map((p) => p[c]!)));
  const ts = (cols[tsIndex] as { data: Float64Array }).data;
  const n = ts.length;
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  order.sort((a, b) => ts[a]! - ts[b]! || a - b);

  let cut = n;
  while (cut > 0 && ts[order[cut - 1]!]! >= lagFrom) cut--;
  const by = meta.timestampId < 0 ? 'NONE' : meta.partitionBy;
  let g = 0;
  while (g < cut) {
    const floor = partitionFloor(by, ts[order[g]!]!);
    let e = g + 1;
    while (e < cut && partitionFloor(by, ts[order[e]!]!) === floor) e++;
    mergeGroup(w, cols, tsIndex, order.subarray(g, e), floor, newTxn, garbage);
    g = e;
    yield;
  }
  if (cut === n) return { batches: [], rows: 0 };
  const kept = order.slice(cut);
  return { batches: [{ vectors: cols, idx: kept, tsIndex }], rows: kept.length };
}

function mergeGroup(
  w: TableWriter,
  cols: ColumnVector[],
  tsIndex: number,
  group: Int32Array,
  floor: number,
  newTxn: number,
  garbage: string[],
): void {
  const table = w.table;
  const meta = w.meta;
  const name = partitionName(meta.timestampId < 0 ? 'NONE' : meta.partitionBy, floor);
  let part: PartWrite | undefined = w.parts.get(name);
  if (!part) {
    const c = table.txn.partitions.find((p) => p.name === name);
    part = c
      ? {
          name,
          floor,
          dir: c.dir,
          isNew: false,
          rows: c.rows,
          committedRows: c.rows,
          minTs: c.minTs,
          maxTs: c.maxTs,
          appenders: new Map(),
        }
      : { name, floor, dir: '', isNew: true, rows: 0, committedRows: 0, minTs: 0, maxTs: 0, appenders: new Map() };
    w.parts.set(name, part);
  }
  // The partition as it is now (committed plus uncommitted appends, flushed by the commit).
  const oldPath = join(table.dir, part.dir);
  const dictOf = (id: number): readonly string[] => table.dicts.get(id)?.values ?? [];
  const existing =
    part.rows > 0
      ? meta.columns.map((c) => readColumn(directSource, oldPath, part.rows, c, 0, part.rows, dictOf(c.id)))
      : null;
  const incoming = cols.map((v) => gatherVector(v, group));
  const newTs = (incoming[tsIndex] as { data: Float64Array }).data;
  const m = part.rows;
  const take = new Int32Array(m + group.length);
  if (existing) {
    const oldTs = (existing[tsIndex] as { data: Float64Array }).data;
    // Stable merge: on equal timestamps the rows already there come first.
    let i = 0,
      j = 0,
      k = 0;
    while (i < m && j < newTs.length) take[k++] = oldTs[i]! <= newTs[j]! ? i++ : m + j++;
    while (i < m) take[k++] = i++;
    while (j < newTs.length) take[k++] = m + j++;
  } else {
    for (let k = 0; k < take.length; k++) take[k] = k;
  }

  // DEDUP UPSERT KEYS: among rows with equal keys (the timestamp is one), the last written stays.
  const keyCols = meta.columns.flatMap((c, i) => (c.upsertKey && i !== tsIndex ? [i] : []));
  let rows: Int32Array = take;
  if (meta.columns.some((c) => c.upsertKey)) {
    const all = existing ? existing.map((v, c) => concatVectors([v, incoming[c]!])) : incoming;
    const allTs = (all[tsIndex] as { data: Float64Array }).data;
    rows = dedupRows(
      take,
      allTs,
      keyCols.map((c) => all[c]!),
    );
  }

  const finalDir = `${name}.${newTxn}`;
  // A folder made in this same transaction already has the final name: build beside it, then swap.
  const buildDir = part.dir === finalDir ? `${finalDir}.o3` : finalDir;
  const buildPath = join(table.dir, buildDir);
  rmSync(buildPath, { recursive: true, force: true });
  mkdirSync(buildPath, { recursive: true });
  const mode = table.options.commitMode;
  let mergedTs: Float64Array | null = null;
  for (let c = 0; c < meta.columns.length; c++) {
    const merged = gatherVector(existing ? concatVectors([existing[c]!, incoming[c]!]) : incoming[c]!, rows);
    if (c === tsIndex) mergedTs = (merged as { data: Float64Array }).data;
    const a = new ColumnAppender(buildPath, meta.columns[c]!, 0);
    try {
      a.append(merged, 0, rows.length);
      a.sync(mode);
    } finally {
      a.close();
    }
  }
  syncPath(buildPath, mode);
  w.resetActive(part);
  if (buildDir !== finalDir) {
    rmSync(join(table.dir, finalDir), { recursive: true, force: true });
    renameSync(buildPath, join(table.dir, finalDir));
  } else if (!part.isNew) {
    garbage.push(part.dir);
  } else if (part.dir !== '') {
    rmSync(oldPath, { recursive: true, force: true });
  }
  part.dir = finalDir;
  part.isNew = true;
  part.rows = rows.length;
  part.minTs = mergedTs![0]!;
  part.maxTs = mergedTs![mergedTs!.length - 1]!;
}

/**
 * The rows of `order` (merged timestamp order, rows written later after earlier
 * ones on equal timestamps) that survive deduplication: in each run of equal
 * timestamps, the last row of each distinct key. Runs of one row (the usual
 * case) cost one comparison.
 */
function dedupRows(order: Int32Array, ts: Float64Array, keys: readonly ColumnVector[]): Int32Array {
  const keep = new Uint8Array(order.length).fill(1);
  let dropped = 0;
  let i = 0;
  while (i < order.length) {
    let e = i + 1;
    while (e < order.length && ts[order[e]!] === ts[order[i]!]) e++;
    if (e - i > 1) {
      const seen = new Set<string>();
      for (let k = e - 1; k >= i; k--) {
        const key = keyText(keys, order[k]!);
        if (seen.has(key)) {
          keep[k] = 0;
          dropped++;
        } else seen.add(key);
      }
    }
    i = e;
  }
  if (dropped === 0) return order;
  const out = new Int32Array(order.length - dropped);
  for (let k = 0, j = 0; k < order.length; k++) if (keep[k]) out[j++] = order[k]!;
  return out;
}

/** One row's values of the key columns as a string (equal values, equal strings; NULL distinct from any value). */
function keyText(keys: readonly ColumnVector[], row: number): string {
  let s = '';
  for (const v of keys) {
    if (v.kind === 'symbol') {
      const k = v.keys[row]!;
      s += k < 0 ? '\u0000N' : `S${v.dict[k]}`;
    } else if (v.kind === 'var') {
      s += v.nulls?.[row]
        ? '\u0000N'
        : `V${Buffer.from(v.bytes.subarray(v.offsets[row], v.offsets[row + 1])).toString('latin1')}`;
    } else {
      const per = v.data.length / rowsOf(v);
      s += 'F';
      for (let j = 0; j < per; j++) s += `${v.data[row * per + j]!},`;
      if (v.exact) s += `${v.exact[2 * row]!}:${v.exact[2 * row + 1]!}`;
    }
    s += '\u0001';
  }
  return s;
}
