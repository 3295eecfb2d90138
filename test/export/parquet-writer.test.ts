import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { parseParquetOptions } from '../../lib/export/parquet/options.js';
import { parquetBody, planParquet } from '../../lib/export/parquet/parquet-writer.js';
import type { RowStats } from '../../lib/export/row-window.js';
import type { Field } from '../../lib/sql/bound.js';
import type { Batch } from '../../lib/core/batch.js';

const DAY = 86_400_000_000;
const fields: Field[] = [
  { name: 'ts', type: 'TIMESTAMP' },
  { name: 'k', type: 'INT' },
  { name: 'sym', type: 'SYMBOL' },
];
const dict = ['x', 'y', 'z'];

/** `batches` batches of `rows` rows, 1 hour apart, with NULLs every 5th k; `closed` records the source's finally. */
function source(batches: number, rows: number, state: { closed: boolean; produced: number }): AsyncGenerator<Batch> {
  return (async function* () {
    try {
      for (let b = 0; b < batches; b++) {
        const ts = new Float64Array(rows),
          k = new Int32Array(rows),
          keys = new Int32Array(rows);
        for (let i = 0; i < rows; i++) {
          const n = b * rows + i;
          ts[i] = n * 3_600_000_000;
          k[i] = n % 5 === 0 ? -0x80000000 : n;
          keys[i] = n % 4 === 3 ? -1 : n % 3;
        }
        state.produced += rows;
        yield {
          rowCount: rows,
          columns: [
            { kind: 'fixed', type: 'TIMESTAMP', data: ts },
            { kind: 'fixed', type: 'INT', data: k },
            { kind: 'symbol', type: 'SYMBOL', keys, dict },
          ],
        };
      }
    } finally {
      state.closed = true;
    }
  })();
}

async function collect(
  params: Record<string, string>,
  batches: number,
  rows: number,
): Promise<{ file: Buffer; stats: RowStats; chunks: number }> {
  const plan = planParquet(fields, 0, 'tbl', parseParquetOptions(new URLSearchParams(params)));
  const stats: RowStats = { sent: 0, matched: 0 };
  const parts: Buffer[] = [];
  const state = { closed: false, produced: 0 };
  for await (const c of parquetBody(plan, source(batches, rows, state), null, stats)) {
    parts.push(c);
    await new Promise((resolve) => setImmediate(resolve)); // a slow consumer
  }
  assert.ok(state.closed);
  return { file: Buffer.concat(parts), stats, chunks: parts.length };
}

const ab = (b: Buffer): ArrayBuffer => b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer;

test('row groups hold row_group_size rows across batch boundaries and every value reads back', async () => {
  const { file, stats, chunks } = await collect({ row_group_size: '250' }, 7, 100);
  assert.equal(stats.sent, 700);
  const meta = parquetMetadata(ab(file));
  assert.deepEqual(
    meta.row_groups.map((g) => Number(g.num_rows)),
    [250, 250, 200],
  );
  assert.ok(chunks >= 9, 'one chunk per column chunk at least');
  const rows = await parquetReadObjects({
    file: ab(file),
    compressors,
    parsers: { timestampFromMicroseconds: (v: bigint) => Number(v) },
  });
  assert.equal(rows.length, 700);
  rows.forEach((r, n) => {
    assert.equal(r.ts, n * 3_600_000_000);
    assert.equal(r.k, n % 5 === 0 ? null : n);
    assert.equal(r.sym, n % 4 === 3 ? null : dict[n % 3]);
  });
});

test('partition_by DAY closes a row group at every day boundary, inside batches too', async () => {
  const { file } = await collect({ partition_by: 'DAY', row_group_size: '1000' }, 3, 50); // 150 hours
  const meta = parquetMetadata(ab(file));
  assert.deepEqual(
    meta.row_groups.map((g) => Number(g.num_rows)),
    [24, 24, 24, 24, 24, 24, 6],
  );
  for (const g of meta.row_groups) {
    const st = g.columns[0]!.meta_data!.statistics!;
    // hyparquet gives timestamp statistics as Dates (milliseconds).
    const lo = (st.min_value as unknown as Date).getTime() * 1000;
    const hi = (st.max_value as unknown as Date).getTime() * 1000;
    assert.equal(Math.floor(lo / DAY), Math.floor(hi / DAY));
  }
});

test('nothing is sent before the first row group is encoded; stopping early closes the query', async () => {
  const plan = planParquet(fields, 0, 'tbl', parseParquetOptions(new URLSearchParams({ row_group_size: '100' })));
  const state = { closed: false, produced: 0 };
  const body = parquetBody(plan, source(1_000_000, 100, state), null, { sent: 0, matched: 0 });
  const first = await body.next();
  assert.equal(first.done, false);
  assert.equal(first.value!.subarray(0, 4).toString('latin1'), 'PAR1');
  assert.ok(state.produced >= 100);
  await body.return(undefined);
  assert.ok(state.closed, 'the source generator ran its finally');
  assert.ok(state.produced < 1000);
});

test('an empty result is a valid file with no row groups and the key-value metadata', async () => {
  const { file } = await collect({}, 0, 0);
  const meta = parquetMetadata(ab(file));
  assert.equal(meta.row_groups.length, 0);
  assert.equal(Number(meta.num_rows), 0);
  assert.deepEqual(
    meta.key_value_metadata?.map((kv) => kv.key),
    ['svcdb.table_name', 'svcdb.designated_timestamp', 'svcdb.column_types'],
  );
});

test('text vectors under a SYMBOL field and symbol vectors under a VARCHAR field: every value, NULL and dictionary reads back', async () => {
  // Words with multi-byte UTF-8, an empty string, and enough distinct values to grow the interning tables.
  const words = ['', 'é', '😀', '日本', ...Array.from({ length: 1500 }, (_, i) => `w${i}`)];
  const enc = new TextEncoder();
  const n = 6000;
  const want = Array.from({ length: n }, (_, i) => (i % 11 === 5 ? null : words[(i * 7) % words.length]!));
  const textFields: Field[] = [
    { name: 'as_symbol', type: 'SYMBOL' },
    { name: 'as_varchar', type: 'VARCHAR' },
  ];
  async function* batches(): AsyncGenerator<Batch> {
    for (let at = 0; at < n; at += 1000) {
      const rows = want.slice(at, at + 1000);
      const parts = rows.map((w) => enc.encode(w ?? ''));
      const offsets = new Int32Array(rows.length + 1);
      parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
      const bytes = new Uint8Array(offsets[rows.length]!);
      parts.forEach((p, i) => bytes.set(p, offsets[i]));
      const nulls = Uint8Array.from(rows, (w) => (w === null ? 1 : 0));
      const keys = Int32Array.from(rows, (w) => (w === null ? -1 : words.indexOf(w)));
      yield {
        rowCount: rows.length,
        columns: [
          { kind: 'var', type: 'VARCHAR', bytes, offsets, nulls },
          { kind: 'symbol', type: 'SYMBOL', keys, dict: words },
        ],
      };
    }
  }
  for (const row_group_size of ['2500', '100000']) {
    const plan = planParquet(textFields, -1, null, parseParquetOptions(new URLSearchParams({ row_group_size })));
    const parts: Buffer[] = [];
    for await (const c of parquetBody(plan, batches(), null, { sent: 0, matched: 0 })) parts.push(c);
    const file = Buffer.concat(parts);
    const rows = await parquetReadObjects({ file: ab(file), compressors });
    assert.deepEqual(
      rows.map((r) => r.as_symbol as string | null),
      want,
      row_group_size,
    );
    assert.deepEqual(
      rows.map((r) => r.as_varchar as string | null),
      want,
      row_group_size,
    );
  }
});

test('DOUBLE runs without NULLs are copied at once: NULLs first, in the middle, only NULLs and none, across batches', async () => {
  const batchesOf: (number | null)[][] = [
    [1.5, -0, 2.25, 1e300],
    [null, 3, 4],
    [5, 6, null, 7, null],
    [null, null],
    [8, 9],
  ];
  const plan = planParquet(
    [{ name: 'd', type: 'DOUBLE' }],
    -1,
    null,
    parseParquetOptions(new URLSearchParams({ row_group_size: '7' })),
  );
  async function* batches(): AsyncGenerator<Batch> {
    for (const b of batchesOf)
      yield {
        rowCount: b.length,
        columns: [{ kind: 'fixed', type: 'DOUBLE', data: Float64Array.from(b, (x) => x ?? NaN) }],
      };
  }
  const parts: Buffer[] = [];
  for await (const c of parquetBody(plan, batches(), null, { sent: 0, matched: 0 })) parts.push(c);
  const rows = await parquetReadObjects({ file: ab(Buffer.concat(parts)), compressors });
  assert.deepEqual(
    rows.map((r) => r.d as number | null),
    batchesOf.flat(),
  );
});
