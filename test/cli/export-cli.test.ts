// `svcdb export` as a user runs it: the built CLI on a database folder made
// with the library, every format to standard output or a file (the format
// picked by the file's extension), Parquet options, and the refusals: bad SQL
// (with a caret at the position), unknown options, Parquet without a file, a
// folder a running server holds. With --host, a running server's /exp instead.
// A reader that goes away early (| head) is not an error.
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { openDatabase } from 'svcdb';
import { CLI, makeRoot, startServer } from '../helpers/server-process.js';

const run = promisify(execFile);
const FIXTURE = fileURLToPath(new URL('../../../fixtures/trades-sample.csv', import.meta.url));
let root: string;

/** Exit code, stdout and stderr of `svcdb export ...args` (with `env` added to this process's). */
async function exportCli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return exportCliWith({}, ...args);
}

async function exportCliWith(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [CLI, 'export', ...args], {
      maxBuffer: 64 << 20,
      env: { ...process.env, ...env },
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

before(async () => {
  root = makeRoot();
  const db = openDatabase(root);
  await db.importCsv(FIXTURE, { name: 'trades', timestamp: 'ts', partitionBy: 'DAY' });
  await db.close();
});

test('CSV, JSON and JSON lines on standard output, as /exp and /exec write them', async () => {
  const lines = readFileSync(FIXTURE, 'utf8').trimEnd().split('\n');
  const csv = await exportCli('select * from trades', '-d', root);
  assert.equal(csv.code, 0, csv.stderr);
  const out = csv.stdout.trimEnd().split('\n');
  assert.equal(out.length, lines.length);
  assert.equal(out[0], '"ts","sym","side","price","amount"');
  const [ts, sym, side, price, amount] = lines[1]!.split(',');
  assert.equal(out[1], `"${ts}","${sym}","${side}",${price!.replace(/0$/, '').replace(/\.$/, '.0')},${amount}`);
  assert.equal(
    (await exportCli('select sym from trades limit 2', '-d', root, '--no-header')).stdout.split('\n').length,
    3,
  );

  const json = await exportCli('select sym, count() n from trades order by sym', '-d', root, '--format', 'json');
  const doc = JSON.parse(json.stdout) as { query: string; columns: unknown[]; dataset: unknown[][]; count: number };
  assert.equal(doc.query, 'select sym, count() n from trades order by sym');
  assert.deepEqual(
    doc.dataset.map((r) => r[0]),
    ['AAPL', 'AMZN', 'GOOG', 'MSFT'],
  );
  assert.equal(
    doc.dataset.reduce((s, r) => s + (r[1] as number), 0),
    2000,
  );
  assert.equal(doc.count, 4);

  const jsonl = await exportCli(
    "select ts, price from trades where sym = 'MSFT' limit 3",
    '-d',
    root,
    '--format',
    'jsonl',
  );
  const objs = jsonl.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { ts: string; price: number });
  assert.equal(objs.length, 3);
  assert.match(objs[0]!.ts, /^2024-01-01T\d\d:\d\d:\d\d\.000000Z$/);
  assert.equal(typeof objs[0]!.price, 'number');
});

test('into a file: the extension picks the format; Parquet options as the /exp parameters', async () => {
  const file = join(root, 'msft.parquet');
  const r = await exportCli(
    "select * from trades where sym = 'MSFT'",
    '-d',
    root,
    '-o',
    file,
    '--compression_codec',
    'snappy',
    '--row-group-size=100',
  );
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /^exported 515 rows, \d+(\.\d)? (B|KB|MB) of parquet to .*msft\.parquet\n$/);
  const bytes = new Uint8Array(readFileSync(file)).buffer;
  const meta = parquetMetadata(bytes);
  assert.equal(meta.row_groups.length, 6);
  assert.equal(meta.row_groups[0]!.columns[0]!.meta_data?.codec, 'SNAPPY');
  const rows = await parquetReadObjects({ file: bytes, compressors });
  assert.equal(rows.length, 515);
  assert.ok(rows.every((row) => row.sym === 'MSFT'));

  const jfile = join(root, 'few.jsonl');
  assert.equal((await exportCli('select sym from trades limit 4', '-d', root, '-o', jfile)).code, 0);
  assert.equal(readFileSync(jfile, 'utf8').trimEnd().split('\n').length, 4);
});

test('one thread or two: the same CSV and Parquet files, text with NULLs and many values read back as the query gives it', async () => {
  const many = makeRoot();
  const db = openDatabase(many);
  // 60,000 rows over two days: a text column with few values and NULLs, one with a value per row.
  const lines = ['ts,sym,note,px'];
  for (let i = 0; i < 60_000; i++) {
    const ts = new Date(Date.UTC(2024, 0, 1) + i * 2_000).toISOString().replace('Z', '000Z');
    lines.push(`${ts},${i % 7 === 0 ? '' : ['AB', '"C""D"', '"é,f"'][i % 3]},note ${i * 7919},${(i % 1000) / 8}`);
  }
  await db.importCsv(Buffer.from(lines.join('\n') + '\n'), { name: 'x', timestamp: 'ts', partitionBy: 'DAY' });
  const want: Record<string, unknown>[] = [];
  for await (const r of db.query('select sym, note from x').rows()) want.push(r);
  await db.close();
  const files: Record<string, Buffer[]> = { csv: [], parquet: [] };
  for (const threads of ['1', '2'])
    for (const ext of ['csv', 'parquet']) {
      const file = join(many, `x-${threads}.${ext}`);
      const r = await exportCliWith({ SVC_SHARED_WORKER_COUNT: threads }, 'x', '-d', many, '-o', file);
      assert.equal(r.code, 0, r.stderr);
      files[ext]!.push(readFileSync(file));
    }
  assert.ok(files.csv![0]!.equals(files.csv![1]!), 'CSV: the same bytes on one thread and on two');
  assert.ok(files.parquet![0]!.equals(files.parquet![1]!), 'Parquet: the same bytes on one thread and on two');
  assert.equal(files.csv![0]!.toString().split('\n')[1], `"2024-01-01T00:00:00.000000Z",,"note 0",0.0`);
  const rows = await parquetReadObjects({ file: new Uint8Array(files.parquet![0]!).buffer, compressors });
  assert.deepEqual(
    rows.map((r) => [r.sym ?? null, r.note]),
    want.map((r) => [r.sym, r.note]),
  );
});

test('refusals: bad SQL with a caret, unknown options, Parquet without a file, a folder a server holds', async () => {
  const bad = await exportCli('select nosuch from trades', '-d', root);
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, 'select nosuch from trades\n       ^\nsvcdb: Invalid column: nosuch [position=7]\n');
  const opt = await exportCli('select 1', '-d', root, '--compresion', 'zstd');
  assert.equal(opt.code, 1);
  assert.match(opt.stderr, /unknown option for export: --compresion/);
  const value = await exportCli('select 1', '-d', root, '-o', join(root, 'x.parquet'), '--compression_codec', 'zip');
  assert.equal(value.code, 1);
  assert.match(value.stderr, /invalid compression codec\[zip\], expected one of: uncompressed, snappy/);
  assert.match(
    (await exportCli('select 1', '-d', root, '--format', 'parquet')).stderr,
    /Parquet goes to a file: add -o/,
  );
  assert.match(
    (await exportCli('select 1', '-d', root, '--compression_codec', 'zstd')).stderr,
    /Parquet options need --format parquet/,
  );
  assert.match((await exportCli('-d', root)).stderr, /export needs the SQL text/);

  const server = await startServer({ root });
  try {
    const held = await exportCli('select 1', '-d', root);
    assert.equal(held.code, 1);
    assert.match(
      held.stderr,
      /cannot open the database .*in use by process \d+.*export --host <host\[:port\]> exports from the running server/,
    );
  } finally {
    await server.stop();
  }
});

test('--host: a running server exports (its /exp, CSV or Parquet) without being stopped; its refusals said as the folder says them', async () => {
  const server = await startServer({ root });
  try {
    const host = new URL(server.mainUrl).host;
    const file = join(root, 'live.parquet');
    const r = await exportCli("select * from trades where sym = 'MSFT'", '--host', host, '-o', file);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /^exported \d+(\.\d)? (B|KB|MB) of parquet from http:\/\/\S+ to .*live\.parquet\n$/);
    const rows = await parquetReadObjects({ file: new Uint8Array(readFileSync(file)).buffer, compressors });
    assert.equal(rows.length, 515);
    assert.ok(rows.every((row) => row.sym === 'MSFT'));

    const csv = await exportCli('select sym, count() n from trades order by sym', '--host', host);
    assert.equal(csv.code, 0, csv.stderr);
    const exp = await fetch(
      `${server.mainUrl}/exp?${new URLSearchParams({ query: 'select sym, count() n from trades order by sym' })}`,
    );
    assert.equal(csv.stdout, await exp.text());

    const bad = await exportCli('select nosuch from trades', '--host', host);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'select nosuch from trades\n       ^\nsvcdb: Invalid column: nosuch [position=7]\n');
    const health = await exportCli('select 1', '--host', new URL(server.healthUrl).host);
    assert.equal(health.code, 1);
    assert.match(health.stderr, /did not answer as svcdb's \/exp .*main port \(9000 by default/);
    assert.match((await exportCli('select 1', '--host', host, '-d', root)).stderr, /--host and -d exclude each other/);
    assert.match((await exportCli('select 1', '--host', host, '--format', 'jsonl')).stderr, /writes csv or parquet/);
  } finally {
    await server.stop();
  }
});

test('a reader that stops early (| head) ends the export quietly', async () => {
  const r = await run('bash', [
    '-c',
    `set -o pipefail; "${process.execPath}" "${CLI}" export 'select * from trades' -d "${root}" | head -n 2`,
  ]);
  assert.equal(r.stdout.split('\n').length, 3);
  assert.equal(r.stderr, '');
});
