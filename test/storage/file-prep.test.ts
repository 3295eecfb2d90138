import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { DAY, openCatalog, readAll, tempDb } from './fixture.js';
import { PrepTicket, prepare } from '../../lib/storage/file-prep.js';
import type { Catalog } from '../../lib/storage/catalog.js';

const db = tempDb();
after(() => db.remove());
let n = 0;

const folders = (c: Catalog, t: string): string[] =>
  readdirSync(c.get(t).dir)
    .filter((f) => /^\d{4}-/.test(f))
    .sort();

async function dayTable() {
  const c = openCatalog(join(db.dir, `fp${n++}`));
  c.create({
    name: 't',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'v', type: 'VARCHAR' },
      { name: 'x', type: 'DOUBLE' },
    ],
    timestamp: 'ts',
    partitionBy: 'DAY',
  });
  return { c, w: await c.writer('t') };
}

test('the next partition folder is created ahead of time and used when rows reach it', async () => {
  const { c, w } = await dayTable();
  w.append({ rowCount: 2, columns: { ts: new Float64Array([1, 2]), v: ['a', 'b'], x: new Float64Array([1, 2]) } });
  const ticket = c.get('t').preparedFiles;
  assert.ok(ticket, 'a request for the next day');
  assert.equal(ticket.waitDone(5000), true);
  assert.deepEqual(folders(c, 't'), ['1970-01-01.1', '1970-01-02.1']);
  assert.deepEqual(
    readdirSync(join(c.get('t').dir, '1970-01-02.1')).sort(),
    ['0.d', '1.d', '1.i', '2.d'],
    'every column file, empty',
  );
  w.commit();
  // Rows reach the prepared day after the commit: its folder keeps the name it was made with.
  w.append({
    rowCount: 2,
    columns: { ts: new Float64Array([DAY + 5, DAY + 6]), v: ['c', null], x: new Float64Array([3, NaN]) },
  });
  w.commit();
  assert.deepEqual(
    c.get('t').txn.partitions.map((p) => p.dir),
    ['1970-01-01.1', '1970-01-02.1'],
  );
  assert.deepEqual(readAll(c, 't'), [
    [1, 'a', 1],
    [2, 'b', 2],
    [DAY + 5, 'c', 3],
    [DAY + 6, null, null],
  ]);
  assert.equal(statSync(join(c.get('t').dir, '1970-01-02.1', '0.d')).size, 16);
  w.close();
  assert.deepEqual(
    folders(c, 't'),
    ['1970-01-01.1', '1970-01-02.1'],
    'closing the writer removes the unused folder of the next day (01-03)',
  );
  c.close();
});

test('rollback, DDL and skipped partitions cancel the prepared folder; new columns get their files', async () => {
  const { c, w } = await dayTable();
  w.append({ rowCount: 1, columns: { ts: new Float64Array([1]), v: ['a'], x: new Float64Array([1]) } });
  c.get('t').preparedFiles?.waitDone(5000);
  w.rollback();
  assert.deepEqual(folders(c, 't'), [], 'rollback removes the new day and the prepared one');
  w.append({ rowCount: 1, columns: { ts: new Float64Array([1]), v: ['a'], x: new Float64Array([1]) } });
  c.get('t').preparedFiles?.waitDone(5000);
  w.addColumn('y', 'INT');
  assert.deepEqual(folders(c, 't'), ['1970-01-01.1'], 'the folder prepared for the old column list is gone');
  // Rows go to 01-02 (made on the spot: the DDL cancelled its preparation), then jump over the prepared 01-03 to 01-04.
  w.append({
    rowCount: 1,
    columns: { ts: new Float64Array([1 + DAY]), v: ['b'], x: new Float64Array([2]), y: new Int32Array([7]) },
  });
  c.get('t').preparedFiles?.waitDone(5000);
  w.append({
    rowCount: 1,
    columns: { ts: new Float64Array([1 + 3 * DAY]), v: ['c'], x: new Float64Array([3]), y: new Int32Array([8]) },
  });
  c.get('t').preparedFiles?.waitDone(5000);
  w.commit();
  assert.deepEqual(
    c.get('t').txn.partitions.map((p) => p.name),
    ['1970-01-01', '1970-01-02', '1970-01-04'],
  );
  assert.ok(!folders(c, 't').some((f) => f.startsWith('1970-01-03')), 'the skipped day was not left behind');
  assert.deepEqual(readAll(c, 't'), [
    [1, 'a', 1, null],
    [1 + DAY, 'b', 2, 7],
    [1 + 3 * DAY, 'c', 3, 8],
  ]);
  c.close();
  assert.deepEqual(
    folders(openCatalog(c.dir), 't').filter((f) => f.startsWith('1970-01-05')),
    [],
    'a catalog close cancels the prepared day',
  );
});

test('a request the helper has not started is taken back by its caller; a finished one hands over open files', () => {
  const dir = join(db.dir, `direct${n++}`);
  // Never sent to the helper: still queued when its caller wants it, so the caller takes it back.
  const queued = new PrepTicket(join(dir, 'q'), [join(dir, 'q', 'a.d')], new SharedArrayBuffer(8));
  assert.equal(queued.settled, false);
  assert.equal(queued.take(), null);
  assert.equal(queued.settled, true);
  assert.equal(existsSync(join(dir, 'q')), false, 'nothing was created for a request taken back');
  assert.throws(() => queued.take(), /already taken/);

  const done = prepare(join(dir, 'd'), [join(dir, 'd', 'a.d'), join(dir, 'd', 'b.d')]);
  assert.ok(done);
  assert.equal(done.waitDone(5000), true);
  const fds = done.take();
  assert.ok(fds);
  assert.equal(fds.length, 2);
  writeSync(fds[0]!, new Uint8Array([1, 2, 3]));
  for (const fd of fds) closeSync(fd);
  assert.equal(statSync(join(dir, 'd', 'a.d')).size, 3, 'the descriptor is the created file, open for writing');
  assert.equal(statSync(join(dir, 'd', 'b.d')).size, 0);

  const cancelled = prepare(join(dir, 'c'), [join(dir, 'c', 'a.d')]);
  assert.ok(cancelled);
  cancelled.cancel();
  assert.equal(cancelled.settled, true);
  assert.equal(
    existsSync(join(dir, 'c')),
    false,
    'a cancelled request leaves nothing, whether or not the helper had done it',
  );
});
