// The 10M-row trades table of bench:sql and bench:parquet (ts every 250 ms,
// SYMBOL of 100 values, two DOUBLEs from fixed formulas), written into a
// catalog, and the DuckDB statement that builds the same rows.
import type { Catalog } from '../lib/storage/catalog.js';

export const SYMBOLS = 100;
export const BASE_TS = Date.UTC(2024, 0, 1) * 1000;
export const STEP_US = 250_000; // ~29 days over 10M rows: 29 DAY partitions

/** Creates `trades` in `catalog` and appends `rows` rows in one commit. */
export async function writeTradesTable(catalog: Catalog, rows: number): Promise<void> {
  catalog.create({
    name: 'trades',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'sym', type: 'SYMBOL' },
      { name: 'price', type: 'DOUBLE' },
      { name: 'amount', type: 'DOUBLE' },
    ],
    timestamp: 'ts',
    partitionBy: 'DAY',
  });
  const dict = Array.from({ length: SYMBOLS }, (_, i) => `S${i}`);
  const w = await catalog.writer('trades');
  const B = 500_000;
  for (let s = 0; s < rows; s += B) {
    const n = Math.min(B, rows - s);
    const ts = new Float64Array(n),
      keys = new Int32Array(n),
      price = new Float64Array(n),
      amount = new Float64Array(n);
    for (let j = 0; j < n; j++) {
      const i = s + j;
      ts[j] = BASE_TS + i * STEP_US;
      keys[j] = i % SYMBOLS;
      price[j] = ((i * 7919) % 10000) / 100;
      amount[j] = ((i * 104729) % 1000) / 10;
    }
    w.append({ rowCount: n, columns: { ts, sym: { kind: 'symbol', type: 'SYMBOL', keys, dict }, price, amount } });
  }
  w.commit();
  w.close();
}

/** DuckDB: the same rows as table `trades`. */
export function duckdbTradesTable(rows: number): string {
  return `create table trades as select
      make_timestamp(${BASE_TS}::BIGINT + i * ${STEP_US}) as ts,
      'S' || (i % ${SYMBOLS})::VARCHAR as sym,
      ((i * 7919) % 10000) / 100.0 as price,
      ((i * 104729) % 1000) / 10.0 as amount
      from range(${rows}) t(i)`;
}
