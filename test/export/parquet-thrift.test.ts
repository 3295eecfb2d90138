import { test } from 'node:test';
import assert from 'node:assert/strict';
// hyparquet's compact protocol reader: an independent decoder of what we write.
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js';
import { ByteBuilder } from '../../lib/export/parquet/byte-builder.js';
import { TType, ThriftWriter } from '../../lib/export/parquet/thrift-compact.js';
import { writeBloomFilterHeader, writeFileMetaData, writePageHeader } from '../../lib/export/parquet/format.js';

type Thrift = Record<string, unknown>;
function decode(bytes: Uint8Array): { value: Thrift; read: number } {
  const reader = { view: new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), offset: 0 };
  const value = deserializeTCompactProtocol(reader) as Thrift;
  return { value, read: reader.offset };
}

test('writes every field kind, id deltas past 15, negative and 64-bit values, long lists and nested structs', () => {
  const w = new ThriftWriter();
  w.i32(1, -5);
  w.i64(2, 2 ** 50 + 3);
  w.bool(3, true);
  w.bool(4, false);
  w.string(20, 'é😀');
  w.i16(21, -300);
  w.i8(22, 64);
  w.binary(23, Uint8Array.of(0, 255));
  w.listBegin(24, TType.I32, 20);
  for (let i = 0; i < 20; i++) w.elemI32(i - 10);
  w.listBegin(25, TType.BINARY, 2);
  w.elemString('a');
  w.elemString('bc');
  w.structBegin(40);
  w.i32(1, 7);
  w.structBegin(2);
  w.i32(16, 8);
  w.structEnd();
  w.structEnd();
  w.i32(41, 9);
  w.end();
  const bytes = w.out.view8();
  const { value, read } = decode(bytes);
  assert.equal(read, bytes.length);
  assert.equal(value.field_1, -5);
  assert.equal(value.field_2, BigInt(2 ** 50 + 3));
  assert.equal(value.field_3, true);
  assert.equal(value.field_4, false);
  assert.equal(Buffer.from(value.field_20 as Uint8Array).toString('utf8'), 'é😀');
  assert.equal(value.field_21, -300);
  assert.equal(value.field_22, 64);
  assert.deepEqual([...(value.field_23 as Uint8Array)], [0, 255]);
  assert.deepEqual(
    value.field_24,
    Array.from({ length: 20 }, (_, i) => i - 10),
  );
  assert.deepEqual(
    (value.field_25 as Uint8Array[]).map((b) => Buffer.from(b).toString()),
    ['a', 'bc'],
  );
  assert.deepEqual(value.field_40, { field_1: 7, field_2: { field_16: 8 } });
  assert.equal(value.field_41, 9);
});

test('page headers of every kind decode to the parquet.thrift field numbers', () => {
  const out = new ByteBuilder(16);
  writePageHeader(out, {
    type: 'v2',
    uncompressed: 100,
    compressed: 60,
    numValues: 10,
    numNulls: 2,
    numRows: 10,
    encoding: 8,
    defLevelsLength: 3,
    compressedValues: true,
  });
  const v2 = decode(out.view8()).value;
  assert.deepEqual(v2, {
    field_1: 3,
    field_2: 100,
    field_3: 60,
    field_8: { field_1: 10, field_2: 2, field_3: 10, field_4: 8, field_5: 3, field_6: 0, field_7: true },
  });
  out.reset();
  writePageHeader(out, { type: 'v1', uncompressed: 5, compressed: 4, numValues: 3, encoding: 0 });
  assert.deepEqual(decode(out.view8()).value, {
    field_1: 0,
    field_2: 5,
    field_3: 4,
    field_5: { field_1: 3, field_2: 0, field_3: 3, field_4: 3 },
  });
  out.reset();
  writePageHeader(out, { type: 'dict', uncompressed: 5, compressed: 4, numValues: 2, encoding: 2 });
  assert.deepEqual(decode(out.view8()).value, {
    field_1: 2,
    field_2: 5,
    field_3: 4,
    field_7: { field_1: 2, field_2: 2 },
  });
  out.reset();
  writeBloomFilterHeader(out, 1024);
  assert.deepEqual(decode(out.view8()).value, {
    field_1: 1024,
    field_2: { field_1: {} },
    field_3: { field_1: {} },
    field_4: { field_1: {} },
  });
});

test('the footer carries schema, row groups, key-value metadata and column orders', () => {
  const bytes = writeFileMetaData({
    version: 2,
    columns: [
      { name: 'ts', physical: 'INT64', optional: true, logical: { kind: 'TIMESTAMP', unit: 'MICROS' }, converted: 10 },
    ],
    numRows: 3,
    rowGroups: [
      {
        numRows: 3,
        totalByteSize: 50,
        totalCompressed: 40,
        fileOffset: 4,
        columns: [
          {
            type: 'INT64',
            encodings: [0, 3],
            path: ['ts'],
            codec: 6,
            numValues: 3,
            totalUncompressed: 50,
            totalCompressed: 40,
            dataPageOffset: 4,
            statistics: { nullCount: 0, legacy: true, min: Uint8Array.of(1), max: Uint8Array.of(2) },
          },
        ],
      },
    ],
    keyValues: [['k', 'v']],
    createdBy: 'svcdb',
  });
  const { value: m, read } = decode(bytes);
  assert.equal(read, bytes.length);
  assert.equal(m.field_1, 2);
  const schema = m.field_2 as Thrift[];
  assert.equal(Buffer.from(schema[0]!.field_4 as Uint8Array).toString(), 'schema');
  assert.equal(schema[0]!.field_5, 1);
  assert.deepEqual(schema[1]!.field_10, { field_8: { field_1: true, field_2: { field_2: {} } } });
  assert.equal(m.field_3, 3n);
  const rg = (m.field_4 as Thrift[])[0]!;
  const cm = (rg.field_1 as Thrift[])[0]!.field_3 as Thrift;
  assert.equal(cm.field_4, 6);
  assert.equal(cm.field_9, 4n);
  assert.deepEqual((cm.field_12 as Thrift).field_3, 0n);
  assert.equal(rg.field_7, 0);
  assert.equal(Buffer.from((m.field_5 as Thrift[])[0]!.field_1 as Uint8Array).toString(), 'k');
  assert.deepEqual(m.field_7, [{ field_1: {} }]);
});
