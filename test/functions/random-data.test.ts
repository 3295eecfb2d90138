// rnd_ipv4, rnd_double_array, rnd_symbol_zipf, rnd_symbol_weighted (random-data.ts) through the
// registry: result types, constant arguments checked when bound, values within what was asked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KX, values } from './helpers.js';
import { createFunctionRegistry } from '../../lib/functions/index.js';
import type { BindArg } from '../../lib/functions/registry.js';
import type { SqlType } from '../../lib/core/sql-type.js';

const registry = createFunctionRegistry({ randomSeed: 7 });
const arg = (type: SqlType, value: string | number): BindArg => ({
  type,
  value,
  pos: 0,
  constant: true,
  vector: undefined,
});

/** Binds `name` with constant `args` and draws n rows. */
function draw(name: string, args: BindArg[], n: number): { type: SqlType; rows: unknown[] } {
  const fn = registry.resolveScalar(
    name,
    args.map((a) => a.type),
    0,
  );
  const bound = fn.bind?.(args, 0);
  const kernel = bound?.kernel ?? fn.kernel;
  return { type: bound?.type ?? fn.type, rows: values(kernel([], n, KX)) };
}

test('rnd_ipv4 draws any address but 0.0.0.0, or one of a subnet, NULL at the rate asked', () => {
  const any = draw('rnd_ipv4', [], 500);
  assert.equal(any.type, 'IPV4');
  assert.ok(any.rows.every((x) => x !== null));
  const sub = draw('rnd_ipv4', [arg('STRING', '192.168.1.0/24'), arg('INT', 0)], 500);
  assert.ok(sub.rows.every((x) => (x as number) >>> 8 === ((192 << 16) | (168 << 8) | 1)));
  const nulls = draw('rnd_ipv4', [arg('STRING', '10.0.0.0/8'), arg('INT', 1)], 50);
  assert.ok(nulls.rows.every((x) => x === null));
  assert.throws(() => draw('rnd_ipv4', [arg('STRING', '10.0.0.0'), arg('INT', 0)], 1), /invalid subnet/);
});

test('rnd_double_array: the dimensions asked, lengths up to the maximum or fixed, NaN at the rate asked', () => {
  assert.equal(draw('rnd_double_array', [arg('INT', 3)], 1).type, 'DOUBLE[][][]');
  const fixed = draw(
    'rnd_double_array',
    [arg('INT', 2), arg('INT', 0), arg('INT', 0), arg('INT', 2), arg('INT', 5)],
    3,
  );
  assert.equal(fixed.type, 'DOUBLE[][]');
  assert.throws(() => draw('rnd_double_array', [arg('INT', 0)], 1), /dimensions must be from 1 to 32/);
  assert.throws(
    () => draw('rnd_double_array', [arg('INT', 2), arg('INT', 0), arg('INT', 0), arg('INT', 2)], 1),
    /expected 2 dimension lengths/,
  );
});

test('rnd_symbol_zipf and rnd_symbol_weighted pick from their lists; the first of a Zipf list is the most frequent', () => {
  const z = draw(
    'rnd_symbol_zipf',
    [arg('STRING', 'A'), arg('STRING', 'B'), arg('STRING', 'C'), arg('DOUBLE', 2)],
    3000,
  );
  assert.equal(z.type, 'SYMBOL');
  const count = (rows: unknown[], s: string): number => rows.filter((x) => x === s).length;
  assert.ok(count(z.rows, 'A') > count(z.rows, 'B') && count(z.rows, 'B') > count(z.rows, 'C'));
  const g = draw('rnd_symbol_zipf', [arg('INT', 4), arg('DOUBLE', 1)], 200);
  assert.ok(g.rows.every((x) => ['S0', 'S1', 'S2', 'S3'].includes(x as string)));
  const w = draw(
    'rnd_symbol_weighted',
    [arg('STRING', 'X'), arg('INT', 1), arg('STRING', 'never'), arg('INT', 0)],
    300,
  );
  assert.ok(w.rows.every((x) => x === 'X'));
  assert.throws(
    () => draw('rnd_symbol_zipf', [arg('STRING', 'A'), arg('DOUBLE', 0)], 1),
    /alpha must be greater than 0/,
  );
  assert.throws(() => draw('rnd_symbol_weighted', [arg('STRING', 'A'), arg('INT', -1)], 1), /weight must be 0 or more/);
});
