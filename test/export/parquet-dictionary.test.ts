// The column chunk dictionaries (lib/export/parquet/dictionary.ts) against a reference built with a
// Map: the same distinct values in first-seen order and the same index per value, for byte arrays
// (empty strings, multi-byte UTF-8, long values, many distinct values) and every fixed width, and
// null past the entry and byte limits, or when the chunk's first values say it would pass the entry limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChunkValues, type ValueKind } from '../../lib/export/parquet/column-values.js';
import { buildDictionary, pastLimit } from '../../lib/export/parquet/dictionary.js';

const utf8 = new TextEncoder();

function bytesChunk(values: readonly string[]): ChunkValues {
  const v = new ChunkValues('bytes', 0, values.length);
  v.offsets[0] = 0;
  for (const s of values) {
    const b = utf8.encode(s);
    v.reserve(1);
    v.reserveBytes(b.length);
    v.bytes.set(b, v.byteLength);
    v.byteLength += b.length;
    v.offsets[++v.count] = v.byteLength;
    v.rows++;
  }
  return v;
}

/** Value k of a chunk as a string key (hex of its bytes). */
function key(v: ChunkValues, k: number): string {
  const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
  switch (v.kind) {
    case 'bytes':
      return hex(v.bytes.subarray(v.offsets[k], v.offsets[k + 1]));
    case 'fixed':
      return hex(v.bytes.subarray(k * v.width, (k + 1) * v.width));
    case 'i32':
      return hex(new Uint8Array(v.i32.buffer, k * 4, 4));
    case 'f32':
      return hex(new Uint8Array(v.f32.buffer, k * 4, 4));
    case 'i64':
      return hex(new Uint8Array(v.i64.buffer, k * 8, 8));
    case 'f64':
      return hex(new Uint8Array(v.f64.buffer, k * 8, 8));
    default:
      throw new Error(v.kind);
  }
}

/** Asserts the dictionary of `v` is the reference one (first-seen order, an index per value) or null when it would pass the limits. */
function check(v: ChunkValues, maxEntries: number, maxBytes: number, label: string): boolean {
  const first = new Map<string, number>();
  const want: number[] = [];
  let plainBytes = 0;
  for (let k = 0; k < v.count; k++) {
    const s = key(v, k);
    let e = first.get(s);
    if (e === undefined) {
      e = first.size;
      first.set(s, e);
      plainBytes += v.kind === 'bytes' ? 4 + s.length / 2 : s.length / 2;
    }
    want.push(e);
  }
  const d = buildDictionary(v, maxEntries, maxBytes);
  // A chunk over 8192 values is judged on its first eighth (4096 at least): the distinct values of its two halves
  // estimate the chunk's; past the entry limit (of values of their width within the byte limit) it is PLAIN.
  const judgeAt = v.count > 8192 ? Math.max(4096, v.count >>> 3) : v.count;
  const distinctIn = (k: number): number => new Set(want.slice(0, k)).size;
  const entries = v.kind === 'bytes' ? maxEntries : Math.min(maxEntries, Math.floor(maxBytes / v.width));
  const judged =
    judgeAt < v.count && pastLimit(distinctIn(judgeAt >>> 1), distinctIn(judgeAt), judgeAt, v.count, entries);
  if (first.size > maxEntries || plainBytes > maxBytes || judged) {
    assert.equal(d, null, `${label}: past the limits`);
    return false;
  }
  assert.ok(d !== null, label);
  assert.equal(d.size, first.size, label);
  assert.deepEqual(
    Array.from({ length: d.size }, (_, e) => key(d.values, e)),
    [...first.keys()],
    label,
  );
  assert.deepEqual(Array.from(d.indices.subarray(0, v.count)), want, label);
  return true;
}

let seed = 5;
const rnd = (): number => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 4294967296;
};

test('byte arrays: empty strings, multi-byte UTF-8, shared prefixes, long values and thousands of distinct values', () => {
  const words = ['', 'a', 'ab', 'abc', 'é', 'e\u0301', '😀', '日本語', 'buy', 'sell', 'x'.repeat(300), 'x'.repeat(301)];
  const few = Array.from({ length: 5000 }, () => words[Math.floor(rnd() * words.length)]!);
  assert.ok(check(bytesChunk(few), 2500, 1 << 20, 'few'));
  // Past the first hash table sizes (they double as they fill).
  const many = Array.from({ length: 40_000 }, () => `k${Math.floor(rnd() * 9000)}`);
  assert.ok(check(bytesChunk(many), 20_000, 1 << 20, 'many'));
  assert.ok(check(bytesChunk(['', '', '']), 1, 1 << 20, 'only empty strings'));
});

test('byte arrays past the entry limit or the byte limit are left to PLAIN', () => {
  const distinct = Array.from({ length: 3000 }, (_, i) => `v${i}`);
  assert.equal(check(bytesChunk(distinct), 1500, 1 << 20, 'entries'), false);
  const long = Array.from({ length: 100 }, (_, i) => `${i % 10}${'y'.repeat(200)}`);
  assert.equal(check(bytesChunk(long), 50, 1000, 'bytes'), false);
  assert.ok(check(bytesChunk(long), 50, 4096, 'bytes within'));
});

function fixedChunk(kind: ValueKind, width: number, n: number, pick: (i: number) => number): ChunkValues {
  const v = new ChunkValues(kind, width, n);
  for (let i = 0; i < n; i++) {
    const x = pick(i);
    if (kind === 'i32') v.i32[i] = x;
    else if (kind === 'f32') v.f32[i] = x;
    else if (kind === 'f64') v.f64[i] = x;
    else if (kind === 'i64') {
      v.i64[2 * i] = x | 0;
      v.i64[2 * i + 1] = (x * 7919) | 0;
    } else {
      // The value's double in the first 8 bytes, then bytes derived from it.
      new DataView(v.bytes.buffer).setFloat64(i * width, x, true);
      for (let b = 8; b < width; b++) v.bytes[i * width + b] = (x * (b + 3)) & 0xff;
    }
  }
  v.rows = v.count = n;
  return v;
}

test('fixed widths: INT, FLOAT, LONG, DOUBLE (-0 apart from 0) and 16-byte values, few and many distinct', () => {
  for (const [kind, width] of [
    ['i32', 4],
    ['f32', 4],
    ['i64', 8],
    ['f64', 8],
    ['fixed', 16],
  ] as const) {
    for (const distinct of [3, 200, 6000]) {
      const values = [0, -0, 1.5, -7, 2 ** 31 - 1, ...Array.from({ length: distinct }, (_, i) => i * 3 + 0.25)];
      const v = fixedChunk(kind, width, 30_000, () => values[Math.floor(rnd() * values.length)]!);
      assert.ok(check(v, 15_000, 1 << 20, `${kind} ${distinct}`));
    }
    // All distinct (and not increasing): past the entry limit.
    const v = fixedChunk(kind, width, 4000, (i) => (i * 7919) % 4001);
    assert.equal(check(v, 2000, 1 << 20, `${kind} distinct`), false);
  }
});

test('the first eighth judges the chunk: values that keep changing are PLAIN at once, draws from a bounded set keep their dictionary', () => {
  const n = 40_000; // judged at its first 5000 values, from its first 2500 and 5000
  const mk = (pick: (i: number) => number): [ChunkValues, ChunkValues] => {
    const words = Array.from({ length: n }, (_, i) => `k${pick(i)}`);
    return [fixedChunk('f64', 8, n, pick), bytesChunk(words)];
  };
  // A random walk of prices in cents: new values keep coming, past the limit of 20000 in all.
  let cents = 4_000_000;
  const walk = Array.from({ length: n }, () => (cents += Math.round((rnd() - 0.5) * 4000)) / 100);
  assert.ok(new Set(walk).size > n / 2);
  // Draws from 9000 values: about 7800 distinct in all, within the limit though the first eighth is 43% new.
  const bounded = Array.from({ length: n }, () => Math.floor(rnd() * 9000));
  // The first eighth all distinct, then 10 values again and again: the estimate sees no bound and gives up,
  // though the whole has 5010 distinct values (the judgement's price: a larger file, the same values).
  const thenRepeats = (i: number): number => (i < 5000 ? i : 100_000 + (i % 10));
  for (const v of mk((i) => walk[i]!)) {
    assert.equal(buildDictionary(v, n / 2, 1 << 20), null, `${v.kind}: a random walk`);
    assert.equal(check(v, n / 2, 1 << 20, `${v.kind} walk`), false);
  }
  for (const v of mk((i) => bounded[i]!)) assert.ok(check(v, n / 2, 1 << 20, `${v.kind} bounded`));
  for (const v of mk(thenRepeats)) assert.equal(buildDictionary(v, n / 2, 1 << 20), null, `${v.kind}: repeats later`);
  // The estimate itself: draws from U values show U(1 - e^(-k/U)) distinct ones after k.
  const seen = (u: number, k: number): number => Math.round(u * (1 - Math.exp(-k / u)));
  assert.equal(pastLimit(seen(9000, 2500), seen(9000, 5000), 5000, n, 20_000), false);
  assert.equal(pastLimit(seen(60_000, 2500), seen(60_000, 5000), 5000, n, 20_000), true);
  assert.equal(pastLimit(2500, 5000, 5000, n, 20_000), true);
  assert.equal(pastLimit(100, 100, 5000, n, 20_000), false);
});
