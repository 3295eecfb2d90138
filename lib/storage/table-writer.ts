// The single writer of a table: appends column batches past the committed
// rows, buffers out-of-order rows, and commits (merge, then one atomic _txn
// replace) or rolls back (truncate). DDL goes through it too, so every change
// of a table is serialized by its writer lock.
import { expiredPartitions, type Ttl } from './ttl.js';
import { closeSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join, relative } from 'node:path';
import { SvcError } from '../errors/svc-error.js';
import { LONG_NULL, typeInfo, typeName, type ColumnType } from '../core/column-type.js';
import {
  f64ToInt64Into,
  toVector,
  nullVector,
  type ColumnInput,
  type ColumnVector,
  type FixedVector,
  type SymbolVector,
} from '../core/column-vector.js';
import { ColumnAppender, columnFiles } from './column-appender.js';
import { prepare, type PrepTicket } from './file-prep.js';
import { directSource, readColumn, symbolFile } from './column-files.js';
import { mergeOutOfOrder, type O3Rows } from './o3-merge.js';
import { gatherVector } from '../core/vector-ops.js';
import { checkColumnName, nameKey } from './names.js';
import { partitionCeil, partitionFloor, partitionName, type PartitionBy } from './partition-by.js';
import { SymbolDict } from './symbol-dict.js';
import {
  attachableDir,
  buildAttached,
  buildDetached,
  detachedDir,
  finishAttach,
  finishDetach,
  markAttach,
  matchColumns,
  readDetached,
} from './detached.js';
import { diskFullError, syncPath } from './io.js';
import type { Table } from './table.js';
import {
  columnOptions,
  dirTxn,
  upsertKeys,
  type ColumnDef,
  type ColumnOptions,
  type PartitionState,
  type SymbolState,
  type TableMeta,
  type TxnState,
} from './table-state.js';

/** A row older than the table's newest in a non-partitioned table; `row`: its index in the batch. */
export class OutOfOrderError extends SvcError {
  readonly row: number;
  constructor(message: string, row: number) {
    super('BAD_REQUEST', message);
    this.row = row;
  }
}

export interface AppendBatch {
  readonly rowCount: number;
  /** By column name (any case); missing columns are NULL. */
  readonly columns: Readonly<Record<string, ColumnInput>>;
}

/** Input dictionary keys -> table keys (-2: not interned yet); keys below `identity` map to themselves. */
interface SymbolMap {
  readonly dict: SymbolDict;
  keys: Int32Array;
  identity: number;
}

/** A partition with uncommitted rows. */
export interface PartWrite {
  readonly name: string;
  readonly floor: number;
  dir: string;
  /** The folder is not in the committed state (rollback deletes it). */
  isNew: boolean;
  rows: number;
  committedRows: number;
  minTs: number;
  maxTs: number;
  readonly appenders: Map<number, ColumnAppender>;
  /** Column files created ahead of time (file-prep.ts), by column id, until their appenders take them. */
  created?: Map<number, number[]>;
}

/** The folder and files of the partition after the active one, being created on the helper thread. */
interface NextPartition {
  readonly name: string;
  readonly dir: string;
  readonly ticket: PrepTicket;
  /** Column ids in the order of the ticket's files. */
  readonly columns: ReadonlyArray<{ readonly id: number; readonly files: number }>;
}

/** UPDATE's rewrite of one partition: replacement vectors (same row count, table order), or null to keep it. */
/** ALTER COLUMN TYPE's conversion of one partition's values (the caller's cast). */
export type ConvertFn = (v: ColumnVector, rows: number) => ColumnInput;
type RewriteFn = (rows: { rowCount: number; columns: readonly ColumnVector[] }) => ColumnVector[] | null;

export class TableWriter {
  readonly table: Table;
  readonly #parts = new Map<string, PartWrite>();
  #active: PartWrite | null = null;
  #maxTs: number;
  #o3: O3Rows = { batches: [], rows: 0 };
  readonly #symbolMaps = new WeakMap<readonly string[], SymbolMap>();
  /** The int64 encoding of a batch's timestamps (used before append returns). */
  #tsScratch = new Int32Array(0);
  /** Per SYMBOL column: the reusable array interned keys are written to (used before append returns). */
  readonly #keyScratch = new Map<SymbolDict, Int32Array>();
  #inOrderRows = 0;
  #closed = false;
  /**
   * Commit by itself past maxUncommittedRows (the default). An import into an
   * existing table turns it off so that readers see none of its rows before
   * the end; its rows in order go to the files meanwhile, late rows wait in memory.
   */
  autoCommit = true;
  #next: NextPartition | null = null;
  /**
   * replaceAll() ('all') or replacePartitions() (those names) is in progress: the next commit
   * publishes what was appended since in place of those partitions, in one transaction; null: none.
   */
  #replacing: ReadonlySet<string> | 'all' | null = null;
  /** Partitions entered since the current append's last step (PARTITIONS_PER_STEP). */
  #opened = 0;

  /** Use Catalog.writer(): it takes the table's writer lock first. */
  constructor(table: Table) {
    this.table = table;
    this.#maxTs = committedMaxTs(table.txn);
  }

  get meta(): TableMeta {
    return this.table.meta;
  }

  /** Rows appended since the last commit (in order and out of order). */
  get uncommittedRows(): number {
    return this.#inOrderRows + this.#o3.rows;
  }

  /** Out-of-order rows waiting in memory for the next commit. */
  get pendingLateRows(): number {
    return this.#o3.rows;
  }

  /**
   * Appends a batch. Rows at or after the table's max timestamp go to the end
   * of their partition; older rows wait in memory and are merged at commit.
   * Commits by itself once maxUncommittedRows rows are pending.
   */
  append(batch: AppendBatch): void {
    const steps = this.#appendSteps(batch);
    while (!steps.next().done) {
      /* every partition at once */
    }
  }

  /**
   * append(), awaiting `between` after every PARTITIONS_PER_STEP partitions
   * it opens (and after each partition an automatic commit merges), so rows
   * spread over thousands of partitions do not hold up other work for
   * seconds. The batch's views must stay valid until the promise settles.
   * When `between` throws, everything uncommitted is rolled back.
   */
  async appendAsync(batch: AppendBatch, between: () => Promise<void>): Promise<void> {
    await this.#stepsAsync(this.#appendSteps(batch), between);
  }

  /**
   * Runs `steps`, awaiting `between` after each step and checking that the
   * writer is still open. When `between` throws, or the writer was closed
   * meanwhile, the steps stop (their own finally blocks clean up what they
   * made) and everything uncommitted is rolled back.
   */
  async #stepsAsync(steps: Generator<void, void, void>, between: () => Promise<void>): Promise<void> {
    try {
      while (!steps.next().done) {
        await between();
        this.#check(); // closed (or its table dropped) meanwhile: stop before writing more
      }
    } catch (e) {
      steps.return();
      try {
        this.rollback();
      } catch {
        /* the original error matters more; recovery cleans up at next open */
      }
      throw e;
    }
  }

  *#appendSteps(batch: AppendBatch): Generator<void, void, void> {
    this.#check();
    const n = batch.rowCount;
    if (n === 0) return;
    const vectors = this.#vectors(batch);
    this.#opened = 0;
    try {
      const tsId = this.meta.timestampId;
      if (tsId < 0) {
        this.#appendRange(this.#partFor(0), vectors, 0, n);
      } else {
        yield* this.#appendTimestamped(
          vectors,
          this.meta.columns.findIndex((c) => c.id === tsId),
          n,
        );
      }
    } catch (e) {
      this.#failed(e);
    }
    if (this.autoCommit && this.#replacing === null && this.uncommittedRows >= this.meta.maxUncommittedRows) {
      yield* this.#commitSteps({ keepLag: this.#o3.rows < this.meta.maxUncommittedRows });
    }
  }

  /** Batch columns in meta order as vectors; SYMBOL keys interned into the table's dictionaries. */
  #vectors(batch: AppendBatch): ColumnVector[] {
    const byName = new Map<string, ColumnInput>();
    for (const [k, v] of Object.entries(batch.columns)) byName.set(nameKey(k), v);
    const cols = this.meta.columns;
    for (const k of Object.keys(batch.columns)) {
      if (!cols.some((c) => nameKey(c.name) === nameKey(k)))
        throw new SvcError('BAD_REQUEST', `Invalid column: ${k} [table=${this.meta.name}]`);
    }
    return cols.map((c) => {
      const input = byName.get(nameKey(c.name));
      const dict = this.#dict(c);
      if (input === undefined) {
        if (dict) this.#symbolNulls.add(dict);
        return nullVector(c.type, batch.rowCount, dict?.values ?? []);
      }
      const v = toVector(c.name, c.type, input, batch.rowCount);
      return v.kind === 'symbol' ? this.#intern(v, dict!) : v;
    });
  }

  #dict(c: ColumnDef): SymbolDict | undefined {
    if (c.type !== 'SYMBOL') return undefined;
    let d = this.table.dicts.get(c.id);
    if (!d) {
      d = SymbolDict.open(join(this.table.dir, symbolFile(c)), { count: 0, bytes: 0 });
      this.table.dicts.set(c.id, d);
    }
    return d;
  }

  /**
   * Input keys -> table keys. The mapping is remembered per input dictionary
   * (an importer passes the same growing array batch after batch), so each
   * distinct value is interned once.
   */
  #intern(v: SymbolVector, dict: SymbolDict): SymbolVector {
    this.#internKeys(v, dict);
    const out = this.#lastInterned!;
    // A NULL key among the rows: the committed state will say the column holds NULLs.
    if (!this.#symbolNulls.has(dict)) {
      const k = out.keys;
      for (let i = 0; i < k.length; i++)
        if (k[i]! < 0) {
          this.#symbolNulls.add(dict);
          break;
        }
    }
    return out;
  }

  #lastInterned: SymbolVector | null = null;
  /** Dictionaries of columns that got a NULL since the last commit. */
  readonly #symbolNulls = new Set<SymbolDict>();

  #internKeys(v: SymbolVector, dict: SymbolDict): void {
    this.#lastInterned = this.#internRaw(v, dict);
  }

  #internRaw(v: SymbolVector, dict: SymbolDict): SymbolVector {
    let map = this.#symbolMaps.get(v.dict);
    if (!map || map.dict !== dict) {
      map = { dict, keys: new Int32Array(Math.max(16, v.dict.length)).fill(-2), identity: 0 };
      this.#symbolMaps.set(v.dict, map);
    } else if (map.keys.length < v.dict.length) {
      const grown = new Int32Array(Math.max(v.dict.length, map.keys.length * 2)).fill(-2);
      grown.set(map.keys);
      map.keys = grown;
    }
    const src = v.keys;
    const n = src.length;
    // Fast path: every key is NULL (-1) or one already known to map to itself (an input dictionary
    // built in the same order as the table's, as a single importer's is): the input keys are the
    // table keys, written as they are.
    let lo = 0,
      hi = -1;
    for (let i = 0; i < n; i++) {
      const k = src[i]!;
      if (k < lo) lo = k;
      if (k > hi) hi = k;
    }
    if (lo >= -1 && hi < map.identity) return { kind: 'symbol', type: 'SYMBOL', keys: src, dict: dict.values };
    const m = map.keys;
    let buf = this.#keyScratch.get(dict);
    if (!buf || buf.length < n) {
      buf = new Int32Array(Math.max(n, (buf?.length ?? 0) * 2));
      this.#keyScratch.set(dict, buf);
    }
    const keys = buf.length === n ? buf : buf.subarray(0, n);
    for (let i = 0; i < n; i++) {
      const k = src[i]!;
      if (k < 0) {
        keys[i] = -1;
        continue;
      }
      let t = m[k]!;
      if (t === -2) {
        t = dict.intern(v.dict[k]!);
        m[k] = t;
      }
      keys[i] = t;
    }
    let id = map.identity;
    while (id < m.length && m[id] === id) id++;
    map.identity = id;
    return { kind: 'symbol', type: 'SYMBOL', keys, dict: dict.values };
  }

  #tsPairs(n: number): Int32Array {
    if (this.#tsScratch.length < 2 * n) this.#tsScratch = new Int32Array(Math.max(2 * n, this.#tsScratch.length * 2));
    return this.#tsScratch.length === 2 * n ? this.#tsScratch : this.#tsScratch.subarray(0, 2 * n);
  }

  *#appendTimestamped(vectors: ColumnVector[], tsIndex: number, n: number): Generator<void, void, void> {
    const ts = (vectors[tsIndex] as { data: Float64Array }).data;
    // The common case in one branch-free pass: is the batch sorted from the table's max timestamp
    // on (NaN fails the comparison), with every row's int64 encoding computed on the way so the
    // appenders write it as it is. t + 2^52 is exact for integers in [0, 2^52) (every timestamp up
    // to 2112) and leaves t's low 32 bits in the low word and bits 32..51 in the high word's low 20.
    const pairs = this.#tsPairs(n);
    const asDouble = new Float64Array(pairs.buffer, pairs.byteOffset, n);
    let prev = this.#maxTs;
    let unsorted = 0;
    for (let i = 0; i < n; i++) {
      const t = ts[i]!;
      unsorted |= t >= prev ? 0 : 1;
      prev = t;
      asDouble[i] = t + TWO52;
    }
    // DEDUP: a row at the running max timestamp may repeat a row's keys, so it waits for the
    // merge, where rows with equal keys meet (only rows strictly after the max go in order).
    const dedup = upsertKeys(this.meta).length > 0;
    if (dedup && unsorted === 0) {
      prev = this.#maxTs;
      for (let i = 0; i < n; i++) {
        if (ts[i]! <= prev) {
          unsorted = 1;
          break;
        }
        prev = ts[i]!;
      }
    }
    let late = 0;
    if (unsorted === 0) {
      if (!(ts[0]! > LONG_NULL)) this.#nullTimestamp(tsIndex, 0);
      if (ts[0]! >= 0 && ts[n - 1]! < TWO52) {
        for (let j = 1; j < 2 * n; j += 2) pairs[j] = pairs[j]! & 0xfffff;
      } else {
        f64ToInt64Into(ts.subarray(0, n), pairs);
      }
      const v = vectors[tsIndex] as FixedVector;
      vectors = vectors.slice();
      vectors[tsIndex] = { kind: 'fixed', type: v.type, data: ts, exact: pairs };
    } else {
      // Which rows are in order (>= the running max) and which are late; NULL and NaN are refused.
      let max = this.#maxTs;
      for (let i = 0; i < n; i++) {
        const t = ts[i]!;
        if (!(t > LONG_NULL)) this.#nullTimestamp(tsIndex, i);
        if (t < max || (dedup && t === max)) late++;
        else max = t;
      }
    }
    if (late > 0 && this.meta.partitionBy === 'NONE') this.#outOfOrder(ts, n);
    if (late > 0) {
      const inOrder = new Int32Array(n - late);
      const o3 = new Int32Array(late);
      let max = this.#maxTs;
      for (let i = 0, a = 0, b = 0; i < n; i++) {
        const t = ts[i]!;
        if (t < max || (dedup && t === max)) o3[b++] = i;
        else {
          inOrder[a++] = i;
          max = t;
        }
      }
      // Late rows are copied now: the caller may reuse its buffers after append returns.
      this.#o3.batches.push({ vectors: vectors.map((v) => gatherVector(v, o3)), idx: null, tsIndex });
      this.#o3.rows += late;
      if (inOrder.length === 0) return;
      vectors = vectors.map((v) => gatherVector(v, inOrder));
      n = inOrder.length;
    }
    yield* this.#appendSorted(vectors, (vectors[tsIndex] as { data: Float64Array }).data, n);
  }

  /** QuestDB's rule for a table with a designated timestamp and PARTITION BY NONE: rows only in timestamp order. */
  #outOfOrder(ts: Float64Array, n: number): never {
    let max = this.#maxTs;
    let row = 0;
    while (row < n && ts[row]! >= max) max = ts[row++]!;
    throw new OutOfOrderError(`cannot insert rows out of order to non-partitioned table. Table=${this.meta.name}`, row);
  }

  #nullTimestamp(tsIndex: number, row: number): never {
    throw new SvcError(
      'BAD_REQUEST',
      `designated timestamp cannot be NULL [table=${this.meta.name}, column=${this.meta.columns[tsIndex]!.name}, row=${row}]`,
    );
  }

  /**
   * Appends rows whose timestamps are non-decreasing and >= the max, split
   * only at partition boundaries; yields after every PARTITIONS_PER_STEP
   * partitions opened.
   */
  *#appendSorted(vectors: ColumnVector[], ts: Float64Array, n: number): Generator<void, void, void> {
    const by = this.meta.partitionBy;
    let i = 0;
    while (i < n) {
      if (this.#opened >= PARTITIONS_PER_STEP) {
        this.#opened = 0;
        yield;
      }
      const t = ts[i]!;
      const floor = partitionFloor(by, t);
      const ceil = partitionCeil(by, floor);
      // Sorted input: binary search for the first row of the next partition.
      let j = i + 1;
      if (ts[n - 1]! < ceil) j = n;
      else {
        let hi = n - 1;
        while (j < hi) {
          const mid = (j + hi) >>> 1;
          if (ts[mid]! < ceil) j = mid + 1;
          else hi = mid;
        }
      }
      const part = this.#partFor(floor);
      this.#appendRange(part, vectors, i, j);
      if (part.rows === j - i) part.minTs = t;
      part.maxTs = ts[j - 1]!;
      this.#maxTs = ts[j - 1]!;
      i = j;
    }
  }

  #appendRange(part: PartWrite, vectors: ColumnVector[], lo: number, hi: number): void {
    const cols = this.meta.columns;
    for (let c = 0; c < cols.length; c++) this.#appender(part, cols[c]!).append(vectors[c]!, lo, hi);
    part.rows += hi - lo;
    this.#inOrderRows += hi - lo;
  }

  #appender(part: PartWrite, c: ColumnDef): ColumnAppender {
    let a = part.appenders.get(c.id);
    if (!a) {
      const created = part.created?.get(c.id);
      if (created !== undefined) part.created!.delete(c.id);
      a = new ColumnAppender(join(this.table.dir, part.dir), c, part.rows, created);
      part.appenders.set(c.id, a);
    }
    return a;
  }

  /** The partition for in-order rows starting at `floor` (the last one, or a new one after it). */
  #partFor(floor: number): PartWrite {
    if (this.#active && this.#active.floor === floor) return this.#active;
    const by = this.meta.partitionBy;
    const name = partitionName(this.meta.timestampId < 0 ? 'NONE' : by, floor);
    let part = this.#parts.get(name);
    this.#opened++;
    if (!part) {
      const committed = this.#replaced(name) ? undefined : this.table.txn.partitions.find((p) => p.name === name);
      if (committed) {
        part = {
          name,
          floor,
          dir: committed.dir,
          isNew: false,
          rows: committed.rows,
          committedRows: committed.rows,
          minTs: committed.minTs,
          maxTs: committed.maxTs,
          appenders: new Map(),
        };
      } else {
        part = this.#newPartition(name, floor);
      }
      this.#parts.set(name, part);
    }
    if (this.#active && this.#active !== part) this.#closeAppenders(this.#active);
    this.#active = part;
    if (by !== 'NONE' && this.meta.timestampId >= 0) this.#prepareNext(by, floor);
    return part;
  }

  /** A partition folder for in-order rows: the one prepared ahead of time if it is this one, else made now. */
  #newPartition(name: string, floor: number): PartWrite {
    const next = this.#next;
    if (next !== null && next.name === name) {
      this.#next = null;
      this.table.preparedFiles = null;
      const fds = next.ticket.take();
      if (fds !== null) {
        const created = new Map<number, number[]>();
        let i = 0;
        for (const c of next.columns) {
          created.set(c.id, fds.slice(i, i + c.files));
          i += c.files;
        }
        return {
          name,
          floor,
          dir: next.dir,
          isNew: true,
          rows: 0,
          committedRows: 0,
          minTs: 0,
          maxTs: 0,
          appenders: new Map(),
          created,
        };
      }
      // Not done by the helper: made here instead, under the same name.
      mkdirSync(join(this.table.dir, next.dir), { recursive: true });
      return {
        name,
        floor,
        dir: next.dir,
        isNew: true,
        rows: 0,
        committedRows: 0,
        minTs: 0,
        maxTs: 0,
        appenders: new Map(),
      };
    }
    this.#cancelNext();
    const dir = `${name}.${this.table.txn.txn + 1}`;
    mkdirSync(join(this.table.dir, dir), { recursive: true });
    return { name, floor, dir, isNew: true, rows: 0, committedRows: 0, minTs: 0, maxTs: 0, appenders: new Map() };
  }

  /**
   * Starts creating the folder and column files of the partition after
   * `floor`, where in-order rows go next. Its folder is named after the
   * transaction in progress now; it stays unpublished (and is removed by a
   * rollback, a DDL change or recovery) until rows reach it.
   */
  #prepareNext(by: PartitionBy, floor: number): void {
    const name = partitionName(by, partitionCeil(by, floor));
    if (this.#next?.name === name) return;
    this.#cancelNext();
    if (this.#parts.has(name) || (!this.#replaced(name) && this.table.txn.partitions.some((p) => p.name === name)))
      return;
    const dir = `${name}.${this.table.txn.txn + 1}`;
    const path = join(this.table.dir, dir);
    const files: string[] = [];
    const columns = this.meta.columns.map((c) => {
      const f = columnFiles(path, c);
      for (const x of f) files.push(x); // not push(...f): no spread over data-sized arrays
      return { id: c.id, files: f.length };
    });
    const ticket = prepare(path, files);
    if (ticket !== null) this.#next = { name, dir, ticket, columns };
    this.table.preparedFiles = ticket;
  }

  #cancelNext(): void {
    const next = this.#next;
    this.#next = null;
    this.table.preparedFiles = null;
    next?.ticket.cancel();
  }

  /**
   * Makes everything appended visible atomically. With `keepLag` (automatic
   * commits), out-of-order rows newer than max timestamp - o3MaxLag stay
   * buffered so later stragglers merge with them in one pass.
   */
  commit(opts: { keepLag?: boolean } = {}): void {
    const steps = this.#commitSteps(opts);
    while (!steps.next().done) {
      /* every partition merged at once */
    }
  }

  /**
   * commit(), awaiting `between` after each out-of-order partition merged (a
   * statement's pace: its deadline and a turn for other work). When `between`
   * throws, nothing is published and everything uncommitted is rolled back.
   */
  async commitAsync(between: () => Promise<void>, opts: { keepLag?: boolean } = {}): Promise<void> {
    await this.#stepsAsync(this.#commitSteps(opts), between);
  }

  *#commitSteps(opts: { keepLag?: boolean }): Generator<void, void, void> {
    this.#check();
    if (this.#replacing === 'all' && this.uncommittedRows === 0) {
      this.truncate(); // replaced by nothing
      return;
    }
    if (this.#replacing !== null && this.uncommittedRows === 0) {
      // Those partitions replaced by nothing: they leave in one transaction.
      const txn = this.table.txn;
      const gone = txn.partitions.filter((p) => this.#replaced(p.name));
      this.#replacing = null;
      if (gone.length > 0)
        this.table.publish(
          this.meta,
          { ...txn, txn: txn.txn + 1, partitions: txn.partitions.filter((p) => !gone.includes(p)) },
          gone.map((p) => p.dir),
        );
      this.#maxTs = committedMaxTs(this.table.txn);
      return;
    }
    if (this.uncommittedRows === 0) return;
    if (this.#replacing !== null && this.#o3.rows > 0) {
      this.rollback();
      throw new SvcError('INTERNAL', `rows replacing a table must come in timestamp order [table=${this.meta.name}]`);
    }
    const mode = this.table.options.commitMode;
    const newTxn = this.table.txn.txn + 1;
    const garbage: string[] = [];
    try {
      for (const p of this.#parts.values()) {
        for (const a of p.appenders.values()) a.sync(mode);
        if (p.isNew) syncPath(join(this.table.dir, p.dir), mode);
      }
      if (this.#o3.rows > 0) {
        const lagFrom = opts.keepLag ? this.#maxTs - this.meta.o3MaxLag : Infinity;
        const kept = yield* mergeOutOfOrder(this, this.#o3, lagFrom, newTxn, garbage);
        this.#o3 = kept;
      }
      for (const d of this.table.dicts.values()) d.flush(mode);
      this.table.publish(this.meta, this.#nextTxn(newTxn, garbage), garbage);
    } catch (e) {
      this.#failed(e);
    }
    if (this.#replacing !== null) {
      this.#replacing = null;
      this.#maxTs = committedMaxTs(this.table.txn);
    }
    for (const p of this.#parts.values()) {
      p.isNew = false;
      p.committedRows = p.rows;
      if (p !== this.#active) this.#closeAppenders(p);
    }
    this.#parts.clear();
    if (this.#active) this.#parts.set(this.#active.name, this.#active);
    this.#inOrderRows = 0;
    this.#symbolNulls.clear();
  }

  /** Internal (o3-merge): the partitions with uncommitted changes. */
  get parts(): Map<string, PartWrite> {
    return this.#parts;
  }

  /** Internal (o3-merge): forgets the active partition's appenders after its folder was rewritten. */
  resetActive(part: PartWrite): void {
    this.#closeAppenders(part);
  }

  /** The partitions the table's TTL keeps (storage/ttl.ts); the folders of the others go to `garbage`. */
  #withinTtl(partitions: PartitionState[], garbage: string[]): PartitionState[] {
    if (this.meta.ttl === undefined) return partitions; // most tables: nothing to look at per commit
    const maxTs = partitions.reduce((m, p) => Math.max(m, p.maxTs), -Infinity);
    const expired = expiredPartitions(partitions, this.meta.partitionBy, this.meta.ttl, maxTs, Date.now() * 1000);
    if (expired.length === 0) return partitions;
    const gone = new Set(expired);
    for (const p of expired) garbage.push(p.dir);
    return partitions.filter((p) => !gone.has(p));
  }

  #nextTxn(txn: number, garbage: string[]): TxnState {
    const byName = new Map<string, PartitionState>();
    for (const p of this.table.txn.partitions) {
      if (this.#replaced(p.name)) garbage.push(p.dir);
      else byName.set(p.name, p);
    }
    for (const p of this.#parts.values()) {
      if (p.rows > 0) byName.set(p.name, { name: p.name, dir: p.dir, rows: p.rows, minTs: p.minTs, maxTs: p.maxTs });
    }
    const partitions = this.#withinTtl(
      [...byName.values()].sort((a, b) => a.minTs - b.minTs),
      garbage,
    );
    return { txn, metaVersion: this.meta.version, partitions, symbols: this.#symbolStates() };
  }

  /** The dictionaries' committed sizes, and whether each column holds NULLs. */
  #symbolStates(): Record<string, SymbolState> {
    const symbols: Record<string, SymbolState> = {};
    for (const c of this.meta.columns) {
      const d = this.table.dicts.get(c.id);
      if (!d) continue;
      const prev = this.table.txn.symbols[String(c.id)];
      // Known from the column's first commit on; unknown (absent) stays unknown.
      const known = prev === undefined || prev.nulls !== undefined;
      const nulls = (prev?.nulls ?? false) || this.#symbolNulls.has(d);
      symbols[String(c.id)] = known ? { ...d.state(), nulls } : d.state();
    }
    return symbols;
  }

  /**
   * Drops everything appended since the last commit. Always finishes: every
   * partition is handled even if one fails (the first error is rethrown), and
   * anything left over is cleaned up by recovery at the next open.
   */
  rollback(): void {
    if (this.#closed) return;
    let first: unknown;
    try {
      this.#cancelNext();
    } catch (e) {
      first = e;
    }
    for (const p of this.#parts.values()) {
      try {
        this.#closeCreated(p);
        if (p.isNew) {
          for (const a of p.appenders.values()) a.discard();
          p.appenders.clear();
          this.table.removeSoon(p.dir); // thousands of them after a big append: not on the event loop
        } else {
          for (const a of p.appenders.values()) a.truncate(p.committedRows);
          this.#closeAppenders(p);
        }
      } catch (e) {
        first ??= e;
        for (const a of p.appenders.values()) {
          try {
            a.discard();
          } catch {
            /* already failing; recovery cuts the files */
          }
        }
        p.appenders.clear();
      }
    }
    this.#parts.clear();
    this.#active = null;
    this.#o3 = { batches: [], rows: 0 };
    this.#inOrderRows = 0;
    this.#symbolNulls.clear();
    this.#replacing = null;
    this.#maxTs = committedMaxTs(this.table.txn);
    for (const [id, d] of this.table.dicts) {
      try {
        d.truncateTo(this.table.txn.symbols[String(id)] ?? { count: 0, bytes: 0 });
      } catch (e) {
        first ??= e;
      }
    }
    if (first !== undefined) throw first;
  }

  /** Rolls back what is uncommitted and releases the writer lock. */
  close(): void {
    if (this.#closed) return;
    try {
      this.rollback();
    } finally {
      this.#closed = true;
      this.table.unlockWriter();
    }
  }

  #closeAppenders(p: PartWrite): void {
    for (const a of p.appenders.values()) a.close();
    p.appenders.clear();
    this.#closeCreated(p);
  }

  /** Closes pre-created files no appender took (their files stay, empty: valid for the partition's 0 rows). */
  #closeCreated(p: PartWrite): void {
    if (p.created === undefined) return;
    for (const fds of p.created.values()) for (const fd of fds) closeSync(fd);
    p.created = undefined;
  }

  #check(): void {
    if (this.#closed) throw new Error('table writer is closed');
    this.table.check();
  }

  /** A failed write leaves the table at its last commit: roll back, then report (disk full gets its own code). */
  #failed(e: unknown): never {
    try {
      this.rollback();
    } catch {
      /* the original error matters more; recovery cleans up at next open */
    }
    throw diskFullError(e, `while writing table ${this.meta.name}; the table is at its last commit`);
  }

  // ---- DDL: each commits pending rows first, then publishes a new meta version.

  /** `options`: SYMBOL capacity, cache and index as declared (ColumnDef). */
  addColumn(name: string, type: ColumnType, options: ColumnOptions = {}): void {
    this.#check();
    checkColumnName(name);
    if (this.meta.columns.some((c) => nameKey(c.name) === nameKey(name))) {
      throw new SvcError('BAD_REQUEST', `column already exists [table=${this.meta.name}, column=${name}]`);
    }
    this.commit();
    const newTxn = this.table.txn.txn + 1;
    const def: ColumnDef = { ...columnOptions(options), id: this.meta.nextColumnId, name, type, addedTxn: newTxn };
    this.#publishMeta({ ...this.meta, columns: [...this.meta.columns, def], nextColumnId: def.id + 1 }, []);
  }

  /**
   * ALTER COLUMN ADD INDEX / DROP INDEX: the column's `indexed` flag. Lookups by value go through
   * the symbol dictionary whether or not the flag is set, so no index file is built.
   */
  setIndexed(name: string, indexed: boolean, capacity?: number): void {
    this.#check();
    const c = this.#column(name);
    if (c.type !== 'SYMBOL')
      throw new SvcError(
        'BAD_REQUEST',
        `indexes are only supported for symbol type [column=${c.name}, type=${typeName(c.type)}]`,
      );
    this.commit();
    const { indexed: _i, indexCapacity: _c, ...rest } = c;
    const next: ColumnDef = indexed
      ? { ...rest, indexed: true, ...(capacity !== undefined ? { indexCapacity: capacity } : {}) }
      : rest;
    this.#publishMeta({ ...this.meta, columns: this.meta.columns.map((x) => (x.id === c.id ? next : x)) }, []);
  }

  /**
   * ALTER COLUMN c CACHE / NOCACHE / SYMBOL CAPACITY n: the SYMBOL column's declared options (the
   * dictionary grows as needed and serves lookups either way; the options are recorded and shown).
   */
  setSymbolOptions(name: string, options: { symbolCached?: boolean; symbolCapacity?: number }): void {
    this.#check();
    const c = this.#column(name);
    if (c.type !== 'SYMBOL')
      throw new SvcError('BAD_REQUEST', `column is not a symbol [column=${c.name}, type=${typeName(c.type)}]`);
    this.commit();
    const next: ColumnDef = { ...c, ...options };
    this.#publishMeta({ ...this.meta, columns: this.meta.columns.map((x) => (x.id === c.id ? next : x)) }, []);
  }

  /** SET TYPE WAL / BYPASS WAL: the table's WAL flag (svcdb writes every table the same way). */
  setWal(wal: boolean): void {
    this.#check();
    this.commit();
    const { wal: _w, ...rest } = this.meta;
    this.#publishMeta(wal ? { ...rest, wal: true } : rest, []);
  }

  /**
   * DEDUP ENABLE UPSERT KEYS(...) (`keys`, checked by the caller) or DEDUP DISABLE (null). From the
   * next commit on, rows with equal values in every key column replace each other; rows already
   * in the table stay as they are (QuestDB's rule).
   */
  setUpsertKeys(keys: readonly string[] | null): void {
    this.#check();
    const wanted = new Set((keys ?? []).map((k) => nameKey(this.#column(k).name)));
    this.commit();
    const columns = this.meta.columns.map((c) => {
      const { upsertKey: _u, ...rest } = c;
      return wanted.has(nameKey(c.name)) ? { ...rest, upsertKey: true } : rest;
    });
    this.#publishMeta({ ...this.meta, columns }, []);
  }

  /**
   * ALTER COLUMN c TYPE t: each partition's values of `name` are read, turned into `type` by
   * `convert` (the caller's cast), and written as a new column with `options` (SYMBOL capacity,
   * cache, index; the old column's do not carry over) under a new id (so readers of the
   * current version keep the old files); one commit publishes it in the old column's place.
   * A failure leaves the table as it was.
   */
  changeColumnType(name: string, type: ColumnType, convert: ConvertFn, options: ColumnOptions = {}): void {
    const steps = this.#changeTypeSteps(name, type, convert, options);
    while (!steps.next().done) {
      /* every partition at once */
    }
  }

  /**
   * changeColumnType(), awaiting `between` after each partition converted (a
   * statement's pace), so a table of thousands of partitions does not hold up
   * other requests. When `between` throws, the files written so far are
   * removed and the table stays as it was.
   */
  async changeColumnTypeAsync(
    name: string,
    type: ColumnType,
    convert: ConvertFn,
    options: ColumnOptions,
    between: () => Promise<void>,
  ): Promise<void> {
    await this.#stepsAsync(this.#changeTypeSteps(name, type, convert, options), between);
  }

  *#changeTypeSteps(
    name: string,
    type: ColumnType,
    convert: ConvertFn,
    options: ColumnOptions,
  ): Generator<void, void, void> {
    this.#check();
    const old = this.#column(name);
    if (old.id === this.meta.timestampId) {
      throw new SvcError(
        'BAD_REQUEST',
        `cannot change type of designated timestamp column [table=${this.meta.name}, column=${old.name}]`,
      );
    }
    this.commit();
    this.#closeAllAppenders();
    const { symbolCapacity: _s, symbolCached: _k, indexed: _i, indexCapacity: _x, ...base } = old;
    const def: ColumnDef = { ...base, ...columnOptions(options), id: this.meta.nextColumnId, type };
    const mode = this.table.options.commitMode;
    const made: string[] = [];
    const newDict =
      type === 'SYMBOL' ? SymbolDict.open(join(this.table.dir, symbolFile(def)), { count: 0, bytes: 0 }) : undefined;
    let published = false;
    try {
      let nulls = false;
      let converted = 0;
      for (const p of this.table.txn.partitions) {
        const path = join(this.table.dir, p.dir);
        if (dirTxn(p.dir) < old.addedTxn) continue; // the column came later: NULL here, in either type
        if (converted++ > 0) yield;
        const v = readColumn(directSource, path, p.rows, old, 0, p.rows, this.#dict(old)?.values ?? []);
        const out0 = toVector(def.name, type, convert(v, p.rows), p.rows);
        let out = out0;
        if (out0.kind === 'symbol') {
          out = this.#internRaw(out0, newDict!);
          if (!nulls)
            for (let i = 0; i < out.keys.length; i++)
              if (out.keys[i]! < 0) {
                nulls = true;
                break;
              }
        }
        for (const f of columnFiles(path, def)) made.push(f);
        const a = new ColumnAppender(path, def, 0);
        try {
          a.append(out, 0, p.rows);
          a.sync(mode);
        } finally {
          a.close();
        }
      }
      const garbage: string[] = [];
      for (const p of this.table.txn.partitions) {
        if (dirTxn(p.dir) < old.addedTxn) continue;
        for (const f of columnFiles(join(this.table.dir, p.dir), old)) garbage.push(f);
      }
      if (old.type === 'SYMBOL') garbage.push(join(this.table.dir, symbolFile(old)));
      const symbols = { ...this.table.txn.symbols };
      delete symbols[String(old.id)];
      if (newDict) {
        newDict.flush(mode);
        symbols[String(def.id)] = { ...newDict.state(), nulls };
      }
      const meta = {
        ...this.meta,
        columns: this.meta.columns.map((x) => (x.id === old.id ? def : x)),
        nextColumnId: def.id + 1,
        version: this.meta.version + 1,
      };
      const txn = this.table.txn;
      this.table.publish(
        meta,
        { ...txn, txn: txn.txn + 1, metaVersion: meta.version, symbols },
        garbage.map((g) => relative(this.table.dir, g)),
      );
      published = true;
    } catch (e) {
      this.#failed(e);
    } finally {
      if (!published) {
        newDict?.close();
        for (const f of made) rmSync(f, { force: true });
        if (newDict) rmSync(join(this.table.dir, symbolFile(def)), { force: true });
      }
    }
    if (old.type === 'SYMBOL') {
      this.table.dicts.get(old.id)?.close();
      this.table.dicts.delete(old.id);
    }
    if (newDict) this.table.dicts.set(def.id, newDict);
  }

  dropColumn(name: string): void {
    this.#check();
    const c = this.#column(name);
    if (c.id === this.meta.timestampId)
      throw new SvcError(
        'BAD_REQUEST',
        `cannot remove designated timestamp column [table=${this.meta.name}, column=${c.name}]`,
      );
    this.commit();
    this.#closeAllAppenders();
    const garbage: string[] = [];
    for (const p of this.table.txn.partitions) {
      garbage.push(join(p.dir, `${c.id}.d`));
      if (typeInfo(c.type).layout === 'var') garbage.push(join(p.dir, `${c.id}.i`));
    }
    if (c.type === 'SYMBOL') garbage.push(symbolFile(c));
    this.#publishMeta({ ...this.meta, columns: this.meta.columns.filter((x) => x.id !== c.id) }, garbage);
    // After the commit: a failed drop keeps the dictionary the column still uses.
    if (c.type === 'SYMBOL') {
      this.table.dicts.get(c.id)?.close();
      this.table.dicts.delete(c.id);
    }
  }

  renameColumn(from: string, to: string): void {
    this.#check();
    const c = this.#column(from);
    checkColumnName(to);
    if (nameKey(from) !== nameKey(to) && this.meta.columns.some((x) => nameKey(x.name) === nameKey(to))) {
      throw new SvcError('BAD_REQUEST', `column already exists [table=${this.meta.name}, column=${to}]`);
    }
    this.commit();
    this.#publishMeta(
      { ...this.meta, columns: this.meta.columns.map((x) => (x.id === c.id ? { ...x, name: to } : x)) },
      [],
    );
  }

  /**
   * Starts replacing every row: the rows appended from here on (in timestamp order) become the
   * table's only rows at the next commit, in that one commit, so readers see the old rows or the
   * new ones and never an empty table between (a live view's refresh). Symbol dictionaries keep
   * their entries. A rollback keeps the old rows.
   */
  replaceAll(): void {
    this.#check();
    this.rollback();
    this.#closeAllAppenders();
    this.#replacing = 'all';
    this.#maxTs = -Infinity;
  }

  /**
   * Like replaceAll() for the partitions named: rows appended next (in timestamp order, from the
   * first of those partitions on) take their place at the next commit, in one transaction, so a
   * reader sees the old rows or the new ones, never neither; the other partitions stay as they
   * are. Named partitions that do not exist are ignored.
   */
  replacePartitions(names: readonly string[]): void {
    this.#check();
    this.rollback();
    this.#closeAllAppenders();
    const replaced = new Set(names);
    this.#replacing = replaced;
    // In order from the kept partitions before the first replaced one.
    const first = Math.min(
      ...this.table.txn.partitions.filter((p) => replaced.has(p.name)).map((p) => p.minTs),
      Infinity,
    );
    this.#maxTs = this.table.txn.partitions
      .filter((p) => !replaced.has(p.name) && p.maxTs < first)
      .reduce((m, p) => Math.max(m, p.maxTs), -Infinity);
  }

  /** Whether a partition of that name is being replaced (its committed rows are not appended to). */
  #replaced(name: string): boolean {
    return this.#replacing === 'all' || (this.#replacing !== null && this.#replacing.has(name));
  }

  /** Removes every row; symbol dictionaries start again empty. */
  truncate(): void {
    this.#check();
    this.rollback();
    this.#closeAllAppenders();
    const garbage = this.table.txn.partitions.map((p) => p.dir);
    const symbols: Record<string, SymbolState> = {};
    for (const id of this.table.dicts.keys()) symbols[String(id)] = { count: 0, bytes: 0, nulls: false };
    this.table.publish(
      this.meta,
      { txn: this.table.txn.txn + 1, metaVersion: this.meta.version, partitions: [], symbols },
      garbage,
    );
    // Only once the empty state is committed: a failure before this leaves the dictionaries intact.
    for (const d of this.table.dicts.values()) d.reset();
    this.#maxTs = -Infinity;
  }

  dropPartition(name: string): void {
    this.#check();
    if (this.meta.timestampId < 0 || this.meta.partitionBy === 'NONE') {
      throw new SvcError('BAD_REQUEST', `table is not partitioned [table=${this.meta.name}]`);
    }
    const missing = (): SvcError =>
      new SvcError('BAD_REQUEST', `partition does not exist [table=${this.meta.name}, partition=${name}]`);
    if (!this.#parts.has(name) && !this.table.txn.partitions.some((x) => x.name === name)) throw missing();
    // Commit first: it may rewrite the partition, so look it up afterwards.
    this.commit();
    const p = this.table.txn.partitions.find((x) => x.name === name);
    if (!p) throw missing();
    this.#closeAllAppenders();
    const txn = this.table.txn;
    this.table.publish(this.meta, { ...txn, txn: txn.txn + 1, partitions: txn.partitions.filter((x) => x !== p) }, [
      p.dir,
    ]);
    this.#maxTs = committedMaxTs(this.table.txn);
  }

  /**
   * DETACH PARTITION: the partition leaves the table in one commit and lives on as
   * `<name>.detached/` (storage/detached.ts). The newest partition cannot go (QuestDB's rule).
   */
  detachPartition(name: string): void {
    this.#check();
    this.#partitioned();
    this.commit();
    const txn = this.table.txn;
    const p = txn.partitions.find((x) => x.name === name);
    const refuse = (status: string): SvcError =>
      new SvcError(
        'BAD_REQUEST',
        `could not detach partition [table=${this.meta.name}, detachStatus=${status}, partition=${name}]`,
      );
    if (!p) throw refuse('DETACH_ERR_MISSING_PARTITION');
    if (p === txn.partitions[txn.partitions.length - 1]) throw refuse('DETACH_ERR_ACTIVE');
    if (existsSync(join(this.table.dir, detachedDir(name)))) throw refuse('DETACH_ERR_ALREADY_DETACHED');
    this.#closeAllAppenders();
    const tmp = buildDetached(this.table.dir, p, this.meta, txn, this.table.options.commitMode);
    try {
      this.table.publish(this.meta, { ...txn, txn: txn.txn + 1, partitions: txn.partitions.filter((x) => x !== p) }, [
        p.dir,
      ]);
    } catch (e) {
      rmSync(join(this.table.dir, tmp), { recursive: true, force: true });
      throw e;
    }
    finishDetach(this.table.dir, name);
    this.#maxTs = committedMaxTs(this.table.txn);
  }

  /**
   * ATTACH PARTITION: `<name>.attachable/` or `<name>.detached/` becomes the partition again in one
   * commit, if its columns match the table's (by name and type) and the partition is not there.
   */
  attachPartition(name: string): void {
    this.#check();
    this.#partitioned();
    const refuse = (status: string): SvcError =>
      new SvcError(
        'BAD_REQUEST',
        `could not attach partition [table=${this.meta.name}, attachStatus=${status}, partition=${name}]`,
      );
    const from = attachableDir(this.table.dir, name);
    if (from === null) throw refuse('ATTACH_ERR_MISSING_PARTITION');
    const info = readDetached(join(this.table.dir, from));
    const by = this.meta.partitionBy;
    if (
      info.rows <= 0 ||
      partitionName(by, partitionFloor(by, info.minTs)) !== name ||
      partitionName(by, partitionFloor(by, info.maxTs)) !== name
    )
      throw refuse('ATTACH_ERR_PARTITION_VALUES');
    this.commit();
    if (this.table.txn.partitions.some((x) => x.name === name)) throw refuse('ATTACH_ERR_PARTITION_EXISTS');
    matchColumns(this.meta, info, from);
    this.#closeAllAppenders();
    const txn = this.table.txn;
    const newTxn = txn.txn + 1;
    const dir = `${name}.${newTxn}`;
    const mode = this.table.options.commitMode;
    let published = false;
    let made = false;
    try {
      made = true;
      const dicts = new Map([...this.table.dicts].filter(([id]) => this.meta.columns.some((c) => c.id === id)));
      for (const d of buildAttached(this.table.dir, from, dir, this.meta, info, dicts, mode)) this.#symbolNulls.add(d);
      for (const d of this.table.dicts.values()) d.flush(mode);
      syncPath(join(this.table.dir, dir), mode);
      markAttach(this.table.dir, from, dir, mode);
      const p: PartitionState = { name, dir, rows: info.rows, minTs: info.minTs, maxTs: info.maxTs };
      const partitions = [...txn.partitions, p].sort((a, b) => a.minTs - b.minTs);
      const symbols = this.#symbolStates();
      this.#symbolNulls.clear();
      this.table.publish(this.meta, { ...txn, txn: newTxn, partitions, symbols }, []);
      published = true;
    } catch (e) {
      this.#failed(e);
    } finally {
      if (!published && made) {
        rmSync(join(this.table.dir, dir), { recursive: true, force: true });
        finishAttach(this.table.dir, from, false);
      }
    }
    finishAttach(this.table.dir, from, true);
    this.#maxTs = committedMaxTs(this.table.txn);
  }

  #partitioned(): void {
    if (this.meta.timestampId < 0 || this.meta.partitionBy === 'NONE') {
      throw new SvcError('BAD_REQUEST', `table is not partitioned [table=${this.meta.name}]`);
    }
  }

  /**
   * Rewrites partitions in one commit (UPDATE): `fn` gets each partition's
   * rows (all columns, table order) and returns replacement vectors with the
   * same row count, or null to keep the partition. Changed partitions are
   * written as new versions; readers of the old ones are unaffected.
   */
  rewritePartitions(fn: RewriteFn): void {
    const steps = this.#rewriteSteps(fn);
    while (!steps.next().done) {
      /* every partition at once */
    }
  }

  /**
   * rewritePartitions(), awaiting `between` after each partition rewritten
   * (a statement's pace). When `between` throws, the new versions written so
   * far are removed and the table stays as it was.
   */
  async rewritePartitionsAsync(fn: RewriteFn, between: () => Promise<void>): Promise<void> {
    await this.#stepsAsync(this.#rewriteSteps(fn), between);
  }

  *#rewriteSteps(fn: RewriteFn): Generator<void, void, void> {
    this.#check();
    this.commit();
    this.#closeAllAppenders();
    const txn = this.table.txn;
    const newTxn = txn.txn + 1;
    const made: string[] = [];
    const garbage: string[] = [];
    const mode = this.table.options.commitMode;
    let published = false;
    try {
      const partitions: PartitionState[] = [];
      for (const p of txn.partitions) {
        if (partitions.length > 0) yield;
        const path = join(this.table.dir, p.dir);
        const current = this.meta.columns.map((c) =>
          readColumn(directSource, path, p.rows, c, 0, p.rows, this.#dict(c)?.values ?? []),
        );
        const next = fn({ rowCount: p.rows, columns: current });
        if (next === null) {
          partitions.push(p);
          continue;
        }
        const dir = `${p.name}.${newTxn}`;
        const out = join(this.table.dir, dir);
        mkdirSync(out, { recursive: true });
        made.push(dir);
        this.meta.columns.forEach((c, i) => {
          const v0 = toVector(c.name, c.type, next[i]!, p.rows);
          const v = v0.kind === 'symbol' ? this.#intern(v0, this.#dict(c)!) : v0;
          const a = new ColumnAppender(out, c, 0);
          try {
            a.append(v, 0, p.rows);
            a.sync(mode);
          } finally {
            a.close();
          }
        });
        garbage.push(p.dir);
        partitions.push({ ...p, dir });
      }
      for (const d of this.table.dicts.values()) d.flush(mode);
      const symbols = this.#symbolStates();
      this.#symbolNulls.clear();
      this.table.publish(this.meta, { ...txn, txn: newTxn, partitions, symbols }, garbage);
      published = true;
    } catch (e) {
      this.#failed(e);
    } finally {
      // Failed, or stopped between partitions: the new versions go; the table is at its last commit.
      if (!published) for (const m of made) this.table.removeSoon(m);
    }
  }

  /**
   * Sets (or, undefined, removes) the table's time to live, and removes the partitions it
   * expires now, as the next commits will (what is uncommitted is committed first).
   */
  setTtl(ttl: Ttl | undefined): void {
    this.#check();
    this.commit();
    const { ttl: _old, ...rest } = this.meta;
    this.#publishMeta(ttl === undefined ? rest : { ...rest, ttl }, []);
    const txn = this.table.txn;
    const garbage: string[] = [];
    const partitions = this.#withinTtl([...txn.partitions], garbage);
    if (garbage.length === 0) return;
    this.#closeAllAppenders();
    this.table.publish(this.meta, { ...txn, txn: txn.txn + 1, partitions }, garbage);
    this.#maxTs = committedMaxTs(this.table.txn);
  }

  /**
   * REBASE WAL: the table keeps its committed data under a new id (caches key on it; the old
   * id's cached chunks are dropped) and its WAL transaction numbering restarts at this commit.
   */
  rebaseWal(): void {
    this.#check();
    this.commit();
    const oldId = this.meta.id;
    this.#publishMeta({ ...this.meta, id: randomUUID(), walTxnBase: this.table.txn.txn + 1 }, []);
    this.table.cache.evict(`${oldId}/`);
  }

  /** maxUncommittedRows and o3MaxLag (micros). */
  setParams(p: { maxUncommittedRows?: number; o3MaxLag?: number }): void {
    this.#check();
    this.#publishMeta({ ...this.meta, ...p }, []);
  }

  #publishMeta(meta: Omit<TableMeta, 'version'> & { version: number }, garbage: string[]): void {
    // A folder prepared for the old column list (and named before this transaction) must not be used.
    this.#cancelNext();
    const next = { ...meta, version: this.meta.version + 1 };
    const txn = this.table.txn;
    this.table.publish(next, { ...txn, txn: txn.txn + 1, metaVersion: next.version }, garbage);
  }

  #closeAllAppenders(): void {
    this.#cancelNext();
    for (const p of this.#parts.values()) this.#closeAppenders(p);
    this.#parts.clear();
    this.#active = null;
  }

  #column(name: string): ColumnDef {
    const c = this.meta.columns.find((x) => nameKey(x.name) === nameKey(name));
    if (!c) throw new SvcError('BAD_REQUEST', `Invalid column: ${name} [table=${this.meta.name}]`);
    return c;
  }
}

const TWO52 = 4503599627370496;
/**
 * Partitions an append enters between two steps of appendAsync: each new one
 * costs its folder and a file per column (1-2 ms), so a few dozen keep a step
 * within tens of milliseconds.
 */
const PARTITIONS_PER_STEP = 32;

export function committedMaxTs(txn: TxnState): number {
  const last = txn.partitions[txn.partitions.length - 1];
  return last ? last.maxTs : -Infinity;
}
