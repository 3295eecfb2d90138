// The Parquet writer's page queue (lib/export/parquet/page-queue.ts): pages go
// to the pool's threads two at a time each, and this thread compresses the
// rest while the writer waits; small pages are compressed at once; every
// page's bytes are the codec's, whichever thread compressed it. And the writer
// (parquet-writer.ts) keeps two row groups compressing while it gathers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pageCodec, type PageCodec } from '../../lib/export/parquet/codecs.js';
import { INLINE_PAGE_BYTES, PageQueue, type PagePool } from '../../lib/export/parquet/page-queue.js';
import type { CompressedPage } from '../../lib/export/format-pool.js';
import { FormatPool } from '../../lib/export/format-pool.js';
import { WorkerPool } from '../../lib/workers/worker-pool.js';
import { parquetBody, planParquet, type ParquetPlan } from '../../lib/export/parquet/parquet-writer.js';
import { PARQUET_DEFAULTS } from '../../lib/export/parquet/options.js';
import type { Field } from '../../lib/sql/bound.js';
import type { Batch } from '../../lib/core/batch.js';

const zstd = pageCodec('ZSTD', 9);

/** A page of `n` bytes: repeated text with a counter, so it compresses. */
function page(n: number, seed: number): Uint8Array {
  const b = Buffer.alloc(n);
  for (let at = 0, i = 0; at < n; i++) at += b.write(`row ${seed}:${i % 977} `, at);
  return new Uint8Array(b);
}

/** A pool whose thread holds every page until released: what it compresses is counted. */
function heldPool(): PagePool & { held: { data: Uint8Array; release(): void }[]; taken: number } {
  const held: { data: Uint8Array; release(): void }[] = [];
  return {
    usable: true,
    threads: 1,
    held,
    taken: 0,
    compress(_codec, _level, data): Promise<CompressedPage> {
      this.taken++;
      return new Promise((resolve) => {
        held.push({ data, release: () => resolve({ compressed: zstd.compress(data), input: data.buffer }) });
      });
    },
  };
}

test('pages the pool has not taken are compressed on this thread while the writer waits; the bytes are the codec’s', async () => {
  const pool = heldPool();
  const q = new PageQueue(zstd, 9, pool);
  const pages = Array.from({ length: 6 }, (_, i) => page(64 * 1024 + i, i));
  const raw = pages.map((p) => p.slice()); // the queue copies: the caller's memory may be reused at once
  const bodies = pages.map((p) => q.compress(p));
  for (const p of pages) p.fill(0);
  assert.equal(pool.taken, 2, 'two pages per pool thread');
  assert.equal(q.waiting, 4);
  // Waiting for the last four: this thread compresses them; the pool still holds its two.
  const lastFour = await q.finish(Promise.all(bodies.slice(2)));
  assert.equal(q.waiting, 0);
  assert.equal(pool.taken, 2);
  lastFour.forEach((b, i) => assert.ok(b.equals(zstd.compress(raw[i + 2]!)), `page ${i + 2}`));
  // The pool's two come when it answers; their buffers were the queue's copies.
  assert.ok(pool.held.every((h, i) => Buffer.from(h.data).equals(Buffer.from(raw[i]!))));
  for (const h of pool.held) h.release();
  const firstTwo = await q.finish(Promise.all(bodies.slice(0, 2)));
  firstTwo.forEach((b, i) => assert.ok(b.equals(zstd.compress(raw[i]!)), `page ${i}`));
});

test('as the pool answers it takes the next pages, and this thread takes the others', async () => {
  const pool = heldPool();
  const q = new PageQueue(zstd, 9, pool);
  const raw = Array.from({ length: 9 }, (_, i) => page(40 * 1024 + 7 * i, 100 + i));
  const bodies = raw.map((p) => q.compress(p));
  // Answer each page the pool takes, as it takes it, until every page is done.
  const answering = setInterval(() => {
    for (const h of pool.held.splice(0)) h.release();
  }, 1);
  try {
    const all = await q.finish(Promise.all(bodies));
    all.forEach((b, i) => assert.ok(b.equals(zstd.compress(raw[i]!)), `page ${i}`));
  } finally {
    clearInterval(answering);
  }
  assert.ok(pool.taken >= 2 && pool.taken < 9, `the pool took ${pool.taken} of 9`);
});

test('while this thread compresses a page in steps, the pool’s answers are read and its thread gets the next page', async () => {
  const events: string[] = [];
  // A codec in 8 steps a page; its bytes are the page reversed.
  const codec: PageCodec = {
    name: 'ZSTD',
    compress: (d) => Buffer.from(d).reverse(),
    *steps(d) {
      for (let i = 0; i < 7; i++) {
        events.push(`step ${d[0]}`);
        yield;
      }
      events.push(`done ${d[0]}`);
      return Buffer.from(d).reverse();
    },
  };
  // A pool thread that answers each page on the next turn.
  const pool: PagePool = {
    usable: true,
    threads: 1,
    compress(_codec, _level, data): Promise<CompressedPage> {
      events.push(`pool ${data[0]}`);
      return new Promise((resolve) =>
        setImmediate(() => resolve({ compressed: codec.compress(data), input: data.buffer })),
      );
    },
  };
  const q = new PageQueue(codec, 9, pool);
  const raw = Array.from({ length: 8 }, (_, i) => new Uint8Array(INLINE_PAGE_BYTES).fill(i + 1));
  const all = await q.finish(Promise.all(raw.map((p) => q.compress(p))));
  all.forEach((b, i) => assert.ok(b.equals(Buffer.from(raw[i]!).reverse()), `page ${i}`));
  // Some page went to the pool between the first and the last step of a page compressed here.
  const here = events.filter((e) => e.startsWith('done')).map((e) => e.split(' ')[1]!);
  assert.ok(here.length > 0, events.join(', '));
  const fed = here.some((p) => {
    const from = events.indexOf(`step ${p}`);
    const to = events.indexOf(`done ${p}`);
    return events.slice(from, to).some((e) => e.startsWith('pool'));
  });
  assert.ok(fed, events.join(', '));
});

test('small pages, no pool and a closed pool: compressed at once on this thread', () => {
  const pool = heldPool();
  const small = page(INLINE_PAGE_BYTES - 1, 7);
  const q = new PageQueue(zstd, 9, pool);
  const out = q.compress(small);
  assert.ok(Buffer.isBuffer(out) && out.equals(zstd.compress(small)));
  assert.equal(pool.taken, 0);
  const big = page(INLINE_PAGE_BYTES * 4, 8);
  const alone = new PageQueue(zstd, 9, null).compress(big);
  assert.ok(Buffer.isBuffer(alone) && alone.equals(zstd.compress(big)));
  const closed = new PageQueue(zstd, 9, { ...pool, usable: false }).compress(big);
  assert.ok(Buffer.isBuffer(closed) && closed.equals(zstd.compress(big)));
});

test('on a real pool thread: the same bytes, and the page buffers come back for the next pages', async () => {
  const fp = new FormatPool(new WorkerPool(1));
  try {
    const q = new PageQueue(zstd, 9, fp);
    for (let round = 0; round < 3; round++) {
      const raw = Array.from({ length: 5 }, (_, i) => page(100_000 + i, round * 10 + i));
      const bodies = await q.finish(Promise.all(raw.map((p) => q.compress(p))));
      bodies.forEach((b, i) => assert.ok(b.equals(zstd.compress(raw[i]!)), `round ${round} page ${i}`));
    }
  } finally {
    await fp.close();
  }
});

test('pages still queued when the export ends are dropped: the pool gets no more of them', async () => {
  const pool = heldPool();
  const q = new PageQueue(zstd, 9, pool);
  for (let i = 0; i < 5; i++) void q.compress(page(32 * 1024, i));
  assert.equal(pool.taken, 2);
  q.close();
  assert.equal(q.waiting, 0);
  for (const h of pool.held.splice(0)) h.release();
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(pool.taken, 2);
});

test('the writer gathers the next row group while two wait for the pool, and the file is the same', async () => {
  const fields: Field[] = [{ name: 'x', type: 'DOUBLE' }];
  const rowsPerGroup = 4000; // 32 KB pages: handed to the pool
  const state = { produced: 0 };
  async function* source(): AsyncGenerator<Batch> {
    for (let b = 0; b < 16; b++) {
      const data = Float64Array.from({ length: 1000 }, (_, i) => (b * 1000 + i) * 1.25); // distinct: no dictionary
      state.produced += 1000;
      yield { rowCount: 1000, columns: [{ kind: 'fixed', type: 'DOUBLE', data }] };
    }
  }
  const plan = (): ParquetPlan =>
    planParquet(fields, -1, null, { ...PARQUET_DEFAULTS, rowGroupSize: rowsPerGroup, statistics: false });
  const file = async (pool: PagePool | null): Promise<Buffer> => {
    const parts: Buffer[] = [];
    for await (const c of parquetBody(plan(), source(), null, { sent: 0, matched: 0 }, pool)) parts.push(c);
    return Buffer.concat(parts);
  };
  const alone = await file(null);
  state.produced = 0;
  const pool = heldPool();
  const body = file(pool);
  // The pool holds the first two row groups' pages: the writer has gathered the third before it waits.
  for (const t0 = Date.now(); pool.taken < 2 && Date.now() - t0 < 5000;)
    await new Promise((resolve) => setTimeout(resolve, 5));
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(pool.taken, 2);
  assert.ok(state.produced >= 3 * rowsPerGroup, `gathered ${state.produced} rows`);
  const answering = setInterval(() => {
    for (const h of pool.held.splice(0)) h.release();
  }, 1);
  try {
    assert.ok((await body).equals(alone));
  } finally {
    clearInterval(answering);
  }
});
