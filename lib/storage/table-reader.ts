// A reader of one table snapshot: only committed rows, a consistent view for
// its whole life, column batches for row ranges, and timestamp intervals that
// skip partitions outside them and binary-search the edges.
import { join } from 'node:path';
import { SvcError } from '../errors/svc-error.js';
import { closeSync, openSync } from 'node:fs';
import { typeInfo } from '../core/column-type.js';
import {
  auxEnd,
  auxFile,
  auxValue,
  columnAbsent,
  dataFile,
  directSource,
  readColumn,
  type ByteSource,
} from './column-files.js';
import { readAt } from './io.js';
import { LazyVarVector, type ColumnVector, type VarVector } from '../core/column-vector.js';
import { buildTextCodes, type TextCodes } from './text-codes.js';
import { BytesIds } from '../core/key-ids.js';
import { DEFAULT_BATCH_ROWS, type Batch, type Interval } from '../core/batch.js';
import { nameKey } from './names.js';
import type { Snapshot, Table } from './table.js';
import type { ColumnDef, PartitionState, TableMeta } from './table-state.js';

export interface RowRange {
  readonly partition: PartitionState;
  readonly lo: number;
  readonly hi: number;
}

export interface ScanOptions {
  /** Column names (default: all, in table order). */
  readonly columns?: readonly string[];
  /** Sorted, non-overlapping intervals on the designated timestamp (ignored without one). */
  readonly intervals?: readonly Interval[];
  /** Rows per batch (default 8192). */
  readonly batchRows?: number;
  /** Scan newest first (batches and rows within them stay in ascending order). */
  readonly backwards?: boolean;
  /** Text columns (names as in `columns`) whose vectors should carry dictionary codes where a partition has them. */
  readonly textCodes?: ReadonlySet<string>;
  /** Text columns whose vectors carry codes only where a partition has them built already (none are built). */
  readonly textCodesIfBuilt?: ReadonlySet<string>;
}

/** Entries of Table.columnFilesSeen before it starts over. */
const SEEN_LIMIT = 100_000;
/** Rows of one partition column whose text codes one background step builds (warmTextCodesStep): a few milliseconds. */
const WARM_ROWS = 131072;

export class TableReader {
  readonly table: Table;
  readonly snapshot: Snapshot;
  readonly #src: ByteSource;
  readonly #absent = new Map<string, boolean>();
  readonly #dataEnds = new Map<string, number>();
  #closed = false;

  constructor(table: Table) {
    this.table = table;
    this.snapshot = table.acquire();
    const id = this.snapshot.meta.id;
    this.#src = (file, pos, len, limit) => table.cache.read(id + file.slice(table.dir.length), file, pos, len, limit);
  }

  get meta(): TableMeta {
    return this.snapshot.meta;
  }
  get partitions(): readonly PartitionState[] {
    return this.snapshot.txn.partitions;
  }
  get rowCount(): number {
    return this.snapshot.txn.partitions.reduce((n, p) => n + p.rows, 0);
  }

  column(name: string): ColumnDef {
    const c = this.meta.columns.find((x) => nameKey(x.name) === nameKey(name));
    if (!c) throw new SvcError('SQL', `Invalid column: ${name}`);
    return c;
  }

  /** Row ranges of the partitions that intersect the intervals (all rows without intervals). */
  ranges(intervals?: readonly Interval[]): RowRange[] {
    const out: RowRange[] = [];
    const parts = this.partitions;
    if (!intervals || this.meta.timestampId < 0) {
      for (const p of parts) if (p.rows > 0) out.push({ partition: p, lo: 0, hi: p.rows });
      return out;
    }
    for (const p of parts) {
      if (p.rows === 0) continue;
      for (const [lo, hi] of intervals) {
        if (hi <= p.minTs || lo > p.maxTs) continue; // the partition's files are never opened
        const a = lo <= p.minTs ? 0 : this.#lowerBound(p, lo);
        const b = hi > p.maxTs ? p.rows : this.#lowerBound(p, hi);
        if (b > a) out.push({ partition: p, lo: a, hi: b });
      }
    }
    return out;
  }

  /**
   * First row of `p` whose timestamp is >= ts. Probes read 8 bytes each
   * straight from the file: pulling a cache chunk per probe would read far more
   * than the interval needs.
   */
  #lowerBound(p: PartitionState, ts: number): number {
    const c = this.meta.columns.find((x) => x.id === this.meta.timestampId)!;
    const fd = openSync(join(this.table.dir, p.dir, dataFile(c)), 'r');
    const pair = new Int32Array(2);
    const bytes = new Uint8Array(pair.buffer);
    let lo = 0,
      hi = p.rows;
    try {
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (readAt(fd, bytes, 0, 8, mid * 8) < 8)
          throw new SvcError('INTERNAL', `timestamp file of partition ${p.dir} is shorter than its committed size`);
        this.table.cache.countDirect(8);
        if (auxValue(pair, 0) < ts) lo = mid + 1;
        else hi = mid;
      }
    } finally {
      closeSync(fd);
    }
    return lo;
  }

  /** A var column's committed data size in partition `p` (the aux entry after its last row). */
  #dataEnd(p: PartitionState, c: ColumnDef, src = this.#src): number {
    const key = `${p.dir}/${c.id}`;
    let end = this.#dataEnds.get(key);
    if (end === undefined) {
      const b = src(join(this.table.dir, p.dir, auxFile(c)), p.rows * 8, 8, (p.rows + 1) * 8);
      end = auxEnd(auxValue(new Int32Array(b.slice().buffer), 0));
      this.#dataEnds.set(key, end);
    }
    return end;
  }

  /**
   * Dictionary codes of a text column in partition `p` covering its committed
   * rows, built (or extended) on first use; null when it has too many distinct values.
   */
  #codes(
    p: PartitionState,
    c: ColumnDef,
    path: string,
    limit: number | undefined,
    upTo = p.rows,
    src = this.#src,
  ): TextCodes | null {
    const cache = this.table.cache.codes;
    const key = this.#codesKey(p, c);
    const have = cache.get(key);
    if (have === null) return null;
    if (have !== undefined && have.rows >= upTo) return have;
    const built = buildTextCodes(
      (lo, hi) => readColumn(src, path, p.rows, c, lo, hi, [], false, limit) as VarVector,
      upTo,
      have,
    );
    cache.set(key, built);
    return built;
  }

  /** The key of a partition column's codes in the read cache's TextCodeCache (and in warmTextCodesStep's `done`). */
  #codesKey(p: PartitionState, c: ColumnDef): string {
    return `${this.meta.id}/${p.dir}/${c.id}`;
  }

  /** The codes of a text column in partition `p` when they cover its committed rows already; never builds them. */
  #builtCodes(p: PartitionState, c: ColumnDef): TextCodes | null {
    const have = this.table.cache.codes.get(this.#codesKey(p, c));
    return have !== undefined && have !== null && have.rows >= p.rows ? have : null;
  }

  /**
   * How many distinct values (NULL counted as one) text column `name` holds in
   * the partitions the intervals touch, from their dictionary codes (built
   * where missing); null when a partition has too many distinct values. Whole
   * partitions are counted, so it may exceed what the intervals hold.
   */
  textValueCount(name: string, intervals?: readonly Interval[]): number | null {
    const c = this.column(name);
    if (c.type !== 'VARCHAR' && c.type !== 'STRING') return null;
    const all = new BytesIds();
    let hasNull = false;
    const seen = new Set<PartitionState>();
    for (const r of this.ranges(intervals)) {
      if (seen.has(r.partition)) continue;
      seen.add(r.partition);
      const p = r.partition;
      const path = join(this.table.dir, p.dir);
      if (columnAbsent(path, c)) {
        hasNull = true; // the column came later: NULL in this partition
        continue;
      }
      const tc = this.#codes(p, c, path, this.#dataEnd(p, c));
      if (tc === null) return null;
      hasNull ||= tc.hasNull;
      const { bytes, ends } = tc.dict;
      for (let k = 1; k < tc.dict.size; k++) all.id(bytes, ends[k - 1]!, ends[k]!);
    }
    return all.size + (hasNull ? 1 : 0);
  }

  /**
   * One step of building the dictionary codes of the table's VARCHAR / STRING
   * columns after an import, so the first query that groups by its text does
   * not pay for them: WARM_ROWS more rows (a few milliseconds) of the first
   * partition column whose codes are incomplete, read around the read cache so
   * that the columns queries hold stay in it. False when none is left.
   * `done` (keys `<table id>/<partition>/<column id>`) remembers the partition
   * columns finished (or with too many distinct values): one the cache evicts
   * later is not built again by this warming.
   */
  warmTextCodesStep(done: Set<string>): boolean {
    this.#check();
    const cache = this.table.cache;
    for (const c of this.meta.columns) {
      if (c.type !== 'VARCHAR' && c.type !== 'STRING') continue;
      for (const p of this.partitions) {
        const key = this.#codesKey(p, c);
        if (p.rows === 0 || done.has(key)) continue;
        const path = join(this.table.dir, p.dir);
        const have = columnAbsent(path, c) ? null : cache.codes.get(key);
        if (have === null || (have !== undefined && have.rows >= p.rows)) {
          done.add(key);
          continue;
        }
        const around: ByteSource = (file, pos, len, limit) => {
          cache.countDirect(len);
          return directSource(file, pos, len, limit);
        };
        const upTo = Math.min(p.rows, (have?.rows ?? 0) + WARM_ROWS);
        const tc = this.#codes(p, c, path, this.#dataEnd(p, c, around), upTo, around);
        if (tc === null || tc.rows >= p.rows) done.add(key);
        return true;
      }
    }
    return false;
  }

  /**
   * The bytes of rows [lo, hi) of one partition's fixed-width column as its file holds them,
   * by row range (a view into the read cache's shared memory when they lie in one chunk, which
   * any thread may read: exec/page-aggregate.ts); null when the partition predates the column.
   */
  fixedBytes(p: PartitionState, c: ColumnDef): ((lo: number, hi: number) => Uint8Array) | null {
    this.#check();
    const path = join(this.table.dir, p.dir);
    if (this.#isAbsent(p, c, path)) return null;
    const w = typeInfo(c.type).width;
    const file = join(path, dataFile(c));
    const key = this.snapshot.meta.id + file.slice(this.table.dir.length);
    const limit = p.rows * w;
    const cache = this.table.cache;
    return (lo, hi) => cache.read(key, file, lo * w, (hi - lo) * w, limit);
  }

  /**
   * The dictionary codes of text column `c` in partition `p` for its committed rows (built if need
   * be; in shared memory, which any thread may read: exec/page-group.ts); null when the partition
   * predates the column or holds too many distinct values of it.
   */
  textCodes(p: PartitionState, c: ColumnDef): TextCodes | null {
    this.#check();
    const path = join(this.table.dir, p.dir);
    if (this.#isAbsent(p, c, path)) return null;
    return this.#codes(p, c, path, this.#dataEnd(p, c));
  }

  /** Whether the partition predates the column (remembered per partition and column). */
  #isAbsent(p: PartitionState, c: ColumnDef, path: string): boolean {
    const key = `${p.dir}/${c.id}`;
    let absent = this.#absent.get(key);
    if (absent === undefined) {
      const seen = this.table.columnFilesSeen;
      const file = `${path}/${c.id}`;
      absent = seen.has(file) ? false : columnAbsent(path, c);
      if (!absent) {
        if (seen.size >= SEEN_LIMIT) seen.clear(); // rewritten partitions leave stale entries: start over now and then
        seen.add(file);
      }
      this.#absent.set(key, absent);
    }
    return absent;
  }

  /**
   * Rows [lo, hi) of one partition for the given columns (`coded`: text columns wanted with
   * codes; `codedIfBuilt`: with the codes the partition has built already, if any).
   */
  read(
    p: PartitionState,
    cols: readonly ColumnDef[],
    lo: number,
    hi: number,
    coded?: ReadonlySet<ColumnDef>,
    codedIfBuilt?: ReadonlySet<ColumnDef>,
  ): ColumnVector[] {
    this.#check();
    const path = join(this.table.dir, p.dir);
    return cols.map((c) => {
      const absent = this.#isAbsent(p, c, path);
      const dict = this.snapshot.dicts.get(c.id) ?? [];
      const limit = !absent && typeInfo(c.type).layout === 'var' ? this.#dataEnd(p, c) : undefined;
      if (limit !== undefined) {
        // Text read when asked for (LazyVarVector), with dictionary codes when wanted and the partition has them.
        const load = (): VarVector => readColumn(this.#src, path, p.rows, c, lo, hi, dict, false, limit) as VarVector;
        const tc =
          coded !== undefined && coded.has(c)
            ? this.#codes(p, c, path, limit)
            : codedIfBuilt !== undefined && codedIfBuilt.has(c)
              ? this.#builtCodes(p, c)
              : null;
        return tc === null
          ? new LazyVarVector(c.type, load)
          : new LazyVarVector(c.type, load, tc.codes.subarray(lo, hi), tc.dict);
      }
      return readColumn(this.#src, path, p.rows, c, lo, hi, dict, absent, limit);
    });
  }

  /** Column batches over the intervals (or everything). Batches start at multiples of batchRows within a partition. */
  *scan(opts: ScanOptions = {}): Generator<Batch> {
    const cols = opts.columns ? opts.columns.map((n) => this.column(n)) : this.meta.columns;
    const size = opts.batchRows ?? DEFAULT_BATCH_ROWS;
    const textOf = (want: ReadonlySet<string> | undefined): Set<ColumnDef> | undefined =>
      want === undefined || want.size === 0
        ? undefined
        : new Set(cols.filter((c) => (c.type === 'VARCHAR' || c.type === 'STRING') && want.has(c.name)));
    const coded = textOf(opts.textCodes);
    const codedIfBuilt = textOf(opts.textCodesIfBuilt);
    const ranges = this.ranges(opts.intervals);
    if (opts.backwards) ranges.reverse();
    for (const r of ranges) {
      if (r.hi <= r.lo) continue;
      if (!opts.backwards) {
        for (let s = r.lo; s < r.hi;) {
          const e = Math.min(r.hi, (Math.floor(s / size) + 1) * size);
          yield { rowCount: e - s, columns: this.read(r.partition, cols, s, e, coded, codedIfBuilt) };
          s = e;
        }
        continue;
      }
      // Newest first: the same aligned batches, last one first (computed as they go: a small batchRows makes many).
      for (let e = r.hi; e > r.lo;) {
        const s = Math.max(r.lo, Math.floor((e - 1) / size) * size);
        yield { rowCount: e - s, columns: this.read(r.partition, cols, s, e, coded, codedIfBuilt) };
        e = s;
      }
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.table.release(this.snapshot);
  }

  #check(): void {
    if (this.#closed) throw new Error('table reader is closed');
  }
}
