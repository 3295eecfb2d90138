// The compile() entry point beyond what golden files show: result kinds and
// counts, EXPLAIN, cancellation through the signal, the memory limit, and that
// scans read only the columns a query uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Catalog } from '../../lib/storage/catalog.js';
import { compile, type CompiledStatement } from '../../lib/exec/engine.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import { valueAt } from '../../lib/exec/vectors.js';
import { ENGINE, tempCatalog } from '../helpers/engine.js';

const { root, catalog } = tempCatalog('svcdb-engine-');
const signal = new AbortController().signal;

async function rows(s: CompiledStatement, sig = signal): Promise<unknown[][]> {
  assert.equal(s.kind, 'select');
  const out: unknown[][] = [];
  if (s.kind === 'select')
    for await (const b of s.execute(sig))
      for (let i = 0; i < b.rowCount; i++) out.push(b.columns.map((c) => valueAt(c, i)));
  return out;
}

/** Runs any statement on catalog `c`: a query's rows, or none. */
async function execOn(c: Catalog, sql: string): Promise<unknown[][]> {
  const s = compile(sql, { ...ENGINE, catalog: c });
  if (s.kind !== 'select') {
    await s.execute(signal);
    return [];
  }
  return rows(s);
}

async function run(sql: string): Promise<number> {
  const s = compile(sql, { ...ENGINE, catalog });
  assert.notEqual(s.kind, 'select');
  return s.kind === 'select' ? 0 : (await s.execute(signal)).rows;
}

test('reports the kind of each statement and the rows INSERT and UPDATE touched', async () => {
  assert.equal(compile('CREATE TABLE k (ts TIMESTAMP, x INT) TIMESTAMP(ts)', { ...ENGINE, catalog }).kind, 'ddl');
  await run('CREATE TABLE k (ts TIMESTAMP, x INT) TIMESTAMP(ts)');
  assert.equal(await run("INSERT INTO k VALUES ('2024-01-01', 1), ('2024-01-02', 2), ('2024-01-03', 3)"), 3);
  assert.equal(compile('UPDATE k SET x = 0 WHERE x > 1', { ...ENGINE, catalog }).kind, 'update');
  assert.equal(await run('UPDATE k SET x = 0 WHERE x > 1'), 2);
  assert.equal(await run('UPDATE k SET x = 5 WHERE x > 100'), 0);
  assert.deepEqual(await rows(compile('SELECT x FROM k', { ...ENGINE, catalog })), [[1], [0], [0]]);
});

test('EXPLAIN shows the operator tree, with the pruned columns and pushed intervals', async () => {
  await run('CREATE TABLE e (ts TIMESTAMP, a DOUBLE, b DOUBLE) TIMESTAMP(ts) PARTITION BY DAY');
  const s = compile("EXPLAIN SELECT sum(a) FROM e WHERE ts >= '2024-01-02'", { ...ENGINE, catalog });
  assert.ok(s.kind === 'select');
  assert.deepEqual(s.fields, [{ name: 'QUERY PLAN', type: 'STRING' }]);
  const lines = (await rows(s)).map((r) => r[0] as string);
  assert.match(lines[0]!, /^VirtualRecord/);
  // The condition became the scan's interval: no filter is left, and the scan reads only column a.
  assert.ok(
    lines.some((l) => /^ +GroupBy keys: \[\] values: \[sum\(\$0\)\]/.test(l)),
    lines.join('\n'),
  );
  assert.ok(!lines.some((l) => /Filter/.test(l)), lines.join('\n'));
  assert.ok(
    lines.some((l) => /DataFrame table: e intervals: \[\("2024-01-02T00:00:00.000000Z","MAX"\)\]/.test(l)),
    lines.join('\n'),
  );
  const plan = (compile('SELECT sum(a) FROM e', { ...ENGINE, catalog }) as { plan: unknown }).plan;
  assert.match(JSON.stringify(plan), /"columns":\["a"\]/, 'the scan reads only column a');
});

test('an aborted signal stops a running query within a batch', async () => {
  const c = new AbortController();
  const s = compile('SELECT x FROM long_sequence(100000000)', { ...ENGINE, catalog });
  assert.ok(s.kind === 'select');
  let seen = 0;
  await assert.rejects(async () => {
    for await (const b of s.execute(c.signal)) {
      seen += b.rowCount;
      if (seen > 50_000) c.abort(new SvcError('TIMEOUT', 'timeout, query aborted'));
    }
  }, /timeout, query aborted/);
  assert.ok(seen < 100_000, `stopped after ${seen} rows`);
});

test('a sort past the memory limit fails with a clear error instead of exhausting memory', async () => {
  const s = compile('SELECT x FROM long_sequence(200000) ORDER BY x DESC', {
    ...ENGINE,
    catalog,
    memoryLimit: 100_000,
  });
  await assert.rejects(() => rows(s), /ORDER BY needs more than the memory limit of 100000 bytes/);
});

test('syntax and binding errors carry positions', () => {
  const cases: Array<[string, number]> = [
    ['SELECT * FROM nope', 14],
    ['SELECT nope FROM long_sequence(1)', 7],
    ['SELECT 1 FROM long_sequence(1) WHERE', 31],
    ['SELECT sum(x) + FROM long_sequence(1)', 16],
  ];
  for (const [sql, pos] of cases) {
    assert.throws(
      () => compile(sql, { ...ENGINE, catalog }),
      (e: unknown) => e instanceof SvcError && e.code === 'SQL' && e.position === pos,
      sql,
    );
  }
});

test('ORDER BY with LIMIT keeps only the best rows while streaming, with the same answer as a full sort', async () => {
  const q = (limit: string) =>
    compile(`SELECT x % 1000 AS k, x FROM long_sequence(300000) ORDER BY k DESC, x ${limit}`, {
      ...ENGINE,
      catalog,
      memoryLimit: 64 << 20,
    });
  const top = await rows(q('LIMIT 5'));
  assert.deepEqual(top, [
    [999, 999],
    [999, 1999],
    [999, 2999],
    [999, 3999],
    [999, 4999],
  ]);
  const full = (await rows(q(''))).slice(0, 5);
  assert.deepEqual(top, full);
  // A limit far below the input fits in a memory budget a full sort would exceed.
  const small = compile('SELECT x FROM long_sequence(2000000) ORDER BY x DESC LIMIT 3', {
    ...ENGINE,
    catalog,
    memoryLimit: 4 << 20,
  });
  assert.deepEqual(await rows(small), [[2000000], [1999999], [1999998]]);
});

test('orders and groups by UUID columns (hex order) instead of failing', async () => {
  await run('CREATE TABLE uu (id UUID, x INT)');
  assert.equal(await run('INSERT INTO uu SELECT rnd_uuid4(), cast(x AS INT) FROM long_sequence(50)'), 50);
  const sorted = (await rows(compile('SELECT id FROM uu ORDER BY id', { ...ENGINE, catalog }))).map(
    (r) => r[0] as string,
  );
  assert.equal(sorted.length, 50);
  assert.deepEqual(sorted, [...sorted].sort());
  const grouped = await rows(compile('SELECT id, count() AS n FROM uu', { ...ENGINE, catalog }));
  assert.equal(grouped.length, 50);
  assert.ok(grouped.every((r) => /^[0-9a-f]{32}$/.test(r[0] as string) && r[1] === 1));
});

test('an interval literal opens only the matching partitions: about its share of the bytes is read', async () => {
  const dir = join(root, 'pruning');
  let c = Catalog.open(dir, {
    commitMode: 'nosync',
    writerWaitMs: 100,
    readerCacheSize: 64 << 20,
    maxUncommittedRows: 1_000_000,
    o3MaxLag: 0,
  });
  const exec = (sql: string): Promise<unknown[][]> => execOn(c, sql);
  await exec('CREATE TABLE p (ts TIMESTAMP, x LONG, d DOUBLE) TIMESTAMP(ts) PARTITION BY DAY');
  // 30 days, 2,000 rows a day.
  await exec(
    "INSERT INTO p SELECT timestamp_sequence('2024-01-01T00:00:00.000000Z', 43200000L), x, x / 3.0 FROM long_sequence(60000)",
  );
  c.close();
  c = Catalog.open(dir, {
    commitMode: 'nosync',
    writerWaitMs: 100,
    readerCacheSize: 64 << 20,
    maxUncommittedRows: 1_000_000,
    o3MaxLag: 0,
  });
  try {
    const total = c.get('p').txn.partitions.length;
    assert.equal(total, 30);
    const before = c.cache.bytesRead;
    assert.deepEqual(await exec("SELECT count() c, sum(x) s FROM p WHERE ts IN '2024-01-15'"), [
      [2000, Array.from({ length: 2000 }, (_, i) => 28001 + i).reduce((a, b) => a + b, 0)],
    ]);
    const read = c.cache.bytesRead - before;
    // One day of ts and x: 2,000 rows x 16 bytes, read in 64 KiB chunks; far from 30 days (960 KB).
    assert.ok(read > 0 && read <= 2 * 65536 + 64, `read ${read} bytes`);
    const two = c.cache.bytesRead;
    assert.equal((await exec("SELECT count() c FROM p WHERE ts IN '2024-01-[03,20]' AND x > 0"))[0]![0], 4000);
    assert.ok(c.cache.bytesRead - two <= 4 * 65536 + 64);
  } finally {
    c.close();
  }
});

test('the committed state knows whether a symbol column holds NULL; LATEST ON then stops once every symbol was seen', async () => {
  const dir = join(root, 'latest');
  let c = Catalog.open(dir, {
    commitMode: 'nosync',
    writerWaitMs: 100,
    readerCacheSize: 64 << 20,
    maxUncommittedRows: 1_000_000,
    o3MaxLag: 0,
  });
  const exec = (sql: string): Promise<unknown[][]> => execOn(c, sql);
  const nulls = (): unknown => {
    const t = c.get('lt');
    const id = t.meta.columns.find((x) => x.name === 's')!.id;
    return t.txn.symbols[String(id)]?.nulls;
  };
  await exec('CREATE TABLE lt (ts TIMESTAMP, s SYMBOL, x LONG) TIMESTAMP(ts) PARTITION BY DAY');
  // 30 days; every one of 5 symbols appears every day.
  await exec(
    "INSERT INTO lt SELECT timestamp_sequence('2024-01-01T00:00:00.000000Z', 86400000000L / 100), CASE WHEN x % 5 = 0 THEN 'a' WHEN x % 5 = 1 THEN 'b' WHEN x % 5 = 2 THEN 'c' WHEN x % 5 = 3 THEN 'd' ELSE 'e' END, x FROM long_sequence(3000)",
  );
  assert.equal(nulls(), false);
  c.close();
  c = Catalog.open(dir, {
    commitMode: 'nosync',
    writerWaitMs: 100,
    readerCacheSize: 64 << 20,
    maxUncommittedRows: 1_000_000,
    o3MaxLag: 0,
  });
  const before = c.cache.bytesRead;
  const rows = await exec('SELECT s, x FROM lt LATEST ON ts PARTITION BY s');
  assert.deepEqual(rows, [
    ['b', 2996],
    ['c', 2997],
    ['d', 2998],
    ['e', 2999],
    ['a', 3000],
  ]);
  // Only the newest day was read (one 64 KiB chunk per column at most), not 30 days.
  assert.ok(c.cache.bytesRead - before <= 3 * 65536, `read ${c.cache.bytesRead - before} bytes`);
  // A NULL symbol committed: sticky from then on; LATEST ON must now look for the NULL key too.
  await exec("INSERT INTO lt VALUES ('2024-01-01T00:30:00Z', null, -1)");
  assert.equal(nulls(), true);
  assert.deepEqual((await exec('SELECT s, x FROM lt LATEST ON ts PARTITION BY s'))[0], [null, -1]);
  await exec('TRUNCATE TABLE lt');
  assert.equal(nulls(), false);
  c.close();
});

test('ts IN today() / yesterday() / tomorrow() is the day interval (UTC or a zone), pushed into the scan', async () => {
  await run(
    "CREATE TABLE days AS (SELECT dateadd('m', -x::int * 37, now()) ts, x FROM long_sequence(300)) TIMESTAMP(ts) PARTITION BY DAY",
  );
  const count = async (where: string): Promise<number> =>
    Number((await rows(compile(`SELECT count() FROM days WHERE ${where}`, { ...ENGINE, catalog })))[0]![0]);
  // The same rows as the explicit bounds, for each day and a zone.
  const [today, tomorrow, yesterday] = (
    await rows(
      compile('SELECT interval_start(today()), interval_start(tomorrow()), interval_start(yesterday())', {
        ...ENGINE,
        catalog,
      }),
    )
  )[0] as number[];
  assert.equal(tomorrow! - today!, 86_400_000_000);
  assert.equal(today! - yesterday!, 86_400_000_000);
  assert.equal(await count('ts IN today()'), await count(`ts >= ${today} AND ts < ${tomorrow}`));
  assert.equal(await count('ts IN yesterday()'), await count(`ts >= ${yesterday} AND ts < ${today}`));
  assert.equal(await count('ts IN tomorrow()'), 0);
  assert.equal((await count('ts NOT IN today()')) + (await count('ts IN today()')), 300);
  const startPlus5 = (
    (await rows(compile("SELECT interval_start(today('+05:00'))", { ...ENGINE, catalog })))[0] as number[]
  )[0]!;
  assert.equal(
    await count("ts IN today('+05:00')"),
    await count(`ts >= ${startPlus5} AND ts < ${startPlus5 + 86_400_000_000}`),
  );
  const plan = (await rows(compile('EXPLAIN SELECT x FROM days WHERE ts IN today()', { ...ENGINE, catalog })))
    .map((r) => String(r[0]))
    .join('\n');
  assert.match(
    plan,
    /DataFrame table: days intervals: \[\("\d{4}-\d\d-\d\dT00:00:00.000000Z","\d{4}-\d\d-\d\dT23:59:59.999999Z"\)\]/,
  );
  assert.throws(
    () => compile("SELECT x FROM days WHERE ts IN today('Nowhere/Zone')", { ...ENGINE, catalog }),
    (e: SvcError) => e.message === 'invalid timezone [Nowhere/Zone]' && e.position === 37,
  );
  // Mixed into a list it is refused at the call; with a zone of each row, each row's day.
  assert.throws(
    () => compile("SELECT x FROM days WHERE ts IN (today(), '2024-01')", { ...ENGINE, catalog }),
    (e: SvcError) => /an interval must be alone in an IN list/.test(e.message) && e.position === 32,
  );
  assert.equal(await count("ts IN yesterday(cast('UTC' AS STRING) || '')"), await count('ts IN yesterday()'));
  assert.equal(
    await count("ts IN today(CASE WHEN x % 2 = 0 THEN '+05:00' ELSE NULL END)"),
    (await count("x % 2 = 0 AND ts IN today('+05:00')")) + (await count('x % 2 = 1 AND ts IN today()')),
  );
});

test('dayInterval: local days of a zone, 23 and 25 hours long across DST changes', async () => {
  const { dayInterval } = await import('../../lib/functions/time.js');
  const at = (iso: string): number => Date.parse(iso) * 1000;
  const iso = ([a, b]: [number, number]): string[] => [
    new Date(a / 1000).toISOString(),
    new Date(b / 1000).toISOString(),
  ];
  assert.deepEqual(iso(dayInterval('today', null, at('2024-06-15T23:30:00Z'))), [
    '2024-06-15T00:00:00.000Z',
    '2024-06-16T00:00:00.000Z',
  ]);
  // 23:30 UTC is already the 16th in London (BST).
  assert.deepEqual(iso(dayInterval('today', 'Europe/London', at('2024-06-15T23:30:00Z'))), [
    '2024-06-15T23:00:00.000Z',
    '2024-06-16T23:00:00.000Z',
  ]);
  assert.deepEqual(iso(dayInterval('yesterday', '+05:00', at('2024-06-15T12:00:00Z'))), [
    '2024-06-13T19:00:00.000Z',
    '2024-06-14T19:00:00.000Z',
  ]);
  assert.deepEqual(iso(dayInterval('today', 'Europe/London', at('2024-03-31T12:00:00Z'))), [
    '2024-03-31T00:00:00.000Z',
    '2024-03-31T23:00:00.000Z',
  ]);
  assert.deepEqual(iso(dayInterval('tomorrow', 'Europe/London', at('2024-10-26T12:00:00Z'))), [
    '2024-10-26T23:00:00.000Z',
    '2024-10-28T00:00:00.000Z',
  ]);
  // Zones whose clocks change at local midnight: a day that starts in a gap starts at the change; one
  // whose midnight happens twice starts at the first (now is always inside today).
  assert.deepEqual(iso(dayInterval('today', 'Atlantic/Azores', at('2025-03-30T00:30:00Z'))), [
    '2025-03-29T01:00:00.000Z',
    '2025-03-30T01:00:00.000Z',
  ]);
  assert.deepEqual(iso(dayInterval('tomorrow', 'Atlantic/Azores', at('2025-03-30T00:30:00Z'))), [
    '2025-03-30T01:00:00.000Z',
    '2025-03-31T00:00:00.000Z',
  ]);
  assert.deepEqual(iso(dayInterval('today', 'America/Santiago', at('2016-08-14T03:30:00Z'))), [
    '2016-08-13T04:00:00.000Z',
    '2016-08-14T04:00:00.000Z',
  ]);
  assert.deepEqual(iso(dayInterval('today', 'Asia/Gaza', at('2015-10-22T21:30:00Z'))), [
    '2015-10-22T21:00:00.000Z',
    '2015-10-23T22:00:00.000Z',
  ]);
  // Around every clock change of ten years, in zones east and west of UTC (several changing at midnight), every half
  // hour: now is in today, today's end is tomorrow's start, and a day is 22 to 26 hours.
  const { offsetAt } = await import('../../lib/functions/time-zone.js');
  const DAY = 86_400_000_000;
  for (const zone of [
    'Atlantic/Azores',
    'America/Santiago',
    'America/Havana',
    'Asia/Gaza',
    'Europe/London',
    'America/New_York',
    'Australia/Lord_Howe',
    'Asia/Tehran',
  ]) {
    const off = offsetAt(zone);
    let changes = 0;
    for (let d = at('2015-01-01T00:00:00Z'); d < at('2025-01-01T00:00:00Z'); d += DAY) {
      if (off(d) === off(d + DAY)) continue;
      changes++;
      for (let t = d - DAY; t < d + 3 * DAY; t += DAY / 48) {
        const [s, e] = dayInterval('today', zone, t);
        assert.ok(
          s <= t && t < e,
          `${zone} at ${new Date(t / 1000).toISOString()}: now is outside today ${iso([s, e]).join('..')}`,
        );
        assert.equal(dayInterval('tomorrow', zone, t)[0], e, `${zone} at ${new Date(t / 1000).toISOString()}`);
        assert.ok(e - s >= 22 * 3_600_000_000 && e - s <= 26 * 3_600_000_000);
      }
    }
    assert.ok(changes >= 10 || zone === 'Asia/Tehran', `${zone}: ${changes} clock changes found`);
  }
});
