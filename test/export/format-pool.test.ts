// CSV, JSON and Parquet exports on the worker pool (lib/export/format-pool.ts,
// one helper thread and three) against the same export done on one thread:
// identical bytes for every column type, NULLs, symbols, long strings,
// windows that cut batches, small results, and every Parquet codec whose
// pages the helper compresses.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { compile } from '../../lib/exec/engine.js';
import { csvBody } from '../../lib/export/csv-response.js';
import { jsonQueryBody } from '../../lib/export/json-response.js';
import { FormatPool } from '../../lib/export/format-pool.js';
import { WorkerPool, taskKind } from '../../lib/workers/worker-pool.js';
import type { RowWindow } from '../../lib/export/row-window.js';
import { parquetBody, planParquet } from '../../lib/export/parquet/parquet-writer.js';
import { PARQUET_DEFAULTS } from '../../lib/export/parquet/options.js';
import type { CodecName } from '../../lib/export/parquet/format.js';
import { ENGINE, tempCatalog } from '../helpers/engine.js';

const { catalog } = tempCatalog('svcdb-csv-pool-');
const pool = new FormatPool(new WorkerPool(1));
/** More threads than this machine's 2 cores: slices and pages spread over three, the bytes still in order. */
const pool3 = new FormatPool(new WorkerPool(3));
type WithPool = boolean | FormatPool;
const poolOf = (p: WithPool): FormatPool | null => (p === true ? pool : p === false ? null : p);
after(async () => {
  await pool.close();
  await pool3.close();
});
const signal = new AbortController().signal;

async function exportCsv(sql: string, withPool: WithPool, window: RowWindow | null = null): Promise<Buffer> {
  const s = compile(sql, { ...ENGINE, catalog });
  assert.equal(s.kind, 'select');
  if (s.kind !== 'select') return Buffer.alloc(0);
  const parts: Buffer[] = [];
  for await (const b of csvBody(
    s.fields,
    s.execute(signal),
    { nm: false, window, pool: poolOf(withPool) },
    { sent: 0, matched: 0 },
  ))
    parts.push(b);
  return Buffer.concat(parts);
}

async function exportJson(
  sql: string,
  withPool: WithPool,
  window: RowWindow | null = null,
  quoteLargeNum = false,
): Promise<string> {
  const s = compile(sql, { ...ENGINE, catalog });
  if (s.kind !== 'select') return '';
  const opts = {
    query: sql,
    nm: false,
    count: true,
    timings: false,
    explain: false,
    quoteLargeNum,
    window,
    compileNanos: 0,
    pool: poolOf(withPool),
  };
  const parts: Buffer[] = [];
  for await (const b of jsonQueryBody(s, s.execute(signal), opts, { sent: 0, matched: 0 })) parts.push(b);
  return Buffer.concat(parts).toString('utf8');
}

async function ddl(sql: string): Promise<void> {
  const s = compile(sql, { ...ENGINE, catalog });
  if (s.kind !== 'select') await s.execute(signal);
}

test('the helper thread writes the same bytes as one thread, for every type and NULLs', async () => {
  await ddl(`CREATE TABLE big AS (SELECT timestamp_sequence('2024-01-01T00:00:00.000001Z', 1_000_003) ts,
    rnd_symbol(300, 1, 8, 5) sym, rnd_symbol(3000, 4, 6, 2) sym2, rnd_double(3) d, rnd_float(3) f, rnd_long(-9223372036854775807, 9223372036854775807, 4) l,
    rnd_int(-1000, 1000, 3) i, rnd_short() sh, rnd_byte() bt, rnd_boolean() b, rnd_char() c,
    rnd_varchar('a', 'quote " in', 'é😀', null) v, rnd_str(0, 40, 4) s, rnd_date(to_date('2000', 'yyyy'), to_date('2030', 'yyyy'), 2) dt,
    rnd_uuid4() u, cast(rnd_int(0, 100000, 2) AS IPV4) ip
    FROM long_sequence(60000)) TIMESTAMP(ts) PARTITION BY HOUR`);
  const one = await exportCsv('SELECT * FROM big', false);
  const two = await exportCsv('SELECT * FROM big', true);
  assert.ok(one.length > 1_000_000);
  assert.equal(two.length, one.length);
  assert.ok(two.equals(one), 'the bytes differ');
  assert.ok((await exportCsv('SELECT * FROM big', pool3)).equals(one), 'three threads: the bytes differ');
  assert.equal(one.toString('utf8').split('\n').length, 60002); // header + rows + the empty tail
  // Windows that start and end inside batches, the last n rows, and a result too small for the helper.
  for (const win of [
    { lo: 5000, hi: 47_123, last: null },
    { lo: 0, hi: Infinity, last: 30_001 },
    { lo: 10, hi: 20, last: null },
  ]) {
    const a = await exportCsv('SELECT * FROM big', false, win);
    const b = await exportCsv('SELECT * FROM big', true, win);
    assert.ok(b.equals(a), `window ${JSON.stringify(win)}: the bytes differ`);
    assert.ok(
      (await exportCsv('SELECT * FROM big', pool3, win)).equals(a),
      `window ${JSON.stringify(win)}, three threads`,
    );
  }
  // A filter and expressions: batches of uneven sizes.
  const q = "SELECT ts, sym, d * 2 x, concat(v, s) vs FROM big WHERE i > -500 OR sym = 'x'";
  assert.ok((await exportCsv(q, true)).equals(await exportCsv(q, false)));
});

test('JSON: the helper thread writes the same body as one thread, and it parses', async () => {
  for (const win of [null, { lo: 7, hi: 33_333, last: null }, { lo: 0, hi: Infinity, last: 8193 }]) {
    for (const quote of [false, true]) {
      const one = await exportJson('SELECT * FROM big', false, win, quote);
      const two = await exportJson('SELECT * FROM big', true, win, quote);
      assert.equal(two, one, `window ${JSON.stringify(win)} quoteLargeNum ${quote}`);
      assert.equal(await exportJson('SELECT * FROM big', pool3, win, quote), one, 'three threads');
      const parsed = JSON.parse(two) as { dataset: unknown[][]; count: number };
      assert.equal(parsed.count, 60000);
      assert.equal(parsed.dataset.length, win === null ? 60000 : (win.last ?? win.hi - win.lo));
    }
  }
});

test('with the helper closed every row is formatted on this thread, in order', async () => {
  const broken = new FormatPool(new WorkerPool(1));
  await broken.close(); // closed: not usable, so everything is formatted here
  const s = compile('SELECT * FROM big', { ...ENGINE, catalog });
  if (s.kind !== 'select') return;
  const parts: Buffer[] = [];
  for await (const b of csvBody(
    s.fields,
    s.execute(signal),
    { nm: true, window: null, pool: broken },
    { sent: 0, matched: 0 },
  ))
    parts.push(b);
  const plain = await exportCsv('SELECT * FROM big', false);
  assert.ok(Buffer.concat(parts).equals(plain.subarray(plain.indexOf(10) + 1)));
});

test('Parquet: pages compressed on the helper thread give the same file, for every codec', async () => {
  const s = compile('SELECT * FROM big', { ...ENGINE, catalog });
  if (s.kind !== 'select') return;
  const codecs: CodecName[] = ['ZSTD', 'GZIP', 'BROTLI', 'LZO', 'SNAPPY', 'UNCOMPRESSED'];
  for (const codec of codecs) {
    for (const version of [1, 2] as const) {
      const options = { ...PARQUET_DEFAULTS, codec, version, rowGroupSize: 7_000, bloomColumns: ['sym'] };
      const file = async (withPool: WithPool): Promise<Buffer> => {
        const plan = planParquet(s.fields, s.timestamp, 'big', options);
        const parts: Buffer[] = [];
        for await (const b of parquetBody(plan, s.execute(signal), null, { sent: 0, matched: 0 }, poolOf(withPool)))
          parts.push(b);
        return Buffer.concat(parts);
      };
      const one = await file(false);
      const two = await file(true);
      assert.ok(one.length > 100_000);
      assert.ok(two.equals(one), `${codec} v${version}: the files differ`);
      if (codec === 'ZSTD' || codec === 'SNAPPY')
        assert.ok((await file(pool3)).equals(one), `${codec} v${version}, three threads: the files differ`);
    }
  }
});

test('a pool thread that dies fails the export with an error (it never hangs); the next export gets a new thread and the same bytes', async () => {
  const workers = new WorkerPool(1);
  const fp = new FormatPool(workers);
  try {
    const plain = await exportCsv('SELECT * FROM big', false);
    // The crash is first in the only thread's queue: the slices sent after it fail with it.
    const crash = workers.run(
      taskKind<null, null>(new URL('../workers/pool-test-tasks.js', import.meta.url), 'crash'),
      null,
    );
    crash.catch(() => undefined);
    await assert.rejects(exportCsv('SELECT * FROM big', fp), /a worker thread failed: it exited with code 3/);
    // A slice already handed to the replacement thread may still be finishing: it must drain, never hang.
    for (const t0 = Date.now(); workers.inFlight > 0 && Date.now() - t0 < 10_000;)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(workers.inFlight, 0);
    assert.ok(fp.usable);
    assert.ok((await exportCsv('SELECT * FROM big', fp)).equals(plain));
  } finally {
    await fp.close();
  }
});
