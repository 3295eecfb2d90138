// TIMESTAMP_NS over HTTP as a QuestDB user meets it: columns, casts from text with nine
// fraction digits and to/from TIMESTAMP, DATE and LONG, exact comparisons and ORDER BY,
// NULL, /exec JSON, /exp CSV and Parquet (read back by arrow-rs), /imp schema, a restart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FormData, request } from 'undici';
import { readParquet } from 'parquet-wasm';
import { tableFromIPC } from 'apache-arrow';
import { makeRoot, startServer, type ServerProcess } from '../helpers/server-process.js';
import { sqlClient } from '../helpers/sql-client.js';

describe('TIMESTAMP_NS', () => {
  let s: ServerProcess;
  const { get, exec, ok, rows, csv } = sqlClient(() => s.mainUrl);

  before(async () => {
    s = await startServer({ root: makeRoot() }); // a root of our own: kept for the restart
    await ok('create table tn (k int, a timestamp_ns)');
    // Values one nanosecond apart (a double cannot tell them apart), before the epoch, and NULL.
    await ok(`insert into tn values (1, '2024-01-02T03:04:05.123456789Z'), (2, '2024-01-02T03:04:05.123456788Z'),
      (3, null), (4, '1969-12-31T23:59:59.999999999Z'), (5, '2024-01-02T03:04:05.1Z'), (6, '2024-01-02')`);
  });
  after(async () => {
    await s.stop();
  });

  test('text with up to nine fraction digits casts exactly; /exec prints nine digits and names the type', async () => {
    const body =
      await ok(`select cast('2024-01-02T03:04:05.123456789Z' as timestamp_ns) a, '2024-01-02T03:04:05.5Z'::timestamp_ns b,
      cast('2024-01-02' as timestamp_ns) c, cast('nope' as timestamp_ns) d, cast(null as timestamp_ns) e`);
    assert.deepEqual(
      (body.columns as { type: string }[]).map((c) => c.type),
      ['TIMESTAMP_NS', 'TIMESTAMP_NS', 'TIMESTAMP_NS', 'TIMESTAMP_NS', 'TIMESTAMP_NS'],
    );
    assert.deepEqual(body.dataset, [
      [
        '2024-01-02T03:04:05.123456789Z',
        '2024-01-02T03:04:05.500000000Z',
        '2024-01-02T00:00:00.000000000Z',
        null,
        null,
      ],
    ]);
    assert.deepEqual(await rows('select a from tn where k in (5, 6) order by k'), [
      ['2024-01-02T03:04:05.100000000Z'],
      ['2024-01-02T00:00:00.000000000Z'],
    ]);
  });

  test('casts to and from TIMESTAMP, DATE, LONG and text', async () => {
    assert.deepEqual(
      await rows(
        `select a::timestamp t, a::date d, a::long l, a::string s, a::double > 0 p from tn where k in (1, 3, 4) order by k`,
      ),
      [
        [
          '2024-01-02T03:04:05.123456Z',
          '2024-01-02T03:04:05.123Z',
          // eslint-disable-next-line no-loss-of-precision -- the literal as a client sends it, rounded as JavaScript rounds it
          1704164645123456789,
          '2024-01-02T03:04:05.123456789Z',
          true,
        ],
        [null, null, null, null, false],
        // Flooring, not truncation toward zero, before the epoch.
        ['1969-12-31T23:59:59.999999Z', '1969-12-31T23:59:59.999Z', -1, '1969-12-31T23:59:59.999999999Z', false],
      ],
    );
    assert.deepEqual(
      await rows(`select '2024-01-02T03:04:05.123456Z'::timestamp::timestamp_ns a, '2024-01-02T03:04:05.123Z'::date::timestamp_ns b,
      1704164645123456789::timestamp_ns c, cast(1704164645123456789 as timestamp_ns)::long d`),
      [
        [
          '2024-01-02T03:04:05.123456000Z',
          '2024-01-02T03:04:05.123000000Z',
          '2024-01-02T03:04:05.123456789Z',
          // eslint-disable-next-line no-loss-of-precision -- the literal as a client sends it, rounded as JavaScript rounds it
          1704164645123456789,
        ],
      ],
    );
  });

  test('comparisons, IN, BETWEEN and ORDER BY are exact to the nanosecond; NULL sorts first', async () => {
    assert.deepEqual(await rows("select k from tn where a > '2024-01-02T03:04:05.123456788Z'"), [[1]]);
    assert.deepEqual(await rows("select k from tn where a = '2024-01-02T03:04:05.123456788Z'"), [[2]]);
    assert.deepEqual(await rows("select k from tn where a in ('2024-01-02T03:04:05.123456789Z', null) order by k"), [
      [1],
      [3],
    ]);
    assert.deepEqual(
      await rows(
        "select k from tn where a between '2024-01-02T03:04:05.1Z' and '2024-01-02T03:04:05.123456788Z' order by k",
      ),
      [[2], [5]],
    );
    // Against a TIMESTAMP: both in nanoseconds.
    assert.deepEqual(await rows("select k from tn where a >= '2024-01-02T03:04:05.123456Z'::timestamp order by k"), [
      [1],
      [2],
    ]);
    assert.deepEqual(await rows('select k from tn where a is null'), [[3]]);
    assert.deepEqual(await rows('select k from tn order by a'), [[3], [4], [6], [5], [2], [1]]);
    assert.deepEqual(await rows('select k from tn order by a desc limit 2'), [[1], [2]]);
    assert.deepEqual(await rows('select min(a), max(a), first(a), last(a) from tn where k <= 3'), [
      ['2024-01-02T03:04:05.123456788Z', '2024-01-02T03:04:05.123456789Z', '2024-01-02T03:04:05.123456789Z', null],
    ]);
    assert.deepEqual(await rows('select a, count() from tn where k <= 2 group by a order by a'), [
      ['2024-01-02T03:04:05.123456788Z', 1],
      ['2024-01-02T03:04:05.123456789Z', 1],
    ]);
  });

  test('/exp CSV quotes the ISO text and leaves NULL empty', async () => {
    assert.deepEqual((await csv('select k, a from tn where k <= 4 order by k')).split(/\r?\n/), [
      '"k","a"',
      '1,"2024-01-02T03:04:05.123456789Z"',
      '2,"2024-01-02T03:04:05.123456788Z"',
      '3,',
      '4,"1969-12-31T23:59:59.999999999Z"',
      '',
    ]);
  });

  test('Parquet: INT64 with the TIMESTAMP(NANOS) logical type, read back exactly by arrow-rs', async () => {
    const r = await get('/exp', { query: 'select k, a from tn where k <= 4 order by k', fmt: 'parquet' });
    assert.equal(r.status, 200, r.bytes.toString());
    const t = tableFromIPC(
      readParquet(new Uint8Array(r.bytes.buffer, r.bytes.byteOffset, r.bytes.length)).intoIPCStream(),
    );
    const a = t.getChild('a')!;
    assert.equal(String(a.type), 'Timestamp<NANOSECOND, UTC>');
    // The raw int64 values (get() would give milliseconds as a double), NULL by the validity bitmap.
    const raw = a.data[0]!.values as BigInt64Array;
    assert.deepEqual(
      [0, 1, 2, 3].map((i) => (a.isValid(i) ? raw[i] : null)),
      [1704164645123456789n, 1704164645123456788n, null, -1n],
    );
  });

  test('/imp takes TIMESTAMP_NS from a schema', async () => {
    const form = new FormData();
    form.append('schema', JSON.stringify([{ name: 'a', type: 'TIMESTAMP_NS' }]));
    form.append('data', new Blob(['a,k\n2024-01-02T03:04:05.123456789Z,1\n2024-01-02T03:04:05.1Z,2\n,3\n']), 'f.csv');
    const r = await request(`${s.mainUrl}/imp?name=impns&fmt=json`, { method: 'POST', body: form });
    const report = JSON.parse(await r.body.text()) as {
      columns: { name: string; type: string }[];
      rowsImported: number;
    };
    assert.equal(report.rowsImported, 3);
    assert.deepEqual(
      report.columns.map((c) => c.type),
      ['TIMESTAMP_NS', 'INT'],
    );
    assert.deepEqual(await rows('select a from impns order by k'), [
      ['2024-01-02T03:04:05.123456789Z'],
      ['2024-01-02T03:04:05.100000000Z'],
      [null],
    ]);
  });

  test('a TIMESTAMP_NS column cannot be the designated timestamp yet: 400 at the designation', async () => {
    const q = 'create table tnd (a timestamp_ns, k int) timestamp(a) partition by day';
    const r = await exec(q);
    assert.equal(r.status, 400);
    assert.equal(r.body.position, q.indexOf('timestamp(a)') + 'timestamp('.length);
    assert.match(String(r.body.error), /TIMESTAMP_NS/);
  });

  test('values survive a restart exactly', async () => {
    await ok('create table tnr (a timestamp_ns)');
    await ok("insert into tnr values ('2262-04-11T23:47:16.854775807Z'), ('1677-09-21T00:12:43.145224193Z'), (null)");
    const root = s.root;
    await s.stop();
    s = await startServer({ root });
    assert.deepEqual(await rows('select a, a::long::string l from tnr'), [
      ['2262-04-11T23:47:16.854775807Z', '9223372036854775807'],
      ['1677-09-21T00:12:43.145224193Z', '-9223372036854775807'],
      [null, null],
    ]);
  });
});
