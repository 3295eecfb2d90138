// bench:realistic, the benchmark of record: a trades CSV with VARCHAR text columns imported into the
// built server over HTTP exactly as a user does (multipart POST /imp, no schema), the issue's queries
// through /exec (server-side time from timings=true) and the exports through /exp streamed to a file,
// against DuckDB's read_csv, the same queries and COPY TO on the same file in the same run: on one
// thread (alternating with svcdb run by run) and on all cores; peak RSS per phase. Prints one table
// per size (and a growth table) and writes the figures as JSON.
// Usage: npm run bench:realistic [-- --rows 2m,20m,100m] [--runs N] [--import-runs N]
// [--only svcdb|duckdb] [--dir DIR] [--server-env SVC_KEY=VALUE]...
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { csvPath, FILTER_PRICE, FILTER_SYM, partialPath, tradesCsv, type TradesCsv } from './realistic-csv.js';
import { duckdbSystem } from './realistic-duckdb.js';
import { HTTP_CLIENT, svcdbSystem } from './realistic-svcdb.js';
import {
  difference,
  EXPORTS,
  queries,
  type Described,
  type Measured,
  type Once,
  type System,
} from './realistic-work.js';
import { median } from './stats.js';

class UsageError extends Error {}

interface Options {
  readonly rows: number[];
  readonly runs: number;
  readonly importRuns: number;
  readonly only: 'svcdb' | 'duckdb' | null;
  readonly dir: string;
  /** SVC_* settings for the server (--server-env KEY=VALUE, repeatable), e.g. a worker count. */
  readonly serverEnv: Record<string, string>;
}

const USAGE =
  'usage: realistic [--rows 2m[,20m,...]] [--runs N] [--import-runs N] [--only svcdb|duckdb] [--dir DIR] [--server-env KEY=VALUE]...';

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
    serverEnv: {} as Record<string, string>,
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
    else if (name === '--server-env') {
      const v = value();
      const m = /^(SVC_[A-Z0-9_]+)=(.*)$/.exec(v);
      if (m === null) throw new UsageError(`--server-env takes SVC_KEY=VALUE [got ${v}]`);
      o.serverEnv[m[1]!] = m[2]!;
    } else if (name === '--only') {
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

// ---- the runs --------------------------------------------------------------------------------

/** What one system did, work by work. */
interface SystemResult extends Described {
  readonly name: string;
  readonly work: Record<string, Measured>;
}

/**
 * One phase: `once` for each system in turn, `runs` + 1 times (the first is the cold run), each
 * system's peak RSS and CPU over the whole phase.
 */
async function phase(
  systems: readonly System[],
  runs: number,
  once: (s: System, run: number) => Promise<Once>,
): Promise<Measured[]> {
  for (const s of systems) await s.phaseStart();
  const times = systems.map((): number[] => []);
  const last: Once[] = [];
  for (let r = 0; r <= runs; r++)
    for (let i = 0; i < systems.length; i++) {
      const o = await once(systems[i]!, r);
      times[i]!.push(o.ms);
      last[i] = o;
    }
  const out: Measured[] = [];
  for (let i = 0; i < systems.length; i++) {
    const end = await systems[i]!.phaseEnd();
    out.push({
      coldMs: times[i]![0]!,
      runsMs: times[i]!.slice(1),
      peakMib: end.peakMib,
      cpuSeconds: end.cpuSeconds,
      bytes: last[i]!.bytes ?? null,
      answer: last[i]!.answer ?? null,
    });
  }
  return out;
}

/** The import, the queries and the exports, the systems alternating run by run. */
async function runAll(csv: TradesCsv, o: Options, systems: readonly System[]): Promise<SystemResult[]> {
  const names = systems.map((s) => s.name).join(' and ');
  const work = systems.map((): Record<string, Measured> => ({}));
  const record = (key: string, ms: Measured[]): void => ms.forEach((m, i) => (work[i]![key] = m));
  progress(`${names}: import ${csv.path}`);
  record('import', await phase(systems, o.importRuns - 1, (s, r) => s.importOnce(r > 0)));
  const described: Described[] = [];
  for (const s of systems) {
    const d = await s.describe();
    if (d.rows !== csv.rows) throw new Error(`${s.name} holds ${d.rows} rows after the import, expected ${csv.rows}`);
    described.push(d);
  }
  for (const q of queries(csv)) {
    progress(`${names}: ${q.svcdb}`);
    record(q.key, await phase(systems, o.runs, (s) => s.query(q)));
  }
  for (const e of EXPORTS) {
    progress(`${names}: ${e.label}`);
    record(e.key, await phase(systems, o.runs, (s) => s.exportOnce(e)));
  }
  return systems.map((s, i) => ({ name: s.name, ...described[i]!, work: work[i]! }));
}

/** Registers an undo for cleanup; returns its unregistering. */
function track(undo: () => void): () => void {
  cleanups.add(undo);
  return () => cleanups.delete(undo);
}

/**
 * svcdb and DuckDB on one thread alternate run by run; DuckDB on all cores runs afterwards on its own
 * (two in-memory DuckDB tables and the server at once would not fit at 100M rows).
 */
async function runSize(csv: TradesCsv, o: Options): Promise<Omit<SizeResult, 'warnings'>> {
  const paired: System[] = [];
  let results: SystemResult[];
  try {
    if (o.only !== 'duckdb') paired.push(await svcdbSystem(csv, o.dir, o.serverEnv, track));
    if (o.only !== 'svcdb') paired.push(duckdbSystem(1, csv.path, o.dir, track));
    results = await runAll(csv, o, paired);
  } finally {
    for (const s of paired) await s.close();
  }
  let duckN: SystemResult | null = null;
  if (o.only !== 'svcdb') {
    const all = duckdbSystem(cpus().length, csv.path, o.dir, track);
    try {
      duckN = (await runAll(csv, o, [all]))[0]!;
    } finally {
      await all.close();
    }
  }
  const svcdb = o.only === 'duckdb' ? null : results[0]!;
  const duck1 = o.only === 'svcdb' ? null : results.at(-1)!;
  return { csv, svcdb, duck1, duckN };
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

const sizeName = (rows: number): string =>
  rows % 1e6 === 0 ? `${rows / 1e6}M` : rows % 1e3 === 0 ? `${rows / 1e3}k` : String(rows);

/**
 * With several sizes: each work's svcdb / DuckDB 1 thread / DuckDB all threads medians and svcdb's
 * peak RSS per size, and how much svcdb's time grew from the smallest size to the largest against
 * the rows (linear: the same factor; point and interval queries should stay near 1).
 */
function printGrowth(results: readonly SizeResult[]): void {
  const first = results[0]!;
  const last = results.at(-1)!;
  console.log('');
  console.log(`## Growth: svcdb / DuckDB 1 thread / DuckDB ${cpus().length} threads (medians), svcdb peak RSS`);
  console.log('');
  const growth = `svcdb ${sizeName(first.csv.rows)} -> ${sizeName(last.csv.rows)} (rows x${(last.csv.rows / first.csv.rows).toFixed(0)})`;
  console.log(`| work | ${results.map((r) => sizeName(r.csv.rows)).join(' | ')} | ${growth} |`);
  console.log(`|---|${results.map(() => '---|').join('')}---|`);
  for (const w of rowsOfWork(first.csv)) {
    const cells = results.map((r) => {
      const t = (m: Measured | undefined): string => (m === undefined ? '-' : time(mid(m)));
      const s = r.svcdb?.work[w.key];
      return `${t(s)} / ${t(r.duck1?.work[w.key])} / ${t(r.duckN?.work[w.key])}, ${mib(s)} MiB`;
    });
    const a = first.svcdb?.work[w.key];
    const b = last.svcdb?.work[w.key];
    const label = w.label.replace(first.csv.pointTs, "<the middle row's ts>");
    console.log(`| ${label} | ${cells.join(' | ')} | ${a && b ? `x${(mid(b) / mid(a)).toFixed(1)}` : '-'} |`);
  }
}

function printSize(r: SizeResult, o: Options): void {
  const threads = cpus().length;
  const n = (x: number): string => x.toLocaleString('en-US');
  const { csv } = r;
  console.log('');
  console.log(
    `## ${n(csv.rows)} rows: ${(csv.bytes / 1e6).toFixed(0)} MB of CSV over ${csv.days.toFixed(1)} days (DAY partitions); ` +
      `${o.runs} run${o.runs === 1 ? '' : 's'} after a cold one, medians (cold run in parentheses); load average now ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
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
      `svcdb query times are the server's (timings compiler + execute), DuckDB's the call's; imports and exports are wall times (svcdb's through ${HTTP_CLIENT}, to the last byte on disk)`,
  );
  for (const w of r.warnings) console.log(`WARNING: ${w}`);
}

function compareAnswers(csv: TradesCsv, r: Omit<SizeResult, 'warnings'>): string[] {
  const warnings: string[] = [];
  if (r.svcdb === null) return warnings;
  for (const q of queries(csv)) {
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
  const env = Object.entries(o.serverEnv);
  if (env.length > 0) console.log(`server settings: ${env.map(([k, v]) => `${k}=${v}`).join(' ')}`);
  const results: SizeResult[] = [];
  for (const rows of o.rows) {
    const removePartial = (): void => rmSync(partialPath(csvPath(o.dir, rows)), { force: true });
    cleanups.add(removePartial);
    const csv = await tradesCsv(o.dir, rows, progress);
    cleanups.delete(removePartial);
    if (csv.generatedSeconds > 0) progress(`generated ${csv.path} in ${csv.generatedSeconds.toFixed(1)} s (untimed)`);
    const partial = await runSize(csv, o);
    const r: SizeResult = { ...partial, warnings: compareAnswers(csv, partial) };
    results.push(r);
    printSize(r, o);
  }
  if (results.length > 1) printGrowth(results);
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
        serverEnv: o.serverEnv,
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
