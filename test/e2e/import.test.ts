// End-to-end: CSV import through POST /imp of the built server (multipart
// uploads as curl sends them), then queries that check what was stored:
// detection, atomicity, appends, names, schema, gzip, round trip through
// /exp, request-level errors, a client that disconnects mid-upload, and the
// svcdb import command.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { FormData, request } from 'undici';
import { CLI, makeRoot, startServer, type ServerProcess } from '../helpers/server-process.js';

const fixture = (name: string): string => fileURLToPath(new URL(`../../../fixtures/import/${name}`, import.meta.url));
const run = promisify(execFile);

interface ImportReply {
  status: number;
  text: string;
  headers: Record<string, string | string[] | undefined>;
  json: () => Record<string, unknown>;
}

describe('CSV import over HTTP', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startServer();
  });
  after(async () => {
    await s.stop();
  });

  async function upload(
    data: Uint8Array | string,
    fileName: string,
    params: Record<string, string> = {},
    schema?: string,
    headers: Record<string, string> = {},
  ): Promise<ImportReply> {
    const form = new FormData();
    if (schema !== undefined) form.append('schema', schema);
    form.append('data', new Blob([typeof data === 'string' ? data : new Uint8Array(data)]), fileName);
    const r = await request(`${s.mainUrl}/imp?${new URLSearchParams(params)}`, { method: 'POST', body: form, headers });
    const text = await r.body.text();
    return { status: r.statusCode, text, headers: r.headers, json: () => JSON.parse(text) as Record<string, unknown> };
  }
  const file = (name: string): Buffer => readFileSync(fixture(name));
  async function query(sql: string): Promise<{ columns: Array<{ name: string; type: string }>; dataset: unknown[][] }> {
    const r = await request(`${s.mainUrl}/exec?query=${encodeURIComponent(sql)}`);
    const body = (await r.body.json()) as {
      columns: Array<{ name: string; type: string }>;
      dataset: unknown[][];
      error?: string;
    };
    assert.equal(r.statusCode, 200, body.error);
    return body;
  }

  test('a non-partitioned table with a designated timestamp rejects rows older than the newest before them', async () => {
    const csv =
      'v,ts\n1,2024-01-02T00:00:00.000000Z\n2,2024-01-01T00:00:00.000000Z\n3,2024-01-03T00:00:00.000000Z\n4,2024-01-03T00:00:00.000000Z\n';
    const first = (await upload(csv, 'np.csv', { name: 'np_ts', timestamp: 'ts', fmt: 'json' })).json();
    assert.equal(first.rowsImported, 3);
    assert.equal(first.rowsRejected, 1);
    assert.deepEqual(
      (first.columns as Array<{ errors: number }>).map((c) => c.errors),
      [0, 1],
      'counted against the timestamp',
    );
    // Into the table again: rows before its newest timestamp are rejected too.
    const again = (await upload(csv, 'np.csv', { name: 'np_ts', timestamp: 'ts', fmt: 'json' })).json();
    assert.equal(again.rowsImported, 2);
    assert.deepEqual((await query('select v from np_ts')).dataset, [[1], [3], [4], [3], [4]]);
    // A partitioned table takes them in any order.
    const part = (
      await upload(csv, 'np.csv', { name: 'p_ts', timestamp: 'ts', partitionBy: 'DAY', fmt: 'json' })
    ).json();
    assert.equal(part.rowsImported, 4);
    // QuestDB's default write mode: a partitioned table is a WAL table, whoever makes it.
    assert.deepEqual(
      (await query("select table_name, walEnabled from tables() where table_name in ('np_ts', 'p_ts') order by 1"))
        .dataset,
      [
        ['np_ts', false],
        ['p_ts', true],
      ],
    );
  });

  test('detects a comma-separated file with a header: types, timestamps in several forms, NULLs, quoting', async () => {
    const r = await upload(file('types-header.csv'), 'types-header.csv', {
      fmt: 'json',
      timestamp: 'ts',
      partitionBy: 'DAY',
    });
    assert.equal(r.status, 200, r.text);
    const body = r.json();
    assert.equal(body.status, 'OK');
    assert.equal(body.location, 'typesheader');
    assert.equal(body.rowsImported, 4);
    assert.equal(body.rowsRejected, 0);
    assert.equal(body.header, true);
    assert.deepEqual(body.columns, [
      { name: 'ts', type: 'TIMESTAMP', size: 8, errors: 0 },
      { name: 'sym', type: 'VARCHAR', size: 0, errors: 0 },
      { name: 'price', type: 'DOUBLE', size: 8, errors: 0 },
      { name: 'qty', type: 'LONG', size: 8, errors: 0 },
      { name: 'ok', type: 'BOOLEAN', size: 1, errors: 0 },
      { name: 'note', type: 'VARCHAR', size: 0, errors: 0 },
    ]);
    const q = await query('select * from typesheader');
    assert.deepEqual(q.dataset, [
      ['2024-01-01T00:00:00.000000Z', 'AAPL', 101.5, 10, true, 'first'],
      ['2024-01-01T00:00:01.000000Z', 'MSFT', 202.25, 5, false, 'second'],
      ['2024-01-02T10:00:00.000000Z', 'AAPL', null, 7, true, null],
      ['2024-01-02T23:00:00.500000Z', 'GOOG', 1000, 3000000000, false, 'quoted, with comma'],
    ]);
    assert.deepEqual(
      (await query("select count() c from typesheader where ts >= '2024-01-01' and ts < '2024-01-02'")).dataset,
      [[2]],
    );
  });

  test('detects TAB, pipe and semicolon delimiters; names columns f0, f1... without a header; one-letter columns are CHAR', async () => {
    const tab = await upload(file('tab-no-header.tsv'), 'tab-no-header.tsv', { fmt: 'json' });
    assert.equal(tab.status, 200, tab.text);
    assert.equal(tab.json().header, false);
    assert.deepEqual(
      (tab.json().columns as Array<{ name: string; type: string }>).map((c) => `${c.name}:${c.type}`),
      ['f0:TIMESTAMP', 'f1:INT', 'f2:CHAR'],
    );
    assert.deepEqual((await query('select f1, f2 from tabnoheader')).dataset, [
      [1, 'x'],
      [2, 'y'],
      [3, 'z'],
    ]);
    assert.equal((await upload(file('pipe.psv'), 'pipe.psv', { fmt: 'json' })).status, 200);
    assert.deepEqual((await query('select * from pipe')).dataset, [
      [1, 2.5, 'p'],
      [2, 3.5, 'q'],
    ]);
    assert.equal((await upload(file('semicolon.csv'), 'semicolon.csv', { fmt: 'json' })).status, 200);
    assert.deepEqual((await query('select * from semicolon')).dataset, [
      [1, 'x'],
      [2, 'y'],
    ]);
  });

  test('reads RFC 4180 quoting with CRLF and a BOM: quoted newlines, doubled quotes, "" as empty text, bare empty as NULL', async () => {
    const r = await upload(file('quoted-crlf-bom.csv'), 'q.csv', { fmt: 'json', name: 'quoted' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((await query('select * from quoted')).dataset, [
      [1, 'line one\r\nline two'],
      [2, 'say "hi"'],
      [3, 'a,b'],
      [4, ''],
      [5, null],
    ]);
  });

  test('ragged lines: a short line gets NULLs, a long line is rejected unless skipLev keeps it', async () => {
    // Ragged lines hide the delimiter from detection (QuestDB's rule): it is given.
    const ragged = await upload(file('ragged.csv'), 'ragged.csv', { fmt: 'json', name: 'ragged_detect' });
    assert.equal(ragged.status, 400);
    assert.match(
      String(ragged.json().status),
      /^min deviation is too high \[delimiterStdDev=0\.63\d*, delimiterMaxStdDev=0\.1222, lineLengthStdDev=[\d.]+, lineLengthMaxStdDev=0\.8, lineCountLimit=1000, lineCount=5\]$/,
    );
    const r = await upload(file('ragged.csv'), 'ragged.csv', { fmt: 'json', delimiter: ',' });
    assert.equal(r.json().rowsImported, 3);
    assert.equal(r.json().rowsRejected, 1);
    assert.deepEqual((await query('select * from ragged')).dataset, [
      [1, 2, 3],
      [4, 5, null],
      [10, 11, 12],
    ]);
    const lev = await upload(file('ragged.csv'), 'ragged.csv', {
      fmt: 'json',
      name: 'ragged_lev',
      skipLev: 'true',
      delimiter: ',',
    });
    assert.equal(lev.json().rowsImported, 4);
    assert.deepEqual((await query('select * from ragged_lev')).dataset, [
      [1, 2, 3],
      [4, 5, null],
      [6, 7, 8],
      [10, 11, 12],
    ]);
  });

  test('atomicity: skipCol stores NULL and counts, skipRow drops the row, abort imports nothing', async () => {
    const schema = JSON.stringify([
      { name: 'n', type: 'INT' },
      { name: 'd', type: 'DOUBLE' },
      { name: 't', type: 'TIMESTAMP' },
    ]);
    // Each column has one bad value besides the header, so the header is given (detection would take the first line as data).
    const col = await upload(
      file('bad-values.csv'),
      'bad.csv',
      { fmt: 'json', name: 'bad_col', forceHeader: 'true' },
      schema,
    );
    assert.equal(col.status, 200, col.text);
    assert.deepEqual(
      (col.json().columns as Array<{ errors: number }>).map((c) => c.errors),
      [1, 1, 1],
    );
    assert.equal(col.json().rowsImported, 4);
    assert.deepEqual((await query('select * from bad_col')).dataset, [
      [1, 1.5, '2024-01-01T00:00:00.000000Z'],
      [null, 2.5, '2024-01-02T00:00:00.000000Z'],
      [3, null, '2024-01-03T00:00:00.000000Z'],
      [4, 4.5, null],
    ]);
    const row = await upload(
      file('bad-values.csv'),
      'bad.csv',
      { fmt: 'json', name: 'bad_row', atomicity: 'skipRow', forceHeader: 'true' },
      schema,
    );
    assert.equal(row.json().rowsImported, 1);
    assert.equal(row.json().rowsRejected, 3);
    assert.deepEqual((await query('select n from bad_row')).dataset, [[1]]);
    const abort = await upload(
      file('bad-values.csv'),
      'bad.csv',
      { fmt: 'json', name: 'bad_abort', atomicity: 'abort', forceHeader: 'true' },
      schema,
    );
    assert.equal(abort.status, 400);
    assert.match(String(abort.json().status), /cannot convert a value to INT \[column=n, line=3, atomicity=abort\]/);
    assert.deepEqual((await query("select count() from tables() where table_name = 'bad_abort'")).dataset, [[0]]);
  });

  test('rows whose designated timestamp is missing or unparseable are rejected, never stored', async () => {
    const r = await upload(
      file('bad-values.csv'),
      'bad.csv',
      { fmt: 'json', name: 'bad_ts', timestamp: 't', forceHeader: 'true' },
      JSON.stringify([{ name: 't', type: 'TIMESTAMP' }]),
    );
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json().rowsRejected, 1);
    // The rejected row counts against the timestamp column, as QuestDB counts it.
    assert.deepEqual(
      (r.json().columns as Array<{ errors: number }>).map((c) => c.errors),
      [0, 0, 1],
    );
    assert.deepEqual((await query('select count() c, min(t) from bad_ts')).dataset, [
      [3, '2024-01-01T00:00:00.000000Z'],
    ]);
  });

  test('dates in dd/MM/yyyy (first choice) and MM/dd/yyyy are DATE columns, as QuestDB detects them', async () => {
    await upload(file('dates-dmy.csv'), 'dates-dmy.csv');
    const dmy = await query('select * from datesdmy');
    assert.deepEqual(
      dmy.columns.map((c) => c.type),
      ['DATE', 'INT'],
    );
    assert.deepEqual(dmy.dataset, [
      ['2023-12-25T00:00:00.000Z', 1],
      ['2024-02-01T00:00:00.000Z', 2],
      ['2024-02-13T00:00:00.000Z', 3],
    ]);
    await upload(file('dates-mdy.csv'), 'dates-mdy.csv');
    assert.deepEqual((await query('select day from datesmdy')).dataset, [
      ['2023-12-25T00:00:00.000Z'],
      ['2024-02-01T00:00:00.000Z'],
    ]);
    // Both readings possible: day first.
    await upload('day,v\n01/02/2024,1\n03/04/2024,2\n', 'dates_both.csv');
    assert.deepEqual((await query('select day from dates_both')).dataset, [
      ['2024-02-01T00:00:00.000Z'],
      ['2024-04-03T00:00:00.000Z'],
    ]);
  });

  test('a column detected as DATE (ISO with milliseconds and Z) is refused as the designated timestamp, as QuestDB refuses it; a schema entry makes it one', async () => {
    const csv = 'ts,v\n2023-01-01T03:12:34.567Z,1\n2023-01-02T00:00:00.001Z,2\n';
    const refused = await upload(csv, 'js.csv', { fmt: 'json', name: 'js_ts', timestamp: 'ts', partitionBy: 'DAY' });
    assert.deepEqual(refused.json(), { status: "not a timestamp 'ts'" });
    assert.equal((await query("select count() from tables() where table_name = 'js_ts'")).dataset[0]![0], 0);
    const r = await upload(
      csv,
      'js.csv',
      { fmt: 'json', name: 'js_ts', timestamp: 'ts', partitionBy: 'DAY' },
      JSON.stringify([{ name: 'ts', type: 'TIMESTAMP', pattern: 'yyyy-MM-ddTHH:mm:ss.SSSz' }]),
    );
    assert.equal(r.status, 200, r.text);
    const q = await query('select * from js_ts');
    assert.deepEqual(q.dataset, [
      ['2023-01-01T03:12:34.567000Z', 1],
      ['2023-01-02T00:00:00.001000Z', 2],
    ]);
  });

  test('a schema part sets types and timestamp patterns; one after the data is not applied and a Warning header says so', async () => {
    const csv = 'when,v,s\n2024/01/15 10:30,7,a\n2024/01/16 11:00,8,b\n';
    const schema = JSON.stringify([
      { name: 'when', type: 'TIMESTAMP', pattern: 'yyyy/MM/dd HH:mm' },
      { name: 'v', type: 'SHORT' },
      { name: 's', type: 'SYMBOL' },
    ]);
    const r = await upload(csv, 'sch.csv', { fmt: 'json', timestamp: 'when' }, schema);
    assert.equal(r.status, 200, r.text);
    const q = await query('select * from sch');
    assert.deepEqual(
      q.columns.map((c) => c.type),
      ['TIMESTAMP', 'SHORT', 'SYMBOL'],
    );
    assert.deepEqual(q.dataset, [
      ['2024-01-15T10:30:00.000000Z', 7, 'a'],
      ['2024-01-16T11:00:00.000000Z', 8, 'b'],
    ]);
    // Data first, schema after: imported as detected, QuestDB's body, a Warning header (QuestDB accepts this order too).
    const form = new FormData();
    form.append('data', new Blob([csv]), 'late.csv');
    form.append('schema', schema);
    const late = await request(`${s.mainUrl}/imp?fmt=json`, { method: 'POST', body: form });
    const lateBody = (await late.body.json()) as Record<string, unknown>;
    assert.equal(late.statusCode, 200);
    assert.deepEqual(Object.keys(lateBody), [
      'status',
      'location',
      'rowsRejected',
      'rowsImported',
      'header',
      'partitionBy',
      'columns',
    ]);
    assert.match(
      String(late.headers.warning),
      /^199 svcdb "the schema part came after the data part, so it was not applied/,
    );
    assert.deepEqual(
      (await query('select * from late')).columns.map((c) => c.type),
      ['VARCHAR', 'INT', 'CHAR'],
    );
    const bad = await upload(csv, 'x.csv', { fmt: 'json' }, '[{"name": "v", "type": "NOPE"}]');
    assert.equal(bad.status, 400);
    assert.match(String(bad.json().status), /unknown type NOPE/);
  });

  test('appends to an existing table converting to its types, out of order rows merged; overwrite replaces; create=false refuses', async () => {
    await query('create table app (ts timestamp, v double, s symbol) timestamp(ts) partition by day');
    await query("insert into app values ('2024-01-05T00:00:00Z', 1.0, 'a')");
    const more = 's,ts,v\nb,2024-01-06T00:00:00Z,2\nc,2024-01-04T00:00:00Z,3\n';
    const r = await upload(more, 'more.csv', { fmt: 'json', name: 'app' });
    assert.equal(r.status, 200, r.text);
    // The answer lists the table's columns in the table's order.
    assert.deepEqual(
      (r.json().columns as Array<{ name: string; type: string }>).map((c) => `${c.name}:${c.type}`),
      ['ts:TIMESTAMP', 'v:DOUBLE', 's:SYMBOL'],
    );
    assert.deepEqual((await query('select * from app')).dataset, [
      ['2024-01-04T00:00:00.000000Z', 3, 'c'],
      ['2024-01-05T00:00:00.000000Z', 1, 'a'],
      ['2024-01-06T00:00:00.000000Z', 2, 'b'],
    ]);
    // A column the table does not have goes to the table column at its position (QuestDB): here the timestamp, which rejects it.
    const wrong = await upload('nope,v\n1,2\n', 'w.csv', { fmt: 'json', name: 'app' });
    assert.equal(wrong.status, 200, wrong.text);
    assert.deepEqual([wrong.json().rowsImported, wrong.json().rowsRejected], [0, 1]);
    const wide = await upload('s,ts,v,w\nb,2024-01-06T00:00:00Z,2,9\n', 'w.csv', {
      fmt: 'json',
      name: 'app',
      delimiter: ',',
    });
    assert.equal(wide.status, 400);
    assert.equal(wide.json().status, 'column count mismatch [textColumnCount=4, tableColumnCount=3, table=app]');
    assert.equal((await query('select * from app')).dataset.length, 3);
    const over = await upload('x,y\n1,2\n3,4\n', 'o.csv', { fmt: 'json', name: 'app', overwrite: 'true' });
    assert.equal(over.status, 200, over.text);
    assert.deepEqual((await query('select * from app')).dataset, [
      [1, 2],
      [3, 4],
    ]);
    const missing = await upload('x\n1\n2\n', 'm.csv', { fmt: 'json', name: 'nothing_here', create: 'false' });
    assert.equal(missing.status, 400);
    assert.equal(missing.json().status, 'table does not exist [table=nothing_here] and create param was set to false.');
    const missingText = await upload('x\n1\n2\n', 'm.csv', { name: 'nothing_here', create: 'false' });
    assert.equal(missingText.status, 200);
    assert.equal(missingText.text, 'table does not exist [table=nothing_here] and create param was set to false.\r\n');
  });

  test('names: the table from the file name or the name parameter, SPEC.md characters removed; columns as QuestDB names them', async () => {
    const r = await upload('a b,c-d,(e),1st,,x.y.z\n1,2,3,4,p,6\n4,5,6,7,q,9\n', 'my data.v2.csv', { fmt: 'json' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json().location, 'mydatav2');
    assert.deepEqual(
      (r.json().columns as Array<{ name: string }>).map((c) => c.name),
      ['aB', 'cD', 'E', '_1st', 'f4', 'xYZ'],
    );
    assert.deepEqual((await query('select * from mydatav2')).dataset, [
      [1, 2, 3, 4, 'p', 6],
      [4, 5, 6, 7, 'q', 9],
    ]);
    // Two header values that make the same name are refused, as QuestDB refuses them.
    const twice = await upload('Price,price\n1,2\n3,4\n', 'twice.csv', { fmt: 'json' });
    assert.equal(twice.status, 400);
    assert.equal(twice.json().status, 'duplicate column name found [no=1,name=price]');
    await upload('a\n1\n2\n', 'x.csv', { name: 'named: one?' });
    assert.deepEqual((await query('select * from namedone')).dataset, [[1], [2]]);
  });

  test('request-level problems answer {"status": message}: bad parameters, empty, header-only, one line, no delimiter', async () => {
    for (const [params, message] of [
      [{ partitionBy: 'WEEKLY' }, /^invalid partitionBy$/],
      [{ partitionBy: 'DAY' }, /^when specifying partitionBy you must also specify timestamp$/],
      [{ timestamp: 'nope' }, /^invalid timestamp column 'nope'$/],
      [{ timestamp: 'a' }, /^not a timestamp 'a'$/],
      [{ maxUncommittedRows: 'many' }, /^invalid maxUncommittedRows, must be an int$/],
      [{ o3MaxLag: 'soon' }, /^invalid o3MaxLag value, must be a long$/],
    ] as const) {
      const r = await upload('a,b\n1,2\n3,4\n', 'p.csv', { fmt: 'json', ...params });
      assert.equal(r.status, 400, JSON.stringify(params));
      assert.match(String(r.json().status), message);
    }
    // What QuestDB tolerates: an unknown atomicity is skipCol, a flag that is not true is false, a delimiter that is not one character is detected.
    for (const params of [
      { atomicity: 'sometimes' },
      { forceHeader: 'maybe' },
      { delimiter: 'ab' },
      { maxUncommittedRows: '-1' },
      { fmt: 'yaml' },
    ] as Array<Record<string, string>>) {
      const r = await upload('a,b\n1,2\n3,4\n', 'tolerated.csv', { ...params, overwrite: 'true' });
      assert.equal(r.status, 200, JSON.stringify(params));
      assert.match(r.text, /\|\s+Rows imported\s+\|\s+2\s+\|/, JSON.stringify(params));
    }
    assert.match(String((await upload(file('empty.csv'), 'empty.csv', { fmt: 'json' })).json().status), /empty file/);
    assert.match(
      String((await upload(file('header-only.csv'), 'header-only.csv', { fmt: 'json' })).json().status),
      /^not enough lines/,
    );
    const one = await upload(file('one-line.txt'), 'one-line.txt', { fmt: 'json' });
    assert.equal(one.status, 400);
    assert.equal(one.json().status, 'not enough lines [table=oneline]');
    // The tabular format answers as QuestDB does: 200 and the message.
    const text = await upload(file('empty.csv'), 'empty.csv');
    assert.equal(text.status, 200);
    assert.match(text.text, /^empty file/);
    assert.equal(text.headers['content-type'], 'text/plain; charset=utf-8');
    // A body that is not multipart: QuestDB's 400 in text, whatever fmt says.
    const raw = await request(`${s.mainUrl}/imp?fmt=json&name=notmultipart`, {
      method: 'POST',
      body: 'a,b\n1,2\n',
      headers: { 'content-type': 'text/csv' },
    });
    assert.equal(raw.statusCode, 400);
    assert.equal(raw.headers['content-type'], 'text/plain; charset=utf-8');
    assert.equal(await raw.body.text(), 'Non-multipart POST not supported\r\n');
    for (const name of ['empty', 'headeronly', 'oneline', 'notmultipart']) {
      assert.deepEqual((await query(`select count() from tables() where table_name = '${name}'`)).dataset, [[0]], name);
    }
  });

  test('binary garbage and a Latin-1 file give a clear result, never a crash; the JSON stays valid', async () => {
    const g = await upload(file('garbage.bin'), 'garbage.bin', { fmt: 'json' });
    assert.ok(g.status === 200 || g.status === 400, g.text);
    if (g.status === 200) assert.ok(Number(g.json().rowsImported) >= 0);
    const l = await upload(file('latin1.csv'), 'latin1.csv', { fmt: 'json' });
    assert.equal(l.status, 200, l.text);
    // All text: no header is detected (QuestDB's rule), so the first line is a row.
    assert.deepEqual((await query('select * from latin1')).dataset, [
      ['name', 'city'],
      ['Jos\ufffd', 'K\ufffdln'],
      ['Anna', 'M\ufffdnchen'],
    ]);
    assert.equal((await query('select 1')).dataset.length, 1);
  });

  test('gzip: a .gz part, a gzip part under another name, and a gzip-encoded request', async () => {
    const csv = 'a,b\n1,x\n2,y\n';
    assert.equal((await upload(gzipSync(csv), 'gz1.csv.gz')).status, 200);
    assert.deepEqual((await query('select * from gz1')).dataset, [
      [1, 'x'],
      [2, 'y'],
    ]);
    assert.equal((await upload(gzipSync(csv), 'gz2.csv')).status, 200);
    assert.deepEqual((await query('select * from gz2')).dataset, [
      [1, 'x'],
      [2, 'y'],
    ]);
    const form = new globalThis.FormData();
    form.append('data', new Blob([csv]), 'gz3.csv');
    const encoded = new Response(form);
    const raw = Buffer.from(await encoded.arrayBuffer());
    const r = await request(`${s.mainUrl}/imp`, {
      method: 'POST',
      body: gzipSync(raw),
      headers: { 'content-type': encoded.headers.get('content-type')!, 'content-encoding': 'gzip' },
    });
    assert.equal(r.statusCode, 200, await r.body.text());
    assert.deepEqual((await query('select * from gz3')).dataset, [
      [1, 'x'],
      [2, 'y'],
    ]);
    assert.equal((await upload(Buffer.from('not gzip at all'), 'fake.csv.gz', { fmt: 'json' })).status, 400);
  });

  test('a file exported by /exp imports back into an identical table', async () => {
    await query(
      'create table src (ts timestamp, s symbol, v varchar, d double, n long, i int, b boolean) timestamp(ts) partition by day',
    );
    await query(`insert into src values ('2024-01-01T00:00:00.123456Z', 'a', 'x, "y"', 1.5, 9007199254740993, 7, true),
      ('2024-01-02T00:00:00.000000Z', null, null, null, null, null, false), ('2024-01-03T12:00:00.000001Z', 'b', '', -0.25, -5, -7, true)`);
    const exp = await request(`${s.mainUrl}/exp?query=${encodeURIComponent('select * from src')}`);
    const csv = await exp.body.text();
    const schema = JSON.stringify([
      { name: 's', type: 'SYMBOL' },
      { name: 'i', type: 'INT' },
    ]);
    const r = await upload(csv, 'src2.csv', { fmt: 'json', timestamp: 'ts', partitionBy: 'DAY' }, schema);
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((await query('select * from src2')).dataset, (await query('select * from src')).dataset);
    const again = await request(`${s.mainUrl}/exp?query=${encodeURIComponent('select * from src2')}`);
    assert.equal(await again.body.text(), csv);
  });

  test('a client that disconnects mid-upload leaves nothing visible; the table name stays usable', async () => {
    const boundary = 'xBOUNDARYx';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="data"; filename="cut.csv"\r\nContent-Type: text/csv\r\n\r\n`;
    const rows = Array.from(
      { length: 200_000 },
      (_, i) => `2024-01-01T00:00:${String(i % 60).padStart(2, '0')}Z,${i}`,
    ).join('\n');
    const url = new URL(s.mainUrl);
    await new Promise<void>((resolve, reject) => {
      const sock = connect(Number(url.port), url.hostname, () => {
        sock.write(
          `POST /imp?name=cut HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: 100000000\r\n\r\n`,
        );
        sock.write(head + 'ts,n\n' + rows, () =>
          setTimeout(() => {
            sock.destroy();
            resolve();
          }, 200),
        );
      });
      sock.on('error', reject);
    });
    await s.waitForLine(/POST \/imp \d+ \(cut\)|client disconnected/, 10_000);
    assert.deepEqual((await query("select count() from tables() where table_name = 'cut'")).dataset, [[0]]);
    const again = await upload('a\n1\n2\n', 'cut.csv', { fmt: 'json' });
    assert.equal(again.status, 200, again.text);
    assert.deepEqual((await query('select * from cut')).dataset, [[1], [2]]);
  });

  test('header and types as QuestDB detects them: the first line is data unless leaving it out makes a column non-text', async () => {
    const cases: Array<[string, boolean, string[], number]> = [
      ['qty,price\n10,1.5\n20,2.5\n', true, ['qty:INT', 'price:DOUBLE'], 2],
      ['apple,red\nbanana,yellow\ncherry,red\n', false, ['f0:VARCHAR', 'f1:VARCHAR'], 3],
      ['ccy,desc\nEUR,Euro currency\nUSD,United States dollar\n', false, ['f0:VARCHAR', 'f1:VARCHAR'], 3],
      ['a,a,,b\n1,2,3,4\n5,6,7,8\n', false, ['f0:VARCHAR', 'f1:VARCHAR', 'f2:INT', 'f3:VARCHAR'], 3],
      ['a,b\n1,2\n', false, ['f0:CHAR', 'f1:CHAR'], 2],
      ['a,b\nx,1.5\n', false, ['f0:CHAR', 'f1:VARCHAR'], 2],
      ['v\n1\n2\n3\n', true, ['v:INT'], 3],
      ['id;name;v\n1;x;1.5\n2;y;2.5\n', true, ['id:INT', 'name:CHAR', 'v:DOUBLE'], 2],
      [
        'u,ip\n11111111-2222-3333-4444-555555555555,10.0.0.1\naaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee,192.168.1.1\n',
        true,
        ['u:UUID', 'ip:IPv4'],
        2,
      ],
      [
        'd,e,f\n2024-01-01,01/02/2024,2024/01/03\n2024-12-31,31/12/2024,2024/12/31\n',
        true,
        ['d:DATE', 'e:DATE', 'f:VARCHAR'],
        2,
      ],
    ];
    for (const [i, [csv, header, columns, rows]] of cases.entries()) {
      const r = await upload(csv, 'h.csv', { fmt: 'json', name: `hdr${i}` });
      assert.equal(r.status, 200, r.text);
      const body = r.json();
      assert.equal(body.header, header, csv);
      assert.deepEqual(
        (body.columns as Array<{ name: string; type: string }>).map((c) => `${c.name}:${c.type}`),
        columns,
        csv,
      );
      assert.equal(body.rowsImported, rows, csv);
      assert.equal((await query(`select count() from hdr${i}`)).dataset[0]![0], rows, csv);
    }
    assert.deepEqual(
      (await query('select * from hdr5')).dataset,
      [
        ['a', 'b'],
        ['x', '1.5'],
      ],
      'nothing is cut to one character',
    );
    // A schema entry naming no column of the file is ignored (here the file has no header, so its columns are f0, f1).
    const ignored = await upload(
      'a,b\n1,x\nzz,y\n3,z\n',
      'h.csv',
      { fmt: 'json', name: 'hdr_schema' },
      JSON.stringify([{ name: 'a', type: 'INT' }]),
    );
    assert.equal(ignored.status, 200, ignored.text);
    assert.deepEqual(
      (ignored.json().columns as Array<{ name: string; type: string }>).map((c) => `${c.name}:${c.type}`),
      ['f0:VARCHAR', 'f1:CHAR'],
    );
  });

  test("a Python REST client's calls: /chk?f=json&j=...&version=2, then /imp with the data part first and the schema part after it", async () => {
    const chk = async (qs: string): Promise<{ status: number; type: string | undefined; text: string }> => {
      const r = await request(`${s.mainUrl}/chk?${qs}`);
      return { status: r.statusCode, type: r.headers['content-type'] as string | undefined, text: await r.body.text() };
    };
    assert.deepEqual(await chk('f=json&j=py_trades&version=2'), {
      status: 200,
      type: 'application/json; charset=utf-8',
      text: '{"status":"Does not exist"}',
    });
    assert.deepEqual(await chk('j=py_trades'), {
      status: 200,
      type: 'text/plain; charset=utf-8',
      text: 'Does not exist\r\n',
    });
    assert.deepEqual(await chk('f=json'), {
      status: 200,
      type: 'text/plain; charset=utf-8',
      text: 'table name missing\r\n',
    });
    assert.deepEqual(await chk('j=no%2Fsuch%20name&f=json'), {
      status: 200,
      type: 'application/json; charset=utf-8',
      text: '{"status":"Does not exist"}',
    });
    // requests' files={"data": (name, f, "application/octet-stream"), "schema": ("schema.json", ..., "application/json")}: data first.
    const form = new FormData();
    form.append(
      'data',
      new Blob(['ts,val\n2024-01-01T00:00:00.000000Z,10.5\n2024-01-01T00:00:01.000000Z,11.2\n'], {
        type: 'application/octet-stream',
      }),
      'dummy.csv',
    );
    form.append(
      'schema',
      new Blob([JSON.stringify([{ name: 'val', type: 'FLOAT' }])], { type: 'application/json' }),
      'schema.json',
    );
    const imp = await request(`${s.mainUrl}/imp?name=py_trades&fmt=json&overwrite=false`, {
      method: 'POST',
      body: form,
    });
    const body = (await imp.body.json()) as Record<string, unknown>;
    assert.equal(imp.statusCode, 200);
    assert.deepEqual(body, {
      status: 'OK',
      location: 'py_trades',
      rowsRejected: 0,
      rowsImported: 2,
      header: true,
      partitionBy: 'NONE',
      columns: [
        { name: 'ts', type: 'TIMESTAMP', size: 8, errors: 0 },
        { name: 'val', type: 'DOUBLE', size: 8, errors: 0 },
      ],
    });
    assert.match(String(imp.headers.warning), /schema part came after the data part, so it was not applied/);
    assert.deepEqual((await query('select * from py_trades')).dataset, [
      ['2024-01-01T00:00:00.000000Z', 10.5],
      ['2024-01-01T00:00:01.000000Z', 11.2],
    ]);
    assert.deepEqual(await chk('f=json&j=py_trades&version=2'), {
      status: 200,
      type: 'application/json; charset=utf-8',
      text: '{"status":"Exists"}',
    });
    assert.deepEqual(await chk('j=PY_TRADES'), { status: 200, type: 'text/plain; charset=utf-8', text: 'Exists\r\n' });
  });

  test('the tabular answer is laid out as QuestDB prints it: fixed widths, right-aligned, CRLF, long values cut from the left', async () => {
    const r = await upload(
      'ts,v\n2024-01-01T00:00:00.000000Z,1\n2024-01-02T00:00:00.000000Z,x\n',
      'tab.csv',
      { timestamp: 'ts', partitionBy: 'DAY' },
      JSON.stringify([{ name: 'v', type: 'INT' }]),
    );
    assert.equal(r.status, 200);
    const rule = `+${'-'.repeat(113)}+`;
    assert.equal(
      r.text,
      [
        rule,
        '|      Location:  |                                               tab  |        Pattern  | Locale  |      Errors  |',
        '|   Partition by  |                                               DAY  |                 |         |              |',
        '|      Timestamp  |                                                ts  |                 |         |              |',
        rule,
        '|   Rows handled  |                                                 2  |                 |         |              |',
        '|  Rows imported  |                                                 2  |                 |         |              |',
        rule,
        '|              0  |                                                ts  |                TIMESTAMP  |           0  |',
        '|              1  |                                                 v  |                      INT  |           1  |',
        rule,
        '',
      ].join('\r\n'),
    );
    // No timestamp: NONE; a name longer than its 50 characters keeps its end after "...".
    const long = `c${'x'.repeat(55)}end`;
    const t = await upload(`${long},n\na,1\nb,2\n`, 'plain.csv');
    const lines = t.text.split('\r\n');
    assert.equal(
      lines[3],
      '|      Timestamp  |                                              NONE  |                 |         |              |',
    );
    assert.equal(lines[8], `|              0  |...${long.slice(-47)}  |                     CHAR  |           0  |`);
    assert.equal(
      lines[9],
      '|              1  |                                                 n  |                      INT  |           0  |',
    );
    // Appending with another timestamp or partitioning than the table's: the table's, "From Table" under Errors (and QuestDB's warnings in JSON).
    await query('create table tabapp (ts timestamp, v int) timestamp(ts) partition by month');
    const app = await upload('ts,v\n2024-01-01T00:00:00.000000Z,1\n2024-01-02T00:00:00.000000Z,2\n', 'x.csv', {
      name: 'tabapp',
      timestamp: 'v',
      partitionBy: 'DAY',
    });
    const appLines = app.text.split('\r\n');
    assert.equal(
      appLines[2],
      '|   Partition by  |                                             MONTH  |                 |         |  From Table  |',
    );
    assert.equal(
      appLines[3],
      '|      Timestamp  |                                                ts  |                 |         |  From Table  |',
    );
    const appJson = await upload('ts,v\n2024-01-03T00:00:00.000000Z,3\n2024-01-04T00:00:00.000000Z,4\n', 'x.csv', {
      name: 'tabapp',
      timestamp: 'v',
      partitionBy: 'DAY',
      fmt: 'json',
    });
    assert.deepEqual(appJson.json(), {
      status: 'OK',
      location: 'tabapp',
      rowsRejected: 0,
      rowsImported: 2,
      header: true,
      partitionBy: 'MONTH',
      timestamp: 'ts',
      warnings: ['Existing table timestamp column is used', 'Existing table PartitionBy is used'],
      columns: [
        { name: 'ts', type: 'TIMESTAMP', size: 8, errors: 0 },
        { name: 'v', type: 'INT', size: 4, errors: 0 },
      ],
    });
  });
});

describe('CSV import of a large streamed upload', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startServer({ env: { SVC_METRICS_ENABLED: 'true' } });
  });
  after(async () => {
    await s.stop();
  });

  async function rss(): Promise<number> {
    const text = await (await request(`${s.healthUrl}/metrics`)).body.text();
    return Number(/^svc_process_resident_memory_bytes (\d+)/m.exec(text)![1]);
  }

  test('imports ~300 MB streamed from the client in bounded server memory, with 1 MiB fields', async () => {
    const boundary = 'bOuNdArY42';
    const rows = 4_000_000;
    const big = 'x'.repeat(1 << 20);
    async function* body(): AsyncGenerator<Buffer> {
      yield Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="data"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\nts,n,s,d\n`,
      );
      const t0 = Date.UTC(2024, 0, 1) * 1000;
      const lines: string[] = [];
      for (let i = 0; i < rows; i++) {
        const us = t0 + i * 1000;
        const s2 = i === 10 ? `"${big}"` : i % 3 === 0 ? 'alpha' : 'beta';
        lines.push(
          `${new Date(Math.floor(us / 1000)).toISOString().slice(0, 19)}.${String(us % 1_000_000).padStart(6, '0')}Z,${i},${s2},${(i % 1000) / 8}`,
        );
        if (lines.length === 20_000) {
          yield Buffer.from(lines.join('\n') + '\n');
          lines.length = 0;
        }
      }
      if (lines.length > 0) yield Buffer.from(lines.join('\n') + '\n');
      yield Buffer.from(`\r\n--${boundary}--\r\n`);
    }
    const before = await rss();
    let peak = before;
    const sampler = setInterval(() => {
      rss().then(
        (v) => {
          peak = Math.max(peak, v);
        },
        () => undefined,
      );
    }, 100);
    try {
      const r = await request(`${s.mainUrl}/imp?name=big&timestamp=ts&partitionBy=DAY&fmt=json`, {
        method: 'POST',
        body: Readable.from(body()),
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
        bodyTimeout: 120_000,
        headersTimeout: 120_000,
      });
      const text = await r.body.text();
      assert.equal(r.statusCode, 200, text);
      assert.equal(JSON.parse(text).rowsImported, rows);
    } finally {
      clearInterval(sampler);
    }
    // Buffering the upload would grow it by more than the upload (~300 MB); the importer holds one batch.
    assert.ok(
      peak - before < 256 * 1024 * 1024,
      `server RSS grew by ${((peak - before) / 2 ** 20).toFixed(0)} MiB during a ~300 MB upload`,
    );
    const q = (await (
      await request(
        `${s.mainUrl}/exec?query=${encodeURIComponent('select count() c, sum(n) s, max(length(s)) m from big')}`,
      )
    ).body.json()) as { dataset: unknown[][] };
    assert.deepEqual(q.dataset, [[rows, ((rows - 1) * rows) / 2, 1 << 20]]);
  });
});

describe('svcdb import', () => {
  async function cli(args: string[], input?: string): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const p = run(process.execPath, [CLI, 'import', ...args], { timeout: 30_000 });
      if (input !== undefined) {
        p.child.stdin!.end(input);
      }
      const r = await p;
      return { code: 0, stdout: r.stdout, stderr: r.stderr };
    } catch (e) {
      const x = e as { code: number; stdout: string; stderr: string };
      return { code: x.code, stdout: x.stdout, stderr: x.stderr };
    }
  }

  test('imports a file, standard input and a .gz file into a root; a server then sees the tables', async () => {
    const root = makeRoot();
    const r = await cli([
      fixture('types-header.csv'),
      '-d',
      root,
      '--table',
      'trades',
      '--timestamp',
      'ts',
      '--partition-by',
      'DAY',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /\| {2}Rows imported {2}\|\s+4 {2}\|/);
    assert.match(r.stdout, /\| {6}Location: {2}\|\s+trades {2}\|/);
    const j = await cli(['-', '-d', root, '--table', 'piped', '--format', 'json'], 'a,b\n1,2\n3,4\n');
    assert.equal(j.code, 0, j.stderr);
    assert.equal(JSON.parse(j.stdout).rowsImported, 2);
    const gz = join(root, 'x.csv.gz');
    writeFileSync(gz, gzipSync('a,b\n5,6\n7,8\n'));
    const g = await cli([gz, '-d', root, '--format', 'json']);
    assert.equal(g.code, 0, g.stderr);
    assert.equal(JSON.parse(g.stdout).location, 'x', 'the table the file went to');
    const s = await startServer({ root });
    try {
      const q = async (sql: string): Promise<unknown> =>
        (
          (await (await request(`${s.mainUrl}/exec?query=${encodeURIComponent(sql)}`)).body.json()) as {
            dataset: unknown;
          }
        ).dataset;
      assert.deepEqual(await q('select count() from trades'), [[4]]);
      assert.deepEqual(await q('select * from piped'), [
        [1, 2],
        [3, 4],
      ]);
      assert.deepEqual(await q('select * from x'), [
        [5, 6],
        [7, 8],
      ]);
      // While the server holds the root, the command refuses and says how to import through it.
      const busy = await cli([fixture('pipe.psv'), '-d', root]);
      assert.equal(busy.code, 1);
      assert.match(busy.stderr, /in use by process \d+: stop the server, or import through it: curl -F data=@/);
    } finally {
      await s.stop();
    }
  });

  test('reports usage errors and import errors with exit code 1', async () => {
    const root = makeRoot();
    assert.match((await cli([])).stderr, /import needs a file/);
    assert.match((await cli(['x.csv', '--atomicity', 'never', '-d', root])).stderr, /--atomicity must be/);
    assert.match((await cli(['/no/such/file.csv', '-d', root])).stderr, /file not found: \/no\/such\/file\.csv/);
    const e = await cli([fixture('empty.csv'), '-d', root]);
    assert.equal(e.code, 1);
    assert.match(e.stderr, /empty file/);
  });

  test("keeps to server.conf's import limits: a file past one exits 1 naming it and imports nothing", async () => {
    const root = makeRoot();
    mkdirSync(join(root, 'conf'), { recursive: true });
    writeFileSync(join(root, 'conf', 'server.conf'), 'import.max.columns=3\n');
    const wide = await cli(['-', '-d', root, '--table', 'wide'], 'a,b,c,d\n1,2,3,4\n');
    assert.equal(wide.code, 1);
    assert.match(
      wide.stderr,
      /the file has 4 columns, more than the limit of 3 \[limit=import\.max\.columns, table=wide\]/,
    );
    const ok = await cli(['-', '-d', root, '--table', 'narrow', '--format', 'json'], 'a,b,c\n1,2,3\n');
    assert.equal(ok.code, 0, ok.stderr);
  });
});
