// Encodes one column chunk of a row group: an optional dictionary page, then
// data pages of about data_page_size bytes (v1: levels and values compressed
// together; v2: levels uncompressed, values compressed), the chunk's
// statistics and its bloom filter. Pure: ChunkValues in, buffers out.
import { BloomFilter, bloomFilterBytes } from './bloom-filter.js';
import { ByteBuilder } from './byte-builder.js';
import { worthCompressing, type PageCodec } from './codecs.js';
import type { CodecName } from './format.js';
import type { ChunkValues } from './column-values.js';
import { deltaValues, encodeDelta } from './delta.js';
import { buildDictionary, type Dictionary } from './dictionary.js';
import {
  Codec,
  Encoding,
  leafPath,
  writeBloomFilterHeader,
  writePageHeader,
  type ColumnChunkMeta,
  type PageHeader,
} from './format.js';
import { bitWidth, encodeDefLevels, encodeHybrid } from './rle.js';
import type { ColumnSpec } from './schema.js';
import { chunkStatistics } from './statistics.js';

export interface ChunkOptions {
  readonly version: 1 | 2;
  readonly codec: PageCodec;
  readonly dataPageSize: number;
  readonly statistics: boolean;
  /** False-positive rate of the chunk's bloom filter, or null for none. */
  readonly bloomFpp: number | null;
  /**
   * v2 pages: store the values of a page uncompressed when a probe says the codec cannot shrink
   * them (codecs.ts worthCompressing). For the slow codecs, where the probe costs less than it saves.
   */
  readonly probe?: boolean;
}

export interface EncodedChunk {
  /** Page headers and pages, in file order (fresh buffers, safe to hand to a socket). */
  readonly parts: Buffer[];
  readonly byteLength: number;
  /** Offsets are relative to the chunk's first byte until the writer places it. */
  readonly meta: ColumnChunkMeta;
  /** Bloom filter header + bitset, written by the file writer after the row group. */
  readonly bloom: Buffer | null;
}

/** Dictionaries larger than this (PLAIN bytes) fall back to PLAIN pages, as parquet-mr's default. */
export const MAX_DICTIONARY_BYTES = 1024 * 1024;

const levels = new ByteBuilder(1 << 16);
const page = new ByteBuilder(1 << 20);
const header = new ByteBuilder(256);

/** Bytes of values [v0, v1) as a view of the gathered arrays (fixed widths), or null. */
function plainView(v: ChunkValues, v0: number, v1: number): Uint8Array | null {
  switch (v.kind) {
    case 'i32':
      return new Uint8Array(v.i32.buffer, v.i32.byteOffset + v0 * 4, (v1 - v0) * 4);
    case 'i64':
      return new Uint8Array(v.i64.buffer, v.i64.byteOffset + v0 * 8, (v1 - v0) * 8);
    case 'f32':
      return new Uint8Array(v.f32.buffer, v.f32.byteOffset + v0 * 4, (v1 - v0) * 4);
    case 'f64':
      return new Uint8Array(v.f64.buffer, v.f64.byteOffset + v0 * 8, (v1 - v0) * 8);
    case 'fixed':
      return v.bytes.subarray(v0 * v.width, v1 * v.width);
    default:
      return null;
  }
}

/** Appends values [v0, v1) PLAIN-encoded. */
export function writePlain(out: ByteBuilder, v: ChunkValues, v0: number, v1: number): void {
  const view = plainView(v, v0, v1);
  if (view !== null) {
    out.bytes(view);
    return;
  }
  if (v.kind === 'bool') {
    const n = v1 - v0;
    out.ensure((n + 7) >> 3);
    const buf = out.buf;
    let at = out.length;
    for (let i = 0; i < n; i += 8) {
      let byte = 0;
      for (let k = 0; k < 8 && i + k < n; k++) byte |= (v.i32[v0 + i + k]! & 1) << k;
      buf[at++] = byte;
    }
    out.length = at;
    return;
  }
  // Byte arrays: 4-byte little-endian length, then the bytes.
  const o = v.offsets;
  out.ensure((v1 - v0) * 4 + o[v1]! - o[v0]!);
  const buf = out.buf,
    b = v.bytes;
  let at = out.length;
  for (let k = v0; k < v1; k++) {
    const s = o[k]!,
      e = o[k + 1]!,
      n = e - s;
    buf[at] = n & 0xff;
    buf[at + 1] = (n >>> 8) & 0xff;
    buf[at + 2] = (n >>> 16) & 0xff;
    buf[at + 3] = n >>> 24;
    at += 4;
    buf.set(b.subarray(s, e), at);
    at += n;
  }
  out.length = at;
}

/** Plain bytes of value k (for bloom filter hashing). */
function valueBytes(v: ChunkValues, k: number, out: { b: Uint8Array; s: number; e: number }): void {
  switch (v.kind) {
    case 'i32':
      out.b = new Uint8Array(v.i32.buffer);
      out.s = v.i32.byteOffset + k * 4;
      out.e = out.s + 4;
      return;
    case 'f32':
      out.b = new Uint8Array(v.f32.buffer);
      out.s = v.f32.byteOffset + k * 4;
      out.e = out.s + 4;
      return;
    case 'i64':
      out.b = new Uint8Array(v.i64.buffer);
      out.s = v.i64.byteOffset + k * 8;
      out.e = out.s + 8;
      return;
    case 'f64':
      out.b = new Uint8Array(v.f64.buffer);
      out.s = v.f64.byteOffset + k * 8;
      out.e = out.s + 8;
      return;
    case 'fixed':
      out.b = v.bytes;
      out.s = k * v.width;
      out.e = out.s + v.width;
      return;
    default:
      out.b = v.bytes;
      out.s = v.offsets[k]!;
      out.e = v.offsets[k + 1]!;
  }
}

function bloomOf(values: ChunkValues, distinct: number, fpp: number): Buffer {
  const bf = new BloomFilter(bloomFilterBytes(distinct, fpp));
  const ref = { b: values.bytes, s: 0, e: 0 };
  for (let k = 0; k < values.count; k++) {
    valueBytes(values, k, ref);
    bf.insert(ref.b, ref.s, ref.e);
  }
  const bits = bf.bytes();
  header.reset();
  writeBloomFilterHeader(header, bits.length);
  return Buffer.concat([header.copy(), bits]);
}

/**
 * Row ranges of the data pages: [rowFrom, rowTo, valueFrom, valueTo]. A page
 * closes once its values (plus about a bit per row of definition levels when
 * the chunk has NULLs) reach `pageSize`.
 */
function pageRanges(
  v: ChunkValues,
  costOf: (k: number) => number,
  fixedCost: number | null,
  pageSize: number,
): number[][] {
  const ranges: number[][] = [];
  const rows = v.rows;
  if (!v.hasNulls && fixedCost !== null) {
    const per = Math.max(1, Math.floor(pageSize / Math.max(fixedCost, 1e-9)));
    for (let r = 0; r < rows; r += per) ranges.push([r, Math.min(rows, r + per), r, Math.min(rows, r + per)]);
    return ranges;
  }
  const levelCost = v.hasNulls ? 1 / 8 : 0;
  let r0 = 0,
    v0 = 0,
    k = 0,
    bytes = 0;
  for (let r = 0; r < rows; r++) {
    bytes += levelCost;
    if (!v.hasNulls || v.defined[r] === 1) {
      bytes += fixedCost ?? costOf(k);
      k++;
    }
    if (bytes >= pageSize) {
      ranges.push([r0, r + 1, v0, k]);
      r0 = r + 1;
      v0 = k;
      bytes = 0;
    }
  }
  if (r0 < rows || ranges.length === 0) ranges.push([r0, rows, v0, k]);
  return ranges;
}

/**
 * Compresses a page body. `raw` is valid only during the call (a view of reused memory): the
 * function compresses it at once or copies it before returning a promise.
 */
export type PageCompressor = (raw: Uint8Array) => Buffer | Promise<Buffer>;

/** A page whose compressed body may still be on its way: the header without the compressed size. */
interface PlannedPage {
  /** The header; `compressed` is filled in from the compressed body (plus `prefix` for v2). */
  readonly header: PageHeader;
  /** v2: the definition levels, stored uncompressed before the body. */
  readonly prefix: Buffer | null;
  readonly body: Buffer | Promise<Buffer>;
}

/** A chunk encoded, its pages' bodies compressed or being compressed (on a helper thread). */
export interface ChunkPlan {
  readonly pages: readonly PlannedPage[];
  readonly hasDictionary: boolean;
  readonly meta: Omit<
    ColumnChunkMeta,
    'totalUncompressed' | 'totalCompressed' | 'dataPageOffset' | 'dictionaryPageOffset'
  >;
  readonly bloom: Buffer | null;
}

/** Encodes the chunk and hands each page body to `compress`; `spec` says what the column is, `v` holds its rows. */
export function planChunk(
  spec: ColumnSpec,
  v: ChunkValues,
  opts: Omit<ChunkOptions, 'codec'> & { readonly codecName: CodecName },
  compress: PageCompressor,
): ChunkPlan {
  if (spec.schema.listDims !== undefined) return planListChunk(spec, v, opts, compress);
  const pages: PlannedPage[] = [];
  const nulls = v.rows - v.count;
  const dictionary: Dictionary | null = buildDictionary(v, Math.max(1, Math.floor(v.count / 2)), MAX_DICTIONARY_BYTES);
  const encodings = new Set<number>([Encoding.RLE]);

  let width = 0;
  if (dictionary !== null) {
    page.reset();
    writePlain(page, dictionary.values, 0, dictionary.size);
    const enc = opts.version === 1 ? Encoding.PLAIN_DICTIONARY : Encoding.PLAIN;
    encodings.add(enc);
    pages.push({
      header: { type: 'dict', uncompressed: page.length, compressed: 0, numValues: dictionary.size, encoding: enc },
      prefix: null,
      body: compress(page.view8()),
    });
    width = bitWidth(dictionary.size - 1);
  }
  // v2 pages: integers without a dictionary are delta-encoded (timestamps above all).
  const delta =
    dictionary === null && opts.version === 2 && (v.kind === 'i32' || v.kind === 'i64') ? deltaValues(v) : null;
  const valueEncoding =
    dictionary !== null
      ? opts.version === 1
        ? Encoding.PLAIN_DICTIONARY
        : Encoding.RLE_DICTIONARY
      : delta !== null
        ? Encoding.DELTA_BINARY_PACKED
        : Encoding.PLAIN;
  encodings.add(valueEncoding);

  const fixedCost =
    dictionary !== null ? width / 8 : v.kind === 'bool' ? 1 / 8 : v.kind === 'bytes' ? null : spec.width;
  const costOf = (k: number): number => 4 + v.offsets[k + 1]! - v.offsets[k]!;
  const optional = spec.schema.optional;
  for (const [r0, r1, v0, v1] of pageRanges(v, costOf, fixedCost, opts.dataPageSize) as [
    number,
    number,
    number,
    number,
  ][]) {
    const writeValues = (out: ByteBuilder): void => {
      if (dictionary !== null) {
        out.byte(width);
        encodeHybrid(out, dictionary.indices, v0, v1, width);
      } else if (delta !== null) {
        encodeDelta(out, delta, v0, v1);
      } else {
        writePlain(out, v, v0, v1);
      }
    };
    page.reset();
    if (opts.version === 1) {
      if (optional) {
        page.i32le(0);
        encodeDefLevels(page, v.hasNulls ? v.defined : null, r0, r1);
        page.setI32le(0, page.length - 4);
      }
      writeValues(page);
      pages.push({
        header: { type: 'v1', uncompressed: page.length, compressed: 0, numValues: r1 - r0, encoding: valueEncoding },
        prefix: null,
        body: compress(page.view8()),
      });
    } else {
      levels.reset();
      if (optional) encodeDefLevels(levels, v.hasNulls ? v.defined : null, r0, r1);
      let raw = dictionary === null && delta === null ? plainView(v, v0, v1) : null;
      if (raw === null) {
        writeValues(page);
        raw = page.view8();
      }
      const lv = levels.copy();
      // v2 pages say whether their values are compressed: values the codec cannot shrink are stored as they are.
      const compressed = opts.codecName !== 'UNCOMPRESSED' && (opts.probe !== true || worthCompressing(raw));
      pages.push({
        header: {
          type: 'v2',
          uncompressed: lv.length + raw.length,
          compressed: 0,
          numValues: r1 - r0,
          numNulls: r1 - r0 - (v1 - v0),
          numRows: r1 - r0,
          encoding: valueEncoding,
          defLevelsLength: lv.length,
          compressedValues: compressed,
        },
        prefix: lv,
        body: compressed ? compress(raw) : Buffer.from(raw),
      });
    }
  }

  const statsOf = dictionary !== null ? dictionary.values : v;
  return {
    pages,
    hasDictionary: dictionary !== null,
    meta: {
      type: spec.schema.physical,
      encodings: [...encodings].sort((a, b) => a - b),
      path: leafPath(spec.schema),
      codec: Codec[opts.codecName],
      numValues: v.rows,
      statistics: opts.statistics ? chunkStatistics(statsOf, spec.order, nulls, dictionary?.size) : undefined,
    },
    bloom: opts.bloomFpp === null ? null : bloomOf(statsOf, dictionary?.size ?? v.count, opts.bloomFpp),
  };
}

/**
 * An array (LIST) column's chunk: repetition and definition levels per level entry
 * (RLE hybrid at their bit widths), the defined elements PLAIN; pages break only
 * between records (v2 pages must start a record). No dictionary, statistics or bloom filter.
 */
function planListChunk(
  spec: ColumnSpec,
  v: ChunkValues,
  opts: Omit<ChunkOptions, 'codec'> & { readonly codecName: CodecName },
  compress: PageCompressor,
): ChunkPlan {
  const dims = spec.schema.listDims!;
  const maxDef = 2 * dims + 1;
  const repWidth = bitWidth(dims),
    defWidth = bitWidth(maxDef);
  const pages: PlannedPage[] = [];
  const emit = (l0: number, l1: number, v0: number, v1: number, records: number): void => {
    page.reset();
    if (opts.version === 1) {
      page.i32le(0);
      encodeHybrid(page, v.rep, l0, l1, repWidth);
      page.setI32le(0, page.length - 4);
      const mark = page.length;
      page.i32le(0);
      encodeHybrid(page, v.def, l0, l1, defWidth);
      page.setI32le(mark, page.length - mark - 4);
      writePlain(page, v, v0, v1);
      pages.push({
        header: { type: 'v1', uncompressed: page.length, compressed: 0, numValues: l1 - l0, encoding: Encoding.PLAIN },
        prefix: null,
        body: compress(page.view8()),
      });
      return;
    }
    levels.reset();
    encodeHybrid(levels, v.rep, l0, l1, repWidth);
    const repLength = levels.length;
    encodeHybrid(levels, v.def, l0, l1, defWidth);
    const lv = levels.copy();
    const raw = plainView(v, v0, v1)!;
    pages.push({
      header: {
        type: 'v2',
        uncompressed: lv.length + raw.length,
        compressed: 0,
        numValues: l1 - l0,
        numNulls: l1 - l0 - (v1 - v0),
        numRows: records,
        encoding: Encoding.PLAIN,
        defLevelsLength: lv.length - repLength,
        repLevelsLength: repLength,
        compressedValues: opts.codecName !== 'UNCOMPRESSED',
      },
      prefix: lv,
      body: compress(raw),
    });
  };
  let l0 = 0,
    v0 = 0,
    k = 0,
    records = 0,
    bytes = 0;
  for (let l = 0; l < v.levels; l++) {
    if (v.rep[l] === 0) {
      if (l > l0 && bytes >= opts.dataPageSize) {
        emit(l0, l, v0, k, records);
        l0 = l;
        v0 = k;
        records = 0;
        bytes = 0;
      }
      records++;
    }
    bytes += 0.25;
    if (v.def[l] === maxDef) {
      bytes += 8;
      k++;
    }
  }
  if (v.levels > l0 || pages.length === 0) emit(l0, v.levels, v0, k, records);
  return {
    pages,
    hasDictionary: false,
    meta: {
      type: spec.schema.physical,
      encodings: [Encoding.PLAIN, Encoding.RLE],
      path: leafPath(spec.schema),
      codec: Codec[opts.codecName],
      numValues: v.levels,
    },
    bloom: null,
  };
}

/** The chunk's bytes and metadata, from its plan and its pages' compressed bodies (awaited, in page order). */
export function finishChunk(plan: ChunkPlan, bodies: readonly Buffer[]): EncodedChunk {
  const parts: Buffer[] = [];
  let total = 0,
    uncompressedTotal = 0,
    dataPageOffset = 0;
  plan.pages.forEach((p, i) => {
    const body = bodies[i]!;
    const prefix = p.prefix?.length ?? 0;
    header.reset();
    writePageHeader(header, { ...p.header, compressed: prefix + body.length });
    const hb = header.copy();
    if (p.prefix !== null) parts.push(hb, p.prefix, body);
    else parts.push(hb, body);
    total += hb.length + prefix + body.length;
    uncompressedTotal += hb.length + p.header.uncompressed;
    if (i === 0 && plan.hasDictionary) dataPageOffset = total;
  });
  return {
    parts,
    byteLength: total,
    meta: {
      ...plan.meta,
      totalUncompressed: uncompressedTotal,
      totalCompressed: total,
      dataPageOffset,
      dictionaryPageOffset: plan.hasDictionary ? 0 : undefined,
    },
    bloom: plan.bloom,
  };
}

/** Encodes the chunk with its pages compressed here; `spec` says what the column is, `v` holds its rows. */
export function encodeChunk(spec: ColumnSpec, v: ChunkValues, opts: ChunkOptions): EncodedChunk {
  const plan = planChunk(spec, v, { ...opts, codecName: opts.codec.name }, (raw) => opts.codec.compress(raw));
  return finishChunk(
    plan,
    plan.pages.map((p) => p.body as Buffer),
  );
}
