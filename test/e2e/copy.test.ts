// COPY over HTTP: the built server on ephemeral ports, a CSV put in its copy root
// (<root>/import) imported by COPY in the background and followed through
// sys.text_import_log; COPY TO writing Parquet under the export root (set inside the
// copy root here, so read_parquet reads it back); paths leaving the roots refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { request } from 'undici';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

interface ExecAnswer {
  columns: { name: string; type: string }[];
  dataset: unknown[][];
}

describe('COPY over /exec', () => {
  let s: ServerProcess;
  let importDir: string;

  const get = async (query: string): Promise<{ status: number; body: string }> => {
    const r = await request(`${s.mainUrl}/exec?${new URLSearchParams({ query })}`);
    return { status: r.statusCode, body: await r.body.text() };
  };
  const exec = async (query: string): Promise<ExecAnswer> => {
    const r = await get(query);
    assert.equal(r.status, 200, r.body);
    return JSON.parse(r.body) as ExecAnswer;
  };
  const execError = async (query: string): Promise<{ status: number; error: string; position: number }> => {
    const r = await get(query);
    return { status: r.status, ...(JSON.parse(r.body) as { error: string; position: number }) };
  };
  /** Starts a COPY and returns its id (QuestDB's answer: one row, one `id` column). */
  const copy = async (query: string): Promise<string> => {
    const a = await exec(query);
    assert.deepEqual(a.columns, [{ name: 'id', type: 'STRING' }]);
    assert.equal(a.dataset.length, 1);
    const id = a.dataset[0]![0] as string;
    assert.match(id, /^[0-9a-f]{16}$/);
    return id;
  };
  /** Polls a log until the job's last row is no longer `started`; that row's columns by name. */
  const settled = async (log: string, id: string): Promise<Record<string, unknown>> => {
    for (let i = 0; i < 500; i++) {
      const a = await exec(`SELECT * FROM ${log} WHERE id = '${id}' LIMIT -1`);
      const row = a.dataset[0];
      if (row !== undefined && row[a.columns.findIndex((c) => c.name === 'status')] !== 'started')
        return Object.fromEntries(a.columns.map((c, k) => [c.name, row[k]]));
      await delay(20);
    }
    throw new Error(`${log}: ${id} did not finish`);
  };

  before(async () => {
    s = await startServer({ env: { SVC_CAIRO_SQL_COPY_EXPORT_ROOT: 'import/export' } });
    importDir = join(s.root, 'import');
    mkdirSync(importDir);
  });
  after(async () => {
    await s.stop();
  });

  test('COPY FROM imports a CSV of the copy root in the background; the log shows it started, then finished', async () => {
    const rows = ['ts,city,temp'];
    for (let i = 0; i < 1000; i++)
      rows.push(`2024-01-0${1 + (i % 3)}T00:00:${String(i % 60).padStart(2, '0')}.000000Z,c${i % 7},${i / 4}`);
    writeFileSync(join(importDir, 'weather.csv'), rows.join('\n') + '\n');
    const id = await copy(
      "COPY weather FROM 'weather.csv' WITH HEADER true TIMESTAMP 'ts' FORMAT 'yyyy-MM-ddTHH:mm:ss.SSSUUUZ' PARTITION BY DAY ON ERROR SKIP_ROW",
    );
    const last = await settled('sys.text_import_log', id);
    assert.equal(last.status, 'finished');
    assert.equal(last.table_name, 'weather');
    assert.equal(last.file, 'weather.csv');
    assert.equal(last.rows_handled, 1000);
    assert.equal(last.rows_imported, 1000);
    assert.equal(last.errors, 0);
    const all = await exec(`SELECT status FROM 'sys.text_import_log' WHERE id = '${id}'`);
    assert.deepEqual(all.dataset, [['started'], ['finished']]);
    const t = await exec('SELECT count() n, min(ts) lo, sum(temp) s FROM weather');
    assert.deepEqual(t.dataset, [[1000, '2024-01-01T00:00:00.000000Z', 124875]]);
    const parts = await exec("SELECT count() FROM table_partitions('weather')");
    assert.deepEqual(parts.dataset, [[3]]);
  });

  test('a failed import leaves nothing: the log says failed with the reason, and no table appears', async () => {
    await exec('CREATE TABLE strict_t (a INT, b INT)');
    writeFileSync(join(importDir, 'bad.csv'), 'a,b\n1,2\n2,x\n3,4\n');
    const id = await copy("COPY strict_t FROM 'bad.csv' WITH HEADER true ON ERROR ABORT");
    const last = await settled('sys.text_import_log', id);
    assert.equal(last.status, 'failed');
    assert.ok(String(last.message).length > 0);
    assert.deepEqual((await exec('SELECT count() FROM strict_t')).dataset, [[0]]);

    const missing = await copy("COPY nothing FROM 'does-not-exist.csv'");
    assert.equal((await settled('sys.text_import_log', missing)).status, 'failed');
    // An absolute path is joined under the copy root, as QuestDB joins it: no file there.
    const abs = await copy("COPY passwd FROM '/etc/passwd'");
    assert.equal((await settled('sys.text_import_log', abs)).status, 'failed');
    assert.equal((await execError('SELECT * FROM passwd')).status, 400);
  });

  test('paths leaving the roots are refused at the path, before anything runs', async () => {
    for (const q of [
      "COPY x FROM '../conf/server.conf'",
      "COPY x FROM 'a/../../conf/server.conf'",
      "COPY x FROM '..'",
      "COPY weather TO '../../escape' WITH FORMAT PARQUET",
      "COPY weather TO '..' WITH FORMAT PARQUET",
    ]) {
      const e = await execError(q);
      assert.equal(e.status, 400, q);
      assert.equal(e.error, "'.' is not allowed", q);
      assert.equal(e.position, q.indexOf("'"), q);
    }
    assert.equal(existsSync(join(s.root, 'escape')), false);
  });

  test('COPY TO writes <dir>/default.parquet under the export root; read_parquet reads it back', async () => {
    const id = await copy(
      "COPY weather TO 'weather_pq' WITH FORMAT PARQUET COMPRESSION_CODEC ZSTD ROW_GROUP_SIZE 100 PARTITION_BY NONE",
    );
    const last = await settled('sys.copy_export_log', id);
    assert.equal(last.status, 'finished');
    assert.equal(last.phase, 'success');
    assert.equal(last.table_name, 'weather');
    assert.equal(last.export_path, 'weather_pq');
    assert.equal(last.num_exported_files, 1);
    const back = await exec("SELECT count() n, sum(temp) s FROM read_parquet('export/weather_pq/default.parquet')");
    assert.deepEqual(back.dataset, [[1000, 124875]]);

    const q = await copy("COPY (SELECT city, max(temp) m FROM weather ORDER BY city LIMIT 2) TO 'by_city'");
    assert.equal((await settled('sys.copy_export_log', q)).table_name, 'query');
    assert.deepEqual((await exec("SELECT * FROM read_parquet('export/by_city/default.parquet')")).dataset, [
      ['c0', 248.5],
      ['c1', 248.75],
    ]);
    const files = await exec("SELECT path FROM export_files() WHERE path LIKE '%default.parquet' ORDER BY path");
    assert.deepEqual(files.dataset, [['by_city/default.parquet'], ['weather_pq/default.parquet']]);
  });

  test("COPY TO writes one file per partition: a table's own partitioning by default, PARTITION_BY for a query", async () => {
    const id = await copy("COPY weather TO 'weather_days'");
    const last = await settled('sys.copy_export_log', id);
    assert.equal(last.status, 'finished');
    assert.equal(last.num_exported_files, 3);
    const days = await exec("SELECT path FROM export_files() WHERE path LIKE 'weather_days/%' ORDER BY path");
    assert.deepEqual(days.dataset, [
      ['weather_days/2024-01-01.parquet'],
      ['weather_days/2024-01-02.parquet'],
      ['weather_days/2024-01-03.parquet'],
    ]);
    const day2 = await exec(
      "SELECT count() n, min(ts) lo, max(ts) hi FROM read_parquet('export/weather_days/2024-01-02.parquet')",
    );
    const want = await exec("SELECT count() n, min(ts) lo, max(ts) hi FROM weather WHERE ts IN '2024-01-02'");
    assert.deepEqual(day2.dataset, want.dataset);

    // The COPY page's example: a query's rows split by month of their designated timestamp.
    const q = await copy(
      "COPY (SELECT generate_series AS date FROM generate_series('2025-01-30', '2025-03-02', '1d')) TO 'dates' WITH FORMAT PARQUET PARTITION_BY MONTH",
    );
    assert.equal((await settled('sys.copy_export_log', q)).num_exported_files, 3);
    const months = await exec(
      "SELECT count() FROM read_parquet('export/dates/2025-01.parquet') UNION ALL SELECT count() FROM read_parquet('export/dates/2025-02.parquet') UNION ALL SELECT count() FROM read_parquet('export/dates/2025-03.parquet')",
    );
    assert.deepEqual(months.dataset, [[2], [28], [2]]);

    // Rows without a designated timestamp and with two timestamp columns cannot be split: the log
    // says why, and nothing is written.
    const bad = await copy(
      "COPY (SELECT city, dateadd('d', 1, ts) a, dateadd('d', 2, ts) b FROM weather) TO 'no_ts' WITH FORMAT PARQUET PARTITION_BY DAY",
    );
    const failed = await settled('sys.copy_export_log', bad);
    assert.equal(failed.status, 'failed');
    assert.match(String(failed.message), /PARTITION_BY DAY needs a designated timestamp/);
    assert.equal(existsSync(join(importDir, 'export', 'no_ts')), false);
  });

  test("COPY TO's errors: a missing table at its name, an empty result fails in the log", async () => {
    const e = await execError("COPY no_such TO 'x' WITH FORMAT PARQUET");
    assert.deepEqual([e.status, e.position, e.error], [400, 5, 'table does not exist [table=no_such]']);
    const id = await copy("COPY (SELECT * FROM weather WHERE temp < 0) TO 'empty'");
    assert.equal((await settled('sys.copy_export_log', id)).status, 'failed');
    assert.equal(existsSync(join(importDir, 'export', 'empty', 'default.parquet')), false);
  });

  test("COPY 'id' CANCEL of an id no job has answers unknown; a malformed id is an error at 0", async () => {
    assert.deepEqual((await exec("COPY '55ca24e5ba328050' CANCEL")).dataset, [['55ca24e5ba328050', 'unknown']]);
    const e = await execError("COPY 'foobar' CANCEL");
    assert.deepEqual([e.status, e.position], [400, 0]);
  });
});
