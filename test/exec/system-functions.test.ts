// The system table functions whose answers depend on the machine or on what runs (golden 83 has
// the deterministic parts): the file functions inside copy roots (never past them), the memory
// figures, query_activity() of a database, SHOW PARAMETERS of a configured root, the last commit
// wal_transactions() reports and the writers writer_pool() shows while held.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compile, type EngineOptions } from '../../lib/exec/engine.js';
import { globMatch } from '../../lib/exec/file-list.js';
import { Database } from '../../lib/db/database.js';
import { loadConfig } from '../../lib/config/config.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import { ENGINE, statementRunner, tempCatalog } from '../helpers/engine.js';

const { catalog, root } = tempCatalog('svcdb-system-fns-');
const signal = new AbortController().signal;

const { rows, exec } = statementRunner(catalog, signal);

function sqlError(sql: string, opts: Partial<EngineOptions>): SvcError {
  try {
    compile(sql, { ...ENGINE, catalog, ...opts });
  } catch (e) {
    assert.ok(e instanceof SvcError);
    return e;
  }
  assert.fail(`no error for ${sql}`);
}

// input/  a.csv (10 bytes), b.parquet, sub/c.csv, sub/deep/d.csv; export/ e.csv; outside/ secret.csv
const input = join(root, 'input');
const exportDir = join(root, 'export');
const outside = join(root, 'outside');
mkdirSync(join(input, 'sub', 'deep'), { recursive: true });
mkdirSync(exportDir);
mkdirSync(outside);
writeFileSync(join(input, 'a.csv'), '0123456789');
writeFileSync(join(input, 'b.parquet'), 'PAR1');
writeFileSync(join(input, 'sub', 'c.csv'), 'c');
writeFileSync(join(input, 'sub', 'deep', 'd.csv'), 'dd');
writeFileSync(join(exportDir, 'e.csv'), 'eee');
writeFileSync(join(outside, 'secret.csv'), 'nope');
utimesSync(join(input, 'a.csv'), new Date('2024-01-02T03:04:05Z'), new Date('2024-01-02T03:04:05Z'));
// Links out of the root are not followed, neither as folders nor as files.
symlinkSync(outside, join(input, 'link-dir'));
symlinkSync(join(outside, 'secret.csv'), join(input, 'link.csv'));
const copyRoots = { input, export: exportDir };

test('import_files() lists every file under the copy root, relative to it, with size and time', async () => {
  assert.deepEqual(await exec('SELECT path, diskSize, diskSizeHuman FROM import_files()', { copyRoots }), [
    ['a.csv', 10, '10.0 B'],
    ['b.parquet', 4, '4.0 B'],
    ['sub/c.csv', 1, '1.0 B'],
    ['sub/deep/d.csv', 2, '2.0 B'],
  ]);
  const modified = (await exec("SELECT modifiedTime FROM import_files() WHERE path = 'a.csv'", { copyRoots }))[0]?.[0];
  assert.equal(modified, Date.parse('2024-01-02T03:04:05Z'));
  assert.deepEqual(await exec('SELECT path FROM export_files()', { copyRoots }), [['e.csv']]);
});

test('files() lists a folder inside a copy root, relative or absolute, and nothing past it', async () => {
  assert.deepEqual(await exec("SELECT path FROM files('sub')", { copyRoots }), [['c.csv'], ['deep/d.csv']]);
  assert.deepEqual(await exec(`SELECT path FROM files('${exportDir}')`, { copyRoots }), [['e.csv']]);
  assert.deepEqual(await exec("SELECT path FROM files('missing')", { copyRoots }), []);
  // A link to a folder outside the root lists nothing.
  assert.deepEqual(await exec("SELECT path FROM files('link-dir')", { copyRoots }), []);
  const past = sqlError("SELECT * FROM files('../outside')", { copyRoots });
  assert.equal(past.position, 20);
  assert.match(past.message, /'\.\.' is not allowed/);
  const away = sqlError(`SELECT * FROM files('${outside}')`, { copyRoots });
  assert.equal(away.position, 20);
  assert.match(away.message, /outside the copy roots/);
});

test('glob() matches names with *, ?, sets and ** under the copy root', async () => {
  const glob = async (p: string): Promise<unknown[]> =>
    (await exec(`SELECT path FROM glob('${p}')`, { copyRoots })).map((r) => r[0]);
  assert.deepEqual(await glob('*.csv'), ['a.csv']);
  assert.deepEqual(await glob('**/*.csv'), ['a.csv', 'sub/c.csv', 'sub/deep/d.csv']);
  assert.deepEqual(await glob('sub/**'), ['sub/c.csv', 'sub/deep/d.csv']);
  assert.deepEqual(await glob('sub/?.csv'), ['sub/c.csv']);
  assert.deepEqual(await glob('[ab].*'), ['a.csv', 'b.parquet']);
  assert.deepEqual(await glob('[!a]*'), ['b.parquet']);
  assert.deepEqual(await glob('a.csv'), ['a.csv']);
  assert.deepEqual(await glob('*/deep/*'), ['sub/deep/d.csv']);
  assert.deepEqual(await glob(`${exportDir}/*.csv`), [`${exportDir}/e.csv`]);
  const past = sqlError("SELECT * FROM glob('sub/../../outside/*')", { copyRoots });
  assert.equal(past.position, 19);
  const away = sqlError(`SELECT * FROM glob('${outside}/*')`, { copyRoots });
  assert.match(away.message, /outside the copy roots/);
});

test('globMatch: wildcards, sets, ranges, escapes, without backtracking blow-up', () => {
  assert.ok(globMatch('trades.csv', '*.csv'));
  assert.ok(!globMatch('trades.csv.gz', '*.csv'));
  assert.ok(globMatch('x', '*'));
  assert.ok(globMatch('', '*'));
  assert.ok(globMatch('a1', '[a-c][0-9]'));
  assert.ok(!globMatch('d1', '[a-c][0-9]'));
  assert.ok(globMatch('d1', '[!a-c]?'));
  assert.ok(globMatch('*x', '\\*x'));
  assert.ok(!globMatch('yx', '\\*x'));
  assert.ok(!globMatch('a'.repeat(200), '*a*a*a*a*a*a*a*a*b'));
});

test('memory_metrics() reports the process memory Node.js measures', async () => {
  const got = new Map((await exec('SELECT memory_tag, bytes FROM memory_metrics()')).map(([k, v]) => [k, v]));
  const now = process.memoryUsage();
  assert.ok((got.get('RSS') as number) > 1 << 20);
  assert.ok((got.get('HEAP_USED') as number) <= (got.get('HEAP_TOTAL') as number));
  // Within a factor of the figures taken just after (same process, moments apart).
  assert.ok((got.get('RSS') as number) < now.rss * 2);
});

test('wal_transactions() reports the last commit: its number, its time and the rows after it', async () => {
  await exec('CREATE TABLE w (ts TIMESTAMP, v INT) TIMESTAMP(ts) PARTITION BY DAY WAL');
  await exec("INSERT INTO w VALUES ('2024-01-01T00:00:00Z', 1)");
  const before = Date.now() * 1000;
  await exec("INSERT INTO w VALUES ('2024-01-03T00:00:00Z', 2), ('2024-01-02T00:00:00Z', 3)");
  const [txn, at, rowCount, min, max] = (
    await exec("SELECT sequencerTxn, timestamp, rowCount, minTimestamp, maxTimestamp FROM wal_transactions('w')")
  )[0]!;
  assert.equal(txn, catalog.get('w').txn.txn);
  assert.ok((at as number) >= before - 1_000_000 && (at as number) <= Date.now() * 1000 + 1_000_000);
  assert.equal(rowCount, 3);
  assert.equal(min, Date.parse('2024-01-01T00:00:00Z') * 1000);
  assert.equal(max, Date.parse('2024-01-03T00:00:00Z') * 1000);
  assert.equal(
    at,
    Math.round(statSync(join(catalog.get('w').dir, '_txn')).mtimeMs * 1000),
    'the time of the _txn file',
  );
});

test('writer_pool() shows a table while its writer is held, and not after', async () => {
  await exec('CREATE TABLE held (v INT)');
  const writer = await catalog.writer('held');
  try {
    assert.deepEqual(await exec('SELECT table_name, owner_thread_id FROM writer_pool()'), [['held', 0]]);
  } finally {
    writer.close();
  }
  assert.deepEqual(await exec('SELECT table_name FROM writer_pool()'), []);
});

test('query_activity() lists the statements running in a database, itself included', async () => {
  const dbRoot = mkdtempSync(join(tmpdir(), 'svcdb-activity-'));
  const db = Database.open(dbRoot, { workerCount: 1 });
  try {
    const long = db.compile('SELECT x FROM long_sequence(100000000)');
    assert.ok(long.kind === 'select');
    const running = long.execute(signal);
    await running.next();
    const start = Date.now() * 1000;
    const listed = await rows(db.compile('SELECT query_id, state, query, query_start FROM query_activity()'));
    assert.deepEqual(
      listed.map((r) => [r[1], r[2]]),
      [
        ['active', 'SELECT x FROM long_sequence(100000000)'],
        ['active', 'SELECT query_id, state, query, query_start FROM query_activity()'],
      ],
    );
    assert.ok((listed[0]![0] as number) < (listed[1]![0] as number), 'ids in start order');
    assert.ok((listed[0]![3] as number) <= start + 1000);
    await running.return(undefined);
    assert.deepEqual(
      (await rows(db.compile('SELECT query FROM query_activity()'))).map((r) => r[0]),
      ['SELECT query FROM query_activity()'],
    );
  } finally {
    db.close();
    rmSync(dbRoot, { recursive: true, force: true });
  }
});

test('SHOW PARAMETERS says where each value came from and masks secrets', async () => {
  const dbRoot = mkdtempSync(join(tmpdir(), 'svcdb-parameters-'));
  mkdirSync(join(dbRoot, 'conf'));
  writeFileSync(join(dbRoot, 'conf', 'server.conf'), 'query.timeout=30s\nhttp.user=alice\nhttp.password=very-secret\n');
  const config = loadConfig(dbRoot, { SVC_CAIRO_COMMIT_MODE: 'nosync' }).config;
  const db = Database.open(dbRoot, { config, workerCount: 1 });
  try {
    const got = await rows(
      db.compile(
        "SELECT property_path, value, value_source, sensitive FROM (SHOW PARAMETERS) WHERE value_source <> 'default'",
      ),
    );
    assert.deepEqual(got, [
      ['http.user', 'alice', 'conf', false],
      ['http.password', '****', 'conf', true],
      ['query.timeout', '30s', 'conf', false],
      ['cairo.commit.mode', 'nosync', 'env', false],
    ]);
  } finally {
    db.close();
    rmSync(dbRoot, { recursive: true, force: true });
  }
});
