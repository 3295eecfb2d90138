// What one import may hold (lib/ingest/import-limits.ts, csv-batcher.ts,
// importer.ts): batches sized from the row width, the budget charged and given
// back, the column and line limits named in their errors, detection waiting
// past 1 MiB for its lines, and an import that is written out of sight
// (complete), visible in one step (publish) or undone (abort).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { CsvBatcher, type CsvBatcherOptions, type CsvLayout } from '../../lib/ingest/csv-batcher.js';
import { DEFAULT_IMPORT_LIMITS, type ImportLimits } from '../../lib/ingest/import-limits.js';
import { Importer, type ImportOptions } from '../../lib/ingest/importer.js';
import { openCatalog, tempRoot } from '../storage/helpers.js';

const MIB = 1024 * 1024;
const enc = new TextEncoder();

function limits(o: Partial<Omit<ImportLimits, 'keys'>>): ImportLimits {
  return { ...DEFAULT_IMPORT_LIMITS, ...o };
}

/** Runs a batcher over `csv` in `chunk`-byte pushes; the batch sizes it handed over. */
async function batchesOf(
  csv: string | Uint8Array,
  opts: Partial<CsvBatcherOptions> = {},
  chunk = 64 * 1024,
): Promise<{ sizes: number[]; batcher: CsvBatcher; layout: CsvLayout | null }> {
  const sizes: number[] = [];
  let layout: CsvLayout | null = null;
  const b = new CsvBatcher(
    {
      label: 't',
      atomicity: 'skipCol',
      delimiter: null,
      forceHeader: false,
      skipLev: false,
      schema: [],
      analysisLines: 1000,
      ...opts,
    },
    {
      prepare: (l) => {
        layout = l;
        return { types: l.types, patterns: l.patterns, names: l.names, tsColumn: -1 };
      },
      batch: (rows) => {
        sizes.push(rows);
      },
    },
  );
  const bytes = typeof csv === 'string' ? enc.encode(csv) : csv;
  for (let i = 0; i < bytes.length; i += chunk) await b.push(bytes.subarray(i, i + chunk));
  await b.finish();
  return { sizes, batcher: b, layout };
}

function wideCsv(columns: number, rows: number): string {
  const lines = [Array.from({ length: columns }, (_, c) => `c${c}`).join(',')];
  for (let r = 0; r < rows; r++) lines.push(Array.from({ length: columns }, (_, c) => `${r}.${c}`).join(','));
  return `${lines.join('\n')}\n`;
}

test('a wide file is handed over in short batches and its builders stay small', async () => {
  const { sizes, batcher } = await batchesOf(wideCsv(2000, 1200));
  assert.equal(
    sizes.reduce((a, b) => a + b, 0),
    1200,
  );
  // 2,000 DOUBLE columns are 16,000 bytes a row: about 8 MiB of rows a batch, not 65,536 rows.
  assert.ok(Math.max(...sizes) <= 524, `batches of ${Math.max(...sizes)} rows`);
  assert.ok(sizes.length >= 3);
  assert.ok(batcher.budget.peak < 32 * MIB, `peak ${batcher.budget.peak} bytes`);
});

test('a narrow file still gets batches of 65,536 rows', async () => {
  const csv = `a,b\n${Array.from({ length: 70_000 }, (_, i) => `${i},${i * 2}`).join('\n')}\n`;
  const { sizes } = await batchesOf(csv);
  assert.deepEqual(sizes, [65_536, 70_000 - 65_536]);
});

test('long text values hand a batch over before its row count is reached', async () => {
  const value = 'v'.repeat(100_000);
  const csv = `n,s\n${Array.from({ length: 300 }, (_, i) => `${i},${i < 2 ? 'x' : value}`).join('\n')}\n`;
  const { sizes, batcher } = await batchesOf(csv);
  assert.equal(
    sizes.reduce((a, b) => a + b, 0),
    300,
  );
  assert.ok(sizes.length > 1, `one batch of ${sizes[0]} rows holding ${300 * value.length} bytes of text`);
  assert.ok(batcher.budget.peak < 48 * MIB, `peak ${batcher.budget.peak} bytes`);
});

test('a file wider than maxColumns is refused naming the limit, before anything is sized by it', async () => {
  await assert.rejects(batchesOf(wideCsv(11, 3), { limits: limits({ maxColumns: 10 }) }), {
    code: 'LIMIT',
    message: /the file has 11 columns, more than the limit of 10 \[limit=import\.max\.columns, table=t\]/,
  });
});

test('builders past the memory limit fail naming it', async () => {
  await assert.rejects(batchesOf(wideCsv(500, 2000), { limits: limits({ memory: 2 * MIB }) }), {
    code: 'LIMIT',
    message: /needs more than the memory limit of 2097152 bytes \[limit=import\.memory\.limit/,
  });
});

test('detection waits past 1 MiB for two lines; a line past the line limit is refused naming it', async () => {
  const first = 'x'.repeat(3 * MIB);
  const { sizes, layout } = await batchesOf(`${first},1\ny,2\nz,3\n`, {}, 7777);
  assert.deepEqual(sizes, [3]);
  assert.deepEqual(layout!.types, ['VARCHAR', 'INT']);
  await assert.rejects(batchesOf(`${first},1\ny,2\n`, { limits: limits({ lineBytes: 2 * MIB }) }, 7777), {
    code: 'LIMIT',
    message: /line 1 is longer than the limit of 2097152 bytes \[limit=http\.text\.roll\.buffer\.limit, line=1\]/,
  });
  // Old Mac line ends (\r alone) are line ends too.
  const { sizes: cr } = await batchesOf(
    `${'y'.repeat(MIB)},1\r${'z'.repeat(MIB)},2\r`,
    { limits: limits({ lineBytes: 2 * MIB }) },
    9999,
  );
  assert.deepEqual(cr, [2]);
});

test('a value held across chunks past the line limit is refused naming it and its line', async () => {
  await assert.rejects(batchesOf(`a,b\n1,x\n2,"${'q'.repeat(3 * MIB)}`, { limits: limits({ lineBytes: MIB }) }, 4096), {
    code: 'LIMIT',
    message:
      /a value on line 3 is longer than the limit of 1048576 bytes \[limit=http\.text\.roll\.buffer\.limit, line=3\]/,
  });
});

test('the held start of the file and the sample are given back once detection has run', async () => {
  const csv = `a,b\n${Array.from({ length: 1100 }, (_, i) => `${i},${'w'.repeat(1000)}`).join('\n')}\n`;
  let atDetection = 0;
  const b = new CsvBatcher(
    {
      label: 't',
      atomicity: 'skipCol',
      delimiter: null,
      forceHeader: false,
      skipLev: false,
      schema: [],
      analysisLines: 1000,
    },
    {
      prepare: (l) => {
        atDetection = b.budget.used;
        return { types: l.types, patterns: l.patterns, names: l.names, tsColumn: -1 };
      },
      batch: () => undefined,
    },
  );
  const bytes = enc.encode(csv);
  for (let i = 0; i < bytes.length; i += 4096) await b.push(bytes.subarray(i, i + 4096));
  await b.finish();
  // At detection: ~1 MB of held lines and four times that for the sample; after: the builders and the tokenizer.
  assert.ok(atDetection > 4.5e6, `held ${atDetection} bytes at detection`);
  assert.ok(b.budget.used < atDetection / 2, `still held ${b.budget.used} of ${atDetection} bytes`);
});

// ---- the Importer: out of sight until published

const root = tempRoot('svcdb-import-limits-');
const catalog = openCatalog(root.dir);
after(() => {
  catalog.close();
  root.remove();
});

/** The files here all start with a header line; a one-row file of one-letter names would not be detected as having one (detect.test.ts). */
function importer(table: string, o: Partial<ImportOptions> = {}): Importer {
  return new Importer(catalog, {
    table,
    atomicity: 'skipCol',
    delimiter: null,
    forceHeader: true,
    overwrite: false,
    create: true,
    partitionBy: null,
    timestamp: null,
    skipLev: false,
    schema: [],
    analysisLines: 1000,
    ...o,
  });
}
const rowCount = (t: string): number => catalog.get(t).txn.partitions.reduce((n, p) => n + p.rows, 0);

test('complete() writes a new table out of sight, publish() shows it, abort() after complete() leaves nothing', async () => {
  const a = importer('fresh');
  await a.push(enc.encode('x,y\n1,2\n3,4\n'));
  const r = await a.complete();
  assert.equal(r.rowsImported, 2);
  assert.equal(catalog.exists('fresh'), false);
  await a.publish();
  assert.equal(rowCount('fresh'), 2);
  assert.equal(a.memory.used, 0);

  const b = importer('gone');
  await b.push(enc.encode('x,y\n1,2\n'));
  await b.complete();
  b.abort();
  assert.equal(catalog.exists('gone'), false);
  assert.equal(b.memory.used, 0);
});

test('an append is committed only by publish(); abort() after complete() rolls it back; overwrite too', async () => {
  const first = importer('app');
  await first.push(enc.encode('x,y\n1,2\n'));
  await first.finish();
  const a = importer('app');
  await a.push(enc.encode('x,y\n5,6\n7,8\n'));
  await a.complete();
  assert.equal(rowCount('app'), 1);
  a.abort();
  assert.equal(rowCount('app'), 1);
  const o = importer('app', { overwrite: true });
  await o.push(enc.encode('z\n9\n10\n11\n'));
  await o.complete();
  o.abort();
  assert.deepEqual(
    catalog.get('app').meta.columns.map((c) => c.name),
    ['x', 'y'],
  );
  const c = importer('app');
  await c.push(enc.encode('x,y\n5,6\n7,8\n'));
  await c.finish();
  assert.equal(rowCount('app'), 3);
});

test('abort() while the import waits for the writer lets the writer go and fails the import', async () => {
  const first = importer('racing');
  await first.push(enc.encode('x,y\n1,2\n'));
  await first.finish();
  const held = await catalog.writer('racing');
  const a = importer('racing');
  await a.push(enc.encode('x,y\n5,6\n'));
  const completing = a.complete(); // waits for the writer held above
  a.abort();
  held.close();
  await assert.rejects(completing, { code: 'BAD_REQUEST', message: /the import was stopped/ });
  const again = await catalog.writer('racing'); // not left locked by the aborted import
  again.close();
  assert.equal(rowCount('racing'), 1);
});

test("the writer's buffers are charged: a file that needs more than the memory limit is refused before a table is made", async () => {
  const a = importer('toowide', { limits: limits({ memory: 4 * MIB }) });
  await assert.rejects(
    async () => {
      await a.push(enc.encode(wideCsv(100, 2)));
      await a.complete();
    },
    { code: 'LIMIT', message: /the table writer's buffers .* \[limit=import\.memory\.limit/ },
  );
  a.abort();
  assert.equal(catalog.exists('toowide'), false);
});
