// make_geohash (lib/functions/geo.ts) and the point encoding under it (core/geohash.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REGISTRY } from './helpers.js';
import { formatGeohash, geohashOfPoint } from '../../lib/core/geohash.js';

test('a point is encoded longitude first, halving each range; (42.6, -5.6) is the classic ezs42', () => {
  assert.equal(formatGeohash(geohashOfPoint(-5.6, 42.6, 25), 25), 'ezs42');
  assert.equal(formatGeohash(geohashOfPoint(-5.6, 42.6, 60), 60), 'ezs42e44yx96');
  assert.equal(geohashOfPoint(0, 0, 2), 0b11n);
  assert.equal(geohashOfPoint(-180, -90, 4), 0n);
});

test("make_geohash's type follows its constant bits, checked when bound", () => {
  const fn = REGISTRY.resolveScalar('make_geohash', ['DOUBLE', 'DOUBLE', 'INT'], 0);
  const arg = (value: number, type: 'DOUBLE' | 'INT' = 'DOUBLE') => ({
    type,
    value,
    pos: 0,
    constant: true,
    vector: undefined,
  });
  assert.equal(fn.bind?.([arg(-5.6), arg(42.6), arg(25, 'INT')], 0)?.type, 'GEOHASH(5c)');
  assert.equal(fn.bind?.([arg(-5.6), arg(42.6), arg(7, 'INT')], 0)?.type, 'GEOHASH(7b)');
  assert.throws(() => fn.bind?.([arg(-5.6), arg(91), arg(7, 'INT')], 0), /latitude must be in/);
});
