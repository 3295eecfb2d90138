// Text helpers: constant detection over repeated vectors (prefix views too),
// byte-wise row comparison and code point string order.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chars, strs, syms } from './helpers.js';
import { codePointLength, compareStrings, uniformText } from '../../lib/core/utf8.js';
import { constantVector, textVector, texts } from '../../lib/core/vec.js';
import type { ColumnVector } from '../../lib/core/column-vector.js';

test('finds the one value of repeated text vectors and nothing else', () => {
  assert.equal(uniformText(strs(['ab', 'ab', 'ab']), 3), 'ab');
  assert.equal(uniformText(strs(['ab', '', 'abab']), 3), undefined);
  assert.equal(uniformText(strs(['aa', 'aa']), 2), 'aa');
  assert.equal(uniformText(strs(['a', 'a', null]), 3), undefined);
  assert.equal(uniformText(strs([null, null]), 2), null);
  assert.equal(uniformText(strs(['', '']), 2), '');
  assert.equal(uniformText(strs(['é😀', 'é😀']), 2), 'é😀');
  assert.equal(uniformText(strs(['x']), 0), undefined);
  assert.equal(uniformText(syms(['k', 'k']), 2), 'k');
  assert.equal(uniformText(syms(['k', null]), 2), undefined);
  assert.equal(uniformText(chars(['c', 'c']), 2), 'c');
  // A prefix view of a longer constant vector (offsets not ending at the bytes' end).
  const c = constantVector('STRING', 'abc', 1024) as Extract<ColumnVector, { kind: 'var' }>;
  const view: ColumnVector = { ...c, offsets: c.offsets.subarray(0, 4) };
  assert.equal(uniformText(view, 3), 'abc');
  const tail: ColumnVector = { ...c, offsets: c.offsets.subarray(5, 9) };
  assert.equal(uniformText(tail, 3), 'abc');
});

test('orders strings by code point and counts code points', () => {
  assert.ok(compareStrings('\uFF5E', '\u{1F600}') < 0);
  assert.ok(compareStrings('a', 'b') < 0);
  assert.ok(compareStrings('ab', 'a') > 0);
  assert.equal(compareStrings('x', 'x'), 0);
  assert.equal(codePointLength('a😀é'), 3);
  assert.equal(codePointLength('\uD800'), 1);
});

test('textVector encodes ASCII, BMP and astral text with NULLs through every path', () => {
  for (const xs of [
    ['a', null, 'bc', ''],
    ['a', null, 'é', '€x', ''],
    ['😀', null, 'é', '\uD800'],
  ]) {
    const v = textVector('VARCHAR', xs);
    assert.deepEqual(
      texts(v),
      xs.map((s) => (s === '\uD800' ? '\uFFFD' : s)),
    );
    assert.equal(v.offsets[xs.length], v.bytes.length);
  }
  assert.deepEqual(texts(textVector('STRING', [])), []);
});
