// DOUBLE arrays over HTTP as a QuestDB user meets them: DOUBLE[] and DOUBLE[][] columns,
// ARRAY[...] constructors, element and sub-array access, NULL and empty arrays, /exec JSON
// (QuestDB's ARRAY column descriptor), /exp CSV, Parquet as nested LISTs (read back by
// arrow-rs, hyparquet and DuckDB), out-of-order inserts into partitions, a restart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readParquet } from 'parquet-wasm';
import { tableFromIPC, type Vector } from 'apache-arrow';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { makeRoot, startServer, type ServerProcess } from '../helpers/server-process.js';
import { sqlClient } from '../helpers/sql-client.js';

describe('DOUBLE arrays', () => {
  let s: ServerProcess;
  const { get, ok, rows, fails } = sqlClient(() => s.mainUrl);

  before(async () => {
    s = await startServer({ root: makeRoot() }); // a root of our own: kept for the restart
    await ok('create table t (i int, a double[], b double[][])');
    await ok(`insert into t values (1, ARRAY[1.0, 2.5, -3.0], ARRAY[[1.0, 2.0], [3.0, 4.0]]), (2, null, null),
      (3, ARRAY[], ARRAY[[1, 2, 3]]), (4, ARRAY[1, null, 3], ARRAY[[], []])`);
    await ok('insert into t (i) values (5)');
  });
  after(async () => {
    await s.stop();
  });

  test('/exec describes array columns as QuestDB does and prints nested JSON arrays; NULL distinct from empty', async () => {
    const body = await ok('select i, a, b from t order by i');
    assert.deepEqual(body.columns, [
      { name: 'i', type: 'INT' },
      { name: 'a', type: 'ARRAY', dim: 1, elemType: 'DOUBLE' },
      { name: 'b', type: 'ARRAY', dim: 2, elemType: 'DOUBLE' },
    ]);
    assert.deepEqual(body.dataset, [
      [
        1,
        [1, 2.5, -3],
        [
          [1, 2],
          [3, 4],
        ],
      ],
      [2, null, null],
      [3, [], [[1, 2, 3]]],
      [4, [1, null, 3], [[], []]],
      [5, null, null],
    ]);
    assert.deepEqual(await rows('select i from t where a is null order by i'), [[2], [5]]);
  });

  test('ARRAY[...] makes DOUBLE[] from numbers and nests; element access is 1-based with QuestDB out-of-range rule', async () => {
    const body = await ok('select ARRAY[1.0, 2.0][1], ARRAY[[1.0], [2.0]], ARRAY[1, 2L, 3.5f]');
    assert.deepEqual(body.columns, [
      { name: '"ARRAY[1.0, 2.0][1]"', type: 'DOUBLE' },
      { name: '"ARRAY[ARRAY[1.0], ARRAY[2.0]]"', type: 'ARRAY', dim: 2, elemType: 'DOUBLE' },
      { name: '"ARRAY[1, 2L, 3.5f]"', type: 'ARRAY', dim: 1, elemType: 'DOUBLE' },
    ]);
    assert.deepEqual(body.dataset, [[1, [[1], [2]], [1, 2, 3.5]]]);
    // Scalars out of range are NULL, sub-arrays out of range are empty.
    assert.deepEqual(
      await rows('select a[1], a[3], a[4], a[0], b[2], b[2][1], b[2, 2], b[3], b[1, 5] from t where i = 1'),
      [[1, -3, null, null, [3, 4], 3, 4, [], null]],
    );
    assert.deepEqual(await rows('select a[1], b[1] from t where i = 2'), [[null, null]]);
    assert.deepEqual(await rows('select ARRAY[a, a][2][3] from t where i = 1'), [[-3]]);
  });

  test('= and != compare shape and elements (NULL elements equal); ordered comparisons are refused', async () => {
    assert.deepEqual(await rows('select i from t where a = ARRAY[1.0, 2.5, -3.0]'), [[1]]);
    assert.deepEqual(await rows('select i from t where a = ARRAY[1, null, 3]'), [[4]]);
    assert.deepEqual(
      await rows('select i from t where b = ARRAY[[1.0, 2.0], [3.0, 4.0]] or b = ARRAY[[1.0, 2.0, 3.0]] order by i'),
      [[1], [3]],
    );
    assert.deepEqual(await rows('select i from t where a != ARRAY[] order by i'), [[1], [2], [4], [5]]);
    // Same elements, another shape: not equal.
    assert.deepEqual(await rows('select ARRAY[[1.0, 2.0]] = ARRAY[[1.0], [2.0]], ARRAY[1.0] = ARRAY[1.0]'), [
      [false, true],
    ]);
    await fails('select i from t where a < a', /no matching operator `<`/, 24);
    await fails('select i from t where a = b', /no matching operator `=`/, 24);
  });

  test('mistakes are 400 at their position', async () => {
    await fails('select ARRAY[[1, 2], [3]]', /sub-arrays don't match in size/, 7);
    await fails('select i[1] from t', /no matching operator `\[\]`/, 8);
    await fails('select a[1, 2] from t', /too many array indexes/, 8);
    await fails('select a[1.5:2] from t', /array index must be an integer, found DOUBLE/, 9);
  });

  test('/exp CSV writes the arrays\' text quoted and a NULL array as "null"', async () => {
    const r = await get('/exp', { query: 'select i, a, b from t order by i' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.bytes.toString().split(/\r?\n/), [
      '"i","a","b"',
      '1,"[1.0,2.5,-3.0]","[[1.0,2.0],[3.0,4.0]]"',
      '2,"null","null"',
      '3,"[]","[[1.0,2.0,3.0]]"',
      '4,"[1.0,null,3.0]","[[],[]]"',
      '5,"null","null"',
      '',
    ]);
  });

  test('Parquet: nested LIST of DOUBLE, both page versions, many pages and row groups, read back by arrow-rs and hyparquet', async () => {
    const want = [
      [
        1,
        [1, 2.5, -3],
        [
          [1, 2],
          [3, 4],
        ],
      ],
      [2, null, null],
      [3, [], [[1, 2, 3]]],
      [4, [1, null, 3], [[], []]],
      [5, null, null],
    ];
    const plain = (x: unknown): unknown =>
      x !== null && typeof x === 'object' && 'toArray' in (x as object) ? [...(x as Vector)].map(plain) : x;
    for (const version of ['1', '2']) {
      const r = await get('/exp', {
        query: 'select i, a, b from t order by i',
        fmt: 'parquet',
        parquet_version: version,
      });
      assert.equal(r.status, 200, r.bytes.toString());
      const t = tableFromIPC(
        readParquet(new Uint8Array(r.bytes.buffer, r.bytes.byteOffset, r.bytes.length)).intoIPCStream(),
      );
      assert.equal(String(t.getChild('a')!.type), 'List<Float64>');
      assert.equal(String(t.getChild('b')!.type), 'List<List<Float64>>');
      const got = Array.from({ length: t.numRows }, (_, i) => ['i', 'a', 'b'].map((c) => plain(t.getChild(c)!.get(i))));
      assert.deepEqual(got, want, `arrow-rs, v${version}`);
      const hy = await parquetReadObjects({
        file: r.bytes.buffer.slice(r.bytes.byteOffset, r.bytes.byteOffset + r.bytes.length) as ArrayBuffer,
        compressors,
      });
      assert.deepEqual(
        hy.map((o) => [o.i, o.a ?? null, o.b ?? null]),
        want,
        `hyparquet, v${version}`,
      );
    }
    // Records never split across pages: small pages, several row groups.
    const q =
      'select x, ARRAY[x, x * 0.5] a, case when x % 3 = 0 then null else ARRAY[[x], [x + 1.0]] end b from long_sequence(5000)';
    for (const version of ['1', '2']) {
      const r = await get('/exp', {
        query: q,
        fmt: 'parquet',
        parquet_version: version,
        data_page_size: '1024',
        row_group_size: '1700',
      });
      assert.equal(r.status, 200, r.bytes.toString());
      const t = tableFromIPC(
        readParquet(new Uint8Array(r.bytes.buffer, r.bytes.byteOffset, r.bytes.length)).intoIPCStream(),
      );
      assert.equal(t.numRows, 5000);
      for (let i = 0; i < 5000; i += 7) {
        const x = i + 1;
        assert.deepEqual(plain(t.getChild('a')!.get(i)), [x, x * 0.5]);
        assert.deepEqual(plain(t.getChild('b')!.get(i)), x % 3 === 0 ? null : [[x], [x + 1]]);
      }
    }
  });

  test('arrays in a partitioned table: out-of-order inserts, UPDATE, ADD COLUMN, GROUP BY, a restart', async () => {
    await ok('create table p (ts timestamp, a double[]) timestamp(ts) partition by day');
    await ok("insert into p values ('2024-01-02', ARRAY[2.0]), ('2024-01-03', ARRAY[3.0, 3.5])");
    await ok(
      "insert into p values ('2024-01-01T12:00:00Z', ARRAY[1.0]), ('2024-01-02T12:00:00Z', null), ('2024-01-02T06:00:00Z', ARRAY[[1.0], [1.5]][1])",
    );
    await ok("update p set a = ARRAY[9.0] where ts = '2024-01-02'");
    await ok('alter table p add column b double[][]');
    const want = [
      ['2024-01-01T12:00:00.000000Z', [1], null],
      ['2024-01-02T00:00:00.000000Z', [9], null],
      ['2024-01-02T06:00:00.000000Z', [1], null],
      ['2024-01-02T12:00:00.000000Z', null, null],
      ['2024-01-03T00:00:00.000000Z', [3, 3.5], null],
    ];
    assert.deepEqual(await rows('select * from p'), want);
    assert.deepEqual(await rows('select a, count() c from p group by a order by c desc limit 1'), [[[1], 2]]);
    const root = s.root;
    await s.stop();
    s = await startServer({ root });
    assert.deepEqual(await rows('select * from p'), want);
    assert.deepEqual(await rows('select i, a, b from t where i <= 3 order by i'), [
      [
        1,
        [1, 2.5, -3],
        [
          [1, 2],
          [3, 4],
        ],
      ],
      [2, null, null],
      [3, [], [[1, 2, 3]]],
    ]);
  });
});
