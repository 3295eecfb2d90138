// GeneratorStage, the Duplex under every library operator: order and
// backpressure, failures before, during and after the input (the pipeline
// rejects with them, nothing waits forever), a consumer that stops early
// (the generator's finally runs, the source is destroyed), and a generator
// that returns before its input ends (the writer is not left waiting).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GeneratorStage } from '../../lib/embed/generator-stage.js';

const objects = { readableObjectMode: true, writableObjectMode: true } as const;

function sink(into: unknown[], delayMs = 0): Writable {
  return new Writable({
    objectMode: true,
    highWaterMark: 1,
    write(x, _e, cb) {
      into.push(x);
      if (delayMs > 0) setTimeout(cb, delayMs);
      else cb();
    },
  });
}

test('passes what the generator yields, in order, through pipelines of stages', async () => {
  const double = (): GeneratorStage<number, number> =>
    new GeneratorStage(async function* (input) {
      for await (const x of input) {
        yield x;
        yield x * 10;
      }
    }, objects);
  const got: number[] = [];
  await pipeline(Readable.from([1, 2, 3]), double(), double(), sink(got, 1));
  assert.deepEqual(got, [1, 10, 10, 100, 2, 20, 20, 200, 3, 30, 30, 300]);
});

test('a failure before, during or after the input rejects the pipeline with it', { timeout: 10_000 }, async () => {
  const failAt = (when: 'start' | 'middle' | 'end'): GeneratorStage<number, number> =>
    new GeneratorStage(async function* (input) {
      if (when === 'start') throw new Error('failed at start');
      for await (const x of input) {
        if (when === 'middle' && x === 2) throw new Error('failed in the middle');
        yield x;
      }
      if (when === 'end') throw new Error('failed at end');
    }, objects);
  const pass = (): GeneratorStage<number, number> =>
    new GeneratorStage(async function* (input) {
      yield* input;
    }, objects);
  for (const when of ['start', 'middle', 'end'] as const) {
    await assert.rejects(
      pipeline(Readable.from([1, 2, 3]), failAt(when), pass(), pass(), sink([])),
      new RegExp(`failed ${when === 'middle' ? 'in the middle' : `at ${when}`}`),
    );
  }
  // A failure downstream reaches a stage waiting for input, and its finally runs.
  let cleaned = false;
  const waiting = new GeneratorStage<number, number>(async function* (input) {
    try {
      yield* input;
    } finally {
      cleaned = true;
    }
  }, objects);
  const never = new Readable({
    objectMode: true,
    read() {
      /* never produces */
    },
  });
  const failing = new Writable({
    objectMode: true,
    write(_x, _e, cb) {
      cb(new Error('sink failed'));
    },
  });
  setTimeout(() => never.push(1), 10);
  await assert.rejects(pipeline(never, waiting, failing), /sink failed/);
  assert.ok(cleaned, "the generator's finally ran");
});

test('a consumer that stops early stops the generator and the source', async () => {
  let produced = 0;
  let cleaned = false;
  let sourceClosed = false;
  const source = Readable.from(
    (function* () {
      for (let i = 0; i < 1_000_000; i++) {
        produced++;
        yield i;
      }
    })(),
  );
  source.on('close', () => {
    sourceClosed = true;
  });
  const stage = new GeneratorStage<number, number>(async function* (input) {
    try {
      for await (const x of input) yield x;
    } finally {
      cleaned = true;
    }
  }, objects);
  source.pipe(stage);
  let seen = 0;
  for await (const _ of stage) {
    if (++seen === 5) break;
  }
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(cleaned, "the generator's finally ran");
  assert.ok(produced < 100, `the source kept producing (${produced})`);
  source.destroy();
  await new Promise((r) => setImmediate(r));
  assert.ok(sourceClosed);
});

test(
  'a generator that returns before its input ends does not leave the writer waiting',
  { timeout: 10_000 },
  async () => {
    const firstTwo = new GeneratorStage<number, number>(async function* (input) {
      let n = 0;
      for await (const x of input) {
        yield x;
        if (++n === 2) return;
      }
    }, objects);
    const got: number[] = [];
    await pipeline(Readable.from([1, 2, 3, 4, 5]), firstTwo, sink(got));
    assert.deepEqual(got, [1, 2]);
  },
);

test('bytes out wait for the reader (backpressure on the readable side)', async () => {
  let made = 0;
  const bytes = new GeneratorStage<number, Buffer>(
    async function* (input) {
      for await (const _ of input) {
        for (let i = 0; i < 100; i++) {
          made++;
          yield Buffer.alloc(64 * 1024);
        }
      }
    },
    { writableObjectMode: true, readableObjectMode: false },
  );
  bytes.end(1);
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(made < 10, `the generator ran ${made} chunks ahead of a reader that never read`);
  let total = 0;
  for await (const c of bytes) total += (c as Buffer).length;
  assert.equal(total, 100 * 64 * 1024);
});
