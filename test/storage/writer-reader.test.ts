import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DAY, openCatalog, readAll, rows, tempDb } from './fixture.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import type { ColumnVector } from '../../lib/core/column-vector.js';
import { removalsDone } from '../../lib/storage/table.js';

const db = tempDb();
after(() => db.remove());
let n = 0;
const fresh = (): string => join(db.dir, '..', `db${n++}`);

const ALL_TYPES = [
  { name: 'ts', type: 'TIMESTAMP' },
  { name: 'b', type: 'BOOLEAN' },
  { name: 'by', type: 'BYTE' },
  { name: 'sh', type: 'SHORT' },
  { name: 'ch', type: 'CHAR' },
  { name: 'i', type: 'INT' },
  { name: 'l', type: 'LONG' },
  { name: 'f', type: 'FLOAT' },
  { name: 'd', type: 'DOUBLE' },
  { name: 'dt', type: 'DATE' },
  { name: 'sym', type: 'SYMBOL' },
  { name: 's', type: 'STRING' },
  { name: 'v', type: 'VARCHAR' },
  { name: 'ip', type: 'IPV4' },
] as const;

test('stores every column type with its NULL and reads it back', async () => {
  const c = openCatalog(fresh());
  c.create({ name: 't', columns: [...ALL_TYPES], timestamp: 'ts', partitionBy: 'DAY' });
  const w = await c.writer('t');
  w.append({
    rowCount: 3,
    columns: {
      ts: new Float64Array([1, 2, DAY + 3]),
      b: new Uint8Array([1, 0, 1]),
      by: new Int8Array([-128, 0, 127]),
      sh: new Int16Array([-32768, 1, 32767]),
      ch: new Uint16Array([65, 0, 0x263a]),
      i: new Int32Array([1, -0x80000000, 2147483647]),
      l: new Float64Array([2 ** 53 - 1, NaN, -(2 ** 53)]),
      f: new Float32Array([1.5, NaN, -2]),
      d: new Float64Array([0.1, NaN, 1e300]),
      dt: new Float64Array([1_700_000_000_000, NaN, 0]),
      sym: ['a', null, 'b'],
      s: ['x', null, ''],
      v: ['héllo ✓', '', null],
      ip: new Int32Array([0x7f000001, 0, -1]),
    },
  });
  w.commit();
  w.close();
  assert.deepEqual(readAll(c, 't'), [
    [1, true, -128, -32768, 65, 1, 2 ** 53 - 1, 1.5, 0.1, 1_700_000_000_000, 'a', 'x', 'héllo ✓', 0x7f000001],
    [2, false, 0, 1, 0, null, null, null, null, null, null, null, '', 0],
    [DAY + 3, true, 127, 32767, 0x263a, 2147483647, -(2 ** 53), -2, 1e300, 0, 'b', '', null, -1],
  ]);
  c.close();
});

test('stores UUID, LONG256 and BINARY values byte for byte, with NULLs', async () => {
  const c = openCatalog(fresh());
  c.create({
    name: 't',
    columns: [
      { name: 'u', type: 'UUID' },
      { name: 'w', type: 'LONG256' },
      { name: 'bin', type: 'BINARY' },
    ],
  });
  const w = await c.writer('t');
  const u = new Uint8Array(32);
  u.fill(7, 0, 16);
  for (let i = 23; i < 32; i += 8) u[i] = 0x80;
  const l256 = new Uint8Array(64);
  l256.fill(9, 0, 32);
  const bin = {
    kind: 'var' as const,
    type: 'BINARY' as const,
    bytes: new Uint8Array([0, 255, 1]),
    offsets: new Int32Array([0, 3, 3]),
    nulls: new Uint8Array([0, 1]),
  };
  w.append({ rowCount: 2, columns: { u, w: l256, bin } });
  w.commit();
  w.close();
  const r = c.reader('t');
  const [b] = [...r.scan()];
  const [uv, wv, bv] = b!.columns as [ColumnVector, ColumnVector, ColumnVector];
  assert.deepEqual(uv.kind === 'fixed' && [...uv.data], [...u]);
  assert.deepEqual(wv.kind === 'fixed' && [...wv.data], [...l256]);
  assert.ok(bv.kind === 'var');
  assert.deepEqual([...bv.bytes], [0, 255, 1]);
  assert.deepEqual([...bv.offsets], [0, 3, 3]);
  assert.deepEqual([...(bv.nulls ?? [])], [0, 1]);
  r.close();
  c.close();
});

test('commits in every commit mode', async () => {
  for (const commitMode of ['nosync', 'async', 'sync'] as const) {
    const dir = fresh();
    const c = openCatalog(dir, { commitMode });
    c.create({
      name: 't',
      columns: [
        { name: 'ts', type: 'TIMESTAMP' },
        { name: 's', type: 'SYMBOL' },
        { name: 'v', type: 'VARCHAR' },
      ],
      timestamp: 'ts',
      partitionBy: 'DAY',
    });
    const w = await c.writer('t');
    w.append({ rowCount: 2, columns: { ts: new Float64Array([DAY, 0]), s: ['a', 'b'], v: ['x', 'y'] } });
    w.commit();
    w.close();
    c.close();
    const c2 = openCatalog(dir);
    assert.deepEqual(
      readAll(c2, 't'),
      [
        [0, 'b', 'y'],
        [DAY, 'a', 'x'],
      ],
      commitMode,
    );
    c2.close();
  }
});

test('keeps LONG values beyond 2^53 exact through the bigint path', async () => {
  const c = openCatalog(fresh());
  c.create({ name: 't', columns: [{ name: 'l', type: 'LONG' }] });
  const w = await c.writer('t');
  w.append({ rowCount: 2, columns: { l: new BigInt64Array([9007199254740993n, -9223372036854775807n]) } });
  w.commit();
  w.close();
  const r = c.reader('t');
  const [b] = [...r.scan()];
  const v = b!.columns[0]!;
  assert.ok(v.kind === 'fixed' && v.exact);
  const big = new BigInt64Array(v.exact.buffer, v.exact.byteOffset, 2);
  assert.deepEqual([...big], [9007199254740993n, -9223372036854775807n]);
  r.close();
  c.close();
});

test('readers see only committed rows; rollback drops the rest; a reader keeps its snapshot', async () => {
  const c = openCatalog(fresh());
  c.create({
    name: 't',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'x', type: 'INT' },
    ],
    timestamp: 'ts',
    partitionBy: 'DAY',
  });
  const w = await c.writer('t');
  w.append({ rowCount: 2, columns: { ts: new Float64Array([10, 20]), x: new Int32Array([1, 2]) } });
  assert.deepEqual(readAll(c, 't'), [], 'uncommitted rows are invisible');
  w.commit();
  const before = c.reader('t');
  w.append({ rowCount: 1, columns: { ts: new Float64Array([DAY]), x: new Int32Array([3]) } });
  w.rollback();
  assert.deepEqual(readAll(c, 't'), [
    [10, 1],
    [20, 2],
  ]);
  assert.deepEqual(
    readdirSync(join(c.dir, 't')).filter((f) => f.startsWith('1970-01-02')),
    [],
    'the new partition folder is gone',
  );
  w.append({ rowCount: 1, columns: { ts: new Float64Array([30]), x: new Int32Array([4]) } });
  w.commit();
  assert.deepEqual(
    rows(before),
    [
      [10, 1],
      [20, 2],
    ],
    'an open reader keeps its snapshot',
  );
  before.close();
  assert.deepEqual(readAll(c, 't'), [
    [10, 1],
    [20, 2],
    [30, 4],
  ]);
  w.close();
  c.close();
});

test('merges out-of-order rows into their partitions, stably, and removes old versions when their readers close', async () => {
  const c = openCatalog(fresh());
  c.create({
    name: 't',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'x', type: 'INT' },
      { name: 's', type: 'VARCHAR' },
    ],
    timestamp: 'ts',
    partitionBy: 'DAY',
  });
  const w = await c.writer('t');
  w.append({
    rowCount: 4,
    columns: {
      ts: new Float64Array([0, 100, DAY, DAY + 100]),
      x: new Int32Array([1, 2, 3, 4]),
      s: ['a', 'b', 'c', 'd'],
    },
  });
  w.commit();
  const old = c.reader('t');
  const oldDirs = old.partitions.map((p) => p.dir);
  // One row into each old partition (one equal to an existing timestamp), one new partition, one row in order.
  w.append({
    rowCount: 4,
    columns: {
      ts: new Float64Array([100, DAY + 50, 3 * DAY, 50]),
      x: new Int32Array([5, 6, 7, 8]),
      s: ['e', null, 'g', 'h'],
    },
  });
  w.commit();
  w.close();
  assert.deepEqual(readAll(c, 't'), [
    [0, 1, 'a'],
    [50, 8, 'h'],
    [100, 2, 'b'],
    [100, 5, 'e'],
    [DAY, 3, 'c'],
    [DAY + 50, 6, null],
    [DAY + 100, 4, 'd'],
    [3 * DAY, 7, 'g'],
  ]);
  assert.deepEqual(rows(old), [
    [0, 1, 'a'],
    [100, 2, 'b'],
    [DAY, 3, 'c'],
    [DAY + 100, 4, 'd'],
  ]);
  const tableDir = join(c.dir, 't');
  for (const d of oldDirs) assert.ok(readdirSync(tableDir).includes(d), `${d} kept while a reader uses it`);
  old.close();
  await removalsDone(); // retired folders go in the background
  const now = readdirSync(tableDir)
    .filter((f) => /^\d/.test(f))
    .sort();
  assert.deepEqual(now, ['1970-01-01.2', '1970-01-02.2', '1970-01-04.2']);
  c.close();
});

test('prunes partitions outside an interval and binary-searches inside the edge ones', async () => {
  const c = openCatalog(fresh());
  c.create({
    name: 't',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'x', type: 'INT' },
    ],
    timestamp: 'ts',
    partitionBy: 'DAY',
  });
  const w = await c.writer('t');
  const ts = new Float64Array(100),
    x = new Int32Array(100);
  for (let i = 0; i < 100; i++) {
    ts[i] = Math.floor(i / 10) * DAY + (i % 10) * 1000;
    x[i] = i;
  }
  w.append({ rowCount: 100, columns: { ts, x } });
  w.commit();
  w.close();
  const r = c.reader('t');
  const ranges = r.ranges([[2 * DAY + 5000, 4 * DAY + 3000]]);
  assert.deepEqual(
    ranges.map((g) => [g.partition.name, g.lo, g.hi]),
    [
      ['1970-01-03', 5, 10],
      ['1970-01-04', 0, 10],
      ['1970-01-05', 0, 3],
    ],
  );
  assert.deepEqual(
    rows(r, { columns: ['x'], intervals: [[2 * DAY + 5000, 4 * DAY + 3000]] }).flat(),
    [25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42],
  );
  assert.deepEqual(
    rows(r, {
      columns: ['x'],
      intervals: [
        [0, 1],
        [9 * DAY + 9000, 20 * DAY],
      ],
    }).flat(),
    [0, 99],
  );
  assert.deepEqual(rows(r, { columns: ['x'], intervals: [[50 * DAY, 60 * DAY]] }), []);
  r.close();
  c.close();
});

test('reads in batches aligned to the batch size, forwards and backwards', async () => {
  const c = openCatalog(fresh());
  c.create({ name: 't', columns: [{ name: 'x', type: 'INT' }] });
  const w = await c.writer('t');
  w.append({ rowCount: 25, columns: { x: Int32Array.from({ length: 25 }, (_, i) => i) } });
  w.commit();
  w.close();
  const r = c.reader('t');
  assert.deepEqual(
    [...r.scan({ batchRows: 10 })].map((b) => b.rowCount),
    [10, 10, 5],
  );
  assert.deepEqual(
    [...r.scan({ batchRows: 10, backwards: true })].map((b) => b.rowCount),
    [5, 10, 10],
  );
  r.close();
  c.close();
});

test('commits by itself after maxUncommittedRows rows', async () => {
  const c = openCatalog(fresh());
  c.create({
    name: 't',
    columns: [{ name: 'ts', type: 'TIMESTAMP' }],
    timestamp: 'ts',
    partitionBy: 'DAY',
    maxUncommittedRows: 5,
  });
  const w = await c.writer('t');
  w.append({ rowCount: 3, columns: { ts: new Float64Array([1, 2, 3]) } });
  assert.equal(readAll(c, 't').length, 0);
  w.append({ rowCount: 3, columns: { ts: new Float64Array([4, 5, 6]) } });
  assert.equal(readAll(c, 't').length, 6);
  assert.equal(w.uncommittedRows, 0);
  w.close();
  c.close();
});

test('rejects a NULL designated timestamp, an unknown column and a wrong array type without writing anything', async () => {
  const c = openCatalog(fresh());
  c.create({
    name: 't',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'x', type: 'INT' },
    ],
    timestamp: 'ts',
  });
  const w = await c.writer('t');
  assert.throws(
    () => w.append({ rowCount: 2, columns: { ts: new Float64Array([1, NaN]) } }),
    /designated timestamp cannot be NULL .*row=1/,
  );
  assert.throws(
    () => w.append({ rowCount: 1, columns: { ts: new Float64Array([1]), nope: new Int32Array(1) } }),
    /Invalid column: nope/,
  );
  assert.throws(() => w.append({ rowCount: 1, columns: { x: new Float64Array(1) } }), /takes a Int32Array/);
  assert.throws(() => w.append({ rowCount: 2, columns: { x: new Int32Array(1) } }), /has 1 rows, the batch has 2/);
  w.commit();
  assert.deepEqual(readAll(c, 't'), []);
  w.close();
  c.close();
});

test('allows one writer per table: a second one waits, then fails with table busy', async () => {
  const c = openCatalog(fresh(), { writerWaitMs: 50 });
  c.create({ name: 't', columns: [{ name: 'x', type: 'INT' }] });
  const w = await c.writer('t');
  await assert.rejects(
    c.writer('t'),
    (e: unknown) => e instanceof SvcError && e.code === 'TABLE_BUSY' && /table busy \[table=t\]/.test(e.message),
  );
  const waiting = c.writer('t');
  w.close();
  const w2 = await waiting;
  w2.close();
  c.close();
});

test('a second open of the same database fails while the first holds it', () => {
  const dir = fresh();
  const c = openCatalog(dir);
  assert.throws(() => openCatalog(dir), /is in use by process/);
  c.close();
  openCatalog(dir).close();
});
