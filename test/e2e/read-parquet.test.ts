// read_parquet over HTTP: the built server on ephemeral ports, a table exported
// with /exp?fmt=parquet into its copy root (<root>/import by default) and a
// file DuckDB writes there, read back through /exec and compared with the
// table's own answer (columns, types, values); QuestDB's error bodies with the
// argument's position; cairo.sql.copy.root set through the environment.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { request } from 'undici';
import { makeRoot, startServer, type ServerProcess } from '../helpers/server-process.js';

interface ExecAnswer {
  columns: { name: string; type: string }[];
  dataset: unknown[][];
  timestamp?: number;
}

describe('read_parquet over /exec', () => {
  let s: ServerProcess;
  let importDir: string;

  const get = async (path: string, params: Record<string, string>): Promise<{ status: number; body: Buffer }> => {
    const r = await request(`${s.mainUrl}${path}?${new URLSearchParams(params)}`);
    return { status: r.statusCode, body: Buffer.from(await r.body.arrayBuffer()) };
  };
  const exec = async (query: string): Promise<ExecAnswer> => {
    const r = await get('/exec', { query, quoteLargeNum: 'true' });
    assert.equal(r.status, 200, r.body.toString());
    return JSON.parse(r.body.toString()) as ExecAnswer;
  };
  const execError = async (query: string): Promise<{ status: number; error: string; position: number }> => {
    const r = await get('/exec', { query });
    return { status: r.status, ...(JSON.parse(r.body.toString()) as { error: string; position: number }) };
  };
  /** /exp's Parquet file of `query`, written into the copy root as `name`. */
  const exportTo = async (query: string, name: string, params: Record<string, string> = {}): Promise<void> => {
    const r = await get('/exp', { query, fmt: 'parquet', ...params });
    assert.equal(r.status, 200, r.body.toString());
    writeFileSync(join(importDir, name), r.body);
  };

  before(async () => {
    s = await startServer();
    importDir = join(s.root, 'import');
    mkdirSync(importDir);
    await exec(
      'CREATE TABLE t (ts TIMESTAMP, sym SYMBOL, v VARCHAR, s STRING, d DOUBLE, f FLOAT, n LONG, i INT, sh SHORT, bt BYTE, b BOOLEAN, c CHAR, dt DATE, u UUID, ip IPV4, g GEOHASH(5c), a DOUBLE[]) TIMESTAMP(ts) PARTITION BY DAY',
    );
    await exec(`INSERT INTO t VALUES
      ('2024-01-01T00:00:00.123456Z', 'a', 'quote " é 😀', 'x', 1.0, 1.5, 9223372036854775807, 7, 3, 1, true, 'q', '2024-01-01T10:00:00.123Z', '11111111-2222-3333-4444-555555555555', '1.2.3.4', #u33d8, ARRAY[1.0, 2.5]),
      ('2024-01-03T12:30:00.000001Z', 'b', '', 'y', -0.0, -0.25, -9223372036854775807, -2147483647, -32768, -128, false, 'é', '1969-12-31T23:59:59.999Z', 'a0000000-0000-0000-0000-00000000000f', '255.255.255.255', #zzzzz, ARRAY[]::DOUBLE[])`);
    await exec(`INSERT INTO t (ts, sh, bt, b) VALUES ('2024-01-02T00:00:00.000000Z', 0, 0, false)`);
    await exec(`CREATE TABLE trades AS (SELECT timestamp_sequence('2024-07-01', 1000000L) timestamp,
      rnd_symbol('BTC-USD', 'ETH-USD') symbol, rnd_symbol('buy', 'sell') side, rnd_double() * 60000 price,
      rnd_double() amount FROM long_sequence(10000)) TIMESTAMP(timestamp) PARTITION BY HOUR`);
  });
  after(async () => {
    await s.stop();
  });

  test("an exported table reads back with QuestDB's types: SYMBOL and STRING as VARCHAR, the rest as they were", async () => {
    await exportTo('SELECT * FROM t', 't.parquet', { compression_codec: 'ZSTD' });
    const want = await exec('SELECT * FROM t');
    const got = await exec("SELECT * FROM read_parquet('t.parquet')");
    assert.deepEqual(
      got.columns,
      want.columns.map((c) => (c.type === 'SYMBOL' || c.type === 'STRING' ? { ...c, type: 'VARCHAR' } : c)),
    );
    assert.deepEqual(got.dataset, want.dataset);
    assert.equal(got.timestamp, -1);
  });

  test("QuestDB's example: a filter with LIMIT, and TIMESTAMP(col) after ORDER BY for time-series queries", async () => {
    await exportTo('SELECT * FROM trades', 'trades.parquet', { row_group_size: '1500' });
    assert.deepEqual(
      (await exec("SELECT * FROM read_parquet('trades.parquet') WHERE side = 'buy' LIMIT 1")).dataset,
      (await exec("SELECT * FROM trades WHERE side = 'buy' LIMIT 1")).dataset,
    );
    const sampled = await exec(
      "SELECT timestamp, symbol, count(), round(avg(price), 6) FROM ((SELECT * FROM read_parquet('trades.parquet') ORDER BY timestamp) TIMESTAMP(timestamp)) SAMPLE BY 1h ORDER BY timestamp, symbol",
    );
    assert.deepEqual(
      sampled.dataset,
      (
        await exec(
          'SELECT timestamp, symbol, count(), round(avg(price), 6) FROM trades SAMPLE BY 1h ORDER BY timestamp, symbol',
        )
      ).dataset,
    );
    const designated = await exec(
      "(SELECT * FROM read_parquet('trades.parquet') ORDER BY timestamp) TIMESTAMP(timestamp)",
    );
    assert.equal(designated.timestamp, 0);
  });

  test('a file DuckDB writes', async () => {
    const { DuckDBInstance } = createRequire(import.meta.url)('@duckdb/node-api') as {
      DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<{ run(sql: string): Promise<unknown> }> }> };
    };
    const duck = await (await DuckDBInstance.create(':memory:')).connect();
    await duck.run(`COPY (SELECT i AS id, 'n' || i AS name, TIMESTAMP '2024-01-01' + INTERVAL (i) MINUTE AS ts
      FROM range(3) t(i)) TO '${join(importDir, 'duck.parquet')}' (FORMAT parquet)`);
    const got = await exec("SELECT * FROM read_parquet('duck.parquet') ORDER BY id DESC");
    assert.deepEqual(got.columns, [
      { name: 'id', type: 'LONG' },
      { name: 'name', type: 'VARCHAR' },
      { name: 'ts', type: 'TIMESTAMP' },
    ]);
    assert.deepEqual(got.dataset, [
      ['2', 'n2', '2024-01-01T00:02:00.000000Z'],
      ['1', 'n1', '2024-01-01T00:01:00.000000Z'],
      ['0', 'n0', '2024-01-01T00:00:00.000000Z'],
    ]);
  });

  test('errors answer 400 with the position of the path', async () => {
    let e = await execError("SELECT * FROM read_parquet('missing.parquet')");
    assert.equal(e.status, 400);
    assert.equal(e.position, 27);
    assert.match(e.error, /^error reading parquet file \[2\]: could not open read-only \[file=.*missing\.parquet\]$/);
    e = await execError("SELECT * FROM read_parquet('../db/x.parquet')");
    assert.deepEqual(e, {
      status: 400,
      query: "SELECT * FROM read_parquet('../db/x.parquet')",
      error: 'failed to read parquet file: ../db/x.parquet: [27] relative path is not allowed',
      position: 27,
    });
    writeFileSync(join(importDir, 'notes.txt'), 'not parquet at all');
    e = await execError("SELECT * FROM parquet_scan('notes.txt')");
    assert.equal(e.status, 400);
    assert.equal(e.position, 27);
    assert.match(e.error, /^failed to read parquet file: notes\.txt: /);
  });
});

test('cairo.sql.copy.root set through the environment, and empty to turn read_parquet off', async () => {
  const files = makeRoot();
  const s = await startServer({ env: { SVC_CAIRO_SQL_COPY_ROOT: files } });
  try {
    const exp = await request(
      `${s.mainUrl}/exp?${new URLSearchParams({ query: 'SELECT x FROM long_sequence(4)', fmt: 'parquet' })}`,
    );
    writeFileSync(join(files, 'four.parquet'), Buffer.from(await exp.body.arrayBuffer()));
    const r = await request(
      `${s.mainUrl}/exec?${new URLSearchParams({ query: `SELECT sum(x) FROM read_parquet('${join(files, 'four.parquet')}')` })}`,
    );
    assert.deepEqual((JSON.parse(await r.body.text()) as ExecAnswer).dataset, [[10]]);
  } finally {
    await s.stop();
  }
  const off = await startServer({ env: { SVC_CAIRO_SQL_COPY_ROOT: '' } });
  try {
    const r = await request(
      `${off.mainUrl}/exec?${new URLSearchParams({ query: "SELECT * FROM read_parquet('example.parquet')" })}`,
    );
    assert.equal(r.statusCode, 400);
    const body = JSON.parse(await r.body.text()) as { error: string; position: number };
    assert.equal(body.position, 27);
    assert.match(
      body.error,
      /^failed to read parquet file: example\.parquet: \[27\] parquet files can only be read from/,
    );
  } finally {
    await off.stop();
  }
});
