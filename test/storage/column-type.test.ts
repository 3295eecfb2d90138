// The type-string infrastructure: SQL spellings -> canonical strings, the
// parameters' checks (QuestDB's errors), widths and kinds of parametric types.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ColumnTypeError,
  arrayDims,
  decimalSpec,
  geohashBits,
  isCanonicalType,
  parseColumnType,
  typeInfo,
  typeKind,
} from '../../lib/core/column-type.js';

test('SQL spellings parse to canonical type strings', () => {
  assert.equal(parseColumnType('int'), 'INT');
  assert.equal(parseColumnType('timestamp_ns'), 'TIMESTAMP_NS');
  assert.equal(parseColumnType('geohash(4c)'), 'GEOHASH(4c)');
  assert.equal(parseColumnType('GEOHASH(20b)'), 'GEOHASH(4c)');
  assert.equal(parseColumnType('geohash(7B)'), 'GEOHASH(7b)');
  assert.equal(parseColumnType('decimal(10, 2)'), 'DECIMAL(10,2)');
  assert.equal(parseColumnType('decimal(5)'), 'DECIMAL(5,0)');
  assert.equal(parseColumnType('decimal'), 'DECIMAL(18,3)');
  assert.equal(parseColumnType('double[]'), 'DOUBLE[]');
  assert.equal(parseColumnType('double[][]'), 'DOUBLE[][]');
  assert.equal(parseColumnType('nosuch'), undefined);
  assert.equal(parseColumnType('int[]'), undefined);
});

test("bad parameters throw QuestDB's messages", () => {
  assert.throws(
    () => parseColumnType('geohash(1)'),
    (e: unknown) =>
      e instanceof ColumnTypeError &&
      /invalid GEOHASH size, must be number followed by 'C' or 'B' character/.test(e.message),
  );
  assert.throws(() => parseColumnType('geohash(3x)'), /invalid GEOHASH size units/);
  assert.throws(() => parseColumnType('geohash(13c)'), /must be \[1, 60\] bits, provided=65/);
  assert.throws(() => parseColumnType('geohash(0b)'), /provided=0/);
  assert.throws(() => parseColumnType('decimal(0, 0)'), ColumnTypeError);
  assert.throws(() => parseColumnType('decimal(77, 2)'), ColumnTypeError);
  assert.throws(() => parseColumnType('decimal(5, 6)'), ColumnTypeError);
  assert.throws(() => parseColumnType('decimal(a, 2)'), ColumnTypeError);
});

test('kinds, parameters and widths', () => {
  assert.equal(typeKind('GEOHASH(4c)'), 'GEOHASH');
  assert.equal(typeKind('DECIMAL(10,2)'), 'DECIMAL');
  assert.equal(typeKind('DOUBLE[][]'), 'ARRAY');
  assert.equal(typeKind('DOUBLE'), 'DOUBLE');
  assert.equal(geohashBits('GEOHASH(4c)'), 20);
  assert.equal(geohashBits('GEOHASH(7b)'), 7);
  assert.deepEqual(decimalSpec('DECIMAL(10,2)'), { precision: 10, scale: 2 });
  assert.equal(arrayDims('DOUBLE[][]'), 2);
  assert.deepEqual(
    [7, 8, 15, 16, 31, 32, 60].map((b) => typeInfo(parseColumnType(`geohash(${b}b)`)!).width),
    [1, 2, 2, 4, 4, 8, 8],
  );
  assert.deepEqual(
    [2, 3, 4, 9, 10, 18, 19, 38, 39, 76].map((p) => typeInfo(`DECIMAL(${p},0)`).width),
    [1, 2, 2, 4, 8, 8, 16, 16, 32, 32],
  );
  assert.equal(typeInfo('DOUBLE[]').layout, 'var');
  assert.ok(isCanonicalType('GEOHASH(4c)'));
  assert.ok(!isCanonicalType('GEOHASH(20b)'));
  assert.ok(!isCanonicalType('DECIMAL(10, 2)'));
});
