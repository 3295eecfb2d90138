// The three ETL scripts in examples/, run as a user runs them (node, the
// package resolved by its name) on fixtures/trades-sample.csv, their output
// checked against values computed here from the same file; and the README's
// "Use as a library" snippets, which must be the examples' code.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { createReadStream, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { openDatabase } from 'svcdb';
import { makeRoot } from '../helpers/server-process.js';

const repo = (rel: string): string => fileURLToPath(new URL(`../../../${rel}`, import.meta.url));
const FIXTURE = repo('fixtures/trades-sample.csv');
const run = promisify(execFile);

interface Trade {
  ts: string;
  sym: string;
  side: string;
  price: number;
  amount: number;
}

/** The fixture parsed by hand (it has no quoting). */
function trades(): Trade[] {
  const [, ...lines] = readFileSync(FIXTURE, 'utf8').trimEnd().split('\n');
  return lines.map((l) => {
    const [ts, sym, side, price, amount] = l.split(',');
    return { ts: ts!, sym: sym!, side: side!, price: Number(price), amount: Number(amount) };
  });
}

const micros = (iso: string): string => String(Date.parse(iso) * 1000);

async function readParquet(path: string): Promise<Record<string, unknown>[]> {
  const b = readFileSync(path);
  return parquetReadObjects({
    file: new Uint8Array(b).buffer,
    compressors,
    parsers: { timestampFromMicroseconds: (v: bigint) => String(v) },
  });
}

test('examples/csv-to-parquet.mjs: CSV file -> filtered Parquet file', async () => {
  const out = join(makeRoot(), 'big.parquet');
  const { stderr } = await run(process.execPath, [
    repo('examples/csv-to-parquet.mjs'),
    FIXTURE,
    out,
    "amount >= 250 AND side = 'buy'",
  ]);
  assert.match(stderr, /2000 rows read, 0 rejected/);
  const want = trades()
    .filter((t) => t.amount >= 250 && t.side === 'buy')
    .map((t) => ({ ts: micros(t.ts), sym: t.sym, price: t.price, amount: t.amount, notional: t.price * t.amount }));
  assert.ok(want.length > 100);
  assert.deepEqual(await readParquet(out), want);
});

test('examples/stdin-sample-by.mjs: CSV on stdin -> embedded table -> SAMPLE BY -> CSV on stdout', async () => {
  const child = spawn(process.execPath, [repo('examples/stdin-sample-by.mjs')], { stdio: ['pipe', 'pipe', 'pipe'] });
  createReadStream(FIXTURE).pipe(child.stdin);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, stderr);
  assert.match(stderr, /imported 2000 rows \(0 rejected\)/);
  // Hourly bars per symbol, computed here.
  const bars = new Map<string, { open: number; high: number; low: number; close: number; volume: number }>();
  for (const t of trades()) {
    const key = `${t.ts.slice(0, 13)}:00:00.000000Z,${t.sym}`;
    const b = bars.get(key);
    if (!b) bars.set(key, { open: t.price, high: t.price, low: t.price, close: t.price, volume: t.amount });
    else {
      b.high = Math.max(b.high, t.price);
      b.low = Math.min(b.low, t.price);
      b.close = t.price;
      b.volume += t.amount;
    }
  }
  const want = [...bars.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([k, b]) => {
      const [ts, sym] = k.split(',');
      return `"${ts}","${sym}",${b.open},${b.high},${b.low},${b.close},${b.volume}`;
    });
  const lines = stdout.trimEnd().split('\n');
  assert.equal(lines[0], '"ts","sym","open","high","low","close","volume"');
  // Numbers as svcdb prints DOUBLEs (a .0 on whole values): compare as numbers.
  const norm = (l: string): string => l.replace(/(\d+)\.0(?=,|$)/g, '$1');
  assert.deepEqual(lines.slice(1).map(norm), want);
});

test('examples/export-parquet-progress.mjs: a query of a database folder -> Parquet file, with progress', async () => {
  const root = makeRoot();
  const db = openDatabase(root);
  await db.importCsv(FIXTURE, { name: 'trades', timestamp: 'ts', partitionBy: 'DAY' });
  await db.close();
  const out = join(root, 'aapl.parquet');
  const { stderr } = await run(process.execPath, [
    repo('examples/export-parquet-progress.mjs'),
    root,
    "SELECT ts, price, amount FROM trades WHERE sym = 'AAPL'",
    out,
  ]);
  const want = trades()
    .filter((t) => t.sym === 'AAPL')
    .map((t) => ({ ts: micros(t.ts), price: t.price, amount: t.amount }));
  assert.deepEqual(await readParquet(out), want);
  const progress = [...stderr.matchAll(/progress: (\d+) rows, (\d+) bytes/g)].map(
    (m) => [Number(m[1]), Number(m[2])] as const,
  );
  assert.ok(progress.length >= 2, stderr);
  assert.equal(progress.at(-1)![0], want.length);
  assert.equal(progress.at(-1)![1], readFileSync(out).length);
  for (let i = 1; i < progress.length; i++) assert.ok(progress[i]![1] > progress[i - 1]![1]);
});

test('the README\'s "Use as a library" snippets are the examples\' code', () => {
  const readme = readFileSync(repo('README.md'), 'utf8');
  const at = readme.indexOf('## Use as a library');
  assert.ok(at >= 0, 'README has a "Use as a library" section');
  const end = readme.indexOf('\n## ', at + 1);
  const section = readme.slice(at, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]!);
  for (const name of ['csv-to-parquet.mjs', 'stdin-sample-by.mjs', 'export-parquet-progress.mjs']) {
    const code = readFileSync(repo(`examples/${name}`), 'utf8');
    assert.ok(blocks.includes(code), `README "Use as a library" has examples/${name} verbatim`);
  }
});
