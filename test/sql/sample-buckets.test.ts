// SAMPLE BY buckets for a whole batch (Buckets.floorAll, which reuses the last
// bucket while rows stay in it) against the row-by-row floor, for every unit,
// UTC, fixed and DST zones, offsets, first observation, NULLs and unsorted rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Buckets, type SampleUnit, type Sampling } from '../../lib/sql/sample-by.js';
import { LONG_NULL } from '../../lib/core/column-type.js';

/** A deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

test('floorAll gives what floor gives row by row', () => {
  const rnd = rng(7);
  const start = Date.UTC(2024, 2, 30) * 1000; // across the end of March: a DST change in Europe
  const units: SampleUnit[] = ['U', 'T', 's', 'm', 'h', 'd', 'w', 'M', 'y'];
  let checked = 0;
  for (const unit of units)
    for (const zone of [null, '+02:00', 'Europe/Berlin'])
      for (const offset of [0, 15 * 60_000_000])
        for (const firstObservation of [false, true]) {
          const s: Sampling = { n: unit === 'm' ? 15 : 2, unit, offset, zone, firstObservation };
          // Ascending rows with bucket edges and NULLs, then a few out of order.
          const t = new Float64Array(4_000);
          let v = start;
          for (let i = 0; i < t.length; i++) {
            v += Math.floor(rnd() * (unit === 'U' || unit === 'T' ? 3_000 : 3_000_000_000));
            t[i] = i % 997 === 3 ? LONG_NULL : i % 1_301 === 7 ? start - 86_400_000_000 : v;
          }
          const rowByRow = new Buckets(s, null);
          const expected = Array.from(t, (x) => (x === LONG_NULL ? LONG_NULL : rowByRow.floor(x)));
          const out = new Float64Array(t.length);
          new Buckets(s, null).floorAll(t, out, t.length);
          assert.deepEqual(Array.from(out), expected, JSON.stringify(s));
          checked++;
        }
  assert.equal(checked, 9 * 3 * 2 * 2);
});
