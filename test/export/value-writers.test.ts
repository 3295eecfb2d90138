// The JSON and CSV value writers against the reference renderings they must
// agree with: formatDouble / formatFloat (Java layout), formatTimestamp and
// formatDate, JSON.stringify of the text, and TextDecoder's replacement of
// invalid UTF-8. Random values from a seeded generator, plus the edges.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChunkWriter } from '../../lib/export/chunk-writer.js';
import { csvValueWriter, jsonValueWriter, type ValueWriter } from '../../lib/export/value-writers.js';
import { LazyVarVector, type ColumnVector, type VarVector } from '../../lib/core/column-vector.js';
import { BytesIds } from '../../lib/core/key-ids.js';
import { codedSlice, textOfCodes } from '../../lib/core/vector-ops.js';
import { formatDouble, formatFloat } from '../../lib/core/number-format.js';
import { formatDate, formatTimestamp } from '../../lib/core/datetime.js';
import type { SqlType } from '../../lib/core/sql-type.js';
import { mulberry32 } from '../helpers/prng.js';

const rng = mulberry32;

/** Every row of `v` written by `write`, one string per row. */
function rows(write: ValueWriter, v: ColumnVector, n: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const w = new ChunkWriter();
    write(w, v, i);
    out.push(w.take().toString('utf8'));
  }
  return out;
}

const json = (t: SqlType): ValueWriter => jsonValueWriter(t, { quoteLargeNum: false });

test('doubles and floats print as formatDouble / formatFloat do, across magnitudes and signs', () => {
  const r = rng(1);
  const xs: number[] = [
    0,
    -0,
    1,
    -1,
    0.1,
    1e7,
    9999999,
    1e-3,
    0.00099,
    123456789.125,
    5e-324,
    1.7976931348623157e308,
    2 ** 53,
    -(2 ** 53) + 1,
  ];
  for (let i = 0; i < 5000; i++) xs.push((r() - 0.5) * 10 ** Math.floor(r() * 40 - 20));
  for (let i = 0; i < 1000; i++) xs.push(Math.round((r() - 0.5) * 2e7));
  const d = new Float64Array(xs);
  assert.deepEqual(rows(json('DOUBLE'), { kind: 'fixed', type: 'DOUBLE', data: d }, d.length), xs.map(formatDouble));
  assert.deepEqual(
    rows(csvValueWriter('DOUBLE'), { kind: 'fixed', type: 'DOUBLE', data: d }, d.length),
    xs.map(formatDouble),
  );
  const f = new Float32Array(xs.slice(0, 2000));
  assert.deepEqual(
    rows(json('FLOAT'), { kind: 'fixed', type: 'FLOAT', data: f }, f.length),
    Array.from(f, (x) => (Number.isFinite(x) ? formatFloat(x) : 'null')),
  );
  const special = new Float64Array([NaN, Infinity, -Infinity]);
  assert.deepEqual(rows(json('DOUBLE'), { kind: 'fixed', type: 'DOUBLE', data: special }, 3), ['null', 'null', 'null']);
  assert.deepEqual(rows(csvValueWriter('DOUBLE'), { kind: 'fixed', type: 'DOUBLE', data: special }, 3), ['', '', '']);
});

test('timestamps and dates print as formatTimestamp / formatDate, including before 1970 and far years', () => {
  const r = rng(2);
  const us: number[] = [
    0,
    -1,
    1,
    86_400_000_000 - 1,
    -86_400_000_000,
    Date.UTC(2024, 1, 29) * 1000 + 123456,
    Date.UTC(9999, 11, 31, 23, 59, 59) * 1000 + 999999,
    Date.UTC(1, 0, 1) * 1000,
    Date.UTC(0, 0, 1) * 1000 - 1,
    Date.UTC(10000, 0, 1) * 1000,
    Date.UTC(12000, 5, 1) * 1000,
  ];
  for (let i = 0; i < 5000; i++) us.push(Math.floor((r() - 0.3) * 4e17));
  // Runs within one second (the cached prefix), across a second's and a day's end, before 1970 too.
  for (const base of [Date.UTC(2024, 0, 1, 23, 59, 59) * 1000, -1_000_001])
    for (let k = 0; k < 400; k++) us.push(base + k * 4999);
  const v: ColumnVector = { kind: 'fixed', type: 'TIMESTAMP', data: new Float64Array(us) };
  assert.deepEqual(
    rows(json('TIMESTAMP'), v, us.length),
    us.map((x) => `"${formatTimestamp(x)}"`),
  );
  assert.deepEqual(
    rows(csvValueWriter('TIMESTAMP'), v, us.length),
    us.map((x) => `"${formatTimestamp(x)}"`),
  );
  const ms = us.map((x) => Math.floor(x / 1000));
  const dv: ColumnVector = { kind: 'fixed', type: 'DATE', data: new Float64Array(ms) };
  assert.deepEqual(
    rows(json('DATE'), dv, ms.length),
    ms.map((x) => `"${formatDate(x)}"`),
  );
  assert.deepEqual(
    rows(csvValueWriter('DATE'), dv, ms.length),
    ms.map((x) => `"${formatDate(x)}"`),
  );
});

test('integers exact up to 2^53, LONG beyond it from its int64 pair, NULL sentinels', () => {
  const longs = [0, -1, 9007199254740991, -9007199254740991, -9223372036854775808, 1234567890123];
  const v: ColumnVector = { kind: 'fixed', type: 'LONG', data: new Float64Array(longs) };
  assert.deepEqual(rows(json('LONG'), v, longs.length), [
    '0',
    '-1',
    '9007199254740991',
    '-9007199254740991',
    'null',
    '1234567890123',
  ]);
  assert.deepEqual(rows(jsonValueWriter('LONG', { quoteLargeNum: true }), v, 2), ['"0"', '"-1"']);
  // 2^53 + 1 is only known exactly from the int64 pair.
  const exact = new Int32Array([1, 0x200000]);
  assert.deepEqual(rows(json('LONG'), { kind: 'fixed', type: 'LONG', data: new Float64Array([2 ** 53]), exact }, 1), [
    '9007199254740993',
  ]);
  const ints = new Int32Array([0, 2147483647, -2147483647, -2147483648, 10, 99, 100]);
  assert.deepEqual(rows(json('INT'), { kind: 'fixed', type: 'INT', data: ints }, 7), [
    '0',
    '2147483647',
    '-2147483647',
    'null',
    '10',
    '99',
    '100',
  ]);
  assert.deepEqual(rows(csvValueWriter('INT'), { kind: 'fixed', type: 'INT', data: ints }, 4), [
    '0',
    '2147483647',
    '-2147483647',
    '',
  ]);
});

test('text is escaped for JSON and CSV; invalid UTF-8 is replaced as TextDecoder replaces it', () => {
  const r = rng(3);
  const samples: Uint8Array[] = [
    new TextEncoder().encode('plain'),
    new TextEncoder().encode('q"uo\\te\n\r\t\b\f\u0000\u001f\u007f é 😀 \u2028'),
    new Uint8Array([0xff]),
    new Uint8Array([0xe2, 0x82]),
    new Uint8Array([0xe2, 0x82, 0x41]),
    new Uint8Array([0xf0, 0x9f, 0x98]),
    new Uint8Array([0xed, 0xa0, 0x80]),
    new Uint8Array([0xc0, 0x80]),
    new Uint8Array([0xf4, 0x90, 0x80, 0x80]),
    new Uint8Array([0xe0, 0x80, 0x80]),
  ];
  for (let i = 0; i < 3000; i++)
    samples.push(
      Uint8Array.from({ length: Math.floor(r() * 12) }, () =>
        r() < 0.5 ? Math.floor(r() * 128) : 0x80 + Math.floor(r() * 128),
      ),
    );
  const offsets = new Int32Array(samples.length + 1);
  samples.forEach((s, i) => {
    offsets[i + 1] = offsets[i]! + s.length;
  });
  const bytes = new Uint8Array(offsets[samples.length]!);
  samples.forEach((s, i) => bytes.set(s, offsets[i]!));
  const v: ColumnVector = { kind: 'var', type: 'VARCHAR', bytes, offsets, nulls: null };
  const decoded = samples.map((s) => new TextDecoder('utf-8', { fatal: false }).decode(s));
  const js = rows(json('VARCHAR'), v, samples.length);
  js.forEach((text, i) =>
    assert.equal(JSON.parse(text), decoded[i], `sample ${i}: ${Buffer.from(samples[i]!).toString('hex')}`),
  );
  const csv = rows(csvValueWriter('VARCHAR'), v, samples.length);
  // QuestDB's /exp escaping: `"` doubled, `\` doubled, control characters as JSON escapes them.
  /* eslint-disable no-control-regex -- control characters are the point */
  const csvText = (t: string): string =>
    `"${t
      .replace(/"/g, '""')
      .replace(/\\/g, '\\\\')
      .replace(/[\x00-\x1f]/g, (c) => JSON.stringify(c).slice(1, -1))}"`;
  /* eslint-enable no-control-regex */
  assert.equal(csv[1], '"q""uo\\\\te\\n\\r\\t\\b\\f\\u0000\\u001f\u007f é 😀 \u2028"');
  csv.forEach((text, i) => assert.equal(text, csvText(decoded[i]!), `sample ${i}`));
  const withNull: ColumnVector = {
    kind: 'var',
    type: 'STRING',
    bytes: new Uint8Array(0),
    offsets: new Int32Array(2),
    nulls: new Uint8Array([1]),
  };
  assert.deepEqual(rows(json('STRING'), withNull, 1), ['null']);
  assert.deepEqual(rows(csvValueWriter('STRING'), withNull, 1), ['']);
});

test('symbols come from their dictionary, encoded once per entry; NULL key is null', () => {
  const dict = ['a"b', 'é', 'plain'];
  const v: ColumnVector = { kind: 'symbol', type: 'SYMBOL', keys: new Int32Array([0, 1, 2, -1, 0]), dict };
  assert.deepEqual(rows(json('SYMBOL'), v, 5), ['"a\\"b"', '"é"', '"plain"', 'null', '"a\\"b"']);
  assert.deepEqual(rows(csvValueWriter('SYMBOL'), v, 5), ['"a""b"', '"é"', '"plain"', '', '"a""b"']);
});

test('a chunk writer hands over chunks and grows for one value larger than a chunk', () => {
  const w = new ChunkWriter();
  const big = new Uint8Array(200_000).fill(0x61);
  w.jsonEscaped(big, 0, big.length);
  assert.equal(w.pos, 200_000);
  assert.ok(w.full);
  const chunk = w.take();
  assert.equal(chunk.length, 200_000);
  assert.equal(w.pos, 0);
  assert.equal(w.written, 200_000);
  w.int(-1234567);
  w.padded(42, 6);
  assert.equal(w.take().toString(), '-1234567000042');
});

test('CSV text from dictionary codes is the text written row by row, on this thread and after a trip to another', () => {
  const values: (string | null)[] = [
    'plain',
    '',
    null,
    'say "hi"',
    'back\\slash',
    'é😀 ünï',
    'line\nbreak',
    'tab\there',
    'a,b',
  ];
  const r = rng(9);
  const picks = Array.from({ length: 3000 }, () => values[Math.floor(r() * values.length)]!);
  const dict = new BytesIds();
  dict.nullId();
  const enc = new TextEncoder();
  const codes = new Uint8Array(picks.length);
  picks.forEach((v, i) => {
    if (v === null) return;
    const b = enc.encode(v);
    codes[i] = dict.id(b, 0, b.length);
  });
  const text = textOfCodes({ kind: 'coded', type: 'VARCHAR', codes, dict }); // its text, made from the codes
  assert.deepEqual(
    Array.from({ length: picks.length }, (_, i) =>
      text.nulls?.[i] ? null : Buffer.from(text.bytes.subarray(text.offsets[i], text.offsets[i + 1])).toString(),
    ),
    picks,
  );
  const plain: ColumnVector = {
    kind: 'var',
    type: 'VARCHAR',
    bytes: text.bytes,
    offsets: text.offsets,
    nulls: text.nulls,
  };
  const coded = new LazyVarVector('VARCHAR', () => plain as VarVector, codes, dict);
  const want = rows(csvValueWriter('VARCHAR'), plain, picks.length);
  assert.deepEqual(rows(csvValueWriter('VARCHAR'), coded, picks.length), want, 'written from the codes');
  // One writer over many rows: each entry's bytes kept from its first row.
  const w = new ChunkWriter();
  const write = csvValueWriter('VARCHAR');
  for (let i = 0; i < picks.length; i++) {
    write(w, coded, i);
    w.byte(10);
  }
  assert.equal(w.take().toString(), want.map((s) => `${s}\n`).join(''));
  // Sent to another thread: the rows' codes and the dictionary's entries, as copies.
  const transfer: ArrayBuffer[] = [];
  const slice = codedSlice(coded, 100, 2100, transfer)!;
  assert.equal(slice.codes.length, 2000);
  assert.equal(transfer.length, 3);
  assert.deepEqual(rows(csvValueWriter('VARCHAR'), textOfCodes(slice), 2000), want.slice(100, 2100));
  assert.equal(codedSlice(plain, 0, 10, []), null, 'text without codes goes as text');
  const big = new BytesIds();
  big.nullId();
  for (let k = 0; k < 5000; k++) big.id(enc.encode(`v${k}`), 0, enc.encode(`v${k}`).length);
  const many = new LazyVarVector('VARCHAR', () => plain as VarVector, new Uint16Array(10), big);
  assert.equal(codedSlice(many, 0, 10, []), null, 'a large dictionary goes as text');
});
