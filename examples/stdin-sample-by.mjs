// CSV from stdin -> a table in an embedded database -> a SAMPLE BY query ->
// CSV on stdout, with plain stream.pipeline.
// Usage: node examples/stdin-sample-by.mjs < trades.csv > bars.csv
//        (or give a database folder to keep: ... stdin-sample-by.mjs ./etl-data)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { openDatabase, batchesToCsv } from 'svcdb';

const root = process.argv[2] ?? mkdtempSync(join(tmpdir(), 'svcdb-etl-'));
const db = openDatabase(root);
try {
  const imported = await db.importCsv(process.stdin, {
    name: 'trades',
    timestamp: 'ts',
    partitionBy: 'DAY',
    overwrite: true,
  });
  console.error(`imported ${imported.rowsImported} rows (${imported.rowsRejected} rejected)`);
  const bars = db.query(`
    SELECT ts, sym, first(price) AS open, max(price) AS high, min(price) AS low, last(price) AS close, sum(amount) AS volume
    FROM trades SAMPLE BY 1h ALIGN TO CALENDAR ORDER BY ts, sym`);
  await pipeline(bars, batchesToCsv(), process.stdout);
} finally {
  await db.close();
  if (process.argv[2] === undefined) rmSync(root, { recursive: true, force: true });
}
