// The catalog's rules (catalog.ts): an operation removes only what it created
// itself, a failure at any step leaves disk and catalog as they were, a full
// disk is a DISK_FULL error, and a folder the catalog did not make survives.
import { after, afterEach, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { DAY, openCatalog, readAll, tempDb } from './fixture.js';
import type { Catalog, CreateTableDef } from '../../lib/storage/catalog.js';
import { enospc, setFsFault, setWriteFault } from '../../lib/storage/io.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import { removalsDone } from '../../lib/storage/table.js';

const db = tempDb();
after(() => db.remove());
afterEach(() => {
  setWriteFault(null);
  setFsFault(null);
});
let n = 0;
const fresh = (): string => join(db.dir, '..', `rules${n++}`);

const DEF: CreateTableDef = {
  name: 't',
  columns: [
    { name: 'ts', type: 'TIMESTAMP' },
    { name: 's', type: 'SYMBOL' },
    { name: 'v', type: 'VARCHAR' },
  ],
  timestamp: 'ts',
  partitionBy: 'DAY',
};
const ROWS = [
  [0, 'a', 'one'],
  [DAY, 'b', 'two'],
  [2 * DAY, 'a', 'three'],
];

async function filled(c: Catalog, name = 't'): Promise<void> {
  c.create({ ...DEF, name });
  const w = await c.writer(name);
  w.append({
    rowCount: 3,
    columns: { ts: new Float64Array([0, DAY, 2 * DAY]), s: ['a', 'b', 'a'], v: ['one', 'two', 'three'] },
  });
  w.commit();
  w.close();
}

/** Every file and folder under `dir` with file sizes and contents of the small metadata files: a disk state to compare. */
function tree(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(dir, rel)).sort()) {
    const p = join(rel, e);
    const st = statSync(join(dir, p));
    if (st.isDirectory()) out.push(`${p}/`, ...tree(dir, p));
    else out.push(`${p} ${st.size}${e.startsWith('_') ? ` ${readFileSync(join(dir, p), 'utf8')}` : ''}`);
  }
  return out;
}

/**
 * Fails the n-th storage write, folder creation or rename with ENOSPC (n from 1); returns a
 * function telling how many there were.
 */
function failNth(nth: number): () => number {
  let seen = 0;
  const step = (path: string, syscall: string): void => {
    if (++seen === nth) throw enospc(path, syscall);
  };
  setWriteFault((path) => step(path, 'write'));
  setFsFault((op, path) => step(path, op));
  return () => seen;
}

/** Runs `op` failing at step 1, 2, ... until it succeeds; `check` runs after every failure. Returns the step count. */
async function atEveryStep(
  op: () => unknown,
  check: (e: unknown, step: number) => void | Promise<void>,
): Promise<number> {
  for (let nth = 1; ; nth++) {
    const count = failNth(nth);
    try {
      await op();
    } catch (e) {
      setWriteFault(null);
      setFsFault(null);
      await check(e, nth);
      continue;
    }
    setWriteFault(null);
    setFsFault(null);
    assert.ok(count() < nth, 'the operation succeeded although a step failed');
    return nth - 1;
  }
}

const diskFull = (e: unknown): boolean =>
  e instanceof SvcError && e.code === 'DISK_FULL' && e.status === 507 && /^disk full /.test(e.message);

test('a CREATE TABLE that fails at any step leaves nothing on disk and nothing in the catalog', async () => {
  const dir = fresh();
  const c = openCatalog(dir);
  const before = tree(dir);
  const steps = await atEveryStep(
    () => c.create(DEF),
    async (e, step) => {
      assert.ok(diskFull(e), `step ${step}: ${String(e)}`);
      assert.match((e as Error).message, /creating table t; nothing was created/);
      assert.equal(c.exists('t'), false);
      await removalsDone(); // a discarded staged folder goes in the background
      assert.deepEqual(tree(dir), before, `step ${step} left something`);
    },
  );
  assert.ok(steps >= 6, `mkdir, _meta write and rename, _txn write and rename, the rename into place: ${steps}`);
  assert.deepEqual(readAll(c, 't'), []);
  c.close();
});

test("a folder of the table's name that the catalog did not open is never removed: CREATE, RENAME and an import refuse", async () => {
  const dir = fresh();
  const c = openCatalog(dir);
  await filled(c, 'other');
  // Copied in while the server runs (a restore), or left by something else: not an open table.
  mkdirSync(join(dir, 't'));
  writeFileSync(join(dir, 't', 'precious.bin'), 'data');
  const before = tree(dir);
  assert.throws(
    () => c.create(DEF),
    /table already exists \[table=t\]: the database folder has a folder of that name that is not an open table/,
  );
  await assert.rejects(c.rename('other', 't'), /table already exists \[table=t\]/);
  const staged = c.createStaged(DEF);
  await assert.rejects(c.publishStaged(staged), /table already exists \[table=t\]/);
  c.discardStaged(staged);
  await removalsDone();
  assert.deepEqual(tree(dir), before);
  assert.equal(readFileSync(join(dir, 't', 'precious.bin'), 'utf8'), 'data');
  assert.equal(c.exists('t'), false);
  assert.deepEqual(readAll(c, 'other'), ROWS);
  c.close();
});

test('issue 15 item 6: a DROP that fails keeps the table in the catalog with its data, and CREATE of its name removes nothing', async () => {
  const dir = fresh();
  const c = openCatalog(dir);
  await filled(c);
  const before = tree(dir);
  // Not a full disk: any failure of the rename into .trash (here: permission denied).
  setFsFault((op, path) => {
    if (op === 'rename' && path.includes('.trash'))
      throw Object.assign(new Error(`EACCES: permission denied, rename '${path}'`), { code: 'EACCES' });
  });
  await assert.rejects(c.drop('t'), /EACCES/);
  setFsFault(null);
  assert.equal(c.exists('t'), true, 'the table stays in the catalog');
  assert.deepEqual(readAll(c, 't'), ROWS);
  assert.deepEqual(tree(dir), before);
  assert.throws(() => c.create(DEF), /table already exists \[table=t\]/);
  assert.deepEqual(readAll(c, 't'), ROWS, 'the data is still there');
  const w = await c.writer('t');
  w.close(); // the writer slot was released by the failed drop
  await c.drop('t');
  assert.equal(c.exists('t'), false);
  c.create(DEF);
  assert.deepEqual(readAll(c, 't'), []);
  c.close();
});

test('a DROP that fails at any step leaves disk and catalog unchanged; on a full disk it needs only a rename', async () => {
  const dir = fresh();
  const c = openCatalog(dir);
  await filled(c);
  rmSync(join(dir, '.trash'), { recursive: true }); // so that the drop has to make it
  const before = tree(dir);
  const steps = await atEveryStep(
    () => c.drop('t'),
    (e, step) => {
      assert.ok(diskFull(e), `step ${step}: ${String(e)}`);
      assert.match((e as Error).message, /dropping table t; the table is unchanged/);
      assert.deepEqual(readAll(c, 't'), ROWS);
      // .trash itself may stay once made (open makes it anyway), empty.
      assert.deepEqual(
        tree(dir).filter((e) => e !== '.trash/'),
        before,
      );
    },
  );
  assert.equal(steps, 2, 'mkdir .trash, rename');
  assert.equal(c.exists('t'), false);
  await removalsDone(); // the dropped folder goes in the background
  assert.deepEqual(readdirSync(join(dir, '.trash')), []);
  c.close();
  // The next open makes .trash at once: a drop then writes nothing at all.
  const c2 = openCatalog(dir);
  await filled(c2);
  setWriteFault((path) => {
    throw enospc(path);
  });
  setFsFault((op, path) => {
    if (op === 'mkdir') throw enospc(path, 'mkdir');
  });
  await c2.drop('t');
  assert.equal(c2.exists('t'), false);
  c2.close();
});

test('a RENAME TABLE that fails at any step leaves the table under its name, on disk and in the catalog, also after a reopen', async () => {
  const dir = fresh();
  let c = openCatalog(dir);
  await filled(c);
  const before = tree(dir);
  const steps = await atEveryStep(
    () => c.rename('t', 'u'),
    (e, step) => {
      assert.ok(diskFull(e), `step ${step}: ${String(e)}`);
      assert.equal(c.exists('t'), true);
      assert.equal(c.exists('u'), false);
      assert.equal(c.get('t').name, 't');
      assert.deepEqual(readAll(c, 't'), ROWS);
      assert.deepEqual(tree(dir), before, `step ${step} left something`);
    },
  );
  assert.ok(steps >= 5, `folder rename, _meta write and rename, _txn write and rename: ${steps}`);
  assert.deepEqual(readAll(c, 'u'), ROWS);
  c.close();
  c = openCatalog(dir);
  assert.equal(c.get('u').name, 'u');
  c.close();
});

test('when the undo of a failed RENAME TABLE fails too, the catalog follows the disk', async () => {
  const dir = fresh();
  const c = openCatalog(dir);
  await filled(c);
  setWriteFault((path) => {
    throw enospc(path);
  });
  setFsFault((op, path) => {
    if (op === 'rename' && path.endsWith('/t')) throw new Error('rename back failed');
  });
  await assert.rejects(c.rename('t', 'u'), diskFull);
  setWriteFault(null);
  setFsFault(null);
  assert.equal(existsSync(join(dir, 'u')), true);
  assert.equal(c.exists('t'), false);
  assert.equal(c.get('u').name, 'u');
  assert.deepEqual(readAll(c, 'u'), ROWS);
  c.close();
  const c2 = openCatalog(dir);
  assert.deepEqual(c2.problems, []);
  assert.deepEqual(readAll(c2, 'u'), ROWS);
  c2.close();
});

test("a table whose folder was renamed before its metadata (a crash in RENAME TABLE) opens under the folder's name", async () => {
  const dir = fresh();
  const c = openCatalog(dir);
  await filled(c);
  c.close();
  renameSync(join(dir, 't'), join(dir, 'u'));
  const c2 = openCatalog(dir);
  assert.deepEqual(c2.problems, []);
  assert.equal(c2.exists('t'), false);
  assert.equal(c2.get('u').name, 'u');
  assert.deepEqual(readAll(c2, 'u'), ROWS);
  const w = await c2.writer('u');
  w.addColumn('q', 'INT');
  w.close();
  assert.match(
    readFileSync(join(dir, 'u', '_meta.1'), 'utf8'),
    /"name": "u"/,
    'the next metadata write stores the name',
  );
  c2.close();
});

test('an import with overwrite that fails at any step keeps the old table; discarding the staged one removes only it', async () => {
  const dir = fresh();
  const c = openCatalog(dir);
  await filled(c);
  const before = tree(dir);
  let steps: number;
  for (let nth = 1; ; nth++) {
    const staged = c.createStaged({
      ...DEF,
      columns: [
        { name: 'ts', type: 'TIMESTAMP' },
        { name: 'x', type: 'INT' },
      ],
    });
    const count = failNth(nth);
    try {
      await c.publishStaged(staged, { replace: true });
    } catch (e) {
      setWriteFault(null);
      setFsFault(null);
      assert.ok(diskFull(e), `step ${nth}: ${String(e)}`);
      c.discardStaged(staged);
      await removalsDone();
      assert.deepEqual(readAll(c, 't'), ROWS);
      assert.deepEqual(
        c.get('t').meta.columns.map((x) => x.name),
        ['ts', 's', 'v'],
      );
      assert.deepEqual(tree(dir), before, `step ${nth} left something`);
      continue;
    }
    setWriteFault(null);
    setFsFault(null);
    assert.ok(count() < nth);
    steps = nth - 1;
    break;
  }
  assert.ok(steps >= 4, `the record's write and rename, the old table's rename, the new one's: ${steps}`);
  assert.deepEqual(
    c.get('t').meta.columns.map((x) => x.name),
    ['ts', 'x'],
    'the replacement took the name',
  );
  assert.deepEqual(readAll(c, 't'), []);
  await removalsDone();
  assert.deepEqual(readdirSync(join(dir, '.trash')), [], 'the replaced table is gone once unused');
  assert.ok(!readdirSync(join(dir, 't')).includes('_replaces'));
  c.close();
});

test('an overwrite interrupted between its two renames is undone at the next open', async () => {
  const dir = fresh();
  const c = openCatalog(dir);
  await filled(c);
  const s = c.createStaged({
    ...DEF,
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'x', type: 'INT' },
    ],
  });
  // The rename into place fails, and so does putting the old table back (as if the process died there).
  setFsFault((op, path) => {
    if (op === 'rename' && path === join(dir, 't')) throw new Error('simulated failure');
  });
  await assert.rejects(c.publishStaged(s, { replace: true }), /simulated failure/);
  setFsFault(null);
  assert.deepEqual(readAll(c, 't'), ROWS, 'served from where it is held meanwhile');
  c.discardStaged(s);
  assert.equal(
    readdirSync(dir).filter((e) => e.startsWith('.staging-')).length,
    1,
    'the record stays for the next open',
  );
  assert.equal(existsSync(join(dir, 't')), false);
  c.close();
  const c2 = openCatalog(dir);
  assert.deepEqual(c2.problems, []);
  assert.deepEqual(readAll(c2, 't'), ROWS, 'put back at the next open');
  assert.deepEqual(readdirSync(dir).sort(), ['.lock', '.trash', 't']);
  assert.deepEqual(readdirSync(join(dir, '.trash')), []);
  c2.close();
});

test('recovery removes only what svcdb writes into a table folder: other files stay', async () => {
  const dir = fresh();
  const c = openCatalog(dir);
  await filled(c);
  c.close();
  writeFileSync(join(dir, 't', 'README.txt'), 'notes');
  mkdirSync(join(dir, 't', 'backup'));
  writeFileSync(join(dir, 't', 'backup', '0.d'), 'x');
  writeFileSync(join(dir, 't', '1970-01-01.1', 'notes.txt'), 'x');
  // Garbage of svcdb's own: an unused metadata version, a partition folder and a column file no commit lists.
  writeFileSync(join(dir, 't', '_meta.7'), '{}');
  mkdirSync(join(dir, 't', '1970-01-09.4'));
  writeFileSync(join(dir, 't', '1970-01-01.1', '9.d'), 'x');
  const c2 = openCatalog(dir);
  assert.deepEqual(c2.problems, []);
  const files = readdirSync(join(dir, 't')).sort();
  assert.ok(files.includes('README.txt') && files.includes('backup'), files.join(' '));
  assert.ok(!files.includes('_meta.7') && !files.includes('1970-01-09.4'), files.join(' '));
  assert.deepEqual(readdirSync(join(dir, 't', '1970-01-01.1')).sort(), ['0.d', '1.d', '2.d', '2.i', 'notes.txt']);
  assert.deepEqual(readAll(c2, 't'), ROWS);
  c2.close();
});

test('two table folders whose names differ only in case: one opens, the other is reported, neither is removed', async () => {
  const dir = fresh();
  const c = openCatalog(dir);
  await filled(c);
  c.close();
  cpSync(join(dir, 't'), join(dir, 'T'), { recursive: true });
  const c2 = openCatalog(dir);
  assert.equal(c2.problems.length, 1);
  assert.match(c2.problems[0]!.error, /same name in another case/);
  assert.deepEqual(readAll(c2, 't'), ROWS);
  c2.close();
  assert.ok(existsSync(join(dir, 't')) && existsSync(join(dir, 'T')));
});

test('a table with a name longer than names may now be (an older version made it) opens, renames and drops', async () => {
  const dir = fresh();
  const c = openCatalog(dir);
  await filled(c);
  await filled(c, 'keep');
  c.close();
  const long = 'é'.repeat(120); // 240 bytes: its old .trash name would have been 277
  renameSync(join(dir, 't'), join(dir, long));
  const c2 = openCatalog(dir);
  assert.deepEqual(c2.problems, []);
  assert.deepEqual(readAll(c2, long), ROWS);
  await c2.drop(long);
  assert.equal(c2.exists(long), false);
  assert.equal(existsSync(join(dir, long)), false);
  assert.throws(() => c2.create({ ...DEF, name: long }), /table name is too long: 240 bytes/);
  assert.deepEqual(readAll(c2, 'keep'), ROWS);
  assert.deepEqual(readdirSync(dir).sort(), ['.lock', '.trash', 'keep']);
  c2.close();
});
