// End-to-end: /exp?fmt=parquet through HTTP with the built server. Every file
// is read back with DuckDB (@duckdb/node-api, loaded at run time: installed
// without saving by scripts/install-test-deps.sh), with hyparquet and with
// arrow-rs (parquet-wasm: a reader as strict as pyarrow's Arrow C++, which
// refuses what DuckDB and hyparquet let pass, such as INT32 deltas past 32
// bits), and compared value by value with the same query's /exec JSON: every column
// type, NULLs, empty and multi-row-group results, each codec, both versions,
// statistics, bloom filters, row group and page sizes, parameters, timeouts,
// a slow reader and a client that goes away.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js';
import { tableFromIPC, type Vector } from 'apache-arrow';
import { readParquet } from 'parquet-wasm';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

interface DuckResult {
  getRowObjectsJson(): Record<string, unknown>[];
}
interface DuckConnection {
  runAndReadAll(sql: string): Promise<DuckResult>;
}

const dir = mkdtempSync(join(tmpdir(), 'svcdb-parquet-e2e-'));
let fileNo = 0;

/** LZO pages in Hadoop's framing (hyparquet has no LZO), decompressed with the lzo package. */
const lzo = createRequire(import.meta.url)('lzo') as { decompress(b: Buffer, n: number): Buffer };
function lzoHadoop(input: Uint8Array, outputLength: number): Uint8Array {
  const b = Buffer.from(input);
  const out = Buffer.alloc(outputLength);
  let p = 0,
    o = 0;
  while (p < b.length) {
    const ulen = b.readUInt32BE(p);
    p += 4;
    const clen = b.readUInt32BE(p);
    p += 4;
    o += lzo.decompress(b.subarray(p, p + clen), ulen).copy(out, o);
    p += clen;
  }
  return out;
}

/** Values in one comparable form per /exec column type (IPv4 as QuestDB spells it): the /exec JSON (quoteLargeNum) and both readers meet here. */
function canon(type: string, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'TIMESTAMP':
    case 'DATE': {
      if (typeof v === 'string' && v.includes('T')) {
        // ISO text of /exec: whole seconds by Date.parse, then the fraction (micros for TIMESTAMP, millis for DATE).
        const m = /^(.*?)(?:\.(\d+))?Z$/.exec(v)!;
        const digits = type === 'DATE' ? 3 : 6;
        const perMs = type === 'DATE' ? 1n : 1000n;
        return String(BigInt(Date.parse(`${m[1]}Z`)) * perMs + BigInt((m[2] ?? '').padEnd(digits, '0')));
      }
      return String(v);
    }
    case 'LONG':
      return String(v);
    case 'FLOAT':
      return Math.fround(Number(v));
    case 'IPv4':
      return typeof v === 'number' ? [24, 16, 8, 0].map((s) => ((v >>> 0) >>> s) & 255).join('.') : v;
    // /exec writes a CHAR NULL as "" (QuestDB); Parquet has it as NULL.
    case 'CHAR':
      return v === '' ? null : v;
    case 'UUID':
      return typeof v === 'string'
        ? v.toLowerCase()
        : Buffer.from(v as Uint8Array)
            .toString('hex')
            .replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
    default:
      return v;
  }
}

/** DuckDB select list putting each column in canon() form. */
function duckSelect(columns: { name: string; type: string }[]): string {
  return columns
    .map((c) => {
      const q = `"${c.name}"`;
      if (c.type === 'TIMESTAMP') return `epoch_us(${q})::varchar ${q}`;
      if (c.type === 'DATE') return `epoch_ms(${q})::varchar ${q}`;
      if (c.type === 'LONG') return `${q}::varchar ${q}`;
      if (c.type === 'UUID') return `${q}::varchar ${q}`;
      return q;
    })
    .join(', ');
}

/** Row i of an Arrow vector: timestamps as their raw int64 (Arrow JS would give float milliseconds), NULL as null. */
function arrowValue(vec: Vector, i: number): unknown {
  if (!vec.isValid(i)) return null;
  if (String(vec.type).startsWith('Timestamp')) {
    let k = i;
    for (const d of vec.data) {
      if (k < d.length) return (d.values as BigInt64Array)[d.offset + k];
      k -= d.length;
    }
  }
  return vec.get(i) as unknown;
}

/** The rows of a Parquet file as arrow-rs reads them (parquet-wasm), column by column in `names` order. */
function arrowRows(file: Buffer, names: readonly string[]): unknown[][] {
  const t = tableFromIPC(readParquet(new Uint8Array(file.buffer, file.byteOffset, file.length)).intoIPCStream());
  const vecs = names.map((n) => t.getChild(n)!);
  return Array.from({ length: t.numRows }, (_, i) => vecs.map((v) => arrowValue(v, i)));
}

function ab(buf: Buffer): ArrayBuffer {
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length) as ArrayBuffer;
}

describe('Parquet export (/exp?fmt=parquet)', () => {
  let s: ServerProcess;
  let duck: DuckConnection;

  const exec = async (
    query: string,
    params: Record<string, string> = {},
  ): Promise<{ columns: { name: string; type: string }[]; dataset: unknown[][] }> => {
    const r = await request(`${s.mainUrl}/exec?${new URLSearchParams({ query, quoteLargeNum: 'true', ...params })}`);
    const text = await r.body.text();
    assert.equal(r.statusCode, 200, text);
    return JSON.parse(text) as { columns: { name: string; type: string }[]; dataset: unknown[][] };
  };
  const exp = async (
    query: string,
    params: Record<string, string> = {},
  ): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer; file: string }> => {
    const r = await request(`${s.mainUrl}/exp?${new URLSearchParams({ query, fmt: 'parquet', ...params })}`);
    const body = Buffer.from(await r.body.arrayBuffer());
    const file = join(dir, `f${fileNo++}.parquet`);
    if (r.statusCode === 200) writeFileSync(file, body);
    return { status: r.statusCode, headers: r.headers, body, file };
  };
  const duckRows = async (sql: string): Promise<Record<string, unknown>[]> =>
    (await duck.runAndReadAll(sql)).getRowObjectsJson();

  /** Exports `query`, reads it back with DuckDB (unless its codec is one DuckDB lacks), hyparquet and arrow-rs (unless LZO), and compares with /exec. */
  async function roundTrip(query: string, params: Record<string, string> = {}, duckdb = true): Promise<string> {
    // /exp's limit N,M is [N, M) from 0; /exec's counts from 1.
    const lim = params.limit;
    const want = await exec(
      query,
      lim === undefined ? {} : { limit: /^\d+,/.test(lim) ? lim.replace(/^\d+/, (n) => String(Number(n) + 1)) : lim },
    );
    const e = await exp(query, params);
    assert.equal(e.status, 200, e.body.toString());
    assert.equal(e.headers['content-type'], 'application/vnd.apache.parquet');
    const expected = want.dataset.map((row) => row.map((v, c) => canon(want.columns[c]!.type, v)));
    if (duckdb) {
      const got = await duckRows(`select ${duckSelect(want.columns)} from '${e.file}'`);
      assert.deepEqual(
        got.map((r) => want.columns.map((c) => canon(c.type, r[c.name]))),
        expected,
        `DuckDB, ${JSON.stringify(params)}`,
      );
    }
    const hy = await parquetReadObjects({
      file: ab(e.body),
      compressors: { ...compressors, LZO: lzoHadoop },
      parsers: {
        timestampFromMicroseconds: (v: bigint) => String(v),
        timestampFromMilliseconds: (v: bigint) => String(v),
      },
    });
    assert.deepEqual(
      hy.map((r) => want.columns.map((c) => canon(c.type, r[c.name]))),
      expected,
      `hyparquet, ${JSON.stringify(params)}`,
    );
    // arrow-rs has no LZO.
    if (params.compression_codec !== 'LZO') {
      const names = want.columns.map((c) => c.name);
      const rows = arrowRows(e.body, names);
      assert.deepEqual(
        rows.map((r) => r.map((v, c) => canon(want.columns[c]!.type, v))),
        expected,
        `arrow-rs, ${JSON.stringify(params)}`,
      );
    }
    return e.file;
  }

  before(async () => {
    const duckdbModule = '@duckdb/node-api';
    const { DuckDBInstance } = (await import(duckdbModule)) as {
      DuckDBInstance: { create(path: string): Promise<{ connect(): Promise<DuckConnection> }> };
    };
    duck = await (await DuckDBInstance.create(':memory:')).connect();
    s = await startServer();
    await exec(
      'CREATE TABLE t (ts TIMESTAMP, sym SYMBOL, v VARCHAR, s STRING, d DOUBLE, f FLOAT, n LONG, i INT, sh SHORT, bt BYTE, b BOOLEAN, c CHAR, dt DATE, u UUID, ip IPV4) TIMESTAMP(ts) PARTITION BY DAY',
    );
    await exec(`INSERT INTO t VALUES
      ('2024-01-01T00:00:00.123456Z', 'a', 'quote " back \\ é 😀', 'x', 1.0, 1.5, 9223372036854775807, 7, 3, 1, true, 'q', '2024-01-01T10:00:00.123Z', '11111111-2222-3333-4444-555555555555', '1.2.3.4'),
      ('2024-01-03T12:30:00.000001Z', 'b', '', 'y', -0.0, -0.25, -9223372036854775807, -2147483647, -32768, -128, true, 'é', '1969-12-31T23:59:59.999Z', 'a0000000-0000-0000-0000-00000000000f', '255.255.255.255'),
      ('2024-01-03T13:00:00.000000Z', 'a', 'x', 'z', 1e300, 3.4e38, 0, 2147483647, 32767, 127, false, 'Z', '2262-01-01T00:00:00.000Z', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '0.0.0.1')`);
    // The NULL row leaves u out (a NULL constant of type UUID is not insertable yet); a missing column is NULL.
    await exec(`INSERT INTO t (ts, sym, v, s, d, f, n, i, sh, bt, b, c, dt, ip) VALUES
      ('2024-01-02T00:00:00.000000Z', null, null, null, null, null, null, null, 0, 0, false, null, null, null)`);
    await exec(`CREATE TABLE big AS (select timestamp_sequence('2024-01-01', 600000000L) ts, rnd_symbol('a','b','c',null) sym, rnd_double(2) d, rnd_int(0, 100, 2) i,
      rnd_long(-1000000, 1000000, 2) n, rnd_str(3, 8, 2) s, rnd_varchar(1, 5, 2) v, rnd_boolean() b, x from long_sequence(20000)) timestamp(ts) partition by DAY`);
  });
  after(async () => {
    await s.stop();
  });

  test('every column type and NULL round-trips with each codec and both page versions, read by DuckDB and hyparquet', async () => {
    for (const codec of ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'LZ4', 'ZSTD', 'LZ4_RAW', 'BROTLI', 'LZO']) {
      for (const version of ['1', '2']) {
        // DuckDB reads neither the deprecated Hadoop-framed LZ4 nor LZO; hyparquet reads both.
        await roundTrip(
          'select * from t',
          { compression_codec: codec, parquet_version: version },
          codec !== 'LZ4' && codec !== 'LZO',
        );
      }
    }
  });

  test('integer deltas wrap in their physical type: INT32 columns with deltas past 32 bits read back everywhere', async () => {
    const cases = [
      // The issue's: one delta of -2.2e9.
      'select cast(case when x = 1 then 1000000000 else -1200000000 end as int) i from long_sequence(2)',
      // Alternating extremes (distinct values, so no dictionary), SHORT and BYTE too.
      `select cast(case when x % 2 = 0 then 2147483647 - x else -2147483647 + x end as int) i,
        cast(case when x % 2 = 0 then 32767 - x else -32767 + x end as short) sh,
        cast(case when x % 2 = 0 then 127 - x / 2 else -127 + x / 2 end as byte) bt from long_sequence(200)`,
      // Full-range pseudo-random INTs with NULLs among them.
      'select case when x % 7 = 0 then null else cast((x * 2654435761) % 4294967295 - 2147483647 as int) end i from long_sequence(5000)',
      // LONG deltas just inside the exact range (delta-encoded, 53-bit widths) and past it (PLAIN), and at the extremes.
      `select case when x % 2 = 0 then 2251799813685247 - x else -2251799813685247 + x end a,
        case when x % 2 = 0 then 4503599627370495 - x else -4503599627370495 + x end b,
        case when x % 2 = 0 then 9223372036854775807 else -9223372036854775807 end - x c from long_sequence(1000)`,
    ];
    for (const q of cases) {
      for (const version of ['2', '1'])
        await roundTrip(q, { parquet_version: version, compression_codec: 'UNCOMPRESSED' });
    }
    // The INT32 cases above are delta-encoded (v2), so they test the wrap.
    const { file } = await exp(cases[1]!);
    for (const col of ['i', 'sh', 'bt']) {
      const [r] = await duckRows(`select encodings e from parquet_metadata('${file}') where path_in_schema = '${col}'`);
      assert.match(String(r!.e), /DELTA_BINARY_PACKED/, col);
    }
    // An IPv4 column (UINT_32 over INT32) whose addresses span the whole range.
    await exec('create table ips (ip ipv4)');
    await exec(
      `insert into ips select cast(case when x % 2 = 0 then '255.255.' || (x % 250) || '.' || (x % 200 + 1) else '0.0.' || (x % 250) || '.' || (x % 200 + 1) end as ipv4) from long_sequence(600)`,
    );
    await roundTrip('select ip from ips');
  });

  test('maps the types as the issue says and records the table and designated timestamp', async () => {
    const { file } = await exp('select * from t');
    const schema = await duckRows(
      `select name, type, converted_type, logical_type, repetition_type from parquet_schema('${file}') where name <> 'schema'`,
    );
    const byName = Object.fromEntries(schema.map((r) => [r.name, r]));
    assert.equal(byName.ts!.type, 'INT64');
    assert.equal(byName.ts!.converted_type, 'TIMESTAMP_MICROS');
    assert.match(String(byName.ts!.logical_type), /isAdjustedToUTC=1.*MICROS=MicroSeconds/);
    assert.match(String(byName.dt!.logical_type), /MILLIS=MilliSeconds/);
    for (const c of ['sym', 'v', 's', 'c']) {
      assert.equal(byName[c]!.type, 'BYTE_ARRAY');
      assert.equal(byName[c]!.converted_type, 'UTF8');
    }
    assert.deepEqual(
      [byName.sh!.type, byName.sh!.converted_type, byName.bt!.converted_type, byName.i!.converted_type],
      ['INT32', 'INT_16', 'INT_8', 'INT_32'],
    );
    assert.equal(byName.u!.type, 'FIXED_LEN_BYTE_ARRAY');
    assert.match(String(byName.u!.logical_type), /UUID/);
    assert.deepEqual(
      [byName.b!.type, byName.b!.repetition_type, byName.d!.repetition_type],
      ['BOOLEAN', 'REQUIRED', 'OPTIONAL'],
    );
    const kv = Object.fromEntries(
      (await duckRows(`select key::varchar k, value::varchar v from parquet_kv_metadata('${file}')`)).map((r) => [
        r.k,
        r.v,
      ]),
    );
    assert.equal(kv['svcdb.table_name'], 't');
    assert.equal(kv['svcdb.designated_timestamp'], 'ts');
    // DuckDB types as users see them.
    const types = await duckRows(`select column_name, column_type from (describe select * from '${file}')`);
    assert.deepEqual(Object.fromEntries(types.map((r) => [r.column_name, r.column_type])), {
      ts: 'TIMESTAMP WITH TIME ZONE',
      sym: 'VARCHAR',
      v: 'VARCHAR',
      s: 'VARCHAR',
      d: 'DOUBLE',
      f: 'FLOAT',
      n: 'BIGINT',
      i: 'INTEGER',
      sh: 'SMALLINT',
      bt: 'TINYINT',
      b: 'BOOLEAN',
      c: 'VARCHAR',
      dt: 'TIMESTAMP WITH TIME ZONE',
      u: 'UUID',
      ip: 'UINTEGER',
    });
    // SYMBOL is dictionary-encoded; v2 delta-encodes integer columns without a dictionary (the timestamp), v1 writes them PLAIN.
    const enc = async (f: string, col: string): Promise<string> =>
      String(
        (await duckRows(`select encodings e from parquet_metadata('${f}') where path_in_schema = '${col}'`))[0]!.e,
      );
    assert.match(await enc(file, 'sym'), /RLE_DICTIONARY/);
    assert.match(await enc(file, 'ts'), /DELTA_BINARY_PACKED/);
    const v1 = (await exp('select * from t', { parquet_version: '1' })).file;
    assert.match(await enc(v1, 'sym'), /PLAIN_DICTIONARY/);
    assert.doesNotMatch(await enc(v1, 'ts'), /DELTA/);
  });

  test('empty results and expressions without a table are valid files', async () => {
    const f = await roundTrip('select * from t where i = 12345');
    assert.deepEqual(await duckRows(`select count(*)::int n from '${f}'`), [{ n: 0 }]);
    assert.deepEqual(await duckRows(`select count(*)::int n from parquet_metadata('${f}')`), [{ n: 0 }]);
    await roundTrip('select x, x * 2.5 y, cast(x as int) z from long_sequence(5)');
    // Mixed symbol and text inputs under one column, and a NULL-typed column.
    await roundTrip('select sym from t union all select s from t union all select v from t');
    await roundTrip('select sym, null n from t');
  });

  test('a client that accepts gzip still gets the Parquet file as it is (its pages are compressed already)', async () => {
    const url = `${s.mainUrl}/exp?${new URLSearchParams({ query: 'select * from t', fmt: 'parquet' })}`;
    const r = await request(url, { headers: { 'accept-encoding': 'gzip' } });
    const body = Buffer.from(await r.body.arrayBuffer());
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['content-encoding'], undefined);
    assert.equal(body.subarray(0, 4).toString('latin1'), 'PAR1');
    assert.equal(body.subarray(body.length - 4).toString('latin1'), 'PAR1');
    // A CSV export (past 1 KiB) to the same client is compressed.
    const c = await request(
      `${s.mainUrl}/exp?${new URLSearchParams({ query: 'select x, x * 2 y from long_sequence(2000)' })}`,
      { headers: { 'accept-encoding': 'gzip' } },
    );
    await c.body.arrayBuffer();
    assert.equal(c.headers['content-encoding'], 'gzip');
  });
  test('multi-row-group results: row groups of row_group_size rows, pages near data_page_size, limit honoured', async () => {
    const f = await roundTrip('select * from big', { row_group_size: '3000', data_page_size: '4096' });
    const groups = await duckRows(
      `select row_group_id::int g, row_group_num_rows::int n from parquet_metadata('${f}') where path_in_schema = 'ts' order by 1`,
    );
    assert.equal(groups.length, 7);
    assert.deepEqual(
      groups.map((g) => g.n),
      [3000, 3000, 3000, 3000, 3000, 3000, 2000],
    );
    // Walk the page headers of every chunk with hyparquet's thrift decoder.
    const buf = Buffer.from(await (await import('node:fs/promises')).readFile(f));
    const meta = parquetMetadata(ab(buf));
    let pages = 0;
    for (const rg of meta.row_groups) {
      for (const cc of rg.columns) {
        const m = cc.meta_data!;
        let at = Number(m.dictionary_page_offset ?? m.data_page_offset);
        const end = at + Number(m.total_compressed_size);
        while (at < end) {
          const reader = { view: new DataView(buf.buffer, buf.byteOffset, buf.byteLength), offset: at };
          const h = deserializeTCompactProtocol(reader) as Record<string, number>;
          if (h.field_1 !== 2) {
            pages++;
            // A page closes once it reaches data_page_size: at most one value (a short string) past it.
            assert.ok(h.field_2! <= 4096 + 64, `page of ${h.field_2} bytes`);
          }
          at = reader.offset + h.field_3!;
        }
        assert.equal(at, end);
      }
    }
    assert.ok(pages > 7 * 9, `${pages} data pages`);
    await roundTrip('select * from big', { limit: '100,250', row_group_size: '64' });
    await roundTrip('select * from big', { limit: '-5' });
  });

  test('v2 pages whose values a slow codec cannot shrink are stored uncompressed, the rest compressed, and all read back', async () => {
    // r: random INTs, delta-encoded to about 4 random bytes each; d and k compress well.
    await exec(`CREATE TABLE noisy AS (select timestamp_sequence('2024-01-01', 1000000L) ts, rnd_int() r, x * 1.5 d,
      cast(x % 7 as int) k from long_sequence(30000)) timestamp(ts)`);
    /** Per column: whether each of its v2 data pages says its values are compressed. */
    const compressedPages = (buf: Buffer): Map<string, boolean[]> => {
      const out = new Map<string, boolean[]>();
      for (const rg of parquetMetadata(ab(buf)).row_groups) {
        for (const cc of rg.columns) {
          const m = cc.meta_data!;
          const flags = out.get(m.path_in_schema.join('.')) ?? [];
          out.set(m.path_in_schema.join('.'), flags);
          let at = Number(m.dictionary_page_offset ?? m.data_page_offset);
          const end = at + Number(m.total_compressed_size);
          while (at < end) {
            const reader = { view: new DataView(buf.buffer, buf.byteOffset, buf.byteLength), offset: at };
            const h = deserializeTCompactProtocol(reader) as Record<string, number> & {
              field_8?: { field_7?: boolean };
            };
            if (h.field_1 === 3) flags.push(h.field_8!.field_7 !== false);
            at = reader.offset + h.field_3!;
          }
        }
      }
      return out;
    };
    for (const codec of ['ZSTD', 'GZIP', 'BROTLI', 'SNAPPY', 'LZ4_RAW']) {
      const params = { compression_codec: codec, data_page_size: '65536' };
      const f = await roundTrip('select * from noisy', params);
      const pages = compressedPages(Buffer.from(await (await import('node:fs/promises')).readFile(f)));
      const slow = codec === 'ZSTD' || codec === 'GZIP' || codec === 'BROTLI';
      // The fast codecs compress every page: a probe would cost them more than it saves.
      assert.ok(pages.get('r')!.length > 1);
      assert.deepEqual(new Set(pages.get('r')), new Set([!slow]), codec);
      for (const c of ['ts', 'd', 'k']) assert.deepEqual(new Set(pages.get(c)), new Set([true]), `${codec} ${c}`);
    }
    // Version 1 pages have no such flag: everything is compressed, and reads back.
    await roundTrip('select * from noisy', { parquet_version: '1' });
  });

  test('partition_by: row groups never span two periods of the designated timestamp', async () => {
    for (const [by, periods] of [
      ['DAY', 139],
      ['WEEK', 20],
      ['MONTH', 5],
      ['YEAR', 1],
      ['HOUR', 3334],
    ] as const) {
      const { file, status } = await exp('select ts, x from big', { partition_by: by, row_group_size: '100000' });
      assert.equal(status, 200);
      const g = await duckRows(
        `select row_group_id, min(stats_min_value) lo, max(stats_max_value) hi from parquet_metadata('${file}') where path_in_schema = 'ts' group by 1`,
      );
      assert.equal(g.length, periods, by);
      const unit = { HOUR: 'hour', DAY: 'day', WEEK: 'week', MONTH: 'month', YEAR: 'year' }[by];
      const spanning = await duckRows(
        `select count(*)::int n from (select row_group_id, min(stats_min_value::timestamptz) lo, max(stats_max_value::timestamptz) hi from parquet_metadata('${file}') where path_in_schema = 'ts' group by 1) where date_trunc('${unit}', lo at time zone 'UTC') <> date_trunc('${unit}', hi at time zone 'UTC')`,
      );
      assert.deepEqual(spanning, [{ n: 0 }], by);
    }
    // Without a designated timestamp partition_by changes nothing.
    const { file } = await exp('select x from big', { partition_by: 'DAY', row_group_size: '100000' });
    assert.deepEqual(await duckRows(`select count(distinct row_group_id)::int n from parquet_metadata('${file}')`), [
      { n: 1 },
    ]);
  });

  test('statistics_enabled: min, max and NULL count per column chunk, or none', async () => {
    const on = (await exp('select * from big', { row_group_size: '10000' })).file;
    const st = await duckRows(
      `select row_group_id::int g, stats_min_value lo, stats_max_value hi, stats_null_count::int nc from parquet_metadata('${on}') where path_in_schema = 'i' order by 1`,
    );
    const want = await exec(
      'select min(i), max(i), sum(case when i = null then 1 else 0 end) from big where x <= 10000 union all select min(i), max(i), sum(case when i = null then 1 else 0 end) from big where x > 10000',
    );
    assert.deepEqual(
      st.map((r) => [Number(r.lo), Number(r.hi), r.nc]),
      want.dataset.map((r) => r.map(Number)),
    );
    const sym = await duckRows(
      `select stats_min_value lo, stats_max_value hi from parquet_metadata('${on}') where path_in_schema = 'sym' and row_group_id = 0`,
    );
    assert.deepEqual(sym, [{ lo: 'a', hi: 'c' }]);
    const off = (await exp('select * from big', { statistics_enabled: 'false' })).file;
    const none = await duckRows(
      `select count(*)::int n from parquet_metadata('${off}') where stats_min_value is not null or stats_null_count is not null`,
    );
    assert.deepEqual(none, [{ n: 0 }]);
    // DuckDB prunes row groups with the statistics: a filter still gives the right rows.
    const q = await duckRows(`select count(*)::int n from '${on}' where i = 42`);
    assert.deepEqual(q, [{ n: Number((await exec('select count() from big where i = 42')).dataset[0]![0]) }]);
  });

  test('bloom filters: present values always pass, absent ones are rejected near the requested fpp, in DuckDB', async () => {
    const { file } = await exp('select * from big', {
      bloom_filter_columns: 'n,S,sym',
      bloom_filter_fpp: '0.05',
      row_group_size: '20000',
    });
    const meta = await duckRows(
      `select path_in_schema p, bloom_filter_offset, bloom_filter_length from parquet_metadata('${file}') order by column_id`,
    );
    for (const r of meta)
      assert.equal(r.bloom_filter_offset !== null, ['n', 's', 'sym'].includes(String(r.p)), String(r.p));
    const present = (await exec('select n, s from big where n != null and s != null limit 40')).dataset;
    for (const [n, str] of present) {
      assert.deepEqual(
        await duckRows(`select bloom_filter_excludes e from parquet_bloom_probe('${file}', 'n', ${String(n)}::bigint)`),
        [{ e: false }],
      );
      assert.deepEqual(
        await duckRows(`select bloom_filter_excludes e from parquet_bloom_probe('${file}', 's', '${String(str)}')`),
        [{ e: false }],
      );
    }
    assert.deepEqual(
      await duckRows(`select bloom_filter_excludes e from parquet_bloom_probe('${file}', 'sym', 'zz')`),
      [{ e: true }],
    );
    let excluded = 0;
    const probes = 300;
    for (let k = 0; k < probes; k++) {
      const [r] = await duckRows(
        `select bloom_filter_excludes e from parquet_bloom_probe('${file}', 'n', ${5_000_000 + k * 7919}::bigint)`,
      );
      if (r!.e === true) excluded++;
    }
    // fpp 0.05 (sized up to a power of two, so lower in practice): at least 90% of absent values are rejected.
    assert.ok(excluded >= probes * 0.9, `${excluded}/${probes} absent values rejected`);
    // A tighter fpp gives a bigger filter.
    const tight = (await exp('select n from big', { bloom_filter_columns: 'n', bloom_filter_fpp: '0.0001' })).file;
    const [a] = await duckRows(
      `select bloom_filter_length l from parquet_metadata('${file}') where path_in_schema = 'n'`,
    );
    const [b] = await duckRows(
      `select bloom_filter_length l from parquet_metadata('${tight}') where path_in_schema = 'n'`,
    );
    assert.ok(Number(b!.l) > Number(a!.l));
  });

  test('answers a bad parameter, an unknown bloom column and a bad query with 400 JSON before any file byte', async () => {
    // QuestDB's messages where QuestDB has the parameter; ours (naming it) for the bloom filter ones.
    const cases: [Record<string, string>, RegExp][] = [
      [
        { compression_codec: 'ZIP' },
        /^invalid compression codec\[ZIP\], expected one of: uncompressed, snappy, gzip, brotli, zstd, lz4_raw$/,
      ],
      [{ compression_level: '99' }, /^ZSTD compression level must be between 1 and 22$/],
      [{ partition_by: 'CENTURY' }, /^partitionBy is temporarily not supported:CENTURY$/],
      [{ row_group_size: '0' }, /^invalid row group size:0/],
      [{ data_page_size: 'big' }, /^invalid data page size:big$/],
      [{ parquet_version: '3' }, /^invalid parquet version: 3, supported versions: 1, 2$/],
      [{ bloom_filter_columns: 'nope' }, /bloom_filter_columns/],
      [{ bloom_filter_columns: 'b' }, /bloom_filter_columns/],
      [{ bloom_filter_fpp: '2' }, /bloom_filter_fpp/],
    ];
    for (const [params, re] of cases) {
      const r = await exp('select * from big', params);
      assert.equal(r.status, 400, JSON.stringify(params));
      assert.match(String(r.headers['content-type']), /^application\/json/);
      const body = JSON.parse(r.body.toString()) as { query: string; error: string; position: number };
      assert.match(body.error, re);
      assert.deepEqual([body.query, body.position], ['select * from big', 0]);
    }
    const bad = await exp('select * from nope');
    assert.equal(bad.status, 400);
    assert.deepEqual(JSON.parse(bad.body.toString()), {
      query: 'select * from nope',
      error: 'table does not exist [table=nope]',
      position: 14,
    });
    const named = await exp('select 1', { filename: 'trades' });
    assert.equal(named.headers['content-disposition'], 'attachment; filename="trades.parquet"');
  });

  test('a timeout stops the export: a 400 before the first row group, a cut body after it', async () => {
    const r = await exp('select count() from long_sequence(2000000000)', { timeout: '0.3' });
    assert.equal(r.status, 400);
    assert.match(
      String((JSON.parse(r.body.toString()) as { error: string }).error),
      /timeout, query aborted \[timeout=300ms\]/,
    );
    const late = await request(
      `${s.mainUrl}/exp?${new URLSearchParams({ query: 'select x, rnd_str(30, 30, 0) s from long_sequence(2000000000)', fmt: 'parquet', timeout: '0.5', row_group_size: '1000' })}`,
    );
    assert.equal(late.statusCode, 200);
    await assert.rejects(async () => {
      for await (const chunk of late.body) assert.ok((chunk as Buffer).length > 0);
    });
    await s.waitForLine(/GET \/exp 200 \(cut\)/, 10_000);
  });

  test('a slow reader gets the whole file; a client that goes away stops the query', async () => {
    const r = await request(
      `${s.mainUrl}/exp?${new URLSearchParams({ query: 'select * from big', fmt: 'parquet', row_group_size: '1000', compression_codec: 'UNCOMPRESSED' })}`,
      { highWaterMark: 1024 },
    );
    const parts: Buffer[] = [];
    for await (const chunk of r.body) {
      parts.push(chunk as Buffer);
      if (parts.length % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    const f = join(dir, 'slow.parquet');
    writeFileSync(f, Buffer.concat(parts));
    assert.deepEqual(await duckRows(`select count(*)::int n, sum(x)::bigint::varchar s from '${f}'`), [
      { n: 20000, s: String((20000 * 20001) / 2) },
    ]);

    const ac = new AbortController();
    const big = await request(
      `${s.mainUrl}/exp?${new URLSearchParams({ query: 'select x, rnd_str(30, 30, 0) from long_sequence(2000000000)', fmt: 'parquet', compression_codec: 'SNAPPY' })}`,
      { signal: ac.signal },
    );
    let got = 0;
    try {
      for await (const chunk of big.body) {
        got += (chunk as Buffer).length;
        if (got > 2_000_000) ac.abort();
      }
    } catch {
      // aborted on purpose
    }
    assert.ok(got > 2_000_000);
    await s.waitForLine(/GET \/exp 200 \(cut\)/, 10_000);
    assert.equal((await exec('select 1')).dataset.length, 1);
  });
});

describe('Parquet export timeout default (http.export.timeout)', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startServer({ env: { SVC_HTTP_EXPORT_TIMEOUT: '300ms' } });
  });
  after(async () => {
    await s.stop();
  });

  test('applies to Parquet exports, not to CSV ones (which use query.timeout)', async () => {
    const q = encodeURIComponent('select count() from long_sequence(300000000)');
    const pq = await request(`${s.mainUrl}/exp?query=${q}&fmt=parquet`);
    const text = await pq.body.text();
    assert.equal(pq.statusCode, 400);
    assert.match(text, /timeout, query aborted \[timeout=300ms\]/);
    const csv = await request(
      `${s.mainUrl}/exp?query=${encodeURIComponent('select count() from long_sequence(3000000)')}`,
    );
    assert.equal(csv.statusCode, 200);
    await csv.body.text();
  });
});
