// Number formatting shared by casts and the writers: DOUBLE and FLOAT as Java
// prints them, LONG with every digit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatDouble, formatFloat, formatLong, int64Pair, pairToDouble } from '../../lib/core/number-format.js';

test('prints doubles like Java: a decimal point or an exponent, shortest digits', () => {
  const cases: Array<[number, string]> = [
    [1, '1.0'],
    [40000, '40000.0'],
    [2.5e20, '2.5E20'],
    [1e-7, '1.0E-7'],
    [0.1 + 0.2, '0.30000000000000004'],
    [1e7, '1.0E7'],
    [9999999, '9999999.0'],
    [123456.789, '123456.789'],
    [0.001, '0.001'],
    [0.0001, '1.0E-4'],
    [-1.5, '-1.5'],
    [100, '100.0'],
    [1.7976931348623157e308, '1.7976931348623157E308'],
    [5e-324, '4.9E-324'],
    [-2.5e-5, '-2.5E-5'],
    [123e10, '1.23E12'],
    [0.5, '0.5'],
  ];
  for (const [x, s] of cases) assert.equal(formatDouble(x), s, String(x));
});

test('prints zero, negative zero, NaN and infinities as Java does', () => {
  assert.equal(formatDouble(0), '0.0');
  assert.equal(formatDouble(-0), '-0.0');
  assert.equal(formatDouble(NaN), 'NaN');
  assert.equal(formatDouble(Infinity), 'Infinity');
  assert.equal(formatDouble(-Infinity), '-Infinity');
});

test('prints floats with the shortest digits that read back to the same float', () => {
  assert.equal(formatFloat(Math.fround(0.1)), '0.1');
  assert.equal(formatFloat(Math.fround(1.5)), '1.5');
  assert.equal(formatFloat(Math.fround(3.4e38)), '3.4E38');
  assert.equal(formatFloat(Math.fround(1e-10)), '1.0E-10');
  assert.equal(formatFloat(Math.fround(16777216)), '1.6777216E7');
  assert.equal(formatFloat(Math.fround(0.3)), '0.3');
  assert.equal(formatFloat(NaN), 'NaN');
});

test('round-trips random doubles and floats through their text', () => {
  for (let i = 0; i < 2000; i++) {
    const d = (Math.random() - 0.5) * 10 ** Math.floor(Math.random() * 40 - 20);
    assert.equal(Number(formatDouble(d)), d);
    const f = Math.fround(d);
    assert.equal(Math.fround(Number(formatFloat(f))), f);
  }
});

test('prints LONG values past 2^53 exactly when the int64 pair is known', () => {
  const exact = new Int32Array(2);
  int64Pair(9007199254740993n, exact, 0);
  assert.equal(formatLong(pairToDouble(exact[0]!, exact[1]!), exact, 0), '9007199254740993');
  int64Pair(-9223372036854775807n, exact, 0);
  assert.equal(formatLong(pairToDouble(exact[0]!, exact[1]!), exact, 0), '-9223372036854775807');
  assert.equal(formatLong(42), '42');
  assert.equal(formatLong(-7), '-7');
  assert.equal(formatLong(2 ** 60), '1152921504606846976');
});
