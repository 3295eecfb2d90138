// CSV file -> filtered Parquet file, no server: the stream operators composed
// into one Duplex with stream-chain, then piped from the file to the file.
// Usage: node examples/csv-to-parquet.mjs trades.csv big-trades.parquet "amount >= 100"
import { createReadStream, createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import chain from 'stream-chain';
import { csvToBatches, where, select, batchesToParquet } from 'svcdb';

const [input, output, condition = 'amount >= 100'] = process.argv.slice(2);

const csv = csvToBatches({ timestamp: 'ts' });
const etl = chain([
  csv,
  where(condition),
  select('ts, sym, price, amount, price * amount AS notional'),
  batchesToParquet({ compression_codec: 'zstd', row_group_size: 100000 }),
]);
await pipeline(createReadStream(input), etl, createWriteStream(output));

const { rowsAccepted, rowsRejected } = csv.result;
console.error(`${input}: ${rowsAccepted} rows read, ${rowsRejected} rejected -> ${output}`);
