// The fmt=parquet parameters of /exp (SPEC.md "GET /exp"), validated before
// anything runs: a bad value is a 400 with QuestDB's message for it (which
// names the option). Booleans read as QuestDB reads them: `true` (any case)
// or false. Parsing is separate from the writer so the route checks every
// value up front.
import { SvcError } from '../../errors/svc-error.js';
import { PARTITION_BY, type PartitionBy } from '../../storage/partition-by.js';
import { CODEC_LEVELS, CODEC_NAMES, lzoCodecPackage } from './codecs.js';
import type { CodecName } from './format.js';

export interface ParquetOptions {
  readonly partitionBy: PartitionBy;
  readonly codec: CodecName;
  /** null: the codec's default. */
  readonly level: number | null;
  readonly rowGroupSize: number;
  readonly dataPageSize: number;
  readonly statistics: boolean;
  readonly version: 1 | 2;
  /** Accepted for compatibility: svcdb has no array columns, so it changes nothing. */
  readonly rawArrayEncoding: boolean;
  /** Column names (as given) that get bloom filters. */
  readonly bloomColumns: readonly string[];
  readonly bloomFpp: number;
}

export const PARQUET_DEFAULTS: ParquetOptions = {
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
};

/** The parameter names parseParquetOptions reads (the library checks its option objects against them). */
export const PARQUET_PARAMETERS: readonly string[] = [
  'partition_by',
  'compression_codec',
  'compression_level',
  'row_group_size',
  'data_page_size',
  'statistics_enabled',
  'parquet_version',
  'raw_array_encoding',
  'bloom_filter_columns',
  'bloom_filter_fpp',
];

/** Row groups and pages: limits that keep one row group's memory sane. */
export const ROW_GROUP_SIZE_RANGE = { min: 1, max: 10_000_000 };
export const DATA_PAGE_SIZE_RANGE = { min: 1024, max: 256 * 1024 * 1024 };

function bad(message: string): SvcError {
  return new SvcError('BAD_REQUEST', message);
}

function get(params: URLSearchParams, name: string): string | null {
  const v = params.get(name);
  return v === null || v.trim() === '' ? null : v.trim();
}

/** An integer option in [min, max]: QuestDB's "invalid <what>:<value>" when it is not an integer, ours past the range. */
function intParam(params: URLSearchParams, name: string, what: string, min: number, max: number): number | null {
  const v = get(params, name);
  if (v === null) return null;
  if (!/^[+-]?\d+$/.test(v)) throw bad(`invalid ${what}:${v}`);
  if (Number(v) < min || Number(v) > max) throw bad(`invalid ${what}:${v}, expected a value from ${min} to ${max}`);
  return Number(v);
}

/** `true` in any case is true; any other value is false (QuestDB's HttpKeywords.isTrue). */
function boolParam(params: URLSearchParams, name: string, def: boolean): boolean {
  const v = get(params, name);
  return v === null ? def : v.toLowerCase() === 'true';
}

/** The codec names QuestDB's error lists (LZO and the Hadoop-framed LZ4 are accepted too, but deprecated). */
const LISTED_CODECS = ['uncompressed', 'snappy', 'gzip', 'brotli', 'zstd', 'lz4_raw'];
const LEVEL_CODEC_NAMES: Partial<Record<CodecName, string>> = { GZIP: 'GZIP', BROTLI: 'Brotli', ZSTD: 'ZSTD' };

/** Every Parquet parameter of the request, defaults filled in; throws a 400 naming the first bad one. */
export function parseParquetOptions(params: URLSearchParams): ParquetOptions {
  const d = PARQUET_DEFAULTS;
  const pb = get(params, 'partition_by');
  const partitionBy =
    pb === null
      ? d.partitionBy
      : ((PARTITION_BY as readonly string[]).find((p) => p === pb.toUpperCase()) as PartitionBy | undefined);
  if (partitionBy === undefined) throw bad(`partitionBy is temporarily not supported:${pb!}`);

  const cc = get(params, 'compression_codec');
  const codec = cc === null ? d.codec : CODEC_NAMES.find((c) => c === cc.toUpperCase());
  if (codec === undefined) throw bad(`invalid compression codec[${cc!}], expected one of: ${LISTED_CODECS.join(', ')}`);
  // Refused up front (COPY TO at its statement, not in its background job) when the optional package is absent.
  if (codec === 'LZO') lzoCodecPackage();

  const range = CODEC_LEVELS[codec];
  // Codecs without levels accept any integer level and ignore it.
  let level: number | null = null;
  const lv = get(params, 'compression_level');
  if (lv !== null) {
    if (!/^[+-]?\d+$/.test(lv)) throw bad(`invalid compression level:${lv}`);
    if (range !== undefined) {
      level = Number(lv);
      if (level < range.min || level > range.max)
        throw bad(`${LEVEL_CODEC_NAMES[codec]!} compression level must be between ${range.min} and ${range.max}`);
    }
  }

  const rowGroupSize =
    intParam(params, 'row_group_size', 'row group size', ROW_GROUP_SIZE_RANGE.min, ROW_GROUP_SIZE_RANGE.max) ??
    d.rowGroupSize;
  const dataPageSize =
    intParam(params, 'data_page_size', 'data page size', DATA_PAGE_SIZE_RANGE.min, DATA_PAGE_SIZE_RANGE.max) ??
    d.dataPageSize;
  const statistics = boolParam(params, 'statistics_enabled', d.statistics);
  const v = get(params, 'parquet_version');
  if (v !== null && !/^[+-]?\d+$/.test(v)) throw bad(`invalid parquet version:${v}`);
  if (v !== null && Number(v) !== 1 && Number(v) !== 2)
    throw bad(`invalid parquet version: ${v}, supported versions: 1, 2`);
  const version = v === null ? d.version : (Number(v) as 1 | 2);
  const rawArrayEncoding = boolParam(params, 'raw_array_encoding', d.rawArrayEncoding);

  const bc = get(params, 'bloom_filter_columns');
  const bloomColumns = bc === null ? [] : bc.split(',').map((s) => s.trim());
  if (bloomColumns.some((c) => c === ''))
    throw bad(`invalid value for parameter bloom_filter_columns: ${bc!} [expected comma-separated column names]`);

  const fp = get(params, 'bloom_filter_fpp');
  let bloomFpp = d.bloomFpp;
  if (fp !== null) {
    const x = Number(fp);
    if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(fp) || !(x >= 0 && x <= 1))
      throw bad(`invalid value for parameter bloom_filter_fpp: ${fp} [expected a number from 0.0 to 1.0]`);
    bloomFpp = x;
  }
  return {
    partitionBy,
    codec,
    level,
    rowGroupSize,
    dataPageSize,
    statistics,
    version,
    rawArrayEncoding,
    bloomColumns,
    bloomFpp,
  };
}
