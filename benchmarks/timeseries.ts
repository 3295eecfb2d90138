// Time-series SQL benchmark: a 10M-row trades table (1,000 symbols, DAY
// partitions) in svcdb and the same rows in DuckDB (one thread), the
// time-series queries timed in both in one run: SAMPLE BY over the whole table
// and over one day, LATEST ON per symbol, ASOF JOIN of two 1M-row tables, a
// moving average window. Each result is also checked against DuckDB's (row
// count and every value, floats to a relative 1e-9) before timing.
// Usage: npm run bench:timeseries (installs @duckdb/node-api without saving
// it, as bench:sql does), or node dist/benchmarks/timeseries.js [--rows N]
// [--join-rows N] [--runs N] [--only <query-name-substring>] [--no-candidates].
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Catalog } from '../lib/storage/catalog.js';
import { compile } from '../lib/exec/engine.js';
import { valueAt, type Value } from '../lib/exec/vectors.js';
import { duckdbConnection } from './duckdb.js';
import { median } from './stats.js';
import { ENGINE } from '../test/helpers/engine.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}
const ROWS = Number(arg('--rows') ?? 10_000_000);
const JOIN_ROWS = Number(arg('--join-rows') ?? 1_000_000);
const RUNS = Number(arg('--runs') ?? 5);
const ONLY = arg('--only');
const SYMBOLS = 1000;
const BASE_TS = Date.UTC(2024, 0, 1) * 1000; // µs
const STEP_US = 250_000; // 10M rows: ~29 days
const DAY_US = 86_400_000_000;

// Row i of each table, as formulas both engines compute exactly (integers below 2^53, one IEEE division).
// Symbols are a scrambled i (a permutation of i mod 1000003, then mod 1000), so every symbol recurs irregularly.
const tradeSym = (i: number): number => ((i * 48271) % 1000003) % SYMBOLS;
const tradePrice = (i: number): number => ((i * 7919) % 10000) / 100;
const tradeAmount = (i: number): number => ((i * 104729) % 1000) / 10;
const quoteSym = (i: number): number => ((i * 69621) % 1000003) % SYMBOLS;
const quoteBid = (i: number): number => ((i * 7907) % 10000) / 100;
const QUOTE_OFFSET_US = 100_000; // quotes at 100 ms, 350 ms, ...; trades at 0, 250 ms, ...
const DUCK_TRADES = (table: string, n: number, amount: boolean) => `create table ${table} as select
  make_timestamp(${BASE_TS}::BIGINT + i * ${STEP_US}) as ts,
  'S' || (((i * 48271) % 1000003) % ${SYMBOLS})::VARCHAR as sym,
  ((i * 7919) % 10000)::DOUBLE / 100 as price${
    amount
      ? `,
  ((i * 104729) % 1000)::DOUBLE / 10 as amount`
      : ''
  }
  from range(${n}) t(i)`;
const DUCK_QUOTES = (table: string, n: number) => `create table ${table} as select
  make_timestamp(${BASE_TS + QUOTE_OFFSET_US}::BIGINT + i * ${STEP_US}) as ts,
  'S' || (((i * 69621) % 1000003) % ${SYMBOLS})::VARCHAR as sym,
  ((i * 7907) % 10000)::DOUBLE / 100 as bid
  from range(${n}) t(i)`;

// The day the interval queries read: the one in the middle of the data (2024-01-15 for 10M rows).
const MID_DAY_US = Math.floor((BASE_TS + (ROWS / 2) * STEP_US) / DAY_US) * DAY_US;
const DAY = new Date(MID_DAY_US / 1000).toISOString().slice(0, 10);
const NEXT_DAY = new Date((MID_DAY_US + DAY_US) / 1000).toISOString().slice(0, 10);

interface Query {
  readonly name: string;
  readonly svcdb: string;
  readonly duckdb: string;
  /** Target ratio svcdb / DuckDB. */
  readonly target: number;
}

const QUERIES: Query[] = [
  {
    name: 'SAMPLE BY 1m, full table',
    svcdb: 'SELECT ts, avg(price), min(price), max(price), first(price), last(price) FROM trades SAMPLE BY 1m',
    duckdb:
      "SELECT time_bucket(INTERVAL '1 minute', ts) b, avg(price), min(price), max(price), arg_min(price, ts), arg_max(price, ts) FROM trades GROUP BY b ORDER BY b",
    target: 2,
  },
  {
    name: 'SAMPLE BY 1m, one day (interval)',
    svcdb: `SELECT ts, avg(price), min(price), max(price), first(price), last(price) FROM trades WHERE ts IN '${DAY}' SAMPLE BY 1m`,
    duckdb: `SELECT time_bucket(INTERVAL '1 minute', ts) b, avg(price), min(price), max(price), arg_min(price, ts), arg_max(price, ts) FROM trades WHERE ts >= TIMESTAMP '${DAY}' AND ts < TIMESTAMP '${NEXT_DAY}' GROUP BY b ORDER BY b`,
    target: 1,
  },
  {
    name: 'LATEST ON ts PARTITION BY sym',
    svcdb: 'SELECT * FROM trades LATEST ON ts PARTITION BY sym',
    // The fastest of the formulations tried (LATEST_CANDIDATES): max(ts) per sym joined back to the table. It
    // returns one row per sym only because (sym, ts) is unique here, as it is in this table.
    duckdb:
      'SELECT t.* FROM trades t JOIN (SELECT sym, max(ts) mts FROM trades GROUP BY sym) m ON t.sym = m.sym AND t.ts = m.mts ORDER BY t.ts',
    target: 1,
  },
  {
    name: `ASOF JOIN ${JOIN_ROWS / 1e6}M x ${JOIN_ROWS / 1e6}M ON sym, count/sum`,
    svcdb: 'SELECT count(), sum(q.bid), count(q.bid) FROM trades1m t ASOF JOIN quotes1m q ON (sym)',
    // LEFT: svcdb's (QuestDB's) ASOF JOIN keeps left rows without a match; DuckDB's plain ASOF JOIN drops them.
    duckdb:
      'SELECT count(*), sum(q.bid), count(q.bid) FROM trades1m t ASOF LEFT JOIN quotes1m q ON t.sym = q.sym AND t.ts >= q.ts',
    target: 2,
  },
  {
    name: 'moving avg (10 rows per sym), one day',
    svcdb: `SELECT ts, avg(price) OVER (PARTITION BY sym ORDER BY ts ROWS BETWEEN 9 PRECEDING AND CURRENT ROW) FROM trades WHERE ts IN '${DAY}'`,
    duckdb: `SELECT ts, avg(price) OVER (PARTITION BY sym ORDER BY ts ROWS BETWEEN 9 PRECEDING AND CURRENT ROW) FROM trades WHERE ts >= TIMESTAMP '${DAY}' AND ts < TIMESTAMP '${NEXT_DAY}'`,
    target: 2,
  },
];

// DuckDB formulations of LATEST ON, timed in every run (skip with --no-candidates) to pick the one above.
const LATEST_CANDIDATES: Array<[string, string]> = [
  ['join on (sym, max(ts)) [used]', QUERIES[2]!.duckdb],
  [
    'max(ts) + arg_max per column',
    'SELECT max(ts) ts, sym, arg_max(price, ts) price, arg_max(amount, ts) amount FROM trades GROUP BY sym ORDER BY ts',
  ],
  ['arg_max(row struct, ts)', 'SELECT unnest(arg_max(trades, ts)) FROM trades GROUP BY sym ORDER BY 1'],
  [
    'QUALIFY row_number() = 1',
    'SELECT * FROM trades QUALIFY row_number() OVER (PARTITION BY sym ORDER BY ts DESC) = 1 ORDER BY ts',
  ],
  [
    'semi join on (sym, max(ts))',
    'SELECT * FROM trades WHERE (sym, ts) IN (SELECT (sym, max(ts)) FROM trades GROUP BY sym) ORDER BY ts',
  ],
];

const NOT_SUPPORTED = /window functions are not supported yet/;

interface DuckReader {
  readonly currentRowCount: number;
  getRowsJS(): unknown[][];
}
interface DuckConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<DuckReader>;
  closeSync(): void;
}

async function runSvcdb(
  catalog: Catalog,
  sql: string,
  keep: boolean,
): Promise<{ ms: number; rows: number; values: Value[][] }> {
  const t0 = performance.now();
  const s = compile(sql, { ...ENGINE, catalog });
  let rows = 0;
  const values: Value[][] = [];
  if (s.kind === 'select') {
    for await (const b of s.execute(new AbortController().signal)) {
      rows += b.rowCount;
      if (keep) for (let i = 0; i < b.rowCount; i++) values.push(b.columns.map((c) => valueAt(c, i)));
    }
  }
  return { ms: performance.now() - t0, rows, values };
}

async function timeDuck(con: DuckConnection, sql: string): Promise<{ ms: number; reader: DuckReader }> {
  const t0 = performance.now();
  const reader = await con.runAndReadAll(sql);
  return { ms: performance.now() - t0, reader };
}

/** A DuckDB JS value in svcdb's terms: timestamps as epoch µs, BIGINT/HUGEINT as numbers. */
function fromDuck(v: unknown): Value {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.getTime() * 1000;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean') return v;
  return String(v);
}

function sameValue(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (typeof a === 'number' && typeof b === 'number')
    return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  return false;
}

function byFirstColumns(a: Value[], b: Value[]): number {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!,
      y = b[i]!;
    if (x === y) continue;
    if (x === null) return -1;
    if (y === null) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** Compares two results as bags of rows (sorted by their columns); returns a description of the first difference, or null. */
function compareResults(ours: Value[][], theirs: Value[][]): string | null {
  if (ours.length !== theirs.length)
    return `row count: svcdb ${ours.length.toLocaleString()}, DuckDB ${theirs.length.toLocaleString()}`;
  const a = [...ours].sort(byFirstColumns),
    b = [...theirs].sort(byFirstColumns);
  let bad = 0;
  let first = '';
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!,
      y = b[i]!;
    if (x.length !== y.length) return `column count: svcdb ${x.length}, DuckDB ${y.length}`;
    if (x.some((v, j) => !sameValue(v, y[j]!))) {
      if (bad++ === 0) first = `row ${i}: svcdb ${JSON.stringify(x)}, DuckDB ${JSON.stringify(y)}`;
    }
  }
  return bad === 0 ? null : `${bad.toLocaleString()} of ${a.length.toLocaleString()} rows differ; first at ${first}`;
}

const load = (): string =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

async function loadSvcdb(
  catalog: Catalog,
  name: string,
  n: number,
  cols: Array<{ name: string; type: 'SYMBOL' | 'DOUBLE' }>,
  row: (i: number, out: Array<Int32Array | Float64Array>, j: number) => void,
  offsetUs: number,
): Promise<void> {
  catalog.create({ name, columns: [{ name: 'ts', type: 'TIMESTAMP' }, ...cols], timestamp: 'ts', partitionBy: 'DAY' });
  const dict = Array.from({ length: SYMBOLS }, (_, i) => `S${i}`);
  const w = await catalog.writer(name);
  const B = 500_000;
  for (let s = 0; s < n; s += B) {
    const m = Math.min(B, n - s);
    const ts = new Float64Array(m);
    const out = cols.map((c) => (c.type === 'SYMBOL' ? new Int32Array(m) : new Float64Array(m)));
    for (let j = 0; j < m; j++) {
      ts[j] = BASE_TS + offsetUs + (s + j) * STEP_US;
      row(s + j, out, j);
    }
    const columns: Record<string, unknown> = { ts };
    cols.forEach((c, k) => {
      columns[c.name] = c.type === 'SYMBOL' ? { kind: 'symbol', type: 'SYMBOL', keys: out[k], dict } : out[k];
    });
    w.append({ rowCount: m, columns } as Parameters<typeof w.append>[0]);
  }
  w.commit();
  w.close();
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svcdb-bench-ts-'));
  let mismatches = 0;
  try {
    console.log(
      `timeseries benchmark: ${ROWS.toLocaleString()}-row trades (ts every ${STEP_US / 1000} ms, sym SYMBOL x${SYMBOLS}, price DOUBLE, amount DOUBLE; DAY partitions), ASOF JOIN of two ${JOIN_ROWS.toLocaleString()}-row tables; interval day ${DAY}`,
    );
    console.log(
      `  ${cpus().length} cores (${cpus()[0]?.model.trim()}), Node ${process.version}, load average at start ${load()}`,
    );
    const catalog = Catalog.open(join(dir, 'db'), {
      commitMode: 'nosync',
      writerWaitMs: 1000,
      readerCacheSize: 2 * 1024 ** 3,
      maxUncommittedRows: 1_000_000,
      o3MaxLag: 0,
    });
    let t0 = performance.now();
    await loadSvcdb(
      catalog,
      'trades',
      ROWS,
      [
        { name: 'sym', type: 'SYMBOL' },
        { name: 'price', type: 'DOUBLE' },
        { name: 'amount', type: 'DOUBLE' },
      ],
      (i, o, j) => {
        o[0]![j] = tradeSym(i);
        o[1]![j] = tradePrice(i);
        o[2]![j] = tradeAmount(i);
      },
      0,
    );
    await loadSvcdb(
      catalog,
      'trades1m',
      JOIN_ROWS,
      [
        { name: 'sym', type: 'SYMBOL' },
        { name: 'price', type: 'DOUBLE' },
      ],
      (i, o, j) => {
        o[0]![j] = tradeSym(i);
        o[1]![j] = tradePrice(i);
      },
      0,
    );
    await loadSvcdb(
      catalog,
      'quotes1m',
      JOIN_ROWS,
      [
        { name: 'sym', type: 'SYMBOL' },
        { name: 'bid', type: 'DOUBLE' },
      ],
      (i, o, j) => {
        o[0]![j] = quoteSym(i);
        o[1]![j] = quoteBid(i);
      },
      QUOTE_OFFSET_US,
    );
    console.log(`  svcdb load ${((performance.now() - t0) / 1000).toFixed(1)} s`);

    const con = await duckdbConnection<DuckConnection>();
    t0 = performance.now();
    await con.run(DUCK_TRADES('trades', ROWS, true));
    await con.run(DUCK_TRADES('trades1m', JOIN_ROWS, false));
    await con.run(DUCK_QUOTES('quotes1m', JOIN_ROWS));
    const version = (await con.runAndReadAll('select version()')).getRowsJS()[0]![0];
    console.log(`  duckdb ${String(version)} load ${((performance.now() - t0) / 1000).toFixed(1)} s (1 thread)`);

    // DuckDB has several ways to say LATEST ON; each is timed (and checked against svcdb's answer) to show the
    // one in QUERIES is the fastest correct one on this data.
    if (!process.argv.includes('--no-candidates') && (ONLY === undefined || QUERIES[2]!.name.includes(ONLY))) {
      console.log('\nDuckDB formulations of LATEST ON (median of 3 after one warm-up; checked against svcdb):');
      const ours = (await runSvcdb(catalog, QUERIES[2]!.svcdb, true)).values;
      for (const [name, sql] of LATEST_CANDIDATES) {
        const warm = await timeDuck(con, sql);
        const check = compareResults(
          ours,
          warm.reader.getRowsJS().map((r) => r.map(fromDuck)),
        );
        const ms: number[] = [];
        for (let r = 0; r < 3; r++) ms.push((await timeDuck(con, sql)).ms);
        console.log(
          `  ${name.padEnd(30)} ${median(ms).toFixed(1).padStart(8)} ms  ${warm.reader.currentRowCount} rows  ${check === null ? 'same' : 'MISMATCH: ' + check}`,
        );
      }
    }

    console.log(
      `\nquery                                   svcdb ms   duckdb ms    ratio  target  met   rows        check  load (1/5/15 min)`,
    );
    const results = [];
    for (const q of QUERIES) {
      if (ONLY !== undefined && !q.name.includes(ONLY)) continue;
      // Untimed first runs of both engines (JIT compilation here, first touch of the data there), kept for the check.
      let supported = true;
      let check: string | null = null;
      let ourRows = 0;
      let ours: Value[][] = [];
      try {
        const a = await runSvcdb(catalog, q.svcdb, true);
        ours = a.values;
        ourRows = a.rows;
      } catch (e) {
        if (!NOT_SUPPORTED.test((e as Error).message)) throw e;
        supported = false;
      }
      const warm = await timeDuck(con, q.duckdb);
      const theirRows = warm.reader.currentRowCount;
      if (supported) {
        check = compareResults(
          ours,
          warm.reader.getRowsJS().map((r) => r.map(fromDuck)),
        );
        ours = [];
      }
      const ourMs: number[] = [],
        theirMs: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        if (supported) {
          const a = await runSvcdb(catalog, q.svcdb, false);
          ourMs.push(a.ms);
          if (a.rows !== ourRows) check = `svcdb returned ${a.rows} rows, then ${ourRows}`;
        }
        theirMs.push((await timeDuck(con, q.duckdb)).ms);
      }
      const d = median(theirMs);
      const m = supported ? median(ourMs) : NaN;
      const ratio = m / d;
      const met = supported ? ratio <= q.target : false;
      const checkText = !supported ? '-' : check === null ? 'same' : 'MISMATCH';
      const ms = supported ? m.toFixed(1) : 'not supported yet (window functions)';
      const line = supported
        ? `${q.name.padEnd(38)} ${ms.padStart(9)} ${d.toFixed(1).padStart(11)} ${(ratio.toFixed(2) + 'x').padStart(8)} ${('<=' + q.target + 'x').padStart(7)}  ${(met ? 'yes' : 'NO').padEnd(4)} ${theirRows.toLocaleString().padStart(8)} ${checkText.padStart(12)}  ${load()}`
        : `${q.name.padEnd(38)} ${ms}: DuckDB ${d.toFixed(1)} ms, ${theirRows.toLocaleString()} rows  ${load()}`;
      console.log(line);
      if (check !== null) {
        mismatches++;
        console.log(`  *** MISMATCH (${q.name}): ${check}`);
      }
      results.push({
        query: q.name,
        svcdb: q.svcdb,
        duckdb: q.duckdb,
        svcdbMs: supported ? +m.toFixed(2) : null,
        duckdbMs: +d.toFixed(2),
        ratio: supported ? +ratio.toFixed(3) : null,
        target: q.target,
        met,
        supported,
        svcdbRows: supported ? ourRows : null,
        duckdbRows: theirRows,
        check: supported ? (check ?? 'same') : null,
        svcdbRunsMs: ourMs.map((x) => +x.toFixed(1)),
        duckdbRunsMs: theirMs.map((x) => +x.toFixed(1)),
        loadavg: loadavg().map((x) => +x.toFixed(2)),
      });
    }
    console.log(`\nload average at end ${load()}${mismatches > 0 ? `; *** ${mismatches} MISMATCH(ES) ***` : ''}`);
    console.log(
      JSON.stringify({
        benchmark: 'timeseries',
        rows: ROWS,
        joinRows: JOIN_ROWS,
        symbols: SYMBOLS,
        day: DAY,
        duckdb: String(version),
        node: process.version,
        cores: cpus().length,
        results,
        mismatches,
      }),
    );
    con.closeSync();
    catalog.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (mismatches > 0) process.exitCode = 1;
}

await main();
