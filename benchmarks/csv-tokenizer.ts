// CSV tokenizer benchmark (lib/ingest/csv-tokenizer.ts): MB/s of the tokenizer alone against csv-parse
// on the same ~100 MB of trades-like CSV in the same 64 KiB chunks, in the same run: csv-parse's
// streaming parser (the peer an import would use) and csv-parse/sync over the whole buffer.
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { parse } from 'csv-parse';
import { parse as parseSync } from 'csv-parse/sync';
import { csvParseOptions } from '../test/helpers/csv-parse-options.js';
import { CsvTokenizer, type FieldSink } from '../lib/ingest/csv-tokenizer.js';
import { mulberry32 } from '../test/helpers/prng.js';
import { median } from './stats.js';

const TARGET_BYTES = 100e6;
const CHUNK = 64 * 1024;
const REPS = 3;
const MB = 1e6;
const SYMBOLS = ['BTC-USD', 'ETH-USD', 'SOL-USD', 'DOGE-USD', 'XRP-USDT', 'ADA-EUR', 'AVAX-BTC', 'LTC-USD'];

/** csv-parse set up to tokenize as ours does (the differential test's options, without its cast function). */
const CSV_PARSE_OPTIONS = csvParseOptions(',');

const prng = mulberry32;

/**
 * timestamp,symbol,price,amount,side with ISO microsecond timestamps; the symbol is quoted in 20%
 * of the rows, the side in 10%, and 0.5% of the sides are quoted with a comma and "" escapes.
 */
function makeCsv(): { bytes: Buffer; rows: number; fields: number } {
  const rnd = prng(42);
  const blocks: string[] = ['timestamp,symbol,price,amount,side\n'];
  let size = blocks[0]!.length;
  let rows = 1;
  let us = Date.UTC(2024, 0, 1) * 1000;
  let lastSec = -1;
  let secPrefix = '';
  while (size < TARGET_BYTES) {
    let block = '';
    for (let k = 0; k < 10_000; k++) {
      us += 1 + Math.floor(rnd() * 20_000);
      const sec = Math.floor(us / 1e6);
      if (sec !== lastSec) {
        lastSec = sec;
        secPrefix = new Date(sec * 1000).toISOString().slice(0, 20); // 2024-01-01T00:00:00.
      }
      const ts = `${secPrefix}${String(us % 1e6).padStart(6, '0')}Z`;
      const sym = SYMBOLS[Math.floor(rnd() * SYMBOLS.length)]!;
      const r = rnd();
      const side =
        r < 0.005 ? '"sell, ""iceberg"""' : r < 0.1 ? (r < 0.05 ? '"buy"' : '"sell"') : r < 0.55 ? 'buy' : 'sell';
      block += `${ts},${rnd() < 0.2 ? `"${sym}"` : sym},${(10 + rnd() * 60_000).toFixed(2)},${(rnd() * 5).toFixed(6)},${side}\n`;
    }
    blocks.push(block);
    size += block.length; // ASCII only: characters are bytes
    rows += 10_000;
  }
  return { bytes: Buffer.from(blocks.join(''), 'latin1'), rows, fields: rows * 5 };
}

/** Counts fields, rows and field bytes: the least a consumer can do. */
class CountingSink implements FieldSink {
  fields = 0;
  rows = 0;
  fieldBytes = 0;
  field(_buf: Uint8Array, start: number, end: number): void {
    this.fields++;
    this.fieldBytes += end - start;
  }
  endRow(): void {
    this.rows++;
  }
}

function runTokenizer(chunks: readonly Buffer[]): { ms: number; sink: CountingSink } {
  const t0 = performance.now();
  const tok = new CsvTokenizer({ delimiter: 0x2c });
  const sink = new CountingSink();
  for (const c of chunks) tok.push(c, sink);
  tok.end(sink);
  return { ms: performance.now() - t0, sink };
}

async function runCsvParseStream(chunks: readonly Buffer[]): Promise<{ ms: number; records: number }> {
  let records = 0;
  const t0 = performance.now();
  await pipeline(
    Readable.from(chunks, { objectMode: false }),
    parse(CSV_PARSE_OPTIONS),
    new Writable({
      objectMode: true,
      highWaterMark: 1024,
      write(_record: unknown, _enc, cb): void {
        records++;
        cb();
      },
    }),
  );
  return { ms: performance.now() - t0, records };
}

function runCsvParseSync(bytes: Buffer): { ms: number; records: number } {
  const t0 = performance.now();
  const records = parseSync(bytes, CSV_PARSE_OPTIONS).length;
  return { ms: performance.now() - t0, records };
}

async function main(): Promise<void> {
  const g0 = performance.now();
  const data = makeCsv();
  const mb = data.bytes.length / MB;
  const chunks: Buffer[] = [];
  for (let i = 0; i < data.bytes.length; i += CHUNK) chunks.push(data.bytes.subarray(i, i + CHUNK));
  console.log(
    `csv-tokenizer benchmark: ${mb.toFixed(1)} MB, ${data.rows.toLocaleString('en-US')} rows x 5 fields, ${chunks.length} chunks of ${CHUNK / 1024} KiB (generated in ${((performance.now() - g0) / 1000).toFixed(1)} s)`,
  );
  console.log(
    `node ${process.version}, ${cpus()[0]?.model ?? 'unknown cpu'} x ${cpus().length}; median of ${REPS} runs after one untimed warm-up of ours`,
  );

  runTokenizer(chunks); // warm-up: let the hot loop reach its optimized tier
  const ours: number[] = [];
  const stream: number[] = [];
  const sync: number[] = [];
  let last: CountingSink | undefined;
  for (let r = 0; r < REPS; r++) {
    const t = runTokenizer(chunks);
    last = t.sink;
    ours.push(mb / (t.ms / 1000));
    const s = await runCsvParseStream(chunks);
    if (s.records !== data.rows)
      throw new Error(`csv-parse stream counted ${s.records} records, expected ${data.rows}`);
    stream.push(mb / (s.ms / 1000));
    const y = runCsvParseSync(data.bytes);
    if (y.records !== data.rows) throw new Error(`csv-parse/sync counted ${y.records} records, expected ${data.rows}`);
    sync.push(mb / (y.ms / 1000));
  }
  if (last === undefined || last.rows !== data.rows || last.fields !== data.fields) {
    throw new Error(
      `tokenizer counted ${last?.rows} rows and ${last?.fields} fields, expected ${data.rows} and ${data.fields}`,
    );
  }
  const oursMb = median(ours),
    streamMb = median(stream),
    syncMb = median(sync);
  const f = (x: number): string => x.toFixed(1).padStart(7);
  console.log('');
  console.log(`CsvTokenizer (counting sink)   ${f(oursMb)} MB/s   runs ${ours.map((x) => x.toFixed(1)).join(' ')}`);
  console.log(
    `csv-parse stream (64 KiB)      ${f(streamMb)} MB/s   runs ${stream.map((x) => x.toFixed(1)).join(' ')}   ours/it ${(oursMb / streamMb).toFixed(1)}x`,
  );
  console.log(
    `csv-parse/sync (whole buffer)  ${f(syncMb)} MB/s   runs ${sync.map((x) => x.toFixed(1)).join(' ')}   ours/it ${(oursMb / syncMb).toFixed(1)}x`,
  );
  console.log(`(the same rows and fields from all three; target: ours/csv-parse stream >= 5x)`);
  const load = loadavg().map((x) => x.toFixed(2));
  console.log(
    `load average at the end ${load.join(' ')} (other processes on the ${cpus().length} cores skew every figure)`,
  );
  const r1 = (x: number): number => Math.round(x * 10) / 10;
  console.log(
    JSON.stringify({
      benchmark: 'csv-tokenizer',
      node: process.version,
      megabytes: r1(mb),
      rows: data.rows,
      chunkBytes: CHUNK,
      tokenizerMBps: r1(oursMb),
      csvParseStreamMBps: r1(streamMb),
      csvParseSyncMBps: r1(syncMb),
      ratioVsStream: r1(oursMb / streamMb),
      ratioVsSync: r1(oursMb / syncMb),
      loadAverage: load.map(Number),
      runs: { tokenizer: ours.map(r1), csvParseStream: stream.map(r1), csvParseSync: sync.map(r1) },
    }),
  );
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.stack : String(e));
  process.exitCode = 1;
});
