// The Parquet metadata structures svcdb writes (parquet-format's
// parquet.thrift: page headers, column and row group metadata, the footer,
// the bloom filter header) and their thrift compact serialization.
import { ByteBuilder } from './byte-builder.js';
import { TType, ThriftWriter } from './thrift-compact.js';

export const PhysicalType = {
  BOOLEAN: 0,
  INT32: 1,
  INT64: 2,
  FLOAT: 4,
  DOUBLE: 5,
  BYTE_ARRAY: 6,
  FIXED_LEN_BYTE_ARRAY: 7,
} as const;
export type PhysicalTypeName = keyof typeof PhysicalType;

export const Encoding = { PLAIN: 0, PLAIN_DICTIONARY: 2, RLE: 3, DELTA_BINARY_PACKED: 5, RLE_DICTIONARY: 8 } as const;
export const Codec = { UNCOMPRESSED: 0, SNAPPY: 1, GZIP: 2, LZO: 3, BROTLI: 4, LZ4: 5, ZSTD: 6, LZ4_RAW: 7 } as const;
export type CodecName = keyof typeof Codec;
export const PageType = { DATA_PAGE: 0, DICTIONARY_PAGE: 2, DATA_PAGE_V2: 3 } as const;
export const ConvertedType = {
  UTF8: 0,
  LIST: 3,
  DECIMAL: 5,
  TIMESTAMP_MILLIS: 9,
  TIMESTAMP_MICROS: 10,
  UINT_32: 13,
  INT_8: 15,
  INT_16: 16,
  INT_32: 17,
  INT_64: 18,
} as const;

/** The logical type annotations svcdb uses. */
export type LogicalType =
  | { readonly kind: 'STRING' }
  | { readonly kind: 'UUID' }
  | { readonly kind: 'DECIMAL'; readonly precision: number; readonly scale: number }
  | { readonly kind: 'LIST' }
  | { readonly kind: 'TIMESTAMP'; readonly unit: 'MILLIS' | 'MICROS' | 'NANOS' }
  | { readonly kind: 'INTEGER'; readonly bitWidth: 8 | 16 | 32 | 64; readonly signed: boolean };

/** One leaf column of the flat schema. */
export interface ColumnSchema {
  readonly name: string;
  readonly physical: PhysicalTypeName;
  readonly typeLength?: number;
  readonly optional: boolean;
  readonly logical?: LogicalType;
  readonly converted?: number;
  /** DECIMAL's scale and precision (SchemaElement fields 7 and 8, for readers of the converted type). */
  readonly scale?: number;
  readonly precision?: number;
  /**
   * A DOUBLE array of this many dimensions: the leaf sits under that many
   * standard 3-level LIST groups (`<name> (LIST) { repeated list { element } }`).
   */
  readonly listDims?: number;
}

/** The path of a column's leaf: its name, then `list`, `element` per LIST level. */
export function leafPath(c: ColumnSchema): string[] {
  const path = [c.name];
  for (let d = 0; d < (c.listDims ?? 0); d++) path.push('list', 'element');
  return path;
}

export interface Statistics {
  readonly nullCount: number;
  /** Plain-encoded min and max of the non-null values (absent when all are NULL). */
  readonly min?: Uint8Array;
  readonly max?: Uint8Array;
  /** Also write the deprecated signed min/max fields (numeric types, where old readers use them). */
  readonly legacy: boolean;
  readonly distinctCount?: number;
}

export interface ColumnChunkMeta {
  readonly type: PhysicalTypeName;
  readonly encodings: readonly number[];
  readonly path: readonly string[];
  readonly codec: number;
  readonly numValues: number;
  readonly totalUncompressed: number;
  readonly totalCompressed: number;
  readonly dataPageOffset: number;
  readonly dictionaryPageOffset?: number;
  readonly statistics?: Statistics;
  bloomOffset?: number;
  bloomLength?: number;
}

export interface RowGroupMeta {
  readonly columns: readonly ColumnChunkMeta[];
  readonly numRows: number;
  readonly totalByteSize: number;
  readonly totalCompressed: number;
  readonly fileOffset: number;
}

export interface FileMeta {
  readonly version: 1 | 2;
  readonly columns: readonly ColumnSchema[];
  readonly numRows: number;
  readonly rowGroups: readonly RowGroupMeta[];
  readonly keyValues: ReadonlyArray<readonly [string, string]>;
  readonly createdBy: string;
}

export type PageHeader =
  | {
      readonly type: 'dict';
      readonly uncompressed: number;
      readonly compressed: number;
      readonly numValues: number;
      readonly encoding: number;
    }
  | {
      readonly type: 'v1';
      readonly uncompressed: number;
      readonly compressed: number;
      readonly numValues: number;
      readonly encoding: number;
    }
  | {
      readonly type: 'v2';
      readonly uncompressed: number;
      readonly compressed: number;
      readonly numValues: number;
      readonly numNulls: number;
      readonly numRows: number;
      readonly encoding: number;
      readonly defLevelsLength: number;
      readonly compressedValues: boolean;
      readonly repLevelsLength?: number;
    };

/** Serializes a page header into `out` (appended). */
export function writePageHeader(out: ByteBuilder, h: PageHeader): void {
  const w = new ThriftWriter(out);
  w.i32(1, h.type === 'dict' ? PageType.DICTIONARY_PAGE : h.type === 'v1' ? PageType.DATA_PAGE : PageType.DATA_PAGE_V2);
  w.i32(2, h.uncompressed);
  w.i32(3, h.compressed);
  switch (h.type) {
    case 'v1':
      w.structBegin(5);
      w.i32(1, h.numValues);
      w.i32(2, h.encoding);
      w.i32(3, Encoding.RLE);
      w.i32(4, Encoding.RLE);
      w.structEnd();
      break;
    case 'dict':
      w.structBegin(7);
      w.i32(1, h.numValues);
      w.i32(2, h.encoding);
      w.structEnd();
      break;
    case 'v2':
      w.structBegin(8);
      w.i32(1, h.numValues);
      w.i32(2, h.numNulls);
      w.i32(3, h.numRows);
      w.i32(4, h.encoding);
      w.i32(5, h.defLevelsLength);
      w.i32(6, h.repLevelsLength ?? 0);
      w.bool(7, h.compressedValues);
      w.structEnd();
      break;
  }
  w.end();
}

function writeStatistics(w: ThriftWriter, id: number, s: Statistics): void {
  w.structBegin(id);
  if (s.legacy && s.max !== undefined) w.binary(1, s.max);
  if (s.legacy && s.min !== undefined) w.binary(2, s.min);
  w.i64(3, s.nullCount);
  if (s.distinctCount !== undefined) w.i64(4, s.distinctCount);
  if (s.max !== undefined) w.binary(5, s.max);
  if (s.min !== undefined) w.binary(6, s.min);
  if (s.max !== undefined) w.bool(7, true);
  if (s.min !== undefined) w.bool(8, true);
  w.structEnd();
}

function writeLogicalType(w: ThriftWriter, t: LogicalType): void {
  w.structBegin(10);
  switch (t.kind) {
    case 'STRING':
      w.structBegin(1);
      w.structEnd();
      break;
    case 'UUID':
      w.structBegin(14);
      w.structEnd();
      break;
    case 'DECIMAL':
      w.structBegin(5);
      w.i32(1, t.scale);
      w.i32(2, t.precision);
      w.structEnd();
      break;
    case 'TIMESTAMP':
      w.structBegin(8);
      w.bool(1, true);
      w.structBegin(2);
      w.structBegin(t.unit === 'MILLIS' ? 1 : t.unit === 'MICROS' ? 2 : 3);
      w.structEnd();
      w.structEnd();
      w.structEnd();
      break;
    case 'LIST':
      w.structBegin(3);
      w.structEnd();
      break;
    case 'INTEGER':
      w.structBegin(10);
      w.i8(1, t.bitWidth);
      w.bool(2, t.signed);
      w.structEnd();
      break;
  }
  w.structEnd();
}

function writeSchema(w: ThriftWriter, columns: readonly ColumnSchema[]): void {
  let elements = 1;
  for (const c of columns) elements += 1 + 2 * (c.listDims ?? 0);
  w.listBegin(2, TType.STRUCT, elements);
  w.elemStructBegin();
  w.string(4, 'schema');
  w.i32(5, columns.length);
  w.structEnd();
  for (const c of columns) {
    // Array columns: an optional LIST group and its repeated `list` group per dimension, the leaf named `element`.
    const dims = c.listDims ?? 0;
    for (let d = 0; d < dims; d++) {
      w.elemStructBegin();
      w.i32(3, 1);
      w.string(4, d === 0 ? c.name : 'element');
      w.i32(5, 1);
      w.i32(6, ConvertedType.LIST);
      writeLogicalType(w, { kind: 'LIST' });
      w.structEnd();
      w.elemStructBegin();
      w.i32(3, 2);
      w.string(4, 'list');
      w.i32(5, 1);
      w.structEnd();
    }
    w.elemStructBegin();
    w.i32(1, PhysicalType[c.physical]);
    if (c.typeLength !== undefined) w.i32(2, c.typeLength);
    w.i32(3, c.optional ? 1 : 0);
    w.string(4, dims > 0 ? 'element' : c.name);
    if (c.converted !== undefined) w.i32(6, c.converted);
    if (c.scale !== undefined) w.i32(7, c.scale);
    if (c.precision !== undefined) w.i32(8, c.precision);
    if (c.logical !== undefined) writeLogicalType(w, c.logical);
    w.structEnd();
  }
}

function writeColumnChunk(w: ThriftWriter, c: ColumnChunkMeta, fileOffset: number): void {
  w.elemStructBegin();
  w.i64(2, fileOffset);
  w.structBegin(3);
  w.i32(1, PhysicalType[c.type]);
  w.listBegin(2, TType.I32, c.encodings.length);
  for (const e of c.encodings) w.elemI32(e);
  w.listBegin(3, TType.BINARY, c.path.length);
  for (const part of c.path) w.elemString(part);
  w.i32(4, c.codec);
  w.i64(5, c.numValues);
  w.i64(6, c.totalUncompressed);
  w.i64(7, c.totalCompressed);
  w.i64(9, c.dataPageOffset);
  if (c.dictionaryPageOffset !== undefined) w.i64(11, c.dictionaryPageOffset);
  if (c.statistics !== undefined) writeStatistics(w, 12, c.statistics);
  if (c.bloomOffset !== undefined) w.i64(14, c.bloomOffset);
  if (c.bloomLength !== undefined) w.i32(15, c.bloomLength);
  w.structEnd();
  w.structEnd();
}

/** The footer's FileMetaData. */
export function writeFileMetaData(m: FileMeta): Uint8Array {
  const w = new ThriftWriter(new ByteBuilder(4096));
  w.i32(1, m.version);
  writeSchema(w, m.columns);
  w.i64(3, m.numRows);
  w.listBegin(4, TType.STRUCT, m.rowGroups.length);
  m.rowGroups.forEach((g, ordinal) => {
    w.elemStructBegin();
    w.listBegin(1, TType.STRUCT, g.columns.length);
    for (const c of g.columns) writeColumnChunk(w, c, c.dictionaryPageOffset ?? c.dataPageOffset);
    w.i64(2, g.totalByteSize);
    w.i64(3, g.numRows);
    w.i64(5, g.fileOffset);
    w.i64(6, g.totalCompressed);
    w.i16(7, ordinal);
    w.structEnd();
  });
  if (m.keyValues.length > 0) {
    w.listBegin(5, TType.STRUCT, m.keyValues.length);
    for (const [k, v] of m.keyValues) {
      w.elemStructBegin();
      w.string(1, k);
      w.string(2, v);
      w.structEnd();
    }
  }
  w.string(6, m.createdBy);
  // TYPE_ORDER for every column: readers then trust min_value/max_value.
  w.listBegin(7, TType.STRUCT, m.columns.length);
  for (let i = 0; i < m.columns.length; i++) {
    w.elemStructBegin();
    w.structBegin(1);
    w.structEnd();
    w.structEnd();
  }
  w.end();
  return w.out.copy();
}

/** BloomFilterHeader: split-block algorithm, xxHash, uncompressed. */
export function writeBloomFilterHeader(out: ByteBuilder, numBytes: number): void {
  const w = new ThriftWriter(out);
  w.i32(1, numBytes);
  w.structBegin(2);
  w.structBegin(1);
  w.structEnd();
  w.structEnd();
  w.structBegin(3);
  w.structBegin(1);
  w.structEnd();
  w.structEnd();
  w.structBegin(4);
  w.structBegin(1);
  w.structEnd();
  w.structEnd();
  w.end();
}
