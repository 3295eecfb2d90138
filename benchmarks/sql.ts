// SQL engine benchmark: the same 10M-row trades table in svcdb and in DuckDB
// (one thread), the queries timed in both in one run, and compile()
// time of a typical 200-character query. Usage: npm run bench:sql (installs
// @duckdb/node-api without saving it: its platform packages break `npm ci`
// lock checks with npm 11), or node dist/benchmarks/sql.js [--rows N].
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { Catalog } from '../lib/storage/catalog.js';
import { compile } from '../lib/exec/engine.js';
import { duckdbConnection } from './duckdb.js';
import { duckdbTradesTable, SYMBOLS, writeTradesTable } from './trades-table.js';
import { median } from './stats.js';
import { ENGINE } from '../test/helpers/engine.js';

const argRows = process.argv.indexOf('--rows');
const ROWS = argRows > 0 ? Number(process.argv[argRows + 1]) : 10_000_000;

const QUERIES: Array<{ name: string; svcdb: string; duckdb: string }> = [
  { name: 'sum(price)', svcdb: 'select sum(price) from trades', duckdb: 'select sum(price) from trades' },
  {
    name: 'sym, avg(price), count() (implicit group by)',
    svcdb: 'select sym, avg(price), count() from trades',
    duckdb: 'select sym, avg(price), count(*) from trades group by sym',
  },
  {
    name: 'filter sym and price, ORDER BY ts DESC LIMIT 10',
    svcdb: "select * from trades where sym = 'S7' and price > 50 order by ts desc limit 10",
    duckdb: "select * from trades where sym = 'S7' and price > 50 order by ts desc limit 10",
  },
  {
    name: 'count_distinct(sym)',
    svcdb: 'select count_distinct(sym) from trades',
    duckdb: 'select count(distinct sym) from trades',
  },
];

async function timeSvcdb(catalog: Catalog, sql: string): Promise<{ ms: number; rows: number }> {
  const t0 = performance.now();
  const s = compile(sql, { ...ENGINE, catalog });
  let rows = 0;
  if (s.kind === 'select') for await (const b of s.execute(new AbortController().signal)) rows += b.rowCount;
  return { ms: performance.now() - t0, rows };
}

interface DuckConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<unknown>;
  closeSync(): void;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svcdb-bench-sql-'));
  try {
    console.log(
      `sql benchmark: ${ROWS.toLocaleString()} rows (ts, sym SYMBOL x${SYMBOLS}, price DOUBLE, amount DOUBLE), ${cpus().length} cores, Node ${process.version}`,
    );
    // svcdb table from the same formulas DuckDB uses below.
    const catalog = Catalog.open(join(dir, 'db'), {
      commitMode: 'nosync',
      writerWaitMs: 1000,
      readerCacheSize: 2 * 1024 ** 3,
      maxUncommittedRows: 1_000_000,
      o3MaxLag: 0,
    });
    let t0 = performance.now();
    await writeTradesTable(catalog, ROWS);
    console.log(`  svcdb load ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const con = await duckdbConnection<DuckConnection>();
    t0 = performance.now();
    await con.run(duckdbTradesTable(ROWS));
    console.log(`  duckdb load ${((performance.now() - t0) / 1000).toFixed(1)} s (1 thread)`);

    console.log('\nquery                                              svcdb ms   duckdb ms   ratio   svcdb rows/s');
    const results = [];
    for (const q of QUERIES) {
      const ours: number[] = [],
        theirs: number[] = [];
      let rows = 0;
      // One untimed run of each engine first (JIT compilation here, first-touch of its data there).
      await timeSvcdb(catalog, q.svcdb);
      await con.runAndReadAll(q.duckdb);
      for (let r = 0; r < 5; r++) {
        const a = await timeSvcdb(catalog, q.svcdb);
        ours.push(a.ms);
        rows = a.rows;
        const tb = performance.now();
        await con.runAndReadAll(q.duckdb);
        theirs.push(performance.now() - tb);
      }
      const m = median(ours),
        d = median(theirs);
      results.push({
        query: q.name,
        svcdbMs: +m.toFixed(2),
        duckdbMs: +d.toFixed(2),
        ratio: +(m / d).toFixed(2),
        svcdbRowsPerSec: Math.round(ROWS / (m / 1000)),
        resultRows: rows,
      });
      console.log(
        `${q.name.padEnd(50)} ${m.toFixed(1).padStart(9)} ${d.toFixed(1).padStart(11)} ${(m / d).toFixed(2).padStart(7)}x ${(ROWS / (m / 1000) / 1e6).toFixed(0).padStart(9)}M`,
      );
    }

    // compile() of a ~200-character query.
    const text =
      "select sym, avg(price) as avg_price, max(amount) as max_amount, count() as n from trades where price > 10 and amount < 90 and sym in ('S1', 'S2', 'S3') order by avg_price desc limit 10";
    for (let i = 0; i < 2000; i++) compile(text, { ...ENGINE, catalog });
    const N = 20000;
    const tc = performance.now();
    for (let i = 0; i < N; i++) compile(text, { ...ENGINE, catalog });
    const us = ((performance.now() - tc) * 1000) / N;
    console.log(`\ncompile() of a ${text.length}-character query: ${us.toFixed(1)} µs (target < 50 µs)`);
    console.log(JSON.stringify({ benchmark: 'sql', rows: ROWS, results, compileMicros: +us.toFixed(2) }));
    con.closeSync();
    catalog.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
