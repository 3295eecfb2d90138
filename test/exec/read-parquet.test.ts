// read_parquet(path) / parquet_scan(path) through a Database: files svcdb's
// own exporter writes (every column type it exports, NULLs, several row
// groups, each codec and both page versions) and files DuckDB writes read back
// and compared value by value and type by type with the query that made them;
// the copy root (relative, absolute inside, `..` refused), QuestDB's errors at
// the argument, and WHERE / LIMIT / ORDER BY / GROUP BY / TIMESTAMP(col) over it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../../lib/db/database.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import { parseParquetOptions } from '../../lib/export/parquet/options.js';
import { renderAt } from '../../lib/core/render.js';
import { loadConfig } from '../../lib/config/config.js';

interface DuckConnection {
  run(sql: string): Promise<unknown>;
}

const root = mkdtempSync(join(tmpdir(), 'svcdb-read-parquet-'));
const importDir = join(root, 'import');
let db: Database;
let duck: DuckConnection;

const notSelect = (): SvcError => new SvcError('SQL', 'not a query');

/** Column `name:TYPE` headers and rows rendered as /exec's text (null for NULL). */
async function query(sql: string): Promise<{ header: string[]; rows: (string | null)[][] }> {
  const r = db.query(sql, notSelect);
  const rows: (string | null)[][] = [];
  for await (const b of r.batches) for (let i = 0; i < b.rowCount; i++) rows.push(b.columns.map((c) => renderAt(c, i)));
  return { header: r.fields.map((f) => `${f.name}:${f.type}`), rows };
}

async function execute(sql: string): Promise<void> {
  await db.execute(sql, notSelect);
}

/** Exports `sql` as Parquet to <copy root>/<name> with /exp's parameters. */
async function exportParquet(sql: string, name: string, params: Record<string, string> = {}): Promise<void> {
  const parts: Buffer[] = [];
  const parquet = parseParquetOptions(new URLSearchParams(params));
  for await (const c of db.export(sql, 'parquet', { parquet }, notSelect)) parts.push(c);
  writeFileSync(join(importDir, name), Buffer.concat(parts));
}

/** The SQL error `sql` fails with when compiled or run. */
async function fails(sql: string): Promise<SvcError> {
  try {
    await query(sql);
  } catch (e) {
    assert.ok(e instanceof SvcError, String(e));
    return e;
  }
  assert.fail(`expected ${sql} to fail`);
}

const ALL_TYPES =
  'ts TIMESTAMP, sym SYMBOL, v VARCHAR, s STRING, d DOUBLE, f FLOAT, n LONG, i INT, sh SHORT, bt BYTE, b BOOLEAN, c CHAR, dt DATE, u UUID, ip IPV4, l256 LONG256, g GEOHASH(4c), gb GEOHASH(7b), bin BINARY, arr DOUBLE[], arr2 DOUBLE[][], tn TIMESTAMP_NS';

before(async () => {
  mkdirSync(importDir);
  db = Database.open(root, { workerCount: 1 });
  await execute(`CREATE TABLE t (${ALL_TYPES}) TIMESTAMP(ts) PARTITION BY DAY`);
  await execute(`INSERT INTO t (ts, sym, v, s, d, f, n, i, sh, bt, b, c, dt, u, ip, l256, g, gb, arr, arr2, tn) VALUES
    ('2024-01-01T00:00:00.123456Z', 'a', 'quote " back \\ é 😀', 'x', 1.0, 1.5, 9223372036854775807, 7, 3, 1, true, 'q', '2024-01-01T10:00:00.123Z', '11111111-2222-3333-4444-555555555555', '1.2.3.4', '0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20', #sp05, ##1010101, ARRAY[1.5, -2.0, 3.25], ARRAY[[1.0, 2.0], [3.0, 4.0]], '2024-01-01T00:00:00.123456789Z'),
    ('2024-01-03T12:30:00.000001Z', 'b', '', 'y', -0.0, -0.25, -9223372036854775807, -2147483647, -32768, -128, true, 'é', '1969-12-31T23:59:59.999Z', 'a0000000-0000-0000-0000-00000000000f', '255.255.255.255', '0x01', #zzzz, ##0000001, ARRAY[]::DOUBLE[], ARRAY[[5.0]], '1969-12-31T23:59:59.999999999Z'),
    ('2024-01-03T13:00:00.000000Z', 'a', 'x', 'z', 1e300, 3.4e38, 0, 2147483647, 32767, 127, false, 'Z', '2262-01-01T00:00:00.000Z', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '0.0.0.1', '0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff', #0000, ##1111111, ARRAY[NaN, 1.0], ARRAY[[1.0, 2.0, 3.0]], '2262-04-11T23:47:16.854775807Z')`);
  await execute(`INSERT INTO t (ts, sh, bt, b) VALUES ('2024-01-02T00:00:00.000000Z', 0, 0, false)`);
  await execute(`CREATE TABLE big AS (SELECT timestamp_sequence('2024-01-01', 600000000L) ts, rnd_symbol('a','b','c',null) sym,
    rnd_double(2) d, rnd_int(0, 100, 2) i, rnd_long(-1000000, 1000000, 2) n, rnd_str(3, 8, 2) s, rnd_varchar(1, 5, 2) v,
    rnd_boolean() b, x FROM long_sequence(20000)) TIMESTAMP(ts) PARTITION BY DAY`);
  const { DuckDBInstance } = createRequire(import.meta.url)('@duckdb/node-api') as {
    DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<DuckConnection> }> };
  };
  duck = await (await DuckDBInstance.create(':memory:')).connect();
});

after(async () => {
  await db.close();
  rmSync(root, { recursive: true, force: true });
});

/** The type read_parquet gives a column of svcdb type `t`. */
function readBack(t: string): string {
  return t === 'SYMBOL' || t === 'STRING' ? 'VARCHAR' : t;
}

describe('files svcdb exports', () => {
  test('every exported column type and NULL come back with their values and types', async () => {
    await exportParquet('SELECT * FROM t', 't.parquet');
    const want = await query('SELECT * FROM t');
    const got = await query("SELECT * FROM read_parquet('t.parquet')");
    assert.deepEqual(
      got.header,
      want.header.map((h) => h.replace(/:(.*)$/, (_, t: string) => ':' + readBack(t))),
    );
    assert.deepEqual(got.rows, want.rows);
    // parquet_scan is the same function.
    assert.deepEqual((await query("SELECT * FROM parquet_scan('t.parquet')")).rows, want.rows);
  });

  test('each codec and both page versions, with several row groups and pages', async () => {
    const want = await query('SELECT * FROM big');
    for (const codec of ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'LZ4', 'ZSTD', 'LZ4_RAW', 'BROTLI', 'LZO']) {
      for (const version of ['1', '2']) {
        await exportParquet('SELECT * FROM big', 'big.parquet', {
          compression_codec: codec,
          parquet_version: version,
          row_group_size: '3000',
          data_page_size: '4096',
        });
        const got = await query("SELECT * FROM read_parquet('big.parquet')");
        assert.equal(got.rows.length, 20000, `${codec} v${version}`);
        assert.deepEqual(got.rows, want.rows, `${codec} v${version}`);
      }
    }
  });

  test('WHERE, LIMIT, ORDER BY, GROUP BY and a designated timestamp over a file', async () => {
    await exportParquet('SELECT * FROM big', 'big2.parquet', { row_group_size: '5000' });
    const q = async (body: string): Promise<void> => {
      const want = await query(body.replace('$F', 'big'));
      const got = await query(body.replace('$F', "read_parquet('big2.parquet')"));
      assert.deepEqual(got.rows, want.rows, body);
    };
    await q("SELECT x, d, sym FROM $F WHERE sym = 'a' AND i > 50 LIMIT 7");
    await q('SELECT x, s FROM $F ORDER BY d DESC, x LIMIT 10');
    await q('SELECT sym, count(), sum(n), avg(d), min(v), max(ts) FROM $F GROUP BY sym ORDER BY sym');
    await q('SELECT count(), count(d), sum(i) FROM $F');
    await q('SELECT * FROM $F LIMIT -3');
    await q('SELECT x FROM $F WHERE x BETWEEN 4990 AND 5010');
    // No designated timestamp until TIMESTAMP(col) names one; then SAMPLE BY works over it.
    const plain = db.query("SELECT * FROM read_parquet('big2.parquet')", notSelect);
    assert.equal(plain.timestamp, -1);
    plain.stop();
    const sampled = await query(
      "SELECT ts, count() FROM ((SELECT * FROM read_parquet('big2.parquet') ORDER BY ts) TIMESTAMP(ts)) SAMPLE BY 1d",
    );
    assert.deepEqual(sampled.rows, (await query('SELECT ts, count() FROM big SAMPLE BY 1d')).rows);
    const designated = db.query("(SELECT * FROM read_parquet('big2.parquet') ORDER BY ts) TIMESTAMP(ts)", notSelect);
    assert.equal(designated.fields[designated.timestamp]!.name, 'ts');
    designated.stop();
    // A table made from a file.
    await execute("CREATE TABLE copied AS (SELECT * FROM read_parquet('big2.parquet')) TIMESTAMP(ts) PARTITION BY DAY");
    assert.deepEqual((await query('SELECT * FROM copied')).rows, (await query('SELECT * FROM big')).rows);
  });

  test('an empty result exports to a file with no rows that reads back with its columns', async () => {
    await exportParquet('SELECT x, sym FROM big WHERE x < 0', 'empty.parquet');
    const got = await query("SELECT * FROM read_parquet('empty.parquet')");
    assert.deepEqual(got.header, ['x:LONG', 'sym:VARCHAR']);
    assert.deepEqual(got.rows, []);
  });

  test('a consumer that stops early and an aborted statement end the scan', async () => {
    await exportParquet('SELECT * FROM big', 'big3.parquet', { row_group_size: '1000' });
    const r = db.query("SELECT * FROM read_parquet('big3.parquet')", notSelect);
    const first = await r.batches.next();
    assert.equal(first.done, false);
    await r.batches.return(undefined);
    const ac = new AbortController();
    const run = db.query("SELECT * FROM read_parquet('big3.parquet')", notSelect, { signal: ac.signal });
    await run.batches.next();
    ac.abort(new SvcError('TIMEOUT', 'stopped by the test'));
    await assert.rejects(async () => {
      for await (const b of run.batches) void b;
    });
  });

  test('the statement memory limit bounds what a row group may hold', async () => {
    const small = Database.open(mkdtempSync(join(tmpdir(), 'svcdb-read-parquet-mem-')), {
      workerCount: 1,
      memoryLimit: 64 * 1024,
    });
    try {
      mkdirSync(join(small.root, 'import'));
      await exportParquet('SELECT * FROM big', 'one-group.parquet', { row_group_size: '20000' });
      copyFileSync(join(importDir, 'one-group.parquet'), join(small.root, 'import', 'one-group.parquet'));
      const r = small.query("SELECT * FROM read_parquet('one-group.parquet')", notSelect);
      await assert.rejects(
        async () => {
          for await (const b of r.batches) void b;
        },
        (e: unknown) => e instanceof SvcError && e.code === 'LIMIT' && /query.memory.limit/.test(e.message),
      );
    } finally {
      await small.close();
      rmSync(small.root, { recursive: true, force: true });
    }
  });
});

describe('files DuckDB writes', () => {
  test('its types map to QuestDB types; unsupported columns are left out', async () => {
    const file = join(importDir, 'duck.parquet');
    await duck.run(`COPY (SELECT i::INT AS i, i::BIGINT * 1000000000000 AS l, i / 4 AS d, (i / 8)::FLOAT AS f,
      CASE WHEN i % 3 = 0 THEN NULL ELSE 'v' || i END AS s, i % 2 = 0 AS b,
      TIMESTAMP '2024-01-01 00:00:00.123456' + INTERVAL (i) SECOND AS ts,
      (TIMESTAMP '2024-01-01 00:00:00.123' + INTERVAL (i) SECOND)::TIMESTAMP_MS AS tms,
      TIMESTAMP_NS '2024-01-01 00:00:00.123456789' AS tns, TIMESTAMPTZ '2024-01-01 00:00:00+00' AS tz,
      DATE '2024-01-01' + i::INT AS dt, '11111111-2222-3333-4444-55555555555' || i AS u0,
      ('11111111-2222-3333-4444-55555555555' || i)::UUID AS u, 'ab'::BLOB AS bl, [1.5, i]::DOUBLE[] AS arr,
      [[1.0, 2.0], [3.0, i]]::DOUBLE[][] AS arr2, i::TINYINT AS ti, i::SMALLINT AS si, i::UTINYINT AS uti,
      i::USMALLINT AS usi, i::UINTEGER AS ui, i::UBIGINT AS ubi, CASE WHEN i = 2 THEN NULL ELSE i END::BIGINT AS n,
      1.25::DECIMAL(10, 2) AS dec, TIME '10:00:00' AS tm, {'a': 1} AS st, [1, 2]::INT[] AS ints, MAP {'k': 1} AS mp,
      INTERVAL 1 DAY AS iv
      FROM range(5) t(i)) TO '${file}' (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 2)`);
    const got = await query("SELECT * FROM read_parquet('duck.parquet')");
    assert.deepEqual(got.header, [
      'i:INT',
      'l:LONG',
      'd:DOUBLE',
      'f:FLOAT',
      's:VARCHAR',
      'b:BOOLEAN',
      'ts:TIMESTAMP',
      'tms:TIMESTAMP',
      'tns:TIMESTAMP',
      'tz:TIMESTAMP',
      'dt:DATE',
      'u0:VARCHAR',
      'u:UUID',
      'bl:BINARY',
      'arr:DOUBLE[]',
      'arr2:DOUBLE[][]',
      'ti:BYTE',
      'si:SHORT',
      'uti:SHORT',
      'usi:INT',
      'ui:LONG',
      'ubi:LONG',
      'n:LONG',
    ]);
    assert.equal(got.rows.length, 5);
    assert.deepEqual(got.rows[3], [
      '3',
      '3000000000000',
      '0.75',
      '0.375',
      null,
      'false',
      '2024-01-01T00:00:03.123456Z',
      '2024-01-01T00:00:03.123000Z',
      '2024-01-01T00:00:00.123456Z',
      '2024-01-01T00:00:00.000000Z',
      '2024-01-04T00:00:00.000Z',
      '11111111-2222-3333-4444-555555555553',
      '11111111-2222-3333-4444-555555555553',
      got.rows[3]![13]!,
      '[1.5,3.0]',
      '[[1.0,2.0],[3.0,3.0]]',
      '3',
      '3',
      '3',
      '3',
      '3',
      '3',
      '3',
    ]);
    assert.equal(got.rows[2]![22], null);
    assert.deepEqual((await query("SELECT count(), sum(i), max(ts) FROM read_parquet('duck.parquet') WHERE b")).rows, [
      ['3', '6', '2024-01-01T00:00:04.123456Z'],
    ]);
  });

  test('NULLs of every type DuckDB writes read as svcdb NULLs (no value for BOOLEAN, BYTE, SHORT)', async () => {
    const file = join(importDir, 'duck-nulls.parquet');
    await duck.run(`COPY (SELECT NULL::INT AS i, NULL::BIGINT AS l, NULL::DOUBLE AS d, NULL::FLOAT AS f, NULL::VARCHAR AS s,
      NULL::BOOLEAN AS b, NULL::TIMESTAMP AS ts, NULL::DATE AS dt, NULL::UUID AS u, NULL::BLOB AS bl, NULL::DOUBLE[] AS arr,
      NULL::TINYINT AS ti, NULL::SMALLINT AS si) TO '${file}' (FORMAT parquet)`);
    assert.deepEqual((await query("SELECT * FROM read_parquet('duck-nulls.parquet')")).rows, [
      [null, null, null, null, null, 'false', null, null, null, null, null, '0', '0'],
    ]);
  });

  test("a file of only unsupported columns is refused with QuestDB's message", async () => {
    await duck.run(
      `COPY (SELECT 1.5::DECIMAL(10, 2) AS dec, TIME '10:00:00' AS tm) TO '${join(importDir, 'unsupported.parquet')}' (FORMAT parquet)`,
    );
    const e = await fails("SELECT * FROM read_parquet('unsupported.parquet')");
    assert.equal(e.message, 'no supported columns found in parquet file: unsupported.parquet');
    assert.equal(e.position, 27);
  });
});

describe('the copy root and errors', () => {
  test('a path is relative to the copy root, or absolute inside it; sub-folders are fine', async () => {
    mkdirSync(join(importDir, 'sub'), { recursive: true });
    await exportParquet('SELECT x FROM big LIMIT 3', 'sub/three.parquet');
    const want = [['1'], ['2'], ['3']];
    assert.deepEqual((await query("SELECT * FROM read_parquet('sub/three.parquet')")).rows, want);
    assert.deepEqual(
      (await query(`SELECT * FROM read_parquet('${join(importDir, 'sub', 'three.parquet')}')`)).rows,
      want,
    );
  });

  test('`..` leaving the root is refused at the argument', async () => {
    for (const path of ['../db/x.parquet', 'sub/../../x.parquet', 'sub/../..', '..']) {
      const e = await fails(`SELECT * FROM read_parquet('${path}')`);
      assert.equal(e.message, `failed to read parquet file: ${path}: [27] relative path is not allowed`);
      assert.equal(e.position, 27);
    }
    // An absolute path outside the root is read under it, as QuestDB joins it: not found there.
    const e = await fails("SELECT * FROM read_parquet('/etc/passwd')");
    assert.match(
      e.message,
      /^error reading parquet file \[2\]: could not open read-only \[file=.*import\/etc\/passwd\]$/,
    );
  });

  test('a missing file, a file that is not Parquet and an empty path fail at the argument', async () => {
    let e = await fails("SELECT a FROM read_parquet('nope.parquet') t");
    assert.match(e.message, /^error reading parquet file \[2\]: could not open read-only \[file=.*nope\.parquet\]$/);
    assert.equal(e.position, 27);
    assert.equal(e.code, 'SQL');
    writeFileSync(join(importDir, 'data.csv'), 'a,b\n1,2\n');
    e = await fails("select * from parquet_scan('data.csv')");
    assert.match(e.message, /^failed to read parquet file: data\.csv: /);
    assert.equal(e.position, 27);
    writeFileSync(join(importDir, 'fake.parquet'), 'PAR1 this is not really a parquet file PAR1');
    e = await fails("select * from read_parquet('fake.parquet')");
    assert.match(e.message, /^failed to read parquet file: fake\.parquet: /);
    e = await fails("select * from read_parquet('')");
    assert.equal(e.message, 'failed to read parquet file: : [27] parquet file path pattern is empty');
    e = await fails('select * from read_parquet()');
    assert.equal(e.position, 14);
    e = await fails("select * from read_parquet('a', 'b')");
    assert.equal(e.position, 32);
    e = await fails('select * from read_parquet(x)');
    assert.equal(e.position, 27);
  });

  test("without a copy root read_parquet is refused with QuestDB's message", async () => {
    const other = mkdtempSync(join(tmpdir(), 'svcdb-read-parquet-noroot-'));
    const config = loadConfig(other, { SVC_CAIRO_SQL_COPY_ROOT: '' }).config;
    const d = Database.open(other, { workerCount: 1, config });
    try {
      assert.throws(
        () => d.compile("SELECT * FROM read_parquet('example.parquet')"),
        (e: unknown) =>
          e instanceof SvcError &&
          e.position === 27 &&
          e.message ===
            'failed to read parquet file: example.parquet: [27] parquet files can only be read from cairo.sql.copy.root, please add cairo.sql.copy.root=<path> to your configuration',
      );
    } finally {
      await d.close();
      rmSync(other, { recursive: true, force: true });
    }
  });

  test('cairo.sql.copy.root may name any folder, relative to the root or absolute', async () => {
    const other = mkdtempSync(join(tmpdir(), 'svcdb-read-parquet-root-'));
    const files = join(other, 'files');
    mkdirSync(files);
    copyFileSync(join(importDir, 't.parquet'), join(files, 'x.parquet'));
    for (const value of ['files', files]) {
      const config = loadConfig(other, { SVC_CAIRO_SQL_COPY_ROOT: value }).config;
      const d = Database.open(other, { workerCount: 1, config });
      try {
        const r = d.query("SELECT count() FROM read_parquet('x.parquet')", notSelect);
        const b = await r.batches.next();
        assert.equal(b.done, false);
        if (!b.done) assert.equal(renderAt(b.value.columns[0]!, 0), '4');
        await r.batches.return(undefined);
      } finally {
        await d.close();
      }
    }
    rmSync(other, { recursive: true, force: true });
  });

  test('EXPLAIN shows the file scan', async () => {
    const r = await query("EXPLAIN SELECT x FROM read_parquet('big2.parquet') WHERE x > 3");
    assert.ok(
      r.rows.some((row) => /parquet file sequential scan path: big2\.parquet/.test(row[0] ?? '')),
      JSON.stringify(r.rows),
    );
  });
});
