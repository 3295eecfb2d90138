// npm run soak: the reliability suite's generators for minutes against one
// capped server under concurrent load (SQL fuzz, CSV uploads, exports), with a
// separate process probing the health check and `select 1`; prints requests by
// status, probe p50/p99, peak RSS against the configured limits, unhandled
// errors and crashes, and exits 1 when any of them is not clean.
import { fork } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { SUITE_ADDRESS_SPACE, SUITE_QUERY_MEMORY, rss } from '../test/helpers/reliability.js';
import { csvRequest } from '../test/reliability/csv-fuzz-gen.js';
import { UploadChecker } from '../test/reliability/csv-fuzz-send.js';
import { FuzzServer, mib } from '../test/reliability/fuzz-harness.js';
import { FEATURES, sqlRequest, type Feature } from '../test/reliability/sql-fuzz-gen.js';
import { encodeQuery } from '../test/reliability/sql-fuzz-hostile.js';
import { referenceState, sendSql, setupSqlTables } from '../test/reliability/sql-fuzz-send.js';
import { quantile } from './stats.js';

const SQL_CONNECTIONS = 3;
const CSV_CONNECTIONS = 1;
const EXPORT_CONNECTIONS = 1;
/** One probe of each kind every PROBE_INTERVAL_MS, never two of a kind in flight. */
const PROBE_INTERVAL_MS = 50;
const DEADLINE_MS = 30_000;
const RSS_SLACK = 256 * 1024 ** 2;

interface ProbeResult {
  readonly n: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly bad: number;
}
type ProbeMessage =
  { readonly type: 'urls'; readonly health: string; readonly main: string } | { readonly type: 'stop' };

/** The probe process: GET / on the health port and `select 1` on the main port, each on its own loop. */
async function probeChild(): Promise<void> {
  let urls = { health: '', main: '' };
  let stopped = false;
  process.on('message', (m: ProbeMessage) => {
    if (m.type === 'urls') urls = { health: m.health, main: m.main };
    else stopped = true;
  });
  while (urls.health === '') await sleep(10);
  const loop = async (url: () => string): Promise<ProbeResult> => {
    const samples: number[] = [];
    let bad = 0;
    while (!stopped) {
      const t0 = performance.now();
      try {
        const r = await request(url(), { headersTimeout: DEADLINE_MS, bodyTimeout: DEADLINE_MS });
        await r.body.text();
        if (r.statusCode !== 200) bad++;
      } catch {
        bad++;
      }
      const ms = performance.now() - t0;
      samples.push(ms);
      if (ms < PROBE_INTERVAL_MS) await sleep(PROBE_INTERVAL_MS - ms);
    }
    samples.sort((a, b) => a - b);
    return {
      n: samples.length,
      p50: quantile(samples, 0.5),
      p99: quantile(samples, 0.99),
      max: samples.at(-1) ?? NaN,
      bad,
    };
  };
  const [health, select1] = await Promise.all([
    loop(() => `${urls.health}/`),
    loop(() => `${urls.main}/exec?query=select%201`),
  ]);
  process.send!({ type: 'done', health, select1 });
}

function minutes(): number {
  const arg = process.argv.indexOf('--minutes');
  const v = arg >= 0 ? process.argv[arg + 1] : process.env.SOAK_MINUTES;
  const m = v === undefined ? 12 : Number(v);
  if (!(m > 0)) throw new Error(`--minutes / SOAK_MINUTES must be a positive number, not ${v}`);
  return m;
}

async function main(): Promise<void> {
  const seed = Number(process.env.FUZZ_SEED ?? 1515);
  const skip = new Set((process.env.FUZZ_SKIP ?? '').split(',').filter((s) => s !== '')) as Set<Feature>;
  for (const s of skip)
    if (!(FEATURES as readonly string[]).includes(s)) throw new Error(`FUZZ_SKIP: unknown feature ${s}`);
  const durationMs = minutes() * 60_000;
  const fz = new FuzzServer(
    { SVC_QUERY_TIMEOUT: '5s', SVC_HTTP_EXPORT_TIMEOUT: '10s', SVC_IMPORT_MEMORY_LIMIT: String(SUITE_QUERY_MEMORY) },
    DEADLINE_MS,
    1000,
    (i) =>
      `FUZZ_SEED=${seed} FUZZ_FROM=${i} FUZZ_COUNT=1 node --test dist/test/reliability/fuzz-{sql,csv}.test.js (soak request numbers are the generators')`,
  );
  await fz.start();
  await setupSqlTables(fz, seed);
  const uploads = new UploadChecker(fz, DEADLINE_MS);
  await uploads.setup();
  const reference = await referenceState(fz);
  const idle = rss(fz.server).now;
  const connections = SQL_CONNECTIONS + CSV_CONNECTIONS + EXPORT_CONNECTIONS + 2;
  console.log(
    `soak: ${minutes()} min, seed ${seed}${skip.size ? `, skipping ${[...skip].join(',')}` : ''}; idle RSS ${mib(idle)}; ` +
      `${SQL_CONNECTIONS} SQL + ${CSV_CONNECTIONS} upload + ${EXPORT_CONNECTIONS} export connections, 2 probes`,
  );

  const probe = fork(fileURLToPath(import.meta.url), ['--probe-child'], { stdio: 'inherit' });
  let probeGeneration = fz.generation;
  probe.send({ type: 'urls', health: fz.server.healthUrl, main: fz.mainUrl });
  const probeDone = new Promise<{ health: ProbeResult; select1: ProbeResult }>((resolve) =>
    probe.on('message', (m: { type: string; health: ProbeResult; select1: ProbeResult }) => resolve(m)),
  );

  const t0 = performance.now();
  const running = (): boolean => performance.now() - t0 < durationMs && !fz.gaveUp;
  const counts = { sql: 0, csv: 0, export: 0 };
  let nextSql = 0;
  let nextCsv = 0;
  const exports = [
    { path: `/exp?query=${encodeQuery('SELECT * FROM fz_all')}`, check: (b: Buffer) => b.length > 0 },
    {
      path: `/exp?query=${encodeQuery('SELECT * FROM fz_quotes')}&fmt=parquet`,
      check: (b: Buffer) => b.subarray(0, 4).toString() === 'PAR1' && b.subarray(-4).toString() === 'PAR1',
    },
    {
      path: `/exec?query=${encodeQuery('SELECT * FROM fz_ref')}`,
      check: (b: Buffer) => Array.isArray((JSON.parse(b.toString()) as { dataset?: unknown }).dataset),
    },
  ];
  const workers: Array<Promise<void>> = [];
  for (let c = 0; c < SQL_CONNECTIONS; c++) {
    workers.push(
      (async () => {
        while (running()) {
          await sendSql(fz, sqlRequest(seed, nextSql++, skip));
          counts.sql++;
        }
      })(),
    );
  }
  for (let c = 0; c < CSV_CONNECTIONS; c++) {
    workers.push(
      (async () => {
        while (running()) {
          await uploads.send(csvRequest(seed, nextCsv++));
          counts.csv++;
        }
      })(),
    );
  }
  for (let c = 0; c < EXPORT_CONNECTIONS; c++) {
    workers.push(
      (async () => {
        for (let k = 0; running(); k++) {
          const e = exports[k % exports.length]!;
          const r = await fz.send(e.path, {}, { index: k, category: 'export', repro: e.path });
          counts.export++;
          if (r === null) continue;
          fz.count(String(r.status));
          if (r.status !== 200 || !e.check(r.body))
            fz.fail({
              index: k,
              category: 'export',
              repro: e.path,
              problem: `export answered ${r.status}`,
              detail: r.body.toString('utf8').slice(0, 400),
            });
        }
      })(),
    );
  }
  // Every second: RSS, the probe's URLs after a restart; every 5 s: the unhandled counter; a progress line a minute.
  let unhandled = 0;
  const monitor = (async () => {
    for (let tick = 1; running(); tick++) {
      await sleep(1000);
      fz.sampleRss();
      if (fz.generation !== probeGeneration && !fz.gaveUp) {
        probeGeneration = fz.generation;
        probe.send({ type: 'urls', health: fz.server.healthUrl, main: fz.mainUrl });
      }
      if (tick % 5 === 0) unhandled = await fz.unhandled();
      if (tick % 60 === 0) {
        console.log(
          `  ${tick / 60} min: ${counts.sql} SQL, ${counts.csv} uploads, ${counts.export} exports; RSS now ${mib(rss(fz.server).now)}, peak ${mib(fz.peakRss)}; ` +
            `failures ${fz.failures.length}, crashes ${fz.crashes}, wedges ${fz.wedges}, unhandled ${unhandled}`,
        );
      }
    }
  })();
  await Promise.all([...workers, monitor]);
  probe.send({ type: 'stop' });
  const probes = await probeDone;
  const seconds = (performance.now() - t0) / 1000;
  unhandled = await fz.unhandled();
  const endRss = rss(fz.server);
  fz.sampleRss();
  const referenceIntact = fz.gaveUp ? false : JSON.stringify(await referenceState(fz)) === JSON.stringify(reference);
  const bound = idle + (SQL_CONNECTIONS + CSV_CONNECTIONS + EXPORT_CONNECTIONS) * SUITE_QUERY_MEMORY + RSS_SLACK;
  const statuses = Object.fromEntries([...fz.statuses].sort());
  const fives = [...fz.statuses].filter(([k]) => Number(k) >= 500).reduce((n, [, v]) => n + v, 0);
  const figures = {
    minutes: +(seconds / 60).toFixed(1),
    seed,
    skipped: [...skip],
    connections,
    requests: {
      sql: counts.sql,
      uploads: counts.csv,
      exports: counts.export,
      probes: probes.health.n + probes.select1.n,
    },
    statuses,
    fives,
    crashes: fz.crashes,
    wedges: fz.wedges,
    unhandled,
    failures: fz.failures.length,
    referenceIntact,
    healthMs: {
      p50: +probes.health.p50.toFixed(1),
      p99: +probes.health.p99.toFixed(1),
      max: +probes.health.max.toFixed(1),
      bad: probes.health.bad,
    },
    select1Ms: {
      p50: +probes.select1.p50.toFixed(1),
      p99: +probes.select1.p99.toFixed(1),
      max: +probes.select1.max.toFixed(1),
      bad: probes.select1.bad,
    },
    rssMiB: {
      idle: +(idle / 2 ** 20).toFixed(0),
      peak: +(fz.peakRss / 2 ** 20).toFixed(0),
      end: +(endRss.now / 2 ** 20).toFixed(0),
      bound: +(bound / 2 ** 20).toFixed(0),
      addressSpaceCap: SUITE_ADDRESS_SPACE / 2 ** 20,
    },
    limits: {
      queryMemoryMiB: SUITE_QUERY_MEMORY / 2 ** 20,
      importMemoryMiB: SUITE_QUERY_MEMORY / 2 ** 20,
      statementTimeoutMs: 2000,
    },
  };
  console.log(
    `\nsoak: ${figures.minutes} min, ${counts.sql} SQL requests, ${counts.csv} uploads, ${counts.export} exports, ${figures.requests.probes} probes`,
  );
  console.log('| figure | value |\n|---|---|');
  console.log(
    `| requests by status | ${Object.entries(statuses)
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ')} |`,
  );
  console.log(`| 5xx / crashes / wedges / unhandled errors | ${fives} / ${fz.crashes} / ${fz.wedges} / ${unhandled} |`);
  console.log(
    `| health check p50 / p99 / max (ms) | ${figures.healthMs.p50} / ${figures.healthMs.p99} / ${figures.healthMs.max} (${probes.health.n} probes, ${probes.health.bad} bad) |`,
  );
  console.log(
    `| select 1 p50 / p99 / max (ms) | ${figures.select1Ms.p50} / ${figures.select1Ms.p99} / ${figures.select1Ms.max} (${probes.select1.n} probes, ${probes.select1.bad} bad) |`,
  );
  console.log(
    `| RSS idle / peak / end (MiB) | ${figures.rssMiB.idle} / ${figures.rssMiB.peak} / ${figures.rssMiB.end}; bound ${figures.rssMiB.bound} (idle + ${SQL_CONNECTIONS + CSV_CONNECTIONS + EXPORT_CONNECTIONS} x 256 MiB + 256 MiB), cap ${figures.rssMiB.addressSpaceCap} |`,
  );
  console.log(`| reference table intact | ${referenceIntact ? 'yes' : 'NO'} |`);
  if (fz.failures.length > 0) console.log(`\n${fz.report(seed, () => true, 30)}`);
  if (process.env.SOAK_JSON) writeFileSync(process.env.SOAK_JSON, JSON.stringify(figures, null, 2));
  // The server's console log (every request with its status and time) for finding what a failure coincided with.
  if (process.env.SOAK_LOG) writeFileSync(process.env.SOAK_LOG, fz.server.stdout());
  await fz.stop();
  const clean =
    fz.failures.length === 0 &&
    fives === 0 &&
    fz.crashes + fz.wedges === 0 &&
    unhandled === 0 &&
    fz.peakRss <= bound &&
    referenceIntact &&
    probes.health.bad === 0 &&
    probes.select1.bad === 0;
  process.exitCode = clean ? 0 : 1;
}

if (process.argv.includes('--probe-child')) await probeChild();
else await main();
