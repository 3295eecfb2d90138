// DECIMAL and GEOHASH values: bytes <-> bigints (every width, NULL), text in
// and out as QuestDB prints it, rounding half away from zero, literal types.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  compareDecimalRows,
  decimalAt,
  decimalLiteral,
  formatDecimal,
  parseDecimalText,
  putDecimal,
  rescale,
} from '../../lib/core/decimal.js';
import {
  compareGeohashRows,
  formatGeohash,
  geohashAt,
  writeGeohashText,
  geohashFromText,
  parseGeohashBinary,
  parseGeohashChars,
  putGeohash,
} from '../../lib/core/geohash.js';

test('DECIMAL unscaled values round-trip through every width, NULL included', () => {
  for (const [w, xs] of [
    [1, [0n, 99n, -99n]],
    [2, [9999n, -9999n]],
    [4, [999999999n, -1n]],
    [8, [999999999999999999n, -999999999999999999n]],
    [16, [10n ** 38n - 1n, -(10n ** 38n - 1n)]],
    [32, [10n ** 76n - 1n, -(10n ** 76n - 1n)]],
  ] as const) {
    const b = new Uint8Array(w * (xs.length + 1));
    xs.forEach((x, i) => putDecimal(b, i, w, x));
    putDecimal(b, xs.length, w, null);
    assert.deepEqual(
      xs.map((_, i) => decimalAt(b, i, w)),
      xs,
      `width ${w}`,
    );
    assert.equal(decimalAt(b, xs.length, w), null);
  }
});

test('DECIMAL text: every scale digit printed, parsing rounds half away from zero', () => {
  assert.equal(formatDecimal(1234n, 2), '12.34');
  assert.equal(formatDecimal(-50n, 2), '-0.50');
  assert.equal(formatDecimal(5n, 3), '0.005');
  assert.equal(formatDecimal(-7n, 0), '-7');
  assert.equal(parseDecimalText('2.345', 2), 235n);
  assert.equal(parseDecimalText('-2.345', 2), -235n);
  assert.equal(parseDecimalText('2.344', 2), 234n);
  assert.equal(parseDecimalText('+78.9', 2), 7890n);
  assert.equal(parseDecimalText('1e3', 1), 10000n);
  assert.equal(parseDecimalText('.5', 1), 5n);
  assert.equal(parseDecimalText('12.34.56', 2), null);
  assert.equal(parseDecimalText('abc', 2), null);
  assert.equal(rescale(-125n, 2, 1), -13n);
  assert.equal(rescale(125n, 2, 4), 12500n);
});

test('a decimal literal is typed by its digits and fraction digits', () => {
  assert.deepEqual(decimalLiteral('1.25'), { type: 'DECIMAL(3,2)', unscaled: 125n });
  assert.deepEqual(decimalLiteral('0.001'), { type: 'DECIMAL(3,3)', unscaled: 1n });
  assert.deepEqual(decimalLiteral('-100'), { type: 'DECIMAL(3,0)', unscaled: -100n });
  assert.deepEqual(decimalLiteral('1000000.00'), { type: 'DECIMAL(9,2)', unscaled: 100000000n });
  assert.equal(decimalLiteral('1'.repeat(77)), null);
});

test('GEOHASH: base32 or bit text, bytes of every width, narrowing casts', () => {
  const u33d = parseGeohashChars('u33d')!;
  assert.equal(u33d.bits, 20);
  assert.equal(formatGeohash(u33d.value, 20), 'u33d');
  assert.equal(formatGeohash(u33d.value >> 2n, 18), '110100001100011011');
  assert.equal(parseGeohashChars('u33a'), null);
  assert.equal(parseGeohashChars('0123456789bcd'), null); // 13 chars: past 60 bits
  assert.deepEqual(parseGeohashBinary('0101'), { bits: 4, value: 5n });
  assert.equal(geohashFromText('questdb', 30), parseGeohashChars('questd')!.value);
  assert.equal(geohashFromText('u3', 20), null);
  for (const w of [1, 2, 4, 8]) {
    const b = new Uint8Array(2 * w);
    putGeohash(b, 0, w, (1n << BigInt(Math.min(60, w * 8 - 1))) - 1n);
    putGeohash(b, 1, w, null);
    assert.equal(geohashAt(b, 0, w), (1n << BigInt(Math.min(60, w * 8 - 1))) - 1n);
    assert.equal(geohashAt(b, 1, w), null);
  }
});

test('byte-wise DECIMAL and GEOHASH comparison and GEOHASH text agree with the bigint values', () => {
  for (const w of [1, 2, 4, 8, 16, 32]) {
    const lim = 2n ** BigInt(8 * w - 1) - 1n;
    const xs = [0n, 1n, -1n, 255n, -256n, lim, -lim, lim / 3n, -lim / 7n].map((x) => BigInt.asIntN(8 * w, x));
    const b = new Uint8Array(w * xs.length);
    xs.forEach((x, i) => putDecimal(b, i, w, x));
    for (let i = 0; i < xs.length; i++) {
      for (let j = 0; j < xs.length; j++) {
        const x = decimalAt(b, i, w)!,
          y = decimalAt(b, j, w)!;
        assert.equal(compareDecimalRows(b, i, b, j, w), x < y ? -1 : x > y ? 1 : 0, `width ${w}: ${x} vs ${y}`);
      }
    }
  }
  for (const [bits, w] of [
    [5, 1],
    [7, 1],
    [12, 2],
    [20, 4],
    [31, 4],
    [40, 8],
    [60, 8],
  ] as const) {
    const xs = [0n, 1n, 2n ** BigInt(bits) - 2n, 2n ** BigInt(bits - 1), 12345n % 2n ** BigInt(bits)];
    const b = new Uint8Array(w * xs.length);
    xs.forEach((x, i) => putGeohash(b, i, w, x));
    const out = new Uint8Array(64);
    for (let i = 0; i < xs.length; i++) {
      const end = writeGeohashText(b, i, w, bits, out, 1);
      assert.equal(Buffer.from(out.subarray(1, end)).toString('latin1'), formatGeohash(xs[i]!, bits), `${bits} bits`);
      for (let j = 0; j < xs.length; j++)
        assert.equal(compareGeohashRows(b, i, b, j, w), xs[i]! < xs[j]! ? -1 : xs[i]! > xs[j]! ? 1 : 0);
    }
  }
});
