// Test helper: runs the real Prometheus (Debian package prometheus) in a temporary
// folder, scraping the given targets, so e2e tests can check what it records.
import { spawn, type ChildProcess } from 'node:child_process';
import { constants, rmSync } from 'node:fs';
import { access, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { freePort } from './ports.js';

export interface PrometheusOptions {
  /** Scrape targets as host:port, all in one job named `svcdb`. */
  targets: string[];
  /** Path scraped on every target; default `/metrics`. */
  metricsPath?: string;
  /** Scrape interval (and timeout); default 1000 ms. */
  scrapeIntervalMs?: number;
  basicAuth?: { username: string; password: string };
  /** Binary to run; default `/usr/bin/prometheus`. */
  binary?: string;
  /** Bound on waiting for `/-/ready`; default 30 000 ms. */
  startTimeoutMs?: number;
}

export interface PrometheusHandle {
  port: number;
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Instant query; resolves to the API's `data` (`{ resultType, result }`), rejects on an API error. */
  query(promql: string): Promise<any>;
  /** Polls `promql` until `pred(data.result)` holds; rejects after `timeoutMs` with the last result and target health. */
  waitFor(promql: string, pred: (result: any[]) => boolean, timeoutMs: number): Promise<any[]>;
  /** The `data` of `/api/v1/targets` (`{ activeTargets, droppedTargets }`). */
  targets(): Promise<any>;
  /** SIGTERM, SIGKILL after 10 s, then removes the temporary folder. Safe to call twice. */
  stop(): Promise<void>;
}

const DEFAULT_BINARY = '/usr/bin/prometheus';
const POLL_MS = 50;
const STOP_GRACE_MS = 10_000;
const OUTPUT_KEEP = 16_384;

/** Starts Prometheus and resolves once it reports ready. */
export async function startPrometheus(opts: PrometheusOptions): Promise<PrometheusHandle> {
  const binary = opts.binary ?? DEFAULT_BINARY;
  const intervalMs = opts.scrapeIntervalMs ?? 1000;
  if (opts.targets.length === 0 || opts.targets.some((t) => !/^[^\s/]+:\d+$/.test(t))) {
    throw new Error(`targets must be host:port, got ${JSON.stringify(opts.targets)}`);
  }
  if (!Number.isInteger(intervalMs) || intervalMs < 10) throw new Error(`bad scrapeIntervalMs ${intervalMs}`);
  if (opts.metricsPath !== undefined && !opts.metricsPath.startsWith('/'))
    throw new Error(`metricsPath must start with /`);
  try {
    await access(binary, constants.X_OK);
  } catch (cause) {
    throw new Error(`${binary} is missing: install the Debian package prometheus (apt-get install prometheus)`, {
      cause,
    });
  }

  const dir = await mkdtemp(join(tmpdir(), 'svcdb-prometheus-'));
  try {
    // JSON is valid YAML, and spares us quoting passwords and paths.
    const job = {
      job_name: 'svcdb',
      metrics_path: opts.metricsPath ?? '/metrics',
      static_configs: [{ targets: opts.targets }],
      ...(opts.basicAuth ? { basic_auth: opts.basicAuth } : {}),
    };
    const config = {
      global: { scrape_interval: `${intervalMs}ms`, scrape_timeout: `${intervalMs}ms` },
      scrape_configs: [job],
    };
    await writeFile(join(dir, 'prometheus.yml'), JSON.stringify(config, null, 2));
    // Another process can take the free port between our probe and Prometheus binding it; retry then.
    for (let attempt = 1; ; attempt++) {
      const started = await launch(binary, dir, await freePort(), opts.startTimeoutMs ?? 30_000);
      if ('handle' in started) return started.handle;
      if (!started.portTaken || attempt === 3) throw started.error;
    }
  } catch (err) {
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}

type Launch = { handle: PrometheusHandle } | { error: Error; portTaken: boolean };

async function launch(binary: string, dir: string, port: number, startTimeoutMs: number): Promise<Launch> {
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(
    binary,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_KEEP);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = exitOf(child);
  // A test that forgets stop() or throws must neither hang on Prometheus nor leave it running.
  // (A test process killed by a signal still orphans it.)
  child.unref();
  for (const pipe of [child.stdout, child.stderr]) (pipe as unknown as { unref?: () => void } | null)?.unref?.();
  const killOnExit = (): void => {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  process.once('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.ref(); // keep this process alive until the exit is seen
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      }
      process.removeListener('exit', killOnExit);
      await rm(dir, { recursive: true, force: true });
    })();
    return stopping;
  };

  const ready = await waitReady(url, exited, startTimeoutMs);
  if (ready !== true) {
    const portTaken = /address already in use/i.test(output);
    child.ref();
    child.kill('SIGKILL');
    await exited;
    process.removeListener('exit', killOnExit);
    return { error: new Error(`prometheus did not become ready: ${ready}\n${output.slice(-4000)}`), portTaken };
  }

  const query = (promql: string): Promise<any> => getData(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
  const targets = (): Promise<any> => getData(`${url}/api/v1/targets`);
  const waitFor = async (promql: string, pred: (result: any[]) => boolean, timeoutMs: number): Promise<any[]> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { result } = await query(promql);
      if (pred(result)) return result;
      if (Date.now() >= deadline) {
        const health = (await targets()).activeTargets.map((t: any) => `${t.scrapeUrl} ${t.health} ${t.lastError}`);
        throw new Error(
          `timed out after ${timeoutMs} ms waiting for ${promql}; last result ${JSON.stringify(result)}; targets ${JSON.stringify(health)}`,
        );
      }
      await delay(POLL_MS);
    }
  };
  return { handle: { port, url, query, waitFor, targets, stop } };
}

/** Resolves when the process ends, whether by exit or by a failure to spawn. */
function exitOf(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    child.once('exit', (code, signal) => resolve(`exited with ${signal ?? code}`));
    child.once('error', (err) => resolve(`failed: ${err.message}`));
  });
}

/** Polls /-/ready until 200; resolves true, or the reason it gave up. */
async function waitReady(url: string, exited: Promise<string>, timeoutMs: number): Promise<true | string> {
  let exit: string | undefined;
  void exited.then((why) => (exit = why));
  let last = 'no answer';
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exit !== undefined) return exit;
    try {
      const { statusCode, body } = await request(`${url}/-/ready`);
      await body.dump();
      if (statusCode === 200) return true;
      last = `status ${statusCode}`;
    } catch (err) {
      // Connection refused is expected until Prometheus listens; keep it for the timeout message.
      last = (err as Error).message;
    }
    await delay(POLL_MS);
  }
  return exit ?? `no 200 from /-/ready within ${timeoutMs} ms (last: ${last})`;
}

async function getData(url: string): Promise<any> {
  const { statusCode, body } = await request(url);
  const json = (await body.json()) as any;
  if (json?.status !== 'success') throw new Error(`GET ${url}: ${statusCode} ${json?.errorType}: ${json?.error}`);
  return json.data;
}
