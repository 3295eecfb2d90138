import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BloomFilter, bloomFilterBytes, MAX_BLOOM_BYTES } from '../../lib/export/parquet/bloom-filter.js';
import { xxhash64 } from '../../lib/export/parquet/xxhash64.js';

const hex = (b: Uint8Array): string => {
  const h = xxhash64(b, 0, b.length, { hi: 0, lo: 0 });
  return h.hi.toString(16).padStart(8, '0') + h.lo.toString(16).padStart(8, '0');
};

/** A BigInt transcription of the xxHash64 reference, to check the 32-bit-halves version on every length. */
function xxh64Ref(b: Uint8Array): bigint {
  const M = (1n << 64n) - 1n;
  const P1 = 0x9e3779b185ebca87n,
    P2 = 0xc2b2ae3d27d4eb4fn,
    P3 = 0x165667b19e3779f9n,
    P4 = 0x85ebca77c2b2ae63n,
    P5 = 0x27d4eb2f165667c5n;
  const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & M;
  const u64 = (i: number): bigint => {
    let v = 0n;
    for (let k = 7; k >= 0; k--) v = (v << 8n) | BigInt(b[i + k]!);
    return v;
  };
  const u32 = (i: number): bigint => BigInt(b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16)) + (BigInt(b[i + 3]!) << 24n);
  const round = (acc: bigint, x: bigint): bigint => (rotl((acc + x * P2) & M, 31n) * P1) & M;
  const merge = (acc: bigint, v: bigint): bigint => ((acc ^ round(0n, v)) * P1 + P4) & M;
  let p = 0,
    h: bigint;
  const n = b.length;
  if (n >= 32) {
    let v1 = (P1 + P2) & M,
      v2 = P2,
      v3 = 0n,
      v4 = (M + 1n - P1) & M;
    while (p + 32 <= n) {
      v1 = round(v1, u64(p));
      v2 = round(v2, u64(p + 8));
      v3 = round(v3, u64(p + 16));
      v4 = round(v4, u64(p + 24));
      p += 32;
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & M;
    h = merge(merge(merge(merge(h, v1), v2), v3), v4);
  } else h = P5;
  h = (h + BigInt(n)) & M;
  for (; p + 8 <= n; p += 8) h = (rotl(h ^ round(0n, u64(p)), 27n) * P1 + P4) & M;
  if (p + 4 <= n) {
    h = (rotl(h ^ ((u32(p) * P1) & M), 23n) * P2 + P3) & M;
    p += 4;
  }
  for (; p < n; p++) h = (rotl(h ^ ((BigInt(b[p]!) * P5) & M), 11n) * P1) & M;
  h ^= h >> 33n;
  h = (h * P2) & M;
  h ^= h >> 29n;
  h = (h * P3) & M;
  h ^= h >> 32n;
  return h;
}

test('xxHash64 gives the published test vectors', () => {
  assert.equal(hex(Buffer.from('')), 'ef46db3751d8e999');
  assert.equal(hex(Buffer.from('a')), 'd24ec4f1a98c6e5b');
  assert.equal(hex(Buffer.from('abc')), '44bc2cf5ad770999');
  assert.equal(hex(Buffer.from('The quick brown fox jumps over the lazy dog')), '0b242d361fda71bc');
});

test('xxHash64 agrees with a BigInt reference on every length 0..200 and at an offset', () => {
  const bytes = Uint8Array.from({ length: 210 }, (_, i) => (i * 151 + 7) & 0xff);
  for (let n = 0; n <= 200; n++) {
    const want = xxh64Ref(bytes.subarray(3, 3 + n))
      .toString(16)
      .padStart(16, '0');
    const h = xxhash64(bytes, 3, 3 + n, { hi: 0, lo: 0 });
    assert.equal(h.hi.toString(16).padStart(8, '0') + h.lo.toString(16).padStart(8, '0'), want, `length ${n}`);
  }
});

test('filter sizes follow the spec formula, powers of two from 32 bytes to the cap', () => {
  // ndv 1M at 1%: 9.6 bits per value by the formula -> 1.2 MB -> 2 MiB.
  assert.equal(bloomFilterBytes(1_000_000, 0.01), 2 * 1024 * 1024);
  assert.equal(bloomFilterBytes(0, 0.01), 32);
  assert.equal(bloomFilterBytes(1000, 1), 32);
  assert.equal(bloomFilterBytes(1000, 0), 32 * 1024);
  assert.ok(bloomFilterBytes(1e9, 0.0001) <= MAX_BLOOM_BYTES);
  for (const [n, f] of [
    [10, 0.5],
    [100_000, 0.001],
    [5, 0.01],
  ] as const) {
    const b = bloomFilterBytes(n, f);
    assert.equal(b & (b - 1), 0);
    assert.ok(b >= 32);
  }
});

test('a split-block filter finds every inserted value and rejects absent ones near the target rate', () => {
  const n = 20_000;
  for (const fpp of [0.1, 0.01, 0.001]) {
    const bf = new BloomFilter(bloomFilterBytes(n, fpp));
    const key = new Uint8Array(8);
    const dv = new DataView(key.buffer);
    for (let i = 0; i < n; i++) {
      dv.setFloat64(0, i * 1.5, true);
      bf.insert(key, 0, 8);
    }
    for (let i = 0; i < n; i++) {
      dv.setFloat64(0, i * 1.5, true);
      assert.ok(bf.check(key, 0, 8));
    }
    let fp = 0;
    const probes = 100_000;
    for (let i = 0; i < probes; i++) {
      dv.setFloat64(0, -1 - i, true);
      if (bf.check(key, 0, 8)) fp++;
    }
    // Rounding the size up to a power of two only lowers the rate.
    assert.ok(fp / probes <= fpp * 1.5, `fpp ${fpp}: measured ${fp / probes}`);
  }
});

test('the block and bits follow the spec: hash 0 sets bit SALT[i] * 0 >> 27 = 0 of every word of block 0', () => {
  const bf = new BloomFilter(64);
  bf.insertHash(0, 0);
  assert.deepEqual([...bf.words], [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
  bf.insertHash(0xffffffff, 1);
  // Upper half all ones -> the last block; lower half 1 -> bit SALT[i] >>> 27 of each word.
  const salts = [0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31];
  assert.deepEqual(
    [...bf.words.subarray(8)],
    salts.map((s) => (1 << (s >>> 27)) >>> 0),
  );
});
