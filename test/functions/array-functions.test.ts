// Functions over DOUBLE arrays (lib/functions/array-functions.ts) through the registry: reductions,
// lookups and reshaping, NULL arrays and NULL / non-finite elements as QuestDB's Array page says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bools, call, doubles, ints, resolveError, run } from './helpers.js';
import { renderTexts } from '../../lib/core/render.js';
import { arraysFromTexts } from '../../lib/core/array-values.js';
import type { ColumnType } from '../../lib/core/column-type.js';
import type { ColumnVector } from '../../lib/core/column-vector.js';

const arr = (type: string, ...rows: (string | null)[]): ColumnVector => arraysFromTexts(type as ColumnType, rows);
const texts = (v: ColumnVector): (string | null)[] => renderTexts(v, v.kind === 'var' ? v.offsets.length - 1 : 0);

test('reductions: sum and cumulative sum take NULL as zero; avg skips it; count, min, max, stddev skip non-finite', () => {
  const a = arr('DOUBLE[][]', '[[1.0,null],[2.0,3.0]]', null, '[[NaN,Infinity],[-Infinity,NaN]]', '[]');
  assert.deepEqual(call('array_sum', [a]), [6, null, null, 0]);
  assert.deepEqual(call('array_avg', [a]), [2, null, null, null]);
  assert.deepEqual(call('array_count', [a]), [3, null, 0, 0]);
  assert.deepEqual(call('array_max', [a]), [3, null, null, null]);
  assert.deepEqual(call('array_min', [a]), [1, null, null, null]);
  const s = arr('DOUBLE[]', '[1.0,2.0,3.0,4.0]', '[5.0]', '[1.0,Infinity,3.0]');
  const samp = call('array_stddev_samp', [s]) as Array<number | null>;
  assert.ok(Math.abs(samp[0]! - 1.2909944487358056) < 1e-15);
  assert.deepEqual(samp.slice(1), [null, Math.SQRT2]);
  assert.deepEqual(call('array_stddev', [s]), samp);
  assert.deepEqual(call('array_stddev_pop', [s]), [Math.sqrt(1.25), 0, 1]);
  // Non-finite elements print as null in array text, as QuestDB prints them (and /exec's JSON).
  assert.deepEqual(texts(run('array_cum_sum', [a])), ['[1.0,1.0,3.0,6.0]', null, '[0.0,null,null,null]', '[]']);
});

test('dot_product over equal shapes; dim_length per 1-based dimension, out of range an error', () => {
  const m = arr('DOUBLE[][]', '[[3.0,4.0],[2.0,5.0]]');
  assert.deepEqual(call('dot_product', [m, m]), [54]);
  assert.throws(() => call('dot_product', [m, arr('DOUBLE[][]', '[[1.0,2.0]]')]), /same shape/);
  assert.deepEqual(call('dim_length', [m, ints([1])]), [2]);
  assert.deepEqual(call('dim_length', [arr('DOUBLE[][]', '[[1.0,2.0,3.0]]'), ints([2])]), [3]);
  assert.throws(() => call('dim_length', [m, ints([3])]), /dimension out of bounds/);
});

test('array_position finds the first equal element (a NULL finds the first NULL); insertion_point searches either order', () => {
  const a = arr('DOUBLE[]', '[1.0,2.0,null,2.0]');
  assert.deepEqual(call('array_position', [a, doubles([2])]), [2]);
  assert.deepEqual(call('array_position', [a, doubles([null])]), [3]);
  assert.deepEqual(call('array_position', [a, doubles([9])]), [null]);
  assert.match(resolveError('array_position', ['DOUBLE[][]', 'DOUBLE']), /one-dimensional/);
  const up = arr('DOUBLE[]', '[1.0,2.0,3.0]', '[1.0,2.0,3.0]', '[1.0,2.0,3.0]');
  assert.deepEqual(call('insertion_point', [up, doubles([2.5, 2, 0])]), [3, 3, 1]);
  assert.deepEqual(call('insertion_point', [up, doubles([2.5, 2, 0]), bools([true, true, true])]), [3, 2, 1]);
  const down = arr('DOUBLE[]', '[3.0,2.0,1.0]', '[3.0,2.0,1.0]');
  assert.deepEqual(call('insertion_point', [down, doubles([2.5, 2])]), [2, 3]);
  assert.deepEqual(call('insertion_point', [arr('DOUBLE[]', '[3.0,2.0,1.0]'), doubles([2]), bools([true])]), [2]);
});

test('flatten, shift (the last dimension; NULL or a fill in the holes), transpose and matmul', () => {
  const m = arr('DOUBLE[][]', '[[1.0,2.0],[3.0,4.0]]');
  assert.deepEqual(texts(run('flatten', [m])), ['[1.0,2.0,3.0,4.0]']);
  assert.deepEqual(texts(run('shift', [m, ints([1])])), ['[[null,1.0],[null,3.0]]']);
  assert.deepEqual(texts(run('shift', [m, ints([-1]), doubles([10])])), ['[[2.0,10.0],[4.0,10.0]]']);
  assert.deepEqual(texts(run('shift', [m, ints([5])])), ['[[null,null],[null,null]]']);
  assert.deepEqual(texts(run('transpose', [arr('DOUBLE[][]', '[[1.0,2.0,3.0],[4.0,5.0,6.0]]')])), [
    '[[1.0,4.0],[2.0,5.0],[3.0,6.0]]',
  ]);
  assert.deepEqual(texts(run('transpose', [arr('DOUBLE[][][]', '[[[1.0,2.0],[3.0,4.0]],[[5.0,6.0],[7.0,8.0]]]')])), [
    '[[[1.0,5.0],[3.0,7.0]],[[2.0,6.0],[4.0,8.0]]]',
  ]);
  assert.deepEqual(texts(run('matmul', [m, arr('DOUBLE[][]', '[[2.0,3.0],[2.0,3.0]]')])), ['[[6.0,9.0],[14.0,21.0]]']);
  assert.throws(() => run('matmul', [m, arr('DOUBLE[][]', '[[1.0,2.0]]')]), /left matrix columns != right matrix rows/);
  assert.match(resolveError('matmul', ['DOUBLE[]', 'DOUBLE[][]']), /two matrices/);
  assert.deepEqual(texts(run('flatten', [arr('DOUBLE[][]', null)])), [null]);
});
