// Import parsing on the worker pool (ingest/segments.ts), as the library's
// importCsv runs it (the path /imp and `svcdb import` take): files cut into
// small segments (import.segment.size of a few hundred bytes) give the same
// report (rows imported and rejected, errors per column, header) and the same
// rows in the same order with 3 threads as with 1, for quoted values holding
// delimiters, line ends and "" escapes, CRLF and a BOM, bad values, short and
// long lines and empty lines under each atomicity, quotes that are content
// (which leave the count of quotes odd: the rest goes to the import's own
// thread), no line end at the end, SYMBOL columns from a schema, and a
// non-partitioned table that takes rows in order. Failures (atomicity=abort,
// a value past the line limit) fail with the same message, line included.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Database, type Row } from 'svcdb';
import { makeRoot } from '../helpers/server-process.js';
import type { ColumnInput } from '../../lib/core/column-vector.js';
import type { CsvTarget } from '../../lib/ingest/csv-batcher.js';
import type { RowRulesOptions } from '../../lib/ingest/row-rules.js';
import { Segments, parseSegmentTask, type SegmentRequest, type SegmentResult } from '../../lib/ingest/segments.js';
import { MemoryBudget } from '../../lib/limits/memory-budget.js';
import type { WorkerPool } from '../../lib/workers/worker-pool.js';

type Options = Parameters<Database['importCsv']>[1];

interface Case {
  readonly name: string;
  readonly csv: string;
  readonly options?: Options;
}

function trades(rows: number, eol = '\n'): string {
  const out = ['ts,sym,price,amount,side,note'];
  for (let i = 0; i < rows; i++) {
    const ts = new Date(Date.UTC(2024, 0, 1) + i * 61_000).toISOString().replace('Z', '001Z');
    const sym = ['BTC-USD', 'ETH-USD', '"SOL, Inc"', '"multi\nline"', '"quo""ted"', ''][i % 6];
    const price = i % 17 === 0 ? 'oops' : String(100 + ((i * 37) % 1000) / 10);
    const amount = i % 23 === 0 ? '' : String((i * 13) % 100);
    const note = i % 29 === 0 ? '"a ""b"",\r\nc"' : `n${i}`;
    const line = `${ts},${sym},${price},${amount},${i % 2 === 0 ? 'buy' : 'sell'},${note}`;
    // Now and then a short line, a long line, an empty line, and a row without its timestamp.
    if (i % 41 === 0) out.push(`${ts},${sym}`);
    else if (i % 43 === 0) out.push(`${line},extra`);
    else if (i % 47 === 0) out.push(`,${sym},1,1,buy,x`);
    else out.push(line);
    if (i % 53 === 0) out.push('');
  }
  return out.join(eol) + eol;
}

const CASES: Case[] = [
  {
    name: 'quoted',
    csv: trades(800),
    options: { timestamp: 'ts', partitionBy: 'DAY', schema: [{ name: 'price', type: 'DOUBLE' }] },
  },
  { name: 'crlf_bom', csv: '\ufeff' + trades(700, '\r\n'), options: { timestamp: 'ts', partitionBy: 'HOUR' } },
  { name: 'skiprow', csv: trades(600), options: { atomicity: 'skipRow', timestamp: 'ts', partitionBy: 'DAY' } },
  { name: 'skiplev', csv: trades(500), options: { skipLev: true } },
  { name: 'no_final_eol', csv: trades(400).slice(0, -1) },
  {
    // Quotes that are content (a"b) leave the count odd from there on: the rest goes to one thread.
    name: 'stray_quotes',
    csv:
      'a,b\n' +
      Array.from({ length: 900 }, (_, i) => (i === 300 ? `x"${i},${i}` : `v${i},${i % 7 === 0 ? '"q\nq"' : i}`)).join(
        '\n',
      ) +
      '\n',
    options: { forceHeader: true },
  },
  {
    name: 'symbols',
    csv: trades(500),
    options: {
      schema: [
        { name: 'side', type: 'SYMBOL' },
        { name: 'price', type: 'DOUBLE' },
      ],
      timestamp: 'ts',
      partitionBy: 'DAY',
    },
  },
  // A non-partitioned table with a designated timestamp takes rows in order only: parsed on one thread.
  { name: 'in_order', csv: trades(300), options: { timestamp: 'ts' } },
];

/** Rows with nothing to reject, line `bad` (1-based, the header is line 1) without its timestamp. */
function clean(rows: number, bad: number): string {
  const out = ['ts,sym,price'];
  for (let i = 0; i < rows; i++) {
    const ts = new Date(Date.UTC(2024, 0, 1) + i * 61_000).toISOString().replace('Z', '001Z');
    out.push(`${i + 2 === bad ? '' : ts},${i % 5 === 0 ? '"a,\nb"' : 'BTC'},${i}`);
  }
  return out.join('\n') + '\n';
}

const FAILING: Case[] = [
  {
    name: 'abort',
    csv: trades(900),
    options: { atomicity: 'abort', timestamp: 'ts', partitionBy: 'DAY', schema: [{ name: 'price', type: 'DOUBLE' }] },
  },
  // Late in the file, in a segment a pool thread parses: its line as one thread counts it (quoted line ends too).
  { name: 'abort_late', csv: clean(900, 700), options: { atomicity: 'abort', timestamp: 'ts', partitionBy: 'DAY' } },
];

describe('import parsing on the worker pool', () => {
  const results = new Map<string, unknown>();
  let root = '';
  before(async () => {
    root = makeRoot();
    process.env.SVC_IMPORT_SEGMENT_SIZE = '300';
    try {
      for (const workers of [1, 3]) {
        const db = openDatabase(root, { workerCount: workers });
        try {
          for (const c of CASES) {
            const name = `${c.name}_${workers}`;
            const report = await db.importCsv(Buffer.from(c.csv), { delimiter: ',', ...c.options, name });
            const rows: Row[] = [];
            for await (const r of db.query(`select * from ${name}`).rows()) rows.push(r);
            results.set(`${c.name} ${workers}`, { report: { ...report, location: c.name }, rows });
          }
          for (const c of FAILING) {
            const name = `${c.name}_${workers}`;
            const err = await db.importCsv(Buffer.from(c.csv), { delimiter: ',', ...c.options, name }).then(
              () => null,
              (e: unknown) => (e instanceof Error ? e.message.replace(name, c.name) : String(e)),
            );
            const tables: Row[] = [];
            for await (const r of db.query(`select table_name from tables() where table_name = '${name}'`).rows())
              tables.push(r);
            results.set(`${c.name} ${workers}`, { err, tables: tables.length });
          }
        } finally {
          await db.close();
        }
      }
    } finally {
      delete process.env.SVC_IMPORT_SEGMENT_SIZE;
    }
  });
  after(() => {
    delete process.env.SVC_IMPORT_SEGMENT_SIZE;
  });

  test('the same report and rows on 3 threads as on 1', () => {
    for (const c of CASES) {
      const one = results.get(`${c.name} 1`) as { report: { rowsImported: number }; rows: Row[] };
      assert.ok(one.report.rowsImported > 0, c.name);
      assert.equal(one.rows.length, one.report.rowsImported, c.name);
      assert.deepStrictEqual(results.get(`${c.name} 3`), one, c.name);
    }
  });

  test('the rows are right: rejected lines, NULLs for bad values, text as written', () => {
    const q = results.get('quoted 3') as {
      report: { rowsImported: number; rowsRejected: number; columns: { name: string; errors: number }[] };
      rows: Row[];
    };
    // 800 lines: 20 short (NULLs, kept), 18 long and 16 without a timestamp rejected (skipCol keeps bad prices).
    const long = Array.from({ length: 800 }, (_, i) => i).filter((i) => i % 41 !== 0 && i % 43 === 0).length;
    const noTs = Array.from({ length: 800 }, (_, i) => i).filter(
      (i) => i % 41 !== 0 && i % 43 !== 0 && i % 47 === 0,
    ).length;
    assert.equal(q.report.rowsRejected, long + noTs);
    assert.equal(q.report.rowsImported, 800 - long - noTs);
    assert.ok(q.report.columns.find((c) => c.name === 'price')!.errors > 0);
    assert.ok(q.rows.some((r) => r.sym === 'multi\nline'));
    assert.ok(q.rows.some((r) => r.sym === 'quo"ted'));
    assert.ok(q.rows.some((r) => r.note === 'a "b",\r\nc'));
    const stray = results.get('stray_quotes 3') as { rows: Row[] };
    assert.equal(stray.rows.length, 900);
    assert.equal(stray.rows[300]!.a, 'x"300');
    assert.equal(stray.rows[7]!.b, 'q\nq');
  });

  test('failures fail alike, line included, and leave no table', () => {
    for (const c of FAILING) {
      const one = results.get(`${c.name} 1`) as { err: string | null; tables: number };
      assert.ok(one.err !== null && /line/.test(one.err), `${c.name}: ${one.err}`);
      assert.equal(one.tables, 0, c.name);
      assert.deepStrictEqual(results.get(`${c.name} 3`), one, c.name);
    }
  });
});

/** The columns trades() makes, as detection types them (what a segment parse is given). */
const TRADES_TARGET: CsvTarget = {
  types: ['TIMESTAMP', 'VARCHAR', 'DOUBLE', 'DOUBLE', 'VARCHAR', 'VARCHAR'],
  patterns: [],
  names: ['ts', 'sym', 'price', 'amount', 'side', 'note'],
  tsColumn: 0,
};

// Who parses a segment: a claim word in shared memory, taken by the pool thread that begins it or
// by the import's thread when it has to wait for the oldest segment (it takes back the newest ones
// no pool thread began). Driven here with a pool whose thread begins tasks only when told to.
describe('segments taken back by the import thread', () => {
  const csv = Buffer.from(trades(400));
  const header = csv.indexOf('\n') + 1;
  const target = TRADES_TARGET;
  const rules: RowRulesOptions = { atomicity: 'skipCol', skipLev: false };

  /** The file after its header through Segments, the pool thread beginning task i when `begins(i)` says so, right away or at the end. */
  async function run(begins: (i: number) => boolean): Promise<{ rows: unknown[][]; pooled: number; nulls: number }> {
    const held: (() => void)[] = [];
    let pooled = 0;
    let nulls = 0;
    let task = 0;
    const pool = {
      threads: 1,
      run: (_kind: unknown, input: SegmentRequest): Promise<SegmentResult | null> =>
        new Promise((resolve) => {
          const begin = (): void => {
            const out = parseSegmentTask(input).value;
            if (out === null) nulls++;
            else pooled++;
            resolve(out);
          };
          if (begins(task++)) begin();
          else held.push(begin);
        }),
    } as unknown as WorkerPool;
    const rows: unknown[][] = [];
    const segments = new Segments(pool, {
      delimiter: 0x2c,
      lineBytes: 1 << 20,
      segmentBytes: 200,
      target,
      rules,
      line: 2,
      startRows: 1,
      startBytes: header,
      budget: new MemoryBudget(1 << 30, 'test'),
      batch: (n, columns) => {
        for (let r = 0; r < n; r++) rows.push(columns.map((c) => valueAt(c, r)));
      },
      serially: () => Promise.reject(new Error('nothing here goes to one thread')),
      more: () => Promise.reject(new Error('nothing here goes to one thread')),
    });
    for (let at = header; at < csv.length; at += 97) await segments.push(csv.subarray(at, at + 97));
    await segments.finish();
    for (const begin of held) begin(); // tasks the pool thread never began: each finds its segment taken
    return { rows, pooled, nulls };
  }

  test('the same rows whoever parses each segment, and each segment parsed once', async () => {
    const all = await run(() => true);
    assert.ok(all.rows.length > 300, String(all.rows.length));
    assert.equal(all.nulls, 0);
    const none = await run(() => false);
    assert.equal(none.pooled, 0, 'a busy pool: the import thread takes every segment back');
    assert.ok(none.nulls > 10, String(none.nulls));
    assert.deepEqual(none.rows, all.rows);
    const some = await run((i) => i % 3 === 0);
    assert.ok(some.pooled > 3 && some.nulls > 3, `${some.pooled} ${some.nulls}`);
    assert.deepEqual(some.rows, all.rows);
  });

  test('a pool thread parses a segment only when it claims it first', () => {
    const bytes = csv.subarray(header, header + 400);
    const request = (claim: Int32Array): SegmentRequest => ({
      bytes,
      delimiter: 0x2c,
      lineBytes: 1 << 20,
      types: target.types,
      patterns: target.patterns,
      names: target.names,
      tsColumn: 0,
      rules,
      rows: 16,
      final: true,
      claim,
    });
    const free = new Int32Array(new SharedArrayBuffer(4));
    assert.ok(parseSegmentTask(request(free)).value!.rows > 0);
    assert.equal(free[0], 2, 'marked done by the pool');
    const taken = new Int32Array(new SharedArrayBuffer(4));
    taken[0] = 3;
    assert.equal(parseSegmentTask(request(taken)).value, null);
  });
});

/** Row r of a builder's column as a plain value (numbers, or text bytes as a string). */
function valueAt(c: ColumnInput, r: number): unknown {
  if (ArrayBuffer.isView(c)) return (c as Float64Array)[r];
  if (Array.isArray(c)) return c[r];
  const v = c as Exclude<ColumnInput, ArrayBufferView | readonly unknown[]>;
  if (v.kind === 'fixed') return v.exact !== undefined && v.exact !== null ? v.exact[r] : v.data[r];
  if (v.kind === 'var') {
    if (v.nulls?.[r]) return null;
    return Buffer.from(v.bytes.subarray(v.offsets[r], v.offsets[r + 1])).toString('utf8');
  }
  return JSON.stringify(v);
}

describe('segments under a tight memory budget', () => {
  const csv = Buffer.from(trades(300));
  const header = csv.indexOf('\n') + 1;
  const target = TRADES_TARGET;
  const pool = {
    threads: 1,
    run: (_kind: unknown, input: SegmentRequest): Promise<SegmentResult | null> =>
      Promise.resolve(parseSegmentTask(input).value),
  } as unknown as WorkerPool;

  /** The file after its header through Segments with `budget`; `sinkBytes` charged to it per row taken (never given back). */
  async function run(budget: MemoryBudget, sinkBytes: number): Promise<{ rows: number; serial: Buffer[] }> {
    let rows = 0;
    const serial: Buffer[] = [];
    const segments = new Segments(pool, {
      delimiter: 0x2c,
      lineBytes: 1 << 20,
      segmentBytes: 200,
      target,
      rules: { atomicity: 'skipCol', skipLev: false },
      line: 2,
      startRows: 1,
      startBytes: header,
      budget,
      batch: (n) => {
        budget.charge(n * sinkBytes, "the sink's rows");
        rows += n;
      },
      serially: (_line, chunks) => {
        serial.push(...chunks.map((c) => Buffer.from(c)));
        return Promise.resolve();
      },
      more: (chunk) => {
        serial.push(Buffer.from(chunk));
        return Promise.resolve();
      },
    });
    for (let at = header; at < csv.length; at += 97) await segments.push(csv.subarray(at, at + 97));
    await segments.finish();
    return { rows, serial };
  }

  test('what fills the budget fails naming itself, not the segments in flight', async () => {
    const err = await run(new MemoryBudget(48 * 1024, 'import.memory.limit'), 200).then(
      () => 'no error',
      (e: unknown) => (e as Error).message,
    );
    assert.match(err, /^the sink's rows needs more than the memory limit/);
  });

  test('a segment that does not fit with none in flight sends the rest, in order, to the import thread', async () => {
    const { rows, serial } = await run(new MemoryBudget(100, 'import.memory.limit'), 0);
    const rest = Buffer.concat(serial);
    // Whatever segments fitted were taken; from the first that did not, the rest of the file as it is.
    assert.ok(rest.length > csv.length / 2, `${rest.length} bytes went to the import thread`);
    assert.ok(rest.equals(csv.subarray(csv.length - rest.length)), 'the rest of the file, in order');
    assert.equal(csv[csv.length - rest.length - 1], 0x0a, 'from a line start');
    assert.ok(rows < 10, String(rows));
  });
});
