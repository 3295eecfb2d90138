// The spatial functions (lib/functions/spatial.ts), the haversine_dist_deg aggregate
// (agg-geo.ts) and the geohash `within` behind the WITHIN operator (geo.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REGISTRY, KX, aggregate, call, doubles, ts, values } from './helpers.js';
import { geohashType, typeInfo } from '../../lib/core/column-type.js';
import type { ColumnVector } from '../../lib/core/column-vector.js';
import { parseGeohashChars, putGeohash } from '../../lib/core/geohash.js';
import type { BindArg, ScalarOverload } from '../../lib/functions/registry.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import type { SqlType } from '../../lib/core/sql-type.js';
import { haversineKm } from '../../lib/functions/agg-geo.js';

const D = (...xs: (number | null)[]): ColumnVector => doubles(xs);

/** A bind hook's view of an argument: a constant (number, or null for NULL) or a row value. */
function arg(pos: number, value?: number | null, type: SqlType = 'DOUBLE'): BindArg {
  return { type, value, pos, constant: value !== undefined, vector: undefined };
}

/** The overload bound with these arguments (bind hook applied), as the binder makes it. */
function bound(name: string, args: readonly BindArg[]): ScalarOverload {
  const fn = REGISTRY.resolveScalar(
    name,
    args.map((a) => a.type),
    0,
  );
  const r = fn.bind?.(args, 0);
  return r ? { ...fn, type: r.type ?? fn.type, kernel: r.kernel ?? fn.kernel } : fn;
}

function errorOf(f: () => unknown): SvcError {
  try {
    f();
  } catch (e) {
    assert.ok(e instanceof SvcError);
    return e;
  }
  assert.fail('no error');
}

test('within_box is inclusive, false for an inverted box or a NaN, and keeps -0.0 inside a box from 0.0', () => {
  const box = (x: number | null, y: number | null, a: number, b: number, c: number, d: number) =>
    call('within_box', [D(x), D(y), D(a), D(b), D(c), D(d)])[0];
  assert.equal(box(5, 5, 0, 0, 10, 10), true);
  for (const [x, y] of [
    [0, 0],
    [10, 0],
    [0, 10],
    [10, 10],
  ] as const)
    assert.equal(box(x, y, 0, 0, 10, 10), true);
  assert.equal(box(11, 5, 0, 0, 10, 10), false);
  assert.equal(box(5, 5, 10, 0, 0, 10), false);
  assert.equal(box(5, 5, 0, 0, NaN, 10), false);
  assert.equal(box(null, 5, 0, 0, 10, 10), false);
  assert.equal(box(1.0000000001, 1, 1, 1, 2, 2), true);
  assert.equal(box(0.9999999999, 1, 1, 1, 2, 2), false);
  assert.equal(box(-0, 5, 0, 0, 10, 10), true);
  assert.equal(box(5, 5, -0, -0, 10, 10), true);
});

test('within_radius compares squared distances, boundary inside; a negative or NaN radius is false', () => {
  const r = (x: number, y: number, cx: number, cy: number, rad: number | null) =>
    call('within_radius', [D(x), D(y), D(cx), D(cy), D(rad)])[0];
  assert.equal(r(3, 4, 0, 0, 5), true);
  assert.equal(r(10, 10, 0, 0, 10), false);
  assert.equal(r(-3, -4, 0, 0, 4), false);
  assert.equal(r(0, 0, 0, 0, -5), false);
  assert.equal(r(0, 0, 0, 0, NaN), false);
  assert.equal(r(0, 0, 0, 0, null), false);
  assert.equal(r(0, 0, 0, 0, 1e-7), true);
  assert.equal(r(1e-4, 0, 0, 0, 1e-7), false);
  assert.equal(r(1e6, 1e6, 0, 0, 2e6), true);
});

test('geo_distance_meters scales longitude at lat1 for a constant first point, else at the midpoint', () => {
  const constFirst = bound('geo_distance_meters', [arg(1, 40), arg(2, -73), arg(3), arg(4)]);
  assert.deepEqual(values(constFirst.kernel([D(40, 40), D(-73, -73), D(41, 40), D(-73, -72)], 2, KX)), [
    111320,
    111320 * Math.cos((40 * Math.PI) / 180),
  ]);
  const rows = bound('geo_distance_meters', [arg(1), arg(2), arg(3), arg(4)]);
  assert.deepEqual(values(rows.kernel([D(40), D(-73), D(40), D(-72)], 1, KX)), [
    111320 * Math.cos((40 * Math.PI) / 180),
  ]);
  const mid = values(rows.kernel([D(40), D(-73), D(42), D(-72)], 1, KX))[0] as number;
  const dx = 111320 * Math.cos((41 * Math.PI) / 180),
    dy = 2 * 111320;
  assert.equal(mid, Math.sqrt(dx * dx + dy * dy));
  assert.deepEqual(values(rows.kernel([D(null), D(-73), D(91), D(-72)], 1, KX)), [null]);
  // A NULL constant first point: NULL, the second point unchecked.
  const nul = bound('geo_distance_meters', [arg(1, null), arg(2, 0), arg(3, 91), arg(4, 0)]);
  assert.deepEqual(values(nul.kernel([D(null), D(0), D(91), D(0)], 1, KX)), [null]);
});

test("geo_distance_meters' range errors: at bind for constants, at the row for values, at the argument", () => {
  let e = errorOf(() => bound('geo_distance_meters', [arg(27, 91), arg(33, -73), arg(40, 40), arg(46, -73)]));
  assert.equal(e.position, 27);
  assert.equal(e.message, 'latitude must be between -90 and 90 [value=91.0]');
  e = errorOf(() => bound('geo_distance_meters', [arg(27, 40), arg(33, 181), arg(40, 40), arg(46, -73)]));
  assert.equal(e.position, 33);
  assert.equal(e.message, 'longitude must be between -180 and 180 [value=181.0]');
  e = errorOf(() => bound('geo_distance_meters', [arg(27, 40), arg(33, -73), arg(40, 40), arg(46, -180.5)]));
  assert.equal(e.position, 46);
  const rows = bound('geo_distance_meters', [arg(27, 40), arg(33, -73), arg(40), arg(46)]);
  e = errorOf(() => rows.kernel([D(40, 40), D(-73, -73), D(40, -90.25), D(0, 0)], 2, KX));
  assert.equal(e.position, 40);
  assert.equal(e.message, 'latitude must be between -90 and 90 [value=-90.25]');
});

test('geo_within_radius_latlon: centre latitude scale, inclusive; bad radius or NaN false before range checks', () => {
  const rows = bound('geo_within_radius_latlon', [arg(1), arg(2), arg(3), arg(4), arg(5)]);
  const run = (lat: number | null, lon: number, clat: number, clon: number, r: number | null) =>
    values(rows.kernel([D(lat), D(lon), D(clat), D(clon), D(r)], 1, KX))[0];
  assert.equal(run(0, 1, 0, 0, 111320), true);
  assert.equal(run(0, 1, 0, 0, 111319.9), false);
  assert.equal(run(91, 0, 0, 0, -1), false);
  assert.equal(run(91, 0, 0, 0, null), false);
  assert.equal(run(null, 500, 0, 0, 1), false);
  assert.equal(errorOf(() => run(0, 0, 0, 190, 1)).position, 4);
  assert.equal(errorOf(() => run(0, 190, 0, 0, 1)).position, 2);
  // A constant centre with a negative radius is FALSE whatever the rows, a bad constant centre an error.
  const never = bound('geo_within_radius_latlon', [arg(1), arg(2), arg(3, 0), arg(4, 0), arg(5, -1)]);
  assert.deepEqual(values(never.kernel([D(0, 95), D(0, 0), D(0, 0), D(0, 0), D(-1, -1)], 2, KX)), [false, false]);
  const e = errorOf(() => bound('geo_within_radius_latlon', [arg(1), arg(2), arg(3, -91), arg(4, 0), arg(5, 1)]));
  assert.equal(e.position, 3);
  assert.equal(e.message, 'latitude must be between -90 and 90 [value=-91.0]');
});

test('haversine_dist_deg sums great-circle steps in row order per group, skipping rows with a NULL', () => {
  assert.equal(haversineKm(0, 0, 0, 0), 0);
  const t = ts(['2024-01-01T00:00:00', '2024-01-01T00:00:01', null, '2024-01-01T00:00:03', '2024-01-01T00:00:04']);
  const got = aggregate(
    'haversine_dist_deg',
    ['DOUBLE', 'DOUBLE', 'TIMESTAMP'],
    [
      [
        [0, 0, 0, 1, 0],
        [D(1, null, 50, 7, 2), D(2, 3, 50, 7, 3), t],
      ],
      [[0], [D(3), D(4), ts(['2024-01-01T00:00:05'])]],
    ],
    3,
  );
  assert.deepEqual(got, [314.4073265716869, 0, 0]);
  // The QuestDB test's ten points from (-5, -6) by (+1, +1).
  const lat = Array.from({ length: 10 }, (_, i) => i - 5);
  const lon = Array.from({ length: 10 }, (_, i) => i - 6);
  const ten = aggregate(
    'haversine_dist_deg',
    ['DOUBLE', 'DOUBLE', 'TIMESTAMP'],
    [[lat.map(() => 0), [D(...lat), D(...lon), ts(lat.map(() => '2024-01-01'))]]],
    1,
  );
  assert.ok(Math.abs((ten[0] as number) - 1414.545985354098) < 1e-4);
  assert.throws(() => REGISTRY.resolveAggregate('haversine_dist_deg', ['DOUBLE', 'DOUBLE'], false, 7));
  assert.throws(() => REGISTRY.resolveAggregate('haversine_dist_deg', ['DOUBLE', 'DOUBLE', 'STRING'], false, 7));
});

/** A GEOHASH vector of `chars`-char values (null: NULL) from base32 text. */
function geohashes(chars: number, xs: readonly (string | null)[]): ColumnVector {
  const type = geohashType(chars * 5);
  const w = typeInfo(type).width;
  const data = new Uint8Array(xs.length * w);
  xs.forEach((x, i) => putGeohash(data, i, w, x === null ? null : parseGeohashChars(x)!.value));
  return { kind: 'fixed', type, data };
}

/** A constant geohash argument as the bind hook sees it. */
function cell(text: string, pos: number): BindArg {
  const vector = geohashes(text.length, [text]);
  return { type: vector.type, value: text, pos, constant: true, vector };
}

test('within: a geohash inside one of the constant cells (prefix on bits); NULL inside none', () => {
  const col: BindArg = { type: 'GEOHASH(8c)', value: undefined, pos: 0, constant: false, vector: undefined };
  const fn = REGISTRY.resolveScalar('within', ['GEOHASH(8c)', 'GEOHASH(3c)', 'GEOHASH(5c)'], 0);
  const r = fn.bind?.([col, cell('ezz', 10), cell('u33d8', 20)], 5);
  assert.deepEqual(r?.runArgs, [0]);
  const rows = geohashes(8, ['ezzn5kxb', 'u33w4r2w', 'u33d8b1b', null, 'ezyzzzzz', 'f0000000']);
  assert.deepEqual(values(r!.kernel!([rows], 6, KX)), [true, false, true, false, false, false]);
  // Narrow columns (one byte a row) too.
  const one = REGISTRY.resolveScalar('within', ['GEOHASH(1c)', 'GEOHASH(1c)'], 0);
  const oneCol = { ...col, type: 'GEOHASH(1c)' as const };
  const k = one.bind?.([oneCol, cell('u', 10)], 5)?.kernel;
  assert.deepEqual(values(k!([geohashes(1, ['u', 'e', null])], 3, KX)), [true, false, false]);
});

test("within's arguments are checked with QuestDB's messages at their positions", () => {
  const col: BindArg = { type: 'GEOHASH(1c)', value: undefined, pos: 0, constant: false, vector: undefined };
  const bind = (args: BindArg[]) => () =>
    REGISTRY.resolveScalar(
      'within',
      args.map((a) => a.type),
      0,
    ).bind?.(args, 5);
  let e = errorOf(bind([col, cell('u33', 12)]));
  assert.deepEqual([e.message, e.position], ['GeoHash prefix precision mismatch', 12]);
  e = errorOf(bind([{ ...col, type: 'SYMBOL' }, cell('u', 12)]));
  assert.deepEqual([e.message, e.position], ['GeoHash column type expected', 5]);
  e = errorOf(bind([col, { ...col, pos: 9 }]));
  assert.deepEqual([e.message, e.position], ['GeoHash const function expected', 9]);
  e = errorOf(bind([col, arg(9, null, 'NULL')]));
  assert.deepEqual([e.message, e.position], ['GeoHash value expected', 9]);
});
