// The table writer's fast append paths (timestamps encoded in the order check,
// symbol keys written as they are when the input dictionary matches the
// table's, reusable conversion buffers) against their general paths.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DAY, openCatalog, readAll, tempDb } from './fixture.js';
import type { Catalog } from '../../lib/storage/catalog.js';
import type { SymbolVector, VarVector } from '../../lib/core/column-vector.js';

const db = tempDb();
after(() => db.remove());
let n = 0;
const fresh = (): string => join(db.dir, '..', `db${n++}`);
const TWO52 = 2 ** 52;

test('timestamps of every range round-trip: pre-1970, ordinary, past 2^52 and up to 2^53', async () => {
  const c = openCatalog(fresh());
  c.create({
    name: 't',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'x', type: 'INT' },
    ],
    timestamp: 'ts',
    partitionBy: 'YEAR',
  });
  const w = await c.writer('t');
  // In order within each batch, so the encoded-in-the-check path is the one taken.
  const batches = [
    [-2 * DAY - 1, -DAY, -1, 0],
    [1, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1],
    [1_700_000_000_123_456, TWO52 - 1],
    [TWO52, TWO52 + 2, 2 ** 53 - 1],
  ];
  let x = 0;
  for (const b of batches)
    w.append({ rowCount: b.length, columns: { ts: new Float64Array(b), x: new Int32Array(b.map(() => x++)) } });
  w.commit();
  w.close();
  assert.deepEqual(
    readAll(c, 't').map((r) => r[0]),
    batches.flat(),
  );
  c.close();
});

test('a batch with late rows still encodes its in-order rows right and merges the late ones', async () => {
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
  w.append({ rowCount: 3, columns: { ts: new Float64Array([10, 20, 30]), x: new Int32Array([1, 2, 3]) } });
  w.append({ rowCount: 4, columns: { ts: new Float64Array([40, 15, 50, DAY + 5]), x: new Int32Array([4, 5, 6, 7]) } });
  w.commit();
  w.close();
  assert.deepEqual(readAll(c, 't'), [
    [10, 1],
    [15, 5],
    [20, 2],
    [30, 3],
    [40, 4],
    [50, 6],
    [DAY + 5, 7],
  ]);
  c.close();
});

test('a NULL or NaN designated timestamp is refused wherever it is in the batch, late rows or not', async () => {
  const c = openCatalog(fresh());
  c.create({ name: 't', columns: [{ name: 'ts', type: 'TIMESTAMP' }], timestamp: 'ts', partitionBy: 'DAY' });
  const w = await c.writer('t');
  const bad = [
    [NaN, 1],
    [1, NaN],
    [5, 3, NaN],
    [-(2 ** 63), 1],
    [2, -(2 ** 63)],
  ];
  for (const b of bad) {
    assert.throws(
      () => w.append({ rowCount: b.length, columns: { ts: new Float64Array(b) } }),
      /designated timestamp cannot be NULL/,
      String(b),
    );
  }
  w.append({ rowCount: 2, columns: { ts: new Float64Array([7, 8]) } });
  w.commit();
  w.close();
  assert.deepEqual(readAll(c, 't'), [[7], [8]]);
  c.close();
});

test('symbol keys: same-order dictionaries are written as they are, other orders are mapped, stray negatives are NULL', async () => {
  const c = openCatalog(fresh());
  c.create({ name: 't', columns: [{ name: 's', type: 'SYMBOL' }] });
  const w = await c.writer('t');
  const dict = ['a', 'b'];
  const keys = new Int32Array([0, 1, -1, 1]);
  const vec = (k: Int32Array, d: string[]): SymbolVector => ({ kind: 'symbol', type: 'SYMBOL', keys: k, dict: d });
  w.append({ rowCount: 4, columns: { s: vec(keys, dict) } });
  // The caller reuses its buffer at once: what was appended must not change.
  keys.set([1, 1, 1, 1]);
  w.append({ rowCount: 4, columns: { s: vec(keys, dict) } });
  // The same (growing) dictionary gets a new value, and a stray negative key.
  dict.push('c');
  w.append({ rowCount: 3, columns: { s: vec(new Int32Array([2, -7, 0]), dict) } });
  // Another input dictionary in another order.
  w.append({ rowCount: 3, columns: { s: vec(new Int32Array([0, 1, 2]), ['c', 'd', 'a']) } });
  w.commit();
  w.close();
  assert.deepEqual(
    readAll(c, 't').map((r) => r[0]),
    ['a', 'b', null, 'b', 'b', 'b', 'b', 'b', 'c', null, 'a', 'c', 'd', 'a'],
  );
  c.close();
});

test('VARCHAR offsets: slices of a shared buffer, NULLs, empty values and a buffer reused after append', async () => {
  const c = openCatalog(fresh());
  c.create({ name: 't', columns: [{ name: 'v', type: 'VARCHAR' }] });
  const w = await c.writer('t');
  const bytes = new TextEncoder().encode('xxhelloworld');
  const offsets = new Int32Array([2, 7, 7, 12]);
  const plain: VarVector = { kind: 'var', type: 'VARCHAR', bytes, offsets, nulls: null };
  w.append({ rowCount: 3, columns: { v: plain } });
  w.append({ rowCount: 3, columns: { v: { ...plain, nulls: new Uint8Array([0, 1, 0]) } } });
  bytes.fill(0);
  offsets.fill(0);
  // Many rows in one batch: larger than the writer's stage, so written straight from the buffer.
  const many = Array.from({ length: 20_000 }, (_, i) => (i % 3 === 0 ? null : `v${i}`));
  w.append({ rowCount: many.length, columns: { v: many } });
  w.commit();
  w.close();
  const got = readAll(c, 't').map((r) => r[0]);
  assert.deepEqual(got.slice(0, 6), ['hello', '', 'world', 'hello', null, 'world']);
  assert.deepEqual(got.slice(6), many);
  c.close();
});

test('replacePartitions: the named partitions give way to the rows appended next in one commit; the others stay', async () => {
  const dir = fresh();
  const c = openCatalog(dir);
  c.create({
    name: 't',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'x', type: 'INT' },
    ],
    timestamp: 'ts',
    partitionBy: 'DAY',
  });
  const ts = (t: Catalog): unknown[] => readAll(t, 't').map((r) => r[0]);
  const w = await c.writer('t');
  const rows = (xs: number[]): void =>
    w.append({ rowCount: xs.length, columns: { ts: new Float64Array(xs), x: new Int32Array(xs.map((_, i) => i)) } });
  rows([10, 20, DAY + 10, DAY + 20, 2 * DAY + 10]);
  w.commit();

  // Day 2 replaced: until the commit a reader sees the old rows, after it the new ones, days 1 and 3 kept.
  w.replacePartitions(['1970-01-02']);
  rows([DAY + 5, DAY + 6, DAY + 7]);
  assert.deepEqual(ts(c), [10, 20, DAY + 10, DAY + 20, 2 * DAY + 10]);
  w.commit();
  assert.deepEqual(ts(c), [10, 20, DAY + 5, DAY + 6, DAY + 7, 2 * DAY + 10]);

  // A rollback leaves them; replaced by nothing, a partition leaves in one commit; appends go on after.
  w.replacePartitions(['1970-01-02']);
  rows([DAY + 1]);
  w.rollback();
  assert.deepEqual(ts(c), [10, 20, DAY + 5, DAY + 6, DAY + 7, 2 * DAY + 10]);
  w.replacePartitions(['1970-01-02', '1999-01-01']);
  w.commit();
  assert.deepEqual(ts(c), [10, 20, 2 * DAY + 10]);
  rows([2 * DAY + 20, 3 * DAY]);
  w.commit();
  w.close();
  c.close();
  const again = openCatalog(dir);
  assert.deepEqual(ts(again), [10, 20, 2 * DAY + 10, 2 * DAY + 20, 3 * DAY]);
  again.close();
});
