// End-to-end: DDL as QuestDB answers it over /exec: table metadata (SYMBOL
// options, index, WAL, DEDUP UPSERT KEYS) through tables(), table_columns(),
// SHOW COLUMNS and SHOW CREATE TABLE; ALTER COLUMN TYPE / ADD INDEX / DEDUP;
// deduplication on insert; QuestDB's error texts and positions.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { makeRoot, startServer, type ServerProcess } from '../helpers/server-process.js';

interface Body {
  columns?: Array<{ name: string; type: string }>;
  dataset?: unknown[][];
  error?: string;
  position?: number;
}

describe('DDL and catalog metadata', () => {
  const root = makeRoot();
  let s: ServerProcess;
  const exec = async (query: string): Promise<{ status: number; body: Body }> => {
    const r = await request(`${s.mainUrl}/exec?${new URLSearchParams({ query }).toString()}`);
    return { status: r.statusCode, body: (await r.body.json()) as Body };
  };
  const ok = async (query: string): Promise<void> => {
    const r = await exec(query);
    assert.equal(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
  };
  const rows = async (query: string): Promise<unknown[][]> => {
    const r = await exec(query);
    assert.equal(r.status, 200, `${query}: ${JSON.stringify(r.body)}`);
    return r.body.dataset!;
  };
  /** A refused statement: QuestDB's message and position. */
  const refused = async (query: string, error: string | RegExp, position: number): Promise<void> => {
    const r = await exec(query);
    assert.equal(r.status, 400, `${query}: ${JSON.stringify(r.body)}`);
    if (typeof error === 'string') assert.equal(r.body.error, error, query);
    else assert.match(r.body.error!, error, query);
    assert.equal(r.body.position, position, `${query}: position`);
  };

  before(async () => {
    s = await startServer({ root });
  });
  after(async () => {
    await s.stop();
  });

  test("tables() has QuestDB 9.3's 45 columns, filled from the table's state", async () => {
    await ok('create table tm (s symbol, v int, ts timestamp) timestamp(ts) partition by day');
    await ok("insert into tm values ('a', 1, '2024-01-01T01:00:00Z'), ('b', 2, '2024-01-03T00:00:00Z')");
    const r = await exec("select * from tables() where table_name = 'tm'");
    const cols = r.body.columns!;
    assert.equal(cols.length, 45);
    assert.deepEqual(
      cols.slice(0, 3).map((c) => c.name),
      ['id', 'table_name', 'designatedTimestamp'],
    );
    assert.deepEqual(cols.at(-1), { name: 'replica_more_pending', type: 'BOOLEAN' });
    const row = Object.fromEntries(cols.map((c, i) => [c.name, r.body.dataset![0]![i]]));
    assert.equal(row.walEnabled, true, 'a partitioned table is a WAL table by default');
    assert.equal(row.dedup, false);
    assert.equal(row.table_row_count, 2);
    assert.equal(row.table_min_timestamp, '2024-01-01T01:00:00.000000Z');
    assert.equal(row.table_max_timestamp, '2024-01-03T00:00:00.000000Z');
    assert.equal(typeof row.table_txn, 'number');
    assert.match(String(row.table_last_write_timestamp), /^\d{4}-\d\d-\d\dT/);
    assert.equal(row.wal_txn, null, 'figures svcdb does not keep are NULL');
    await ok('create table tm_plain (v int, ts timestamp) timestamp(ts) partition by day bypass wal');
    await ok('create table tm_none (v int)');
    assert.deepEqual(
      await rows("select table_name, walEnabled from tables() where table_name like 'tm_%' order by 1"),
      [
        ['tm_none', false],
        ['tm_plain', false],
      ],
    );
  });

  test('SYMBOL options and indexes show in table_columns(), SHOW COLUMNS and SHOW CREATE TABLE', async () => {
    await ok(
      'create table so (a symbol, b symbol capacity 1000 nocache, c symbol index capacity 100, v double, ts timestamp) timestamp(ts) partition by day',
    );
    const expected = [
      ['a', 'SYMBOL', false, 256, true, 256, 0, false, false],
      ['b', 'SYMBOL', false, 256, false, 1024, 0, false, false], // capacities rounded up to a power of 2
      ['c', 'SYMBOL', true, 128, true, 256, 0, false, false],
      ['v', 'DOUBLE', false, 0, false, 0, 0, false, false],
      ['ts', 'TIMESTAMP', false, 0, false, 0, 0, true, false],
    ];
    assert.deepEqual(await rows("select * from table_columns('so')"), expected);
    assert.deepEqual(await rows('show columns from so'), expected);
    assert.deepEqual(await rows('show create table so'), [
      [
        "CREATE TABLE 'so' ( \n\ta SYMBOL,\n\tb SYMBOL CAPACITY 1024 NOCACHE,\n\tc SYMBOL INDEX CAPACITY 128,\n\tv DOUBLE,\n\tts TIMESTAMP\n) timestamp(ts) PARTITION BY DAY;",
      ],
    ]);
    await ok(
      'create table so2 (v int, ts timestamp) timestamp(ts) partition by hour bypass wal with maxUncommittedRows=1000',
    );
    assert.deepEqual(await rows('show create table so2'), [
      [
        "CREATE TABLE 'so2' ( \n\tv INT,\n\tts TIMESTAMP\n) timestamp(ts) PARTITION BY HOUR BYPASS WAL\nWITH maxUncommittedRows=1000;",
      ],
    ]);
    await refused("select * from table_columns('so_missing')", 'table does not exist [table=so_missing', 28);
  });

  test('ALTER COLUMN ADD INDEX / DROP INDEX set the flag; only SYMBOL columns take one', async () => {
    await ok('create table ix (s symbol, v int)');
    await ok("insert into ix values ('a', 1), ('b', 2)");
    await ok('alter table ix alter column s add index');
    assert.deepEqual(await rows('select "column", indexed from table_columns(\'ix\')'), [
      ['s', true],
      ['v', false],
    ]);
    assert.deepEqual(await rows("select v from ix where s = 'b'"), [[2]]);
    await ok('alter table ix alter column s drop index');
    assert.deepEqual(await rows('select "column", indexed from table_columns(\'ix\')'), [
      ['s', false],
      ['v', false],
    ]);
    await refused(
      'alter table ix alter column v add index',
      'indexes are only supported for symbol type [column=v, type=INT]',
      28,
    );
    await refused(
      'create table ix2 as (select x, cast(x as string) s from long_sequence(2)), index(s)',
      'indexes are supported only for SYMBOL columns: s',
      0,
    );
    await refused(
      'create table ix2 as (select x, cast(x as string) s from long_sequence(2)), cast(s as int), index(s)',
      'indexes are supported only for SYMBOL columns: s',
      97,
    );
    await refused('create table ix2 (v int index, s symbol)', "',' or ')' expected", 24);
    await refused('create table ix2 (v int capacity 4)', "',' or ')' expected", 24);
    await ok('create table ix3 as (select x, cast(x as string) s from long_sequence(2)), cast(s as symbol), index(s)');
    assert.deepEqual(await rows('select "column", type, indexed from table_columns(\'ix3\')'), [
      ['x', 'LONG', false],
      ['s', 'SYMBOL', true],
    ]);
  });

  test('DEDUP UPSERT KEYS: rows with equal keys replace each other, within an insert and across them', async () => {
    await ok(
      'create table dd (k symbol, s string, v int, ts timestamp) timestamp(ts) partition by day dedup upsert keys(ts, k, s)',
    );
    await ok(`insert into dd values ('a', 'x', 1, '2024-01-01'), ('a', 'x', 2, '2024-01-01'), ('a', null, 3, '2024-01-01'),
      ('a', null, 4, '2024-01-01'), ('b', 'x', 5, '2024-01-01'), ('a', 'x', 6, '2024-01-02')`);
    assert.deepEqual(await rows('select k, s, v from dd order by ts, k, s'), [
      ['a', null, 4],
      ['a', 'x', 2],
      ['b', 'x', 5],
      ['a', 'x', 6],
    ]);
    // Later rows replace earlier ones, out of order too; a new key at an existing timestamp is added.
    await ok(
      "insert into dd values ('a', 'x', 10, '2024-01-01'), ('c', 'x', 7, '2024-01-01'), ('a', 'x', 60, '2024-01-02')",
    );
    assert.deepEqual(await rows('select k, s, v from dd order by ts, k, s'), [
      ['a', null, 4],
      ['a', 'x', 10],
      ['b', 'x', 5],
      ['c', 'x', 7],
      ['a', 'x', 60],
    ]);
    assert.deepEqual(await rows('select "column", upsertKey from table_columns(\'dd\')'), [
      ['k', true],
      ['s', true],
      ['v', false],
      ['ts', true],
    ]);
    assert.deepEqual(await rows("select dedup from tables() where table_name = 'dd'"), [[true]]);
    assert.match(String((await rows('show create table dd'))[0]![0]), /\nDEDUP UPSERT KEYS\(k,s,ts\);$/);
    // DEDUP DISABLE: equal keys are kept from then on.
    await ok('alter table dd dedup disable');
    await ok("insert into dd values ('c', 'x', 8, '2024-01-01')");
    assert.deepEqual(await rows("select v from dd where k = 'c' order by v"), [[7], [8]]);
    assert.deepEqual(await rows("select dedup from tables() where table_name = 'dd'"), [[false]]);
    // DEDUP ENABLE on the timestamp alone: one row per timestamp, the last written.
    await ok('alter table dd dedup enable upsert keys(ts)');
    await ok("insert into dd values ('z', 'z', 99, '2024-01-03'), ('y', 'y', 98, '2024-01-03')");
    assert.deepEqual(await rows("select k, v from dd where ts = '2024-01-03'"), [['y', 98]]);
    await refused(
      'alter table dd dedup enable upsert keys(k)',
      'deduplicate key list must include dedicated timestamp column [column=ts]',
      40,
    );
    await refused(
      'alter table dd dedup enable upsert keys(ts, nope)',
      'deduplicate key column not found [column=nope]',
      44,
    );
    await ok('create table dd_bypass (k symbol, ts timestamp) timestamp(ts) partition by day bypass wal');
    await refused(
      'alter table dd_bypass dedup enable upsert keys(ts)',
      'deduplication is possible only on WAL tables',
      47,
    );
  });

  test('ALTER COLUMN TYPE rewrites the column, converting its values as cast() does', async () => {
    await ok(
      'create table ct (i int, s string, v varchar, d double, sy symbol, ts timestamp) timestamp(ts) partition by day',
    );
    await ok(`insert into ct values (1, '10', 'abc', 1.7, 'q', '2024-01-01'), (null, 'x', null, null, null, '2024-01-02'),
      (3, '2.5', 'z', -2.5, 'r', '2024-01-03')`);
    for (const [col, type] of [
      ['i', 'long'],
      ['s', 'double'],
      ['v', 'symbol'],
      ['d', 'int'],
      ['sy', 'varchar'],
    ]) {
      await ok(`alter table ct alter column ${col} type ${type}`);
    }
    const expected = [
      [1, 10, 'abc', 1, 'q', '2024-01-01T00:00:00.000000Z'],
      [null, null, null, null, null, '2024-01-02T00:00:00.000000Z'],
      [3, 2.5, 'z', -2, 'r', '2024-01-03T00:00:00.000000Z'],
    ];
    assert.deepEqual(await rows('select * from ct'), expected);
    assert.deepEqual(await rows("select type from table_columns('ct')"), [
      ['LONG'],
      ['DOUBLE'],
      ['SYMBOL'],
      ['INT'],
      ['VARCHAR'],
      ['TIMESTAMP'],
    ]);
    await ok("insert into ct values (4, 4.5, 'abc', 4, 'new', '2024-01-04')");
    assert.deepEqual(await rows("select i from ct where v = 'abc'"), [[1], [4]]);
    await ok('alter table ct alter column sy type symbol capacity 1000 nocache index');
    assert.deepEqual(
      await rows("select indexed, symbolCached, symbolCapacity from table_columns('ct') where \"column\" = 'sy'"),
      [[true, false, 1024]],
    );
    assert.deepEqual(await rows("select i from ct where sy = 'new'"), [[4]]);
    await refused(
      'alter table ct alter column ts type long',
      'cannot change type of designated timestamp column [column=ts]',
      28,
    );
    await refused('alter table ct alter column nope type long', 'Invalid column: nope', 28);
  });

  test('CREATE TABLE (LIKE t) copies the structure: timestamp, partitioning, WAL, symbol options, keys', async () => {
    await ok(
      'create table lk_a (v int, s symbol capacity 512 index, ts timestamp) timestamp(ts) partition by month dedup upsert keys(ts, s)',
    );
    await ok("insert into lk_a values (1, 'x', '2024-01-01')");
    await ok('create table lk_b (like lk_a)');
    assert.deepEqual(
      await rows("select designatedTimestamp, partitionBy, walEnabled, dedup from tables() where table_name = 'lk_b'"),
      [['ts', 'MONTH', true, true]],
    );
    const shape =
      'select "column", type, indexed, indexBlockCapacity, symbolCached, symbolCapacity, designated, upsertKey from table_columns';
    assert.deepEqual(await rows(`${shape}('lk_b')`), await rows(`${shape}('lk_a')`));
    assert.deepEqual(await rows(`${shape}('lk_b') where "column" = 's'`), [
      ['s', 'SYMBOL', true, 256, true, 512, false, true],
    ]);
    assert.deepEqual(await rows('select count() from lk_b'), [[0]]);
  });

  test('the metadata survives a restart', async () => {
    const before = await rows("select * from table_columns('dd')");
    const ct = await rows('select * from ct');
    await s.stop();
    s = await startServer({ root });
    assert.deepEqual(await rows("select * from table_columns('dd')"), before);
    assert.deepEqual(await rows('select * from ct'), ct);
    await ok("insert into dd values ('q', 'q', 1, '2024-01-03')");
    assert.deepEqual(await rows("select k, v from dd where ts = '2024-01-03'"), [['q', 1]], 'dedup still applies');
  });

  test('PARTITION BY NONE with a designated timestamp takes rows in timestamp order only', async () => {
    await ok('create table pn (v int, ts timestamp) timestamp(ts) partition by none');
    await ok("insert into pn values (2, '2023-05-01'), (1, '2024-01-01T10:00:00Z')");
    await refused(
      "insert into pn values (3, '2022-01-01')",
      /^cannot insert rows out of order to non-partitioned table\. Table=/,
      26,
    );
    await refused(
      "insert into pn values (4, '2024-02-01'), (5, '2024-01-15')",
      /^cannot insert rows out of order to non-partitioned table\. Table=/,
      45,
    );
    assert.deepEqual(await rows('select v from pn'), [[2], [1]], 'a refused insert leaves nothing');
    await ok("insert into pn values (6, '2024-01-01T10:00:00Z')");
    await refused(
      'create table pn2 (v int, ts timestamp) partition by day',
      'partitioning is possible only on tables with designated timestamps',
      52,
    );
  });

  test("QuestDB's texts and positions for DDL and INSERT mistakes", async () => {
    await ok('create table er_T (a int, b string)');
    await refused('create table er_t (v int)', 'table already exists', 13);
    await ok('create table er_b (v int)');
    await refused('rename table er_t to er_b', 'Rename target exists', 0);
    await refused('rename table er_missing to er_c', 'table does not exist [table=er_missing]', 0);
    await refused('drop table er_t, er_b', 'unexpected token [,]', 15);
    assert.deepEqual(await rows("select count() from tables() where table_name like 'er_%'"), [[2]]);
    await refused(
      'insert into er_t values (1)',
      'row value count does not match column count [expected=2, actual=1, tuple=1]',
      26,
    );
    await refused(
      "insert into er_t values (1, 'a'), (1, 'a', 3)",
      'row value count does not match column count [expected=2, actual=3, tuple=2]',
      44,
    );
    await refused('alter table er_t rename column a to B', ' column already exists', 36);
    await ok('create table er_ts (v int, ts timestamp) timestamp(ts) partition by day');
    await refused(
      'alter table er_ts drop column ts',
      'cannot remove designated timestamp column [table=er_ts, column=ts]',
      0,
    );
    await refused(
      'alter table er_ts add column c1 double, c2 symbol',
      "statement is either no-op, or contains multiple transactions, such as 'alter table add column col1, col2', and currently not supported for WAL tables [table=er_ts, oldStructureVersion=0, newStructureVersion=2]",
      0,
    );
    await refused(
      'alter table er_ts drop column v, ts',
      'cannot remove designated timestamp column [table=er_ts, column=ts]',
      0,
    );
    await ok('create table er_ts2 (a int, b int, c int, ts timestamp) timestamp(ts) partition by day');
    await refused(
      'alter table er_ts2 drop column a, b',
      /^statement is either no-op, or contains multiple transactions.*oldStructureVersion=0, newStructureVersion=2\]$/,
      0,
    );
    await ok('create table er_np (a int, b int, c int)');
    await ok('alter table er_np drop column a, b');
    await ok('alter table er_ts add column c1 double');
    await ok('alter table er_t add column c1 double, c2 symbol');
    assert.deepEqual(await rows('select "column" from table_columns(\'er_t\')'), [['a'], ['b'], ['c1'], ['c2']]);
  });

  test('quoted table and column names may hold spaces', async () => {
    await ok('create table "my table" ("my col" int, "select" string)');
    await ok(`insert into "my table" values (1, 'a')`);
    assert.deepEqual(await rows('select "my col", "select" from "my table"'), [[1, 'a']]);
    assert.deepEqual(await rows("select table_name from tables() where table_name = 'my table'"), [['my table']]);
    await ok('alter table "my table" rename column "my col" to "your col"');
    await ok('rename table "my table" to "our table"');
    assert.deepEqual(await rows('select "your col" from "our table"'), [[1]]);
  });
});
