// Library benchmark: the 2M-row trades CSV of bench:import (~115 MB) to a Parquet file through the
// stream operators alone (csvToBatches -> batchesToParquet, no server, no table), against DuckDB's
// COPY (SELECT * FROM read_csv(...)) TO ... (FORMAT parquet) on one thread, in the same run, for
// SNAPPY (DuckDB's default codec) and ZSTD. Each run is a child process of its own, so its peak RSS
// is its own; runs alternate svcdb / DuckDB, and a figure is the median of the runs.
// Usage: npm run bench:library (installs @duckdb/node-api without saving it), or
// node dist/benchmarks/library.js [--rows N] [--runs N].
import { fork } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { parquetMetadata } from 'hyparquet';
import { batchesToParquet, csvToBatches } from '../lib/index.js';
import { duckdbConnection } from './duckdb.js';
import { writeCsv } from './trades-csv.js';
import { median } from './stats.js';

const MB = 1e6;
const MIB = 2 ** 20;
const TARGET_RATIO = 2;
/**
 * SNAPPY is DuckDB's default codec; ZSTD runs at each side's default level (svcdb 9, as QuestDB's
 * /exp; DuckDB 3), and once more with svcdb at DuckDB's level 3.
 */
const CONFIGS = {
  snappy: { label: 'SNAPPY', svcdb: { compression_codec: 'snappy' }, duckdb: 'COMPRESSION snappy' },
  zstd: {
    label: 'ZSTD, default levels (svcdb 9, DuckDB 3)',
    svcdb: { compression_codec: 'zstd' },
    duckdb: 'COMPRESSION zstd',
  },
  zstd3: {
    label: 'ZSTD level 3 both',
    svcdb: { compression_codec: 'zstd', compression_level: 3 },
    duckdb: 'COMPRESSION zstd, COMPRESSION_LEVEL 3',
  },
} as const;
type Codec = keyof typeof CONFIGS;
const CODECS = Object.keys(CONFIGS) as Codec[];
type Peer = 'svcdb' | 'duckdb';

interface RunReport {
  ms: number;
  peakRssMib: number;
  outBytes: number;
  rows: number;
  version?: string;
}

interface DuckConn {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<{ getRows(): unknown[][] }>;
}

/** In a child: one conversion, timed from the first byte read to the file closed. */
async function child(peer: Peer, codec: Codec, csv: string, out: string): Promise<void> {
  let version: string | undefined;
  let ms: number;
  if (peer === 'svcdb') {
    const t0 = performance.now();
    await pipeline(
      createReadStream(csv, { highWaterMark: 1 << 20 }),
      csvToBatches({ timestamp: 'timestamp' }),
      batchesToParquet(CONFIGS[codec].svcdb),
      createWriteStream(out),
    );
    ms = performance.now() - t0;
  } else {
    const con = await duckdbConnection<DuckConn>();
    version = String((await con.runAndReadAll('select version()')).getRows()[0]![0]);
    const t0 = performance.now();
    await con.run(
      `COPY (SELECT * FROM read_csv('${csv.replace(/'/g, "''")}')) TO '${out.replace(/'/g, "''")}' (FORMAT parquet, ${CONFIGS[codec].duckdb})`,
    );
    ms = performance.now() - t0;
  }
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
  const bytes = readFileSync(out);
  const rows = Number(parquetMetadata(new Uint8Array(bytes).buffer).num_rows);
  const report: RunReport = {
    ms,
    peakRssMib: hwm ? Number(hwm[1]) / 1024 : NaN,
    outBytes: bytes.length,
    rows,
    version,
  };
  process.send!(report);
}

function runChild(peer: Peer, codec: Codec, csv: string, out: string): Promise<RunReport> {
  return new Promise((resolve, reject) => {
    const c = fork(fileURLToPath(import.meta.url), ['--child', peer, codec, csv, out], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    let report: RunReport | null = null;
    c.on('message', (m) => {
      report = m as RunReport;
    });
    c.on('error', reject);
    c.on('exit', (code) =>
      report && code === 0 ? resolve(report) : reject(new Error(`${peer} ${codec} run failed (exit ${code})`)),
    );
  });
}

function args(argv: readonly string[]): { rows: number; runs: number } {
  let rows = 2_000_000;
  let runs = 3;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = Number(argv[++i]?.replace(/_/g, ''));
    if (a === '--rows' && Number.isInteger(v) && v >= 10_000) rows = v;
    else if (a === '--runs' && Number.isInteger(v) && v >= 1 && v <= 9) runs = v;
    else throw new Error(`usage: library [--rows N (>= 10000)] [--runs 1..9] (got ${a} ${argv[i] ?? ''})`);
  }
  return { rows, runs };
}

async function main(): Promise<void> {
  const { rows, runs } = args(process.argv.slice(2));
  const tmp = mkdtempSync(join(tmpdir(), 'svcdb-bench-library-'));
  process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));
  const csv = join(tmp, 'trades.csv');
  const csvBytes = writeCsv(csv, rows, 42);
  console.log(
    `library benchmark: ${rows.toLocaleString('en-US')} rows, ${(csvBytes / MB).toFixed(1)} MB of trades CSV (bench:import's file) -> Parquet`,
  );
  console.log(
    `  machine: ${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; load average at start ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    '  svcdb: createReadStream -> csvToBatches({ timestamp }) -> batchesToParquet({ compression_codec[, compression_level] }) -> createWriteStream, in a child process',
  );
  console.log(
    '  DuckDB: COPY (SELECT * FROM read_csv(file)) TO out (FORMAT parquet, COMPRESSION codec[, COMPRESSION_LEVEL n]), threads=1, in a child process',
  );
  console.log(
    `  ${runs} runs each, alternating; figures are medians; MB/s = CSV bytes / time; RSS = the child's peak (VmHWM)\n`,
  );

  const results: Record<string, { svcdb: RunReport[]; duckdb: RunReport[] }> = {};
  for (const codec of CODECS) {
    results[codec] = { svcdb: [], duckdb: [] };
    for (let r = 0; r < runs; r++) {
      for (const peer of ['svcdb', 'duckdb'] as const) {
        const out = join(tmp, `${peer}-${codec}.parquet`);
        const rep = await runChild(peer, codec, csv, out);
        if (rep.rows !== rows) throw new Error(`${peer} wrote ${rep.rows} rows, expected ${rows}`);
        results[codec]![peer].push(rep);
        rmSync(out, { force: true });
        console.log(
          `  ${codec} run ${r + 1} ${peer.padEnd(6)} ${(rep.ms / 1000).toFixed(2)} s, ${(rep.outBytes / MB).toFixed(1)} MB, RSS ${rep.peakRssMib.toFixed(0)} MiB`,
        );
      }
    }
  }
  const version = results.snappy!.duckdb[0]?.version ?? '?';
  console.log(`\n| codec | svcdb | DuckDB ${version} (1 thread) | time ratio | file size ratio | target |`);
  console.log('|---|---|---|---|---|---|');
  const summary: Record<string, unknown> = {};
  for (const codec of CODECS) {
    const s = results[codec]!.svcdb;
    const d = results[codec]!.duckdb;
    const sMs = median(s.map((x) => x.ms));
    const dMs = median(d.map((x) => x.ms));
    const ratio = sMs / dMs;
    const size = median(s.map((x) => x.outBytes)) / median(d.map((x) => x.outBytes));
    const cell = (ms: number, rs: RunReport[]): string =>
      `${(ms / 1000).toFixed(2)} s, ${(csvBytes / MB / (ms / 1000)).toFixed(0)} MB/s, ${(median(rs.map((x) => x.outBytes)) / MB).toFixed(1)} MB, RSS ${median(rs.map((x) => x.peakRssMib)).toFixed(0)} MiB`;
    console.log(
      `| ${CONFIGS[codec].label} | ${cell(sMs, s)} | ${cell(dMs, d)} | ${ratio.toFixed(2)}x | ${size.toFixed(2)}x | <= ${TARGET_RATIO}x: ${ratio <= TARGET_RATIO ? 'met' : 'NOT met'} |`,
    );
    summary[codec] = {
      svcdbMs: Math.round(sMs),
      duckdbMs: Math.round(dMs),
      ratio: Number(ratio.toFixed(3)),
      sizeRatio: Number(size.toFixed(3)),
      svcdbMBps: Number((csvBytes / MB / (sMs / 1000)).toFixed(1)),
    };
  }
  console.log(
    `\nload average at end ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}; CSV ${(statSync(csv).size / MIB).toFixed(0)} MiB`,
  );
  console.log(JSON.stringify({ benchmark: 'library', rows, csvBytes, duckdb: version, ...summary }));
}

if (process.argv[2] === '--child') {
  const [, , , peer, codec, csv, out] = process.argv;
  child(peer as Peer, codec as Codec, csv!, out!).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
} else {
  main().catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
