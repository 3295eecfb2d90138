import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SvcError } from '../../lib/errors/svc-error.js';
import { PARQUET_DEFAULTS, parseParquetOptions } from '../../lib/export/parquet/options.js';
import { pageCodec } from '../../lib/export/parquet/codecs.js';

const parse = (q: Record<string, string>) => parseParquetOptions(new URLSearchParams(q));

function rejects(q: Record<string, string>, param: string, detail?: RegExp): void {
  assert.throws(() => parse(q), (e: unknown) => {
    assert.ok(e instanceof SvcError);
    assert.equal(e.status, 400);
    assert.match(e.message, new RegExp(`parameter ${param}\\b`));
    if (detail) assert.match(e.message, detail);
    return true;
  });
}

test('defaults are SPEC.md\'s: ZSTD, version 2, 100000-row groups, 1 MiB pages, statistics on, fpp 0.01', () => {
  assert.deepEqual(parse({}), PARQUET_DEFAULTS);
  assert.deepEqual(PARQUET_DEFAULTS, {
    partitionBy: 'NONE', codec: 'ZSTD', level: null, rowGroupSize: 100_000, dataPageSize: 1_048_576,
    statistics: true, version: 2, rawArrayEncoding: false, bloomColumns: [], bloomFpp: 0.01,
  });
});

test('accepts every documented value, case-insensitively', () => {
  for (const p of ['none', 'HOUR', 'Day', 'WEEK', 'month', 'YEAR']) assert.equal(parse({ partition_by: p }).partitionBy, p.toUpperCase());
  for (const c of ['UNCOMPRESSED', 'snappy', 'GZIP', 'LZ4', 'zstd', 'LZ4_RAW', 'BROTLI', 'LZO']) assert.equal(parse({ compression_codec: c }).codec, c.toUpperCase());
  assert.equal(parse({ compression_codec: 'zstd', compression_level: '22' }).level, 22);
  assert.equal(parse({ compression_codec: 'gzip', compression_level: '0' }).level, 0);
  assert.equal(parse({ compression_codec: 'brotli', compression_level: '11' }).level, 11);
  assert.equal(parse({ compression_codec: 'snappy', compression_level: '3' }).level, null);
  const o = parse({ row_group_size: '7', data_page_size: '4096', statistics_enabled: 'FALSE', parquet_version: '1', raw_array_encoding: 'true', bloom_filter_columns: ' a, b ', bloom_filter_fpp: '0.5' });
  assert.deepEqual([o.rowGroupSize, o.dataPageSize, o.statistics, o.version, o.rawArrayEncoding, o.bloomColumns, o.bloomFpp], [7, 4096, false, 1, true, ['a', 'b'], 0.5]);
  assert.equal(parse({ bloom_filter_fpp: '0' }).bloomFpp, 0);
  assert.equal(parse({ bloom_filter_fpp: '1.0' }).bloomFpp, 1);
});

test('rejects each bad value with a 400 naming the parameter', () => {
  rejects({ partition_by: 'DECADE' }, 'partition_by', /HOUR/);
  rejects({ compression_codec: 'ZIP' }, 'compression_codec', /UNCOMPRESSED, SNAPPY, GZIP, LZO, BROTLI, LZ4, ZSTD, LZ4_RAW/);
  rejects({ compression_codec: 'ZSTD', compression_level: '23' }, 'compression_level');
  rejects({ compression_level: 'high' }, 'compression_level');
  rejects({ compression_codec: 'GZIP', compression_level: '10' }, 'compression_level');
  rejects({ compression_codec: 'SNAPPY', compression_level: '1.5' }, 'compression_level');
  rejects({ row_group_size: '0' }, 'row_group_size');
  rejects({ row_group_size: '1e5' }, 'row_group_size');
  rejects({ data_page_size: '-1' }, 'data_page_size');
  rejects({ statistics_enabled: 'yes' }, 'statistics_enabled');
  rejects({ parquet_version: '3' }, 'parquet_version');
  rejects({ raw_array_encoding: '1' }, 'raw_array_encoding');
  rejects({ bloom_filter_columns: 'a,,b' }, 'bloom_filter_columns');
  rejects({ bloom_filter_fpp: '1.01' }, 'bloom_filter_fpp');
  rejects({ bloom_filter_fpp: '-0.1' }, 'bloom_filter_fpp');
  rejects({ bloom_filter_fpp: 'NaN' }, 'bloom_filter_fpp');
});

test('every codec is provided on this server and compresses to something smaller for repetitive input', () => {
  const input = Buffer.from('abcdefgh'.repeat(1000));
  for (const c of ['UNCOMPRESSED', 'SNAPPY', 'GZIP', 'LZ4', 'ZSTD', 'LZ4_RAW', 'BROTLI', 'LZO'] as const) {
    const out = pageCodec(c, null).compress(input);
    if (c === 'UNCOMPRESSED') assert.deepEqual(out, input);
    else assert.ok(out.length < input.length / 4, `${c}: ${out.length}`);
  }
});
