// End-to-end: the REST API (execute, validate, exp) of the built server over
// HTTP with undici: parameters and their bad values, every column type's JSON
// and CSV rendering, errors with positions, limits, timeouts, gzip, 405/414.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: () => Record<string, unknown>;
}

async function get(
  base: string,
  path: string,
  params: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<Reply> {
  const qs = new URLSearchParams(params).toString();
  const r = await request(`${base}${path}${qs ? `?${qs}` : ''}`, { headers });
  const buf = Buffer.from(await r.body.arrayBuffer());
  const text = r.headers['content-encoding'] === 'gzip' ? gunzipSync(buf).toString('utf8') : buf.toString('utf8');
  return {
    status: r.statusCode,
    headers: r.headers as Reply['headers'],
    text,
    json: () => JSON.parse(text) as Record<string, unknown>,
  };
}

describe('REST API', () => {
  let s: ServerProcess;
  const exec = (
    query: string,
    params: Record<string, string> = {},
    headers: Record<string, string> = {},
  ): Promise<Reply> => get(s.mainUrl, '/exec', { query, ...params }, headers);
  const ok = async (query: string): Promise<void> => {
    const r = await exec(query);
    assert.equal(r.status, 200, r.text);
  };

  before(async () => {
    s = await startServer();
    await ok(
      'CREATE TABLE t (ts TIMESTAMP, sym SYMBOL, v VARCHAR, s STRING, d DOUBLE, f FLOAT, n LONG, i INT, sh SHORT, bt BYTE, b BOOLEAN, c CHAR, dt DATE) TIMESTAMP(ts) PARTITION BY DAY',
    );
    await ok(`INSERT INTO t VALUES
      ('2024-01-01T00:00:00.123456Z', 'a', 'quote " back \\ tab\t nl\n ctl' || cast(1 as CHAR) || ' é 😀', 'x', 1.0, 1.5, 42, 7, 3, 1, true, 'q', '2024-01-01T10:00:00.123Z'),
      ('2024-01-02T00:00:00.000000Z', null, null, null, null, null, null, null, 0, 0, false, null, null),
      ('2024-01-03T12:30:00.000001Z', 'b', '', 'y', 0.30000000000000004, -0.25, -9007199254740991, -2147483647, -32768, -128, true, 'Z', '1969-12-31T23:59:59.999Z')`);
  });
  after(async () => {
    await s.stop();
  });

  test('execute answers the same on /api/v1/sql/execute, /execute and /exec', async () => {
    const bodies = await Promise.all(
      ['/api/v1/sql/execute', '/execute', '/exec'].map((p) => get(s.mainUrl, p, { query: 'select i, sym from t' })),
    );
    for (const r of bodies) {
      assert.equal(r.status, 200);
      assert.match(String(r.headers['content-type']), /^application\/json/);
      assert.equal(r.text, bodies[0]!.text);
    }
  });

  test('renders every column type, NULLs and escapes in JSON', async () => {
    const r = await exec('select * from t');
    assert.equal(r.status, 200);
    const body = r.json();
    assert.deepEqual(Object.keys(body), ['query', 'columns', 'timestamp', 'dataset', 'count']);
    assert.deepEqual(body.columns, [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'sym', type: 'SYMBOL' },
      { name: 'v', type: 'VARCHAR' },
      { name: 's', type: 'STRING' },
      { name: 'd', type: 'DOUBLE' },
      { name: 'f', type: 'FLOAT' },
      { name: 'n', type: 'LONG' },
      { name: 'i', type: 'INT' },
      { name: 'sh', type: 'SHORT' },
      { name: 'bt', type: 'BYTE' },
      { name: 'b', type: 'BOOLEAN' },
      { name: 'c', type: 'CHAR' },
      { name: 'dt', type: 'DATE' },
    ]);
    assert.equal(body.timestamp, 0);
    assert.deepEqual(body.dataset, [
      [
        '2024-01-01T00:00:00.123456Z',
        'a',
        'quote " back \\ tab\t nl\n ctl\u0001 é 😀',
        'x',
        1,
        1.5,
        42,
        7,
        3,
        1,
        true,
        'q',
        '2024-01-01T10:00:00.123Z',
      ],
      ['2024-01-02T00:00:00.000000Z', null, null, null, null, null, null, null, 0, 0, false, '', null],
      [
        '2024-01-03T12:30:00.000001Z',
        'b',
        '',
        'y',
        0.30000000000000004,
        -0.25,
        -9007199254740991,
        -2147483647,
        -32768,
        -128,
        true,
        'Z',
        '1969-12-31T23:59:59.999Z',
      ],
    ]);
    // The raw text: doubles keep their decimal point, control characters are escaped.
    assert.match(r.text, /,1\.0,1\.5,42,/);
    assert.match(r.text, /ctl\\u0001 é 😀"/);
    assert.match(r.text, /"quote \\" back \\\\ tab\\t nl\\n/);
  });

  test('prints doubles like Java, NaN and infinities as null, LONG quoted with quoteLargeNum', async () => {
    const r = await exec(
      "select 40000.0 a, 2.5e20 b, 1.0e-7 c, 0.1 + 0.2 d, 1 / 0.0 e, cast('NaN' as double) f, 123456789012345678L g",
    );
    assert.equal(r.status, 200, r.text);
    assert.match(
      r.text,
      /"dataset":\[\[40000\.0,2\.5E20,1\.0E-7,0\.30000000000000004,null,null,123456789012345678\]\]/,
    );
    const q = await exec('select 42L x, cast(null as long) y', { quoteLargeNum: 'true' });
    assert.match(q.text, /"dataset":\[\["42",null\]\]/);
  });

  test('DDL, INSERT and UPDATE answer ddl/dml OK; UPDATE counts its rows', async () => {
    assert.deepEqual((await exec('CREATE TABLE u (x INT)')).json(), { ddl: 'OK' });
    assert.deepEqual((await exec('INSERT INTO u VALUES (1), (2), (3)')).json(), { dml: 'OK' });
    assert.deepEqual((await exec('UPDATE u SET x = 0 WHERE x > 1')).json(), { ddl: 'OK', updated: 2 });
    assert.deepEqual((await exec('DROP TABLE u')).json(), { ddl: 'OK' });
  });

  test('answers a bad query with 400 {query, error, position}', async () => {
    for (const [q, message, position] of [
      ['select * from nope', /table does not exist \[table=nope\]/, 14],
      ['select nope from long_sequence(1)', /Invalid column: nope/, 7],
      ['select 1 +', /./, 10],
    ] as const) {
      const r = await exec(q);
      assert.equal(r.status, 400);
      const body = r.json();
      assert.deepEqual(Object.keys(body), ['query', 'error', 'position']);
      assert.equal(body.query, q);
      assert.match(String(body.error), message);
      assert.equal(body.position, position);
    }
  });

  test('reads parameters as QuestDB does: only `true` is true, a limit that is not a number is no limit', async () => {
    const xs = async (params: Record<string, string>): Promise<unknown> =>
      (await exec('select x from long_sequence(5)', params)).json().dataset;
    for (const limit of ['abc', '2.5', ',', '', 'x,3'])
      assert.deepEqual(await xs({ limit }), [[1], [2], [3], [4], [5]], `limit=${limit}`);
    assert.deepEqual(await xs({ limit: '2,abc' }), [[2], [3], [4], [5]]);
    assert.deepEqual(await xs({ limit: '4,' }), [[4], [5]]);
    for (const [name, value] of [
      ['count', 'maybe'],
      ['nm', 'yes'],
      ['nm', '1'],
      ['timings', '1'],
      ['explain', 'on'],
      ['quoteLargeNum', 'nope'],
    ] as const) {
      const body = (await exec('select 1 x', { [name]: value })).json();
      assert.deepEqual(
        Object.keys(body).filter((k) => k !== 'count'),
        ['query', 'columns', 'timestamp', 'dataset'],
        `${name}=${value}`,
      );
    }
    assert.deepEqual(
      Object.keys((await exec('select 1 x', { nm: 'TRUE' })).json()).filter((k) => k !== 'count'),
      ['query', 'timestamp', 'dataset'],
    );
    // A Statement-Timeout that is not a positive number of milliseconds leaves the server's default.
    for (const timeout of ['soon', '-5', '0', '1.5', '']) {
      const r = await exec('select 1 x', {}, { 'statement-timeout': timeout });
      assert.equal(r.status, 200, `Statement-Timeout: ${timeout}`);
    }
  });

  test('answers a missing, empty, blank or comment-only query with "empty query" at position 0', async () => {
    for (const path of ['/exec', '/exec?limit=5', '/api/v1/sql/execute', '/api/v1/sql/validate']) {
      const r = await request(`${s.mainUrl}${path}`);
      assert.equal(r.statusCode, 400, path);
      assert.deepEqual(await r.body.json(), { query: '', error: 'empty query', position: 0 });
    }
    for (const q of ['', '   ', '\n', '-- just a comment', '/* block */']) {
      const r = await exec(q);
      assert.equal(r.status, 400, JSON.stringify(q));
      assert.deepEqual(r.json(), { query: q, error: 'empty query', position: 0 });
    }
    const e = await get(s.mainUrl, '/exp', { query: '' });
    assert.deepEqual(e.json(), { query: '', error: 'No query text', position: 0 });
    assert.equal((await exec('/* block */ select 1 -- trailing')).status, 200);
  });

  test('refuses query text that is not UTF-8, echoing its bytes as QuestDB does', async () => {
    for (const [raw, echo] of [
      ['select%20%27%C3%28%27', "select '\uffc3('"],
      ['select%20%FF', 'select \uffff'],
      ['%E6%97', '\uffe6\uff97'],
    ] as const) {
      const r = await request(`${s.mainUrl}/exec?query=${raw}`);
      assert.equal(r.statusCode, 400, raw);
      assert.deepEqual(await r.body.json(), { query: echo, error: 'Bad UTF8 encoding in query text', position: 0 });
    }
  });

  test('limit N, N,M (from 1) and -N; count gives every matched row; nm drops columns', async () => {
    const xs = async (params: Record<string, string>): Promise<unknown> =>
      (await exec('select x from long_sequence(10)', params)).json().dataset;
    assert.deepEqual(await xs({ limit: '3' }), [[1], [2], [3]]);
    assert.deepEqual(await xs({ limit: '2,5' }), [[2], [3], [4], [5]]);
    assert.deepEqual(await xs({ limit: '-2' }), [[9], [10]]);
    assert.deepEqual(await xs({ limit: '0' }), []);
    const counted = (await exec('select x from long_sequence(100000)', { limit: '5', count: 'true' })).json();
    assert.equal((counted.dataset as unknown[]).length, 5);
    assert.equal(counted.count, 100000);
    const nm = (await exec('select x from long_sequence(2)', { nm: 'true' })).json();
    assert.deepEqual(Object.keys(nm), ['query', 'timestamp', 'dataset', 'count']);
  });

  test('every query answer has count, as QuestDB sends it: rows matched up to the limit, all of them with count=true', async () => {
    // As a REST client reads it: JSON.parse, then body.count on every answer.
    const count = async (query: string, params: Record<string, string> = {}): Promise<unknown> => {
      const r = await exec(query, params);
      assert.equal(r.status, 200, r.text);
      return (JSON.parse(r.text) as { count?: unknown }).count;
    };
    assert.equal(await count('select x from long_sequence(10)'), 10);
    assert.equal(await count('select x from long_sequence(10) where x > 100'), 0);
    assert.equal(await count("select table_name from tables() where table_name = 't'"), 1);
    assert.equal(await count("select table_name from tables() where table_name = 'never'"), 0);
    assert.equal(await count('select * from t'), 3);
    assert.equal(await count('select x from long_sequence(10)', { nm: 'true' }), 10);
    // Without count=true the rows are read only as far as the limit needs (QuestDB's count then).
    assert.equal(await count('select x from long_sequence(10)', { limit: '3' }), 3);
    assert.equal(await count('select x from long_sequence(10)', { limit: '3,5' }), 5);
    assert.equal(await count('select x from long_sequence(4)', { limit: '2,50' }), 4);
    assert.equal(await count('select x from long_sequence(10) limit 6', { limit: '3,5' }), 5);
    assert.equal(await count('select x from long_sequence(100000)', { limit: '3,5', count: 'true' }), 100000);
    assert.equal(await count('select x from long_sequence(10)', { count: 'false' }), 10);
    // DDL and INSERT answers have none.
    assert.deepEqual((await exec('create table cnt (x int)')).json(), { ddl: 'OK' });
    assert.deepEqual((await exec('drop table cnt')).json(), { ddl: 'OK' });
  });

  test('adds timings and explain in SPEC.md order', async () => {
    const body = (
      await exec('select x from long_sequence(3)', { count: 'true', timings: 'true', explain: 'true' })
    ).json();
    assert.deepEqual(Object.keys(body), ['query', 'columns', 'timestamp', 'dataset', 'count', 'timings', 'explain']);
    const t = body.timings as Record<string, number>;
    for (const k of ['compiler', 'execute', 'count']) assert.equal(typeof t[k], 'number');
    assert.ok(t.compiler! > 0);
    assert.deepEqual(body.explain, { jitCompiled: false });
  });

  test("answers POST and other methods with 405, Allow: GET and QuestDB's text/plain line", async () => {
    for (const path of [
      '/exec?query=select%201',
      '/exec',
      '/api/v1/sql/execute',
      '/api/v1/sql/validate?query=select%201',
      '/exp?query=select%201',
    ]) {
      for (const method of ['POST', 'PUT', 'DELETE'] as const) {
        const r = await request(`${s.mainUrl}${path}`, { method });
        assert.equal(r.statusCode, 405);
        assert.equal(r.headers.allow, 'GET');
        assert.match(String(r.headers['content-type']), /^text\/plain/);
        assert.equal(await r.body.text(), `Method ${method} not supported\r\n`);
      }
    }
  });

  test("answers an unknown path with 404 and QuestDB's text/plain line", async () => {
    for (const path of ['/nonexistent', '/exec/extra?query=select%201', '/api/v1/sql']) {
      const r = await request(`${s.mainUrl}${path}`);
      assert.equal(r.statusCode, 404, path);
      assert.match(String(r.headers['content-type']), /^text\/plain/);
      assert.equal(await r.body.text(), 'Not Found\r\n');
    }
  });

  test('takes a 60 KiB URL and answers a longer one with 414 and a JSON error', async () => {
    const list = Array.from({ length: 9000 }, (_, i) => i).join(',');
    const long = `select count() c from long_sequence(10) where x in (${list})`;
    assert.ok(encodeURIComponent(long).length > 40_000 && encodeURIComponent(long).length < 64 * 1024);
    const r = await exec(long);
    assert.equal(r.status, 200, r.text.slice(0, 200));
    assert.deepEqual(r.json().dataset, [[10]]);
    const huge = await exec(`select '${'x'.repeat(70 * 1024)}'`);
    assert.equal(huge.status, 414);
    assert.match(String(huge.json().error), /too long/);
    const enormous = await exec(`select '${'x'.repeat(200 * 1024)}'`);
    assert.equal(enormous.status, 414);
    assert.equal((await exec('select 1')).status, 200, 'the server still answers');
  });

  test('compresses with gzip when the client accepts it', async () => {
    const r = await exec('select x from long_sequence(5000)', {}, { 'accept-encoding': 'gzip' });
    assert.equal(r.headers['content-encoding'], 'gzip');
    assert.equal((r.json().dataset as unknown[]).length, 5000);
    const plain = await exec('select x from long_sequence(5)', {}, { 'accept-encoding': 'gzip;q=0, identity' });
    assert.equal(plain.headers['content-encoding'], undefined);
  });

  test('sends a one-chunk body with Content-Length, a longer one chunked, both gzip-able', async () => {
    const small = await exec('select 1');
    assert.equal(small.headers['content-length'], String(Buffer.byteLength(small.text)));
    assert.deepEqual(small.json().dataset, [[1]]);
    // Under 1 KiB a one-chunk body goes out as it is, whatever the client accepts.
    const tiny = await exec('select 1', {}, { 'accept-encoding': 'gzip' });
    assert.equal(tiny.headers['content-encoding'], undefined);
    // Past 64 KiB: several chunks, streamed.
    for (const enc of ['identity', 'gzip']) {
      const big = await exec('select x from long_sequence(20000)', {}, { 'accept-encoding': enc });
      assert.equal(big.headers['content-length'], undefined);
      assert.equal(big.headers['transfer-encoding'], 'chunked');
      assert.equal(big.headers['content-encoding'], enc === 'gzip' ? 'gzip' : undefined);
      const rows = big.json().dataset as number[][];
      assert.equal(rows.length, 20000);
      assert.deepEqual(rows[19999], [20000]);
    }
  });

  test("stops a statement at its Statement-Timeout with QuestDB's message", async () => {
    const t0 = Date.now();
    const r = await exec('select count() from long_sequence(2000000000)', {}, { 'statement-timeout': '300' });
    assert.equal(r.status, 400);
    assert.match(String(r.json().error), /timeout, query aborted/);
    assert.equal(r.json().position, 0);
    assert.ok(Date.now() - t0 < 10_000);
    // Once rows have gone out, the body still ends as JSON stating the error.
    const late = await exec(
      'select x, rnd_str(20, 20, 0) s from long_sequence(2000000000)',
      {},
      { 'statement-timeout': '400' },
    );
    assert.equal(late.status, 200);
    const body = late.json();
    assert.ok((body.dataset as unknown[]).length > 0);
    assert.match(String(body.error), /timeout, query aborted/);
    assert.equal(typeof body.errorPos, 'number');
  });

  test('validate compiles without running: columns for queries, the kind for other statements', async () => {
    const v = await get(s.mainUrl, '/api/v1/sql/validate', { query: 'select ts, d from t' });
    assert.equal(v.status, 200);
    assert.deepEqual(v.json(), {
      query: 'select ts, d from t',
      columns: [
        { name: 'ts', type: 'TIMESTAMP' },
        { name: 'd', type: 'DOUBLE' },
      ],
      timestamp: 0,
    });
    const ddl = await get(s.mainUrl, '/validate', { query: 'CREATE TABLE never (x INT)' });
    assert.deepEqual(ddl.json(), { queryType: 'CREATE TABLE' });
    for (const [query, queryType] of [
      ['create table never2 as (select 1 x)', 'CREATE TABLE AS SELECT'],
      ["insert into t (ts, d) values ('2024-01-01', 1.5)", 'INSERT'],
      ["insert into t (ts, d) select '2024-01-01', 2.5", 'INSERT AS SELECT'],
      ['update t set d = 0 where d < 0', 'UPDATE'],
      ['drop table t', 'DROP'],
      ['truncate table t', 'TRUNCATE'],
      ['alter table t add column z int', 'ALTER'],
      ['rename table t to t2', 'RENAME TABLE'],
    ] as const) {
      const r = await get(s.mainUrl, '/validate', { query });
      assert.deepEqual(r.json(), { queryType }, query);
    }
    const nm = await get(s.mainUrl, '/api/v1/sql/validate', { query: 'select ts, d from t', nm: 'true' });
    assert.deepEqual(nm.json(), { query: 'select ts, d from t', timestamp: 0 });
    assert.equal(
      (await exec("select count() from tables() where table_name = 'never'")).json().dataset?.toString(),
      '0',
    );
    const bad = await get(s.mainUrl, '/validate', { query: 'select nope from t' });
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.json(), { query: 'select nope from t', error: 'Invalid column: nope', position: 7 });
  });

  describe('/exp', () => {
    test('exports CSV: quoted header, quoted text and timestamps, bare numbers, empty NULLs', async () => {
      const r = await get(s.mainUrl, '/exp', { query: 'select ts, sym, s, d, n, i, b, dt from t' });
      assert.equal(r.status, 200);
      assert.match(String(r.headers['content-type']), /^text\/csv/);
      assert.match(String(r.headers['content-disposition']), /^attachment; filename="questdb-query-\d+\.csv"$/);
      assert.equal(
        r.text,
        [
          '"ts","sym","s","d","n","i","b","dt"',
          '"2024-01-01T00:00:00.123456Z","a","x",1.0,42,7,true,"2024-01-01T10:00:00.123Z"',
          '"2024-01-02T00:00:00.000000Z",,,,,,false,',
          '"2024-01-03T12:30:00.000001Z","b","y",0.30000000000000004,-9007199254740991,-2147483647,true,"1969-12-31T23:59:59.999Z"',
          '',
        ].join('\n'),
      );
      const esc = await get(s.mainUrl, '/exp', { query: 'select v from t limit 1', nm: 'true' });
      // QuestDB's escaping: `"` doubled, `\` doubled, control characters as in JSON.
      assert.equal(esc.text, '"quote "" back \\\\ tab\\t nl\\n ctl\\u0001 é 😀"\n');
    });

    test('limit N, N,M ([N, M) from 0) and -N; filename; nm', async () => {
      const csv = async (params: Record<string, string>): Promise<string> =>
        (await get(s.mainUrl, '/exp', { query: 'select x from long_sequence(10)', nm: 'true', ...params })).text;
      assert.equal(await csv({ limit: '3' }), '1\n2\n3\n');
      assert.equal(await csv({ limit: '2,5' }), '3\n4\n5\n');
      assert.equal(await csv({ limit: '-2' }), '9\n10\n');
      const named = await get(s.mainUrl, '/exp', { query: 'select 1', filename: 'my data' });
      assert.equal(named.headers['content-disposition'], 'attachment; filename="my data.csv"');
    });

    test('limit as QuestDB reads it: N,M is [N, M) from 0, N, to the end, negative bounds 0, a malformed limit ignored', async () => {
      const csv = async (limit: string): Promise<string> =>
        (await get(s.mainUrl, '/exp', { query: 'select x from long_sequence(10)', nm: 'true', limit })).text;
      const all = '1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n';
      assert.equal(await csv('0'), '');
      assert.equal(await csv('50'), all);
      assert.equal(await csv('8,20'), '9\n10\n');
      assert.equal(await csv('5,'), '6\n7\n8\n9\n10\n');
      assert.equal(await csv('5,2'), '');
      assert.equal(await csv('-3,-1'), '');
      assert.equal(await csv('-3,4'), '1\n2\n3\n4\n');
      assert.equal(await csv('2_0'), all);
      assert.equal(await csv('3L'), '1\n2\n3\n');
      assert.equal(await csv('7,abc'), '8\n9\n10\n');
      for (const ignored of ['abc', '', ',', ',3', '2.5', ' 3', 'abc,3', '99999999999999999999']) {
        assert.equal(await csv(ignored), all, `limit=${ignored}`);
      }
    });

    test('delimiter: one character separates the fields, text keeps its quotes; anything else is a comma', async () => {
      const q = "select x, 'a;b' s, cast(';' as char) c, 'q\"' v from long_sequence(2)";
      const semi = await get(s.mainUrl, '/exp', { query: q, delimiter: ';' });
      assert.equal(semi.status, 200);
      assert.equal(semi.text, '"x";"s";"c";"v"\n1;"a;b";";";"q"""\n2;"a;b";";";"q"""\n');
      const tab = await get(s.mainUrl, '/exp', { query: 'select x, 2 y from long_sequence(1)', delimiter: '\t' });
      assert.equal(tab.text, '"x"\t"y"\n1\t2\n');
      const pipe = await get(s.mainUrl, '/exp', {
        query: 'select x, 2 y from long_sequence(1)',
        delimiter: '|',
        nm: 'true',
      });
      assert.equal(pipe.text, '1|2\n');
      for (const ignored of ['ab', '', '"', '\n', 'é']) {
        const r = await get(s.mainUrl, '/exp', {
          query: 'select x, 2 y from long_sequence(1)',
          delimiter: ignored,
          nm: 'true',
        });
        assert.equal(r.text, '1,2\n', JSON.stringify(ignored));
      }
    });

    test('CHAR, IPv4 and UUID are written bare, as QuestDB writes them; a CHAR that would break the line is quoted', async () => {
      await ok('create table bare (c char, ip ipv4, u uuid)');
      await ok(`insert into bare values ('z', '10.1.2.3', '11111111-2222-3333-4444-555555555555'),
        (',', null, null), ('"', '255.255.255.255', null), ('é', null, null), (null, null, null)`);
      const r = await get(s.mainUrl, '/exp', { query: 'select * from bare' });
      assert.equal(
        r.text,
        [
          '"c","ip","u"',
          'z,10.1.2.3,11111111-2222-3333-4444-555555555555',
          '",",,',
          '"""",255.255.255.255,',
          'é,,',
          ',,',
          '',
        ].join('\n'),
      );
      const semi = await get(s.mainUrl, '/exp', { query: 'select c from bare', delimiter: ';', nm: 'true' });
      assert.equal(semi.text, 'z\n,\n""""\né\n\n');
      await ok('drop table bare');
    });

    test('every error answers {query, error, position} as QuestDB: no query, a DDL, bad parameters, a bad query', async () => {
      const err = async (params: Record<string, string>): Promise<Record<string, unknown>> => {
        const r = await get(s.mainUrl, '/exp', params);
        assert.equal(r.status, 400, r.text);
        assert.match(String(r.headers['content-type']), /^application\/json/);
        return r.json();
      };
      assert.deepEqual(await err({}), { query: '', error: 'No query text', position: 0 });
      assert.deepEqual(await err({ query: '' }), { query: '', error: 'No query text', position: 0 });
      assert.deepEqual(await err({ query: 'create table never_made (a int)' }), {
        query: 'create table never_made (a int)',
        error: '/exp endpoint only accepts SELECT',
        position: 0,
      });
      assert.equal(
        (await exec("select count() from tables() where table_name = 'never_made'")).json().dataset?.toString(),
        '0',
      );
      const insert = "insert into t (ts, i) values ('2024-01-05', 1)";
      assert.deepEqual(await err({ query: insert }), {
        query: insert,
        error: '/exp endpoint only accepts SELECT',
        position: 0,
      });
      assert.deepEqual(await err({ query: 'select 1', fmt: 'xml' }), {
        query: 'select 1',
        error: 'unrecognised format [format=xml]',
        position: 0,
      });
      assert.deepEqual(await err({ query: 'select nope from long_sequence(1)' }), {
        query: 'select nope from long_sequence(1)',
        error: 'Invalid column: nope',
        position: 7,
      });
      const q = 'select x from long_sequence(3)';
      for (const [params, error] of [
        [
          { compression_codec: 'NOPE' },
          'invalid compression codec[NOPE], expected one of: uncompressed, snappy, gzip, brotli, zstd, lz4_raw',
        ],
        [{ parquet_version: '3' }, 'invalid parquet version: 3, supported versions: 1, 2'],
        [{ parquet_version: 'two' }, 'invalid parquet version:two'],
        [{ partition_by: 'FORTNIGHT' }, 'partitionBy is temporarily not supported:FORTNIGHT'],
        [{ compression_level: 'high' }, 'invalid compression level:high'],
        [{ compression_codec: 'gzip', compression_level: '10' }, 'GZIP compression level must be between 0 and 9'],
        [{ compression_codec: 'zstd', compression_level: '23' }, 'ZSTD compression level must be between 1 and 22'],
        [{ row_group_size: 'big' }, 'invalid row group size:big'],
        [{ data_page_size: 'x' }, 'invalid data page size:x'],
      ] as const) {
        assert.deepEqual(
          await err({ query: q, fmt: 'parquet', ...params }),
          { query: q, error, position: 0 },
          JSON.stringify(params),
        );
      }
      // Booleans QuestDB reads as "true or not", and a timeout it cannot read, are no errors.
      for (const params of [
        { statistics_enabled: 'maybe' },
        { raw_array_encoding: 'x' },
        { timeout: 'soon' },
        { timeout: '-1' },
      ] as Record<string, string>[]) {
        const r = await get(s.mainUrl, '/exp', { query: q, fmt: 'parquet', ...params });
        assert.equal(r.status, 200, JSON.stringify(params));
      }
      assert.equal((await get(s.mainUrl, '/exp', { query: q, timeout: '0' })).status, 200);
    });

    test('answers a bad fmt, a bad query and a timeout with 400 JSON (fmt=parquet: test/e2e/parquet.test.ts)', async () => {
      assert.equal((await get(s.mainUrl, '/exp', { query: 'select 1', fmt: 'xml' })).status, 400);
      const bad = await get(s.mainUrl, '/exp', { query: 'select * from nope' });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.json(), {
        query: 'select * from nope',
        error: 'table does not exist [table=nope]',
        position: 14,
      });
      const timeout = await get(s.mainUrl, '/exp', {
        query: 'select count() from long_sequence(2000000000)',
        timeout: '0.3',
      });
      assert.equal(timeout.status, 400);
      assert.match(String(timeout.json().error), /timeout/);
    });
  });

  test('a client that goes away mid-stream stops the query; the server keeps serving', async () => {
    const ac = new AbortController();
    const r = await request(
      `${s.mainUrl}/exp?query=${encodeURIComponent('select x, rnd_str(30, 30, 0) from long_sequence(2000000000)')}`,
      { signal: ac.signal },
    );
    let got = 0;
    try {
      for await (const chunk of r.body) {
        got += (chunk as Buffer).length;
        if (got > 1_000_000) ac.abort();
      }
    } catch {
      // aborted on purpose
    }
    assert.ok(got > 1_000_000);
    // The handler ends (its log line says the response was cut) well before the full query could have run.
    const line = await s.waitForLine(/GET \/exp 200 \(cut\)/, 10_000);
    assert.match(line, /rows=\d+/);
    assert.equal((await exec('select 1')).status, 200);
  });
});

describe('REST API under a slow reader', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startServer({ env: { SVC_METRICS_ENABLED: 'true' } });
  });
  after(async () => {
    await s.stop();
  });

  async function rss(): Promise<number> {
    const text = await (await request(`${s.healthUrl}/metrics`)).body.text();
    const m = /^svc_process_resident_memory_bytes (\d+)/m.exec(text);
    assert.ok(m, 'process metrics are on');
    return Number(m[1]);
  }

  test('counts rows, body bytes and errors per endpoint in the metrics', async () => {
    await (
      await request(`${s.mainUrl}/exec?query=${encodeURIComponent('select x from long_sequence(7)')}`)
    ).body.text();
    await (await request(`${s.mainUrl}/exec?query=${encodeURIComponent('select nope')}`)).body.text();
    const text = await (await request(`${s.healthUrl}/metrics`)).body.text();
    assert.match(text, /^svc_http_rows_total\{endpoint="execute"\} ([7-9]|\d\d+)$/m);
    assert.match(text, /^svc_http_response_bytes_total\{endpoint="execute"\} \d+$/m);
    assert.match(text, /^svc_http_errors_total\{endpoint="execute"\} [1-9]\d*$/m);
    assert.match(text, /^svc_http_requests_total\{server="main",endpoint="execute",method="GET",status="400"\} 1$/m);
  });

  test('a client that stops reading holds the query back: server memory stays bounded', async () => {
    // Warm up the code paths so later growth is the response, not the JIT.
    await (
      await request(
        `${s.mainUrl}/exp?query=${encodeURIComponent('select x, rnd_str(30, 30, 0) from long_sequence(200000)')}`,
      )
    ).body.text();
    const before = await rss();
    const ac = new AbortController();
    // Tens of GB of CSV if it were all produced; the client reads nothing for 3 s.
    const r = await request(
      `${s.mainUrl}/exp?query=${encodeURIComponent('select x, rnd_str(30, 30, 0) from long_sequence(2000000000)')}`,
      { signal: ac.signal },
    );
    assert.equal(r.statusCode, 200);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const during = await rss();
    assert.ok(
      during - before < 64 * 1024 * 1024,
      `RSS grew by ${((during - before) / 2 ** 20).toFixed(1)} MiB while the client did not read`,
    );
    // Reading resumes the stream where it stopped.
    let got = 0;
    try {
      for await (const chunk of r.body) {
        got += (chunk as Buffer).length;
        if (got > 5_000_000) ac.abort();
      }
    } catch {
      // aborted on purpose
    }
    assert.ok(got > 5_000_000);
    await s.waitForLine(/GET \/exp 200 \(cut\)/, 10_000);
  });
});

describe('REST API with basic authentication', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startServer({ env: { SVC_HTTP_USER: 'admin', SVC_HTTP_PASSWORD: 'quest' } });
  });
  after(async () => {
    await s.stop();
  });

  test('asks for credentials on execute, validate and exp', async () => {
    for (const path of ['/exec', '/validate', '/exp']) {
      const r = await get(s.mainUrl, path, { query: 'select 1' });
      assert.equal(r.status, 401);
      assert.match(String(r.headers['www-authenticate']), /^Basic/);
      const authed = await get(
        s.mainUrl,
        path,
        { query: 'select 1' },
        { authorization: `Basic ${Buffer.from('admin:quest').toString('base64')}` },
      );
      assert.equal(authed.status, 200);
    }
  });
});
