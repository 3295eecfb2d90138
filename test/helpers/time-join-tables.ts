// The random tables of the time-join differential tests (WINDOW JOIN, HORIZON JOIN): a catalog in
// a temporary folder, seeded rows with duplicate timestamps and NULL keys and values, and the
// statements that make and fill (ts TIMESTAMP, k SYMBOL, v DOUBLE) tables.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Catalog } from '../../lib/storage/catalog.js';
import { compile } from '../../lib/exec/engine.js';
import { mulberry32 } from './prng.js';
import { ENGINE } from './engine.js';

export interface Row {
  ts: number;
  k: string | null;
  v: number | null;
}

export const KEYS = ['a', 'b', 'c', 'd'];

export interface TimeJoinTables {
  readonly catalog: Catalog;
  readonly signal: AbortSignal;
  /** Uniform in [0, 1), seeded. */
  readonly rand: () => number;
  /** Uniform integer in [0, n). */
  readonly int: (n: number) => number;
  /** Runs a DDL statement. */
  exec(sql: string): Promise<void>;
  /** `n` rows from 2024-01-01 on, steps of up to `step` seconds (a quarter of them 0: duplicate timestamps). */
  makeRows(n: number, step: number): Row[];
  /** Appends the rows to `table` and commits. */
  fill(table: string, rows: Row[]): Promise<void>;
  /** Closes the catalog and removes the folder. */
  remove(): void;
}

export function timeJoinTables(prefix: string, seed: number): TimeJoinTables {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const catalog = Catalog.open(join(root, 'db'), {
    commitMode: 'nosync',
    writerWaitMs: 1000,
    readerCacheSize: 64 << 20,
    maxUncommittedRows: 1_000_000,
    o3MaxLag: 0,
  });
  const signal = new AbortController().signal;
  const rand = mulberry32(seed);
  const int = (n: number): number => Math.floor(rand() * n);
  return {
    catalog,
    signal,
    rand,
    int,
    async exec(sql) {
      const s = compile(sql, { ...ENGINE, catalog });
      assert.ok(s.kind === 'ddl');
      await s.execute(signal);
    },
    makeRows(n, step) {
      const out: Row[] = [];
      let ts = Date.UTC(2024, 0, 1) * 1000;
      for (let i = 0; i < n; i++) {
        ts += int(4) === 0 ? 0 : int(step) * 1_000_000;
        out.push({ ts, k: rand() < 0.1 ? null : KEYS[int(KEYS.length)]!, v: rand() < 0.15 ? null : int(41) - 20 });
      }
      return out;
    },
    async fill(table, rows) {
      const w = await catalog.writer(table);
      w.append({
        rowCount: rows.length,
        columns: {
          ts: Float64Array.from(rows, (r) => r.ts),
          k: rows.map((r) => r.k),
          v: Float64Array.from(rows, (r) => (r.v === null ? NaN : r.v)),
        },
      });
      w.commit();
      w.close();
    },
    remove() {
      catalog.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
