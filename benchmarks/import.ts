// CSV import benchmark: one 115 MB trades CSV (2M rows) imported in the same run by svcdb over HTTP
// (POST /imp to the server as a child process), by `svcdb import` (a child process), by DuckDB's
// read_csv (one thread, in memory) and by PostgreSQL's COPY when installed. Usage: npm run bench:import
// (installs @duckdb/node-api without saving it), or node dist/benchmarks/import.js [--rows N].
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { CLI, startServer, type ServerProcess } from '../test/helpers/server-process.js';
import { duckdbConnection } from './duckdb.js';
import { MEAN_STEP_US, SYMBOLS, writeCsv } from './trades-csv.js';
import { median } from './stats.js';

const REPS = 3;
const MB = 1e6;
const MIB = 2 ** 20;
const WARMUP_ROWS = 50_000;
const TARGET_RATIO = 1.2;
const TARGET_MBPS = 80;
const TARGET_RSS_MIB = 300;
const PG_BIN = '/usr/local/bin';
const PSQL = '/usr/bin/psql';
const TIME = '/usr/bin/time';
const BOUNDARY = '----svcdb-bench-import-7d3f9a';

class UsageError extends Error {}

// Everything started or created is undone here, in reverse order, on a normal end, an error or a signal.
const cleanups: Array<{ what: string; run: () => void }> = [];
function cleanupAll(): void {
  for (let c = cleanups.pop(); c; c = cleanups.pop()) {
    try {
      c.run();
    } catch (e) {
      console.error(`cleanup of ${c.what} failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
/** Registers `run` and returns a function that runs it now (once) and unregisters it. */
function onCleanup(what: string, run: () => void): () => void {
  const entry = { what, run };
  cleanups.push(entry);
  return () => {
    const i = cleanups.indexOf(entry);
    if (i >= 0) {
      cleanups.splice(i, 1);
      run();
    }
  };
}
/**
 * Kills a child process at cleanup unless it has exited by then; a detached child (its own process
 * group: /usr/bin/time and the node it runs) is killed with its whole group.
 */
function track(child: ChildProcess, what: string, group = false): () => void {
  const kill = (): void => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    if (group && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  };
  const entry = { what, run: kill };
  cleanups.push(entry);
  return () => {
    const i = cleanups.indexOf(entry);
    if (i >= 0) cleanups.splice(i, 1);
  };
}

/** Removes a folder; retries while a process killed a moment ago may still be writing into it. */
function rmTree(path: string): void {
  rmSync(path, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
}

function parseRows(argv: readonly string[]): number {
  let rows = 2_000_000;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    if (a !== '--rows' && !a.startsWith('--rows='))
      throw new UsageError(`unknown argument ${a} (usage: import [--rows N])`);
    const v = a === '--rows' ? argv[++i] : a.slice(7);
    const n = Number(v?.replace(/_/g, ''));
    if (!Number.isInteger(n) || n < 10_000 || n > 50_000_000)
      throw new UsageError(`--rows needs an integer between 10000 and 50000000 [got ${v}]`);
    rows = n;
  }
  return rows;
}

/** VmHWM and VmRSS of a live process in KiB (Linux /proc), or null when it is gone. */
function procMem(pid: number): { hwmKb: number; rssKb: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    return {
      hwmKb: Number(/^VmHWM:\s*(\d+)/m.exec(s)?.[1] ?? NaN),
      rssKb: Number(/^VmRSS:\s*(\d+)/m.exec(s)?.[1] ?? NaN),
    };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ESRCH') return null;
    throw e;
  }
}

/** Clock ticks per second of /proc/<pid>/stat times (getconf CLK_TCK; 100 on Linux). */
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** User + system CPU seconds a live process has used (/proc/<pid>/stat), or null when it is gone. */
function procCpu(pid: number): number | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ESRCH') return null;
    throw e;
  }
  // Fields after the command name in parentheses: state is field 3, utime 14, stime 15.
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / CLK_TCK;
}

/**
 * A window over which to tell how much CPU other processes took: busy CPU seconds of the whole machine
 * (/proc/stat, all cores) and this process's own CPU, at its start.
 */
interface Window {
  readonly busy: number;
  readonly self: NodeJS.CpuUsage;
}

function machineBusySeconds(): number {
  // cpu  user nice system idle iowait irq softirq steal ...
  const f = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1, 9).map(Number);
  return (f.reduce((a, b) => a + b, 0) - f[3]! - f[4]!) / CLK_TCK;
}
function openWindow(): Window {
  return { busy: machineBusySeconds(), self: process.cpuUsage() };
}
/** CPU seconds used in the window by processes other than this one and the importer (whose CPU is given). */
function othersCpu(w: Window, importerCpu: number | null): number | null {
  if (importerCpu === null) return null;
  const self = process.cpuUsage(w.self);
  return Math.max(0, machineBusySeconds() - w.busy - importerCpu - (self.user + self.system) / 1e6);
}

interface Run {
  /**
   * CPU seconds other processes (other people's tests, say) used during the timed window: the part of
   * the machine's 2 cores the import could not have. Null when the importer's CPU is unknown.
   */
  readonly othersCpuSeconds: number | null;
  readonly seconds: number;
  /**
   * CPU seconds (user + system) of the importing process during the import (null: not measured);
   * well below `seconds` on a busy machine means the import waited for a core.
   */
  readonly cpuSeconds: number | null;
  readonly rows: number;
  /** Peak resident set of the process doing the import, MiB (null: not measured). */
  readonly peakRssMib: number | null;
  /** Resident set just before the import started, MiB, where known. */
  readonly startRssMib: number | null;
}

interface Peer {
  readonly name: string;
  readonly key: string;
  readonly runs: Run[];
  readonly rssNote: string;
  note: string | null;
}

// ---- svcdb over HTTP -------------------------------------------------------------------------

/** POSTs `file` to /imp as the `data` part of a multipart body streamed from disk (fixed boundary, Content-Length). */
async function postImport(
  baseUrl: string,
  file: string,
  table: string,
): Promise<{
  ms: number;
  answer: {
    status: string;
    rowsImported: number;
    rowsRejected: number;
    columns: Array<{ name: string; type: string }>;
  };
}> {
  const pre = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"; filename="trades.csv"\r\nContent-Type: text/csv\r\n\r\n`,
  );
  const post = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  const length = pre.length + statSync(file).size + post.length;
  async function* parts(): AsyncGenerator<Buffer> {
    yield pre;
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) yield chunk as Buffer;
    yield post;
  }
  const url = `${baseUrl}/imp?name=${table}&timestamp=timestamp&partitionBy=DAY&fmt=json`;
  const t0 = performance.now();
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': String(length) },
    body: Readable.from(parts(), { objectMode: false }),
  });
  const text = await res.body.text();
  const ms = performance.now() - t0;
  if (res.statusCode !== 200) throw new Error(`POST /imp answered ${res.statusCode}: ${text}`);
  return { ms, answer: JSON.parse(text) as Awaited<ReturnType<typeof postImport>>['answer'] };
}

/**
 * One HTTP run: a fresh server on a new root (so VmHWM is this run's), an untimed warm-up import of
 * a small file, then the timed import into a new table; peak RSS is the server's VmHWM at the end.
 */
async function runHttp(tmp: string, r: number, file: string, warmFile: string): Promise<Run & { columns: string }> {
  const root = join(tmp, `http-root-${r}`);
  mkdirSync(root);
  let server: ServerProcess | null = null;
  const stopServer = onCleanup(`svcdb server (run ${r + 1})`, () => {
    server?.child.kill('SIGKILL');
    rmTree(root);
  });
  try {
    server = await startServer({ root });
    const pid = server.child.pid!;
    await postImport(server.mainUrl, warmFile, 'warmup');
    const before = procMem(pid);
    const cpuBefore = procCpu(pid);
    const window = openWindow();
    const { ms, answer } = await postImport(server.mainUrl, file, `trades_${r}`);
    const cpuAfter = procCpu(pid);
    const after = procMem(pid);
    if (after === null || before === null || cpuBefore === null || cpuAfter === null)
      throw new Error('the server exited during the import');
    const code = await server.stop();
    if (code !== 0) throw new Error(`the server exited with code ${code}: ${server.stderr()}`);
    return {
      seconds: ms / 1000,
      cpuSeconds: cpuAfter - cpuBefore,
      othersCpuSeconds: othersCpu(window, cpuAfter - cpuBefore),
      rows: answer.rowsImported,
      peakRssMib: after.hwmKb / 1024,
      startRssMib: before.rssKb / 1024,
      columns: answer.columns.map((c) => `${c.name} ${c.type}`).join(', '),
    };
  } finally {
    stopServer();
  }
}

// ---- svcdb CLI -------------------------------------------------------------------------------

/** Runs `child` to its end; rejects on a non-zero exit with what it printed. */
function waitFor(child: ChildProcess, what: string, group = false): Promise<{ out: string; err: string }> {
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const untrack = track(child, what, group);
  return new Promise((resolve, reject) => {
    child.once('error', (e) => {
      untrack();
      reject(e);
    });
    child.once('close', (code, signal) => {
      untrack();
      if (code === 0) resolve({ out, err });
      else reject(new Error(`${what} exited with ${code ?? signal}: ${err || out}`));
    });
  });
}

/** `svcdb import` into a new root, wall time including process start; peak RSS from /usr/bin/time. */
async function runCli(tmp: string, r: number, file: string): Promise<Run> {
  const root = join(tmp, `cli-root-${r}`);
  mkdirSync(root);
  const timeFile = join(tmp, `cli-time-${r}`);
  const removeRoot = onCleanup(`svcdb import root (run ${r + 1})`, () => rmTree(root));
  try {
    const window = openWindow();
    const t0 = performance.now();
    const child = spawn(
      TIME,
      [
        '-f',
        '%M %U %S',
        '-o',
        timeFile,
        process.execPath,
        CLI,
        'import',
        file,
        '-d',
        root,
        '--table',
        'trades',
        '--timestamp',
        'timestamp',
        '--partition-by',
        'DAY',
        '--format',
        'json',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    );
    const { out } = await waitFor(child, 'svcdb import', true);
    const seconds = (performance.now() - t0) / 1000;
    const answer = JSON.parse(out) as { rowsImported: number };
    const [maxRssKb, user, sys] = (readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '')
      .split(' ')
      .map(Number) as [number, number, number];
    // /usr/bin/time's own CPU is a millisecond or two: counted as others'.
    return {
      seconds,
      cpuSeconds: user + sys,
      othersCpuSeconds: othersCpu(window, user + sys),
      rows: answer.rowsImported,
      peakRssMib: maxRssKb / 1024,
      startRssMib: null,
    };
  } finally {
    removeRoot();
  }
}

// ---- DuckDB ----------------------------------------------------------------------------------

interface DuckReader {
  getRows(): unknown[][];
}
interface DuckConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<DuckReader>;
  closeSync(): void;
}
interface DuckChildResult {
  ms: number;
  cpuMs: number;
  othersCpuSeconds: number | null;
  rows: number;
  maxRssKb: number;
  startRssKb: number;
  columns: string;
  version: string;
}

/** In a forked child (fresh in-memory database, so its peak RSS is this run's alone): one timed CREATE TABLE AS read_csv. */
async function duckdbChild(file: string): Promise<void> {
  const con = await duckdbConnection<DuckConnection>();
  await con.run('SET threads=1');
  const version = String((await con.runAndReadAll('select version()')).getRows()[0]?.[0]);
  const startRssKb = process.memoryUsage().rss / 1024;
  const window = openWindow();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await con.run(`CREATE TABLE t AS SELECT * FROM read_csv('${file.replace(/'/g, "''")}')`);
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  // The child's own CPU is the importer's; othersCpu subtracts it as "self".
  const othersCpuSeconds = othersCpu(window, 0);
  const maxRssKb = process.resourceUsage().maxRSS;
  const rows = Number((await con.runAndReadAll('select count(*) from t')).getRows()[0]?.[0]);
  const columns = (await con.runAndReadAll('describe t'))
    .getRows()
    .map((row) => `${String(row[0])} ${String(row[1])}`)
    .join(', ');
  con.closeSync();
  const result: DuckChildResult = {
    ms,
    cpuMs: (cpu.user + cpu.system) / 1000,
    othersCpuSeconds,
    rows,
    maxRssKb,
    startRssKb,
    columns,
    version,
  };
  await new Promise<void>((resolve, reject) => process.send!(result, (e: Error | null) => (e ? reject(e) : resolve())));
}

async function runDuckdb(file: string): Promise<Run & { columns: string; version: string }> {
  const child = fork(fileURLToPath(import.meta.url), ['--duckdb-child', file], {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let result: DuckChildResult | null = null;
  child.on('message', (m) => {
    result = m as DuckChildResult;
  });
  await waitFor(child, 'DuckDB child');
  if (result === null) throw new Error('the DuckDB child sent no result');
  const r: DuckChildResult = result;
  return {
    seconds: r.ms / 1000,
    cpuSeconds: r.cpuMs / 1000,
    othersCpuSeconds: r.othersCpuSeconds,
    rows: r.rows,
    peakRssMib: r.maxRssKb / 1024,
    startRssMib: r.startRssKb / 1024,
    columns: r.columns,
    version: r.version,
  };
}

// ---- PostgreSQL ------------------------------------------------------------------------------

interface Pg {
  /** Stops the cluster (pg_ctl stop -m immediate); also run at cleanup. */
  readonly stop: () => void;
  readonly socketDir: string;
  readonly port: number;
  readonly dataDir: string;
  readonly version: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL binary as `user` (runuser from root), returning its output; throws with stderr. */
function pgExec(user: string | null, bin: string, args: readonly string[]): string {
  const [cmd, argv] = user === null ? [bin, args] : ['/usr/sbin/runuser', ['-u', user, '--', bin, ...args]];
  return execFileSync(cmd, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A temporary cluster on a free port, or the reason it cannot be run. */
async function startPostgres(tmp: string): Promise<Pg | string> {
  for (const b of [join(PG_BIN, 'initdb'), join(PG_BIN, 'pg_ctl'), join(PG_BIN, 'postgres'), PSQL])
    if (!existsSync(b)) return `${b} not found`;
  let user: string | null = null;
  let uid = -1;
  let gid = -1;
  if (process.getuid?.() === 0) {
    // postgres refuses to run as root: use the system's postgres user.
    try {
      uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
      gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    } catch {
      return 'running as root and there is no postgres user to run the server as';
    }
    if (!existsSync('/usr/sbin/runuser')) return 'running as root and /usr/sbin/runuser is missing';
    user = 'postgres';
  }
  const dir = join(tmp, 'pg');
  mkdirSync(dir);
  if (user !== null) {
    // The postgres user must reach its cluster and the CSV file: mkdtemp made the folder 0700 for root.
    chmodSync(tmp, 0o755);
    chownSync(dir, uid, gid);
  }
  const dataDir = join(dir, 'data');
  const version = pgExec(user, join(PG_BIN, 'postgres'), ['--version']).trim();
  try {
    pgExec(user, join(PG_BIN, 'initdb'), [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '-A',
      'trust',
      '-E',
      'UTF8',
      '--locale=C',
      '--no-sync',
    ]);
  } catch (e) {
    return `initdb failed: ${(e as { stderr?: string }).stderr ?? String(e)}`.trim();
  }
  const port = await freePort();
  const stop = (): void => {
    if (existsSync(join(dataDir, 'postmaster.pid')))
      pgExec(user, join(PG_BIN, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
  };
  const stopNow = onCleanup('PostgreSQL cluster', stop);
  try {
    pgExec(user, join(PG_BIN, 'pg_ctl'), [
      '-D',
      dataDir,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=''`,
      'start',
    ]);
  } catch (e) {
    return `pg_ctl start failed: ${(e as { stderr?: string }).stderr ?? String(e)} ${existsSync(join(dir, 'server.log')) ? readFileSync(join(dir, 'server.log'), 'utf8') : ''}`.trim();
  }
  return { stop: stopNow, socketDir: dir, port, dataDir, version };
}

/** psql arguments; without -q, so that COPY prints its row count. */
function psqlArgs(pg: Pg, commands: readonly string[]): string[] {
  return [
    '-X',
    '-A',
    '-t',
    '-v',
    'ON_ERROR_STOP=1',
    '-h',
    pg.socketDir,
    '-p',
    String(pg.port),
    '-U',
    'postgres',
    '-d',
    'postgres',
    ...commands.flatMap((c) => ['-c', c]),
  ];
}

/**
 * Peak VmHWM and the CPU seconds of the postmaster's children that were not there before `known` was
 * taken (the COPY's backend), sampled every 50 ms: CPU used after the last sample is missed.
 */
function sampleNewChildren(
  postmaster: number,
  known: ReadonlySet<number>,
): { stop(): { peakKb: number | null; cpuSeconds: number | null } } {
  let peakKb: number | null = null;
  const cpu = new Map<number, number>();
  const tick = (): void => {
    for (const pid of childrenOf(postmaster)) {
      if (known.has(pid)) continue;
      const m = procMem(pid);
      if (m !== null && (peakKb === null || m.hwmKb > peakKb)) peakKb = m.hwmKb;
      const c = procCpu(pid);
      if (c !== null) cpu.set(pid, c);
    }
  };
  const timer = setInterval(tick, 50);
  return {
    stop: () => {
      clearInterval(timer);
      tick();
      return { peakKb, cpuSeconds: cpu.size === 0 ? null : [...cpu.values()].reduce((a, b) => a + b, 0) };
    },
  };
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/** A fresh table (untimed), then `COPY ... FROM '<file>'` timed by psql's \timing; peak RSS of the backend. */
async function runPostgres(pg: Pg, file: string): Promise<Run> {
  execFileSync(
    PSQL,
    psqlArgs(pg, [
      'DROP TABLE IF EXISTS t',
      'CREATE TABLE t (timestamp timestamptz, symbol text, price double precision, amount double precision, side text)',
      'CHECKPOINT',
    ]),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const postmaster = Number(readFileSync(join(pg.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const sampler = sampleNewChildren(postmaster, new Set(childrenOf(postmaster)));
  const window = openWindow();
  const child = spawn(
    PSQL,
    psqlArgs(pg, ['\\timing on', `COPY t FROM '${file.replace(/'/g, "''")}' WITH (FORMAT csv, HEADER true)`]),
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let sampled: ReturnType<ReturnType<typeof sampleNewChildren>['stop']>;
  let out: string;
  try {
    ({ out } = await waitFor(child, 'psql COPY'));
  } finally {
    sampled = sampler.stop();
  }
  const ms = Number(/Time: ([\d.]+) ms/.exec(out)?.[1]);
  const rows = Number(/COPY (\d+)/.exec(out)?.[1] ?? NaN);
  if (!Number.isFinite(ms)) throw new Error(`no timing in psql's output: ${out}`);
  // The window also holds psql's start and connection (a few ms), counted as others'.
  return {
    seconds: ms / 1000,
    cpuSeconds: sampled.cpuSeconds,
    othersCpuSeconds: othersCpu(window, sampled.cpuSeconds),
    rows,
    peakRssMib: sampled.peakKb === null ? null : sampled.peakKb / 1024,
    startRssMib: null,
  };
}

// ---- report ----------------------------------------------------------------------------------

function printTable(head: readonly string[], body: readonly (readonly string[])[]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const b of body) console.log(line(b));
}

async function run(tmp: string, rows: number): Promise<void> {
  const machine = {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? '?',
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    memTotalMb: Math.round(totalmem() / MIB),
    memFreeMb: Math.round(freemem() / MIB),
    loadAvgStart: loadavg().map((x) => Math.round(x * 100) / 100),
  };
  const n = (x: number): string => x.toLocaleString('en-US');
  const file = join(tmp, 'trades.csv');
  const warmFile = join(tmp, 'warmup.csv');
  const tGen = performance.now();
  const bytes = writeCsv(file, rows, 42);
  writeCsv(warmFile, WARMUP_ROWS, 7);
  console.log(
    `import benchmark: ${n(rows)} rows, ${(bytes / MB).toFixed(1)} MB of CSV (timestamp ISO µs Z increasing over ~${Math.round((rows * MEAN_STEP_US) / 86_400e6)} days, symbol x${SYMBOLS.length}, price 4 decimals, amount 6 decimals, side buy/sell)`,
  );
  console.log(
    `  machine: ${machine.cores} cores (${machine.cpu}), ${machine.memTotalMb} MiB RAM, Node ${machine.node} ${machine.platform}, load average ${machine.loadAvgStart.join(' ')}`,
  );
  console.log(
    `  generated in ${((performance.now() - tGen) / 1000).toFixed(1)} s (untimed) in ${tmp}; every peer reads it from the page cache; ${REPS} rounds, each peer once per round, medians reported`,
  );

  const pg = await startPostgres(tmp);
  const peers: Peer[] = [
    { name: 'svcdb HTTP (POST /imp)', key: 'svcdbHttp', runs: [], rssNote: 'server VmHWM', note: null },
    { name: 'svcdb import (CLI)', key: 'svcdbCli', runs: [], rssNote: 'child max RSS', note: null },
    { name: 'DuckDB read_csv (1 thread)', key: 'duckdb', runs: [], rssNote: 'child max RSS', note: null },
    {
      name: 'PostgreSQL COPY',
      key: 'postgres',
      runs: [],
      rssNote: 'backend VmHWM',
      note: typeof pg === 'string' ? pg : null,
    },
  ];
  const [http, cli, duck, pgPeer] = peers as [Peer, Peer, Peer, Peer];
  let svcdbColumns = '';
  let duckColumns = '';
  let duckVersion = '';
  for (let r = 0; r < REPS; r++) {
    const h = await runHttp(tmp, r, file, warmFile);
    http.runs.push(h);
    svcdbColumns = h.columns;
    cli.runs.push(await runCli(tmp, r, file));
    const d = await runDuckdb(file);
    duck.runs.push(d);
    duckColumns = d.columns;
    duckVersion = d.version;
    if (typeof pg !== 'string') pgPeer.runs.push(await runPostgres(pg, file));
    const last = peers
      .filter((p) => p.runs.length > r)
      .map((p) => {
        const x = p.runs[r]!;
        return `${p.key} ${x.seconds.toFixed(2)} s (others ${x.othersCpuSeconds === null ? '-' : x.othersCpuSeconds.toFixed(2)} CPU s)`;
      });
    console.log(
      `  round ${r + 1}: ${last.join(', ')}; load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
  }
  for (const p of peers)
    for (const x of p.runs) if (x.rows !== rows) throw new Error(`${p.name} imported ${x.rows} rows, expected ${rows}`);
  if (typeof pg !== 'string') pg.stop();

  const stats = peers
    .filter((p) => p.runs.length > 0)
    .map((p) => {
      const s = median(p.runs.map((x) => x.seconds));
      const rss = p.runs.map((x) => x.peakRssMib).filter((x): x is number => x !== null);
      const start = p.runs.map((x) => x.startRssMib).filter((x): x is number => x !== null);
      const cpu = p.runs.map((x) => x.cpuSeconds).filter((x): x is number => x !== null);
      const others = p.runs
        .map((x) => (x.othersCpuSeconds === null ? null : x.othersCpuSeconds / (x.seconds * cpus().length)))
        .filter((x): x is number => x !== null);
      return {
        peer: p,
        seconds: s,
        cpuSeconds: cpu.length === p.runs.length ? median(cpu) : null,
        othersShare: others.length === p.runs.length ? median(others) : null,
        mbPerSec: bytes / MB / s,
        rowsPerSec: rows / s,
        peakRssMib: rss.length ? Math.max(...rss) : null,
        startRssMib: start.length ? Math.max(...start) : null,
      };
    });
  const httpSeconds = stats[0]!.seconds;
  const duckStats = stats.find((s) => s.peer === duck)!;
  const ratioDuck = httpSeconds / duckStats.seconds;
  const httpStats = stats[0]!;
  const cliStats = stats[1]!;
  const met = (ok: boolean): string => (ok ? 'met' : 'MISSED');
  const targets = {
    httpVsDuckdb: { value: ratioDuck, target: `<= ${TARGET_RATIO}`, met: ratioDuck <= TARGET_RATIO },
    httpMbPerSec: { value: httpStats.mbPerSec, target: `>= ${TARGET_MBPS}`, met: httpStats.mbPerSec >= TARGET_MBPS },
    httpPeakRssMib: {
      value: httpStats.peakRssMib,
      target: `< ${TARGET_RSS_MIB}`,
      met: (httpStats.peakRssMib ?? Infinity) < TARGET_RSS_MIB,
    },
    cliPeakRssMib: {
      value: cliStats.peakRssMib,
      target: `< ${TARGET_RSS_MIB}`,
      met: (cliStats.peakRssMib ?? Infinity) < TARGET_RSS_MIB,
    },
  };
  const targetText = (p: Peer): string => {
    if (p === http)
      return `>= ${TARGET_MBPS} MB/s (${met(targets.httpMbPerSec.met)}), RSS < ${TARGET_RSS_MIB} MiB (${met(targets.httpPeakRssMib.met)})`;
    if (p === cli) return `RSS < ${TARGET_RSS_MIB} MiB (${met(targets.cliPeakRssMib.met)})`;
    if (p === duck) return `HTTP/DuckDB <= ${TARGET_RATIO} (${met(targets.httpVsDuckdb.met)})`;
    return '(reference)';
  };
  console.log('');
  printTable(
    ['peer', 'time s', 'CPU s', 'others %', 'MB/s', 'rows/s', 'peak RSS MiB', 'svcdb HTTP / peer', 'runs s', 'target'],
    stats.map((s) => [
      s.peer.name,
      s.seconds.toFixed(2),
      s.cpuSeconds === null ? '-' : s.cpuSeconds.toFixed(2),
      s.othersShare === null ? '-' : (s.othersShare * 100).toFixed(0),
      s.mbPerSec.toFixed(1),
      n(Math.round(s.rowsPerSec)),
      s.peakRssMib === null ? '-' : `${s.peakRssMib.toFixed(0)} (${s.peer.rssNote})`,
      (httpSeconds / s.seconds).toFixed(2),
      s.peer.runs.map((x) => x.seconds.toFixed(2)).join(' '),
      targetText(s.peer),
    ]),
  );
  if (pgPeer.note !== null) console.log(`PostgreSQL: not run (${pgPeer.note})`);
  console.log('');
  console.log(
    '  svcdb HTTP: time from the request to the last byte of the answer, a 1 MiB-chunk streamed multipart body (undici); a fresh server',
  );
  console.log(
    `    per run (new root, new table) after an untimed ${n(WARMUP_ROWS)}-row warm-up import; RSS before the import ${httpStats.startRssMib?.toFixed(0) ?? '-'} MiB (max of runs)`,
  );
  console.log(
    '  svcdb import: wall time of the child including Node start and the final commit; commitMode nosync (the default) for both svcdb peers',
  );
  console.log(
    '  CPU s: user + system CPU of the importing process, all its threads (server, CLI child, DuckDB child, PostgreSQL backend sampled',
  );
  console.log('    every 50 ms), median; above time s when helper threads work in parallel;');
  console.log(
    '    time s well above CPU s means the import waited (for a core on a busy machine, for the disk, or for the client)',
  );
  console.log(
    `  others %: CPU used by other processes during the timed window (/proc/stat busy time less the importer's and this process's),`,
  );
  console.log(
    `    as a share of the ${cpus().length} cores' capacity over that window, median of runs: the interference each figure had (it also holds`,
  );
  console.log("    kernel writeback of the import's own files and, for PostgreSQL, its WAL writer and checkpointer)");
  console.log(
    `  DuckDB ${duckVersion}: CREATE TABLE t AS SELECT * FROM read_csv(file) in a fresh child per run (in-memory database, SET threads=1);`,
  );
  console.log(`    RSS before the query ${duckStats.startRssMib?.toFixed(0) ?? '-'} MiB (Node + DuckDB loaded)`);
  if (typeof pg !== 'string')
    console.log(
      `  ${pg.version}: COPY t FROM '<file>' (server-side read) into a new table, default settings (fsync on), psql \\timing; RSS: peak of the backend, sampled`,
    );
  console.log(`  types: svcdb ${svcdbColumns}; DuckDB ${duckColumns}`);
  const loadAvgEnd = loadavg().map((x) => Math.round(x * 100) / 100);
  console.log(
    `load average at the end ${loadAvgEnd.join(' ')} (other processes on the ${machine.cores} cores skew every figure)`,
  );
  const r3 = (x: number | null): number | null => (x === null ? null : Math.round(x * 1000) / 1000);
  console.log(
    JSON.stringify({
      benchmark: 'import',
      rows,
      csvBytes: bytes,
      machine: { ...machine, loadAvgEnd },
      peers: Object.fromEntries(
        peers.map((p) => {
          const s = stats.find((x) => x.peer === p);
          return [
            p.key,
            s === undefined
              ? { run: false, reason: p.note }
              : {
                  run: true,
                  seconds: r3(s.seconds),
                  cpuSeconds: r3(s.cpuSeconds),
                  othersCpuShare: r3(s.othersShare),
                  mbPerSec: r3(s.mbPerSec),
                  rowsPerSec: Math.round(s.rowsPerSec),
                  peakRssMib: r3(s.peakRssMib),
                  svcdbHttpOverPeer: r3(httpSeconds / s.seconds),
                  runs: p.runs.map((x) => ({
                    seconds: r3(x.seconds),
                    cpuSeconds: r3(x.cpuSeconds),
                    othersCpuSeconds: r3(x.othersCpuSeconds),
                    peakRssMib: r3(x.peakRssMib),
                  })),
                },
          ];
        }),
      ),
      targets: Object.fromEntries(Object.entries(targets).map(([k, v]) => [k, { ...v, value: r3(v.value) }])),
    }),
  );
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === '--duckdb-child') {
    await duckdbChild(argv[1]!);
    return;
  }
  const rows = parseRows(argv);
  const tmp = mkdtempSync(join(tmpdir(), 'svcdb-bench-import-'));
  onCleanup('temporary folder', () => rmTree(tmp));
  // A safety net for a signal that lands while a child is starting (startServer has not returned it yet).
  onCleanup('remaining child processes', () => {
    for (const pid of childrenOf(process.pid)) process.kill(pid, 'SIGKILL');
  });
  // An interrupted run must leave no server, cluster or 110 MB file behind.
  const onSignal = (sig: NodeJS.Signals): void => {
    cleanupAll();
    process.kill(process.pid, sig);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    await run(tmp, rows);
  } finally {
    cleanupAll();
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
  }
}

main().catch((e: unknown) => {
  console.error(e instanceof UsageError ? `import: ${e.message}` : e instanceof Error ? e.stack : String(e));
  process.exitCode = 1;
});
