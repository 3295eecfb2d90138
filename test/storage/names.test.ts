import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_NAME_BYTES, checkColumnName, checkTableName, printable } from '../../lib/storage/names.js';
import { SvcError } from '../../lib/errors/svc-error.js';

const badRequest =
  (re: RegExp) =>
  (e: unknown): boolean =>
    e instanceof SvcError && e.status === 400 && e.position === undefined && re.test(e.message);

test('accepts ordinary names, with underscores, and hyphens in table names', () => {
  for (const n of ['trades', 'Trades_2024', 'x', 'weather-eu', 'données', '日本']) checkTableName(n);
  for (const n of ['price', 'trip_distance', 'Col1', 'größe']) checkColumnName(n);
});

test('accepts the joiners that Persian, Indic scripts and emoji sequences need', () => {
  checkTableName('می\u200Cخواهم'); // Persian with a zero-width non-joiner
  checkTableName('\u0915\u094D\u200D\u0937'); // Devanagari with a zero-width joiner
  checkColumnName('👩\u200D💻'); // an emoji ZWJ sequence
  checkColumnName('❤\uFE0F'); // a variation selector
});

test('accepts a plain space, as QuestDB does in quoted names', () => {
  checkTableName('my table');
  checkColumnName('my col');
});

test('rejects the characters SPEC.md strips on import, quotes and control characters, saying where', () => {
  const bad: Array<[string, number]> = [
    ['a\u00A0b', 1],
    ['a.b', 1],
    ['a?', 1],
    ['a,b', 1],
    ['a:b', 1],
    ['a\\b', 1],
    ['a/b', 1],
    ['a\0b', 1],
    ['f(x)', 1],
    ['a+b', 1],
    ['a*b', 1],
    ['a~b', 1],
    ['a%', 1],
    ["it's", 2],
    ['say"', 3],
    ['tab\tx', 3],
  ];
  for (const [n, pos] of bad) {
    assert.throws(
      () => checkTableName(n),
      badRequest(new RegExp(`^table name contains an invalid character .* at offset ${pos} `)),
      n,
    );
  }
  assert.throws(() => checkColumnName('a-b'), /column name contains an invalid character '-'/);
  assert.throws(() => checkTableName(''), badRequest(/empty/));
});

test('rejects bidi controls, invisible format characters, C1 controls, blank letters, odd spaces and unpaired surrogates', () => {
  const bad: Array<[string, string]> = [
    ['\u202A', 'U+202A'],
    ['\u202B', 'U+202B'],
    ['\u202C', 'U+202C'],
    ['\u202D', 'U+202D'],
    ['\u202E', 'U+202E'],
    ['\u2066', 'U+2066'],
    ['\u2067', 'U+2067'],
    ['\u2068', 'U+2068'],
    ['\u2069', 'U+2069'],
    ['\u200E', 'U+200E'],
    ['\u200F', 'U+200F'],
    ['\u061C', 'U+061C'],
    ['\u200B', 'U+200B'],
    ['\u2060', 'U+2060'],
    ['\uFEFF', 'U+FEFF'],
    ['\u00AD', 'U+00AD'],
    ['\u{E0041}', 'U+E0041'],
    ['\u0085', 'U+0085'],
    ['\u009B', 'U+009B'],
    ['\u3164', 'U+3164'],
    ['\u00A0', 'U+00A0'],
    ['\u3000', 'U+3000'],
    ['\u2028', 'U+2028'],
    ['\uD800', 'U+D800'],
    ['\uDC00', 'U+DC00'],
  ];
  for (const [ch, code] of bad) {
    const name = `ab${ch}cd`;
    for (const check of [checkTableName, checkColumnName]) {
      assert.throws(
        () => check(name),
        (e: unknown) => {
          assert.ok(e instanceof SvcError && e.status === 400);
          assert.match(e.message, new RegExp(`invalid character ${code.replace('+', '\\+')} at offset 2 `));
          // The message shows the name with the character escaped, never the character itself.
          assert.ok(!e.message.includes(ch), `${code} appears raw in: ${e.message}`);
          return true;
        },
        code,
      );
    }
  }
});

test(`limits names to ${MAX_NAME_BYTES} bytes of UTF-8, whatever the characters`, () => {
  const fits = ['a'.repeat(127), 'é'.repeat(63) + 'a', '😀'.repeat(31) + 'abc', '日'.repeat(42) + 'a'];
  for (const n of fits) {
    assert.equal(Buffer.byteLength(n), 127);
    checkTableName(n);
    checkColumnName(n);
  }
  const over = ['a'.repeat(128), 'é'.repeat(64), '😀'.repeat(32), '日'.repeat(43), 'x'.repeat(100_000)];
  for (const n of over) {
    const bytes = Buffer.byteLength(n);
    assert.throws(
      () => checkTableName(n),
      badRequest(new RegExp(`^table name is too long: ${bytes} bytes of UTF-8, at most 127 \\[name=`)),
    );
    assert.throws(() => checkColumnName(n), badRequest(/^column name is too long/));
  }
  // The message shows the name's beginning only.
  assert.throws(
    () => checkTableName('x'.repeat(100_000)),
    (e: unknown) => e instanceof Error && e.message.length < 200,
  );
});

test('printable() escapes what does not show and keeps the rest', () => {
  assert.equal(printable('a\u202Eb c\u200Dd\u0007'), 'a\\u202Eb c\u200Dd\\u0007');
  assert.equal(printable('日本 é'), '日本 é');
});
