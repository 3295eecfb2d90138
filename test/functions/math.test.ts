// Numeric functions: abs and sign keep their type, round variants at any
// scale (ties away from zero), floor/ceil, roots, powers, logarithms,
// greatest/least.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bytes, call, doubles, floats, ints, longs, resolveError, resultType } from './helpers.js';
import { roundTo } from '../../lib/functions/math.js';

test('abs and sign keep the argument type and its NULL', () => {
  assert.equal(resultType('abs', ['INT']), 'INT');
  assert.equal(resultType('abs', ['LONG']), 'LONG');
  assert.equal(resultType('sign', ['FLOAT']), 'FLOAT');
  assert.deepEqual(call('abs', [ints([-1, 0, 1, null])]), [1, 0, 1, null]);
  assert.deepEqual(call('abs', [longs([-(2 ** 52), null])]), [2 ** 52, null]);
  assert.deepEqual(call('abs', [doubles([-0.5, -0])]), [0.5, 0]);
  assert.deepEqual(call('abs', [bytes([-128, -5])]), [-128, 5]);
  assert.deepEqual(call('sign', [ints([-2, -1, 0, 1, 2, null])]), [-1, -1, 0, 1, 1, null]);
  assert.deepEqual(call('sign', [doubles([-0.1, null])]), [-1, null]);
});

test("round with a scale is half away from zero at any scale, negative scales included; without one it is Java's Math.round", () => {
  const d = [-0.811905406, -5.002768547, -64.75487334, -926.531695, 0.069361448, 4.003627053, 86.91359825, 376.3807766];
  const at = (s: number): unknown[] => call('round', [doubles(d), ints(d.map(() => s))]);
  assert.deepEqual(at(-2), [-0, -0, -100, -900, 0, 0, 100, 400]);
  assert.deepEqual(at(-1), [-0, -10, -60, -930, 0, 0, 90, 380]);
  assert.deepEqual(at(0), [-1, -5, -65, -927, 0, 4, 87, 376]);
  assert.deepEqual(at(1), [-0.8, -5, -64.8, -926.5, 0.1, 4, 86.9, 376.4]);
  assert.deepEqual(at(2), [-0.81, -5, -64.75, -926.53, 0.07, 4, 86.91, 376.38]);
  // round(x): Java's Math.round, half up towards positive infinity (QuestDB: round(-2.5) = -2).
  assert.deepEqual(call('round', [doubles([0.5, 1.5, 2.5, -0.5, -2.5, -2.6, -0.4, null])]), [
    1,
    2,
    3,
    0,
    -2,
    -3,
    0,
    null,
  ]);
  assert.deepEqual(call('round', [doubles([2.675, 1.005, 1.0049999])]), [3, 1, 1]);
  assert.deepEqual(
    call('round', [doubles([2.675, 1.005, -1.005, 1.0049999]), ints([2, 2, 2, 2])]),
    [2.68, 1.01, -1.01, 1],
  );
  assert.deepEqual(call('round', [ints([7]), ints([null])]), [null]);
  assert.deepEqual(call('round', [doubles([1e300, Infinity]), ints([2, 2])]), [1e300, Infinity]);
  assert.equal(resultType('round', ['INT']), 'DOUBLE');
});

test('round_half_even, round_down and round_up follow their names', () => {
  assert.deepEqual(call('round_half_even', [doubles([5.55, 5.65, 2.5, 3.5]), ints([1, 1, 0, 0])]), [5.6, 5.6, 2, 4]);
  assert.deepEqual(
    call('round_down', [doubles([-0.811905406, 86.91359825, 0.29]), ints([1, -1, 2])]),
    [-0.8, 80, 0.29],
  );
  assert.deepEqual(
    call('round_up', [doubles([-0.811905406, 4.003627053, 86.91359825]), ints([1, 2, -2])]),
    [-0.9, 4.01, 100],
  );
  // QuestDB's double arithmetic shows: round_down multiplies back by 0.1, round_up divides by 10.
  assert.deepEqual(
    call('round_down', [doubles([1.29, -1.29, 376.3807766]), ints([1, 1, 1])]),
    [1.2000000000000002, -1.2000000000000002, 376.3],
  );
  assert.deepEqual(call('round_up', [doubles([1.21, 4.003627053, 376.3807766]), ints([1, 1, 1])]), [1.3, 4.1, 376.4]);
  assert.equal(roundTo(0.1 + 0.2, 1, 'up'), 0.4);
  assert.equal(roundTo(0.7, 1, 'down'), 0.7);
});

test('floor, ceil, sqrt, power, ln, log (base 10) and exp return DOUBLE', () => {
  assert.deepEqual(call('floor', [doubles([15.75, -15.75, null])]), [15, -16, null]);
  assert.deepEqual(call('ceil', [doubles([15.75, -15.75])]), [16, -15]);
  assert.deepEqual(call('ceiling', [ints([3])]), [3]);
  assert.deepEqual(call('sqrt', [doubles([4, -1, null])]), [2, null, null]);
  assert.deepEqual(call('power', [ints([2, 2]), ints([3, -1])]), [8, 0.5]);
  assert.deepEqual(call('pow', [doubles([9]), doubles([0.5])]), [3]);
  assert.deepEqual(call('log', [ints([100, 1000])]), [2, 3]);
  assert.deepEqual(call('ln', [doubles([Math.E, 1])]), [1, 0]);
  assert.deepEqual(call('exp', [doubles([0, null])]), [1, null]);
  assert.equal(resultType('sqrt', ['LONG']), 'DOUBLE');
});

test('greatest and least skip NULLs and are NULL only when all are', () => {
  assert.deepEqual(call('greatest', [ints([11, null, null]), ints([3, 5, null]), ints([8, 1, null])]), [11, 5, null]);
  assert.deepEqual(call('least', [longs([11, null]), doubles([3.5, 2])]), [3.5, 2]);
  assert.equal(resultType('greatest', ['INT', 'LONG']), 'LONG');
});

test('handles empty batches and rejects non-numeric arguments', () => {
  assert.deepEqual(call('round', [doubles([]), ints([])], undefined, 0), []);
  assert.deepEqual(call('abs', [floats([])], undefined, 0), []);
  assert.equal(
    resolveError('abs', ['STRING']),
    'there is no matching function `abs` with the argument types: (STRING)',
  );
  assert.equal(
    resolveError('round', ['DOUBLE', 'DOUBLE', 'INT']),
    'there is no matching function `round` with the argument types: (DOUBLE, DOUBLE, INT)',
  );
  assert.match(resolveError('sqrt', ['TIMESTAMP']), /no matching function `sqrt`/);
});

test('trigonometry: sin, cos, tan, cot, asin, acos, atan, atan2, degrees, radians, pi; a NaN result and cot(0) are NULL', () => {
  const h = Math.PI / 2;
  assert.deepEqual(call('sin', [doubles([h, 0, Infinity, null])]), [1, 0, null, null]);
  assert.deepEqual(call('cos', [doubles([h, 0])]), [6.123233995736766e-17, 1]);
  assert.deepEqual(call('tan', [doubles([h])]), [16331239353195370]);
  assert.deepEqual(call('cot', [doubles([h, 0, Math.PI / 4, null])]), [
    6.123233995736766e-17,
    null,
    1.0000000000000002,
    null,
  ]);
  assert.deepEqual(call('asin', [doubles([1, 2, null])]), [h, null, null]);
  assert.deepEqual(call('acos', [doubles([0, -1.5])]), [h, null]);
  assert.deepEqual(call('atan', [doubles([1, -Infinity])]), [Math.PI / 4, -h]);
  assert.deepEqual(call('atan2', [doubles([1, -1, null]), doubles([1, -1, 1])]), [
    Math.PI / 4,
    -3 * (Math.PI / 4),
    null,
  ]);
  assert.deepEqual(call('degrees', [doubles([Math.PI, null])]), [180, null]);
  assert.deepEqual(call('radians', [ints([180, null])]), [Math.PI, null]);
  assert.deepEqual(call('pi', [], [], 2), [Math.PI, Math.PI]);
  for (const name of ['sin', 'cos', 'tan', 'cot', 'asin', 'acos', 'atan', 'degrees', 'radians'])
    assert.equal(resultType(name, ['INT']), 'DOUBLE', name);
  assert.equal(resultType('atan2', ['LONG', 'DOUBLE']), 'DOUBLE');
});
