// Runs the built server (dist/bin/svcdb.js) as a child process on ephemeral
// ports with its own temporary root, as end-to-end tests need it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../bin/svcdb.js', import.meta.url));

export interface ServerProcess {
  readonly root: string;
  readonly child: ChildProcess;
  readonly mainUrl: string;
  readonly healthUrl: string;
  /** Everything the process printed to standard output so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line matching `re`. */
  waitForLine(re: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then waits for exit; returns the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

export interface StartOptions {
  /** SVC_* settings; ports default to 127.0.0.1:0. */
  readonly env?: Record<string, string>;
  readonly args?: readonly string[];
  /** Files to write under the root before start, e.g. `conf/server.conf`. */
  readonly files?: Record<string, string>;
  /** Use this root instead of a new temporary one (kept after stop). */
  readonly root?: string;
  /** Resolve as soon as the process runs, without waiting for "server is ready". */
  readonly noWait?: boolean;
  /** Node options before the script, e.g. `--cpu-prof` (which NODE_OPTIONS does not allow). */
  readonly execArgv?: readonly string[];
  /**
   * An address-space cap in bytes (`ulimit -v`): a request that blows up memory then kills the
   * server (which the test sees) instead of exhausting the machine. An idle server maps ~1.7 GB.
   */
  readonly addressSpaceLimit?: number;
  /** The CLI script to run instead of dist/bin/svcdb.js (a copy of the build elsewhere). */
  readonly cli?: string;
}

const roots = new Set<string>();
// Temporary roots are removed when the test process ends, whatever happened.
process.on('exit', () => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

export function makeRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'svcdb-test-'));
  roots.add(root);
  return root;
}

export async function startServer(opts: StartOptions = {}): Promise<ServerProcess> {
  const root = opts.root ?? makeRoot();
  for (const [rel, text] of Object.entries(opts.files ?? {})) {
    mkdirSync(join(root, rel, '..'), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    SVC_HTTP_NET_BIND_TO: '127.0.0.1:0',
    SVC_HTTP_MIN_NET_BIND_TO: '127.0.0.1:0',
    ...opts.env,
  };
  const argv = [...(opts.execArgv ?? []), opts.cli ?? CLI, 'serve', '-d', root, ...(opts.args ?? [])];
  const child =
    opts.addressSpaceLimit === undefined
      ? spawn(process.execPath, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] })
      : // The shell sets the cap and execs node in its place, so child.pid is the server's.
        spawn(
          '/bin/sh',
          [
            '-c',
            'ulimit -v "$0" && exec "$@"',
            String(Math.floor(opts.addressSpaceLimit / 1024)),
            process.execPath,
            ...argv,
          ],
          { env, stdio: ['ignore', 'pipe', 'pipe'] },
        );
  let out = '';
  let err = '';
  const waiters: Array<{ re: RegExp; resolve: (l: string) => void }> = [];
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    for (const w of [...waiters]) {
      const line = out.split('\n').find((l) => w.re.test(l));
      if (line !== undefined) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitForLine = (re: RegExp, timeoutMs = 15_000): Promise<string> => {
    const hit = out.split('\n').find((l) => re.test(l));
    if (hit !== undefined) return Promise.resolve(hit);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no line ${re} within ${timeoutMs} ms; stdout:\n${out}\nstderr:\n${err}`)),
        timeoutMs,
      );
      const w = {
        re,
        resolve: (l: string) => {
          clearTimeout(timer);
          resolve(l);
        },
      };
      waiters.push(w);
      void exited.then(() => {
        clearTimeout(timer);
        if (waiters.includes(w)) reject(new Error(`server exited before ${re}; stdout:\n${out}\nstderr:\n${err}`));
      });
    });
  };
  const proc: ServerProcess = {
    root,
    child,
    exited,
    mainUrl: '',
    healthUrl: '',
    stdout: () => out,
    stderr: () => err,
    waitForLine,
    async stop(signal = 'SIGTERM') {
      // One signal only: a second one makes the server exit at once with code 1.
      if (!child.killed && child.exitCode === null && child.signalCode === null) child.kill(signal);
      const code = await exited;
      if (!opts.root) {
        rmSync(root, { recursive: true, force: true });
        roots.delete(root);
      }
      return code;
    },
  };
  if (opts.noWait) return proc;
  try {
    await waitForLine(/ A server-main server is ready/);
  } catch (e) {
    child.kill('SIGKILL');
    await exited;
    throw e;
  }
  const main = /http server listening on (http:\/\/\S+)/.exec(out)?.[1] ?? '';
  const health = /health server listening on (http:\/\/\S+)/.exec(out)?.[1] ?? '';
  return { ...proc, mainUrl: main, healthUrl: health };
}
