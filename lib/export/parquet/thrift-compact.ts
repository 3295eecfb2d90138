// Thrift compact protocol writer (the encoding of every Parquet header and of
// the footer): field headers with id deltas, zigzag varints, binaries, lists
// and nested structs. Write-only: svcdb never reads Parquet back.
import { ByteBuilder } from './byte-builder.js';

/** Compact protocol type ids. */
export const enum TType {
  BOOL_TRUE = 1,
  BOOL_FALSE = 2,
  BYTE = 3,
  I16 = 4,
  I32 = 5,
  I64 = 6,
  DOUBLE = 7,
  BINARY = 8,
  LIST = 9,
  SET = 10,
  MAP = 11,
  STRUCT = 12,
}

const utf8 = new TextEncoder();

export class ThriftWriter {
  readonly out: ByteBuilder;
  private lastId = 0;
  private readonly stack: number[] = [];

  constructor(out = new ByteBuilder(1024)) {
    this.out = out;
  }

  private fieldHeader(id: number, type: number): void {
    const delta = id - this.lastId;
    if (delta > 0 && delta <= 15) this.out.byte((delta << 4) | type);
    else {
      this.out.byte(type);
      this.zigzag(id);
    }
    this.lastId = id;
  }

  /** Zigzag varint of an integer with |v| < 2^52 (i16, i32 and our i64 values). */
  private zigzag(v: number): void {
    this.out.uvarint(v >= 0 ? v * 2 : -v * 2 - 1);
  }

  bool(id: number, v: boolean): void {
    this.fieldHeader(id, v ? TType.BOOL_TRUE : TType.BOOL_FALSE);
  }
  i8(id: number, v: number): void {
    this.fieldHeader(id, TType.BYTE);
    this.out.byte(v & 0xff);
  }
  i16(id: number, v: number): void {
    this.fieldHeader(id, TType.I16);
    this.zigzag(v);
  }
  i32(id: number, v: number): void {
    this.fieldHeader(id, TType.I32);
    this.zigzag(v);
  }
  i64(id: number, v: number): void {
    this.fieldHeader(id, TType.I64);
    this.zigzag(v);
  }

  binary(id: number, v: Uint8Array): void {
    this.fieldHeader(id, TType.BINARY);
    this.out.uvarint(v.length);
    this.out.bytes(v);
  }

  string(id: number, v: string): void {
    this.binary(id, utf8.encode(v));
  }

  /** Opens a struct field; close it with structEnd(). */
  structBegin(id: number): void {
    this.fieldHeader(id, TType.STRUCT);
    this.stack.push(this.lastId);
    this.lastId = 0;
  }

  structEnd(): void {
    this.out.byte(0);
    this.lastId = this.stack.pop() ?? 0;
  }

  /** A list field header; then write `size` elements with the element writers below. */
  listBegin(id: number, elemType: TType, size: number): void {
    this.fieldHeader(id, TType.LIST);
    if (size < 15) this.out.byte((size << 4) | elemType);
    else {
      this.out.byte(0xf0 | elemType);
      this.out.uvarint(size);
    }
  }

  elemI32(v: number): void {
    this.zigzag(v);
  }
  elemString(v: string): void {
    const b = utf8.encode(v);
    this.out.uvarint(b.length);
    this.out.bytes(b);
  }

  /** A struct element of a list; close it with structEnd(). */
  elemStructBegin(): void {
    this.stack.push(this.lastId);
    this.lastId = 0;
  }

  /** Ends the top-level struct being written. */
  end(): void {
    this.out.byte(0);
  }
}
