// The reader cache (lib/storage/read-cache.ts): eviction by table, partition
// folder or file, exactly those, in one call for many paths; its capacity, and
// which chunk goes when it is full.
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

/** A file of `size` bytes, byte i = i % 251, and a cleanup. */
function file(size: number): { path: string; done: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'svcdb-read-cache-'));
  const path = join(dir, 'f');
  writeFileSync(path, Buffer.from(Array.from({ length: size }, (_, i) => i % 251)));
  return { path, done: () => rmSync(dir, { recursive: true, force: true }) };
}

test('stays within its capacity, and a chunk read since the last pass outlives one that was not', () => {
  const f = file(64 * 10);
  const cache = new ReadCache(4 * 64, 64); // four chunks
  const at = (i: number): boolean => {
    const misses = cache.misses;
    const got = cache.read('1/f', f.path, i * 64, 64, 640);
    assert.deepEqual(
      [...got],
      Array.from({ length: 64 }, (_, j) => (i * 64 + j) % 251),
    );
    return cache.misses === misses;
  };
  for (let i = 0; i < 4; i++) assert.equal(at(i), false);
  assert.equal(at(0), true, 'chunk 0 is cached');
  assert.equal(at(4), false);
  assert.equal(cache.size, 4 * 64);
  // Chunk 0 was read again after it came in, so chunk 1 went in its place.
  assert.equal(at(0), true, 'the chunk read again stays');
  assert.equal(at(2), true);
  assert.equal(at(1), false, 'the oldest chunk not read again went');
  for (let i = 5; i < 10; i++) at(i);
  assert.equal(cache.size, 4 * 64);
  // A range across chunks comes back whole.
  assert.deepEqual(
    [...cache.read('1/f', f.path, 100, 300, 640)],
    Array.from({ length: 300 }, (_, j) => (100 + j) % 251),
  );
  assert.ok(cache.size <= 4 * 64);
  f.done();
});

test('a chunk cached short of what a later reader commits is read again', () => {
  const f = file(100);
  const cache = new ReadCache(1 << 20, 64);
  assert.equal(cache.read('1/f', f.path, 64, 10, 80).length, 10); // chunk 1 valid to 80
  const misses = cache.misses;
  assert.deepEqual(
    [...cache.read('1/f', f.path, 64, 36, 100)],
    Array.from({ length: 36 }, (_, j) => 64 + j),
  );
  assert.equal(cache.misses, misses + 1);
  assert.equal(cache.size, 36, 'the short copy (16 bytes) replaced, not kept beside');
  f.done();
});
