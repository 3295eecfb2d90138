// DOUBLE arrays: the 'array' constructor (ARRAY[...]) and the '[]' access operator
// through the registry, the row encoding read back, text form and its parser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KX, doubles, ints, longs, nullArg, resolveError, run, values, REGISTRY } from './helpers.js';
import { renderTexts } from '../../lib/core/render.js';
import { arraysFromTexts } from '../../lib/core/array-values.js';
import type { ColumnVector } from '../../lib/core/column-vector.js';

const texts = (v: ColumnVector): (string | null)[] => renderTexts(v, v.kind === 'var' ? v.offsets.length - 1 : 0);

test("'array' of numbers is a DOUBLE[] (elements cast to DOUBLE, NULL as NaN); of arrays one dimension deeper", () => {
  const a = run('array', [ints([1, null]), doubles([2.5, -0.0]), longs([3, 4])]);
  assert.equal(a.type, 'DOUBLE[]');
  assert.deepEqual(texts(a), ['[1.0,2.5,3.0]', '[null,-0.0,4.0]']);
  const b = run('array', [a, a]);
  assert.equal(b.type, 'DOUBLE[][]');
  assert.deepEqual(texts(b), ['[[1.0,2.5,3.0],[1.0,2.5,3.0]]', '[[null,-0.0,4.0],[null,-0.0,4.0]]']);
  assert.equal(REGISTRY.resolveScalar('array', [], 0).type, 'DOUBLE[]');
  assert.equal(REGISTRY.resolveScalar('array', ['NULL', 'INT'], 0).type, 'DOUBLE[]');
  assert.match(resolveError('array', ['DOUBLE[]', 'DOUBLE[][]']), /same type/);
  assert.match(resolveError('array', ['STRING']), /numbers or arrays/);
});

test('sub-arrays of different shapes are an error; a NULL sub-array makes the row NULL', () => {
  const one = run('array', [doubles([1])]);
  const two = run('array', [doubles([1]), doubles([2])]);
  assert.throws(() => run('array', [one, two]), /sub-arrays don't match in size/);
  const nulls = arraysFromTexts('DOUBLE[]', [null]);
  assert.deepEqual(texts(run('array', [one, nulls])), [null]);
});

test("'[]' is 1-based: all indexes give a DOUBLE (NULL out of range), fewer a sub-array (empty out of range)", () => {
  const m = arraysFromTexts('DOUBLE[][]', ['[[1.0,2.0],[3.0,4.0]]', null, '[]']);
  const at = (...idx: number[]): ColumnVector => run('[]', [m, ...idx.map((k) => ints([k, k, k]))]);
  assert.equal(at(2, 1).type, 'DOUBLE');
  assert.deepEqual(values(at(2, 1)), [3, null, null]);
  assert.deepEqual(values(at(1, 2)), [2, null, null]);
  assert.deepEqual(values(at(3, 1)), [null, null, null]);
  assert.deepEqual(values(at(0, 1)), [null, null, null]);
  assert.equal(at(2).type, 'DOUBLE[]');
  assert.deepEqual(texts(at(2)), ['[3.0,4.0]', null, '[]']);
  assert.deepEqual(texts(at(5)), ['[]', null, '[]']);
  // A NULL index is a NULL element.
  assert.deepEqual(values(run('[]', [m, nullArg(3), ints([1, 1, 1])], ['DOUBLE[][]', 'NULL', 'INT'])), [
    null,
    null,
    null,
  ]);
  assert.match(resolveError('[]', ['DOUBLE[]', 'INT', 'INT']), /too many array indexes/);
  assert.match(resolveError('[]', ['INT', 'INT']), /no matching operator `\[\]`/);
  assert.match(resolveError('[]', ['DOUBLE[]', 'DOUBLE']), /must be an integer/);
});

test('the text form reads back exactly (keys of GROUP BY and DISTINCT)', () => {
  const src = ['[[1.0,2.5],[-3.0E-7,null]]', '[]', null, '[[1.7976931348623157E308]]'];
  assert.deepEqual(texts(arraysFromTexts('DOUBLE[][]', src)), src);
  assert.equal(REGISTRY.resolveScalar('array', ['DOUBLE'], 0).kernel([doubles([1])], 1, KX).type, 'DOUBLE[]');
});

test("'=' and '!=' on arrays: same shape and elements", () => {
  const x = arraysFromTexts('DOUBLE[][]', ['[[1.0,2.0]]', '[[1.0,2.0]]', null, '[[null]]', null]);
  const y = arraysFromTexts('DOUBLE[][]', ['[[1.0,2.0]]', '[[1.0],[2.0]]', null, '[[null]]', '[]']);
  assert.deepEqual(values(run('=', [x, y])), [true, false, true, true, false]);
  assert.deepEqual(values(run('!=', [x, y])), [false, true, false, false, true]);
  assert.match(resolveError('<', ['DOUBLE[]', 'DOUBLE[]']), /no matching operator/);
});

test("'[:]' slices: INT an index (the dimension goes), LONG, LONG a range (kept; NULL end: to the end)", () => {
  const m = arraysFromTexts('DOUBLE[][]', ['[[1.0,2.0,3.0],[4.0,5.0,6.0]]', null]);
  const range = (lo: number | null, hi: number | null): ColumnVector[] => [longs([lo, lo]), longs([hi, hi])];
  const a = run('[:]', [m, ...range(2, null)]);
  assert.equal(a.type, 'DOUBLE[][]');
  assert.deepEqual(texts(a), ['[[4.0,5.0,6.0]]', null]);
  const b = run('[:]', [m, ints([1, 1]), ...range(2, 3)]);
  assert.equal(b.type, 'DOUBLE[]');
  assert.deepEqual(texts(b), ['[2.0]', null]);
  assert.deepEqual(texts(run('[:]', [m, ...range(1, 9), ints([3, 3])])), ['[3.0,6.0]', null]);
  assert.deepEqual(texts(run('[:]', [m, ints([7, 7]), ...range(1, 2)])), ['[]', null]);
  assert.match(resolveError('[:]', ['DOUBLE[]', 'INT', 'INT']), /too many array indexes/);
  assert.match(resolveError('[:]', ['DOUBLE[]', 'DOUBLE']), /must be an integer/);
});
