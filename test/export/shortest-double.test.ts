// writeShortestDouble against formatDouble (String(x) in Java's layout), the
// rendering it replaces on the export path: random doubles of every shape in
// its range (uniform values, random bit patterns, short decimals), powers of
// two (whose lower gap is half the upper), the neighbours of every decade
// boundary, and the range edges, where it must decline.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeShortestDouble } from '../../lib/export/shortest-double.js';
import { formatDouble } from '../../lib/core/number-format.js';
import { mulberry32 } from '../helpers/prng.js';

const out = new Uint8Array(32);
const decoder = new TextDecoder();
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** The writer's text for x, or null when it declines. */
function written(x: number): string | null {
  const end = writeShortestDouble(out, 0, x);
  return end < 0 ? null : decoder.decode(out.subarray(0, end));
}

/** The next double above (dir 1) or below (dir -1) a positive x. */
function neighbour(x: number, dir: 1 | -1): number {
  f64[0] = x;
  let lo = u32[0]! + dir;
  let hi = u32[1]!;
  if (lo > 0xffffffff) {
    lo = 0;
    hi++;
  } else if (lo < 0) {
    lo = 0xffffffff;
    hi--;
  }
  u32[0] = lo;
  u32[1] = hi;
  return f64[0]!;
}

function check(x: number, mismatches: string[]): void {
  const got = written(x);
  const inRange = Math.abs(x) >= 1e-3 && Math.abs(x) < 1e7;
  if (!inRange) {
    if (got !== null) mismatches.push(`${x}: wrote ${got} outside the range`);
    return;
  }
  const want = formatDouble(x);
  if (got !== want && mismatches.length < 20) mismatches.push(`${x}: ${got} != ${want}`);
}

test('random doubles of every magnitude in range print as formatDouble does', () => {
  const rnd = mulberry32(71);
  const bad: string[] = [];
  for (let i = 0; i < 400_000; i++) {
    const mag = Math.pow(10, Math.floor(rnd() * 11) - 4); // 1e-4 .. 1e6
    const x = rnd() * mag * 10;
    check(i & 1 ? -x : x, bad);
  }
  assert.deepEqual(bad, []);
});

test('random bit patterns in range, short decimals and scaled integers', () => {
  const rnd = mulberry32(72);
  const bad: string[] = [];
  for (let i = 0; i < 300_000; i++) {
    // Exponents for 2^-10 .. 2^23 with random mantissa bits: every low bit pattern, including the even/odd boundaries.
    u32[1] = ((1013 + Math.floor(rnd() * 34)) << 20) | Math.floor(rnd() * 0x100000);
    u32[0] = Math.floor(rnd() * 4294967296);
    check(f64[0]!, bad);
    const digits = Math.floor(rnd() * 1e6);
    check(digits / Math.pow(10, Math.floor(rnd() * 9)), bad); // 0.000123, 12.3456, ...
    check(Math.floor(rnd() * 1e7) / 8, bad);
    check(0.1 * Math.floor(rnd() * 1e5), bad);
    // 14 to 16 significant digits, at the edge of the short-decimal path (15) and past it.
    for (const n of [1e14, 1e15, 1e16]) check(Math.floor(rnd() * n) / Math.pow(10, 8 + Math.floor(rnd() * 10)), bad);
  }
  assert.deepEqual(bad, []);
});

test('powers of two, decade boundaries and their neighbours, and the range edges', () => {
  const bad: string[] = [];
  for (let e = -12; e <= 24; e++) {
    const p = Math.pow(2, e);
    for (const x of [p, neighbour(p, 1), neighbour(p, -1), neighbour(neighbour(p, 1), 1)]) {
      check(x, bad);
      check(-x, bad);
    }
  }
  for (let e = -4; e <= 7; e++) {
    let x = Number(`1e${e}`);
    for (let i = 0; i < 40; i++) x = neighbour(x, -1);
    for (let i = 0; i < 80; i++) {
      check(x, bad);
      check(-x, bad);
      x = neighbour(x, 1);
    }
    // eslint-disable-next-line no-loss-of-precision -- the literal as a client sends it, rounded as JavaScript rounds it
    for (const m of [1.5, 2, 2.5, 5, 9.999999999999998, 9.999999999999999]) check(m * Number(`1e${e}`), bad);
  }
  for (const x of [
    0.001,
    1e7,
    9999999.999999998,
    0.0009999999999999998,
    0.1,
    0.2,
    0.3,
    1 / 3,
    2 / 3,
    Math.PI,
    Math.E,
    123.456,
    5e-324,
    0,
    -0,
    NaN,
    Infinity,
    -Infinity,
    1e300,
  ]) {
    check(x, bad);
  }
  assert.deepEqual(bad, []);
  assert.equal(written(0.001), '0.001');
  assert.equal(written(42), '42.0');
  assert.equal(written(-1234567.5), '-1234567.5');
  assert.equal(written(1e7), null);
  assert.equal(written(NaN), null);
});
