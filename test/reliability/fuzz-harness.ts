// What the seeded fuzzers (fuzz-sql, fuzz-csv) and the soak share: a capped
// server that is restarted on the same root after a crash or a wedge, requests
// with a client deadline, the checks every answer must pass, failure classes
// with seed, request number and a reproduction, RSS and unhandled-error tracking.
import { readFileSync } from 'node:fs';
import { request } from 'undici';
import { makeRoot, type ServerProcess } from '../helpers/server-process.js';
import { rss, startCappedServer, unhandledErrors } from '../helpers/reliability.js';

/** The FUZZ_* environment: seed, how many requests from which number, concurrency, features left out. */
export interface FuzzEnv {
  readonly seed: number;
  readonly from: number;
  readonly count: number;
  readonly concurrency: number;
  readonly skip: ReadonlySet<string>;
  /** Crashes and wedges after which the run stops (each costs a restart). */
  readonly maxCrashes: number;
}

export function fuzzEnv(
  defaults: { seed: number; count: number; concurrency: number },
  known: readonly string[] = [],
): FuzzEnv {
  const num = (name: string, def: number): number => {
    const v = process.env[name];
    if (v === undefined || v === '') return def;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, not ${v}`);
    return n;
  };
  const skip = new Set(
    (process.env.FUZZ_SKIP ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== ''),
  );
  for (const s of skip)
    if (!known.includes(s)) throw new Error(`FUZZ_SKIP: unknown feature ${s} (known: ${known.join(', ')})`);
  return {
    seed: num('FUZZ_SEED', defaults.seed),
    from: num('FUZZ_FROM', 0),
    count: num('FUZZ_COUNT', defaults.count),
    concurrency: Math.max(1, num('FUZZ_CONCURRENCY', defaults.concurrency)),
    skip,
    maxCrashes: num('FUZZ_MAX_CRASHES', 3),
  };
}

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
  readonly ms: number;
}

export interface FuzzFailure {
  readonly index: number;
  readonly category: string;
  /** How to send the request again by hand (a curl line or a description of the upload). */
  readonly repro: string;
  /** One line: `500`, `server exited`, `no answer within 30 s` ... */
  readonly problem: string;
  /** The answer or the server's own words (critical log lines, stderr). */
  readonly detail: string;
  /**
   * When several requests were in flight and any could be the cause (a crash, a wedge, a rise of
   * the unhandled counter): their numbers, replayed one at a time by replayAmbiguous().
   */
  readonly candidates?: readonly number[];
}

/** A request as the harness reports it. */
export interface Sent {
  readonly index: number;
  readonly category: string;
  readonly repro: string;
}

/**
 * The class of a failure, so failures of one kind group together: the problem and the
 * error text (numbers and quoted text blurred); for crashes and wedges, what the request
 * was (its category) and the last words on stderr.
 */
export function failureClass(f: FuzzFailure): string {
  const blur = (t: string): string =>
    t
      .replace(/"query":"(?:[^"\\]|\\.)*",?/, '')
      .replace(/\d+/g, 'N')
      .replace(/'[^']*'/g, "'…'")
      .slice(0, 160);
  const lines = f.detail.split('\n').filter((l) => l.trim() !== '');
  if (/^server (exited|stopped)/.test(f.problem)) {
    // The runtime's own last words: V8's fatal error, a C++ abort, a JavaScript error.
    const words = lines.find((l) => /FATAL ERROR|Fatal|terminate called|what\(\)|Error:/.test(l)) ?? lines[0] ?? '';
    return `${f.problem} | ${f.category.split(':').slice(0, 2).join(':')} | ${blur(words.trim())}`;
  }
  const critical = lines.find((l) => / C \S+ /.test(l));
  return `${f.problem} | ${blur(critical?.replace(/^.* C \S+ /, '').replace(/\\n.*/, '') ?? lines[0] ?? '')}`;
}

const CRITICAL = / C \S+ /;

/**
 * A capped server for a fuzz run: started on its own root, restarted on the same root
 * after a crash or wedge (so the run goes on and every failure class shows), with the
 * failures, statuses, peak RSS and unhandled errors of all its lives.
 */
export class FuzzServer {
  server!: ServerProcess;
  readonly root = makeRoot();
  readonly failures: FuzzFailure[] = [];
  readonly statuses = new Map<string, number>();
  /** Crashes (the process exited) and wedges (it stopped answering and was killed). */
  crashes = 0;
  wedges = 0;
  /** Lives of the server: a request sent to an earlier one was lost with it. */
  generation = 0;
  peakRss = 0;
  #unhandledBefore = 0;
  #unhandledNow = 0;
  #restarting: Promise<void> | null = null;
  #examining: Promise<void> | null = null;
  readonly #inFlight = new Set<Sent & { t0: number }>();
  #logSeen = 0;

  /**
   * `env`: the server's SVC_* settings; `deadlineMs`: how long a request may go without an answer
   * before the server counts as wedged; `maxCrashes`: crashes and wedges after which the run stops;
   * `rerun(index)`: the command that sends request `index` again.
   */
  constructor(
    readonly env: Record<string, string>,
    readonly deadlineMs: number,
    readonly maxCrashes: number,
    readonly rerun: (index: number) => string,
  ) {}

  async start(): Promise<void> {
    this.server = await startCappedServer({ root: this.root, env: this.env });
    this.generation++;
    this.#logSeen = this.server.stdout().length;
  }

  get mainUrl(): string {
    return this.server.mainUrl;
  }
  /** Whether the run gave up after maxCrashes crashes and wedges (no server runs then). */
  get gaveUp(): boolean {
    return this.#gaveUp;
  }
  #gaveUp = false;

  /** Unhandled errors over all lives of the server. */
  async unhandled(): Promise<number> {
    try {
      this.#unhandledNow = await unhandledErrors(this.server);
    } catch {
      /* a dead server keeps its last count */
    }
    return this.#unhandledBefore + this.#unhandledNow;
  }

  /** CPU seconds the server spent (user + system) over all its lives: the load-independent cost of a run. */
  cpuSeconds(): number {
    return this.#cpuBefore + Math.max(this.#cpuLast, this.#cpuNow());
  }

  #cpuBefore = 0;
  /** The last reading of this life (a crashed process has no /proc entry left to read). */
  #cpuLast = 0;

  #cpuNow(): number {
    try {
      // Fields 14 and 15 of /proc/<pid>/stat (after the command in parentheses): utime and stime in clock ticks.
      const stat = readFileSync(`/proc/${this.server.child.pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(f[11]) + Number(f[12])) / 100;
    } catch {
      return 0;
    }
  }

  sampleRss(): void {
    if (this.server.child.exitCode !== null || this.server.child.signalCode !== null) return;
    this.#cpuLast = Math.max(this.#cpuLast, this.#cpuNow());
    try {
      const peak = rss(this.server).peak;
      if (Number.isFinite(peak)) this.peakRss = Math.max(this.peakRss, peak);
    } catch {
      /* exited meanwhile */
    }
  }

  count(label: string): void {
    this.statuses.set(label, (this.statuses.get(label) ?? 0) + 1);
  }

  /** Time spent per request category (where a run's minutes go, to tune the mix). */
  readonly timeByCategory = new Map<string, { n: number; ms: number }>();

  time(category: string, ms: number): void {
    const k = category.split(':').slice(0, 2).join(':');
    const t = this.timeByCategory.get(k) ?? { n: 0, ms: 0 };
    t.n++;
    t.ms += ms;
    this.timeByCategory.set(k, t);
  }

  /** The categories that took longest: `name n×avg ms`. */
  slowest(top = 10): string {
    return [...this.timeByCategory]
      .sort((a, b) => b[1].ms - a[1].ms)
      .slice(0, top)
      .map(([k, t]) => `${k} ${t.n}x${(t.ms / t.n).toFixed(0)}ms`)
      .join(', ');
  }

  /** Critical lines the server logged since the last call (what a 500 or an unhandled error was). */
  criticalLines(): string {
    const out = this.server.stdout();
    const fresh = out.slice(this.#logSeen);
    this.#logSeen = out.length;
    return fresh
      .split('\n')
      .filter((l) => CRITICAL.test(l))
      .join('\n')
      .slice(0, 3000);
  }

  fail(f: Omit<FuzzFailure, 'repro'> & { repro?: string }): void {
    this.failures.push({ ...f, repro: `${f.repro ?? ''}\n    rerun: ${this.rerun(f.index)}` });
  }

  /**
   * Sends a request with the client deadline. A transport failure or a missed deadline is
   * examined (crash or wedge: recorded once, the server restarted) and gives null.
   */
  /**
   * `cutOkAfterMs`: a body cut after this long is an export ending at its timeout, counted not failed;
   * `slowMs`: an answer later than this is a failure (a statement that ran far past its timeout blocks others).
   */
  async send(
    url: string,
    init: Parameters<typeof request>[1],
    what: Sent,
    opts: { cutOkAfterMs?: number; slowMs?: number } = {},
  ): Promise<Reply | null> {
    await this.ready();
    if (this.#gaveUp || this.#stopped) return null;
    const generation = this.generation;
    const t0 = performance.now();
    const done = this.track(what);
    try {
      const res = await request(`${this.mainUrl}${url}`, {
        ...init,
        headersTimeout: this.deadlineMs,
        bodyTimeout: this.deadlineMs,
        signal: AbortSignal.timeout(this.deadlineMs),
      });
      const body = Buffer.from(await res.body.arrayBuffer());
      const ms = performance.now() - t0;
      this.time(what.category, ms);
      if (opts.slowMs !== undefined && ms > opts.slowMs) {
        this.fail({
          ...what,
          ...this.#candidates(what),
          problem: 'slow answer',
          detail: `status ${res.statusCode} after ${(ms / 1000).toFixed(1)} s (more than ${opts.slowMs / 1000} s)`,
        });
      }
      return { status: res.statusCode, headers: res.headers, body, ms };
    } catch (err) {
      const ms = performance.now() - t0;
      this.time(what.category, ms);
      await this.#afterTransportFailure(generation, err, what, ms, opts.cutOkAfterMs);
      return null;
    } finally {
      done();
    }
  }

  /** The requests in flight besides `what`, when there are any: one of them may be the cause. */
  #candidates(what: Sent): { candidates?: number[] } {
    const others = [...this.#inFlight].map((f) => f.index).filter((k) => k >= 0 && k !== what.index);
    return others.length > 0 ? { candidates: [what.index, ...others] } : {};
  }

  /** Waits while a crash is examined or the server restarted (requests are not sent meanwhile). */
  async ready(): Promise<void> {
    while (this.#examining || this.#restarting) await (this.#examining ?? this.#restarting);
  }

  /** Counts a request as in flight (for crash and wedge attribution) until the returned function is called. */
  track(what: Sent): () => void {
    const flight = { ...what, t0: performance.now() };
    this.#inFlight.add(flight);
    return () => {
      this.#inFlight.delete(flight);
    };
  }

  /**
   * Replays the candidates of every ambiguous failure one at a time (`resend` sends request k and
   * checks it alone); a failure explained by what the replays found is dropped, else kept with a note.
   */
  async replayAmbiguous(resend: (index: number) => Promise<void>): Promise<void> {
    for (const f of this.failures.filter((x) => (x.candidates?.length ?? 0) > 1)) {
      if (this.#gaveUp) return;
      const before = this.failures.length;
      for (const k of f.candidates!) {
        if (this.#gaveUp) break;
        await resend(k);
      }
      const at = this.failures.indexOf(f);
      if (this.failures.length > before) this.failures.splice(at, 1);
      else
        this.failures[at] = {
          ...f,
          detail: `${f.detail}\n(not reproduced when #${f.candidates!.join(', #')} were replayed one at a time)`,
        };
    }
  }

  /** Whether the server answers its health check and `select 1` within `ms`. */
  async answers(ms = 5000): Promise<boolean> {
    try {
      const h = await request(`${this.server.healthUrl}/`, { signal: AbortSignal.timeout(ms) });
      await h.body.text();
      const q = await request(`${this.mainUrl}/exec?query=select%201`, { signal: AbortSignal.timeout(ms) });
      await q.body.text();
      return h.statusCode === 200 && q.statusCode === 200;
    } catch {
      return false;
    }
  }

  async #afterTransportFailure(
    generation: number,
    err: unknown,
    what: Sent,
    ms: number,
    cutOkAfterMs?: number,
  ): Promise<void> {
    // One examination at a time: requests in flight when the server died are lost with it, counted once.
    while (this.#examining) await this.#examining;
    if (generation !== this.generation || this.#gaveUp) return;
    this.#examining = this.#examine(err, what, ms, cutOkAfterMs);
    try {
      await this.#examining;
    } finally {
      this.#examining = null;
    }
  }

  async #examine(err: unknown, what: Sent, ms: number, cutOkAfterMs?: number): Promise<void> {
    const child = this.server.child;
    const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
    const message = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    if (!exited()) {
      // Exit may lag the reset by a moment; a live server must also answer.
      await Promise.race([this.server.exited, new Promise((r) => setTimeout(r, 300))]);
    }
    if (!exited() && (await this.answers())) {
      // The server is fine: the request itself got no complete answer (a body cut after the status line).
      // An export past its timeout can only end that way (its 200 is out), so that one is counted, not failed.
      if (cutOkAfterMs !== undefined && ms >= cutOkAfterMs) {
        this.count('cut after timeout');
        return;
      }
      this.count('cut');
      this.fail({
        ...what,
        ...this.#candidates(what),
        problem: 'answer cut (server alive)',
        detail: `${message} after ${ms.toFixed(0)} ms\n${this.criticalLines()}`,
      });
      return;
    }
    const crashed = exited();
    const stderr = this.server.stderr().slice(-2500);
    const critical = this.criticalLines();
    if (crashed) this.crashes++;
    else this.wedges++;
    this.count(crashed ? 'crash' : 'wedge');
    // On several connections the culprit is most likely the request in flight longest; the others are listed.
    const now = performance.now();
    const flights = [...this.#inFlight].sort((a, b) => a.t0 - b.t0);
    const culprit = flights[0] ?? { ...what, t0: now - ms };
    const others = flights
      .slice(1)
      .map((f) => `#${f.index} ${f.category} (${((now - f.t0) / 1000).toFixed(1)} s)`)
      .join(', ');
    const candidates = flights.map((f) => f.index).filter((k) => k >= 0);
    this.fail({
      index: culprit.index,
      category: culprit.category,
      repro: culprit.repro,
      ...(candidates.length > 1 ? { candidates } : {}),
      problem: crashed
        ? `server exited (code ${child.exitCode}, signal ${child.signalCode})`
        : `server stopped answering (no answer within ${this.deadlineMs} ms; killed)`,
      detail: `${message} after ${((now - culprit.t0) / 1000).toFixed(1)} s${others ? `; also in flight: ${others}` : ''}\n${critical}\n${stderr}`,
    });
    this.#restarting = this.#restart(crashed);
    try {
      await this.#restarting;
    } finally {
      this.#restarting = null;
    }
  }

  async #restart(crashed: boolean): Promise<void> {
    this.sampleRss();
    this.#cpuBefore += Math.max(this.#cpuLast, this.#cpuNow());
    this.#cpuLast = 0;
    this.#unhandledBefore += this.#unhandledNow;
    this.#unhandledNow = 0;
    if (!crashed) {
      this.server.child.kill('SIGKILL');
      await this.server.exited;
    }
    if (this.crashes + this.wedges >= this.maxCrashes || this.#stopped) {
      this.#gaveUp = true;
      return;
    }
    try {
      await this.start();
    } catch (err) {
      this.#gaveUp = true;
      this.fail({
        index: -1,
        category: 'restart',
        problem: 'the server did not start again on its root',
        detail: err instanceof Error ? err.message : String(err),
      });
    }
  }

  /** Stops the server for good (no restart after this). */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.ready();
    if (this.server.child.exitCode === null && this.server.child.signalCode === null) await this.server.stop();
  }

  #stopped = false;

  /**
   * Resolves once the server has logged `n` lines matching `re` in its current life (false after
   * `timeoutMs`, or when it exits): how a test knows the server finished a request whose client went away.
   */
  waitForLogCount(re: RegExp, n: number, timeoutMs: number): Promise<boolean> {
    const child = this.server.child;
    const global = new RegExp(re.source, 'gm');
    const count = (): number => (this.server.stdout().match(global) ?? []).length;
    if (count() >= n) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean): void => {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.off('exit', onExit);
        resolve(ok);
      };
      // The helper's own 'data' listener ran first (it was added first), so stdout() already holds the chunk.
      const onData = (): void => {
        if (count() >= n) done(true);
      };
      const onExit = (): void => done(false);
      const timer = setTimeout(() => done(false), timeoutMs);
      child.stdout!.on('data', onData);
      child.once('exit', onExit);
    });
  }

  /** The failures grouped by class, each with its count and first example: what the failing assertion prints. */
  report(seed: number, keep: (f: FuzzFailure) => boolean = () => true, limit = 12): string {
    const classes = new Map<string, FuzzFailure[]>();
    for (const f of this.failures.filter(keep)) {
      const k = failureClass(f);
      const list = classes.get(k) ?? [];
      list.push(f);
      classes.set(k, list);
    }
    const lines = [
      `${[...classes.values()].reduce((n, l) => n + l.length, 0)} failure(s) in ${classes.size} class(es), seed ${seed}:`,
    ];
    let shown = 0;
    for (const [k, list] of classes) {
      if (shown++ >= limit) {
        lines.push(`... ${classes.size - limit} more class(es)`);
        break;
      }
      const f = list[0]!;
      lines.push(
        `\n[${list.length}x] ${k}`,
        `  first: request #${f.index} (${f.category}), also #${
          list
            .slice(1, 6)
            .map((x) => x.index)
            .join(', #') || '-'
        }`,
        `  request: ${f.repro}`,
        `  answer: ${f.detail.slice(0, 1200).replace(/\n/g, '\n    ')}`,
      );
    }
    return lines.join('\n');
  }
}

/** Runs `task(k)` for k in [from, to) on `connections` concurrent workers, in order of k per worker pick. */
export async function runPool(
  from: number,
  to: number,
  connections: number,
  task: (k: number) => Promise<void>,
  stop: () => boolean = () => false,
): Promise<void> {
  let next = from;
  let failed = false;
  const worker = async (): Promise<void> => {
    try {
      while (next < to && !stop() && !failed) await task(next++);
    } catch (err) {
      failed = true; // the other workers stop too: nothing runs on after the pool has failed
      throw err;
    }
  };
  const results = await Promise.allSettled(Array.from({ length: connections }, worker));
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (rejected) throw rejected.reason;
}

/** Bytes as MiB with one decimal. */
export const mib = (b: number): string => `${(b / 1024 / 1024).toFixed(1)} MiB`;
