// DECIMAL arithmetic against BigInt reference arithmetic over random values:
// + - * exact, / within half a unit of the last digit with ties to even.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decimalCompute, decimalResultType, divHalfEven } from '../../lib/functions/decimal-arithmetic.js';
import { decimalSpec, decimalType } from '../../lib/core/column-type.js';

/** A deterministic generator (mulberry32), so a failure repeats. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random unscaled value of at most `digits` digits, either sign. */
function randomUnscaled(r: () => number, digits: number): bigint {
  let s = '';
  const n = 1 + Math.floor(r() * digits);
  for (let i = 0; i < n; i++) s += Math.floor(r() * 10).toString();
  const x = BigInt(s);
  return r() < 0.5 ? -x : x;
}

const abs = (x: bigint): bigint => (x < 0n ? -x : x);

test('+ - * match exact BigInt arithmetic at the result scale', () => {
  const r = rng(93);
  for (let k = 0; k < 2000; k++) {
    const pa = 1 + Math.floor(r() * 38),
      pb = 1 + Math.floor(r() * 38);
    const sa = Math.floor(r() * (pa + 1)),
      sb = Math.floor(r() * (pb + 1));
    const a = randomUnscaled(r, pa),
      b = randomUnscaled(r, pb);
    for (const op of ['+', '-', '*'] as const) {
      const t = decimalSpec(decimalResultType(op, decimalType(pa, sa), decimalType(pb, sb)));
      const got = decimalCompute(op, a, sa, b, sb, t.scale)!;
      // Reference: both sides at scale sa + sb (exact for every op), then to the result scale.
      const x = a * 10n ** BigInt(sb),
        y = b * 10n ** BigInt(sa);
      const at = sa + sb;
      const exact = op === '+' ? x + y : op === '-' ? x - y : a * b;
      // Equal values: exact / 10^at = got / 10^scale.
      assert.equal(exact * 10n ** BigInt(t.scale), got * 10n ** BigInt(at), `${a}e-${sa} ${op} ${b}e-${sb}`);
      // The result type holds every result of its operands' types.
      assert.ok(abs(got) < 10n ** BigInt(t.precision), `${op} fits DECIMAL(${t.precision},${t.scale})`);
    }
  }
});

test('/ is within half a unit of the last digit, ties to even', () => {
  const r = rng(7);
  for (let k = 0; k < 2000; k++) {
    const pa = 1 + Math.floor(r() * 30),
      pb = 1 + Math.floor(r() * 30);
    const sa = Math.floor(r() * (pa + 1)),
      sb = Math.floor(r() * (pb + 1));
    const a = randomUnscaled(r, pa),
      b = randomUnscaled(r, pb);
    const s = decimalSpec(decimalResultType('/', decimalType(pa, sa), decimalType(pb, sb))).scale;
    assert.equal(s, Math.max(sa, sb));
    const got = decimalCompute('/', a, sa, b, sb, s);
    if (b === 0n) {
      assert.equal(got, null);
      continue;
    }
    // got ~ num / den with num = a * 10^(sb + s), den = b * 10^sa; |2(got*den - num)| <= |den|.
    const num = a * 10n ** BigInt(sb + s),
      den = b * 10n ** BigInt(sa);
    const twiceErr = abs(2n * (got! * den - num));
    assert.ok(twiceErr <= abs(den), `${a}e-${sa} / ${b}e-${sb} = ${got}e-${s}`);
    if (twiceErr === abs(den)) assert.equal(got! % 2n, 0n, 'a tie rounds to even');
  }
});

test('divHalfEven rounds ties to the even neighbour, both signs', () => {
  assert.equal(divHalfEven(25n, 10n), 2n);
  assert.equal(divHalfEven(35n, 10n), 4n);
  assert.equal(divHalfEven(-25n, 10n), -2n);
  assert.equal(divHalfEven(-35n, 10n), -4n);
  assert.equal(divHalfEven(26n, -10n), -3n);
  assert.equal(divHalfEven(1n, 3n), 0n);
});

test('result types follow the DECIMAL page, capped at 76 digits', () => {
  const t = (op: '+' | '-' | '*' | '/', a: [number, number], b: [number, number]): string =>
    decimalResultType(op, decimalType(...a), decimalType(...b));
  assert.equal(t('+', [10, 2], [8, 2]), 'DECIMAL(11,2)');
  assert.equal(t('-', [3, 1], [4, 3]), 'DECIMAL(6,3)');
  assert.equal(t('*', [5, 2], [4, 2]), 'DECIMAL(9,4)');
  assert.equal(t('/', [4, 2], [2, 1]), 'DECIMAL(76,2)');
  assert.equal(t('+', [76, 0], [76, 0]), 'DECIMAL(76,0)');
  assert.equal(t('*', [40, 38], [40, 38]), 'DECIMAL(76,76)');
});
