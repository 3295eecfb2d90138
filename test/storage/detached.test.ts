// DETACH / ATTACH PARTITION in storage (lib/storage/detached.ts): the partition's rows leave the
// table for <name>.detached and come back, across a reopen, and an interruption around either
// commit is finished or undone by the next open.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, renameSync, statSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DAY, openCatalog, readAll, tempDb } from './fixture.js';
import { setFsFault } from '../../lib/storage/io.js';

const db = tempDb();
after(() => {
  setFsFault(null);
  db.remove();
});
let n = 0;
const fresh = (): string => join(db.dir, '..', `detached${n++}`);

async function table(dir: string) {
  const c = openCatalog(dir);
  c.create({
    name: 'trades',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'sym', type: 'SYMBOL' },
      { name: 'note', type: 'VARCHAR' },
      { name: 'px', type: 'DOUBLE' },
    ],
    timestamp: 'ts',
    partitionBy: 'DAY',
  });
  const w = await c.writer('trades');
  w.append({
    rowCount: 4,
    columns: {
      ts: new Float64Array([0, 1, DAY, 2 * DAY]),
      sym: ['a', null, 'b', 'a'],
      note: ['x', 'y', null, 'z'],
      px: new Float64Array([1, 2, 3, 4]),
    },
  });
  w.commit();
  return { c, w };
}

const ALL = [
  [0, 'a', 'x', 1],
  [1, null, 'y', 2],
  [DAY, 'b', null, 3],
  [2 * DAY, 'a', 'z', 4],
];

test('detaches a partition to <name>.detached and attaches it back after a reopen', async () => {
  const dir = fresh();
  const { c, w } = await table(dir);
  w.detachPartition('1970-01-01');
  assert.deepEqual(readAll(c, 'trades'), ALL.slice(2));
  const tdir = join(dir, 'trades');
  assert.ok(existsSync(join(tdir, '1970-01-01.detached', '_detached')));
  assert.throws(() => w.detachPartition('1970-01-03'), /DETACH_ERR_ACTIVE/);
  // New symbol values in between: the detached keys are mapped into the dictionary as it is then.
  w.append({
    rowCount: 1,
    columns: { ts: new Float64Array([2 * DAY + 1]), sym: ['c'], note: ['q'], px: new Float64Array([5]) },
  });
  w.commit();
  w.close();
  c.close();

  const c2 = openCatalog(dir);
  const w2 = await c2.writer('trades');
  assert.equal(c2.get('trades').txn.partitions.length, 2);
  w2.attachPartition('1970-01-01');
  assert.deepEqual(readAll(c2, 'trades'), [...ALL, [2 * DAY + 1, 'c', 'q', 5]]);
  assert.deepEqual(
    c2.get('trades').txn.partitions.map((p) => [p.name, p.rows]),
    [
      ['1970-01-01', 2],
      ['1970-01-02', 1],
      ['1970-01-03', 2],
    ],
  );
  assert.equal(existsSync(join(dir, 'trades', '1970-01-01.detached')), false);
  assert.throws(() => w2.attachPartition('1970-01-01'), /ATTACH_ERR_MISSING_PARTITION/);
  w2.close();
  c2.close();
  const c3 = openCatalog(dir);
  assert.equal(readAll(c3, 'trades').length, 5);
  c3.close();
});

test('a detached folder renamed <name>.attachable is attached; one whose rows lie elsewhere is refused', async () => {
  const dir = fresh();
  const { c, w } = await table(dir);
  w.detachPartition('1970-01-02');
  const tdir = join(dir, 'trades');
  renameSync(join(tdir, '1970-01-02.detached'), join(tdir, '1970-01-05.attachable'));
  assert.throws(() => w.attachPartition('1970-01-05'), /ATTACH_ERR_PARTITION_VALUES/);
  renameSync(join(tdir, '1970-01-05.attachable'), join(tdir, '1970-01-02.attachable'));
  w.attachPartition('1970-01-02');
  assert.deepEqual(readAll(c, 'trades'), ALL);
  assert.equal(existsSync(join(tdir, '1970-01-02.attachable')), false);
  w.close();
  c.close();
});

test('a DETACH interrupted after its commit is finished by the next open', async () => {
  const dir = fresh();
  const { c, w } = await table(dir);
  // The rename of <name>.detached.tmp to <name>.detached fails after the commit (as a crash there).
  setFsFault((op, path) => {
    if (op === 'rename' && path.endsWith('1970-01-01.detached')) throw new Error('crash');
  });
  try {
    assert.throws(() => w.detachPartition('1970-01-01'), /crash/);
  } finally {
    setFsFault(null);
  }
  w.close();
  c.close();
  const tdir = join(dir, 'trades');
  assert.ok(existsSync(join(tdir, '1970-01-01.detached.tmp')));
  const c2 = openCatalog(dir);
  assert.deepEqual(readAll(c2, 'trades'), ALL.slice(2));
  assert.ok(existsSync(join(tdir, '1970-01-01.detached')));
  assert.equal(existsSync(join(tdir, '1970-01-01.detached.tmp')), false);
  const w2 = await c2.writer('trades');
  w2.attachPartition('1970-01-01');
  assert.deepEqual(readAll(c2, 'trades'), ALL);
  w2.close();
  c2.close();
});

test('an open undoes what a DETACH or ATTACH left before its commit', async () => {
  const dir = fresh();
  const { c, w } = await table(dir);
  w.detachPartition('1970-01-01');
  w.close();
  c.close();
  const tdir = join(dir, 'trades');
  // An ATTACH that marked the folder but never committed, and a DETACH that built its folder but never committed.
  writeFileSync(join(tdir, '1970-01-01.detached', '_attach'), JSON.stringify({ dir: '1970-01-01.99' }));
  const c2 = openCatalog(dir);
  assert.equal(existsSync(join(tdir, '1970-01-01.detached', '_attach')), false);
  const w2 = await c2.writer('trades');
  w2.attachPartition('1970-01-01');
  w2.close();
  c2.close();
  // A built .detached.tmp whose source partition _txn still lists: the DETACH did not commit.
  const c3 = openCatalog(dir);
  const w3 = await c3.writer('trades');
  setFsFault((op, path) => {
    if (op === 'rename' && path.endsWith('_txn')) throw new Error('crash');
  });
  try {
    assert.throws(() => w3.detachPartition('1970-01-02'));
  } finally {
    setFsFault(null);
  }
  w3.close();
  c3.close();
  const c4 = openCatalog(dir);
  assert.deepEqual(readAll(c4, 'trades'), ALL);
  assert.deepEqual(
    readdirSync(tdir).filter((e) => e.includes('detached')),
    [],
  );
  c4.close();
});

test('a symbolic link <name>.attachable: the files are copied and the linked folder stays as it was', async () => {
  const dir = fresh();
  const { c, w } = await table(dir);
  w.detachPartition('1970-01-01');
  const tdir = join(dir, 'trades');
  const cold = join(dir, 'cold-1970-01-01');
  renameSync(join(tdir, '1970-01-01.detached'), cold);
  symlinkSync(cold, join(tdir, '1970-01-01.attachable'));
  // Drop the newer partitions: the attached one becomes the newest, written in place by appends.
  w.dropPartition('1970-01-02');
  w.dropPartition('1970-01-03');
  const before = readdirSync(cold).map((f) => [f, statSync(join(cold, f)).size]);
  w.attachPartition('1970-01-01');
  w.append({ rowCount: 1, columns: { ts: new Float64Array([2]), sym: ['d'], note: ['w'], px: new Float64Array([6]) } });
  w.commit();
  assert.deepEqual(readAll(c, 'trades'), [...ALL.slice(0, 2), [2, 'd', 'w', 6]]);
  assert.equal(existsSync(join(tdir, '1970-01-01.attachable')), false);
  assert.deepEqual(
    readdirSync(cold).map((f) => [f, statSync(join(cold, f)).size]),
    before,
  );
  w.close();
  c.close();
});

test('a detached folder with a file too short for its rows is refused, the table unchanged', async () => {
  const dir = fresh();
  const { c, w } = await table(dir);
  w.detachPartition('1970-01-01');
  const tdir = join(dir, 'trades');
  const meta = c.get('trades').meta;
  const px = meta.columns.find((x) => x.name === 'px')!;
  truncateSync(join(tdir, '1970-01-01.detached', `${px.id}.d`), 8);
  assert.throws(() => w.attachPartition('1970-01-01'), /too short for its 2 rows/);
  assert.deepEqual(readAll(c, 'trades'), ALL.slice(2));
  assert.deepEqual(
    readdirSync(tdir).filter((e) => e.startsWith('1970-01-01')),
    ['1970-01-01.detached'],
  );
  w.close();
  c.close();
});
