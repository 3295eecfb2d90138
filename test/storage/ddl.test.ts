import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DAY, openCatalog, readAll, rows, tempDb } from './fixture.js';
import { removalsDone } from '../../lib/storage/table.js';

const db = tempDb();
after(() => db.remove());
let n = 0;
const fresh = (): string => join(db.dir, '..', `ddl${n++}`);

async function table(dir: string) {
  const c = openCatalog(dir);
  c.create({
    name: 'Trades',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'sym', type: 'SYMBOL' },
      { name: 'px', type: 'DOUBLE' },
    ],
    timestamp: 'ts',
    partitionBy: 'DAY',
  });
  const w = await c.writer('trades');
  w.append({
    rowCount: 3,
    columns: { ts: new Float64Array([0, DAY, 2 * DAY]), sym: ['a', 'b', 'a'], px: new Float64Array([1, 2, 3]) },
  });
  w.commit();
  return { c, w };
}

test('finds tables by name in any case and keeps the case it was created with', async () => {
  const { c, w } = await table(fresh());
  w.close();
  assert.equal(c.get('TRADES').name, 'Trades');
  assert.throws(
    () => c.create({ name: 'trades', columns: [{ name: 'x', type: 'INT' }] }),
    /table already exists \[table=trades\]/,
  );
  assert.equal(
    c.create({ name: 'trades', columns: [{ name: 'x', type: 'INT' }] }, { ifNotExists: true }).name,
    'Trades',
  );
  assert.throws(() => c.get('nope'), /table does not exist \[table=nope\]/);
  c.close();
});

test('validates CREATE TABLE: names, duplicates, designated timestamp, partitioning', () => {
  const c = openCatalog(fresh());
  assert.throws(
    () => c.create({ name: 'a:b', columns: [{ name: 'x', type: 'INT' }] }),
    /table name contains an invalid character/,
  );
  assert.throws(
    () =>
      c.create({
        name: 't',
        columns: [
          { name: 'x', type: 'INT' },
          { name: 'X', type: 'INT' },
        ],
      }),
    /duplicate column \[name=X\]/,
  );
  assert.throws(
    () => c.create({ name: 't', columns: [{ name: 'x', type: 'INT' }], timestamp: 'x' }),
    /must be of type TIMESTAMP/,
  );
  assert.throws(
    () => c.create({ name: 't', columns: [{ name: 'x', type: 'INT' }], timestamp: 'y' }),
    /designated timestamp column does not exist/,
  );
  assert.throws(
    () => c.create({ name: 't', columns: [{ name: 'x', type: 'INT' }], partitionBy: 'DAY' }),
    /partitioning is possible only on tables with a designated timestamp/,
  );
  assert.equal(c.exists('t'), false);
  c.close();
});

test('adds a column that reads NULL for existing rows and takes values afterwards', async () => {
  const { c, w } = await table(fresh());
  w.addColumn('qty', 'INT');
  w.addColumn('note', 'VARCHAR');
  w.append({
    rowCount: 2,
    columns: {
      ts: new Float64Array([2 * DAY + 1, 3 * DAY]),
      sym: ['c', 'c'],
      px: new Float64Array([4, 5]),
      qty: new Int32Array([7, 8]),
      note: ['n1', null],
    },
  });
  w.commit();
  w.close();
  assert.deepEqual(readAll(c, 'trades'), [
    [0, 'a', 1, null, null],
    [DAY, 'b', 2, null, null],
    [2 * DAY, 'a', 3, null, null],
    [2 * DAY + 1, 'c', 4, 7, 'n1'],
    [3 * DAY, 'c', 5, 8, null],
  ]);
  assert.throws(
    () => c.create({ name: 'x', columns: [{ name: 'a-b', type: 'INT' }] }),
    /column name contains an invalid character '-'/,
  );
  c.close();
});

test('drops and renames columns; dropping the designated timestamp is refused', async () => {
  const { c, w } = await table(fresh());
  const old = c.reader('trades');
  w.dropColumn('sym');
  w.renameColumn('px', 'price');
  assert.throws(() => w.dropColumn('ts'), /cannot remove designated timestamp column \[table=\w+, column=ts\]/);
  assert.throws(() => w.renameColumn('nope', 'x'), /Invalid column: nope/);
  w.close();
  assert.deepEqual(
    c.reader('trades').meta.columns.map((x) => x.name),
    ['ts', 'price'],
  );
  assert.deepEqual(readAll(c, 'trades'), [
    [0, 1],
    [DAY, 2],
    [2 * DAY, 3],
  ]);
  assert.deepEqual(
    rows(old),
    [
      [0, 'a', 1],
      [DAY, 'b', 2],
      [2 * DAY, 'a', 3],
    ],
    'an old reader still reads the dropped column',
  );
  old.close();
  await removalsDone(); // retired files go in the background
  const files = readdirSync(join(c.dir, 'Trades'));
  assert.ok(!files.includes('1.sym'), 'the dropped symbol dictionary is gone once unused');
  c.close();
});

test('truncates a table and starts symbols afresh; drops a partition', async () => {
  const { c, w } = await table(fresh());
  w.dropPartition('1970-01-02');
  assert.deepEqual(
    readAll(c, 'trades').map((r) => r[0]),
    [0, 2 * DAY],
  );
  assert.throws(() => w.dropPartition('1999-01-01'), /partition does not exist/);
  w.truncate();
  assert.deepEqual(readAll(c, 'trades'), []);
  w.append({ rowCount: 1, columns: { ts: new Float64Array([5]), sym: ['z'], px: new Float64Array([9]) } });
  w.commit();
  w.close();
  assert.deepEqual(readAll(c, 'trades'), [[5, 'z', 9]]);
  c.close();
});

test('renames a table; drops a table while a reader finishes on its snapshot', async () => {
  const { c, w } = await table(fresh());
  w.close();
  await c.rename('trades', 'fills');
  assert.equal(c.exists('trades'), false);
  assert.equal(readAll(c, 'FILLS').length, 3);
  const r = c.reader('fills');
  await c.drop('fills');
  assert.throws(() => c.reader('fills'), /table does not exist \[table=fills\]/);
  assert.equal(rows(r).length, 3, 'the open reader still reads');
  r.close();
  await removalsDone(); // in the background once the last reader closed
  assert.equal(existsSync(join(c.dir, 'fills')), false);
  assert.deepEqual(readdirSync(join(c.dir, '.trash')), [], 'the dropped folder is removed once its last reader closes');
  await c.drop('fills', { ifExists: true });
  await assert.rejects(c.drop('fills'), /table does not exist/);
  c.close();
});

test('everything survives a reopen', async () => {
  const dir = fresh();
  const { c, w } = await table(dir);
  w.addColumn('q', 'LONG');
  w.renameColumn('px', 'price');
  w.close();
  c.close();
  const progress: string[] = [];
  const c2 = openCatalog(dir, { onProgress: (done, total, t) => progress.push(`${done}/${total} ${t}`) });
  assert.deepEqual(progress, ['1/1 Trades'], 'recovery reports progress per table');
  assert.deepEqual(c2.problems, []);
  assert.deepEqual(readAll(c2, 'trades'), [
    [0, 'a', 1, null],
    [DAY, 'b', 2, null],
    [2 * DAY, 'a', 3, null],
  ]);
  const w2 = await c2.writer('trades');
  w2.append({
    rowCount: 1,
    columns: { ts: new Float64Array([3 * DAY]), sym: ['b'], price: new Float64Array([4]), q: new Float64Array([1]) },
  });
  w2.commit();
  w2.close();
  assert.deepEqual(readAll(c2, 'trades').at(-1), [3 * DAY, 'b', 4, 1]);
  assert.equal(c2.reader('trades').snapshot.dicts.get(1)?.length, 2, 'symbol keys are reused');
  c2.close();
});
