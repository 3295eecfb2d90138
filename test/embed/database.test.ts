// The embedded database, imported as a user imports it ('svcdb'): DDL and DML
// with execute(), queries as streams of batches and as plain rows, importCsv
// from a path, bytes and a stream with /imp's options and result, SQL errors
// with positions, abort, close, and the root's lock against a running server
// (both ways) and against a second openDatabase.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createReadStream, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { getEventListeners } from 'node:events';
import { request } from 'undici';
import { batchesToCsv, openDatabase, type Database, type RecordBatch, type Row } from 'svcdb';
import { makeRoot, startServer } from '../helpers/server-process.js';

async function all(rows: AsyncIterable<Row>): Promise<Row[]> {
  const out: Row[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

describe('openDatabase', () => {
  let root: string;
  let db: Database;
  before(() => {
    root = makeRoot();
    db = openDatabase(root);
  });
  after(async () => {
    await db.close();
  });

  test('execute() runs DDL and DML; query() streams batches and rows', async () => {
    assert.deepEqual(
      await db.execute(
        'CREATE TABLE t (ts TIMESTAMP, sym SYMBOL, px DOUBLE, n LONG, ok BOOLEAN, u UUID, ip IPV4) TIMESTAMP(ts) PARTITION BY DAY',
      ),
      { kind: 'ddl', rows: 0 },
    );
    assert.deepEqual(
      await db.execute(`INSERT INTO t VALUES
      ('2024-01-01T00:00:00.000001Z', 'a', 1.5, 10, true, '11111111-2222-3333-4444-555555555555', '10.0.0.1'),
      ('2024-01-02T00:00:00Z', 'b', NULL, NULL, false, NULL, NULL)`),
      { kind: 'insert', rows: 2 },
    );
    assert.deepEqual(await db.execute("UPDATE t SET px = 2.5 WHERE sym = 'b'"), { kind: 'update', rows: 1 });

    const q = db.query('SELECT * FROM t');
    assert.deepEqual(
      q.fields.map((f) => `${f.name} ${f.type}`),
      ['ts TIMESTAMP', 'sym SYMBOL', 'px DOUBLE', 'n LONG', 'ok BOOLEAN', 'u UUID', 'ip IPV4'],
    );
    assert.equal(q.timestamp, 0);
    assert.deepEqual(await all(q.rows()), [
      {
        ts: '2024-01-01T00:00:00.000001Z',
        sym: 'a',
        px: 1.5,
        n: 10,
        ok: true,
        u: '11111111-2222-3333-4444-555555555555',
        ip: '10.0.0.1',
      },
      { ts: '2024-01-02T00:00:00.000000Z', sym: 'b', px: 2.5, n: null, ok: false, u: null, ip: null },
    ]);
    // TIMESTAMP_NS as ISO text with nine digits, DOUBLE arrays as nested arrays (NULL elements null).
    assert.deepEqual(
      await all(
        db
          .query(
            "SELECT '2024-01-02T03:04:05.123456789Z'::timestamp_ns tn, ARRAY[[1.0, null], [3.0, 4.5]] a, ARRAY[2.0][5] e FROM long_sequence(1)",
          )
          .rows(),
      ),
      [
        {
          tn: '2024-01-02T03:04:05.123456789Z',
          a: [
            [1, null],
            [3, 4.5],
          ],
          e: null,
        },
      ],
    );
    const batches: RecordBatch[] = [];
    for await (const b of db.query('SELECT sym, count() FROM t ORDER BY sym')) batches.push(b as RecordBatch);
    assert.equal(
      batches.reduce((n, b) => n + b.rowCount, 0),
      2,
    );
    assert.deepEqual(batches[0]!.fields, [
      { name: 'sym', type: 'SYMBOL' },
      { name: 'count()', type: 'LONG' },
    ]);

    // Empty result: one batch without rows, so writers still get the columns.
    const out: Buffer[] = [];
    await pipeline(
      db.query("SELECT sym, px FROM t WHERE sym = 'zzz'"),
      batchesToCsv(),
      new Writable({
        write(c: Buffer, _e, cb) {
          out.push(c);
          cb();
        },
      }),
    );
    assert.equal(Buffer.concat(out).toString(), '"sym","px"\n');
  });

  test('SQL errors throw with their position; statements go to the right method', async () => {
    assert.throws(
      () => db.query('SELECT nosuch FROM t'),
      (e: Error & { position?: number }) => {
        assert.match(e.message, /Invalid column: nosuch/);
        assert.equal(e.position, 7);
        return true;
      },
    );
    assert.throws(() => db.query('SELECT * FROM missing'), /table does not exist \[table=missing\]/);
    assert.throws(() => db.query('DROP TABLE t'), /query\(\) runs SELECT statements; use execute\(\) for DDL/);
    await assert.rejects(db.execute('SELECT 1'), /execute\(\) runs DDL, INSERT and UPDATE; use query\(\) for SELECT/);
    await assert.rejects(db.execute("INSERT INTO t VALUES ('x')"), /.+/);
  });

  test('importCsv takes a path, bytes or a stream, with /imp options and /imp result', async () => {
    const csv =
      'ts,sym,price\n2024-01-01T00:00:00.000000Z,a,1.5\n2024-01-01T00:00:01.000000Z,b,oops\n2024-01-01T00:00:02.000000Z,c,3\n';
    const file = join(root, 'My Trades.csv');
    writeFileSync(file, csv);
    const fromPath = await db.importCsv(file, {
      timestamp: 'ts',
      partitionBy: 'DAY',
      schema: [{ name: 'price', type: 'DOUBLE' }],
    });
    assert.deepEqual(fromPath, {
      status: 'OK',
      location: 'MyTrades',
      rowsRejected: 0,
      rowsImported: 3,
      header: true,
      partitionBy: 'DAY',
      timestamp: 'ts',
      columns: [
        { name: 'ts', type: 'TIMESTAMP', size: 8, errors: 0 },
        { name: 'sym', type: 'CHAR', size: 2, errors: 0 },
        { name: 'price', type: 'DOUBLE', size: 8, errors: 1 },
      ],
      warnings: [],
    });
    // The table is named from the file, as /imp names it.
    assert.deepEqual(await all(db.query('SELECT sym, price FROM MyTrades').rows()), [
      { sym: 'a', price: 1.5 },
      { sym: 'b', price: null },
      { sym: 'c', price: 3 },
    ]);

    const fromBytes = await db.importCsv(gzipSync(Buffer.from(csv)), {
      name: 'gz',
      atomicity: 'skipRow',
      schema: [{ name: 'price', type: 'DOUBLE' }],
    });
    assert.equal(fromBytes.rowsImported, 2);
    assert.equal(fromBytes.rowsRejected, 1);
    const fromStream = await db.importCsv(Readable.from([csv.slice(0, 20), csv.slice(20)]), {
      name: 'streamed',
      overwrite: true,
    });
    assert.equal(fromStream.rowsImported, 3);
    // A file stream is bytes too: what it reads is imported (it has a `path`, but the file is not read again by name).
    const headerAndOneRow = csv.indexOf('\n', csv.indexOf('\n') + 1);
    const fromFileStream = await db.importCsv(createReadStream(file, { end: headerAndOneRow }), {
      name: 'from_file_stream',
    });
    assert.equal(fromFileStream.rowsImported, 1);
    const fromFd = await db.importCsv(createReadStream('', { fd: openSync(file, 'r') }), { name: 'from_fd' });
    assert.equal(fromFd.rowsImported, 3);

    await assert.rejects(db.importCsv(Buffer.from(csv)), /importCsv needs the name option/);
    await assert.rejects(
      db.importCsv(Buffer.from(csv), { name: 'x', atomicity: 'never' as 'abort' }),
      /invalid value for parameter atomicity: never/,
    );
    await assert.rejects(
      db.importCsv(Buffer.from(csv), { name: 'x', partitionBy: 'DAY' }),
      /when specifying partitionBy you must also specify timestamp$/,
    );
    await assert.rejects(db.importCsv(join(root, 'nope.csv')), /cannot read .*nope\.csv: no such file/);
    await assert.rejects(
      db.importCsv(Buffer.from('a,b,c,d\n1,2,3,4\n'), { name: 'streamed' }),
      /column count mismatch \[textColumnCount=4, tableColumnCount=3, table=streamed\]/,
    );
    // A failed import leaves nothing behind.
    assert.deepEqual(await all(db.query("SELECT count() FROM tables() WHERE table_name = 'x'").rows()), [
      { 'count()': 0 },
    ]);
  });

  test("importCsv keeps to server.conf's import limits and leaves nothing when past one", async () => {
    const limited = makeRoot();
    mkdirSync(join(limited, 'conf'), { recursive: true });
    writeFileSync(
      join(limited, 'conf', 'server.conf'),
      'import.max.columns=4\nimport.memory.limit=4m\nhttp.text.roll.buffer.limit=1k\n',
    );
    const small = openDatabase(limited);
    try {
      await assert.rejects(
        small.importCsv(Buffer.from('a,b,c,d,e\n1,2,3,4,5\n'), { name: 'wide' }),
        /the file has 5 columns, more than the limit of 4 \[limit=import\.max\.columns/,
      );
      await assert.rejects(
        small.importCsv(Buffer.from(`a,b\n1,2\n3,"${'x'.repeat(5000)}`), { name: 'long' }),
        /longer than the limit of 1024 bytes \[limit=http\.text\.roll\.buffer\.limit/,
      );
      await small.execute('CREATE TABLE late (ts TIMESTAMP, v DOUBLE) TIMESTAMP(ts) PARTITION BY DAY');
      await small.execute("INSERT INTO late VALUES ('2030-01-01T00:00:00Z', 1)");
      const rows = Array.from(
        { length: 200_000 },
        (_, i) => `${new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString()},${i}`,
      ).join('\n');
      await assert.rejects(
        small.importCsv(Buffer.from(`ts,v\n${rows}\n`), { name: 'late' }),
        /needs more than the memory limit of 4194304 bytes \[limit=import\.memory\.limit/,
      );
      assert.deepEqual(
        await all(small.query("SELECT count() FROM tables() WHERE table_name IN ('wide', 'long')").rows()),
        [{ 'count()': 0 }],
      );
      assert.deepEqual(await all(small.query('SELECT count() FROM late').rows()), [{ 'count()': 1 }]);
    } finally {
      await small.close();
    }
  });

  test('an aborted query stops; a closed database refuses', async () => {
    await db.execute('CREATE TABLE big AS (SELECT x FROM long_sequence(3000000))');
    const ac = new AbortController();
    const q = db.query('SELECT x FROM big', { signal: ac.signal });
    let rows = 0;
    await assert.rejects(
      (async () => {
        for await (const b of q) {
          rows += (b as RecordBatch).rowCount;
          ac.abort(new Error('enough'));
        }
      })(),
      /enough|aborted/,
    );
    assert.ok(rows < 3_000_000, `the query ran to the end (${rows} rows) after the abort`);
    // A signal shared by many operations is let go of by each when it ends.
    const shared = new AbortController();
    for (let i = 0; i < 20; i++) await all(db.query('SELECT count() FROM big', { signal: shared.signal }).rows());
    await db.execute('CREATE TABLE tiny (a INT)', { signal: shared.signal });
    assert.equal(getEventListeners(shared.signal, 'abort').length, 0);
    // Leaving the loop early (break) stops the query too; later queries work.
    for await (const _ of db.query('SELECT x FROM big')) break;
    assert.deepEqual(await all(db.query('SELECT count() FROM big').rows()), [{ 'count()': 3_000_000 }]);
  });
});

describe('the root lock', () => {
  test('a second openDatabase of the same root is refused; close() releases it', async () => {
    const root = makeRoot();
    const db = openDatabase(root);
    assert.throws(() => openDatabase(root), /cannot open the database .*: the database .* is in use by process \d+/);
    await db.close();
    await assert.rejects(db.execute('CREATE TABLE z (a INT)'), /is closed/);
    const again = openDatabase(root);
    await again.close();
  });

  test('a root a running server holds is refused, and a server cannot start on a root held here', async () => {
    const server = await startServer({ root: makeRoot() }); // a root of our own: kept after stop
    try {
      const r = await request(`${server.mainUrl}/exec?query=${encodeURIComponent('create table kept (a int)')}`);
      assert.equal(r.statusCode, 200, await r.body.text());
      assert.throws(
        () => openDatabase(server.root),
        /in use by process \d+ \(a running svcdb server, or another openDatabase\)/,
      );
    } finally {
      await server.stop();
    }
    // The server is gone: the folder opens, with the server's table in it.
    const db = openDatabase(server.root);
    try {
      assert.deepEqual(await all(db.query("SELECT table_name FROM tables() WHERE table_name = 'kept'").rows()), [
        { table_name: 'kept' },
      ]);
      const blocked = await startServer({ root: server.root, noWait: true });
      const code = await blocked.exited;
      assert.notEqual(code, 0);
      assert.match(blocked.stdout() + blocked.stderr(), /in use by process/);
    } finally {
      await db.close();
    }
  });
});

test('openDatabase takes workerCount (shared.worker.count): 1 or more threads, anything else refused before the folder is taken', async () => {
  const root = makeRoot();
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    assert.throws(() => openDatabase(root, { workerCount: bad }), /workerCount must be an integer of 1 or more/);
  }
  for (const n of [1, 3]) {
    const db = openDatabase(root, { workerCount: n }); // the folder was not left locked by a refused open
    try {
      await db.execute('CREATE TABLE IF NOT EXISTS t (x LONG)');
      assert.deepEqual(await all(db.query('SELECT count() n FROM t').rows()), [{ n: 0 }]);
    } finally {
      await db.close();
    }
  }
});
