import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readdirSync, truncateSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DAY, openCatalog, readAll, tempDb } from './fixture.js';
import { enospc, setWriteFault } from '../../lib/storage/io.js';
import { SvcError } from '../../lib/errors/svc-error.js';

const db = tempDb();
after(() => {
  setWriteFault(null);
  db.remove();
});
let n = 0;
const fresh = (): string => join(db.dir, '..', `rec${n++}`);

async function filled(dir: string) {
  const c = openCatalog(dir);
  c.create({
    name: 't',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'v', type: 'VARCHAR' },
      { name: 's', type: 'SYMBOL' },
    ],
    timestamp: 'ts',
    partitionBy: 'DAY',
  });
  const w = await c.writer('t');
  w.append({ rowCount: 2, columns: { ts: new Float64Array([1, DAY]), v: ['one', 'two'], s: ['a', 'b'] } });
  w.commit();
  return { c, w };
}

test('an interrupted writer leaves the last commit: uncommitted bytes, folders and symbols are cleaned up at open', async () => {
  const dir = fresh();
  const { c, w } = await filled(dir);
  w.append({
    rowCount: 3,
    columns: { ts: new Float64Array([DAY + 1, 5 * DAY, 2]), v: ['x', 'y', 'z'], s: ['new1', 'new2', 'a'] },
  });
  // The next day's folder, created ahead of time by the helper thread, is on disk at the crash too.
  assert.equal(c.get('t').preparedFiles?.waitDone(5000), true);
  // Simulate a crash: flush what the writer has, then drop everything without rollback or close.
  for (const p of (
    w as unknown as { parts: Map<string, { appenders: Map<number, { flush(): void }> }> }
  ).parts.values()) {
    for (const a of p.appenders.values()) a.flush();
  }
  for (const d of c.get('t').dicts.values()) d.flush('nosync');
  writeFileSync(join(dir, 't', '_txn.tmp'), 'half-written');
  mkdirSync(join(dir, 't', '1970-01-09.7'));
  mkdirSync(join(dir, 'halfmade'));
  writeFileSync(join(dir, 'halfmade', '_meta.0'), '{}');
  writeFileSync(join(dir, '.lock'), '999999999'); // a dead process's lock
  const c2 = openCatalog(dir);
  assert.deepEqual(c2.problems, []);
  assert.deepEqual(readAll(c2, 't'), [
    [1, 'one', 'a'],
    [DAY, 'two', 'b'],
  ]);
  assert.equal(c2.exists('halfmade'), false, 'an interrupted CREATE TABLE is removed');
  const files = readdirSync(join(dir, 't')).sort();
  assert.deepEqual(files, ['1970-01-01.1', '1970-01-02.1', '2.sym', '_meta.0', '_txn']);
  assert.equal(statSync(join(dir, 't', '1970-01-02.1', '1.d')).size, 3, 'uncommitted bytes cut off');
  assert.ok(c2.recovered.some((r) => r.table === 't' && r.removed.includes('1970-01-06.2')));
  assert.ok(
    c2.recovered.some((r) => r.table === 't' && r.removed.includes('1970-01-07.2')),
    'the prepared folder is removed',
  );
  const w2 = await c2.writer('t');
  w2.append({ rowCount: 1, columns: { ts: new Float64Array([2 * DAY]), v: ['three'], s: ['c'] } });
  w2.commit();
  w2.close();
  assert.deepEqual(readAll(c2, 't').at(-1), [2 * DAY, 'three', 'c']);
  assert.deepEqual(
    c2.reader('t').snapshot.dicts.get(2)?.slice(0, 3),
    ['a', 'b', 'c'],
    'uncommitted symbols were dropped',
  );
  c2.close();
});

test('a truncated column file makes that table unusable with a clear error, and only that table', async () => {
  const dir = fresh();
  const { c, w } = await filled(dir);
  w.close();
  c.create({ name: 'ok', columns: [{ name: 'x', type: 'INT' }] });
  c.close();
  truncateSync(join(dir, 't', '1970-01-02.1', '1.d'), 1);
  const c2 = openCatalog(dir);
  assert.equal(c2.problems.length, 1);
  assert.match(c2.problems[0]!.error, /1\.d is truncated: 1 bytes, the last commit needs 3/);
  assert.throws(
    () => c2.reader('t'),
    (e: unknown) => e instanceof SvcError && /table is corrupt \[table=t\]/.test(e.message),
  );
  await assert.rejects(c2.writer('t'), /table is corrupt/);
  assert.deepEqual(readAll(c2, 'ok'), []);
  c2.close();
});

test('a damaged transaction file or symbol dictionary is reported, not guessed around', async () => {
  const dir = fresh();
  const { c, w } = await filled(dir);
  w.close();
  c.close();
  writeFileSync(join(dir, 't', '_txn'), '{"txn": 1, "partit');
  let c2 = openCatalog(dir);
  assert.match(c2.problems[0]!.error, /_txn: not valid JSON/);
  c2.close();

  const dir2 = fresh();
  const f = await filled(dir2);
  f.w.close();
  f.c.close();
  truncateSync(join(dir2, 't', '2.sym'), 3);
  c2 = openCatalog(dir2);
  assert.match(c2.problems[0]!.error, /symbol dictionary .*2\.sym is truncated/);
  c2.close();
  appendFileSync(join(dir2, 't', '2.sym'), Buffer.alloc(0));
});

test('a full disk fails the write with a clear error and leaves the table at its last commit', async () => {
  const dir = fresh();
  const { c, w } = await filled(dir);
  let budget = 40;
  setWriteFault((path, bytes) => {
    budget -= bytes;
    if (budget < 0) throw enospc(path);
  });
  try {
    assert.throws(
      () => {
        for (let i = 0; i < 100; i++) {
          w.append({
            rowCount: 1,
            columns: { ts: new Float64Array([2 * DAY + i]), v: ['payload'.repeat(50)], s: ['q'] },
          });
          w.commit();
        }
      },
      (e: unknown) =>
        e instanceof SvcError && e.code === 'DISK_FULL' && /disk full while writing table t/.test(e.message),
    );
  } finally {
    setWriteFault(null);
  }
  const committed = readAll(c, 't');
  w.append({ rowCount: 1, columns: { ts: new Float64Array([9 * DAY]), v: ['after'], s: ['a'] } });
  w.commit();
  w.close();
  assert.deepEqual(
    readAll(c, 't'),
    [...committed, [9 * DAY, 'after', 'a']],
    'the table works again once there is space',
  );
  c.close();
  const c2 = openCatalog(dir);
  assert.deepEqual(c2.problems, []);
  assert.equal(readAll(c2, 't').length, committed.length + 1);
  c2.close();
});
