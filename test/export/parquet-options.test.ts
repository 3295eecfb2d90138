import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SvcError } from '../../lib/errors/svc-error.js';
import { PARQUET_DEFAULTS, parseParquetOptions } from '../../lib/export/parquet/options.js';
import { pageCodec } from '../../lib/export/parquet/codecs.js';

const parse = (q: Record<string, string>) => parseParquetOptions(new URLSearchParams(q));

function rejects(q: Record<string, string>, message: RegExp): void {
  assert.throws(
    () => parse(q),
    (e: unknown) => {
      assert.ok(e instanceof SvcError);
      assert.equal(e.status, 400);
      assert.match(e.message, message);
      return true;
    },
  );
}

test("defaults are SPEC.md's: ZSTD, version 2, 100000-row groups, 1 MiB pages, statistics on, fpp 0.01", () => {
  assert.deepEqual(parse({}), PARQUET_DEFAULTS);
  assert.deepEqual(PARQUET_DEFAULTS, {
    partitionBy: 'NONE',
    codec: 'ZSTD',
    level: null,
    rowGroupSize: 100_000,
    dataPageSize: 1_048_576,
    statistics: true,
    version: 2,
    rawArrayEncoding: false,
    bloomColumns: [],
    bloomFpp: 0.01,
  });
});

test('accepts every documented value, case-insensitively', () => {
  for (const p of ['none', 'HOUR', 'Day', 'WEEK', 'month', 'YEAR'])
    assert.equal(parse({ partition_by: p }).partitionBy, p.toUpperCase());
  for (const c of ['UNCOMPRESSED', 'snappy', 'GZIP', 'LZ4', 'zstd', 'LZ4_RAW', 'BROTLI', 'LZO'])
    assert.equal(parse({ compression_codec: c }).codec, c.toUpperCase());
  assert.equal(parse({ compression_codec: 'zstd', compression_level: '22' }).level, 22);
  assert.equal(parse({ compression_codec: 'gzip', compression_level: '0' }).level, 0);
  assert.equal(parse({ compression_codec: 'brotli', compression_level: '11' }).level, 11);
  assert.equal(parse({ compression_codec: 'snappy', compression_level: '3' }).level, null);
  const o = parse({
    row_group_size: '7',
    data_page_size: '4096',
    statistics_enabled: 'FALSE',
    parquet_version: '1',
    raw_array_encoding: 'true',
    bloom_filter_columns: ' a, b ',
    bloom_filter_fpp: '0.5',
  });
  assert.deepEqual(
    [o.rowGroupSize, o.dataPageSize, o.statistics, o.version, o.rawArrayEncoding, o.bloomColumns, o.bloomFpp],
    [7, 4096, false, 1, true, ['a', 'b'], 0.5],
  );
  assert.equal(parse({ bloom_filter_fpp: '0' }).bloomFpp, 0);
  assert.equal(parse({ bloom_filter_fpp: '1.0' }).bloomFpp, 1);
});

test("rejects each bad value with a 400 and QuestDB's message (ours, naming the parameter, for the bloom filter ones)", () => {
  rejects({ partition_by: 'DECADE' }, /^partitionBy is temporarily not supported:DECADE$/);
  rejects(
    { compression_codec: 'ZIP' },
    /^invalid compression codec\[ZIP\], expected one of: uncompressed, snappy, gzip, brotli, zstd, lz4_raw$/,
  );
  rejects({ compression_codec: 'ZSTD', compression_level: '23' }, /^ZSTD compression level must be between 1 and 22$/);
  rejects({ compression_level: 'high' }, /^invalid compression level:high$/);
  rejects({ compression_codec: 'GZIP', compression_level: '10' }, /^GZIP compression level must be between 0 and 9$/);
  rejects(
    { compression_codec: 'brotli', compression_level: '-1' },
    /^Brotli compression level must be between 0 and 11$/,
  );
  rejects({ compression_codec: 'SNAPPY', compression_level: '1.5' }, /^invalid compression level:1.5$/);
  rejects({ row_group_size: '0' }, /^invalid row group size:0, expected a value from 1 to 10000000$/);
  rejects({ row_group_size: '1e5' }, /^invalid row group size:1e5$/);
  rejects({ data_page_size: '-1' }, /^invalid data page size:-1, expected/);
  rejects({ parquet_version: '3' }, /^invalid parquet version: 3, supported versions: 1, 2$/);
  rejects({ parquet_version: 'two' }, /^invalid parquet version:two$/);
  rejects({ bloom_filter_columns: 'a,,b' }, /parameter bloom_filter_columns/);
  rejects({ bloom_filter_fpp: '1.01' }, /parameter bloom_filter_fpp/);
  rejects({ bloom_filter_fpp: '-0.1' }, /parameter bloom_filter_fpp/);
  rejects({ bloom_filter_fpp: 'NaN' }, /parameter bloom_filter_fpp/);
});

test('statistics_enabled and raw_array_encoding are true only for `true`, as QuestDB reads them', () => {
  for (const v of ['yes', '1', 'maybe', 'FALSE']) {
    assert.equal(parse({ statistics_enabled: v }).statistics, false, v);
    assert.equal(parse({ raw_array_encoding: v }).rawArrayEncoding, false, v);
  }
  assert.equal(parse({ statistics_enabled: 'True' }).statistics, true);
  assert.equal(parse({ raw_array_encoding: 'TRUE' }).rawArrayEncoding, true);
});

test('every codec is provided on this server and compresses to something smaller for repetitive input', () => {
  const input = Buffer.from('abcdefgh'.repeat(1000));
  for (const c of ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'LZ4', 'ZSTD', 'LZ4_RAW', 'BROTLI', 'LZO'] as const) {
    const out = pageCodec(c, null).compress(input);
    if (c === 'UNCOMPRESSED') assert.deepEqual(out, input);
    else assert.ok(out.length < input.length / 4, `${c}: ${out.length}`);
  }
});
