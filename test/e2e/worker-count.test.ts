// End-to-end: shared.worker.count as users meet it. The same CSV imported by
// POST /imp and exported by /exp (CSV, also once text codes are built;
// Parquet) and /exec (JSON) on servers
// with 1, 2 and 4 threads (4 on a 2-core machine: more threads than cores)
// gives byte-identical answers; the helper threads start with the server
// (count - 1 of them, none with 1) and the work starts no more; a bad value
// stops startup with one line naming the key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { FormData, request } from 'undici';
import { CLI, makeRoot, startServer, type ServerProcess } from '../helpers/server-process.js';
import { mulberry32 } from '../helpers/prng.js';

const run = promisify(execFile);

/** 150,000 trades over three days: VARCHAR text with quotes, commas, UTF-8 and empties, some values that do not convert. */
function tradesCsv(rows: number): string {
  const rnd = mulberry32(18);
  const syms = ['BTC-USD', 'ETH-USD', 'SOL-USD', 'DOGE-USD', 'ADA-USD'];
  const notes = ['plain', 'with, comma', 'say "hi"', 'é😀 ünï', '', 'line\nbreak'];
  const start = Date.UTC(2024, 0, 1);
  const out = ['ts,sym,price,amount,side,note'];
  for (let i = 0; i < rows; i++) {
    const ts = new Date(start + Math.floor((i * 3 * 86_400_000) / rows)).toISOString().replace('Z', '000Z');
    const note = notes[Math.floor(rnd() * notes.length)]!;
    const quoted = /[",\n]/.test(note) ? `"${note.replace(/"/g, '""')}"` : note;
    const amount = i % 9973 === 5000 ? 'n/a' : (rnd() * 10).toFixed(4); // a value that does not convert, now and then
    out.push(
      `${ts},${syms[Math.floor(rnd() * 5)]},${(40_000 + rnd() * 1000).toFixed(2)},${amount},${rnd() < 0.5 ? 'buy' : 'sell'},${quoted}`,
    );
  }
  return out.join('\n') + '\n';
}

interface Answers {
  imp: string;
  csv: Buffer;
  /** The CSV export again once the Parquet export built every partition's text codes: written from them. */
  csvCoded: Buffer;
  json: Buffer;
  parquet: Buffer;
  /** Keyless aggregates over the numeric columns (pages summarized on the pool: exec/page-aggregate.ts), then the same through a subquery (batch by batch). */
  aggregates: string[];
  /** Threads of the server process once it is up. */
  threadsAtStart: number;
  /** Threads it gained from then to after the import (parsed on the pool: 150k rows are several segments) and a large CSV export. */
  threadsStarted: number;
}

function threads(s: ServerProcess): number {
  const m = /^Threads:\s+(\d+)$/m.exec(readFileSync(`/proc/${s.child.pid}/status`, 'utf8'));
  return Number(m![1]);
}

async function get(url: string): Promise<Buffer> {
  const r = await request(url);
  const body = Buffer.from(await r.body.arrayBuffer());
  assert.equal(r.statusCode, 200, body.toString('utf8', 0, 500));
  return body;
}

async function answersOf(s: ServerProcess, csv: string): Promise<Answers> {
  const before = threads(s);
  const form = new FormData();
  form.append('data', new Blob([csv]), 'trades.csv');
  const params = new URLSearchParams({ name: 'trades', timestamp: 'ts', partitionBy: 'DAY', fmt: 'json' });
  const r = await request(`${s.mainUrl}/imp?${params}`, { method: 'POST', body: form });
  const imp = await r.body.text();
  assert.equal(r.statusCode, 200, imp);
  const q = (sql: string): string => encodeURIComponent(sql);
  await get(`${s.mainUrl}/exp?query=${q('trades limit 10')}`);
  const csvOut = await get(`${s.mainUrl}/exp?query=${q('trades')}`);
  const threadsStarted = threads(s) - before;
  const json = await get(`${s.mainUrl}/exec?query=${q("select * from trades where side = 'buy'")}`);
  const parquet = await get(`${s.mainUrl}/exp?query=${q('trades')}&fmt=parquet`);
  const csvCoded = await get(`${s.mainUrl}/exp?query=${q('trades')}`);
  const aggregates: string[] = [];
  for (const from of ['trades', '(select ts, price, amount from trades)'])
    for (const where of ['', " where ts in '2024-01-02'"]) {
      const sql = `select sum(price), avg(amount), sum(amount), min(price), max(amount), count(), count(amount) from ${from}${where}`;
      const body = JSON.parse((await get(`${s.mainUrl}/exec?query=${q(sql)}`)).toString('utf8')) as {
        dataset: unknown;
      };
      aggregates.push(JSON.stringify(body.dataset));
    }
  return { imp, csv: csvOut, csvCoded, json, parquet, aggregates, threadsAtStart: before, threadsStarted };
}

describe('the same import and exports with shared.worker.count 1, 2 and 4', () => {
  const csv = tradesCsv(150_000);
  const answers = new Map<number, Answers>();
  const servers: ServerProcess[] = [];
  before(async () => {
    for (const n of [1, 2, 4]) {
      // Small page frames: the 150k rows' aggregates are cut into tasks for every thread.
      const s = await startServer({
        env: {
          SVC_SHARED_WORKER_COUNT: String(n),
          SVC_CAIRO_SQL_PAGE_FRAME_MIN_ROWS: '16384',
          SVC_CAIRO_SQL_PAGE_FRAME_MAX_ROWS: '65536',
        },
      });
      servers.push(s);
      answers.set(n, await answersOf(s, csv));
      await s.stop();
    }
  });
  after(async () => {
    for (const s of servers) await s.stop();
  });

  test('the import report is the same, and it saw the bad values', () => {
    const one = answers.get(1)!;
    const report = JSON.parse(one.imp) as { rowsImported: number; rowsRejected: number; columns: { errors: number }[] };
    assert.equal(report.rowsImported, 150_000);
    assert.equal(report.columns[3]!.errors, 15); // i % 9973 === 5000 for i < 150,000, past the lines detection reads
    for (const n of [2, 4]) assert.equal(answers.get(n)!.imp, one.imp, `${n} threads`);
  });

  test('CSV, JSON and Parquet exports are byte for byte the same', () => {
    const one = answers.get(1)!;
    assert.equal(one.csv.toString('utf8').split('\n').length, 150_002);
    assert.ok(one.json.length > 1_000_000);
    assert.equal(one.parquet.subarray(0, 4).toString(), 'PAR1');
    for (const n of [1, 2, 4])
      assert.ok(answers.get(n)!.csvCoded.equals(one.csv), `${n} threads: CSV from text codes differs`);
    for (const n of [2, 4]) {
      const a = answers.get(n)!;
      assert.ok(a.csv.equals(one.csv), `${n} threads: CSV differs`);
      assert.ok(a.json.equals(one.json), `${n} threads: JSON differs`);
      assert.ok(a.parquet.equals(one.parquet), `${n} threads: Parquet differs`);
    }
  });

  test('keyless aggregates are the same on every thread count, and the same as batch by batch', () => {
    const one = answers.get(1)!.aggregates;
    const [all, day] = one.map((d) => JSON.parse(d) as number[][]);
    assert.equal(all![0]![5], 150_000);
    assert.equal(all![0]![6], 150_000 - 15); // 'n/a' amounts are NULL: sum(amount) takes those pages row by row
    assert.ok(day![0]![5]! > 40_000 && day![0]![5]! < 60_000, String(day![0]![5]));
    assert.deepEqual(one.slice(2), one.slice(0, 2), 'through a subquery');
    for (const n of [2, 4]) assert.deepEqual(answers.get(n)!.aggregates, one, `${n} threads`);
  });

  test('the helper threads start with the server, count - 1 more than with 1, and the work starts no more', () => {
    // The runtime may start a thread of its own (the same with every count): compared with 1's.
    const one = answers.get(1)!;
    for (const n of [2, 4]) {
      const a = answers.get(n)!;
      assert.equal(a.threadsAtStart - one.threadsAtStart, n - 1, `${n}: threads at start`);
      assert.ok(Math.abs(a.threadsStarted - one.threadsStarted) <= 1, `${n}: ${a.threadsStarted} started by the work`);
    }
  });
});

test('a bad shared.worker.count stops startup with one line naming the key and the value', async () => {
  const root = makeRoot();
  for (const v of ['0', '-2', 'two', '1.5', '4096']) {
    let code = 0;
    let stderr = '';
    try {
      await run(process.execPath, [CLI, 'serve', '-d', root], {
        env: { PATH: process.env.PATH, SVC_SHARED_WORKER_COUNT: v },
        timeout: 20_000,
      });
    } catch (e) {
      ({ code, stderr } = e as { code: number; stderr: string });
    }
    assert.equal(code, 1, v);
    assert.equal(
      stderr,
      `svcdb: invalid value shared.worker.count=${v} (environment variable SVC_SHARED_WORKER_COUNT): expected an integer 1..1024 (threads; empty for the machine's cores)\n`,
    );
  }
});
