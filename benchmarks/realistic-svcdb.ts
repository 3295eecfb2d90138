// The svcdb side of bench:realistic: the built server as a child process on free ports, used as a
// user does over HTTP (a streamed multipart POST /imp, /exec with timings=true, /exp to a file).
import { execFile, execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startServer } from '../test/helpers/server-process.js';
import type { TradesCsv } from './realistic-csv.js';
import { cpuSeconds, peakMib, resetPeak, summarize, type Described, type System } from './realistic-work.js';

const BOUNDARY = '----svcdb-bench-realistic-5e1c';
/** A 100M-row import answers after minutes: no client-side timeouts. */
const NO_TIMEOUTS = { headersTimeout: 0, bodyTimeout: 0 };
/** The types a user's import of the file gets: text columns VARCHAR, never SYMBOL; ts designated. */
const EXPECTED_COLUMNS = 'ts TIMESTAMP designated, sym VARCHAR, price DOUBLE, amount DOUBLE, side VARCHAR';

/**
 * curl on the PATH, which imports and exports go through as the issue's user does (`curl -F
 * data=@file /imp`, `curl /exp > file`): the client's own CPU then stays a small part of the
 * machine's 2 cores. Without it, the same requests through undici in this process.
 */
const CURL: string | null = (() => {
  try {
    execFileSync('curl', ['--version'], { stdio: 'ignore' });
    return 'curl';
  } catch {
    return null;
  }
})();

/** The HTTP client the imports and exports use, for the record. */
export const HTTP_CLIENT = CURL !== null ? 'curl' : 'undici (no curl on the PATH)';

/** Runs curl with `args` (after -sS); its stdout, then the status code it wrote last with -w. */
function curl(args: readonly string[]): Promise<{ body: string; status: number }> {
  return new Promise((resolve, reject) => {
    execFile(CURL!, ['-sS', ...args, '-w', '\n%{http_code}'], { maxBuffer: 64 << 20 }, (e, stdout, stderr) => {
      if (e) return reject(new Error(`curl ${args.join(' ')}: ${stderr.trim() || e.message}`));
      const at = stdout.lastIndexOf('\n');
      resolve({ body: stdout.slice(0, at), status: Number(stdout.slice(at + 1)) });
    });
  });
}

/** POSTs the CSV as the `data` part of a multipart body streamed from disk: `curl -F data=@file`. */
async function postImport(baseUrl: string, file: string): Promise<{ rowsImported: number; rowsRejected: number }> {
  const url = `${baseUrl}/imp?name=t&timestamp=ts&partitionBy=DAY&fmt=json`;
  if (CURL !== null) {
    const r = await curl(['-F', `data=@${file};filename=trades.csv;type=text/csv`, url]);
    if (r.status !== 200) throw new Error(`POST /imp answered ${r.status}: ${r.body}`);
    return JSON.parse(r.body) as { rowsImported: number; rowsRejected: number };
  }
  const pre = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="data"; filename="trades.csv"\r\nContent-Type: text/csv\r\n\r\n`,
  );
  const post = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  async function* parts(): AsyncGenerator<Buffer> {
    yield pre;
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) yield chunk as Buffer;
    yield post;
  }
  const res = await request(url, {
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
  const url = `${baseUrl}/exec?query=${encodeURIComponent(sql)}${timings ? '&timings=true' : ''}`;
  const res = await request(url, NO_TIMEOUTS);
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`/exec of ${sql} answered ${res.statusCode}: ${text}`);
  return JSON.parse(text) as ExecAnswer;
}

/** GET /exp streamed to `out`: `curl -o out`; returns the file's size. */
async function exportTo(baseUrl: string, sql: string, fmt: string, level: number | null, out: string): Promise<number> {
  const params = `${fmt === 'csv' ? '' : `&fmt=${fmt}`}${level === null ? '' : `&compression_level=${level}`}`;
  const url = `${baseUrl}/exp?query=${encodeURIComponent(sql)}${params}`;
  if (CURL !== null) {
    const r = await curl(['-o', out, url]);
    if (r.status !== 200)
      throw new Error(`/exp fmt=${fmt} answered ${r.status}: ${readFileSync(out, 'utf8').slice(0, 500)}`);
    return statSync(out).size;
  }
  const res = await request(url, NO_TIMEOUTS);
  if (res.statusCode !== 200) throw new Error(`/exp fmt=${fmt} answered ${res.statusCode}: ${await res.body.text()}`);
  await pipeline(res.body, createWriteStream(out));
  return statSync(out).size;
}

/** The package's version and the checkout's commit (-dirty: with uncommitted changes), for the record. */
function svcdbVersion(): string {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as {
    version: string;
  };
  try {
    const commit = execFileSync('git', ['describe', '--always', '--dirty', '--abbrev=7'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
    return `${pkg.version} (${commit})`;
  } catch (e) {
    return `${pkg.version} (commit unknown: ${e instanceof Error ? e.message.split('\n')[0] : String(e)})`;
  }
}

/**
 * The built server with its data folder in `dir` (removed at close) and the SVC_* settings `env`;
 * `track` registers the kill and removal for the caller's cleanup and returns its undoing.
 */
export async function svcdbSystem(
  csv: TradesCsv,
  dir: string,
  env: Record<string, string>,
  track: (undo: () => void) => () => void,
): Promise<System> {
  const root = mkdtempSync(join(dir, 'svcdb-root-'));
  let kill = (): void => undefined;
  const untrack = track(() => {
    kill();
    rmSync(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  });
  const server = await startServer({ root, env });
  kill = () => server.child.kill('SIGKILL');
  const pid = server.child.pid!;
  const url = server.mainUrl;
  const baseMib = peakMib(pid);
  let cpu0 = 0;
  return {
    name: 'svcdb',
    phaseStart: () => {
      resetPeak(pid);
      cpu0 = cpuSeconds(pid);
      return Promise.resolve();
    },
    phaseEnd: () => Promise.resolve({ peakMib: peakMib(pid), cpuSeconds: cpuSeconds(pid) - cpu0 }),
    importOnce: async (replace) => {
      if (replace) await exec(url, 'drop table t');
      const t0 = performance.now();
      const a = await postImport(url, csv.path);
      const ms = performance.now() - t0;
      if (a.rowsImported !== csv.rows || a.rowsRejected !== 0)
        throw new Error(
          `/imp imported ${a.rowsImported} rows and rejected ${a.rowsRejected}, expected ${csv.rows} and 0`,
        );
      return { ms };
    },
    describe: async () => {
      const cols = await exec(url, `select "column", type, designated from table_columns('t')`);
      const columns = cols.dataset
        .map(([n, t, d]) => `${String(n)} ${String(t)}${d === true ? ' designated' : ''}`)
        .join(', ');
      if (columns !== EXPECTED_COLUMNS)
        throw new Error(
          `the import made the columns ${columns}, not ${EXPECTED_COLUMNS} (what a user's /imp of this file makes)`,
        );
      const rows = Number((await exec(url, 'select count() from t')).dataset[0]?.[0]);
      return { version: svcdbVersion(), columns, rows, baseMib } satisfies Described;
    },
    query: async (q) => {
      const a = await exec(url, q.svcdb, true);
      if (a.timings === undefined) throw new Error('/exec sent no timings');
      // The server's own time: compiling and executing, writing the JSON included.
      return { ms: (a.timings.compiler + a.timings.execute) / 1e6, answer: summarize(a.dataset) };
    },
    exportOnce: async (e) => {
      const out = join(root, `export.${e.ext}`);
      try {
        const t0 = performance.now();
        const bytes = await exportTo(url, 'select * from t', e.ext, e.level, out);
        return { ms: performance.now() - t0, bytes };
      } finally {
        rmSync(out, { force: true });
      }
    },
    close: async () => {
      const code = await server.stop();
      untrack();
      rmSync(root, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
      if (code !== 0) throw new Error(`the server exited with code ${code}: ${server.stderr()}`);
    },
  };
}
