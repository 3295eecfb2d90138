// Parquet export benchmark: the 10M-row trades table of bench:sql exported by
// svcdb (lib/export/parquet through the /exp code path, to a file) with ZSTD
// level 9 and SNAPPY, against DuckDB's `COPY (SELECT ...) TO 'x.parquet'`
// single-threaded on the same data, in one run. Each export runs in its own
// child process so its peak RSS is its own. Usage: npm run bench:parquet
// (installs @duckdb/node-api without saving), or node
// dist/benchmarks/parquet.js [--rows N]. svcdb runs with parquet_version 2
// (the default: the timestamp delta-encoded) and 1 (PLAIN, as DuckDB writes).
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { compile } from '../lib/exec/engine.js';
import { parseParquetOptions } from '../lib/export/parquet/options.js';
import { parquetBody, planParquet, sourceTable } from '../lib/export/parquet/parquet-writer.js';
import { sharedFormatPool } from '../lib/export/format-pool.js';
import { Catalog } from '../lib/storage/catalog.js';
import { duckdbConnection } from './duckdb.js';
import { duckdbTradesTable, SYMBOLS, writeTradesTable } from './trades-table.js';
import { ENGINE } from '../test/helpers/engine.js';

const arg = (name: string, def: string): string => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : def;
};
const ROWS = Number(arg('--rows', '10000000'));
const VERSION = arg('--version', '2');
// The exporting child keeps a 64 MiB reader cache, so its peak RSS is mostly the export's own.
const catalogOpts = {
  commitMode: 'nosync' as const,
  writerWaitMs: 1000,
  readerCacheSize: 64 * 1024 ** 2,
  maxUncommittedRows: 1_000_000,
  o3MaxLag: 0,
};

interface Result {
  ms: number;
  bytes: number;
  rssMiB: number;
}

async function load(dir: string): Promise<void> {
  const catalog = Catalog.open(join(dir, 'db'), { ...catalogOpts, readerCacheSize: 2 * 1024 ** 3 });
  await writeTradesTable(catalog, ROWS);
  catalog.close();
}

/** Child: svcdb exports the table with `codec` to `out`. */
async function svcdbExport(dir: string, codec: string, out: string): Promise<Result> {
  const catalog = Catalog.open(join(dir, 'db'), catalogOpts);
  const t0 = performance.now();
  const stmt = compile('select * from trades', { ...ENGINE, catalog });
  if (stmt.kind !== 'select') throw new Error('not a select');
  const options = parseParquetOptions(new URLSearchParams({ compression_codec: codec, parquet_version: VERSION }));
  const plan = planParquet(stmt.fields, stmt.timestamp, sourceTable(stmt.plan), options);
  const body = parquetBody(
    plan,
    stmt.execute(new AbortController().signal),
    null,
    { sent: 0, matched: 0 },
    sharedFormatPool(),
  );
  await pipeline(Readable.from(body, { highWaterMark: 2 }), createWriteStream(out));
  const ms = performance.now() - t0;
  return { ms, bytes: statSync(out).size, rssMiB: process.resourceUsage().maxRSS / 1024 };
}

interface DuckConnection {
  run(sql: string): Promise<unknown>;
}

/** Child: DuckDB (one thread) builds the same table in memory and times COPY ... TO parquet. */
async function duckExport(codec: string, out: string): Promise<Result> {
  const duck = await duckdbConnection<DuckConnection>();
  await duck.run(duckdbTradesTable(ROWS));
  const t0 = performance.now();
  await duck.run(`copy (select * from trades) to '${out}' (format parquet, compression ${codec})`);
  const ms = performance.now() - t0;
  return { ms, bytes: statSync(out).size, rssMiB: process.resourceUsage().maxRSS / 1024 };
}

function child(args: string[]): Result {
  const text = execFileSync(process.execPath, [fileURLToPath(import.meta.url), ...args], {
    encoding: 'utf8',
    maxBuffer: 1 << 20,
  });
  return JSON.parse(text.trim().split('\n').pop()!) as Result;
}

async function main(): Promise<void> {
  const mode = process.argv[2];
  if (mode === '--child-svcdb') {
    console.log(JSON.stringify(await svcdbExport(process.argv[3]!, process.argv[4]!, process.argv[5]!)));
    return;
  }
  if (mode === '--child-duckdb') {
    console.log(JSON.stringify(await duckExport(process.argv[3]!, process.argv[4]!)));
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'svcdb-bench-parquet-'));
  try {
    console.log(
      `parquet export benchmark: ${ROWS.toLocaleString()} rows (ts, sym SYMBOL x${SYMBOLS}, price DOUBLE, amount DOUBLE), ${cpus().length} cores, Node ${process.version}`,
    );
    const t0 = performance.now();
    await load(dir);
    console.log(`  svcdb load ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const MB = 1e6;
    const rawMB = (ROWS * 28) / MB; // 8 (ts) + 4 (symbol key) + 8 + 8 bytes of column data per row
    console.log(
      '| codec | parquet_version | svcdb time | svcdb rows/s | svcdb MB/s (column data / file) | svcdb file | svcdb peak RSS | DuckDB time | DuckDB file | time ratio | size ratio |',
    );
    console.log('|---|---|---|---|---|---|---|---|---|---|---|');
    for (const [codec, duckCodec] of [
      ['ZSTD', 'zstd'],
      ['SNAPPY', 'snappy'],
    ] as const) {
      const d = child(['--child-duckdb', duckCodec, join(dir, `duck-${codec}.parquet`), '--rows', String(ROWS)]);
      for (const version of ['2', '1']) {
        const s = child([
          '--child-svcdb',
          dir,
          codec,
          join(dir, `svcdb-${codec}-${version}.parquet`),
          '--rows',
          String(ROWS),
          '--version',
          version,
        ]);
        const sec = s.ms / 1000;
        console.log(
          `| ${codec}${codec === 'ZSTD' ? ' (svcdb level 9, DuckDB its default)' : ''} | ${version} | ${sec.toFixed(2)} s | ${(ROWS / sec / 1e6).toFixed(2)}M | ${(rawMB / sec).toFixed(0)} / ${(s.bytes / MB / sec).toFixed(1)} | ${(s.bytes / MB).toFixed(1)} MB | ${s.rssMiB.toFixed(0)} MiB | ${(d.ms / 1000).toFixed(2)} s | ${(d.bytes / MB).toFixed(1)} MB | ${(s.ms / d.ms).toFixed(2)}x | ${(s.bytes / d.bytes).toFixed(2)}x |`,
        );
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
