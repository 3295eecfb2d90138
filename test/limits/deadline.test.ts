// Deadline: the statement timeout as a point in time that synchronous loops
// check, and the signal that fires for the time a statement waits; both fail
// with QuestDB's timeout message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { Deadline } from '../../lib/limits/deadline.js';
import { isSvcError } from '../../lib/errors/svc-error.js';

/** Spins the CPU until `d` has passed, as a synchronous loop would. */
function spinPast(d: Deadline): void {
  while (!d.passed()) {
    /* busy */
  }
}

test("check() throws the TIMEOUT error with QuestDB's message once the deadline has passed, and not before", () => {
  const d = new Deadline(5);
  assert.doesNotThrow(() => d.check());
  spinPast(d);
  assert.throws(
    () => d.check(),
    (e: unknown) => {
      assert.ok(isSvcError(e));
      assert.equal(e.code, 'TIMEOUT');
      assert.equal(e.status, 400);
      assert.equal(e.message, 'timeout, query aborted [timeout=5ms]');
      return true;
    },
  );
});

test('tick() looks at the clock only every few thousand units, then throws like check()', () => {
  const d = new Deadline(1);
  spinPast(d);
  assert.doesNotThrow(() => d.tick(10));
  assert.throws(() => {
    for (let i = 0; i < 10_000; i++) d.tick();
  }, /timeout, query aborted/);
  assert.throws(() => d.tick(1_000_000), /timeout/);
});

test('NEVER never passes', () => {
  assert.equal(Deadline.NEVER.passed(), false);
  assert.doesNotThrow(() => {
    Deadline.NEVER.check();
    Deadline.NEVER.tick(1e9);
  });
});

test("signal() aborts at the deadline with the same error, and with the parent's reason when the parent aborts first", async () => {
  const d = new Deadline(10);
  const parent = new AbortController();
  const s = d.signal(parent.signal);
  // The deadline's timer is unref'd (a statement's deadline never keeps a process alive): this one
  // keeps the test's event loop running until it fires, or the test would end with the wait pending.
  const alive = setTimeout(() => {}, 60_000);
  await once(s.signal, 'abort');
  clearTimeout(alive);
  assert.ok(isSvcError(s.signal.reason));
  assert.equal((s.signal.reason as Error).message, 'timeout, query aborted [timeout=10ms]');
  s.dispose();

  const late = new Deadline(60_000);
  const p2 = new AbortController();
  const s2 = late.signal(p2.signal);
  const gone = new Error('client went away');
  p2.abort(gone);
  assert.equal(s2.signal.reason, gone);
  s2.dispose();
});

test('dispose() stops the timer: the signal does not abort after it', async () => {
  const d = new Deadline(5);
  const s = d.signal(new AbortController().signal);
  s.dispose();
  // Past the deadline, a timer set now runs after the disposed one would have.
  spinPast(d);
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(s.signal.aborted, false);
});
