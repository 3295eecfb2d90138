// End-to-end: GEOHASH and DECIMAL columns as a QuestDB user meets them over
// HTTP: DDL with their parameters (and QuestDB's errors for bad ones),
// literals, casts, comparisons, ORDER BY, NULLs, /exec JSON, /exp CSV, Parquet
// read back by arrow-rs (parquet-wasm), /imp schemas and a restart.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FormData, request } from 'undici';
import { tableFromIPC } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { makeRoot, startServer, type ServerProcess } from '../helpers/server-process.js';

interface Reply {
  status: number;
  text: string;
  json: () => Record<string, unknown>;
}

describe('GEOHASH and DECIMAL over HTTP', () => {
  let s: ServerProcess;
  const get = async (path: string, params: Record<string, string>): Promise<Reply> => {
    const r = await request(`${s.mainUrl}${path}?${new URLSearchParams(params)}`);
    const text = await r.body.text();
    return { status: r.statusCode, text, json: () => JSON.parse(text) as Record<string, unknown> };
  };
  const exec = (query: string): Promise<Reply> => get('/exec', { query });
  const ok = async (query: string): Promise<Record<string, unknown>> => {
    const r = await exec(query);
    assert.equal(r.status, 200, `${query}: ${r.text}`);
    return r.json();
  };
  const rows = async (query: string): Promise<unknown[][]> => (await ok(query)).dataset as unknown[][];
  const types = (body: Record<string, unknown>): string[] => (body.columns as { type: string }[]).map((c) => c.type);
  /** Offset of the parameters of the first `word(` in `query`, where QuestDB points for bad type parameters. */
  const params = (query: string, word: string): number => query.indexOf('(', query.indexOf(word)) + 1;
  const fails = async (query: string, error: string | RegExp, position: number): Promise<void> => {
    const r = await exec(query);
    assert.equal(r.status, 400, `${query}: ${r.text}`);
    const body = r.json();
    if (typeof error === 'string') assert.equal(body.error, error);
    else assert.match(String(body.error), error);
    assert.equal(body.position, position, `${query}: ${r.text}`);
  };

  before(async () => {
    s = await startServer({ root: makeRoot() }); // a root of our own: kept for the restart
    await ok(
      'create table gd (k int, g geohash(4c), b geohash(7b), d decimal(10, 2), w decimal(38, 10), ts timestamp) timestamp(ts) partition by day',
    );
    await ok(`insert into gd values
      (1, #u33d, ##0101010, 12.34m, cast('-12345678901234567890.0123456789' as decimal(38, 10)), '2024-01-02T00:00:00Z'),
      (2, null, null, null, null, '2024-01-03T00:00:00Z'),
      (3, 'zzzz', ##1111111, -0.5m, 0, '2024-01-01T00:00:00Z'),
      (4, #u33d8, ##0000000, 99999999.99m, 1, '2024-01-02T12:00:00Z')`);
  });
  after(async () => {
    await s.stop();
  });

  test('types print in their canonical spelling; decimal alone is DECIMAL(18,3)', async () => {
    await ok('create table canon (a geohash(20b), b geohash(13b), c decimal(5), d decimal, e decimal(76, 76))');
    const body = await ok('select * from canon');
    assert.deepEqual(types(body), ['GEOHASH(4c)', 'GEOHASH(13b)', 'DECIMAL(5,0)', 'DECIMAL(18,3)', 'DECIMAL(76,76)']);
    const cols = await rows('select "column", type from table_columns(\'canon\')');
    assert.deepEqual(
      cols.map((r) => r[1]),
      ['GEOHASH(4c)', 'GEOHASH(13b)', 'DECIMAL(5,0)', 'DECIMAL(18,3)', 'DECIMAL(76,76)'],
    );
  });

  test("bad type parameters are 400s at the parameters, with QuestDB's messages", async () => {
    const cases: [string, string | RegExp, string][] = [
      [
        'create table bad (g geohash(1))',
        "invalid GEOHASH size, must be number followed by 'C' or 'B' character",
        'geohash',
      ],
      [
        'create table bad (g geohash(3x))',
        "invalid GEOHASH size units, must be 'c', 'C' for chars, or 'b', 'B' for bits",
        'geohash',
      ],
      [
        'create table bad (g geohash(13c))',
        'invalid GEOHASH type precision range, must be [1, 60] bits, provided=65',
        'geohash',
      ],
      [
        "select cast('u' as geohash(0b))",
        'invalid GEOHASH type precision range, must be [1, 60] bits, provided=0',
        'geohash',
      ],
      ['create table bad (d decimal(77, 2))', /precision must be between 1 and 76/, 'decimal'],
      ['create table bad (d decimal(5, 6))', /scale/, 'decimal'],
      ['alter table gd add column x decimal(0)', /precision must be between 1 and 76/, 'decimal'],
    ];
    for (const [q, error, word] of cases) await fails(q, error, params(q, word));
    assert.equal((await exec("select * from tables() where table_name = 'bad'")).json().count, 0);
  });

  test('values, NULLs and literals in /exec JSON: both print as strings', async () => {
    const body = await ok('select k, g, b, d, w from gd order by k');
    assert.deepEqual(types(body), ['INT', 'GEOHASH(4c)', 'GEOHASH(7b)', 'DECIMAL(10,2)', 'DECIMAL(38,10)']);
    assert.deepEqual(body.dataset, [
      [1, 'u33d', '0101010', '12.34', '-12345678901234567890.0123456789'],
      [2, null, null, null, null],
      [3, 'zzzz', '1111111', '-0.50', '0.0000000000'],
      [4, 'u33d', '0000000', '99999999.99', '1.0000000000'],
    ]);
    const lit = await ok(
      'select #u33d a, #u33d/18 b, ##0101 c, 1.25m d, -0.001m e, 100m f, cast(null as decimal(4, 1)) n',
    );
    assert.deepEqual(types(lit), [
      'GEOHASH(4c)',
      'GEOHASH(18b)',
      'GEOHASH(4b)',
      'DECIMAL(3,2)',
      'DECIMAL(3,3)',
      'DECIMAL(3,0)',
      'DECIMAL(4,1)',
    ]);
    assert.deepEqual(lit.dataset, [['u33d', '110100001100011011', '0101', '1.25', '-0.001', '100', null]]);
  });

  test('casts: text, numbers, other precisions; too wide a value is an error', async () => {
    const body =
      await ok(`select cast('1.5' as decimal(5, 1)) a, cast('2.345' as decimal(5, 2)) b, cast(7 as decimal(4, 2)) c,
      cast(1.125 as decimal(6, 2)) d, cast(12.34m as decimal(6, 3)) e, cast(-2.75m as int) f, cast(2.5m as double) g,
      cast(12.34m as string) h, cast('questdb' as geohash(6c)) i, cast(#u33d8 as geohash(4c)) j, cast(#u33d as string) k,
      cast(cast(null as string) as decimal(5, 1)) l, cast('' as geohash(4c)) m, cast('sp052w92bcde2569' as geohash(1c)) n`);
    assert.deepEqual(body.dataset, [
      ['1.5', '2.35', '7.00', '1.13', '12.340', -2, 2.5, '12.34', 'questd', 'u33d', 'u33d', null, null, 's'],
    ]);
    // Text that is no number, or a value too wide for the precision: QuestDB's error, at the value.
    await fails("select cast('abc' as decimal(5, 2))", 'inconvertible value: `abc` [STRING -> DECIMAL(5,2)]', 12);
    await fails("select cast('1' as decimal(2, 2))", 'inconvertible value: `1` [STRING -> DECIMAL(2,2)]', 12);
    await fails(
      'select cast(123.45m as decimal(4, 2))',
      'inconvertible value: 123.45 [DECIMAL(5,2) -> DECIMAL(4,2)]',
      12,
    );
    await fails(
      "with data as (select '100' as value) select cast(value as decimal(4, 2)) from data",
      'inconvertible value: `100` [STRING -> DECIMAL(4,2)]',
      49,
    );
    // A geohash constant that is not base32, or too short for the bits; a column's value the same at run time.
    await fails("select cast('a' as geohash(1c))", 'invalid GEOHASH', 12);
    await fails("insert into gd (k, g, ts) values (9, 'u33', '2024-01-01')", 'invalid GEOHASH', 37);
    await fails(
      "with d as (select 'u3' v) select cast(v as geohash(4c)) from d",
      'inconvertible value: `u3` [STRING -> GEOHASH(4c)]',
      38,
    );
    await fails(
      'select cast(#u33 as geohash(4c))',
      'CAST cannot decrease precision from GEOHASH(15b) to GEOHASH(20b)',
      20,
    );
  });

  test('comparisons, BETWEEN, IN, IS NULL, GROUP BY and ORDER BY by value', async () => {
    assert.deepEqual(await rows('select k from gd where g = #u33d order by k'), [[1], [4]]);
    assert.deepEqual(await rows("select k from gd where g = 'zzzz'"), [[3]]);
    assert.deepEqual(await rows('select k from gd where g != #u33d order by k'), [[2], [3]]);
    assert.deepEqual(await rows('select k from gd where g is null'), [[2]]);
    assert.deepEqual(await rows('select k from gd where d is not null and w is not null order by k'), [[1], [3], [4]]);
    assert.deepEqual(await rows('select k from gd where d > 12 order by k'), [[1], [4]]);
    assert.deepEqual(await rows('select k from gd where d <= 12.34m order by k'), [[1], [3]]);
    assert.deepEqual(await rows('select k from gd where d = 12.340m'), [[1]]);
    assert.deepEqual(await rows('select k from gd where d < 0.0'), [[3]]);
    assert.deepEqual(await rows('select k from gd where d between -1 and 13 order by k'), [[1], [3]]);
    assert.deepEqual(await rows('select k from gd where d in (12.34m, 99999999.99m) order by k'), [[1], [4]]);
    assert.deepEqual(await rows('select k from gd where w > -1 order by k'), [[3], [4]]);
    assert.deepEqual(await rows('select k, d from gd order by d'), [
      [2, null],
      [3, '-0.50'],
      [1, '12.34'],
      [4, '99999999.99'],
    ]);
    assert.deepEqual(await rows('select k from gd order by w desc'), [[4], [3], [1], [2]]);
    assert.deepEqual(await rows('select k from gd order by b'), [[2], [4], [1], [3]]);
    assert.deepEqual(await rows('select g, count() from gd group by g order by g'), [
      [null, 1],
      ['u33d', 2],
      ['zzzz', 1],
    ]);
    await fails('select k from gd where g > #u33d', /no matching operator `>`/, 25);
  });

  test('/exp CSV: quoted text; a NULL GEOHASH is a bare null, a NULL DECIMAL empty', async () => {
    const r = await get('/exp', { query: 'select k, g, d from gd order by k' });
    assert.equal(r.status, 200);
    assert.deepEqual(r.text.split(/\r?\n/), [
      '"k","g","d"',
      '1,"u33d","12.34"',
      '2,null,',
      '3,"zzzz","-0.50"',
      '4,"u33d","99999999.99"',
      '',
    ]);
  });

  test('Parquet: DECIMAL as the DECIMAL logical type, GEOHASH as its text, read back by arrow-rs', async () => {
    await ok(
      'create table pq (g geohash(7b), d1 decimal(2, 1), d2 decimal(4, 3), d decimal(10, 2), w decimal(38, 10), x decimal(76, 2))',
    );
    await ok(`insert into pq values (##0101010, 9.9m, -9.999m, 12.34m, cast('-12345678901234567890.0123456789' as decimal(38, 10)),
      cast('123456789012345678901234567890123456789012345678901234567890123456789012.34' as decimal(76, 2))),
      (null, null, null, null, null, null), (##1111111, -9.9m, 0, -0.5m, 0, -1)`);
    for (const version of ['1', '2']) {
      const r = await request(
        `${s.mainUrl}/exp?${new URLSearchParams({ query: 'select * from pq', fmt: 'parquet', parquet_version: version })}`,
      );
      assert.equal(r.statusCode, 200);
      const file = new Uint8Array(await r.body.arrayBuffer());
      const t = tableFromIPC(readParquet(file).intoIPCStream());
      assert.deepEqual(
        t.schema.fields.map((f) => String(f.type)),
        ['Utf8', 'Decimal[2e+1]', 'Decimal[4e+3]', 'Decimal[10e+2]', 'Decimal[38e+10]', 'Decimal[76e+2]'],
      );
      // The unscaled values from Arrow's little-endian 32-bit words (two's complement, bitWidth bits a value).
      const unscaled = (name: string): (string | null)[] => {
        const col = t.getChild(name)!;
        const data = col.data[0]!;
        const words = data.values as Uint32Array;
        const per = (col.type as { bitWidth: number }).bitWidth / 32;
        return Array.from({ length: t.numRows }, (_, i) => {
          if (!col.isValid(i)) return null;
          let x = 0n;
          for (let k = per - 1; k >= 0; k--) x = (x << 32n) | BigInt(words[i * per + k]!);
          return String(BigInt.asIntN(per * 32, x));
        });
      };
      assert.deepEqual(
        Array.from({ length: 3 }, (_, i) => t.getChild('g')!.get(i)),
        ['0101010', null, '1111111'],
      );
      assert.deepEqual(unscaled('d1'), ['99', null, '-99']);
      assert.deepEqual(unscaled('d2'), ['-9999', null, '0']);
      assert.deepEqual(unscaled('d'), ['1234', null, '-50']);
      assert.deepEqual(unscaled('w'), ['-123456789012345678900123456789', null, '0']);
      assert.deepEqual(unscaled('x'), [
        '12345678901234567890123456789012345678901234567890123456789012345678901234',
        null,
        '-100',
      ]);
    }
  });

  test('/imp: a schema naming GEOHASH and DECIMAL types; bad values count as errors', async () => {
    const form = new FormData();
    form.append(
      'schema',
      JSON.stringify([
        { name: 'g', type: 'GEOHASH(4c)' },
        { name: 'd', type: 'decimal(10, 2)' },
      ]),
    );
    form.append('data', new Blob(['k,g,d\n1,u33d,1.5\n2,,\n3,zz,2.345\n4,u33dzz,abc\n']), 'f.csv');
    const r = await request(`${s.mainUrl}/imp?name=impgd&fmt=json`, { method: 'POST', body: form });
    const report = JSON.parse(await r.body.text()) as { columns: { name: string; type: string; errors: number }[] };
    assert.equal(r.statusCode, 200);
    assert.deepEqual(
      report.columns.map((c) => [c.name, c.type, c.errors]),
      [
        ['k', 'INT', 0],
        ['g', 'GEOHASH(4c)', 1],
        ['d', 'DECIMAL(10,2)', 1],
      ],
    );
    assert.deepEqual(await rows('select * from impgd'), [
      [1, 'u33d', '1.50'],
      [2, null, null],
      [3, null, '2.35'],
      [4, 'u33d', null],
    ]);
    const bad = new FormData();
    bad.append('schema', JSON.stringify([{ name: 'g', type: 'geohash(1)' }]));
    bad.append('data', new Blob(['g\nu33d\n']), 'f.csv');
    const b = await request(`${s.mainUrl}/imp?name=impbad&fmt=json`, { method: 'POST', body: bad });
    assert.match(await b.body.text(), /invalid GEOHASH size/);
  });

  test('nullif, CASE and coalesce give NULL for one-byte GEOHASH and DECIMAL as for wider ones', async () => {
    for (const [t, v] of [
      ['decimal(2,0)', '7'],
      ['decimal(10,0)', '7'],
      ['geohash(1c)', "'s'"],
      ['geohash(4c)', "'u33d'"],
      ['geohash(3b)', '##101'],
    ]) {
      const x = `cast(${v} as ${t})`;
      const got = await rows(
        `select k, nullif(${x}, ${x}), case when k = 1 then ${x} end, coalesce(case when k = 1 then ${x} end, nullif(${x}, ${x})) from gd order by k`,
      );
      const shown = got[0]![2];
      assert.notEqual(shown, null, t);
      assert.deepEqual(
        got,
        [
          [1, null, shown, shown],
          [2, null, null, null],
          [3, null, null, null],
          [4, null, null, null],
        ],
        t,
      );
    }
  });

  test('out-of-order inserts across partitions and a restart keep every value', async () => {
    await ok(`insert into gd values (5, #s000, ##1000000, 0.01m, -1, '2023-12-31T00:00:00Z'),
      (6, #u33e, null, -99999999.99m, null, '2024-01-02T06:00:00Z')`);
    const before = await rows('select * from gd');
    assert.deepEqual(
      before.map((r) => r[0]),
      [5, 3, 1, 6, 4, 2],
    );
    const root = s.root;
    await s.stop();
    s = await startServer({ root });
    assert.deepEqual(await rows('select * from gd'), before);
    assert.deepEqual(types(await ok('select g, b, d, w from gd')), [
      'GEOHASH(4c)',
      'GEOHASH(7b)',
      'DECIMAL(10,2)',
      'DECIMAL(38,10)',
    ]);
  });
});
