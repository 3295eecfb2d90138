// bench:realistic, the benchmark of record: a trades CSV with VARCHAR text columns imported into the
// built server over HTTP exactly as a user does (multipart POST /imp, no schema), the issue's queries
// through /exec (server-side time from timings=true) and the exports through /exp streamed to a file,
// against DuckDB's read_csv, the same queries and COPY TO on the same file, on one thread and on all
// cores, in the same run; peak RSS per phase. Prints one table per size and writes the figures as JSON.
// Usage: npm run bench:realistic [-- --rows 2m,20m,100m] [--runs N] [--import-runs N]
// [--only svcdb|duckdb] [--dir DIR].
import { execFileSync, fork } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startServer, type ServerProcess } from '../test/helpers/server-process.js';
import { csvPath, FILTER_PRICE, FILTER_SYM, partialPath, tradesCsv, type TradesCsv } from './realistic-csv.js';
import {
  cpuSeconds,
  difference,
  EXPORTS,
  peakMib,
  queries,
  resetPeak,
  summarize,
  type DuckResult,
  type DuckSpec,
  type Measured,
} from './realistic-work.js';
import { median } from './stats.js';

class UsageError extends Error {}

interface Options {
  readonly rows: number[];
  readonly runs: number;
  readonly importRuns: number;
  readonly only: 'svcdb' | 'duckdb' | null;
  readonly dir: string;
}

const USAGE = 'usage: realistic [--rows 2m[,20m,...]] [--runs N] [--import-runs N] [--only svcdb|duckdb] [--dir DIR]';

/** 2m, 500k, 2000000, 2_000_000. */
function parseCount(v: string): number {
  const m = /^(\d+(?:\.\d+)?)([km]?)$/i.exec(v.replace(/_/g, ''));
  const n = m
    ? Math.round(Number(m[1]) * (m[2]?.toLowerCase() === 'm' ? 1e6 : m[2]?.toLowerCase() === 'k' ? 1e3 : 1))
    : NaN;
  if (!Number.isInteger(n) || n < 100_000 || n > 1e9)
    throw new UsageError(`--rows needs sizes from 100k to 1000m [got ${v}]`);
  return n;
}

function parseArgs(argv: readonly string[]): Options {
  const o = {
    rows: [2_000_000],
    runs: 5,
    importRuns: 1,
    only: null as Options['only'],
    dir: join(tmpdir(), 'svcdb-bench-realistic'),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(0, eq) : a;
    const value = (): string => {
      const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
      if (v === undefined) throw new UsageError(`${name} needs a value (${USAGE})`);
      return v;
    };
    const int = (min: number, max: number): number => {
      const v = value();
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max)
        throw new UsageError(`${name} needs an integer from ${min} to ${max} [got ${v}]`);
      return n;
    };
    if (name === '--rows') o.rows = value().split(',').map(parseCount);
    else if (name === '--runs') o.runs = int(1, 100);
    else if (name === '--import-runs') o.importRuns = int(1, 20);
    else if (name === '--dir') o.dir = value();
    else if (name === '--only') {
      const v = value();
      if (v !== 'svcdb' && v !== 'duckdb') throw new UsageError(`--only takes svcdb or duckdb [got ${v}]`);
      o.only = v;
    } else throw new UsageError(`unknown argument ${a} (${USAGE})`);
  }
  return o;
}

const progress = (msg: string): void => {
  process.stderr.write(`[${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
};

// Whatever is running or written when the run ends, fails or is interrupted is undone here.
const cleanups = new Set<() => void>();
function cleanupAll(): void {
  for (const c of [...cleanups].reverse()) {
    cleanups.delete(c);
    try {
      c();
    } catch (e) {
      console.error(`cleanup failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
const rmTree = (path: string): void => rmSync(path, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });

// ---- svcdb -----------------------------------------------------------------------------------

const BOUNDARY = '----svcdb-bench-realistic-5e1c';
const NO_TIMEOUTS = { headersTimeout: 0, bodyTimeout: 0 };

/** POSTs the CSV as the `data` part of a multipart body streamed from disk, as `curl -F data=@file` does. */
async function postImport(baseUrl: string, file: string): Promise<{ rowsImported: number; rowsRejected: number }> {
  const pre = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"; filename="trades.csv"\r\nContent-Type: text/csv\r\n\r\n`,
  );
  const post = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  async function* parts(): AsyncGenerator<Buffer> {
    yield pre;
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) yield chunk as Buffer;
    yield post;
  }
  const res = await request(`${baseUrl}/imp?name=t&timestamp=ts&partitionBy=DAY&fmt=json`, {
    method: 'POST',
    headers: {
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
      'content-length': String(pre.length + statSync(file).size + post.length),
    },
    body: Readable.from(parts(), { objectMode: false }),
    ...NO_TIMEOUTS,
  });
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`POST /imp answered ${res.statusCode}: ${text}`);
  return JSON.parse(text) as { rowsImported: number; rowsRejected: number };
}

interface ExecAnswer {
  readonly dataset: unknown[][];
  readonly timings?: { compiler: number; execute: number };
}

async function exec(baseUrl: string, sql: string, timings = false): Promise<ExecAnswer> {
  const res = await request(
    `${baseUrl}/exec?query=${encodeURIComponent(sql)}${timings ? '&timings=true' : ''}`,
    NO_TIMEOUTS,
  );
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`/exec of ${sql} answered ${res.statusCode}: ${text}`);
  return JSON.parse(text) as ExecAnswer;
}

/** GET /exp streamed to `out` (as `curl -o out` does); returns the file's size. */
async function exportTo(baseUrl: string, sql: string, fmt: string, out: string): Promise<number> {
  const res = await request(
    `${baseUrl}/exp?query=${encodeURIComponent(sql)}${fmt === 'csv' ? '' : `&fmt=${fmt}`}`,
    NO_TIMEOUTS,
  );
  if (res.statusCode !== 200) throw new Error(`/exp fmt=${fmt} answered ${res.statusCode}: ${await res.body.text()}`);
  await pipeline(res.body, createWriteStream(out));
  return statSync(out).size;
}

/** The types a user's import must give: text columns VARCHAR, never SYMBOL; ts the designated timestamp. */
const EXPECTED_COLUMNS = 'ts TIMESTAMP designated, sym VARCHAR, price DOUBLE, amount DOUBLE, side VARCHAR';

/** The package's version and the checkout's commit (when it is a git checkout), for the record. */
function svcdbVersion(): string {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as {
    version: string;
  };
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
    return `${pkg.version} (${commit})`;
  } catch (e) {
    return `${pkg.version} (commit unknown: ${e instanceof Error ? e.message.split('\n')[0] : String(e)})`;
  }
}

interface SystemResult {
  readonly name: string;
  readonly version: string;
  readonly columns: string;
  readonly baseMib: number;
  readonly work: Record<string, Measured>;
}

/**
 * Times `once` `runs` + 1 times (the first is the cold run), `after` untimed after each; the
 * server's peak RSS and CPU over the phase. `once` returns the time it measured (ms) when it is not
 * the wall time (server-side timings).
 */
async function serverPhase(
  pid: number,
  runs: number,
  once: () => Promise<{ ms?: number; bytes?: number; rows?: unknown[][] }>,
  after: () => Promise<void> | void = () => undefined,
): Promise<Measured> {
  resetPeak(pid);
  const cpu0 = cpuSeconds(pid);
  const times: number[] = [];
  let last: { bytes?: number; rows?: unknown[][] } = {};
  for (let r = 0; r <= runs; r++) {
    const t0 = performance.now();
    const got = await once();
    times.push(got.ms ?? performance.now() - t0);
    last = got;
    await after();
  }
  return {
    coldMs: times[0]!,
    runsMs: times.slice(1),
    peakMib: peakMib(pid),
    cpuSeconds: cpuSeconds(pid) - cpu0,
    bytes: last.bytes ?? null,
    answer: last.rows === undefined ? null : summarize(last.rows),
  };
}

async function runSvcdb(csv: TradesCsv, o: Options): Promise<SystemResult> {
  const root = mkdtempSync(join(o.dir, 'svcdb-root-'));
  let server: ServerProcess | null = null;
  const cleanup = (): void => {
    server?.child.kill('SIGKILL');
    rmTree(root);
  };
  cleanups.add(cleanup);
  try {
    server = await startServer({ root });
    const s = server;
    const pid = s.child.pid!;
    const baseMib = peakMib(pid);
    const work: Record<string, Measured> = {};
    progress(`svcdb: POST /imp of ${csv.path}`);
    let imported = 0;
    work.import = await serverPhase(
      pid,
      o.importRuns - 1,
      async () => {
        const a = await postImport(s.mainUrl, csv.path);
        if (a.rowsImported !== csv.rows || a.rowsRejected !== 0)
          throw new Error(
            `/imp imported ${a.rowsImported} rows and rejected ${a.rowsRejected}, expected ${csv.rows} and 0`,
          );
        return {};
      },
      // Another import run needs the table gone; the last one's table stays for the queries.
      async () => {
        if (++imported < o.importRuns) await exec(s.mainUrl, 'drop table t');
      },
    );
    const cols = await exec(s.mainUrl, `select "column", type, designated from table_columns('t')`);
    const columns = cols.dataset
      .map(([n, t, d]) => `${String(n)} ${String(t)}${d === true ? ' designated' : ''}`)
      .join(', ');
    if (columns !== EXPECTED_COLUMNS)
      throw new Error(
        `the import made the columns ${columns}, not ${EXPECTED_COLUMNS} (what a user's /imp of this file makes)`,
      );
    for (const q of queries(csv)) {
      progress(`svcdb: ${q.svcdb}`);
      work[q.key] = await serverPhase(pid, o.runs, async () => {
        const a = await exec(s.mainUrl, q.svcdb, true);
        if (a.timings === undefined) throw new Error('/exec sent no timings');
        return { ms: (a.timings.compiler + a.timings.execute) / 1e6, rows: a.dataset };
      });
    }
    for (const e of EXPORTS) {
      progress(`svcdb: ${e.label}`);
      const out = join(root, `export.${e.ext}`);
      work[e.key] = await serverPhase(
        pid,
        o.runs,
        async () => ({ bytes: await exportTo(s.mainUrl, 'select * from t', e.ext, out) }),
        () => rmSync(out, { force: true }),
      );
    }
    const code = await s.stop();
    if (code !== 0) throw new Error(`the server exited with code ${code}: ${s.stderr()}`);
    return { name: 'svcdb', version: svcdbVersion(), columns, baseMib, work };
  } finally {
    cleanups.delete(cleanup);
    cleanup();
  }
}

// ---- DuckDB ----------------------------------------------------------------------------------

async function runDuckdb(csv: TradesCsv, o: Options, threads: number): Promise<SystemResult> {
  const spec: DuckSpec = {
    file: csv.path,
    threads,
    runs: o.runs,
    importRuns: o.importRuns,
    dir: o.dir,
    queries: queries(csv).map((q) => ({ key: q.key, sql: q.duckdb })),
  };
  progress(`DuckDB, ${threads} thread(s): read_csv of ${csv.path}, the queries, COPY TO`);
  const child = fork(fileURLToPath(new URL('./realistic-duckdb.js', import.meta.url)), [JSON.stringify(spec)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const kill = (): void => {
    child.kill('SIGKILL');
  };
  cleanups.add(kill);
  try {
    const result = await new Promise<DuckResult>((resolve, reject) => {
      let got: DuckResult | null = null;
      child.on('message', (m) => {
        got = m as DuckResult;
      });
      child.once('error', reject);
      child.once('exit', (code, signal) => {
        if (got !== null && code === 0) resolve(got);
        else reject(new Error(`the DuckDB child (${threads} threads) exited with ${code ?? signal}`));
      });
    });
    if (result.rows !== csv.rows) throw new Error(`DuckDB read ${result.rows} rows, expected ${csv.rows}`);
    return { name: `DuckDB ${threads}t`, ...result };
  } finally {
    cleanups.delete(kill);
    kill();
  }
}

// ---- report ----------------------------------------------------------------------------------

const mid = (m: Measured): number => (m.runsMs.length > 0 ? median(m.runsMs) : m.coldMs);

function time(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  return `${ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)} ms`;
}
const timeCell = (m: Measured | undefined): string =>
  m === undefined ? '-' : m.runsMs.length > 0 ? `${time(mid(m))} (cold ${time(m.coldMs)})` : time(m.coldMs);
const ratio = (a: Measured | undefined, b: Measured | undefined): string =>
  a === undefined || b === undefined ? '-' : (mid(a) / mid(b)).toFixed(2);
const mib = (m: Measured | undefined): string => (m === undefined ? '-' : m.peakMib.toFixed(0));
const mb = (bytes: number | null): string => (bytes === null ? '' : `${(bytes / 1e6).toFixed(0)} MB`);

interface SizeResult {
  readonly csv: TradesCsv;
  readonly svcdb: SystemResult | null;
  readonly duck1: SystemResult | null;
  readonly duckN: SystemResult | null;
  readonly warnings: string[];
}

function rowsOfWork(csv: TradesCsv): { key: string; label: string }[] {
  return [
    { key: 'import', label: 'import (/imp vs read_csv)' },
    ...queries(csv).map((q) => ({ key: q.key, label: `\`${q.svcdb}\`` })),
    ...EXPORTS.map((e) => ({ key: e.key, label: e.label })),
  ];
}

function printSize(r: SizeResult, o: Options): void {
  const threads = cpus().length;
  const n = (x: number): string => x.toLocaleString('en-US');
  const { csv } = r;
  console.log('');
  console.log(
    `## ${n(csv.rows)} rows: ${(csv.bytes / 1e6).toFixed(0)} MB of CSV over ${csv.days.toFixed(1)} days (DAY partitions); ` +
      `${o.runs} runs after a cold one, medians (cold run in parentheses)`,
  );
  console.log('');
  console.log(
    `| work | svcdb | DuckDB 1 thread | ratio | DuckDB ${threads} threads | ratio | svcdb peak RSS MiB | DuckDB peak RSS MiB (1 / ${threads} threads) |`,
  );
  console.log('|---|---|---|---|---|---|---|---|');
  for (const w of rowsOfWork(csv)) {
    const s = r.svcdb?.work[w.key];
    const d1 = r.duck1?.work[w.key];
    const dn = r.duckN?.work[w.key];
    const sizes = [s, d1].some((m) => m?.bytes != null)
      ? ` [files: svcdb ${mb(s?.bytes ?? null)}, DuckDB ${mb(d1?.bytes ?? null)}]`
      : '';
    console.log(
      `| ${w.label}${sizes} | ${timeCell(s)} | ${timeCell(d1)} | ${ratio(s, d1)} | ${timeCell(dn)} | ${ratio(s, dn)} | ${mib(s)} | ${mib(d1)} / ${mib(dn)} |`,
    );
  }
  console.log('');
  const sys = [r.svcdb, r.duck1, r.duckN].filter((x): x is SystemResult => x !== null);
  for (const x of sys)
    console.log(`${x.name} ${x.version}: columns ${x.columns}; RSS before the import ${x.baseMib.toFixed(0)} MiB`);
  console.log(
    `filter: ${n(csv.filterRows)} of the ${n(csv.symRows)} ${FILTER_SYM} rows have price > ${FILTER_PRICE}; ` +
      `svcdb query times are the server's (timings compiler + execute), DuckDB's the call's; imports and exports are wall times`,
  );
  for (const w of r.warnings) console.log(`WARNING: ${w}`);
}

function compareAnswers(csv: TradesCsv, r: Omit<SizeResult, 'warnings'>): string[] {
  const warnings: string[] = [];
  if (r.svcdb === null) return warnings;
  for (const q of queries(csv)) {
    if (!q.compare) continue;
    for (const d of [r.duck1, r.duckN]) {
      const a = r.svcdb.work[q.key]?.answer;
      const b = d?.work[q.key]?.answer;
      if (d === null || a == null || b == null) continue;
      const why = difference(a, b);
      if (why !== null) warnings.push(`svcdb and ${d.name} disagree on \`${q.svcdb}\`: ${why}`);
    }
  }
  return warnings;
}

async function run(o: Options): Promise<void> {
  mkdirSync(o.dir, { recursive: true });
  const machine = {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? '?',
    memGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAvgStart: loadavg().map((x) => Math.round(x * 100) / 100),
  };
  console.log(
    `bench:realistic on ${machine.cores} cores (${machine.cpu}), ${machine.memGiB} GiB, Node ${machine.node}, load average ${machine.loadAvgStart.join(' ')}`,
  );
  const results: SizeResult[] = [];
  for (const rows of o.rows) {
    const removePartial = (): void => rmSync(partialPath(csvPath(o.dir, rows)), { force: true });
    cleanups.add(removePartial);
    const csv = await tradesCsv(o.dir, rows, progress);
    cleanups.delete(removePartial);
    if (csv.generatedSeconds > 0) progress(`generated ${csv.path} in ${csv.generatedSeconds.toFixed(1)} s (untimed)`);
    const svcdb = o.only === 'duckdb' ? null : await runSvcdb(csv, o);
    const duck1 = o.only === 'svcdb' ? null : await runDuckdb(csv, o, 1);
    const duckN = o.only === 'svcdb' ? null : await runDuckdb(csv, o, cpus().length);
    const partial = { csv, svcdb, duck1, duckN };
    const r: SizeResult = { ...partial, warnings: compareAnswers(csv, partial) };
    results.push(r);
    printSize(r, o);
  }
  const loadAvgEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  console.log('');
  console.log(
    `load average at the end ${loadAvgEnd.join(' ')} (other processes on the ${machine.cores} cores skew every figure)`,
  );
  const out = join(o.dir, `realistic-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  const r3 = (x: number): number => Math.round(x * 1000) / 1000;
  const json = (s: SystemResult | null): unknown =>
    s === null
      ? null
      : {
          version: s.version,
          columns: s.columns,
          baseMib: r3(s.baseMib),
          work: Object.fromEntries(
            Object.entries(s.work).map(([k, m]) => [
              k,
              {
                medianMs: r3(mid(m)),
                coldMs: r3(m.coldMs),
                runsMs: m.runsMs.map(r3),
                peakMib: r3(m.peakMib),
                cpuSeconds: r3(m.cpuSeconds),
                bytes: m.bytes,
              },
            ]),
          ),
        };
  writeFileSync(
    out,
    `${JSON.stringify(
      {
        benchmark: 'realistic',
        machine: { ...machine, loadAvgEnd },
        runs: o.runs,
        importRuns: o.importRuns,
        sizes: results.map((r) => ({
          rows: r.csv.rows,
          csvBytes: r.csv.bytes,
          days: r3(r.csv.days),
          work: rowsOfWork(r.csv),
          svcdb: json(r.svcdb),
          duckdb1: json(r.duck1),
          duckdbAll: json(r.duckN),
          warnings: r.warnings,
        })),
      },
      null,
      1,
    )}\n`,
  );
  console.log(`figures as JSON: ${out} (the CSV files stay in ${o.dir} as the cache of the next run)`);
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const onSignal = (sig: NodeJS.Signals): void => {
    cleanupAll();
    process.kill(process.pid, sig);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await run(o);
  } finally {
    cleanupAll();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof UsageError ? `realistic: ${e.message}` : e instanceof Error ? e.stack : String(e));
  process.exitCode = 1;
});
