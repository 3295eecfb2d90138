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
  const fz = new FuzzServer(
    { SVC_QUERY_TIMEOUT: '5s', SVC_HTTP_EXPORT_TIMEOUT: '5s' },
    DEADLINE_MS,
    env.maxCrashes,
    rerun,
  );
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
    const s = [...fz.statuses]
      .sort()
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
    console.log(
      `fuzz-sql seed ${env.seed}: ${env.count} requests from #${env.from} in ${((performance.now() - started) / 1000).toFixed(1)} s; ${s}; ` +
        `peak RSS ${mib(fz.peakRss)} (idle ${mib(baseline)}); crashes ${fz.crashes}, wedges ${fz.wedges}; CPU: server ${fz.cpuSeconds().toFixed(1)} s, test ${(process.cpuUsage().user / 1e6).toFixed(1)} s\nslowest: ${fz.slowest()}`,
    );
    // A run cut short by its timeout never reached its assertion: the failures so far are printed here.
    if (!finished && fz.failures.length > 0) console.log(fz.report(env.seed));
    await fz.stop();
  });

  /** Requests answered since the unhandled counter was last read, and the 5xx among them. */
  let window: number[] = [];
  let windowFives = 0;
  let unhandledSeen = 0;

  /** Sends request k and checks the answer; the unhandled counter is read every `every` answers. */
  async function one(k: number, every: number): Promise<void> {
    const status = await sendSql(fz, sqlRequest(env.seed, k, env.skip as ReadonlySet<Feature>));
    if (status !== null && status >= 500) windowFives++;
    window.push(k);
    if (window.length >= every) await closeWindow();
  }

  /** A rise of the unhandled counter beyond the window's 5xx (each counts once and is already a failure). */
  async function closeWindow(): Promise<void> {
    const w = window;
    const n = await fz.unhandled();
    if (n - unhandledSeen > windowFives && w.length > 0) {
      const req = sqlRequest(env.seed, w[0]!, env.skip as ReadonlySet<Feature>);
      fz.fail({
        index: w[0]!,
        category: req.category,
        repro: w.length === 1 ? sqlCurl(req) : `one of #${w.join(', #')}`,
        candidates: w,
        problem: 'svc_unhandled_errors_total rose',
        detail: `by ${n - unhandledSeen - windowFives}\n${fz.criticalLines()}`,
      });
    }
    unhandledSeen = n;
    window = [];
    windowFives = 0;
    fz.sampleRss();
  }

  test(
    `answers ${env.count} seeded SQL requests (half on ${env.concurrency} connections) with no 5xx, no crash and well-formed bodies`,
    { timeout: 20 * 60_000 },
    async () => {
      unhandledSeen = await fz.unhandled();
      const mid = env.from + Math.ceil(env.count / 2);
      await runPool(
        env.from,
        mid,
        1,
        (k) => one(k, 10),
        () => fz.gaveUp,
      );
      await closeWindow();
      fz.sampleRss();
      phase1Peak = fz.peakRss;
      await runPool(
        mid,
        env.from + env.count,
        env.concurrency,
        (k) => one(k, 25),
        () => fz.gaveUp,
      );
      await closeWindow();
      // Crashes, wedges and counter rises with several requests in flight: each candidate again, alone.
      await fz.replayAmbiguous(async (k) => {
        await one(k, 1);
      });
      fz.sampleRss();
      finished = true;
      assert.equal(fz.failures.length, 0, fz.report(env.seed));
    },
  );

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
    assert.ok(
      phase1Peak <= one,
      `peak RSS ${mib(phase1Peak)} on one connection, bound ${mib(one)} (idle ${mib(baseline)} + query.memory.limit ${mib(SUITE_QUERY_MEMORY)} + ${mib(RSS_SLACK)})`,
    );
    assert.ok(fz.peakRss <= all, `peak RSS ${mib(fz.peakRss)} on ${env.concurrency} connections, bound ${mib(all)}`);
  });

  test('the reference table created first has the same rows and checksum at the end', async () => {
    assert.ok(!fz.gaveUp, 'no server to ask: the run gave up after repeated crashes');
    const now = await referenceState(fz);
    assert.equal(now.check, reference.check, 'count/sum/checksum query of fz_ref changed');
    assert.equal(now.csvHash, reference.csvHash, 'the CSV export of fz_ref changed');
  });
});
