// Seeded /imp fuzzing against one capped server: 1,000 uploads (random widths,
// dialects, encodings, gzip, schema parts, appends that do not fit, malformed
// multipart, cut bodies and clients that go away), a third of them on
// concurrent connections. Every answer < 500, no crash, no unhandled error, RSS
// under its bound, and atomicity: a refused or cut import leaves nothing
// visible, an accepted one holds exactly rowsImported rows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SUITE_QUERY_MEMORY, rss } from '../helpers/reliability.js';
import { csvRequest } from './csv-fuzz-gen.js';
import { UploadChecker } from './csv-fuzz-send.js';
import { FuzzServer, fuzzEnv, mib, runPool, type FuzzFailure } from './fuzz-harness.js';

const env = fuzzEnv({ seed: 15, count: 1000, concurrency: 4 });
/** import.memory.limit of this server (the import limits' key; a server without the key ignores it). */
const IMPORT_MEMORY = SUITE_QUERY_MEMORY;
/** An upload without an answer this long means the server is wedged. */
const DEADLINE_MS = 30_000;
/** Headroom over the idle server plus one import limit per connection: the runtime, buffers, GC lag. */
const RSS_SLACK = 256 * 1024 ** 2;

const rerun = (index: number): string =>
  `FUZZ_SEED=${env.seed} FUZZ_FROM=${index} FUZZ_COUNT=1 node --test dist/test/reliability/fuzz-csv.test.js`;
const isAtomicity = (f: FuzzFailure): boolean => f.problem.startsWith('atomicity');

describe('seeded CSV import fuzzing of a capped server', () => {
  const fz = new FuzzServer(
    { SVC_QUERY_TIMEOUT: '5s', SVC_IMPORT_MEMORY_LIMIT: String(IMPORT_MEMORY) },
    DEADLINE_MS,
    env.maxCrashes,
    rerun,
  );
  const uploads = new UploadChecker(fz, DEADLINE_MS);
  let baseline = 0;
  const started = performance.now();
  let finished = false;

  before(async () => {
    await fz.start();
    await uploads.setup();
    baseline = rss(fz.server).now;
  });

  after(async () => {
    const s = [...fz.statuses]
      .sort()
      .map(([k, v]) => `${k}: ${v}`)
      .join(', ');
    console.log(
      `fuzz-csv seed ${env.seed}: ${env.count} uploads from #${env.from} in ${((performance.now() - started) / 1000).toFixed(1)} s; ${s}; ` +
        `peak RSS ${mib(fz.peakRss)} (idle ${mib(baseline)}); crashes ${fz.crashes}, wedges ${fz.wedges}; CPU: server ${fz.cpuSeconds().toFixed(1)} s, test ${(process.cpuUsage().user / 1e6).toFixed(1)} s\nslowest: ${fz.slowest()}`,
    );
    // A run cut short by its timeout never reached its assertions: the failures so far are printed here.
    if (!finished && fz.failures.length > 0) console.log(fz.report(env.seed));
    await fz.stop();
  });

  /** Uploads since the unhandled counter was last read. */
  let window: number[] = [];
  let unhandledSeen = 0;

  /** A rise of the unhandled counter beyond the window's 5xx (each counts once and is already a failure). */
  async function closeWindow(): Promise<void> {
    const w = window;
    window = [];
    const n = await fz.unhandled();
    const fives = fz.failures.filter((f) => w.includes(f.index) && f.problem.startsWith('status 5')).length;
    if (n - unhandledSeen > fives && w.length > 0) {
      const req = csvRequest(env.seed, w[0]!);
      fz.fail({
        index: w[0]!,
        category: req.category,
        repro: w.length === 1 ? req.describe : `one of #${w.join(', #')}`,
        candidates: w,
        problem: 'svc_unhandled_errors_total rose',
        detail: `by ${n - unhandledSeen - fives}\n${fz.criticalLines()}`,
      });
    }
    unhandledSeen = n;
  }

  /** Sends upload k and checks it; the unhandled counter is read every `every` uploads. */
  async function one(k: number, every = 10, replay = false): Promise<void> {
    await uploads.send(csvRequest(env.seed, k), replay);
    window.push(k);
    if (window.length >= every) await closeWindow();
  }

  test(
    `answers ${env.count} seeded uploads (a third on ${env.concurrency} connections) below 500 without a crash`,
    { timeout: 20 * 60_000 },
    async () => {
      unhandledSeen = await fz.unhandled();
      const mid = env.from + Math.ceil((env.count * 2) / 3);
      await runPool(
        env.from,
        mid,
        1,
        (k) => one(k),
        () => fz.gaveUp,
      );
      await runPool(
        mid,
        env.from + env.count,
        env.concurrency,
        (k) => one(k),
        () => fz.gaveUp,
      );
      await closeWindow();
      // Crashes, wedges and counter rises with several uploads in flight: each candidate again, alone.
      await fz.replayAmbiguous((k) => one(k, 1, true));
      fz.sampleRss();
      finished = true;
      assert.equal(
        fz.failures.filter((f) => !isAtomicity(f)).length,
        0,
        fz.report(env.seed, (f) => !isAtomicity(f)),
      );
    },
  );

  test('a refused or cut import leaves nothing visible; an accepted one holds exactly rowsImported rows', () => {
    assert.equal(fz.failures.filter(isAtomicity).length, 0, fz.report(env.seed, isAtomicity));
  });

  test('the server never exited or stopped answering', () => {
    assert.equal(fz.crashes + fz.wedges, 0, `${fz.crashes} crash(es), ${fz.wedges} wedge(s); see the failures above`);
  });

  test('svc_unhandled_errors_total stays 0', async () => {
    assert.equal(await fz.unhandled(), 0);
  });

  test('RSS stays under the idle server plus one import memory limit per connection', () => {
    const bound = baseline + env.concurrency * IMPORT_MEMORY + RSS_SLACK;
    assert.ok(
      fz.peakRss <= bound,
      `peak RSS ${mib(fz.peakRss)}, bound ${mib(bound)} (idle ${mib(baseline)} + ${env.concurrency} x import.memory.limit ${mib(IMPORT_MEMORY)} + ${mib(RSS_SLACK)})`,
    );
  });
});
