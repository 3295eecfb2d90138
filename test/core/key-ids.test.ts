// The key id tables: ids in first-seen order, equal keys one id, across growth
// and hash collisions; text in any form (SYMBOL, plain, dictionary codes) one id per value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BytesIds, DoubleIds, PairIds, TextIds } from '../../lib/core/key-ids.js';
import { symbolsFromStrings, varFromStrings, type VarVector } from '../../lib/core/column-vector.js';

const enc = new TextEncoder();
const idOf = (t: BytesIds, s: string): number => {
  const b = enc.encode(`xx${s}yy`); // an offset into a larger buffer
  return t.id(b, 2, b.length - 2);
};

test('BytesIds: first-seen ids, equal bytes one id, through many rehashes; NULL apart from the empty text', () => {
  const t = new BytesIds();
  const values = Array.from({ length: 20_000 }, (_, i) => `v${i % 7919}-${'é'.repeat(i % 5)}`);
  const first = new Map<string, number>();
  for (const v of values) {
    const id = idOf(t, v);
    if (!first.has(v)) {
      assert.equal(id, first.size);
      first.set(v, id);
    } else assert.equal(id, first.get(v));
  }
  assert.equal(t.size, first.size);
  const empty = idOf(t, '');
  const nul = t.nullId();
  assert.notEqual(empty, nul);
  assert.equal(t.nullId(), nul);
  assert.equal(idOf(t, ''), empty);
  assert.equal(t.peekNullId(), nul);
  // The dictionary view: id k's bytes are [ends[k-1], ends[k]).
  const k = first.get('v12-éé')!;
  assert.equal(new TextDecoder().decode(t.bytes.subarray(k === 0 ? 0 : t.ends[k - 1], t.ends[k])), 'v12-éé');
});

test('DoubleIds: -0 is 0, NaN is NULL, large and fractional values', () => {
  const t = new DoubleIds();
  assert.equal(t.id(0), 0);
  assert.equal(t.id(-0), 0);
  assert.equal(t.id(NaN), 1);
  assert.equal(t.id(NaN), 1);
  assert.equal(t.id(2 ** 60), 2);
  assert.equal(t.id(0.1), 3);
  for (let i = 0; i < 10_000; i++) t.id(i * 1.5);
  assert.equal(t.id(2 ** 60), 2);
  assert.equal(t.id(1.5), t.id(3 / 2));
});

test('PairIds: pairs in first-seen order through growth', () => {
  const t = new PairIds();
  const seen = new Map<string, number>();
  for (let i = 0; i < 50_000; i++) {
    const a = i % 101,
      b = (i * 7) % 97;
    const id = t.id(a, b);
    const k = `${a},${b}`;
    if (!seen.has(k)) seen.set(k, seen.size);
    assert.equal(id, seen.get(k));
  }
});

test('TextIds: one id per value whether SYMBOL, plain VARCHAR or dictionary codes; dictionaries change per batch', () => {
  const t = new TextIds();
  const out = new Int32Array(4);
  t.assign(symbolsFromStrings(['a', null, 'é', 'a']), 4, out);
  const [a, nul, e] = [out[0]!, out[1]!, out[2]!];
  assert.equal(out[3], a);
  t.assign(varFromStrings('VARCHAR', ['é', 'b', null, 'a']), 4, out);
  assert.deepEqual([out[0], out[2], out[3]], [e, nul, a]);
  const b = out[1]!;
  // A partition dictionary: code 0 NULL, then 'b', 'a', 'new'.
  const d = new BytesIds();
  d.nullId();
  for (const s of ['b', 'a', 'new']) idOf(d, s);
  const coded: VarVector = {
    ...varFromStrings('VARCHAR', ['a', 'new', null, 'b']),
    codes: Uint8Array.of(2, 3, 0, 1),
    dict: d,
  };
  t.assign(coded, 4, out);
  assert.deepEqual([out[0], out[2], out[3]], [a, nul, b]);
  assert.equal(out[1], t.size - 1);
});

test('TextIds: a CHAR is the same value as the one-character text, ASCII, two- and three-byte and lone surrogates alike', () => {
  const t = new TextIds();
  const out = new Int32Array(5);
  const chars = Uint16Array.of(0x41, 0xe9, 0x65e5, 0xd800, 0);
  t.assign({ kind: 'fixed', type: 'CHAR', data: chars }, 5, out);
  const text = new Int32Array(5);
  t.assign(varFromStrings('VARCHAR', ['A', 'é', '日', '\ufffd', null]), 5, text);
  assert.deepEqual([...out], [...text]);
});
