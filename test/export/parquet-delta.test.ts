import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteBuilder } from '../../lib/export/parquet/byte-builder.js';
import { ChunkValues } from '../../lib/export/parquet/column-values.js';
import { deltaValues, encodeDelta } from '../../lib/export/parquet/delta.js';

/**
 * A reference DELTA_BINARY_PACKED decoder (parquet-format Encodings.md), in
 * BigInt, as strict as Arrow's: the minimum delta must fit the physical type
 * (`bits`), so must every bit width, and values wrap around in it.
 */
function decodeDelta(b: Uint8Array, bits: 32 | 64 = 64): bigint[] {
  let p = 0;
  const uv = (): bigint => {
    let v = 0n,
      s = 0n,
      x;
    do {
      x = b[p++]!;
      v |= BigInt(x & 0x7f) << s;
      s += 7n;
    } while (x & 0x80);
    return v;
  };
  const zz = (): bigint => {
    const u = uv();
    return (u >> 1n) ^ -(u & 1n);
  };
  const block = Number(uv()),
    minis = Number(uv()),
    total = Number(uv());
  const first = zz();
  if (total === 0) {
    assert.equal(p, b.length);
    return [];
  }
  const out: bigint[] = [first];
  const per = block / minis;
  while (out.length < total) {
    const min = zz();
    assert.equal(BigInt.asIntN(bits, min), min, `min delta ${min} fits ${bits} bits`);
    const widths = Array.from({ length: minis }, () => b[p++]!);
    for (const w of widths) assert.ok(w <= bits, `bit width ${w} <= ${bits}`);
    for (let k = 0; k < minis && out.length < total; k++) {
      const w = widths[k]!;
      const start = p;
      for (let i = 0; i < per; i++) {
        let d = 0n;
        for (let j = 0; j < w; j++) {
          const bit = i * w + j;
          if (b[start + (bit >> 3)]! & (1 << (bit & 7))) d |= 1n << BigInt(j);
        }
        if (out.length < total) out.push(BigInt.asIntN(bits, out[out.length - 1]! + min + d));
      }
      p = start + (per * w) / 8;
    }
  }
  assert.equal(p, b.length);
  return out;
}

function i64Chunk(values: bigint[]): ChunkValues {
  const v = new ChunkValues('i64', 8, values.length);
  const view = new BigInt64Array(v.i64.buffer);
  values.forEach((x, i) => {
    view[i] = x;
  });
  v.rows = v.count = values.length;
  return v;
}

function i32Chunk(values: number[]): ChunkValues {
  const v = new ChunkValues('i32', 4, values.length);
  v.i32.set(values);
  v.rows = v.count = values.length;
  return v;
}

test('INT32 deltas wrap to 32 bits: extremes, alternating signs and random values decode with 32-bit arithmetic', () => {
  let seed = 11;
  const rnd = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed;
  };
  const cases: number[][] = [
    [1_000_000_000, -1_200_000_000],
    [2147483647, -2147483648, 2147483647, 0, -2147483648],
    Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? 2147483647 - i : -2147483647 + i)),
    Array.from({ length: 700 }, () => rnd() | 0),
    Array.from({ length: 300 }, (_, i) => i * 7 - 1000),
  ];
  for (const values of cases) {
    const dv = deltaValues(i32Chunk(values));
    assert.ok(dv !== null);
    assert.equal(dv.bits, 32);
    const out = new ByteBuilder(16);
    encodeDelta(out, dv, 0, values.length);
    assert.deepEqual(decodeDelta(out.view8(), 32).map(Number), values);
  }
});

test('round-trips regular steps, jitter, negatives, big values and lengths around the block size', () => {
  let seed = 3;
  const rnd = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 4294967296;
  };
  const cases: bigint[][] = [
    [],
    [5n],
    Array.from({ length: 1000 }, (_, i) => 1_704_067_200_000_000n + BigInt(i) * 250_000n),
    Array.from({ length: 129 }, () => BigInt(Math.floor(rnd() * 2 ** 40)) - 2n ** 39n),
    Array.from({ length: 300 }, (_, i) => BigInt(i % 7 === 0 ? -(2 ** 50) : 2 ** 50) + BigInt(i)),
    Array.from({ length: 257 }, (_, i) => 7_000_000_000_000_000n + BigInt(Math.floor(rnd() * 1000) * i)),
  ];
  for (const values of cases) {
    const dv = deltaValues(i64Chunk(values));
    assert.ok(dv !== null);
    const out = new ByteBuilder(16);
    encodeDelta(out, dv, 0, values.length);
    assert.deepEqual(decodeDelta(out.view8()), values);
  }
});

test('a regular timestamp column takes a few bytes per 128 rows', () => {
  const values = Array.from({ length: 128_001 }, (_, i) => 1_704_067_200_000_000n + BigInt(i) * 250_000n);
  const out = new ByteBuilder(16);
  encodeDelta(out, deltaValues(i64Chunk(values))!, 0, values.length);
  assert.ok(out.length < 10 * 1001, `${out.length} bytes`);
});

test('values outside the exact double range are left to PLAIN', () => {
  assert.equal(deltaValues(i64Chunk([0n, 9_223_372_036_854_775_807n])), null);
  assert.equal(deltaValues(i64Chunk([-(2n ** 60n), 0n])), null);
  assert.equal(deltaValues(i64Chunk([2n ** 52n - 1n, -(2n ** 52n) + 1n])), null);
});

test('every miniblock bit width from 0 to 52 round-trips (the packer has paths up to 24, up to 32 and past 32 bits)', () => {
  let seed = 7;
  const rnd = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 4294967296;
  };
  for (let width = 0; width <= 52; width++) {
    // Values in [0, 2^(width - 1)) around a base: deltas (minus the smallest) need about `width` bits.
    const values = Array.from({ length: 300 }, () =>
      width === 0 ? 1_000_000n : 1_000_000n + BigInt(Math.floor(rnd() * 2 ** (width - 1))),
    );
    const out = new ByteBuilder(16);
    encodeDelta(out, deltaValues(i64Chunk(values))!, 0, values.length);
    assert.deepEqual(decodeDelta(out.view8()), values, `width ${width}`);
  }
});
