// The worker pool (lib/workers/worker-pool.ts): lazy threads, tasks spread
// over them, transferred inputs and outputs, errors with their codes, a crashed
// thread's tasks failing (never hanging) and the thread replaced, abort and
// close with tasks in flight, and more threads than cores.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SvcError } from '../../lib/errors/svc-error.js';
import { WorkerPool, taskKind } from '../../lib/workers/worker-pool.js';

const TASKS = new URL('./pool-test-tasks.js', import.meta.url);
const ECHO = taskKind<{ text: string }, { text: string; thread: number }>(TASKS, 'echo');
const SUM = taskKind<Float64Array, { sum: number; doubled: Float64Array }>(TASKS, 'sumAndDouble');
const FAIL = taskKind<{ svc: boolean }, null>(TASKS, 'fail');
const SLEEP = taskKind<{ ms: number }, number>(TASKS, 'sleep');
const CRASH = taskKind<null, null>(TASKS, 'crash');
const MISSING = taskKind<null, null>(TASKS, 'noSuchTask');

test('no thread starts before the first task; busy threads bring more, up to the count', async () => {
  const pool = new WorkerPool(4);
  try {
    assert.equal(pool.started, 0);
    assert.deepEqual(await pool.run(ECHO, { text: 'a' }).then((r) => r.text), 'a');
    assert.equal(pool.started, 1, 'one task at a time needs one thread');
    await pool.run(ECHO, { text: 'b' });
    assert.equal(pool.started, 1);
    // Four at once on 2 cores: four threads, each ran one.
    const threads = await Promise.all([1, 2, 3, 4].map(() => pool.run(SLEEP, { ms: 100 })));
    assert.equal(pool.started, 4);
    assert.equal(new Set(threads).size, 4);
    // More tasks than threads: queued on the least busy, all answered.
    const many = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.run(ECHO, { text: String(i) })));
    assert.deepEqual(
      many.map((r) => r.text),
      Array.from({ length: 40 }, (_, i) => String(i)),
    );
    assert.equal(pool.started, 4);
    assert.equal(pool.inFlight, 0);
  } finally {
    await pool.close();
  }
});

test('inputs and outputs are transferred, not shared', async () => {
  const pool = new WorkerPool(2);
  try {
    const a = Float64Array.from({ length: 1000 }, (_, i) => i);
    const r = await pool.run(SUM, a, [a.buffer]);
    assert.equal(a.length, 0, 'the input was moved to the thread');
    assert.equal(r.sum, 499_500);
    assert.equal(r.doubled.length, 1000);
    assert.equal(r.doubled[999], 1998);
  } finally {
    await pool.close();
  }
});

test("a task's error comes back as it was thrown: an SvcError keeps its code and position", async () => {
  const pool = new WorkerPool(1);
  try {
    await assert.rejects(pool.run(FAIL, { svc: true }), (e: unknown) => {
      assert.ok(e instanceof SvcError);
      assert.equal(e.code, 'LIMIT');
      assert.equal(e.status, 400);
      assert.equal(e.position, 7);
      assert.equal(e.message, 'too much [limit=x.y]');
      return true;
    });
    await assert.rejects(pool.run(FAIL, { svc: false }), (e: unknown) => {
      assert.ok(!(e instanceof SvcError));
      assert.equal((e as Error).message, 'plain failure');
      return true;
    });
    await assert.rejects(pool.run(MISSING, null), /no task noSuchTask/);
    // The thread survives its tasks' errors.
    assert.equal((await pool.run(ECHO, { text: 'x' })).text, 'x');
    assert.equal(pool.started, 1);
  } finally {
    await pool.close();
  }
});

test('a crashed thread fails its tasks with an error (none hangs) and the next task gets a new thread', async () => {
  const pool = new WorkerPool(1);
  try {
    const before = (await pool.run(ECHO, { text: 'a' })).thread;
    // Queued behind the crash on the same (only) thread: they fail too, they do not hang.
    const queued = [pool.run(CRASH, null), pool.run(SLEEP, { ms: 10 }), pool.run(ECHO, { text: 'b' })];
    for (const q of queued) {
      await assert.rejects(q, (e: unknown) => {
        assert.ok(e instanceof SvcError);
        assert.equal(e.code, 'INTERNAL');
        assert.match(e.message, /a worker thread failed: it exited with code 3/);
        return true;
      });
    }
    assert.equal(pool.inFlight, 0);
    assert.ok(pool.usable);
    const after = await pool.run(ECHO, { text: 'c' });
    assert.equal(after.text, 'c');
    assert.notEqual(after.thread, before, 'a new thread');
  } finally {
    await pool.close();
  }
});

test('threads that die before answering anything make the pool unusable instead of restarting forever', async () => {
  const pool = new WorkerPool(1);
  try {
    for (let i = 0; i < 3; i++) await assert.rejects(pool.run(CRASH, null), /worker thread failed/);
    assert.equal(pool.usable, false);
    await assert.rejects(pool.run(ECHO, { text: 'x' }), /closed/);
  } finally {
    await pool.close();
  }
});

test("abort: a task's promise fails with the signal's reason at once, and its late answer is dropped", async () => {
  const pool = new WorkerPool(1);
  try {
    const ac = new AbortController();
    const slow = pool.run(SLEEP, { ms: 300 }, [], ac.signal);
    const t0 = Date.now();
    ac.abort(new Error('client gone'));
    await assert.rejects(slow, /client gone/);
    assert.ok(Date.now() - t0 < 250, 'did not wait for the task');
    await assert.rejects(pool.run(ECHO, { text: 'x' }, [], ac.signal), /client gone/); // aborted before it starts
    assert.equal((await pool.run(ECHO, { text: 'y' })).text, 'y'); // the thread still serves
    // The sleep's answer arrives later and is dropped (its promise settled already).
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(pool.inFlight, 0);
  } finally {
    await pool.close();
  }
});

test('close with tasks in flight fails them with UNAVAILABLE; the pool is then unusable', async () => {
  const pool = new WorkerPool(2);
  const inFlight = [pool.run(SLEEP, { ms: 2000 }), pool.run(SLEEP, { ms: 2000 }), pool.run(SLEEP, { ms: 2000 })];
  const failed = inFlight.map((p) =>
    assert.rejects(p, (e: unknown) => {
      assert.ok(e instanceof SvcError);
      assert.equal(e.code, 'UNAVAILABLE');
      return true;
    }),
  );
  await new Promise((r) => setTimeout(r, 50));
  const t0 = Date.now();
  await pool.close();
  await Promise.all(failed);
  assert.ok(Date.now() - t0 < 1500, 'close does not wait for the tasks');
  assert.equal(pool.usable, false);
  assert.equal(pool.started, 0);
  await assert.rejects(pool.run(ECHO, { text: 'x' }), /closed/);
  await pool.close(); // twice is fine
});

test('a count of threads below 1 is refused; shared.worker.count 1 means no pool', () => {
  assert.throws(() => new WorkerPool(0), /1 or more/);
  assert.throws(() => new WorkerPool(-2), /1 or more/);
  assert.throws(() => new WorkerPool(1.5), /1 or more/);
  assert.equal(WorkerPool.forWorkerCount(1), null);
  const p = WorkerPool.forWorkerCount(3)!;
  assert.equal(p.threads, 2);
  void p.close();
});
