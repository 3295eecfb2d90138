import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DAY, openCatalog, readAll, tempDb } from './fixture.js';
import { removalsDone } from '../../lib/storage/table.js';
import { expiredPartitions, parseTtl } from '../../lib/storage/ttl.js';

const db = tempDb();
after(() => db.remove());

test('a TTL is kept in the metadata across a restart and removes old partitions at each commit, folders included', async () => {
  const dir = join(db.dir, '..', 'ttl-restart');
  let c = openCatalog(dir);
  c.create({
    name: 'm',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'v', type: 'LONG' },
    ],
    timestamp: 'ts',
    partitionBy: 'DAY',
    ttl: { value: 2, unit: 'DAY' },
  });
  let w = await c.writer('m');
  w.append({ rowCount: 2, columns: { ts: new Float64Array([0, DAY]), v: new Float64Array([1, 2]) } });
  w.commit();
  w.close();
  c.close();
  c = openCatalog(dir);
  assert.deepEqual(c.get('m').meta.ttl, { value: 2, unit: 'DAY' });
  w = await c.writer('m');
  // Day 3 ends two days after day 1 ends: day 1 (1970-01-01) goes, days 2 and 4 stay.
  w.append({ rowCount: 1, columns: { ts: new Float64Array([3 * DAY + 1]), v: new Float64Array([3]) } });
  w.commit();
  w.close();
  assert.deepEqual(
    readAll(c, 'm').map((r) => r[1]),
    [2, 3],
  );
  await removalsDone();
  assert.equal(
    readdirSync(join(dir, 'm')).some((f) => f.startsWith('1970-01-01')),
    false,
    'the expired folder is removed',
  );
  assert.ok(existsSync(join(dir, 'm', '_txn')));
  c.close();
});

test('the wall clock caps the reference time: one row dated in the future does not empty the table', () => {
  const parts = [0, 1, 2].map((d) => ({
    name: `d${d}`,
    dir: `d${d}.0`,
    rows: 1,
    minTs: d * DAY,
    maxTs: d * DAY + 1,
  }));
  const future = { name: 'f', dir: 'f.0', rows: 1, minTs: 1000 * DAY, maxTs: 1000 * DAY };
  const ttl = { value: 1, unit: 'DAY' } as const;
  // The newest row is day 1000, but the clock says day 2: only what ended before day 1 goes.
  assert.deepEqual(
    expiredPartitions([...parts, future], 'DAY', ttl, future.maxTs, 2 * DAY + 5).map((p) => p.name),
    ['d0'],
  );
  assert.deepEqual(
    expiredPartitions(parts, 'DAY', ttl, 2 * DAY + 1, 1e18).map((p) => p.name),
    ['d0'],
  );
  assert.deepEqual(expiredPartitions(parts, 'DAY', undefined, 2 * DAY + 1, 1e18), []);
  assert.deepEqual(expiredPartitions(parts, 'DAY', { value: 0, unit: 'DAY' }, 2 * DAY + 1, 1e18), []);
});

test('parseTtl reads the forms QuestDB accepts', () => {
  const cases: Array<[string, unknown]> = [
    ['7 DAYS', { value: 7, unit: 'DAY' }],
    ['2w', { value: 2, unit: 'WEEK' }],
    ['12h', { value: 12, unit: 'HOUR' }],
    ['1M', { value: 1, unit: 'MONTH' }],
    ['3 months', { value: 3, unit: 'MONTH' }],
    ['1 YEAR', { value: 1, unit: 'YEAR' }],
    ['2_147_483_647 HOURS', { value: 2_147_483_647, unit: 'HOUR' }],
    ['0', { value: 0, unit: 'HOUR' }],
  ];
  for (const [text, want] of cases) assert.deepEqual(parseTtl(text, 0), want, text);
  assert.throws(() => parseTtl('178_956_971 YEARS', 0), /value out of range: 178956971 years/);
});
