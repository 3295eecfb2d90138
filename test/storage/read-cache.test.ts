// The reader cache's eviction (lib/storage/read-cache.ts): by table, partition
// folder or file, exactly those, in one call for many paths.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReadCache } from '../../lib/storage/read-cache.js';

const KEYS = [
  '7/_meta.1',
  '7/2024-01-01.1/0.d',
  '7/2024-01-01.1/1.d',
  '7/2024-01-01.10/0.d',
  '7/2024-01-02.1/0.d',
  '70/2024-01-01.1/0.d',
];

/** A cache holding one chunk of a small file under each key; returns it and a check of which keys are still cached. */
function filled(): { cache: ReadCache; cached: () => string[]; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'svcdb-read-cache-'));
  const file = join(dir, 'f');
  writeFileSync(file, Buffer.alloc(100, 1));
  const cache = new ReadCache(1 << 20, 64);
  for (const k of KEYS) cache.read(k, file, 0, 10, 100);
  const cached = (): string[] =>
    KEYS.filter((k) => {
      const misses = cache.misses;
      cache.read(k, file, 0, 10, 100);
      const hit = cache.misses === misses;
      return hit;
    });
  return { cache, cached, done: () => rmSync(dir, { recursive: true, force: true }) };
}

test('evicts a partition folder, not another whose name it begins', () => {
  const { cache, cached, done } = filled();
  const before = cache.size;
  cache.evict('7/2024-01-01.1');
  assert.equal(cache.size, before - 2 * 64);
  assert.deepEqual(
    cached().sort(),
    ['7/2024-01-01.10/0.d', '7/2024-01-02.1/0.d', '7/_meta.1', '70/2024-01-01.1/0.d'].sort(),
  );
  done();
});

test('evicts a whole table by its id and slash, not a table whose id it begins', () => {
  const { cache, cached, done } = filled();
  cache.evict('7/');
  assert.deepEqual(cached(), ['70/2024-01-01.1/0.d']);
  done();
});

test('evicts files and folders given together in one call', () => {
  const { cache, cached, done } = filled();
  cache.evict(['7/_meta.1', '7/2024-01-01.1/1.d', '7/2024-01-02.1', '7/nothing-here']);
  assert.deepEqual(cached().sort(), ['7/2024-01-01.1/0.d', '7/2024-01-01.10/0.d', '70/2024-01-01.1/0.d'].sort());
  cache.evict([]);
  done();
});
