// Health-check latency benchmark: p50/p99/max of GET / on the health port while idle (the peer
// figure), while the main port is under autocannon load, and while the main event loop is blocked
// repeatedly, with the health server in a worker thread and in the main event loop.
import { fork, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { Client } from 'undici';
import { startServer, type ServerProcess } from '../test/helpers/server-process.js';
import { probeHealth, type Latencies } from './stats.js';

/** Pace of the health probe: one request every PROBE_INTERVAL_MS, never two in flight. */
const PROBE_INTERVAL_MS = 5;
const LOAD_CONNECTIONS = 32;
const LOAD_PATH = '/nope';
/** The block phase: a BLOCK_MS busy block of the main event loop every BLOCK_EVERY_MS. */
const BLOCK_MS = 50;
const BLOCK_EVERY_MS = 100;
const SETTLE_MS = 500;
/** Back-to-back probes before measuring: JIT warm-up on both sides (the idle p50 drifts down ~30% without it). */
const WARMUP_MS = 1500;

/** idle-after repeats idle at the end, for half as long: the spread between the two is the noise floor. */
type Phase = 'idle' | 'load' | 'block' | 'idle-after';
const PHASES: readonly Phase[] = ['idle', 'load', 'block', 'idle-after'];
const MODES = [
  { name: 'worker thread', workerCount: 1 },
  { name: 'main event loop', workerCount: 0 },
] as const;

/** What the parent asks the load child to do. */
interface LoadSpec {
  readonly kind: 'load' | 'block';
  readonly url: string;
  readonly seconds: number;
}

/** What the load child reports over IPC. */
type ChildMessage =
  | { readonly type: 'started' }
  | {
      readonly type: 'done';
      readonly requests: number;
      readonly seconds: number;
      readonly non2xx: number;
      readonly errors: number;
    }
  | { readonly type: 'failed'; readonly message: string };

interface Row extends Latencies {
  readonly mode: string;
  readonly workerCount: number;
  readonly phase: Phase;
  readonly p50Ratio: number;
  readonly p99Ratio: number;
  /** Main-port requests completed per second by the load child (null when idle). */
  readonly mainReqPerSec: number | null;
  readonly mainRequests: number | null;
  readonly mainErrors: number | null;
}

// ---------------------------------------------------------------------------
// The load child: this same file run with --load-child, so that autocannon and
// the block loop do not share an event loop with the latency measurer.

type DoneMessage = Extract<ChildMessage, { type: 'done' }>;

async function runLoadChild(spec: LoadSpec, send: (m: ChildMessage) => void): Promise<DoneMessage> {
  if (spec.kind === 'load') {
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const instance = autocannon(
        { url: spec.url + LOAD_PATH, connections: LOAD_CONNECTIONS, duration: spec.seconds },
        (err, res) => {
          if (err) reject(err);
          else resolve(res);
        },
      );
      instance.on('start', () => send({ type: 'started' }));
    });
    return {
      type: 'done',
      requests: result.requests.total,
      seconds: result.duration,
      non2xx: result.non2xx,
      errors: result.errors,
    };
  }
  // Block loop: evenly spaced blocks (autocannon's rate limit sends each second's quota in a burst).
  const client = new Client(spec.url, { keepAliveTimeout: 60_000 });
  try {
    const started = performance.now();
    const end = started + spec.seconds * 1000;
    let requests = 0;
    let non2xx = 0;
    let errors = 0;
    send({ type: 'started' });
    for (let next = started; next < end; next += BLOCK_EVERY_MS) {
      const wait = next - performance.now();
      if (wait > 0) await sleep(wait);
      try {
        const res = await client.request({ method: 'GET', path: `/debug/block?ms=${BLOCK_MS}` });
        await res.body.text();
        if (res.statusCode !== 200) non2xx++;
        requests++;
      } catch {
        errors++;
      }
    }
    return { type: 'done', requests, seconds: (performance.now() - started) / 1000, non2xx, errors };
  } finally {
    await client.close();
  }
}

// ---------------------------------------------------------------------------
// The measurer.

const children = new Set<ChildProcess>();
const servers = new Set<ServerProcess>();

function startLoadChild(spec: LoadSpec): { started: Promise<void>; done: Promise<DoneMessage> } {
  const child = fork(fileURLToPath(import.meta.url), ['--load-child', JSON.stringify(spec)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  let onStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    onStarted = resolve;
  });
  const done = new Promise<DoneMessage>((resolve, reject) => {
    child.on('message', (m: ChildMessage) => {
      if (m.type === 'started') onStarted();
      else if (m.type === 'done') resolve(m);
      else reject(new Error(`load child failed: ${m.message}`));
    });
    child.once('exit', (code, signal) => {
      children.delete(child);
      reject(new Error(`load child exited (code ${code}, signal ${signal}) before reporting`));
    });
    child.once('error', reject);
  });
  // A child that dies before 'started' must not leave the caller waiting.
  void done.then(onStarted, onStarted);
  return { started, done };
}

async function stopServer(server: ServerProcess): Promise<void> {
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 5000);
  try {
    await server.stop();
  } finally {
    clearTimeout(timer);
    servers.delete(server);
  }
}

/** Last resort on a signal or a crash: kill what is still running and remove the servers' temporary roots. */
function killAll(): void {
  for (const c of children) c.kill('SIGKILL');
  for (const s of servers) {
    s.child.kill('SIGKILL');
    rmSync(s.root, { recursive: true, force: true });
  }
  servers.clear();
}

async function measureMode(mode: (typeof MODES)[number], seconds: number): Promise<Row[]> {
  // noWait, so that a server that never gets ready is still ours to stop.
  const server = await startServer({
    noWait: true,
    env: {
      SVC_HTTP_MIN_WORKER_COUNT: String(mode.workerCount),
      SVC_HTTP_DEBUG_ENDPOINTS_ENABLED: 'true',
      // 404s are logged at INFO; keep them off the stdout pipe this process reads.
      SVC_LOG_W_STDOUT_LEVEL: 'ADVISORY,CRITICAL,ERROR',
    },
  });
  servers.add(server);
  let client: Client | null = null;
  const rows: Row[] = [];
  try {
    await server.waitForLine(/ A server-main server is ready/);
    const mainUrl = /http server listening on (http:\/\/\S+)/.exec(server.stdout())?.[1];
    const healthUrl = /health server listening on (http:\/\/\S+)/.exec(server.stdout())?.[1];
    if (mainUrl === undefined || healthUrl === undefined)
      throw new Error(`no listening addresses in the server's output:\n${server.stdout()}`);
    client = new Client(healthUrl, { keepAliveTimeout: 60_000, pipelining: 1 });
    await probeHealth(client, sleep(WARMUP_MS), 0);
    let idle: Latencies | null = null;
    for (const phase of PHASES) {
      await sleep(SETTLE_MS);
      let lat: Latencies;
      let main: DoneMessage | null = null;
      if (phase === 'idle' || phase === 'idle-after') {
        lat = await probeHealth(
          client,
          sleep((phase === 'idle' ? seconds : Math.max(1, seconds / 2)) * 1000),
          PROBE_INTERVAL_MS,
        );
        idle ??= lat;
      } else {
        const load = startLoadChild({ kind: phase, url: mainUrl, seconds });
        // The probe runs exactly while the child loads: from its 'started' to its report.
        await load.started;
        lat = await probeHealth(
          client,
          load.done.catch(() => undefined),
          PROBE_INTERVAL_MS,
        );
        main = await load.done;
      }
      const base = idle ?? lat;
      rows.push({
        mode: mode.name,
        workerCount: mode.workerCount,
        phase,
        ...lat,
        p50Ratio: lat.p50Ms / base.p50Ms,
        p99Ratio: lat.p99Ms / base.p99Ms,
        mainReqPerSec: main ? main.requests / main.seconds : null,
        mainRequests: main ? main.requests : null,
        // The load phase's 404s are its expected answers; only the block phase expects 200.
        mainErrors: main ? main.errors + (phase === 'block' ? main.non2xx : 0) : null,
      });
    }
  } finally {
    try {
      await client?.close();
    } finally {
      await stopServer(server);
    }
  }
  return rows;
}

class UsageError extends Error {}

function parseDuration(argv: readonly string[]): number {
  let seconds = 10;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    const v = a === '--duration' ? argv[++i] : a.startsWith('--duration=') ? a.slice(11) : undefined;
    if (a === '--duration' || a.startsWith('--duration=')) {
      const n = Number(v);
      if (!Number.isFinite(n) || n < 1 || n > 60)
        throw new UsageError(`--duration needs seconds between 1 and 60 [got ${v}]`);
      seconds = n;
    } else {
      throw new UsageError(`unknown argument ${a} (usage: health-latency [--duration <s>])`);
    }
  }
  return seconds;
}

const f1 = (n: number | null): string => (n === null ? '-' : n.toFixed(n < 10 ? 2 : 1));
const fx = (n: number): string => `${n.toFixed(2)}x`;

function printTable(rows: readonly Row[]): void {
  const head = [
    'health server',
    'phase',
    'probes',
    'p50 ms',
    'p99 ms',
    'max ms',
    'p50/idle',
    'p99/idle',
    'bad',
    'main req/s',
  ];
  const body = rows.map((r) => [
    r.mode,
    r.phase,
    String(r.requests),
    f1(r.p50Ms),
    f1(r.p99Ms),
    f1(r.maxMs),
    fx(r.p50Ratio),
    fx(r.p99Ratio),
    String(r.bad),
    r.mainReqPerSec === null ? '-' : r.mainReqPerSec.toFixed(0),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells.map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const b of body) console.log(line(b));
}

async function main(): Promise<void> {
  const seconds = parseDuration(process.argv.slice(2));
  console.log(
    `health-latency: GET / on the health port, one request every ${PROBE_INTERVAL_MS} ms (sequential, keep-alive undici Client), ${seconds} s per phase`,
  );
  console.log(
    `  idle:  no other traffic (the peer figure each mode's other figures are divided by), after ${WARMUP_MS} ms of back-to-back warm-up probes`,
  );
  console.log(
    `  load:  autocannon, ${LOAD_CONNECTIONS} connections on GET ${LOAD_PATH} of the main port, in a child process`,
  );
  console.log(
    `  block: GET /debug/block?ms=${BLOCK_MS} every ${BLOCK_EVERY_MS} ms from a child process (main event loop busy ${Math.round((100 * BLOCK_MS) / BLOCK_EVERY_MS)}% of the time)`,
  );
  console.log(
    `  idle-after: idle again for ${Math.max(1, seconds / 2)} s at the end; its ratios show the run's noise floor`,
  );
  console.log(
    `  machine: ${cpus().length} cores shared by the server, the load child and this measurer; Node ${process.version}; server stdout limited to A/C/E lines`,
  );
  console.log('');
  const rows: Row[] = [];
  for (const mode of MODES) rows.push(...(await measureMode(mode, seconds)));
  printTable(rows);
  console.log('');
  const skipped = rows.filter((r) => r.skipped > 0).map((r) => `${r.mode}/${r.phase}: ${r.skipped}`);
  if (skipped.length) console.log(`probe slots skipped while an answer was late: ${skipped.join(', ')}`);
  console.log('main req/s: load = GET /nope answered per second (404s); block = /debug/block requests per second');
  console.log(
    JSON.stringify({
      benchmark: 'health-latency',
      node: process.version,
      cores: cpus().length,
      secondsPerPhase: seconds,
      probeIntervalMs: PROBE_INTERVAL_MS,
      loadConnections: LOAD_CONNECTIONS,
      blockMs: BLOCK_MS,
      blockEveryMs: BLOCK_EVERY_MS,
      loadGenerator: 'child process',
      results: rows.map((r) => ({
        mode: r.mode,
        workerCount: r.workerCount,
        phase: r.phase,
        probes: r.requests,
        p50Ms: round(r.p50Ms),
        p99Ms: round(r.p99Ms),
        maxMs: round(r.maxMs),
        p50Ratio: round(r.p50Ratio),
        p99Ratio: round(r.p99Ratio),
        bad: r.bad,
        skipped: r.skipped,
        mainReqPerSec: r.mainReqPerSec === null ? null : Math.round(r.mainReqPerSec),
        mainRequests: r.mainRequests,
        mainErrors: r.mainErrors,
      })),
    }),
  );
}

const round = (n: number): number => Math.round(n * 1000) / 1000;

if (process.argv[2] === '--load-child') {
  // The parent went away: stop at once rather than keep loading the server.
  process.on('disconnect', () => process.exit(0));
  // Exit only once the last message is handed over: process.send is asynchronous.
  const sendThenExit = (m: ChildMessage, code: number): void => {
    if (process.send) process.send(m, () => process.exit(code));
    else process.exit(code);
  };
  runLoadChild(JSON.parse(process.argv[3] ?? '{}') as LoadSpec, (m) => process.send?.(m)).then(
    (done) => sendThenExit(done, 0),
    (e: unknown) => sendThenExit({ type: 'failed', message: e instanceof Error ? e.message : String(e) }, 1),
  );
} else {
  const onSignal = (sig: NodeJS.Signals): void => {
    killAll();
    process.stderr.write(`health-latency: ${sig}, stopped every process it started\n`);
    process.exit(1);
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  process.on('exit', killAll);
  main().catch((e: unknown) => {
    killAll();
    console.error(e instanceof UsageError ? `health-latency: ${e.message}` : e instanceof Error ? e.stack : String(e));
    process.exitCode = 1;
  });
}
