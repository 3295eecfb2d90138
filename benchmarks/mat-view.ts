// bench:matview: what an IMMEDIATE materialized view costs per committed batch as its base table
// grows. The built server as a child process, used over HTTP as a user does: a trades table made
// by CREATE TABLE (text columns VARCHAR, as an import makes them), a 1-minute OHLC view over it,
// and CSV batches appended with `curl -F data=@batch.csv /imp?name=trades` (fetch when there is
// no curl). For each base table size, batches of two sizes are appended one at a time; a batch's
// refresh time is the server's own (last_refresh_finish_timestamp - last_refresh_start_timestamp
// in materialized_views()), read once the view has caught up with the batch's commit. Beside it,
// the same SAMPLE BY run directly over the whole table (/exec timings): what rebuilding the view
// each time would cost. The claim measured: the refresh follows the batch's rows, not the table's.
// Usage: npm run bench:matview [-- --sizes 1m,5m,20m] [--batches 10k,100k] [--runs N]
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { startServer, type ServerProcess } from '../test/helpers/server-process.js';
import { median } from './stats.js';

const run = promisify(execFile);
const SYMS = Array.from({ length: 20 }, (_, i) => `SYM${String(i).padStart(2, '0')}`);
/** Rows are 10 ms apart: 6,000 rows a minute, so a 10k batch touches 2-3 one-minute buckets. */
const STEP_US = 10_000;
const START_US = Date.UTC(2024, 0, 1) * 1000;
const VIEW_QUERY =
  'SELECT ts, sym, first(price) AS open, max(price) AS high, min(price) AS low, last(price) AS close, sum(amount) AS volume FROM trades SAMPLE BY 1m';

function count(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(text.trim());
  if (!m) throw new Error(`not a row count: ${text}`);
  return Math.round(Number(m[1]) * ({ '': 1, k: 1e3, m: 1e6 }[m[2]!.toLowerCase()] ?? 1));
}

function option(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

/** Rows [from, from + n) of the trades stream as CSV with a header. */
function batchCsv(from: number, n: number): string {
  const parts: string[] = ['ts,sym,price,amount,side\n'];
  for (let i = from; i < from + n; i++) {
    const ts = new Date((START_US + i * STEP_US) / 1000).toISOString().replace('Z', '000Z');
    const price = (100 + ((i * 7919) % 1000) / 10).toFixed(2);
    parts.push(`${ts},${SYMS[i % SYMS.length]},${price},${(i % 97) + 1},${i % 3 === 0 ? 'buy' : 'sell'}\n`);
  }
  return parts.join('');
}

async function main(): Promise<void> {
  const sizes = option('sizes', '1m,5m,20m').split(',').map(count);
  const batches = option('batches', '10k,100k').split(',').map(count);
  const runs = Number(option('runs', '7'));
  const work = mkdtempSync(join(tmpdir(), 'svcdb-bench-matview-'));
  const server: ServerProcess = await startServer({});
  let curl = true;
  try {
    await run('curl', ['--version']);
  } catch {
    curl = false;
  }
  const exec = async (
    query: string,
    timings = false,
  ): Promise<{ dataset: unknown[][]; timings?: { execute: number } }> => {
    const q = new URLSearchParams({ query, ...(timings ? { timings: 'true' } : {}) });
    const r = await request(`${server.mainUrl}/exec?${q.toString()}`);
    const body = (await r.body.json()) as { dataset: unknown[][]; error?: string; timings?: { execute: number } };
    if (r.statusCode !== 200) throw new Error(`${query}: ${body.error}`);
    return body;
  };
  const append = async (from: number, n: number): Promise<void> => {
    const file = join(work, 'batch.csv');
    writeFileSync(file, batchCsv(from, n));
    const url = `${server.mainUrl}/imp?name=trades&timestamp=ts`;
    if (curl) await run('curl', ['-sS', '-f', '-o', '/dev/null', '-F', `data=@${file}`, url]);
    else {
      const fd = new FormData();
      fd.append('data', new Blob([batchCsv(from, n)]), 'batch.csv');
      const r = await fetch(url, { method: 'POST', body: fd });
      if (!r.ok) throw new Error(`import failed: ${r.status}`);
      await r.arrayBuffer();
    }
  };
  /** Waits for the view to reflect the base table's last commit; the refresh's duration in ms. */
  const refreshed = async (): Promise<number> => {
    for (;;) {
      const [[done, base, start, finish, status]] = (
        await exec(
          "SELECT refresh_base_table_txn, base_table_txn, cast(last_refresh_start_timestamp AS LONG), cast(last_refresh_finish_timestamp AS LONG), view_status FROM materialized_views() WHERE view_name = 'trades_1m'",
        )
      ).dataset as [[number, number, number, number, string]];
      if (status !== 'valid') throw new Error('the view became invalid');
      if (done === base) return (finish - start) / 1000;
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  try {
    await exec(
      'CREATE TABLE trades (ts TIMESTAMP, sym VARCHAR, price DOUBLE, amount DOUBLE, side VARCHAR) TIMESTAMP(ts) PARTITION BY DAY WAL',
    );
    await exec(`CREATE MATERIALIZED VIEW trades_1m AS (${VIEW_QUERY}) PARTITION BY DAY`);
    let rows = 0;
    const table: string[] = [];
    console.log(
      `1-minute OHLC view over trades (20 VARCHAR symbols, rows 10 ms apart); medians of ${runs} batches each`,
    );
    for (const size of sizes) {
      // Grow the base table to the size in 1M-row imports (the view follows each one).
      while (rows < size) {
        const n = Math.min(1_000_000, size - rows);
        await append(rows, n);
        rows += n;
        await refreshed();
      }
      const cells: string[] = [];
      for (const b of batches) {
        const times: number[] = [];
        for (let k = 0; k < runs; k++) {
          await append(rows, b);
          rows += b;
          times.push(await refreshed());
        }
        cells.push(`${median(times).toFixed(1)} ms`);
      }
      const full: number[] = [];
      for (let k = 0; k < 3; k++) full.push(((await exec(VIEW_QUERY, true)).timings?.execute ?? 0) / 1e6);
      // Check the view against the query run directly, once per size.
      const [[viewRows]] = (await exec('SELECT count() FROM trades_1m')).dataset as [[number]];
      const [[queryRows]] = (await exec(`SELECT count() FROM (${VIEW_QUERY})`)).dataset as [[number]];
      if (viewRows !== queryRows) throw new Error(`the view has ${viewRows} rows, the query ${queryRows}`);
      table.push(`| ${(size / 1e6).toFixed(0)}M | ${cells.join(' | ')} | ${median(full).toFixed(1)} ms |`);
    }
    console.log(
      `\n| base rows | ${batches.map((b) => `refresh per ${b / 1000}k-row batch`).join(' | ')} | the view's query over the whole table |`,
    );
    console.log(`|---|${batches.map(() => '---').join('|')}|---|`);
    for (const line of table) console.log(line);
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
