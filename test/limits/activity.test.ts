// Background work after an import (text columns' dictionary codes) steps aside
// for users' requests: the engine tells the database's Activity when each
// execution begins and ends, however it ends, and the warming steps are small
// and read around the read cache, so a query that arrives meanwhile neither
// waits long nor finds its columns evicted.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Activity } from '../../lib/limits/activity.js';
import { compile } from '../../lib/exec/engine.js';
import { valueAt } from '../../lib/exec/vectors.js';
import { ENGINE } from '../helpers/engine.js';
import { openCatalog, tempRoot } from '../storage/helpers.js';

const tmp = tempRoot('svcdb-activity-');
const catalog = openCatalog(tmp.dir, { readerCacheSize: 64 << 20 });
after(() => {
  catalog.close();
  tmp.remove();
});
const signal = new AbortController().signal;

test('Activity: quiet() waits for the last one to end and a quiet time after it, or for its limit however busy', async () => {
  const keep = setInterval(() => undefined, 1000); // quiet()'s timers do not keep a process alive by themselves
  try {
    const a = new Activity();
    await sleep(30);
    let t0 = performance.now();
    await a.quiet(20, 10_000); // nothing ran for 20 ms already: at once
    assert.ok(performance.now() - t0 < 15);
    a.begin();
    a.begin();
    let woke = false;
    const w = a.quiet(40, 10_000).then(() => (woke = true));
    a.end();
    await sleep(60);
    assert.equal(woke, false, 'one still runs');
    a.end();
    t0 = performance.now();
    await w;
    assert.ok(performance.now() - t0 >= 35, 'and then it waited for the quiet time');
    assert.equal(a.running, 0);
    a.end(); // an extra end() does not go below zero
    assert.equal(a.running, 0);
    a.begin();
    t0 = performance.now();
    await a.quiet(0, 30);
    assert.ok(performance.now() - t0 >= 25, 'waited for its limit');
    assert.equal(a.running, 1);
    a.end();
  } finally {
    clearInterval(keep);
  }
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

test('the engine tells the activity while a query runs, however it ends, and while a change statement runs', async () => {
  const activity = new Activity();
  const opts = { ...ENGINE, catalog, activity };
  const q = compile('SELECT x FROM long_sequence(100000)', opts);
  assert.equal(q.kind, 'select');
  if (q.kind !== 'select') return;
  assert.equal(activity.running, 0, 'compiling is not running');
  const it = q.execute(signal);
  assert.equal(activity.running, 0, 'nothing runs before the first batch is asked for');
  await it.next();
  assert.equal(activity.running, 1);
  await it.return(undefined);
  assert.equal(activity.running, 0, 'a query stopped early has ended');
  for await (const _ of q.execute(signal)) assert.equal(activity.running, 1);
  assert.equal(activity.running, 0, 'a query read to its end has ended');
  const bad = compile("SELECT cast('x' || x AS INT) / 0 FROM long_sequence(3)", opts);
  if (bad.kind === 'select') {
    await assert.rejects(async () => {
      for await (const _ of bad.execute(signal)) throw new Error('stop');
    });
  }
  assert.equal(activity.running, 0, 'a query that failed has ended');
  const ddl = compile('CREATE TABLE act_t (x LONG)', opts);
  assert.notEqual(ddl.kind, 'select');
  if (ddl.kind !== 'select') {
    const p = ddl.execute(signal);
    assert.equal(activity.running, 1, 'a change statement runs from its call');
    await p;
  }
  assert.equal(activity.running, 0);
});

test('warming text codes: small steps, read around the read cache, the same codes as a query builds', async () => {
  const rows = 300_000; // one DAY partition, several warming steps
  const sql =
    "CREATE TABLE w AS (SELECT timestamp_sequence('2024-01-01', 100000) ts, " +
    "CAST(CASE WHEN x % 7 = 0 THEN NULL ELSE 'v' || (x % 13) END AS VARCHAR) s, x FROM long_sequence(" +
    rows +
    ')) TIMESTAMP(ts) PARTITION BY DAY';
  const ddl = compile(sql, { ...ENGINE, catalog });
  if (ddl.kind !== 'select') await ddl.execute(signal);
  const reader = catalog.reader('w');
  try {
    const cache = reader.table.cache;
    const cached = cache.size;
    const read = cache.bytesRead;
    let steps = 0;
    const done = new Set<string>();
    while (reader.warmTextCodesStep(done)) steps++;
    assert.ok(steps >= 3, `a 300k-row partition column in several steps, not ${steps}`);
    assert.equal(reader.warmTextCodesStep(done), false, 'nothing is left');
    assert.equal(cache.size, cached, 'nothing was put in the read cache');
    assert.ok(cache.bytesRead > read, 'the bytes read are counted');
    const p = reader.partitions[0]!;
    const col = reader.meta.columns.find((c) => c.name === 's')!;
    const tc = cache.codes.get(`${reader.meta.id}/${p.dir}/${col.id}`);
    assert.ok(tc, 'the partition column has its codes');
    assert.equal(tc.rows, rows);
    assert.equal(tc.hasNull, true);
    const text = (code: number): string | null =>
      code === 0 ? null : Buffer.from(tc.dict.bytes.subarray(tc.dict.ends[code - 1], tc.dict.ends[code])).toString();
    const q = compile('SELECT s FROM w', { ...ENGINE, catalog });
    let r = 0;
    if (q.kind === 'select')
      for await (const b of q.execute(signal))
        for (let i = 0; i < b.rowCount; i++, r++) assert.equal(text(tc.codes[r]!), valueAt(b.columns[0]!, i));
    assert.equal(r, rows);
  } finally {
    reader.close();
  }
});
