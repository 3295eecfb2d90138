// VARCHAR/STRING vectors with partition dictionary codes (VarVector.codes, as a
// scan gives them) in a Parquet export (lib/export/parquet/schema.ts
// gatherCoded, dictionary.ts codedDictionary): the same bytes as the same text
// without codes, for NULLs, multi-byte UTF-8, several partition dictionaries in
// one row group, text with and without codes in one chunk, chunks past the
// dictionary limits and chunks of mostly distinct values; and the text of coded
// vectors is never read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { LazyVarVector, type TextDict, type VarVector } from '../../lib/core/column-vector.js';
import type { Batch } from '../../lib/core/batch.js';
import { ChunkValues } from '../../lib/export/parquet/column-values.js';
import { encodeChunk } from '../../lib/export/parquet/column-chunk.js';
import { pageCodec } from '../../lib/export/parquet/codecs.js';
import { columnSpec } from '../../lib/export/parquet/schema.js';
import { parseParquetOptions } from '../../lib/export/parquet/options.js';
import { parquetBody, planParquet } from '../../lib/export/parquet/parquet-writer.js';
import type { Field } from '../../lib/sql/bound.js';

const enc = new TextEncoder();

/** A partition's dictionary of `entries` (code k + 1 is entries[k]; code 0 is NULL). */
function textDict(entries: readonly string[]): TextDict {
  const parts = entries.map((e) => enc.encode(e));
  const ends = new Int32Array(entries.length + 1);
  parts.forEach((p, k) => (ends[k + 1] = ends[k]! + p.length));
  const bytes = new Uint8Array(ends[entries.length]!);
  parts.forEach((p, k) => bytes.set(p, ends[k]));
  return { size: entries.length + 1, bytes, ends };
}

/** Plain text of `rows` (null: NULL). */
function plainVector(rows: readonly (string | null)[]): VarVector {
  const parts = rows.map((w) => enc.encode(w ?? ''));
  const offsets = new Int32Array(rows.length + 1);
  parts.forEach((p, i) => (offsets[i + 1] = offsets[i]! + p.length));
  const bytes = new Uint8Array(offsets[rows.length]!);
  parts.forEach((p, i) => bytes.set(p, offsets[i]));
  return { kind: 'var', type: 'VARCHAR', bytes, offsets, nulls: Uint8Array.from(rows, (w) => (w === null ? 1 : 0)) };
}

/** The same rows as codes into `entries`' dictionary, their text loaded only if asked for (counted in `reads`). */
function codedVector(rows: readonly (string | null)[], entries: readonly string[], reads: { n: number }): VarVector {
  const code = new Map(entries.map((e, k) => [e, k + 1]));
  const codes = Uint16Array.from(rows, (w) => (w === null ? 0 : (code.get(w) ?? 0)));
  assert.ok(!codes.some((c, i) => c === 0 && rows[i] !== null), 'every value is an entry');
  return new LazyVarVector(
    'VARCHAR',
    () => {
      reads.n++;
      return plainVector(rows);
    },
    codes,
    textDict(entries),
  );
}

const spec = columnSpec({ name: 's', type: 'VARCHAR' });
const zstd = pageCodec('ZSTD', 9);

/** The encoded chunk of `vectors` (each gathered whole) as one buffer. */
function chunkBytes(vectors: readonly VarVector[]): Buffer {
  const v = new ChunkValues(spec.kind, spec.width, 1024);
  for (const x of vectors) spec.gather(v, x, 0, rowCount(x));
  const out = encodeChunk(spec, v, {
    version: 2,
    codec: zstd,
    dataPageSize: 1 << 20,
    statistics: true,
    bloomFpp: 0.01,
    probe: true,
  });
  return Buffer.concat([...out.parts, out.bloom!]);
}

/** Rows of `v`, from its codes when it has them (its offsets would read its text). */
function rowCount(v: VarVector): number {
  return v.codes !== undefined ? v.codes.length : v.offsets.length - 1;
}

let seed = 11;
const rnd = (): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 4294967296;
};

/** `n` rows drawn from `values`, NULL every `nullEvery` rows (0: none). */
function draw(values: readonly string[], n: number, nullEvery: number): (string | null)[] {
  return Array.from({ length: n }, (_, i) =>
    nullEvery > 0 && i % nullEvery === 3 ? null : values[Math.floor(rnd() * values.length)]!,
  );
}

test('coded text gives the chunk bytes of the same text without codes, and its text is never read', () => {
  const words = ['BTC-USD', 'ETH-USD', '', 'é', '😀 日本', 'a much longer value that spans many words'];
  const cases: { label: string; parts: (string | null)[][]; entries: string[][] }[] = [
    { label: 'one partition, NULLs', parts: [draw(words, 5000, 7)], entries: [words] },
    { label: 'no NULLs', parts: [draw(words, 3000, 0)], entries: [words] },
    {
      label: 'three partitions, dictionaries in other orders and with entries the rows never use',
      parts: [draw(words, 2000, 5), draw(words, 1500, 0), draw(words.slice(2), 2500, 9)],
      entries: [words, [...words].reverse(), ['unused', ...words.slice(2), 'never']],
    },
    { label: 'only NULLs', parts: [Array.from({ length: 300 }, () => null)], entries: [words] },
  ];
  for (const c of cases) {
    const reads = { n: 0 };
    const plain = chunkBytes(c.parts.map(plainVector));
    const coded = chunkBytes(c.parts.map((p, k) => codedVector(p, c.entries[k]!, reads)));
    assert.ok(coded.equals(plain), c.label);
    assert.equal(reads.n, 0, `${c.label}: the text was read`);
  }
});

test('text with and without codes in one chunk, either first: the same bytes', () => {
  const words = ['x', 'yy', 'zzz', 'ünï'];
  const a = draw(words, 4000, 6),
    b = draw(words, 3000, 0),
    c = draw(words, 2000, 4);
  const plain = chunkBytes([a, b, c].map(plainVector));
  const reads = { n: 0 };
  assert.ok(chunkBytes([codedVector(a, words, reads), plainVector(b), codedVector(c, words, reads)]).equals(plain));
  assert.ok(chunkBytes([plainVector(a), codedVector(b, words, reads), codedVector(c, words, reads)]).equals(plain));
  assert.ok(chunkBytes([codedVector(a, words, reads), codedVector(b, words, reads), plainVector(c)]).equals(plain));
});

test('coded chunks past the dictionary limits, or mostly distinct at first, are PLAIN like the text', () => {
  const many = Array.from({ length: 30_000 }, (_, i) => `id-${i}`);
  // Entry limit: more distinct values than half the chunk's values.
  const distinct = draw(many, 20_000, 0);
  // Byte limit (1 MiB of PLAIN dictionary): few rows each, long values.
  const long = Array.from({ length: 3000 }, (_, i) => `${i}:${'v'.repeat(600)}`);
  const longRows = Array.from({ length: 12_000 }, (_, i) => long[i % long.length]!);
  // The first eighth all distinct, the rest repeats of a few: the judgement of the first values stops the dictionary.
  const firstDistinct = [...many.slice(0, 4096), ...draw(many.slice(0, 20), 28_000, 0)];
  // The first eighth repeats, later values distinct yet within the limits: a dictionary.
  const laterDistinct = [...draw(many.slice(0, 10), 4096, 0), ...many.slice(100, 9000), ...draw(many, 20_000, 0)];
  for (const [label, rows, entries] of [
    ['entries', distinct, many],
    ['bytes', longRows, long],
    ['first values distinct', firstDistinct, many],
    ['later values distinct', laterDistinct, many],
  ] as const) {
    const reads = { n: 0 };
    const plain = chunkBytes([plainVector(rows)]);
    assert.ok(chunkBytes([codedVector(rows, entries, reads)]).equals(plain), label);
    assert.equal(reads.n, 0, label);
  }
});

test('a Parquet export of coded text reads back, and its text is never read', async () => {
  const words = ['BTC-USD', 'ETH-USD', 'SOL-USD', 'é😀'];
  const fields: Field[] = [
    { name: 'k', type: 'INT' },
    { name: 'sym', type: 'VARCHAR' },
  ];
  const reads = { n: 0 };
  const batchRows = draw(words, 12_000, 13);
  async function* batches(coded: boolean): AsyncGenerator<Batch> {
    for (let at = 0; at < batchRows.length; at += 1000) {
      const rows = batchRows.slice(at, at + 1000);
      // Two partitions, each with its own dictionary.
      const entries = at < 6000 ? words : [...words].reverse();
      yield {
        rowCount: rows.length,
        columns: [
          { kind: 'fixed', type: 'INT', data: Int32Array.from(rows, (_, i) => at + i) },
          coded ? codedVector(rows, entries, reads) : plainVector(rows),
        ],
      };
    }
  }
  const file = async (coded: boolean): Promise<Buffer> => {
    const plan = planParquet(fields, -1, null, parseParquetOptions(new URLSearchParams({ row_group_size: '5000' })));
    const parts: Buffer[] = [];
    for await (const c of parquetBody(plan, batches(coded), null, { sent: 0, matched: 0 })) parts.push(c);
    return Buffer.concat(parts);
  };
  const coded = await file(true);
  assert.equal(reads.n, 0, 'the coded text was read');
  assert.ok(coded.equals(await file(false)));
  const rows = await parquetReadObjects({
    file: coded.buffer.slice(coded.byteOffset, coded.byteOffset + coded.length) as ArrayBuffer,
    compressors,
  });
  assert.deepEqual(
    rows.map((r) => r.sym as string | null),
    batchRows,
  );
});
