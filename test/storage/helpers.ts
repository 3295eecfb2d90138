// Shared helpers of the storage model and crash tests: a seeded PRNG, a catalog
// in a temporary folder, scans read back as plain column values, a check that a
// table folder holds exactly what its last commit references, and the crash workload.
import assert from 'node:assert/strict';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Catalog, type CatalogOptions, type CreateTableDef } from '../../lib/storage/catalog.js';
import { typeInfo, type ColumnType } from '../../lib/core/column-type.js';
import type { ColumnVector } from '../../lib/core/column-vector.js';
import type { ScanOptions, TableReader } from '../../lib/storage/table-reader.js';

export const HOUR_US = 3_600_000_000;
export const DAY_US = 24 * HOUR_US;
export const INT_NULL = -0x80000000;
export const LONG_NULL = -9223372036854775808;

// ---- randomness

import { mulberry32 } from '../helpers/prng.js';

export { mulberry32 };

export class Rng {
  readonly #next: () => number;

  constructor(seed: number) {
    this.#next = mulberry32(seed);
  }

  float(): number {
    return this.#next();
  }

  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.#next() * (hi - lo + 1));
  }

  /** A safe integer in [-2^52, 2^52), with all 53 bits random. */
  int53(): number {
    return Math.floor(this.#next() * 2 ** 21) * 2 ** 32 + Math.floor(this.#next() * 2 ** 32) - 2 ** 52;
  }

  chance(p: number): boolean {
    return this.#next() < p;
  }

  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new Error('pick from an empty list');
    return xs[Math.floor(this.#next() * xs.length)]!;
  }

  /** A key of `weights`, with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as Array<[K, number]>;
    let total = 0;
    for (const [, w] of entries) total += w;
    let x = this.#next() * total;
    for (const [k, w] of entries) {
      if (x < w) return k;
      x -= w;
    }
    return entries[entries.length - 1]![0];
  }
}

/** A seed from an environment variable (decimal or 0x hex), or the default. */
export function envInt(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, got ${text}`);
  return n;
}

// ---- catalogs

export interface TempRoot {
  readonly root: string;
  /** <root>/db: where the catalog lives. */
  readonly dir: string;
  remove(): void;
}

export function tempRoot(prefix: string): TempRoot {
  const root = mkdtempSync(join(tmpdir(), prefix));
  return { root, dir: join(root, 'db'), remove: () => rmSync(root, { recursive: true, force: true }) };
}

export function openCatalog(dir: string, o: Partial<CatalogOptions> = {}): Catalog {
  return Catalog.open(dir, {
    commitMode: 'nosync',
    writerWaitMs: 1000,
    readerCacheSize: 1 << 20,
    maxUncommittedRows: 500_000,
    o3MaxLag: 0,
    ...o,
  });
}

// ---- reading back

/** A column value in plain form: NULL is null, BOOLEAN a boolean, TIMESTAMP/LONG/INT/DOUBLE numbers. */
export type Value = number | string | boolean | null;

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Row i of a vector as a plain value. */
export function valueAt(v: ColumnVector, i: number): Value {
  switch (v.kind) {
    case 'symbol': {
      const k = v.keys[i]!;
      if (k < 0) return null;
      // A key past the dictionary is a bug, not a value: show it as such.
      return k < v.dict.length ? v.dict[k]! : `<symbol key ${k} past a dictionary of ${v.dict.length}>`;
    }
    case 'var':
      return v.nulls?.[i] ? null : decoder.decode(v.bytes.subarray(v.offsets[i]!, v.offsets[i + 1]!));
    case 'fixed': {
      const x = v.data[i]!;
      switch (v.type) {
        case 'DOUBLE':
        case 'FLOAT':
          return Number.isNaN(x) ? null : x;
        case 'INT':
          return x === INT_NULL ? null : x;
        case 'LONG':
        case 'DATE':
        case 'TIMESTAMP':
          return x === LONG_NULL ? null : x;
        case 'BOOLEAN':
          return x !== 0;
        default:
          return x;
      }
    }
  }
}

function vectorRows(v: ColumnVector): number {
  switch (v.kind) {
    case 'symbol':
      return v.keys.length;
    case 'var':
      return v.offsets.length - 1;
    case 'fixed':
      return v.data.length / typeInfo(v.type).stride;
  }
}

export interface ScanResult {
  /** One array of values per scanned column. */
  readonly columns: Value[][];
  readonly batchSizes: number[];
}

/**
 * Every row of a scan, column by column. Checks the batch shape on the way:
 * no empty batch, none above batchRows, every vector as long as its batch.
 * `backwards` batches are put back in ascending order.
 */
export function scanValues(r: TableReader, opts: ScanOptions = {}): ScanResult {
  const batches: Array<{ rowCount: number; columns: readonly ColumnVector[] }> = [];
  for (const b of r.scan(opts)) {
    assert.ok(b.rowCount > 0, 'a scan yields no empty batch');
    if (opts.batchRows !== undefined)
      assert.ok(b.rowCount <= opts.batchRows, `batch of ${b.rowCount} rows above batchRows ${opts.batchRows}`);
    for (const v of b.columns) assert.equal(vectorRows(v), b.rowCount, 'every vector has the batch row count');
    batches.push(b);
  }
  if (opts.backwards) batches.reverse();
  const width = opts.columns?.length ?? r.meta.columns.length;
  const columns: Value[][] = Array.from({ length: width }, () => []);
  for (const b of batches) {
    assert.equal(b.columns.length, width, 'a batch has the requested columns');
    for (let c = 0; c < width; c++) {
      const v = b.columns[c]!;
      const out = columns[c]!;
      for (let i = 0; i < b.rowCount; i++) out.push(valueAt(v, i));
    }
  }
  return { columns, batchSizes: batches.map((b) => b.rowCount) };
}

export function sameValue(a: Value, b: Value): boolean {
  return a === b || (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b));
}

/** A value for messages: strings quoted, so '' and null differ. */
export function show(v: Value | undefined): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

// ---- on-disk hygiene

interface DiskMeta {
  version: number;
  columns: Array<{ id: number; name: string; type: ColumnType; addedTxn: number }>;
}
interface DiskTxn {
  txn: number;
  metaVersion: number;
  partitions: Array<{ name: string; dir: string; rows: number; minTs: number; maxTs: number }>;
  symbols: Record<string, { count: number; bytes: number }>;
}

export function readTxnFile(tableDir: string): DiskTxn {
  return JSON.parse(readFileSync(join(tableDir, '_txn'), 'utf8')) as DiskTxn;
}

function readInt64At(path: string, pos: number): number {
  const b = Buffer.alloc(8);
  const fd = openSync(path, 'r');
  try {
    assert.equal(readSync(fd, b, 0, 8, pos), 8, `${path} has 8 bytes at ${pos}`);
  } finally {
    closeSync(fd);
  }
  return Number(b.readBigInt64LE(0));
}

/**
 * Asserts that a table folder holds only `_txn`, the current `_meta.<v>`, one
 * dictionary per SYMBOL column and the partition folders `_txn` names; that each
 * partition folder holds only column files; and that every file has exactly
 * the committed size (nothing uncommitted left behind). Valid right after a
 * catalog opened the table (recovery ran) and before anything was written.
 */
export function checkTableFolder(tableDir: string): void {
  const txn = readTxnFile(tableDir);
  const meta = JSON.parse(readFileSync(join(tableDir, `_meta.${txn.metaVersion}`), 'utf8')) as DiskMeta;
  const symbols = meta.columns.filter((c) => c.type === 'SYMBOL');
  const allowed = new Set(['_txn', `_meta.${txn.metaVersion}`, ...txn.partitions.map((p) => p.dir)]);
  for (const c of symbols) allowed.add(`${c.id}.sym`);
  const present = readdirSync(tableDir);
  const extra = present.filter((e) => !allowed.has(e));
  assert.deepEqual(extra, [], `${tableDir} holds only what _txn references`);
  for (const p of txn.partitions) assert.ok(present.includes(p.dir), `partition folder ${p.dir} exists`);
  for (const c of symbols) {
    const path = join(tableDir, `${c.id}.sym`);
    const want = txn.symbols[String(c.id)]?.bytes ?? 0;
    const size = existsSync(path) ? statSync(path).size : 0;
    assert.equal(size, want, `${path} has the committed size`);
  }
  for (const p of txn.partitions) {
    const dir = join(tableDir, p.dir);
    const expected = new Set<string>();
    for (const c of meta.columns) {
      const info = typeInfo(c.type);
      const data = join(dir, `${c.id}.d`);
      if (!existsSync(data)) {
        assert.ok(
          Number(p.dir.slice(p.dir.lastIndexOf('.') + 1)) < c.addedTxn,
          `${data} may be absent only for a later column`,
        );
        continue;
      }
      expected.add(`${c.id}.d`);
      if (info.layout === 'var') {
        expected.add(`${c.id}.i`);
        const aux = join(dir, `${c.id}.i`);
        assert.equal(statSync(aux).size, (p.rows + 1) * 8, `${aux} has the committed size`);
        const last = readInt64At(aux, p.rows * 8);
        assert.equal(statSync(data).size, last < 0 ? -last - 1 : last, `${data} has the committed size`);
      } else {
        assert.equal(statSync(data).size, p.rows * info.width, `${data} has the committed size`);
      }
    }
    const stray = readdirSync(dir).filter((f) => !expected.has(f));
    assert.deepEqual(stray, [], `${dir} holds only column files`);
  }
}

// ---- the crash workload (crash-child.ts writes it, crash.test.ts checks it)

export const CRASH_TABLE = 'crash';
/** 2024-03-01T00:00:00Z. */
export const CRASH_BASE_TS = Date.UTC(2024, 2, 1) * 1000;

export const crashTableDef: CreateTableDef = {
  name: CRASH_TABLE,
  columns: [
    { name: 'ts', type: 'TIMESTAMP' },
    { name: 'id', type: 'LONG' },
    { name: 'sym', type: 'SYMBOL' },
    { name: 'd', type: 'DOUBLE' },
    { name: 's', type: 'VARCHAR' },
    { name: 'n', type: 'INT' },
  ],
  timestamp: 'ts',
  partitionBy: 'DAY',
  // Only explicit commits: the child announces each one.
  maxUncommittedRows: 1_000_000_000,
  o3MaxLag: 0,
};

const CRASH_SYMBOLS = ['alpha', 'beta', 'gamma', 'δέλτα', '東京', '', 'x🙂y'];

export function hash32(x: number): number {
  let h = Math.imul((x | 0) ^ 0x9e3779b9, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  h ^= Math.floor(x / 4294967296) | 0;
  h = Math.imul(h ^ (h >>> 16), 0x27d4eb2f);
  return (h ^ (h >>> 15)) >>> 0;
}

/** The non-timestamp columns of the crash row with this id: a pure function of the id. */
export function crashRow(id: number): { sym: string | null; d: number; s: string | null; n: number } {
  const h = hash32(id);
  return {
    sym: h % 11 === 0 ? null : CRASH_SYMBOLS[h % CRASH_SYMBOLS.length]!,
    d: h % 13 === 0 ? NaN : id * 0.5 + h / 4294967296,
    s: h % 9 === 0 ? null : `v${id}${'é'.repeat(h % 5)}`,
    n: h % 17 === 0 || (h | 0) === INT_NULL ? INT_NULL : h | 0,
  };
}

/** A checksum of a set of (id, ts) rows, independent of their order: two 32-bit sums. */
export class CrashSum {
  a = 0;
  b = 0;

  add(id: number, ts: number): void {
    const lo = ts % 4294967296,
      hi = Math.floor(ts / 4294967296);
    this.a = (this.a + hash32(id * 31 + lo)) >>> 0;
    this.b = (this.b + hash32(hi ^ hash32(id + 7))) >>> 0;
  }

  plus(o: CrashSum): CrashSum {
    const s = new CrashSum();
    s.a = (this.a + o.a) >>> 0;
    s.b = (this.b + o.b) >>> 0;
    return s;
  }

  toString(): string {
    return this.a.toString(16).padStart(8, '0') + this.b.toString(16).padStart(8, '0');
  }

  static parse(text: string): CrashSum {
    const s = new CrashSum();
    s.a = parseInt(text.slice(0, 8), 16);
    s.b = parseInt(text.slice(8, 16), 16);
    return s;
  }
}

/** Column inputs of crash rows (ids with their timestamps). */
export function crashColumns(
  ids: readonly number[],
  ts: readonly number[],
): Record<string, Float64Array | Int32Array | (string | null)[]> {
  const n = ids.length;
  const cols = {
    ts: Float64Array.from(ts),
    id: Float64Array.from(ids),
    sym: new Array<string | null>(n),
    d: new Float64Array(n),
    s: new Array<string | null>(n),
    n: new Int32Array(n),
  };
  for (let i = 0; i < n; i++) {
    const r = crashRow(ids[i]!);
    cols.sym[i] = r.sym;
    cols.d[i] = r.d;
    cols.s[i] = r.s;
    cols.n[i] = r.n;
  }
  return cols;
}
