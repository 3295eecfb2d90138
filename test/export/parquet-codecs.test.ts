// Page codecs (lib/export/parquet/codecs.ts): ZSTD through zstd's own contexts
// makes the same bytes in one call and in steps, at any level and page size,
// with contexts reused between pages and between steps of interleaved pages;
// zstd-napi decompresses them to the page (a frame that states its size).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { pageCodec, STEP_BYTES } from '../../lib/export/parquet/codecs.js';

const require = createRequire(import.meta.url);
const zstdNapi = require('zstd-napi') as {
  decompress(d: Uint8Array): Buffer;
};
const contentSize = (require('zstd-napi/binding') as { getFrameContentSize(d: Uint8Array): number | null })
  .getFrameContentSize;

/** `n` bytes of doubles on a random walk (as a price column's page), seeded. */
function walk(n: number, seed: number): Uint8Array {
  const d = new Float64Array(Math.ceil(n / 8));
  let x = 100 + seed;
  let s = seed * 7919 + 1;
  for (let i = 0; i < d.length; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    x += ((s % 200) - 100) / 10000;
    d[i] = Math.round(x * 10000) / 10000;
  }
  return new Uint8Array(d.buffer, 0, n);
}

function allSteps(g: Generator<void, Buffer, void>): { out: Buffer; steps: number } {
  for (let steps = 1; ; steps++) {
    const r = g.next();
    if (r.done === true) return { out: r.value, steps };
  }
}

test('ZSTD in one call and in steps: the same bytes at every level and page size, a frame of the page', () => {
  const sizes = [0, 1, 1000, STEP_BYTES - 1, STEP_BYTES, STEP_BYTES + 1, 3 * STEP_BYTES + 17, 800_000];
  for (const level of [1, 3, 9, 19]) {
    const codec = pageCodec('ZSTD', level);
    for (const n of sizes) {
      const page = walk(n, n + level);
      const want = codec.compress(page);
      assert.ok(zstdNapi.decompress(want).equals(page), `level ${level}, ${n} bytes`);
      assert.equal(contentSize(want), n, `level ${level}, ${n} bytes: the frame states its size`);
      const { out, steps } = allSteps(codec.steps!(page));
      assert.ok(out.equals(want), `level ${level}, ${n} bytes, in steps`);
      assert.equal(
        steps,
        Math.max(1, Math.ceil(n / STEP_BYTES)),
        `level ${level}, ${n} bytes: one step per ${STEP_BYTES}`,
      );
    }
  }
});

test('ZSTD pages compressed in interleaved steps each keep a context of their own', () => {
  const codec = pageCodec('ZSTD', 9);
  const pages = [walk(500_000, 1), walk(300_000, 2), walk(700_000, 3)];
  const want = pages.map((p) => pageCodec('ZSTD', 9).compress(p));
  const gens = pages.map((p) => codec.steps!(p));
  const outs: (Buffer | null)[] = pages.map(() => null);
  while (outs.some((o) => o === null))
    gens.forEach((g, i) => {
      if (outs[i] !== null) return;
      const r = g.next();
      if (r.done === true) outs[i] = r.value;
      // A one-call page between the steps of the others takes a context of its own too.
      assert.ok(codec.compress(pages[0]!).equals(want[0]!));
    });
  outs.forEach((o, i) => assert.ok(o!.equals(want[i]!), `page ${i}`));
  // A page left mid-way leaves the codec working.
  codec.steps!(pages[2]!).next();
  assert.ok(allSteps(codec.steps!(pages[1]!)).out.equals(want[1]!));
});
