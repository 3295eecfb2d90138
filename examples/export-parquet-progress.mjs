// A query of a database folder exported to a Parquet file, with progress on
// stderr. The folder must not be in use by a running server.
// Usage: node examples/export-parquet-progress.mjs ./svcdb-data "SELECT * FROM trades" trades.parquet
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { openDatabase, batchesToParquet } from 'svcdb';

const [root, sql, output] = process.argv.slice(2);
const db = openDatabase(root);
try {
  const started = performance.now();
  const onProgress = ({ rows, bytes }) => {
    const s = (performance.now() - started) / 1000;
    process.stderr.write(`progress: ${rows} rows, ${bytes} bytes, ${(rows / s).toFixed(0)} rows/s\n`);
  };
  await pipeline(
    db.query(sql),
    batchesToParquet({ compression_codec: 'snappy', row_group_size: 500, onProgress }),
    createWriteStream(output),
  );
} finally {
  await db.close();
}
