// LZO is optional (issue 20): the lzo package, which builds with make and g++, is an
// optionalDependency. Two built servers on ephemeral ports: one as installed, where an
// LZO export through /exp and COPY TO reads back through read_parquet as before; one
// started with test/helpers/hide-packages.js hiding lzo as if its install had failed,
// which refuses each way of asking for LZO with an error that names the missing package,
// and serves everything else.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

const repo = (rel: string): string => fileURLToPath(new URL(`../../../${rel}`, import.meta.url));
const HIDE = fileURLToPath(new URL('../helpers/hide-packages.js', import.meta.url));
const NOT_INSTALLED = /optional package lzo, which is not installed/;
const COPY_ENV = { SVC_CAIRO_SQL_COPY_EXPORT_ROOT: 'import/export' };

interface Answer {
  status: number;
  body: Buffer;
  json(): { dataset: unknown[][]; error: string; position: number };
}

async function get(s: ServerProcess, path: string, params: Record<string, string>): Promise<Answer> {
  const r = await request(`${s.mainUrl}${path}?${new URLSearchParams(params)}`);
  const body = Buffer.from(await r.body.arrayBuffer());
  return { status: r.statusCode, body, json: () => JSON.parse(body.toString()) as ReturnType<Answer['json']> };
}

async function exec(s: ServerProcess, query: string): Promise<unknown[][]> {
  const r = await get(s, '/exec', { query });
  assert.equal(r.status, 200, r.body.toString());
  return r.json().dataset;
}

const TABLE = `CREATE TABLE t AS (SELECT timestamp_sequence('2024-01-01', 60000000L) ts, rnd_symbol('a', 'b') sym,
  x * 1.5 v FROM long_sequence(5000)) TIMESTAMP(ts) PARTITION BY DAY`;

async function serverWithTable(hidden: boolean): Promise<ServerProcess> {
  const s = await startServer({
    env: hidden ? { ...COPY_ENV, TEST_HIDDEN_PACKAGES: 'lzo' } : COPY_ENV,
    execArgv: hidden ? ['--import', HIDE] : [],
  });
  mkdirSync(join(s.root, 'import'));
  await exec(s, TABLE);
  return s;
}

/** COPY TO's id, then its last log row's status and message once it has settled. */
async function copyTo(s: ServerProcess, sql: string): Promise<{ status: string; message: string | null }> {
  const id = (await exec(s, sql))[0]![0] as string;
  for (let i = 0; i < 500; i++) {
    const rows = await exec(s, `SELECT status, message FROM sys.copy_export_log WHERE id = '${id}' LIMIT -1`);
    const [status, message] = (rows[0] ?? []) as [string, string | null];
    if (status !== undefined && status !== 'started') return { status, message };
    await delay(20);
  }
  throw new Error(`COPY ${id} did not finish`);
}

test('lzo is an optional dependency, not a required one', () => {
  const pkg = JSON.parse(readFileSync(repo('package.json'), 'utf8')) as Record<string, Record<string, string>>;
  assert.equal(pkg.dependencies?.lzo, undefined);
  assert.ok(pkg.optionalDependencies?.lzo !== undefined);
});

describe('with lzo installed', () => {
  let s: ServerProcess;
  before(async () => {
    s = await serverWithTable(false);
  });
  after(async () => {
    await s.stop();
  });

  test('an LZO export through /exp and COPY TO reads back through read_parquet', async () => {
    const r = await get(s, '/exp', { query: 'select * from t', fmt: 'parquet', compression_codec: 'lzo' });
    assert.equal(r.status, 200, r.body.toString());
    writeFileSync(join(s.root, 'import/t-lzo.parquet'), r.body);
    const want = await exec(s, 'select count(), sum(v), count_distinct(sym) from t');
    assert.deepEqual(
      await exec(s, "select count(), sum(v), count_distinct(sym) from read_parquet('t-lzo.parquet')"),
      want,
    );

    const done = await copyTo(s, "COPY t TO 't_lzo' WITH FORMAT PARQUET COMPRESSION_CODEC LZO PARTITION_BY NONE");
    assert.deepEqual(done, { status: 'finished', message: null });
    const back = "select count(), sum(v), count_distinct(sym) from read_parquet('export/t_lzo/default.parquet')";
    assert.deepEqual(await exec(s, back), want);
  });
});

describe('with lzo not installed', () => {
  let s: ServerProcess;
  let lzoFile: Buffer;
  before(async () => {
    s = await serverWithTable(true);
    // An LZO file made where lzo is installed: this test process has it.
    const { openDatabase, batchesToParquet } = await import('svcdb');
    const { pipeline } = await import('node:stream/promises');
    const { createWriteStream } = await import('node:fs');
    const db = openDatabase(join(s.root, '..', `${s.root.split('/').pop()!}-maker`));
    try {
      await db.execute(TABLE);
      const file = join(s.root, 'import/t-lzo.parquet');
      await pipeline(
        db.query('select * from t'),
        batchesToParquet({ compression_codec: 'lzo' }),
        createWriteStream(file),
      );
      lzoFile = readFileSync(file);
    } finally {
      await db.close();
    }
  });
  after(async () => {
    await s.stop();
  });

  test('an LZO export through /exp is refused naming the missing optional package', async () => {
    const r = await get(s, '/exp', { query: 'select * from t', fmt: 'parquet', compression_codec: 'LZO' });
    assert.equal(r.status, 400);
    assert.match(r.json().error, /compression_codec/);
    assert.match(r.json().error, NOT_INSTALLED);
  });

  test('COPY TO with COMPRESSION_CODEC LZO is refused at its statement, not in its background job', async () => {
    const r = await get(s, '/exec', { query: "COPY t TO 't_lzo' WITH FORMAT PARQUET COMPRESSION_CODEC LZO" });
    assert.equal(r.status, 400, r.body.toString());
    assert.match(r.json().error, NOT_INSTALLED);
    assert.deepEqual(await exec(s, "select count() from sys.copy_export_log where export_path = 't_lzo'"), [[0]]);
  });

  test('read_parquet of an LZO file fails naming the file and the missing package, at the argument', async () => {
    assert.ok(lzoFile.length > 0);
    const q = "select count() from read_parquet('t-lzo.parquet')";
    const r = await get(s, '/exec', { query: q });
    assert.equal(r.status, 400, r.body.toString());
    assert.match(r.json().error, /t-lzo\.parquet/);
    assert.match(r.json().error, NOT_INSTALLED);
    assert.equal(r.json().position, q.indexOf("'t-lzo"));
  });

  test('every other codec still works, and the server stays up', async () => {
    for (const codec of ['zstd', 'snappy', 'lz4_raw', 'gzip']) {
      const r = await get(s, '/exp', { query: 'select * from t', fmt: 'parquet', compression_codec: codec });
      assert.equal(r.status, 200, `${codec}: ${r.body.toString()}`);
      writeFileSync(join(s.root, `import/t-${codec}.parquet`), r.body);
      assert.deepEqual(await exec(s, `select count() from read_parquet('t-${codec}.parquet')`), [[5000]]);
    }
    const done = await copyTo(s, "COPY t TO 't_zstd' WITH FORMAT PARQUET COMPRESSION_CODEC ZSTD");
    assert.equal(done.status, 'finished');
  });
});
