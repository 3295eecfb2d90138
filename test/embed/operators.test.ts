// The library's stream operators, imported as a user imports them ('svcdb'),
// composed with stream.pipeline and stream-chain: CSV in (detection, schema,
// the designated timestamp, /imp's row rules, gzip), where() and select()
// (SQL errors with positions in the user's text, per-batch only), the CSV,
// JSON, JSON-lines and Parquet writers (Parquet read back by hyparquet), bad
// options, and backpressure (a stalled consumer stops the source).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gzipSync } from 'node:zlib';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import chain from 'stream-chain';
import {
  batchesToCsv,
  batchesToJson,
  batchesToJsonLines,
  batchesToParquet,
  batchRows,
  csvToBatches,
  select,
  where,
  type RecordBatch,
  type Row,
} from 'svcdb';

const CSV =
  [
    'ts,sym,price,qty,note',
    '2024-01-01T00:00:00.000000Z,AAA,10.5,1,plain',
    '2024-01-01T00:01:00.000000Z,BBB,9.25,2,"with ""quotes"", and comma"',
    '2024-01-01T00:02:00.000000Z,AAA,11,3,',
    '2024-01-01T00:03:00.000000Z,CCC,,4,x',
  ].join('\n') + '\n';

/** Everything a stream graph writes, as one Buffer. */
function collector(): { sink: Writable; bytes: () => Buffer } {
  const parts: Buffer[] = [];
  return {
    sink: new Writable({
      write(c: Buffer, _e, cb) {
        parts.push(Buffer.from(c));
        cb();
      },
    }),
    bytes: () => Buffer.concat(parts),
  };
}

async function run(input: string | Buffer, ...stages: NodeJS.ReadWriteStream[]): Promise<string> {
  const out = collector();
  await (pipeline as unknown as (streams: unknown[]) => Promise<void>)([Readable.from([input]), ...stages, out.sink]);
  return out.bytes().toString('utf8');
}

async function batchesOf(input: string, ...stages: NodeJS.ReadWriteStream[]): Promise<RecordBatch[]> {
  const got: RecordBatch[] = [];
  const sink = new Writable({
    objectMode: true,
    write(b: RecordBatch, _e, cb) {
      got.push(b);
      cb();
    },
  });
  await (pipeline as unknown as (streams: unknown[]) => Promise<void>)([Readable.from([input]), ...stages, sink]);
  return got;
}

const rowsOf = (bs: RecordBatch[]): Row[] => bs.flatMap((b) => batchRows(b));

test('csvToBatches detects the columns and types, keeps NULLs and quotes, reports what it read', async () => {
  const csv = csvToBatches({ timestamp: 'ts' });
  const bs = await batchesOf(CSV, csv);
  assert.deepEqual(bs[0]!.fields, [
    { name: 'ts', type: 'TIMESTAMP' },
    { name: 'sym', type: 'VARCHAR' },
    { name: 'price', type: 'DOUBLE' },
    { name: 'qty', type: 'INT' },
    { name: 'note', type: 'VARCHAR' },
  ]);
  assert.equal(bs[0]!.timestamp, 0);
  assert.deepEqual(rowsOf(bs), [
    { ts: '2024-01-01T00:00:00.000000Z', sym: 'AAA', price: 10.5, qty: 1, note: 'plain' },
    { ts: '2024-01-01T00:01:00.000000Z', sym: 'BBB', price: 9.25, qty: 2, note: 'with "quotes", and comma' },
    { ts: '2024-01-01T00:02:00.000000Z', sym: 'AAA', price: 11, qty: 3, note: null },
    { ts: '2024-01-01T00:03:00.000000Z', sym: 'CCC', price: null, qty: 4, note: 'x' },
  ]);
  assert.deepEqual(csv.result, {
    rowsAccepted: 4,
    rowsRejected: 0,
    header: true,
    columns: [
      { name: 'ts', type: 'TIMESTAMP', errors: 0 },
      { name: 'sym', type: 'VARCHAR', errors: 0 },
      { name: 'price', type: 'DOUBLE', errors: 0 },
      { name: 'qty', type: 'INT', errors: 0 },
      { name: 'note', type: 'VARCHAR', errors: 0 },
    ],
  });
});

test('csvToBatches: schema over detection, atomicity, batch size, gzip input, a delimiter', async () => {
  const bad = 'a,b\n1,x\n2,3\n3,4\n';
  // skipCol (default): the bad value becomes NULL; skipRow drops the row; abort fails the stream.
  const schema = [{ name: 'b', type: 'LONG' }];
  assert.deepEqual(rowsOf(await batchesOf(bad, csvToBatches({ schema }))), [
    { a: 1, b: null },
    { a: 2, b: 3 },
    { a: 3, b: 4 },
  ]);
  const skipRow = csvToBatches({ schema, atomicity: 'skipRow' });
  assert.deepEqual(rowsOf(await batchesOf(bad, skipRow)), [
    { a: 2, b: 3 },
    { a: 3, b: 4 },
  ]);
  assert.equal(skipRow.result?.rowsRejected, 1);
  assert.equal(skipRow.result?.columns[1]!.errors, 1);
  await assert.rejects(
    batchesOf(bad, csvToBatches({ schema, atomicity: 'abort' })),
    /cannot convert a value to LONG \[column=b, line=2, atomicity=abort\]/,
  );

  const many = 'n\n' + Array.from({ length: 2500 }, (_, i) => String(i)).join('\n') + '\n';
  const bs = await batchesOf(many, csvToBatches({ batchRows: 1000 }));
  assert.deepEqual(
    bs.map((b) => b.rowCount),
    [1000, 1000, 500],
  );
  assert.deepEqual(
    rowsOf(bs).map((r) => r.n),
    Array.from({ length: 2500 }, (_, i) => i),
  );

  const gz = await batchesOf(gzipSync(Buffer.from(CSV)) as unknown as string, csvToBatches());
  assert.equal(rowsOf(gz).length, 4);
  const semi = await batchesOf('x;y\n1;a\n2;b\n', csvToBatches({ delimiter: ';' }));
  assert.deepEqual(rowsOf(semi), [
    { x: 1, y: 'a' },
    { x: 2, y: 'b' },
  ]);
});

test('csvToBatches refuses bad options and bad input clearly', async () => {
  assert.throws(
    () => csvToBatches({ atomicity: 'sometimes' as 'abort' }),
    /invalid value for parameter atomicity: sometimes/,
  );
  assert.throws(() => csvToBatches({ delimiter: ';;' }), /invalid value for parameter delimiter/);
  assert.throws(() => csvToBatches({ batchRows: 0 }), /invalid value for option batchRows/);
  assert.throws(() => csvToBatches({ delimeter: ',' } as never), /unknown csvToBatches option: delimeter/);
  assert.throws(() => csvToBatches({ schema: [{ name: 'a', type: 'MONEY' }] }), /unknown type MONEY/);
  await assert.rejects(batchesOf('', csvToBatches()), /empty file/);
  await assert.rejects(
    batchesOf(CSV, csvToBatches({ timestamp: 'sym' })),
    /timestamp column must be a TIMESTAMP \[column=sym/,
  );
  await assert.rejects(
    batchesOf(CSV, csvToBatches({ timestamp: 'nope' })),
    /timestamp column does not exist in the file \[column=nope\]/,
  );
});

test('csvToBatches holds what /imp may hold: maxColumns, maxLineBytes and memoryLimit, named in their errors', async () => {
  const wide = `${Array.from({ length: 12 }, (_, i) => `c${i}`).join(',')}\n${Array.from({ length: 12 }, (_, i) => i).join(',')}\n`;
  await assert.rejects(
    batchesOf(wide, csvToBatches({ maxColumns: 10 })),
    /the file has 12 columns, more than the limit of 10 \[limit=maxColumns option/,
  );
  assert.equal(rowsOf(await batchesOf(wide, csvToBatches({ maxColumns: 12 }))).length, 1);
  await assert.rejects(
    batchesOf(`${'x'.repeat(5000)},1\ny,2\n`, csvToBatches({ maxLineBytes: 4096 })),
    /line 1 is longer than the limit of 4096 bytes \[limit=maxLineBytes option/,
  );
  const many = `a,b\n${Array.from({ length: 100_000 }, (_, i) => `${i},${i}`).join('\n')}\n`;
  await assert.rejects(
    batchesOf(many, csvToBatches({ memoryLimit: 256 * 1024 })),
    /needs more than the memory limit of 262144 bytes \[limit=memoryLimit option/,
  );
  assert.throws(() => csvToBatches({ memoryLimit: 0 }), /invalid value for option memoryLimit: 0/);
  // A wide row makes short batches (about 8 MiB each), whatever batchRows says.
  const cols = 1000;
  const rows = Array.from({ length: 1500 }, (_, r) => Array.from({ length: cols }, (_, c) => `${r}.${c}`).join(','));
  const bs = await batchesOf(
    `${Array.from({ length: cols }, (_, c) => `c${c}`).join(',')}\n${rows.join('\n')}\n`,
    csvToBatches(),
  );
  assert.ok(bs.length > 1 && bs.every((b) => b.rowCount <= 1048), bs.map((b) => b.rowCount).join(' '));
  assert.equal(
    bs.reduce((n, b) => n + b.rowCount, 0),
    1500,
  );
});

test('where() and select() run SQL over each batch; errors point into the expression', async () => {
  const out = await run(
    CSV,
    csvToBatches({ timestamp: 'ts' }),
    where("price > 10 AND sym = 'AAA'"),
    select('ts, sym, price * 2 AS p, upper(sym) s, qty + 1'),
    batchesToCsv(),
  );
  assert.equal(
    out,
    [
      '"ts","sym","p","s","qty + 1"',
      '"2024-01-01T00:00:00.000000Z","AAA",21.0,"AAA",2',
      '"2024-01-01T00:02:00.000000Z","AAA",22.0,"AAA",4',
      '',
    ].join('\n'),
  );

  // Positions are offsets into the caller's text, not into the SQL svcdb wraps it in. Syntax errors
  // show when the operator is made; names and types when the first batch says what the columns are.
  assert.throws(
    () => where('price > > 1'),
    (e: Error & { position?: number }) => {
      assert.match(e.message, /^where\(\): /);
      assert.equal(e.position, 8);
      return true;
    },
  );
  assert.throws(
    () => select('ts,, price'),
    (e: Error & { position?: number }) => e.position === 3,
  );
  await assert.rejects(
    run(CSV, csvToBatches(), select('ts, nosuch'), batchesToCsv()),
    (e: Error & { position?: number }) => {
      assert.match(e.message, /Invalid column: nosuch/);
      assert.equal(e.position, 4);
      return true;
    },
  );
  await assert.rejects(
    run(CSV, csvToBatches(), select('sum(price)'), batchesToCsv()),
    /select\(\) works on each batch on its own, so aggregate functions cannot be used here/,
  );
  // Subqueries would need the whole input (or a table): refused, pointing at the subquery.
  await assert.rejects(
    run(CSV, csvToBatches(), where('price > (SELECT min(price) FROM batches)'), batchesToCsv()),
    (e: Error & { position?: number }) => {
      assert.match(e.message, /subqueries cannot be used here/);
      assert.equal(e.position, 8);
      return true;
    },
  );
  await assert.rejects(
    run(CSV, csvToBatches(), select('ts, price IN (SELECT x FROM long_sequence(3))'), batchesToCsv()),
    /subqueries cannot be used here/,
  );
  await assert.rejects(
    run(CSV, csvToBatches(), where('price IN (SELECT x FROM other)'), batchesToCsv()),
    /table does not exist \[table=other\]/,
  );
  assert.throws(() => where(''), /where\(\) needs a SQL expression string/);

  // Every row filtered away: the writers still know the columns.
  assert.equal(
    await run(CSV, csvToBatches(), where('price > 1000'), batchesToCsv()),
    '"ts","sym","price","qty","note"\n',
  );
});

test('the writers: CSV without header, QuestDB-style JSON, JSON lines, with progress', async () => {
  assert.equal(await run('a,b\n1,x\n2,y\n', csvToBatches(), batchesToCsv({ header: false })), '1,x\n2,y\n'); // one-letter values are CHAR (QuestDB's detection), written bare
  const none = collector();
  await pipeline(Readable.from([]), batchesToCsv(), none.sink);
  assert.equal(none.bytes().length, 0, 'no batches, no columns: nothing to write');
  assert.throws(
    () => batchesToCsv({ headr: false } as never),
    /unknown batchesToCsv option: headr \[expected one of header, onProgress\]/,
  );
  assert.throws(() => batchesToJson({ quoteLargeNums: true } as never), /unknown batchesToJson option: quoteLargeNums/);
  assert.throws(
    () => batchesToJsonLines({ progress: () => undefined } as never),
    /unknown batchesToJsonLines option: progress/,
  );
  const json = JSON.parse(
    await run(CSV, csvToBatches({ timestamp: 'ts' }), where('qty <= 2'), batchesToJson({ query: 'trades' })),
  );
  assert.deepEqual(json, {
    query: 'trades',
    columns: [
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'sym', type: 'VARCHAR' },
      { name: 'price', type: 'DOUBLE' },
      { name: 'qty', type: 'INT' },
      { name: 'note', type: 'VARCHAR' },
    ],
    timestamp: 0,
    dataset: [
      ['2024-01-01T00:00:00.000000Z', 'AAA', 10.5, 1, 'plain'],
      ['2024-01-01T00:01:00.000000Z', 'BBB', 9.25, 2, 'with "quotes", and comma'],
    ],
    count: 2,
  });
  const progress: Array<{ rows: number; bytes: number }> = [];
  const lines = await run(CSV, csvToBatches(), batchesToJsonLines({ onProgress: (p) => progress.push(p) }));
  assert.deepEqual(
    lines
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as unknown),
    [
      { ts: '2024-01-01T00:00:00.000000Z', sym: 'AAA', price: 10.5, qty: 1, note: 'plain' },
      { ts: '2024-01-01T00:01:00.000000Z', sym: 'BBB', price: 9.25, qty: 2, note: 'with "quotes", and comma' },
      { ts: '2024-01-01T00:02:00.000000Z', sym: 'AAA', price: 11, qty: 3, note: null },
      { ts: '2024-01-01T00:03:00.000000Z', sym: 'CCC', price: null, qty: 4, note: 'x' },
    ],
  );
  assert.deepEqual(progress.at(-1), { rows: 4, bytes: Buffer.byteLength(lines) });
  // JSON lines escape keys and values like JSON.
  const odd = await run('"we""ird",b\n"a\tb",z\n', csvToBatches({ forceHeader: true }), batchesToJsonLines());
  assert.deepEqual(JSON.parse(odd), { weIrd: 'a\tb', b: 'z' }); // names made as /imp makes them (QuestDB's camel case)
});

test('batchesToParquet writes what hyparquet reads back, with the /exp options; stream-chain composes the operators', async () => {
  const etl = chain([
    csvToBatches({ timestamp: 'ts' }),
    where('qty >= 2'),
    select('ts, sym, price'),
    batchesToParquet({ compression_codec: 'snappy', row_group_size: 2 }),
  ]);
  const out = collector();
  await pipeline(Readable.from([CSV]), etl, out.sink);
  const file = out.bytes();
  const ab = new Uint8Array(file).buffer;
  const meta = parquetMetadata(ab);
  assert.equal(meta.row_groups.length, 2);
  assert.equal(meta.row_groups[0]!.columns[0]!.meta_data?.codec, 'SNAPPY');
  const rows = await parquetReadObjects({
    file: ab,
    compressors,
    parsers: { timestampFromMicroseconds: (v: bigint) => String(v) },
  });
  assert.deepEqual(rows, [
    { ts: '1704067260000000', sym: 'BBB', price: 9.25 },
    { ts: '1704067320000000', sym: 'AAA', price: 11 },
    { ts: '1704067380000000', sym: 'CCC', price: null },
  ]);
  assert.throws(
    () => batchesToParquet({ compression_codec: 'zip' }),
    /invalid compression codec\[zip\], expected one of: uncompressed, snappy/,
  );
  assert.throws(
    () => batchesToParquet({ row_group_size: 0 }),
    /invalid row group size:0, expected a value from 1 to 10000000/,
  );
  assert.throws(
    () => batchesToParquet({ compression: 'zstd' } as never),
    /unknown batchesToParquet option: compression \[expected one of onProgress, partition_by, compression_codec/,
  );
  await assert.rejects(
    pipeline(Readable.from([]), batchesToParquet(), collector().sink),
    /batchesToParquet got no batches/,
  );
  await assert.rejects(run('not a batch' as string, batchesToCsv()), /expected RecordBatch objects/);
});

test('a stage that fails at the end of its input fails the whole pipeline (no hang)', { timeout: 10_000 }, async () => {
  const cases: Array<[string, () => Promise<unknown>, RegExp]> = [
    [
      'empty input',
      () => run(Buffer.alloc(0), csvToBatches(), where('a > 1'), batchesToCsv()),
      /empty file \[table=csv\]/,
    ],
    [
      'header only',
      () => run('a,b\n', csvToBatches({ delimiter: ',', forceHeader: true }), select('a'), batchesToParquet()),
      /the file has a header and no rows/,
    ],
    [
      'abort on the last line',
      () =>
        run(
          'a,b\n1,x\nq,y\n',
          csvToBatches({ atomicity: 'abort', forceHeader: true, schema: [{ name: 'a', type: 'INT' }] }),
          where('a > 0'),
          batchesToJsonLines(),
        ),
      /cannot convert a value to INT \[column=a, line=3, atomicity=abort\]; the stream stops here/,
    ],
    [
      'timestamp column missing in a small file',
      () =>
        run(CSV, csvToBatches({ timestamp: 'tss' }), where('qty > 1'), batchesToParquet({ compression_codec: 'zstd' })),
      /timestamp column does not exist/,
    ],
    ['not gzip', () => run(CSV, csvToBatches({ name: 'x.csv.gz' }), batchesToCsv()), /not valid gzip/],
  ];
  for (const [name, go, error] of cases) await assert.rejects(go(), error, name);
  // stream-chain composes the same stages; the failure reaches its pipeline too.
  await assert.rejects(
    pipeline(
      Readable.from([CSV]),
      chain([csvToBatches({ timestamp: 'tss' }), where('qty > 1'), batchesToCsv()]),
      collector().sink,
    ),
    /timestamp column does not exist/,
  );
});

test('backpressure: a stalled consumer stops csvToBatches from reading on', async () => {
  let produced = 0;
  const line = '2024-01-01T00:00:00.000000Z,AAA,10.5,1,some text to make the line longer\n';
  const chunk = line.repeat(1000); // ~80 KB, 1,000 rows
  async function* source(): AsyncGenerator<string> {
    yield 'ts,sym,price,qty,note\n';
    for (let i = 0; i < 200; i++) {
      produced++;
      yield chunk;
    } // 16 MB if read to the end
  }
  let taken = 0;
  let release!: () => void;
  const stalled = new Promise<void>((r) => {
    release = r;
  });
  const sink = new Writable({
    objectMode: true,
    highWaterMark: 1,
    write(_b: RecordBatch, _e, cb) {
      taken++;
      if (taken === 1) void stalled.then(() => cb());
      else cb();
    },
  });
  const flow = pipeline(Readable.from(source()), csvToBatches({ batchRows: 1000 }), where('price > 1'), sink);
  await new Promise((r) => setTimeout(r, 300));
  const seen = produced;
  await new Promise((r) => setTimeout(r, 300));
  // A few batches in flight (one per stage), not the file: the source stopped while the consumer did.
  assert.equal(taken, 1);
  assert.equal(produced, seen, 'the source kept going while the consumer was stalled');
  assert.ok(seen < 20, `the source ran ${seen} chunks ahead of a stalled consumer`);
  release();
  await flow;
  assert.equal(taken, 200);
  assert.equal(produced, 200);
});
