// End-to-end: QuestDB's value types as a client meets them over HTTP: CHAR
// constants ('a'), IPv4 spelled as QuestDB spells it, LONG256 literals and
// values, and how /exec (JSON), /exp (CSV) and /imp show them; ASOF/SPLICE
// JOIN carrying every type's values exactly.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { FormData, request } from 'undici';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

interface Reply {
  status: number;
  text: string;
  json: () => Record<string, unknown>;
}

describe('value types over HTTP', () => {
  let s: ServerProcess;
  const get = async (path: string, query: string): Promise<Reply> => {
    const r = await request(`${s.mainUrl}${path}?${new URLSearchParams({ query })}`);
    const text = await r.body.text();
    return { status: r.statusCode, text, json: () => JSON.parse(text) as Record<string, unknown> };
  };
  const exec = (query: string): Promise<Reply> => get('/exec', query);
  const ok = async (query: string): Promise<Record<string, unknown>> => {
    const r = await exec(query);
    assert.equal(r.status, 200, `${query}: ${r.text}`);
    return r.json();
  };
  const types = (body: Record<string, unknown>): string[] => (body.columns as { type: string }[]).map((c) => c.type);

  before(async () => {
    s = await startServer();
    await ok('create table vt (i int, c char, v varchar, s string, y symbol, ip ipv4, u uuid, l long256)');
    await ok(`insert into vt values
      (1, 'a', 'a', 'a', 'a', '10.0.0.1', '11111111-2222-3333-4444-555555555555', 0x0102),
      (2, '"', 'bc', 'bc', 'bc', '192.168.1.1', null, '0x01'),
      (3, ',', null, null, null, null, null, null),
      (4, null, 'q', 'q', 'q', null, null, null)`);
  });
  after(async () => {
    await s.stop();
  });

  test('a one-character literal is a CHAR, longer or empty ones STRING', async () => {
    const body = await ok("select 'a' a, ' ' b, '' c, 'abc' d, '''' e, '→' f");
    assert.deepEqual(types(body), ['CHAR', 'CHAR', 'STRING', 'STRING', 'STRING', 'CHAR']);
    assert.deepEqual(body.dataset, [['a', ' ', '', 'abc', "'", '→']]);
    const v = await get('/api/v1/sql/validate', "select x, 'a' s from long_sequence(3)");
    assert.equal(v.status, 200);
    assert.deepEqual(types(v.json()), ['LONG', 'CHAR']);
  });

  test('CHAR constants work wherever a one-character string did', async () => {
    const body = await ok(
      "select concat('a', 'b') p, 'x' || 'y' q, upper('a') r, length('a') t, lpad('7', 3, '0') w from long_sequence(1)",
    );
    assert.deepEqual(types(body), ['STRING', 'STRING', 'STRING', 'INT', 'STRING']);
    assert.deepEqual(body.dataset, [['ab', 'xy', 'A', 1, '007']]);
    // Comparisons with every text column type, IN lists, LIKE.
    const f = await ok(
      "select i from vt where v = 'a' and s = 'a' and y = 'a' and c = 'a' and v in ('a', 'zz') and s like 'a'",
    );
    assert.deepEqual(f.dataset, [[1]]);
    const g = await ok("select i from vt where c in ('\"', ',') order by i");
    assert.deepEqual(g.dataset, [[2], [3]]);
    // CASE branches: CHAR with STRING is STRING; CHAR with NULL stays CHAR (NULL shown as "").
    const c = await ok(
      "select case when i = 1 then 'a' else 'abc' end m, case when i = 1 then 'x' end n from vt order by i",
    );
    assert.deepEqual(types(c), ['STRING', 'CHAR']);
    assert.deepEqual(c.dataset, [
      ['a', 'x'],
      ['abc', ''],
      ['abc', ''],
      ['abc', ''],
    ]);
  });

  test('numbers from CHAR and STRING constants follow the implicit casts, with QuestDB errors', async () => {
    assert.deepEqual((await ok("select 1 + '5' a, abs('-2.5') b")).dataset, [[6, 2.5]]);
    for (const [query, error] of [
      ["select 1 + 'a'", 'inconvertible value: a [CHAR -> INT]'],
      ["select abs('text')", 'inconvertible value: `text` [STRING -> DOUBLE]'],
      ["select * from long_sequence('a')", 'inconvertible value: a [CHAR -> LONG]'],
    ]) {
      const r = await exec(query!);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json().error, error);
      assert.equal(r.json().position, 0);
    }
    const r = await exec("select dateadd('d', 1)");
    assert.equal(r.status, 400);
    assert.equal(r.json().error, 'there is no matching function `dateadd` with the argument types: (CHAR, INT)');
    assert.equal(r.json().position, 7);
  });

  test('/exec names IPv4 as QuestDB does and shows CHAR and LONG256 NULLs as empty strings', async () => {
    const body = await ok('select c, ip, u, l from vt order by i');
    assert.deepEqual(types(body), ['CHAR', 'IPv4', 'UUID', 'LONG256']);
    assert.deepEqual(body.dataset, [
      ['a', '10.0.0.1', '11111111-2222-3333-4444-555555555555', '0x0102'],
      ['"', '192.168.1.1', null, '0x01'],
      [',', null, null, ''],
      ['', null, null, ''],
    ]);
    const cols = await ok('select "column", type from table_columns(\'vt\') where "column" = \'ip\'');
    assert.deepEqual(cols.dataset, [['ip', 'IPv4']]);
    const nulls = await ok('select cast(null as char) a, cast(null as ipv4) b, cast(null as long256) d');
    assert.deepEqual(types(nulls), ['CHAR', 'IPv4', 'LONG256']);
    assert.deepEqual(nulls.dataset, [['', null, '']]);
    const t = await ok("select table_type from tables() where table_name = 'vt'");
    assert.deepEqual(types(t), ['CHAR']);
    assert.deepEqual(t.dataset, [['T']]);
  });

  test('IPv4 values come from text in INSERT, comparisons and casts; a bad IPv4 constant is an error at it', async () => {
    assert.deepEqual((await ok("select i from vt where ip = '192.168.1.1'")).dataset, [[2]]);
    assert.deepEqual((await ok("select cast('1.2.3.4' as ipv4) a")).dataset, [['1.2.3.4']]);
    for (const q of ["select cast('1.2.3' as ipv4)", "select cast('300.1.1.1' as ipv4)"]) {
      const r = await exec(q);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json().error, 'invalid IPv4 constant');
      assert.equal(r.json().position, 12);
    }
  });

  test('LONG256 literals are 0x and whole hex bytes, rendered as QuestDB renders them', async () => {
    const body = await ok("select 0x01 a, 0x0abc b, cast('0x00ff' as long256) c from long_sequence(1)");
    assert.deepEqual(types(body), ['LONG256', 'LONG256', 'LONG256']);
    assert.deepEqual(body.dataset, [['0x01', '0x0abc', '0xff']]);
    assert.deepEqual((await ok('select i from vt where l = 0x01')).dataset, [[2]]);
    const r = await exec('select 0x1');
    assert.equal(r.status, 400);
    assert.match(String(r.json().error), /invalid constant/);
  });

  test("ASOF and SPLICE JOIN give the matched row's values exactly (LONG beyond 2^53, nanoseconds, bytes, text, arrays), NULL without a match", async () => {
    await ok(
      'create table aj_r (ts timestamp, k symbol, l long, n timestamp_ns, u uuid, v varchar, d decimal(20,2), g geohash(4c), a double[]) timestamp(ts)',
    );
    await ok('create table aj_l (ts timestamp, k symbol) timestamp(ts)');
    await ok(`insert into aj_r values
      ('2024-01-01T00:00:01', 'a', 9007199254740993, '2024-01-01T00:00:00.123456789Z', '11111111-2222-3333-4444-555555555555', 'héllo', 12345678901234.56, #u33d, ARRAY[1.5, 2.0]),
      ('2024-01-01T00:00:03', 'b', -9007199254740995, null, null, null, null, null, null)`);
    await ok(
      "insert into aj_l values ('2024-01-01T00:00:00', 'a'), ('2024-01-01T00:00:02', 'a'), ('2024-01-01T00:00:02', 'b'), ('2024-01-01T00:00:04', 'b')",
    );
    const none = [null, null, null, null, null, null, null, null];
    const a = [
      'a',
      9007199254740993n,
      '2024-01-01T00:00:00.123456789Z',
      '11111111-2222-3333-4444-555555555555',
      'héllo',
      '12345678901234.56',
      'u33d',
      [1.5, 2],
    ];
    const b = ['b', -9007199254740995n, null, null, null, null, null, null];
    // LONGs compared as their JSON digits: a double would round them to the nearest even.
    const asof = await exec('select l.ts, r.k, l, n, u, v, d, g, a from aj_l l asof join aj_r r on (k)');
    assert.equal(asof.status, 200, asof.text);
    const exact = (text: string): unknown[][] =>
      (JSON.parse(text.replace(/(-?\d{16,})(?=[,\]])/g, '"$1"')) as { dataset: unknown[][] }).dataset.map((r) =>
        r.map((x) => (typeof x === 'string' && /^-?\d{16,}$/.test(x) ? BigInt(x) : x)),
      );
    assert.deepEqual(exact(asof.text), [
      ['2024-01-01T00:00:00.000000Z', ...none],
      ['2024-01-01T00:00:02.000000Z', ...a],
      ['2024-01-01T00:00:02.000000Z', ...none],
      ['2024-01-01T00:00:04.000000Z', ...b],
    ]);
    const splice = await exec('select l.ts, r.ts, r.l from aj_l l splice join aj_r r on (k)');
    assert.equal(splice.status, 200, splice.text);
    assert.deepEqual(exact(splice.text), [
      ['2024-01-01T00:00:00.000000Z', null, null],
      ['2024-01-01T00:00:00.000000Z', '2024-01-01T00:00:01.000000Z', 9007199254740993n],
      ['2024-01-01T00:00:02.000000Z', '2024-01-01T00:00:01.000000Z', 9007199254740993n],
      ['2024-01-01T00:00:02.000000Z', null, null],
      ['2024-01-01T00:00:02.000000Z', '2024-01-01T00:00:03.000000Z', -9007199254740995n],
      ['2024-01-01T00:00:04.000000Z', '2024-01-01T00:00:03.000000Z', -9007199254740995n],
    ]);
  });

  test('/exp writes CHAR, IPv4, UUID and LONG256 bare, quoting only a CHAR that needs it', async () => {
    const r = await get('/exp', 'select i, c, ip, u, l from vt order by i');
    assert.equal(r.status, 200);
    // (Line ends are the export's business: compared line by line.)
    assert.deepEqual(r.text.split(/\r?\n/), [
      '"i","c","ip","u","l"',
      '1,a,10.0.0.1,11111111-2222-3333-4444-555555555555,0x0102',
      '2,"""",192.168.1.1,,0x01',
      '3,",",,,',
      '4,,,,',
      '',
    ]);
    const lit = await get('/exp', "select x, 'a' s from long_sequence(2)");
    assert.deepEqual(lit.text.split(/\r?\n/), ['"x","s"', '1,a', '2,a', '']);
  });

  test('LONG128 from to_long128 is stored, shown by /exec and /exp as a UUID is, NULL as null / empty', async () => {
    await ok('create table vt128 as (select x, to_long128(-x, x) v from long_sequence(2))');
    await ok('insert into vt128 values (3, to_long128(null, null))');
    const body = await ok('select x, v from vt128 order by x');
    assert.deepEqual(types(body), ['LONG', 'LONG128']);
    assert.deepEqual(body.dataset, [
      [1, '00000000-0000-0001-ffff-ffffffffffff'],
      [2, '00000000-0000-0002-ffff-fffffffffffe'],
      [3, null],
    ]);
    const r = await get('/exp', 'select x, v from vt128 order by x');
    assert.deepEqual(r.text.split(/\r?\n/), [
      '"x","v"',
      '1,00000000-0000-0001-ffff-ffffffffffff',
      '2,00000000-0000-0002-ffff-fffffffffffe',
      '3,',
      '',
    ]);
  });

  test('INTERVAL is shown by /exec as QuestDB shows it (type INTERVAL, quoted text, NULL null), by /exp quoted', async () => {
    const q =
      "select x, case when x = 1 then interval('2024-10-08T11:09:47.573Z', '2024-10-09T11:09:47.573Z') end i from long_sequence(2) order by x desc";
    const body = await ok(q);
    assert.deepEqual(body.columns, [
      { name: 'x', type: 'LONG' },
      { name: 'i', type: 'INTERVAL' },
    ]);
    assert.deepEqual(body.dataset, [
      [2, null],
      [1, "('2024-10-08T11:09:47.573Z', '2024-10-09T11:09:47.573Z')"],
    ]);
    const r = await get('/exp', q);
    assert.deepEqual(r.text.split(/\r?\n/), [
      '"x","i"',
      '2,',
      `1,"('2024-10-08T11:09:47.573Z', '2024-10-09T11:09:47.573Z')"`,
      '',
    ]);
    // No table column takes it; Parquet has no form for it: a 400 naming the column.
    const bad = await exec('create table vtiv (i interval)');
    assert.equal(bad.status, 400);
    assert.deepEqual([bad.json().error, bad.json().position], ['non-persisted type: INTERVAL', 21]);
    const pq = await request(`${s.mainUrl}/exp?${new URLSearchParams({ query: q, fmt: 'parquet' })}`);
    const pqText = await pq.body.text();
    assert.equal(pq.statusCode, 400, pqText);
    assert.match(pqText, /INTERVAL cannot be exported to Parquet/);
  });

  test('/imp detects IPv4 and UUID columns and names IPv4 as QuestDB does', async () => {
    const form = new FormData();
    form.append(
      'data',
      new Blob([
        'ip,n,u\n10.0.0.1,1,11111111-2222-3333-4444-555555555555\n192.168.1.1,2,aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee\n',
      ]),
      'ips.csv',
    );
    const r = await request(`${s.mainUrl}/imp?name=vt_imp&fmt=json`, { method: 'POST', body: form });
    const body = (await r.body.json()) as { columns: { name: string; type: string }[] };
    assert.equal(r.statusCode, 200);
    assert.deepEqual(
      body.columns.map((c) => c.type),
      ['IPv4', 'INT', 'UUID'],
    );
    assert.deepEqual((await ok("select type from table_columns('vt_imp')")).dataset, [['IPv4'], ['INT'], ['UUID']]);
    assert.deepEqual((await ok("select ip, u from vt_imp where ip = '192.168.1.1'")).dataset, [
      ['192.168.1.1', 'aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee'],
    ]);
  });
});
