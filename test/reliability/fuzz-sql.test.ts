// Seeded SQL fuzzing through HTTP against one capped server: 5,000 requests
// (grammar-built queries over every function, DDL/DML, hostile values, mutants)
// to /exec, /exp (CSV, Parquet) and /validate, half of them on concurrent
// connections. Every answer < 500 and well formed, no crash, no unhandled
// error, RSS under its bound, the reference table intact. FUZZ_SEED, FUZZ_FROM,
// FUZZ_COUNT, FUZZ_CONCURRENCY and FUZZ_SKIP rerun one case or run more.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SUITE_QUERY_MEMORY, rss } from '../helpers/reliability.js';
import { FuzzServer, fuzzEnv, mib, runPool } from './fuzz-harness.js';
import { FEATURES, sqlRequest, type Feature } from './sql-fuzz-gen.js';
import { referenceState, sendSql, setupSqlTables, sqlCurl } from './sql-fuzz-send.js';

const env = fuzzEnv({ seed: 15, count: 5000, concurrency: 4 }, FEATURES);
/** A request without an answer this long means the server is wedged (its statement timeout did not fire). */
const DEADLINE_MS = 30_000;
/** Headroom over the idle server plus one query limit per connection: the runtime, buffers, GC lag. */
const RSS_SLACK = 256 * 1024 ** 2;

/** The command that sends request `index` of this seed again (after the same set-up). */
const rerun = (index: number): string =>
  `FUZZ_SEED=${env.seed} FUZZ_FROM=${index} FUZZ_COUNT=1${env.skip.size > 0 ? ` FUZZ_SKIP=${[...env.skip].join(',')}` : ''} node --test dist/test/reliability/fuzz-sql.test.js`;

describe('seeded SQL fuzzing of a capped server', () => {
  const fz = new FuzzServer({ SVC_QUERY_TIMEOUT: '5s', SVC_HTTP_EXPORT_TIMEOUT: '5s' }, DEADLINE_MS, env.maxCrashes, rerun);
  let reference: { check: string; csvHash: string };
  let baseline = 0;
  let phase1Peak = 0;
  const started = performance.now();
  let finished = false;

  before(async () => {
    await fz.start();
    await setupSqlTables(fz, env.seed);
    reference = await referenceState(fz);
    baseline = rss(fz.server).now;
  });

  after(async () => {
    const s = [...fz.statuses].sort().map(([k, v]) => `${k}: ${v}`).join(', ');
    console.log(`fuzz-sql seed ${env.seed}: ${env.count} requests from #${env.from} in ${((performance.now() - started) / 1000).toFixed(1)} s; ${s}; `
      + `peak RSS ${mib(fz.peakRss)} (idle ${mib(baseline)}); crashes ${fz.crashes}, wedges ${fz.wedges}; CPU: server ${fz.cpuSeconds().toFixed(1)} s, test ${(process.cpuUsage().user / 1e6).toFixed(1)} s\nslowest: ${fz.slowest()}`);
    // A run cut short by its timeout never reached its assertion: the failures so far are printed here.
    if (!finished && fz.failures.length > 0) console.log(fz.report(env.seed));
    await fz.stop();
  });

  /** Requests answered since the unhandled counter was last read, and the windows in which it rose. */
  let window: number[] = [];
  let windowFives = 0;
  const suspects: number[][] = [];
  const unhandledSeen = { n: 0 };

  /**
   * Sends request k and checks the answer. The unhandled counter is read every `every` answers;
   * when it rose without a 500, the window is replayed one request at a time at the end to name the request.
   */
  async function one(k: number, every: number, replay = false): Promise<void> {
    const req = sqlRequest(env.seed, k, env.skip as ReadonlySet<Feature>);
    const status = await sendSql(fz, req);
    if (status === null) return;
    if (status >= 500) windowFives++;
    window.push(k);
    if (window.length >= every) await closeWindow(replay ? { index: k, category: req.category, repro: sqlCurl(req) } : null);
  }

  /** Reads the unhandled counter: a rise is the replayed request's failure, or makes the window a suspect. */
  async function closeWindow(replayed: { index: number; category: string; repro: string } | null): Promise<void> {
    const n = await fz.unhandled();
    // Each 5xx counts once and is already a failure; a rise beyond them is an error no answer showed.
    if (n - unhandledSeen.n > windowFives) {
      if (replayed) fz.fail({ ...replayed, problem: 'svc_unhandled_errors_total rose', detail: `by ${n - unhandledSeen.n}\n${fz.criticalLines()}` });
      else if (window.length > 0) suspects.push(window);
    }
    unhandledSeen.n = n;
    window = [];
    windowFives = 0;
    fz.sampleRss();
  }

  test(`answers ${env.count} seeded SQL requests (half on ${env.concurrency} connections) with no 5xx, no crash and well-formed bodies`, { timeout: 20 * 60_000 }, async () => {
    unhandledSeen.n = await fz.unhandled();
    const mid = env.from + Math.ceil(env.count / 2);
    await runPool(env.from, mid, 1, (k) => one(k, 10), () => fz.gaveUp);
    await closeWindow(null);
    fz.sampleRss();
    phase1Peak = fz.peakRss;
    await runPool(mid, env.from + env.count, env.concurrency, (k) => one(k, 25), () => fz.gaveUp);
    await closeWindow(null);
    // The counter rose in a window without a 500: replay it one request at a time to name the request.
    for (const w of suspects) {
      const before = fz.failures.length;
      window = [];
      windowFives = 0;
      unhandledSeen.n = await fz.unhandled();
      for (const k of w) await one(k, 1, true);
      if (fz.failures.length === before) {
        fz.fail({ index: w[0]!, category: 'window', problem: 'svc_unhandled_errors_total rose', detail: `during requests #${w.join(', #')}; not reproduced one at a time\n${fz.criticalLines()}` });
      }
    }
    fz.sampleRss();
    finished = true;
    assert.equal(fz.failures.length, 0, fz.report(env.seed));
  });

  test('the server never exited or stopped answering', () => {
    assert.equal(fz.crashes + fz.wedges, 0, `${fz.crashes} crash(es), ${fz.wedges} wedge(s); see the failures above`);
    assert.equal(fz.server.child.exitCode, null);
  });

  test('svc_unhandled_errors_total stays 0', async () => {
    assert.equal(await fz.unhandled(), 0);
  });

  test('RSS stays under the idle server plus one query memory limit per connection', () => {
    const one = baseline + SUITE_QUERY_MEMORY + RSS_SLACK;
    const all = baseline + env.concurrency * SUITE_QUERY_MEMORY + RSS_SLACK;
    assert.ok(phase1Peak <= one, `peak RSS ${mib(phase1Peak)} on one connection, bound ${mib(one)} (idle ${mib(baseline)} + query.memory.limit ${mib(SUITE_QUERY_MEMORY)} + ${mib(RSS_SLACK)})`);
    assert.ok(fz.peakRss <= all, `peak RSS ${mib(fz.peakRss)} on ${env.concurrency} connections, bound ${mib(all)}`);
  });

  test('the reference table created first has the same rows and checksum at the end', async () => {
    assert.ok(!fz.gaveUp, 'no server to ask: the run gave up after repeated crashes');
    const now = await referenceState(fz);
    assert.equal(now.check, reference.check, 'count/sum/checksum query of fz_ref changed');
    assert.equal(now.csvHash, reference.csvHash, 'the CSV export of fz_ref changed');
  });
});
