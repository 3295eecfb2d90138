// Randomized model test of the storage engine (lib/storage): seeded random
// appends in and out of order, commits, rollbacks, DDL, reopens and scans, with
// every read compared against a plain in-memory model of what a reader must see.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { SvcError } from '../../lib/errors/svc-error.js';
import type { Catalog } from '../../lib/storage/catalog.js';
import type { TableReader } from '../../lib/storage/table-reader.js';
import type { Interval } from '../../lib/core/batch.js';
import type { TableWriter } from '../../lib/storage/table-writer.js';
import {
  DAY_US,
  HOUR_US,
  INT_NULL,
  Rng,
  checkTableFolder,
  envInt,
  openCatalog,
  sameValue,
  scanValues,
  show,
  tempRoot,
  type Value,
} from './helpers.js';

// SVCDB_MODEL_SEED and SVCDB_MODEL_STEPS run another or a longer sequence;
// SVCDB_MODEL_SKIP=op,op (names in OPS below) leaves operations out to narrow a failure down.
const SEED = envInt('SVCDB_MODEL_SEED', 20241122);
const STEPS = envInt('SVCDB_MODEL_STEPS', 1000);
const SKIP = new Set(
  (process.env.SVCDB_MODEL_SKIP ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

type MType = 'TIMESTAMP' | 'SYMBOL' | 'DOUBLE' | 'INT' | 'LONG' | 'VARCHAR' | 'STRING' | 'BOOLEAN';
type By = 'NONE' | 'HOUR' | 'DAY' | 'MONTH';

const TYPES: readonly MType[] = ['TIMESTAMP', 'SYMBOL', 'DOUBLE', 'INT', 'LONG', 'VARCHAR', 'STRING', 'BOOLEAN'];
/** 2024-01-01T00:00:00Z. */
const BASE = Date.UTC(2024, 0, 1) * 1000;
/** Above this many rows a table is cut back (truncate or partition drops), to keep the run fast. */
const MAX_ROWS = 30_000;
const SYMBOLS = ['a', 'b', 'BTC-USD', 'ETH', 'é', '東京', '🙂', '', 'a b', 'x'.repeat(40)];
const CHARS = [...'abcxyz019 _-,"\\', 'é', 'ß', '中', '🙂', '\u0000', '\n'];

interface MCol {
  readonly key: number;
  name: string;
  readonly type: MType;
}

interface MRow {
  /** Global append order. */
  readonly seq: number;
  /** Designated timestamp (seq for a table without one). */
  readonly ts: number;
  /** Values by column key; a missing entry is the column's NULL. */
  readonly v: Value[];
  /** Older than the writer's max timestamp when appended: buffered, merged at commit. */
  readonly o3: boolean;
}

interface Snapshot {
  readonly reader: TableReader;
  readonly cols: readonly MCol[];
  readonly rows: readonly MRow[];
  readonly opened: number;
}

interface MTable {
  name: string;
  readonly by: By;
  readonly hasTs: boolean;
  cols: MCol[];
  /** Key of the designated timestamp column (renamable, never dropped). */
  readonly tsKey: number;
  maxUncommitted: number;
  o3MaxLag: number;
  readonly autoCommits: boolean;
  /** What a new reader must see, in scan order; replaced on change, never mutated (snapshots keep theirs). */
  committed: readonly MRow[];
  pending: MRow[];
  writer: TableWriter | null;
  snapshots: Snapshot[];
}

const OPS = {
  append: 34,
  commit: 12,
  rollback: 4,
  closeWriter: 3,
  verify: 7,
  intervals: 6,
  openReader: 3,
  checkReader: 3,
  addColumn: 2,
  dropColumn: 1.5,
  renameColumn: 1.5,
  truncate: 0.6,
  dropPartition: 1.5,
  setParams: 0.8,
  reopen: 1.3,
  renameTable: 0.6,
} as const;
type Op = keyof typeof OPS;

const nullOf = (c: MCol): Value => (c.type === 'BOOLEAN' ? false : null);
const cell = (r: MRow, c: MCol): Value => r.v[c.key] ?? nullOf(c);
const byTsSeq = (a: MRow, b: MRow): number => a.ts - b.ts || a.seq - b.seq;
const iso = (ts: number): string => new Date(Math.floor(ts / 1000)).toISOString();

/** Partition names by hour (every partition unit here is a whole number of hours), to keep the model fast. */
const hourNames = new Map<number, string>();

function partitionName(by: By, ts: number): string {
  if (by === 'NONE') return 'default';
  const hour = Math.floor(ts / HOUR_US);
  let s = hourNames.get(hour);
  if (s === undefined) {
    s = iso(hour * HOUR_US);
    hourNames.set(hour, s);
  }
  return s.slice(0, by === 'HOUR' ? 13 : by === 'DAY' ? 10 : 7);
}

/** The time span new rows are spread over, per partition unit. */
function unit(by: By): number {
  switch (by) {
    case 'HOUR':
      return HOUR_US;
    case 'MONTH':
      return 30 * DAY_US;
    default:
      return DAY_US;
  }
}

/** Merges rows into a sorted committed list: by (timestamp, append order), or append order without a designated timestamp. */
function mergeRows(t: MTable, rows: readonly MRow[]): readonly MRow[] {
  if (rows.length === 0) return t.committed;
  if (!t.hasTs) return [...t.committed, ...rows];
  const add = [...rows].sort(byTsSeq);
  const old = t.committed;
  const out: MRow[] = new Array(old.length + add.length);
  let i = 0,
    j = 0,
    k = 0;
  while (i < old.length && j < add.length) out[k++] = byTsSeq(old[i]!, add[j]!) <= 0 ? old[i++]! : add[j++]!;
  while (i < old.length) out[k++] = old[i++]!;
  while (j < add.length) out[k++] = add[j++]!;
  return out;
}

class ModelRun {
  readonly rng: Rng;
  readonly dir: string;
  catalog: Catalog;
  readonly tables: MTable[] = [];
  readonly history: string[] = [];
  step = 0;
  #seq = 0;
  #colKey = 0;
  #names = 0;
  #symbols = 0;
  readonly stats: Record<string, number> = {};

  constructor(seed: number, dir: string) {
    this.rng = new Rng(seed);
    this.dir = dir;
    this.catalog = this.#open();
  }

  #open(): Catalog {
    // A small reader cache, so chunks are evicted and re-read during the run.
    return openCatalog(this.dir, {
      readerCacheSize: 1 << 20,
      writerWaitMs: 100,
      maxUncommittedRows: 100_000,
      o3MaxLag: 0,
    });
  }

  log(t: MTable | null, text: string): void {
    this.history.push(`#${this.step} ${t ? t.name : '*'}: ${text}`);
    if (this.history.length > 40) this.history.shift();
  }

  count(what: string): void {
    this.stats[what] = (this.stats[what] ?? 0) + 1;
  }

  create(name: string, by: By, hasTs: boolean, maxUncommitted: number, o3MaxLag: number): void {
    const cols: MCol[] = [
      { key: this.#colKey++, name: 'ts', type: 'TIMESTAMP' },
      { key: this.#colKey++, name: 'sym', type: 'SYMBOL' },
      { key: this.#colKey++, name: 'dbl', type: 'DOUBLE' },
      { key: this.#colKey++, name: 'i', type: 'INT' },
      { key: this.#colKey++, name: 'l', type: 'LONG' },
      { key: this.#colKey++, name: 'vc', type: 'VARCHAR' },
      { key: this.#colKey++, name: 's', type: 'STRING' },
      { key: this.#colKey++, name: 'b', type: 'BOOLEAN' },
    ];
    this.catalog.create({
      name,
      columns: cols.map((c) => ({ name: c.name, type: c.type })),
      ...(hasTs ? { timestamp: 'ts', partitionBy: by } : {}),
      maxUncommittedRows: maxUncommitted,
      o3MaxLag,
    });
    this.tables.push({
      name,
      by,
      hasTs,
      cols,
      tsKey: cols[0]!.key,
      maxUncommitted,
      o3MaxLag,
      autoCommits: maxUncommitted < 10_000,
      committed: [],
      pending: [],
      writer: null,
      snapshots: [],
    });
  }

  // ---- model helpers

  committedMaxTs(t: MTable): number {
    return t.committed.length > 0 && t.hasTs ? t.committed[t.committed.length - 1]!.ts : -Infinity;
  }

  /** The writer's max timestamp: rows at or after it are in order. */
  writerMaxTs(t: MTable): number {
    let m = this.committedMaxTs(t);
    for (const r of t.pending) if (r.ts > m) m = r.ts;
    return m;
  }

  commitPending(t: MTable): void {
    t.committed = mergeRows(t, t.pending);
    t.pending = [];
  }

  async writerOf(t: MTable): Promise<TableWriter> {
    t.writer ??= await this.catalog.writer(t.name);
    return t.writer;
  }

  /** A name in a random case: names are case-insensitive. */
  anyCase(name: string): string {
    return this.rng.chance(0.1) ? name.toUpperCase() : name;
  }

  // ---- data generation

  batchSize(): number {
    const r = this.rng.float();
    if (r < 0.5) return this.rng.int(1, 50);
    if (r < 0.85) return this.rng.int(1, 500);
    return this.rng.int(1, 2000);
  }

  value(type: MType): Value {
    const rng = this.rng;
    if (type !== 'BOOLEAN' && rng.chance(0.08)) return null;
    switch (type) {
      case 'TIMESTAMP':
        return rng.int53();
      case 'LONG':
        return rng.chance(0.1) ? rng.pick([0, -1, 1, 2 ** 53 - 1, -(2 ** 53 - 1)]) : rng.int53();
      case 'INT':
        return rng.chance(0.1) ? rng.pick([0, -1, 2147483647, -2147483647]) : rng.int(-2147483647, 2147483647);
      case 'DOUBLE':
        return rng.chance(0.1)
          ? rng.pick([0, -0, Infinity, -Infinity, 5e-324, 1.7976931348623157e308])
          : (rng.float() - 0.5) * 10 ** rng.int(-5, 12);
      case 'SYMBOL':
        return rng.chance(0.03) ? `s${this.#symbols++}` : rng.pick(SYMBOLS);
      case 'VARCHAR':
      case 'STRING': {
        let s = '';
        for (let n = rng.int(0, 14); n > 0; n--) s += rng.pick(CHARS);
        return s;
      }
      case 'BOOLEAN':
        return rng.chance(0.5);
    }
  }

  /** Designated timestamps for a batch: in order, jittered, out of order, in old partitions, duplicates. */
  timestamps(t: MTable, n: number): { ts: number[]; kind: string } {
    const rng = this.rng;
    const P = unit(t.by);
    const step = Math.max(1, Math.floor(P / 4000));
    const max = this.writerMaxTs(t);
    const rows = t.committed;
    const kind = !Number.isFinite(max) ? 'inorder' : rng.weighted({ inorder: 5, jitter: 2, o3: 3, old: 1, dup: 1.5 });
    const ts: number[] = [];
    const inOrder = (): void => {
      let x = Number.isFinite(max) ? max : BASE + rng.int(0, P);
      if (rng.chance(0.5)) x += rng.int(0, Math.floor(P / 8));
      if (rng.chance(0.04)) x += rng.int(1, 3) * P;
      for (let i = 0; i < n; i++) {
        ts.push(x);
        if (!rng.chance(0.15)) x += rng.int(1, 2 * step);
      }
    };
    switch (kind) {
      case 'inorder':
        inOrder();
        break;
      case 'jitter': {
        inOrder();
        for (let k = rng.int(1, 1 + Math.floor(n / 20)); k > 0; k--) {
          const a = rng.int(0, n - 1),
            b = rng.int(0, n - 1);
          [ts[a], ts[b]] = [ts[b]!, ts[a]!];
        }
        break;
      }
      case 'o3': {
        const back = rng.pick([P / 20, P / 20, P / 4, P, 5 * P, 40 * P]);
        const lo = Math.max(BASE - 2 * P, Math.floor(max - back));
        const hi = max + P / 8;
        for (let i = 0; i < n; i++) ts.push(rng.int(lo, Math.floor(hi)));
        break;
      }
      case 'old': {
        const anchor = rows.length > 0 ? rows[rng.int(0, Math.min(rows.length - 1, 2000))]!.ts : max;
        for (let i = 0; i < n; i++) ts.push(Math.max(BASE - 2 * P, anchor + rng.int(-P, P / 4)));
        break;
      }
      case 'dup': {
        for (let i = 0; i < n; i++) {
          if (rows.length > 0 && rng.chance(0.8)) ts.push(rows[rng.int(0, rows.length - 1)]!.ts);
          else ts.push(max);
        }
        break;
      }
    }
    return { ts, kind };
  }

  // ---- operations

  async append(t: MTable): Promise<void> {
    const w = await this.writerOf(t);
    const n = this.batchSize();
    const gen = t.hasTs ? this.timestamps(t, n) : null;
    const included = t.cols.filter((c) => (t.hasTs && c.key === t.tsKey) || !this.rng.chance(0.12));
    const rows: MRow[] = [];
    let max = this.writerMaxTs(t);
    for (let i = 0; i < n; i++) {
      const v: Value[] = [];
      for (const c of included) v[c.key] = t.hasTs && c.key === t.tsKey ? gen!.ts[i]! : this.value(c.type);
      const seq = this.#seq++;
      const ts = t.hasTs ? gen!.ts[i]! : seq;
      const o3 = t.hasTs && ts < max;
      if (!o3) max = ts;
      rows.push({ seq, ts, v, o3 });
    }
    const columns: Record<string, Float64Array | Int32Array | Uint8Array | (string | null)[]> = {};
    for (const c of included) columns[this.anyCase(c.name)] = this.input(c, rows);
    const o3Rows = rows.filter((r) => r.o3).length;
    this.log(
      t,
      `append ${n} rows (${gen?.kind ?? 'no timestamp'}, ${o3Rows} out of order, columns ${included.map((c) => c.name).join(',')})`,
    );
    if (t.hasTs && t.by === 'NONE' && o3Rows > 0) {
      // QuestDB's rule: a non-partitioned table takes rows in timestamp order only; the failed
      // append rolls back everything uncommitted.
      assert.throws(
        () => w.append({ rowCount: n, columns }),
        /cannot insert rows out of order to non-partitioned table/,
      );
      t.pending = [];
      this.count('append refused (out of order, not partitioned)');
      assert.equal(w.uncommittedRows, 0, 'the refused append rolled back');
      return;
    }
    w.append({ rowCount: n, columns });
    t.pending.push(...rows);
    this.count(gen ? `append ${gen.kind}` : 'append');
    if (t.pending.length >= t.maxUncommitted) this.autoCommit(t);
    assert.equal(w.uncommittedRows, t.pending.length, 'the writer has the rows the model has pending');
  }

  /** What append() does by itself at maxUncommittedRows: commit, keeping out-of-order rows within o3MaxLag of the max timestamp. */
  autoCommit(t: MTable): void {
    const o3 = t.pending.filter((r) => r.o3).length;
    if (t.hasTs && o3 < t.maxUncommitted) {
      const lagFrom = this.writerMaxTs(t) - t.o3MaxLag;
      const keep = (r: MRow): boolean => r.o3 && r.ts >= lagFrom;
      const kept = t.pending.filter(keep);
      t.committed = mergeRows(
        t,
        t.pending.filter((r) => !keep(r)),
      );
      t.pending = kept;
      this.log(t, `automatic commit, ${kept.length} rows kept back by o3MaxLag`);
      this.count(kept.length > 0 ? 'automatic commit with lag' : 'automatic commit');
    } else {
      this.commitPending(t);
      this.log(t, 'automatic commit');
      this.count('automatic commit');
    }
  }

  input(c: MCol, rows: readonly MRow[]): Float64Array | Int32Array | Uint8Array | (string | null)[] {
    const n = rows.length;
    switch (c.type) {
      case 'TIMESTAMP':
      case 'LONG':
      case 'DOUBLE': {
        const a = new Float64Array(n);
        for (let i = 0; i < n; i++) a[i] = (rows[i]!.v[c.key] as number | null) ?? NaN;
        return a;
      }
      case 'INT': {
        const a = new Int32Array(n);
        for (let i = 0; i < n; i++) a[i] = (rows[i]!.v[c.key] as number | null) ?? INT_NULL;
        return a;
      }
      case 'BOOLEAN': {
        const a = new Uint8Array(n);
        for (let i = 0; i < n; i++) a[i] = rows[i]!.v[c.key] ? 1 : 0;
        return a;
      }
      default:
        return rows.map((r) => r.v[c.key] as string | null);
    }
  }

  async commit(t: MTable): Promise<void> {
    const w = await this.writerOf(t);
    this.log(t, `commit ${t.pending.length} rows`);
    w.commit();
    this.commitPending(t);
  }

  rollback(t: MTable): void {
    if (!t.writer) return;
    this.log(t, `rollback ${t.pending.length} rows`);
    t.writer.rollback();
    t.pending = [];
  }

  closeWriter(t: MTable): void {
    if (!t.writer) return;
    this.log(t, `close the writer, dropping ${t.pending.length} rows`);
    t.writer.close();
    t.writer = null;
    t.pending = [];
  }

  freshColumnName(t: MTable, prefix: string): string {
    for (;;) {
      const name = `${prefix}${this.#names++}`;
      if (!t.cols.some((c) => c.name.toLowerCase() === name.toLowerCase())) return name;
    }
  }

  async addColumn(t: MTable): Promise<void> {
    const w = await this.writerOf(t);
    const type = this.rng.pick(TYPES);
    // Sometimes reuse the name of a dropped column: the new one must not see the old one's files.
    const reuse = ['dbl', 'i', 'l', 'vc', 's', 'b', 'sym'].filter(
      (n) => !t.cols.some((c) => c.name.toLowerCase() === n),
    );
    const name = reuse.length > 0 && this.rng.chance(0.3) ? this.rng.pick(reuse) : this.freshColumnName(t, 'c');
    this.log(t, `add column ${name} ${type} (commits ${t.pending.length} rows)`);
    w.addColumn(name, type);
    this.commitPending(t);
    t.cols.push({ key: this.#colKey++, name, type });
  }

  async dropColumn(t: MTable): Promise<void> {
    const candidates = t.cols.filter((c) => !(t.hasTs && c.key === t.tsKey));
    if (t.cols.length <= 2 || candidates.length === 0) return;
    const w = await this.writerOf(t);
    const c = this.rng.pick(candidates);
    this.log(t, `drop column ${c.name} (commits ${t.pending.length} rows)`);
    w.dropColumn(this.anyCase(c.name));
    this.commitPending(t);
    t.cols = t.cols.filter((x) => x !== c);
  }

  async renameColumn(t: MTable): Promise<void> {
    const w = await this.writerOf(t);
    const c = this.rng.pick(t.cols);
    const flipped = c.name === c.name.toUpperCase() ? c.name.toLowerCase() : c.name.toUpperCase();
    const to = flipped !== c.name && this.rng.chance(0.3) ? flipped : this.freshColumnName(t, 'r');
    this.log(t, `rename column ${c.name} to ${to} (commits ${t.pending.length} rows)`);
    w.renameColumn(this.anyCase(c.name), to);
    this.commitPending(t);
    c.name = to;
  }

  async truncate(t: MTable): Promise<void> {
    const w = await this.writerOf(t);
    this.log(t, `truncate (drops ${t.pending.length} pending rows)`);
    w.truncate();
    t.pending = [];
    t.committed = [];
  }

  partitionsOf(rows: readonly MRow[], t: MTable): string[] {
    const names = new Set<string>();
    for (const r of rows) names.add(partitionName(t.by, r.ts));
    return [...names];
  }

  async dropPartition(t: MTable): Promise<void> {
    if (!t.hasTs) return;
    const w = await this.writerOf(t);
    if (t.by === 'NONE') {
      this.log(t, 'drop partition default of a table that is not partitioned');
      assert.throws(
        () => w.dropPartition('default'),
        (e: unknown) => e instanceof SvcError && e.code === 'BAD_REQUEST' && /table is not partitioned/.test(e.message),
      );
      assert.equal(w.uncommittedRows, t.pending.length, 'a refused partition drop commits nothing');
      return;
    }
    const names = this.partitionsOf(t.committed, t);
    if (names.length === 0 || this.rng.chance(0.08)) {
      const name = this.rng.pick(['1999-01-01', '2099-12', 'default2', '2024-13-01']);
      if (names.includes(name)) return;
      this.log(t, `drop partition ${name}, which does not exist`);
      assert.throws(
        () => w.dropPartition(name),
        (e: unknown) => e instanceof SvcError && e.code === 'BAD_REQUEST' && /partition does not exist/.test(e.message),
      );
      assert.equal(w.uncommittedRows, t.pending.length, 'a refused partition drop commits nothing');
      return;
    }
    // Mostly the oldest partitions, as a retention job would.
    const name = this.rng.chance(0.6) ? names[0]! : this.rng.pick(names);
    this.log(t, `drop partition ${name} (commits ${t.pending.length} rows first)`);
    w.dropPartition(name);
    this.commitPending(t);
    t.committed = t.committed.filter((r) => partitionName(t.by, r.ts) !== name);
  }

  async setParams(t: MTable): Promise<void> {
    const w = await this.writerOf(t);
    const maxUncommitted = t.autoCommits ? this.rng.int(100, 1500) : 100_000;
    const P = unit(t.by);
    const o3MaxLag = this.rng.pick([0, 0, P / 20, P / 4, P]);
    this.log(
      t,
      `set maxUncommittedRows=${maxUncommitted} o3MaxLag=${o3MaxLag} (${t.pending.length} rows stay pending)`,
    );
    w.setParams({ maxUncommittedRows: maxUncommitted, o3MaxLag });
    t.maxUncommitted = maxUncommitted;
    t.o3MaxLag = o3MaxLag;
    assert.equal(w.uncommittedRows, t.pending.length, 'setting parameters commits nothing');
  }

  async renameTable(t: MTable): Promise<void> {
    this.closeWriter(t);
    const base = t.name.replace(/_\d+$/, '');
    const to = this.rng.chance(0.2) ? t.name.toUpperCase() : `${base}_${this.#names++}`;
    this.log(t, `rename table to ${to}`);
    await this.catalog.rename(t.name, to);
    t.name = to;
  }

  /** Closes the catalog (writers closed or abandoned as if the process stopped) and opens it again. */
  reopen(): void {
    this.log(null, 'reopen the catalog: check and close the open readers');
    for (const t of this.tables) {
      for (const s of t.snapshots) this.checkSnapshot(t, s);
      for (const s of t.snapshots) s.reader.close();
      t.snapshots = [];
    }
    const abandoned: string[] = [];
    for (const t of this.tables) {
      if (t.writer && this.rng.chance(0.3)) {
        abandoned.push(`${t.name} (${t.pending.length} pending)`);
        this.abandon(t.writer, t);
        this.count('abandoned writer');
      } else {
        t.writer?.close();
      }
      t.writer = null;
      t.pending = [];
    }
    this.log(
      null,
      `reopen the catalog${abandoned.length > 0 ? `, abandoning the writers of ${abandoned.join(', ')}` : ''}`,
    );
    this.catalog.close();
    this.catalog = this.#open();
    assert.deepEqual(this.catalog.problems, [], 'every table opens cleanly');
    for (const t of this.tables) {
      checkTableFolder(join(this.dir, t.name));
      this.verify(t, 'after reopen');
    }
  }

  /**
   * Leaves a writer as a killed process would, nothing rolled back: what it had
   * buffered is either lost or (as if it had been flushed just before) written
   * past the committed sizes. Goes through the writer's internal partition
   * list, which also frees the files it holds.
   */
  abandon(w: TableWriter, t: MTable): void {
    const flushed = this.rng.chance(0.5);
    for (const p of w.parts.values()) {
      for (const a of p.appenders.values()) {
        if (flushed) a.flush();
        a.discard();
      }
      p.appenders.clear();
    }
    if (flushed) for (const d of this.catalog.get(t.name).dicts.values()) d.flush('nosync');
  }

  // ---- reads

  /** A random column list for a scan (undefined: all, in table order). */
  scanColumns(cols: readonly MCol[]): { names: string[] | undefined; chosen: MCol[] } {
    if (this.rng.chance(0.4)) return { names: undefined, chosen: [...cols] };
    const chosen = cols.filter(() => this.rng.chance(0.6));
    if (chosen.length === 0) chosen.push(this.rng.pick(cols));
    for (let i = chosen.length - 1; i > 0; i--) {
      const j = this.rng.int(0, i);
      [chosen[i], chosen[j]] = [chosen[j]!, chosen[i]!];
    }
    return { names: chosen.map((c) => this.anyCase(c.name)), chosen };
  }

  batchRows(rows: number): number | undefined {
    // Tiny batches only on small tables: each batch reads every column's files.
    const pick = this.rng.pick([undefined, 1, 3, 64, 1000, 4096, 100_000]);
    return pick !== undefined && pick < 64 && rows > 1000 ? 250 : pick;
  }

  /** Scans `r` and compares with `rows` (already filtered to what the scan covers). */
  compare(
    what: string,
    t: MTable,
    r: TableReader,
    cols: readonly MCol[],
    rows: readonly MRow[],
    intervals?: Interval[],
  ): void {
    const { names, chosen } = this.scanColumns(cols);
    const batchRows = this.batchRows(rows.length);
    const backwards = this.rng.chance(0.2);
    const opts = { columns: names, batchRows, backwards, intervals };
    const where = `${what} [scan ${JSON.stringify({ ...opts, intervals: intervals?.map(([a, b]) => `${iso(a)}..${iso(b)}`) })}]`;
    let res: ReturnType<typeof scanValues>;
    try {
      res = scanValues(r, opts);
    } catch (e) {
      throw new Error(`${where}: the scan failed: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    for (let c = 0; c < chosen.length; c++) {
      const col = chosen[c]!;
      const got = res.columns[c]!;
      if (got.length !== rows.length) {
        assert.fail(`${where}: column ${col.name} has ${got.length} rows, the model ${rows.length}`);
      }
      for (let i = 0; i < rows.length; i++) {
        const want = cell(rows[i]!, col);
        if (!sameValue(got[i]!, want)) {
          const row = rows[i]!;
          const ts = t.hasTs ? `, ts ${row.ts} ${iso(row.ts)}` : '';
          assert.fail(
            `${where}: row ${i} of ${rows.length} (model seq ${row.seq}${ts}), column ${col.name} ${col.type}: expected ${show(want)}, got ${show(got[i])}`,
          );
        }
      }
    }
  }

  checkShape(what: string, t: MTable, r: TableReader, cols: readonly MCol[], rows: readonly MRow[]): void {
    assert.equal(r.rowCount, rows.length, `${what}: row count`);
    assert.deepEqual(
      r.meta.columns.map((c) => `${c.name} ${c.type}`),
      cols.map((c) => `${c.name} ${c.type}`),
      `${what}: columns`,
    );
    const want: Array<{ name: string; rows: number; minTs?: number; maxTs?: number }> = [];
    for (const row of rows) {
      const name = partitionName(t.by, row.ts);
      let p = want[want.length - 1];
      if (!p || p.name !== name) {
        p = { name, rows: 0, minTs: row.ts };
        want.push(p);
      }
      p.rows++;
      p.maxTs = row.ts;
    }
    const got = r.partitions.map((p) => ({ name: p.name, rows: p.rows, minTs: p.minTs, maxTs: p.maxTs }));
    if (!t.hasTs) {
      for (const p of got) {
        delete (p as { minTs?: number }).minTs;
        delete (p as { maxTs?: number }).maxTs;
      }
      for (const p of want) {
        p.name = 'default';
        delete p.minTs;
        delete p.maxTs;
      }
    }
    assert.deepEqual(got, want, `${what}: partitions`);
  }

  verify(t: MTable, what = 'read'): void {
    const r = this.catalog.reader(t.name);
    try {
      this.checkShape(`${t.name} ${what}`, t, r, t.cols, t.committed);
      this.compare(`${t.name} ${what}`, t, r, t.cols, t.committed);
    } finally {
      r.close();
    }
    this.count('full scan');
  }

  randomIntervals(rows: readonly MRow[], by: By): Interval[] {
    const rng = this.rng;
    const P = unit(by);
    const lo = rows.length > 0 ? rows[0]!.ts : BASE;
    const hi = rows.length > 0 ? rows[rows.length - 1]!.ts : BASE + P;
    const points: number[] = [];
    for (let k = 2 * rng.int(1, 3); k > 0; k--) {
      const f = rng.float();
      if (f < 0.45 && rows.length > 0) points.push(rows[rng.int(0, rows.length - 1)]!.ts + rng.pick([0, 0, 1, -1]));
      else if (f < 0.6) points.push(Math.floor((lo + rng.int(0, Math.max(0, Math.floor((hi - lo) / P)))) / P) * P);
      else points.push(rng.int(lo - P, hi + P));
    }
    points.sort((a, b) => a - b);
    const out: Interval[] = [];
    for (let i = 0; i < points.length; i += 2) out.push([points[i]!, points[i + 1]!]);
    return out;
  }

  intervals(t: MTable, r: TableReader, cols: readonly MCol[], rows: readonly MRow[], what: string): void {
    if (!t.hasTs) return;
    const iv = this.randomIntervals(rows, t.by);
    const want = rows.filter((row) => iv.some(([a, b]) => row.ts >= a && row.ts < b));
    this.compare(`${t.name} ${what}`, t, r, cols, want, iv);
    this.count('interval scan');
  }

  checkSnapshot(t: MTable, s: Snapshot): void {
    const what = `snapshot opened at step ${s.opened}`;
    this.checkShape(`${t.name} ${what}`, t, s.reader, s.cols, s.rows);
    this.compare(`${t.name} ${what}`, t, s.reader, s.cols, s.rows);
    if (this.rng.chance(0.5)) this.intervals(t, s.reader, s.cols, s.rows, what);
    this.count('snapshot check');
  }

  async run(steps: number): Promise<void> {
    for (this.step = 0; this.step < steps; this.step++) {
      const t = this.rng.pick(this.tables);
      let op = this.rng.weighted(OPS);
      if (t.committed.length + t.pending.length > MAX_ROWS)
        op = t.hasTs && this.rng.chance(0.7) ? 'dropPartition' : 'truncate';
      if (SKIP.has(op)) continue;
      await this.apply(op, t);
      if (op !== 'verify' && op !== 'intervals' && op !== 'checkReader' && op !== 'reopen') {
        const r = this.catalog.reader(t.name);
        try {
          assert.equal(r.rowCount, t.committed.length, `${t.name}: committed row count after ${op}`);
        } finally {
          r.close();
        }
      }
    }
  }

  async apply(op: Op, t: MTable): Promise<void> {
    this.count(op);
    switch (op) {
      case 'append':
        return this.append(t);
      case 'commit':
        return this.commit(t);
      case 'rollback':
        return this.rollback(t);
      case 'closeWriter':
        return this.closeWriter(t);
      case 'verify':
        this.log(t, 'full scan');
        return this.verify(t);
      case 'intervals': {
        this.log(t, 'interval scan');
        const r = this.catalog.reader(t.name);
        try {
          this.intervals(t, r, t.cols, t.committed, 'interval scan');
        } finally {
          r.close();
        }
        return;
      }
      case 'openReader': {
        if (t.snapshots.length >= 3) return;
        this.log(t, `open a reader kept across later changes (${t.committed.length} rows)`);
        t.snapshots.push({
          reader: this.catalog.reader(t.name),
          cols: t.cols.map((c) => ({ ...c })),
          rows: t.committed,
          opened: this.step,
        });
        return;
      }
      case 'checkReader': {
        const s = t.snapshots.length > 0 ? this.rng.pick(t.snapshots) : null;
        if (!s) return;
        this.log(t, `check the reader opened at step ${s.opened}`);
        this.checkSnapshot(t, s);
        if (this.rng.chance(0.5)) {
          s.reader.close();
          t.snapshots = t.snapshots.filter((x) => x !== s);
        }
        return;
      }
      case 'addColumn':
        return this.addColumn(t);
      case 'dropColumn':
        return this.dropColumn(t);
      case 'renameColumn':
        return this.renameColumn(t);
      case 'truncate':
        return this.truncate(t);
      case 'dropPartition':
        return this.dropPartition(t);
      case 'setParams':
        return this.setParams(t);
      case 'reopen':
        return this.reopen();
      case 'renameTable':
        return this.renameTable(t);
    }
  }

  /** Final checks: every snapshot and table, then one more reopen. */
  finish(): void {
    this.step = -1;
    for (const t of this.tables) this.verify(t, 'at the end');
    this.reopen();
    for (const t of this.tables) t.writer?.close();
    this.catalog.close();
  }
}

test(`random appends, commits, rollbacks, DDL and reopens read back as the model says (seed ${SEED}, ${STEPS} steps)`, async (ctx) => {
  const tmp = tempRoot('svcdb-model-');
  const run = new ModelRun(SEED, tmp.dir);
  const started = Date.now();
  try {
    run.create('day', 'DAY', true, 100_000, 0);
    run.create('hour', 'HOUR', true, run.rng.int(100, 400), HOUR_US / 4);
    run.create('month', 'MONTH', true, run.rng.int(300, 800), 5 * DAY_US);
    run.create('nonets', 'NONE', true, 100_000, 0);
    run.create('plain', 'NONE', false, run.rng.int(500, 1500), 0);
    await run.run(STEPS);
    run.finish();
  } catch (e) {
    const where = `seed ${SEED} (SVCDB_MODEL_SEED=${SEED} SVCDB_MODEL_STEPS=${STEPS}), step ${run.step}; recent operations:\n  ${run.history.join('\n  ')}`;
    try {
      run.catalog.close();
    } catch {
      /* the failure above is what matters */
    }
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n${where}`, { cause: e });
  } finally {
    tmp.remove();
  }
  ctx.diagnostic(`seed ${SEED}, ${STEPS} steps in ${Date.now() - started} ms: ${JSON.stringify(run.stats)}`);
});
