// The jobs svcdb does itself instead of with the packages it was first designed around, each run
// both ways on the same rows in the same run (medians, ratios): CSV writing (batchesToCsv vs
// csv-stringify), CSV reading (CsvTokenizer and csvToBatches vs csv-parse), JSON writing
// (batchesToJsonLines vs stream-json's JSONL stringer), JSON reading (the JsonTokenizer of
// `svcdb query` vs stream-json's parser, through stream-chain) and Parquet writing
// (batchesToParquet vs parquetjs-lite). The peers' rows are built before the clock starts: they
// are timed at their best case; svcdb's writers start from its column batches, as they do in
// the server. Peers installed with `npm install --no-save` by `npm run bench:deps`.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable, type Duplex } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parse as csvParse } from 'csv-parse';
import { parquetMetadata } from 'hyparquet';
import {
  batchesToCsv,
  batchesToJson,
  batchesToJsonLines,
  batchesToParquet,
  batchRows,
  csvToBatches,
  openDatabase,
  type RecordBatch,
  type Row,
} from '../lib/index.js';
import { CsvTokenizer } from '../lib/ingest/csv-tokenizer.js';
import { JsonTokenizer } from '../lib/export/json-tokenizer.js';
import { csvParseOptions } from '../test/helpers/csv-parse-options.js';
import { median } from './stats.js';

const ROWS = Number(process.env.DEPS_ROWS ?? 1_000_000);
const PARQUET_ROWS = Number(process.env.DEPS_PARQUET_ROWS ?? 500_000);
const REPS = Number(process.env.DEPS_REPS ?? 3);
const CHUNK = 64 * 1024;

/** The peers, loaded at run time so the project builds without them (like @duckdb/node-api). */
interface Peers {
  stringify(options: object): Duplex;
  jsonlStringer(): Duplex;
  jsonParser(options: object): Duplex;
  chain(fns: unknown[]): Duplex;
  parquet: {
    ParquetSchema: new (fields: object) => unknown;
    ParquetWriter: {
      openStream(
        schema: unknown,
        out: Writable,
        opts: object,
      ): Promise<{ appendRow(r: object): Promise<void>; close(): Promise<void> }>;
    };
  };
  versions: Record<string, string>;
}

async function loadPeers(): Promise<Peers> {
  const load = async (name: string): Promise<Record<string, unknown>> =>
    (await import(name)) as Record<string, unknown>;
  const names = ['csv-stringify', 'stream-json', 'stream-chain', 'parquetjs-lite', 'csv-parse'];
  const versions: Record<string, string> = {};
  for (const n of names) {
    const pkg = new URL(`../../node_modules/${n}/package.json`, import.meta.url);
    versions[n] = (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
  }
  const stringify = (await load('csv-stringify')).stringify as Peers['stringify'];
  const jsonl = (await load('stream-json/jsonl/stringer.js')).default as { asStream(): Duplex };
  const parser = (await load('stream-json/parser.js')).default as { asStream(o: object): Duplex };
  const chain = (await load('stream-chain')).default as Peers['chain'];
  const parquet = (await load('parquetjs-lite')).default as Peers['parquet'];
  return {
    stringify,
    jsonlStringer: () => jsonl.asStream(),
    jsonParser: (o) => parser.asStream(o),
    chain,
    parquet,
    versions,
  };
}

/** A sink that counts bytes (or objects) and drops them. */
function counter(objectMode = false): { sink: Writable; count: () => number } {
  let n = 0;
  const sink = new Writable({
    objectMode,
    write(chunk: Buffer | string, _enc, cb) {
      n += objectMode ? 1 : chunk.length;
      cb();
    },
  });
  return { sink, count: () => n };
}

/** Collects a byte stream's output. */
function collector(): { sink: Writable; bytes: () => Buffer } {
  const parts: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      parts.push(chunk);
      cb();
    },
  });
  return { sink, bytes: () => Buffer.concat(parts) };
}

interface Timing {
  ms: number;
  cpuMs: number;
  out: number;
}

/** Wall and process CPU time (every thread's) of `f`, and what it reports. */
async function timed(f: () => Promise<number> | number): Promise<Timing> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const out = await f();
  const ms = performance.now() - t0;
  const c = process.cpuUsage(c0);
  return { ms, cpuMs: (c.user + c.system) / 1000, out };
}

interface Job {
  readonly job: string;
  readonly ours: string;
  readonly peer: string;
  readonly runOurs: () => Promise<number> | number;
  readonly runPeer: () => Promise<number> | number;
  /** What `out` counts, for the report (bytes, rows, tokens). */
  readonly unit: string;
}

const chunksOf = (b: Buffer): Buffer[] => {
  const out: Buffer[] = [];
  for (let i = 0; i < b.length; i += CHUNK) out.push(b.subarray(i, i + CHUNK));
  return out;
};

async function main(): Promise<void> {
  const peers = await loadPeers();
  const root = mkdtempSync(join(tmpdir(), 'svcdb-bench-deps-'));
  const db = openDatabase(join(root, 'db'));
  try {
    await db.execute(`CREATE TABLE trades AS (SELECT timestamp_sequence('2024-01-01', 250000L) ts,
      rnd_symbol('BTC-USD', 'ETH-USD', 'SOL-USD', 'XRP-USD', 'ADA-USD', 'DOT-USD', 'LTC-USD', 'BNB-USD') sym,
      rnd_symbol('buy', 'sell') side, round(rnd_double() * 60000, 2) price, round(rnd_double() * 10, 6) amount
      FROM long_sequence(${ROWS})) TIMESTAMP(ts) PARTITION BY DAY`);
    const batches: RecordBatch[] = [];
    for await (const b of db.query('select * from trades')) batches.push(b as RecordBatch);
    const pqBatches: RecordBatch[] = [];
    for await (const b of db.query(`select * from trades limit ${PARQUET_ROWS}`)) pqBatches.push(b as RecordBatch);
    // The peers' input, built untimed: plain rows as svcdb's library hands them out.
    const rows: Row[] = batches.flatMap((b) => batchRows(b));
    const arrays = rows.map((r) => [r.ts, r.sym, r.side, r.price, r.amount]);
    const micros = (iso: string): number => Date.parse(iso) * 1000 + Number(iso.slice(23, 26));
    const pqRows = rows
      .slice(0, PARQUET_ROWS)
      .map((r) => ({ ts: micros(r.ts as string), sym: r.sym, side: r.side, price: r.price, amount: r.amount }));

    const csvOut = collector();
    await pipeline(Readable.from(batches), batchesToCsv(), csvOut.sink);
    const csv = csvOut.bytes();
    const jsonOut = collector();
    await pipeline(Readable.from(batches), batchesToJson(), jsonOut.sink);
    const json = jsonOut.bytes();
    const csvChunks = chunksOf(csv);
    const jsonChunks = chunksOf(json);

    const parquetSvc = async (codec: string): Promise<number> => {
      const out = collector();
      await pipeline(
        Readable.from(pqBatches),
        batchesToParquet({ compression_codec: codec, row_group_size: 100_000 }),
        out.sink,
      );
      const b = out.bytes();
      if (Number(parquetMetadata(new Uint8Array(b).buffer).num_rows) !== PARQUET_ROWS) throw new Error('rows lost');
      return b.length;
    };
    const parquetPeer = async (codec: string): Promise<number> => {
      const { ParquetSchema, ParquetWriter } = peers.parquet;
      const schema = new ParquetSchema({
        ts: { type: 'TIMESTAMP_MICROS', compression: codec },
        sym: { type: 'UTF8', compression: codec },
        side: { type: 'UTF8', compression: codec },
        price: { type: 'DOUBLE', compression: codec },
        amount: { type: 'DOUBLE', compression: codec },
      });
      const out = collector();
      const w = await ParquetWriter.openStream(schema, out.sink, { rowGroupSize: 100_000 });
      for (const r of pqRows) await w.appendRow(r);
      await w.close();
      const b = out.bytes();
      if (Number(parquetMetadata(new Uint8Array(b).buffer).num_rows) !== PARQUET_ROWS) throw new Error('rows lost');
      return b.length;
    };

    const jobs: Job[] = [
      {
        job: 'CSV writing (/exp, svcdb export)',
        ours: 'batchesToCsv (column batches)',
        peer: 'csv-stringify stream (rows prebuilt)',
        unit: 'bytes',
        runOurs: async () => {
          const c = counter();
          await pipeline(Readable.from(batches), batchesToCsv(), c.sink);
          return c.count();
        },
        runPeer: async () => {
          const c = counter();
          await pipeline(
            Readable.from(arrays),
            peers.stringify({ header: true, columns: Object.keys(rows[0]!) }),
            c.sink,
          );
          return c.count();
        },
      },
      {
        job: 'CSV reading: tokenizing',
        ours: 'CsvTokenizer (counting sink)',
        peer: 'csv-parse stream (64 KiB chunks)',
        unit: 'rows',
        runOurs: () => {
          let n = 0;
          const sink = { field: () => undefined, endRow: () => void n++ };
          const tok = new CsvTokenizer({ delimiter: 0x2c });
          for (const c of csvChunks) tok.push(c, sink);
          tok.end(sink);
          return n;
        },
        runPeer: async () => {
          const c = counter(true);
          await pipeline(Readable.from(csvChunks), csvParse(csvParseOptions(',')), c.sink);
          return c.count();
        },
      },
      {
        job: 'CSV reading: to typed columns',
        ours: 'csvToBatches (detect, convert)',
        peer: 'csv-parse stream (text fields only)',
        unit: 'rows',
        runOurs: async () => {
          let n = 0;
          const sink = new Writable({
            objectMode: true,
            write(b: RecordBatch, _e, cb) {
              n += b.rowCount;
              cb();
            },
          });
          await pipeline(Readable.from(csvChunks), csvToBatches({ timestamp: 'ts' }), sink);
          return n + 1; // + the header, as csv-parse counts it
        },
        runPeer: async () => {
          const c = counter(true);
          await pipeline(Readable.from(csvChunks), csvParse(csvParseOptions(',')), c.sink);
          return c.count();
        },
      },
      {
        job: 'JSON lines writing',
        ours: 'batchesToJsonLines (column batches)',
        peer: 'stream-json jsonl stringer (rows prebuilt)',
        unit: 'bytes',
        runOurs: async () => {
          const c = counter();
          await pipeline(Readable.from(batches), batchesToJsonLines(), c.sink);
          return c.count();
        },
        runPeer: async () => {
          const c = counter();
          await pipeline(Readable.from(rows), peers.jsonlStringer(), c.sink);
          return c.count();
        },
      },
      {
        job: 'JSON reading (/exec answers, svcdb query)',
        ours: 'JsonTokenizer (counting sink)',
        peer: 'stream-json parser in stream-chain (packed values)',
        unit: 'values',
        runOurs: () => {
          let n = 0;
          const count = (): void => void n++;
          const tok = new JsonTokenizer({
            startObject: () => undefined,
            endObject: () => undefined,
            startArray: () => undefined,
            endArray: () => undefined,
            key: () => undefined,
            string: count,
            number: count,
            literal: count,
          });
          for (const c of jsonChunks) tok.write(c);
          tok.end();
          return n;
        },
        runPeer: async () => {
          let n = 0;
          const values = new Set(['stringValue', 'numberValue', 'trueValue', 'falseValue', 'nullValue']);
          const p = peers.chain([
            peers.jsonParser({ packValues: true, streamValues: false }),
            (t: { name: string }) => void (values.has(t.name) && n++),
          ]);
          await pipeline(Readable.from(jsonChunks), p, counter(true).sink);
          return n;
        },
      },
      ...['SNAPPY', 'GZIP'].map((codec): Job => ({
        job: `Parquet writing, ${codec} (${(PARQUET_ROWS / 1e3).toFixed(0)}k rows)`,
        ours: 'batchesToParquet (column batches)',
        peer: 'parquetjs-lite ParquetWriter (rows prebuilt)',
        unit: 'bytes of file',
        runOurs: () => parquetSvc(codec),
        runPeer: () => parquetPeer(codec),
      })),
    ];

    console.log(
      `deps benchmark: ${ROWS.toLocaleString('en-US')} trades rows (CSV ${(csv.length / 1e6).toFixed(1)} MB, /exec JSON ${(json.length / 1e6).toFixed(1)} MB), Parquet ${PARQUET_ROWS.toLocaleString('en-US')} rows`,
    );
    console.log(
      `node ${process.version}, ${cpus()[0]?.model ?? 'unknown cpu'} x ${cpus().length}; medians of ${REPS} runs after a warm-up of each; peers: ${Object.entries(
        peers.versions,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`,
    );
    console.log('');
    const results = [];
    for (const j of jobs) {
      await j.runOurs();
      await j.runPeer();
      const ours: Timing[] = [];
      const peer: Timing[] = [];
      for (let r = 0; r < REPS; r++) {
        ours.push(await timed(j.runOurs));
        peer.push(await timed(j.runPeer));
      }
      const o = median(ours.map((t) => t.ms));
      const p = median(peer.map((t) => t.ms));
      const oc = median(ours.map((t) => t.cpuMs));
      const pc = median(peer.map((t) => t.cpuMs));
      const line = {
        job: j.job,
        ours: j.ours,
        peer: j.peer,
        oursMs: Math.round(o),
        peerMs: Math.round(p),
        speedup: Math.round((p / o) * 10) / 10,
        cpuSpeedup: Math.round((pc / oc) * 10) / 10,
        oursCpuMs: Math.round(oc),
        peerCpuMs: Math.round(pc),
        oursOut: ours[0]!.out,
        peerOut: peer[0]!.out,
        unit: j.unit,
      };
      results.push(line);
      console.log(
        `${j.job.padEnd(44)} ${j.ours} ${line.oursMs} ms (cpu ${line.oursCpuMs}) | ${j.peer} ${line.peerMs} ms (cpu ${line.peerCpuMs}) | peer/ours ${line.speedup}x (cpu ${line.cpuSpeedup}x) | ${j.unit}: ${line.oursOut} vs ${line.peerOut}`,
      );
    }
    console.log('');
    console.log(
      `load average at the end ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
    );
    console.log(JSON.stringify({ rows: ROWS, parquetRows: PARQUET_ROWS, versions: peers.versions, results }));
  } finally {
    await db.close();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
