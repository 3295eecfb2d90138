import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteBuilder } from '../../lib/export/parquet/byte-builder.js';
import { bitWidth, encodeDefLevels, encodeHybrid } from '../../lib/export/parquet/rle.js';

/** A reference decoder of the RLE / bit-packing hybrid (parquet-format Encodings.md). */
function decodeHybrid(bytes: Uint8Array, width: number, count: number): number[] {
  const out: number[] = [];
  let p = 0;
  const varint = (): number => {
    let v = 0,
      s = 0,
      b;
    do {
      b = bytes[p++]!;
      v += (b & 0x7f) * 2 ** s;
      s += 7;
    } while (b & 0x80);
    return v;
  };
  while (out.length < count) {
    const h = varint();
    if (h % 2 === 0) {
      let v = 0;
      for (let k = 0; k < Math.ceil(width / 8); k++) v += bytes[p++]! * 2 ** (8 * k);
      for (let i = 0; i < h / 2; i++) out.push(v);
    } else {
      const n = ((h - 1) / 2) * 8;
      let bit = 0;
      const start = p;
      for (let i = 0; i < n; i++) {
        let v = 0;
        for (let k = 0; k < width; k++, bit++) if (bytes[start + (bit >> 3)]! & (1 << (bit & 7))) v += 2 ** k;
        out.push(v);
      }
      p = start + ((n * width) >> 3);
    }
  }
  assert.equal(p, bytes.length, 'no trailing bytes');
  return out.slice(0, count);
}

function roundTrip(values: number[], width: number): number[] {
  const out = new ByteBuilder(8);
  encodeHybrid(out, Int32Array.from(values), 0, values.length, width);
  return decodeHybrid(out.view8(), width, values.length);
}

test('encodes a long run as one RLE run: 100 threes in 2 bits are 3 bytes', () => {
  const out = new ByteBuilder(8);
  encodeHybrid(out, new Int32Array(100).fill(3), 0, 100, 2);
  assert.deepEqual([...out.view8()], [0xc8, 0x01, 0x03]);
});

test('bit-packs short runs in groups of 8, LSB first (the spec example 0..7 in 3 bits)', () => {
  const out = new ByteBuilder(8);
  encodeHybrid(out, Int32Array.from([0, 1, 2, 3, 4, 5, 6, 7]), 0, 8, 3);
  assert.deepEqual([...out.view8()], [0x03, 0x88, 0xc6, 0xfa]);
});

test('round-trips random values of every bit width 0..32, mixed runs and lengths off multiples of 8', () => {
  let seed = 7;
  const rnd = (): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed / 4294967296;
  };
  for (let width = 0; width <= 32; width++) {
    const max = width === 0 ? 0 : 2 ** width - 1;
    for (const n of [0, 1, 7, 8, 9, 63, 100, 1001]) {
      const values: number[] = [];
      while (values.length < n) {
        const v = Math.floor(rnd() * (max + 1));
        const run = rnd() < 0.3 ? 1 + Math.floor(rnd() * 30) : 1;
        for (let i = 0; i < run && values.length < n; i++) values.push(v);
      }
      const signed = values.map((v) => v | 0); // the encoder takes int32 (32-bit values wrap)
      assert.deepEqual(
        roundTrip(signed, width).map((v) => v >>> 0),
        values.map((v) => v >>> 0),
        `width ${width}, n ${n}`,
      );
    }
  }
});

test('definition levels without NULLs are one run; with NULLs they follow the defined flags', () => {
  const out = new ByteBuilder(8);
  encodeDefLevels(out, null, 0, 1000);
  assert.deepEqual(decodeHybrid(out.view8(), 1, 1000), new Array(1000).fill(1));
  const defined = Uint8Array.from({ length: 50 }, (_, i) => (i % 3 === 0 ? 0 : 1));
  out.reset();
  encodeDefLevels(out, defined, 10, 40);
  assert.deepEqual(decodeHybrid(out.view8(), 1, 30), [...defined.subarray(10, 40)]);
});

test('bitWidth is the bits of the largest value', () => {
  assert.deepEqual([0, 1, 2, 3, 4, 255, 256, 2 ** 31 - 1].map(bitWidth), [0, 1, 2, 2, 3, 8, 9, 31]);
});
