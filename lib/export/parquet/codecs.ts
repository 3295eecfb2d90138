// Page compression codecs (parquet-format Compression.md) over well-kept
// packages: node:zlib (GZIP, BROTLI), snappy, lz4-napi (LZ4_RAW blocks; LZ4
// with the Hadoop framing), zstd-napi, lzo (Hadoop framing, like parquet-mr).
// Native packages load on first use: one that cannot load makes its codec
// unavailable (a 400 naming compression_codec), not the server.
import { createRequire } from 'node:module';
import { brotliCompressSync, constants as zc, gzipSync } from 'node:zlib';
import { SvcError } from '../../errors/svc-error.js';
import type { CodecName } from './format.js';

export const CODEC_NAMES: readonly CodecName[] = [
  'UNCOMPRESSED',
  'SNAPPY',
  'GZIP',
  'LZO',
  'BROTLI',
  'LZ4',
  'ZSTD',
  'LZ4_RAW',
];

/** Levels of the codecs that have them: accepted range and default. */
export const CODEC_LEVELS: Partial<Record<CodecName, { min: number; max: number; def: number }>> = {
  ZSTD: { min: 1, max: 22, def: 9 },
  GZIP: { min: 0, max: 9, def: 6 },
  BROTLI: { min: 0, max: 11, def: 6 },
};

export interface PageCodec {
  readonly name: CodecName;
  /** The compressed bytes of `data` in a new buffer (never a view of `data`). */
  compress(data: Uint8Array): Buffer;
}

const require = createRequire(import.meta.url);

interface Snappy {
  compressSync(data: Buffer): Buffer;
}
interface Lz4 {
  compressSync(data: Buffer): Buffer;
}
interface Zstd {
  compress(data: Uint8Array, params: { compressionLevel: number }): Buffer;
}
interface Lzo {
  compress(data: Buffer): Buffer;
}

const loaded = new Map<string, unknown>();
function load<T>(pkg: string): T {
  let m = loaded.get(pkg);
  if (m === undefined) {
    try {
      m = require(pkg) as unknown;
    } catch (e) {
      throw new SvcError(
        'BAD_REQUEST',
        `invalid value for parameter compression_codec: the codec's package ${pkg} cannot be loaded on this server (${(e as Error).message.split('\n')[0]})`,
        { cause: e },
      );
    }
    loaded.set(pkg, m);
  }
  return m as T;
}

const asBuffer = (d: Uint8Array): Buffer =>
  Buffer.isBuffer(d) ? d : Buffer.from(d.buffer, d.byteOffset, d.byteLength);

/** Hadoop's block framing (LZ4 and LZO in Parquet): big-endian uncompressed and compressed lengths, then the block. */
function hadoopFrame(uncompressed: number, block: Uint8Array, from: number): Buffer {
  const n = block.length - from;
  const out = Buffer.allocUnsafe(8 + n);
  out.writeUInt32BE(uncompressed, 0);
  out.writeUInt32BE(n, 4);
  out.set(block.subarray(from), 8);
  return out;
}

/** The codec `name` at `level` (ignored by codecs without levels); throws a 400 when it cannot be provided. */
export function pageCodec(name: CodecName, level: number | null): PageCodec {
  const range = CODEC_LEVELS[name];
  const lv = range === undefined ? 0 : (level ?? range.def);
  switch (name) {
    case 'UNCOMPRESSED':
      return { name, compress: (d) => Buffer.from(d) };
    case 'GZIP':
      return { name, compress: (d) => gzipSync(d, { level: lv }) };
    case 'BROTLI':
      return {
        name,
        compress: (d) =>
          brotliCompressSync(d, { params: { [zc.BROTLI_PARAM_QUALITY]: lv, [zc.BROTLI_PARAM_SIZE_HINT]: d.length } }),
      };
    case 'SNAPPY': {
      const s = load<Snappy>('snappy');
      return { name, compress: (d) => s.compressSync(asBuffer(d)) };
    }
    case 'ZSTD': {
      const z = load<Zstd>('zstd-napi');
      return { name, compress: (d) => z.compress(d, { compressionLevel: lv }) };
    }
    case 'LZ4_RAW': {
      // lz4-napi prepends the uncompressed size (4 bytes LE) to a raw LZ4 block.
      const l = load<Lz4>('lz4-napi');
      return { name, compress: (d) => l.compressSync(asBuffer(d)).subarray(4) };
    }
    case 'LZ4': {
      const l = load<Lz4>('lz4-napi');
      return { name, compress: (d) => hadoopFrame(d.length, l.compressSync(asBuffer(d)), 4) };
    }
    case 'LZO': {
      const l = load<Lzo>('lzo');
      return { name, compress: (d) => hadoopFrame(d.length, l.compress(asBuffer(d)), 0) };
    }
  }
}

/** Bytes of a page that the incompressibility probe looks at: its start. */
const PROBE_BYTES = 64 * 1024;
/** Pages smaller than this are always compressed: the probe would cost more than it saves. */
const PROBE_MIN = 4 * 1024;
const histogram = new Int32Array(256);

/**
 * Whether compressing `data` could pay: false for bytes that look random (bit-packed deltas of
 * irregular timestamps, dictionary indices of random keys). Its first 64 KiB must have a nearly
 * uniform byte histogram (at least 7.9 bits of entropy per byte) and ZSTD at level 1 must save
 * less than 1% of them: a slow codec spends most of its time searching such bytes for nothing,
 * and its output is a few bytes longer than the input.
 */
export function worthCompressing(data: Uint8Array): boolean {
  if (data.length < PROBE_MIN) return true;
  const n = Math.min(data.length, PROBE_BYTES);
  histogram.fill(0);
  for (let i = 0; i < n; i++) histogram[data[i]!]!++;
  let bits = 0;
  for (let b = 0; b < 256; b++) {
    const c = histogram[b]!;
    if (c !== 0) bits -= c * Math.log2(c / n);
  }
  if (bits < 7.9 * n) return true;
  let z: Zstd;
  try {
    z = load<Zstd>('zstd-napi');
  } catch {
    return true;
  }
  return z.compress(data.subarray(0, n), { compressionLevel: 1 }).length < 0.99 * n;
}
