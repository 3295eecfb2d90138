// Page compression codecs (parquet-format Compression.md) over well-kept
// packages: node:zlib (GZIP, BROTLI), snappy, lz4-napi (LZ4_RAW blocks; LZ4
// with the Hadoop framing), zstd-napi, the optional lzo (Hadoop framing, like parquet-mr).
// Native packages load on first use: one that cannot load makes its codec
// unavailable (a 400 naming compression_codec), not the server.
import { createRequire } from 'node:module';
import { brotliCompressSync, constants as zc, gzipSync } from 'node:zlib';
import { SvcError } from '../../errors/svc-error.js';
import { lzoPackage } from '../../exec/lzo-package.js';
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
  /**
   * The same bytes as compress(data), made in steps of STEP_BYTES of `data` each: the caller
   * lets its event loop turn between them. Absent: the codec works in one piece.
   */
  steps?(data: Uint8Array): Generator<void, Buffer, void>;
}

/** Input per step of PageCodec.steps: ZSTD's block size, a few ms at level 9. */
export const STEP_BYTES = 128 * 1024;

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
/** What zstd-napi's binding (zstd's own API) gives that its wrapper does not: contexts compressing in steps. */
interface ZstdBinding {
  CCtx: new () => ZstdContext;
  CParameter: { compressionLevel: number };
  ResetDirective: { sessionOnly: number };
  EndDirective: { continue: number; end: number };
  compressBound(n: number): number;
}
interface ZstdContext {
  setParameter(param: number, value: number): void;
  setPledgedSrcSize(size: number): void;
  reset(directive: number): void;
  compress2(dst: Uint8Array, src: Uint8Array): number;
  /** [bytes left to flush, bytes written, bytes read] */
  compressStream2(dst: Uint8Array, src: Uint8Array, endOp: number): [number, number, number];
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

/** The lzo package, or the 400 (naming compression_codec) that says why LZO cannot be had. */
export function lzoCodecPackage(): ReturnType<typeof lzoPackage> {
  try {
    return lzoPackage();
  } catch (e) {
    throw new SvcError('BAD_REQUEST', `invalid value for parameter compression_codec: ${(e as Error).message}`, {
      cause: e,
    });
  }
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
    case 'ZSTD':
      return zstdCodec(lv);
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
      const l = lzoCodecPackage();
      return { name, compress: (d) => hadoopFrame(d.length, l.compress(asBuffer(d)), 0) };
    }
  }
}

/**
 * ZSTD at `level` through zstd's own contexts, reused between pages (kept while free: pages of
 * concurrent exports each take one). A page is always compressed in steps of STEP_BYTES, with its
 * size pledged, whether in one call or with turns between them: zstd's streaming output can differ
 * from its one-shot output, and a page's bytes must not depend on the thread that compressed it.
 * Each context has an output buffer of its own, reused: a page's bytes are copied out of it at
 * their exact length (one allocation a page, not one of the worst case and then a copy).
 */
/** A free ZSTD context keeps an output buffer up to this size (pages of a default data_page_size fit). */
const KEPT_OUTPUT_BYTES = 4 * 1024 * 1024;

function zstdCodec(level: number): PageCodec {
  const z = load<ZstdBinding>('zstd-napi/binding');
  const free: { readonly c: ZstdContext; out: Buffer }[] = [];
  function* steps(d: Uint8Array): Generator<void, Buffer, void> {
    let held = free.pop();
    if (held === undefined) {
      const c = new z.CCtx();
      c.setParameter(z.CParameter.compressionLevel, level);
      held = { c, out: Buffer.allocUnsafe(0) };
    }
    const c = held.c;
    c.reset(z.ResetDirective.sessionOnly);
    c.setPledgedSrcSize(d.length);
    const bound = z.compressBound(d.length);
    if (held.out.length < bound) held.out = Buffer.allocUnsafe(bound);
    const out = held.out;
    let at = 0;
    for (let from = 0; ; from += STEP_BYTES) {
      const last = from + STEP_BYTES >= d.length;
      let src = d.subarray(from, Math.min(d.length, from + STEP_BYTES));
      for (;;) {
        const [left, wrote, read] = c.compressStream2(
          out.subarray(at),
          src,
          last ? z.EndDirective.end : z.EndDirective.continue,
        );
        at += wrote;
        src = src.subarray(read);
        if (last ? left === 0 : src.length === 0) break;
        if (wrote === 0 && read === 0) throw new Error(`zstd made no progress (${left} bytes left to flush)`);
      }
      if (last) break;
      yield;
    }
    const page = Buffer.allocUnsafe(at);
    out.copy(page, 0, 0, at);
    if (out.length > KEPT_OUTPUT_BYTES) held.out = Buffer.allocUnsafe(0); // a huge page's buffer is not kept
    // A context left mid-frame (the caller stopped early) is not given back: it is dropped.
    if (free.length < 4) free.push(held);
    return page;
  }
  return {
    name: 'ZSTD',
    compress(d) {
      const g = steps(d);
      for (;;) {
        const r = g.next();
        if (r.done === true) return r.value;
      }
    },
    steps,
  };
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
