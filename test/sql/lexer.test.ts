// Tests of lib/sql/lexer.ts: token kinds, texts and offsets, comments, quoting and
// the errors for unterminated quotes and comments.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenize, type Token } from '../../lib/sql/lexer.js';
import { SvcError } from '../../lib/errors/svc-error.js';

const kinds = (sql: string): string[] => tokenize(sql).map((t) => `${t.kind}:${t.text}`);
const tok = (sql: string, i = 0): Token => tokenize(sql)[i] as Token;

function assertLexError(sql: string, position: number, pattern: RegExp): void {
  assert.throws(
    () => tokenize(sql),
    (e: unknown) => {
      assert.ok(e instanceof SvcError, `expected SvcError, got ${String(e)}`);
      assert.equal(e.code, 'SQL');
      assert.equal(e.position, position);
      assert.match(e.message, pattern);
      return true;
    },
  );
}

test('splits a query into identifiers, operators, numbers and strings with their offsets', () => {
  const toks = tokenize("select a, 'x' from t where b >= 10");
  assert.deepEqual(
    toks.map((t) => [t.kind, t.text, t.pos, t.end]),
    [
      ['ident', 'select', 0, 6],
      ['ident', 'a', 7, 8],
      ['op', ',', 8, 9],
      ['string', 'x', 10, 13],
      ['ident', 'from', 14, 18],
      ['ident', 't', 19, 20],
      ['ident', 'where', 21, 26],
      ['ident', 'b', 27, 28],
      ['op', '>=', 29, 31],
      ['number', '10', 32, 34],
      ['eof', '', 34, 34],
    ],
  );
});

test('keeps identifiers as written and offers an upper-case form for keyword checks', () => {
  const t = tok('SeLeCt');
  assert.equal(t.text, 'SeLeCt');
  assert.equal(t.up, 'SELECT');
});

test('unescapes doubled quotes in strings and quoted identifiers', () => {
  assert.deepEqual(kinds(`'it''s' "a ""b"" c" ''`), ["string:it's", 'qident:a "b" c', 'string:', 'eof:']);
  assert.equal(tok(`"A b"`).end, 5);
});

test('reads integers, decimals, exponents, suffixes, hex and underscores as one number token', () => {
  for (const n of [
    '1',
    '1.5',
    '.5',
    '1.',
    '1e10',
    '1.5E-3',
    '2e+7',
    '1L',
    '0x1F',
    '0x1fL',
    '100_000',
    '15m',
    '1.5m',
    '600000000us',
    '5c',
  ]) {
    assert.deepEqual(kinds(n), [`number:${n}`, 'eof:'], n);
  }
});

test('does not read a dot after a name as the start of a number', () => {
  assert.deepEqual(kinds('t.5'), ['ident:t', 'op:.', 'number:5', 'eof:']);
  assert.deepEqual(kinds('a.b'), ['ident:a', 'op:.', 'ident:b', 'eof:']);
});

test('prefers the longest operator', () => {
  assert.deepEqual(kinds(':: : := != !~ <> <= << <<= >= >> >>= || | ~ & ^ % [ ] ;').slice(0, -1), [
    'op:::',
    'op::',
    'op::=',
    'op:!=',
    'op:!~',
    'op:<>',
    'op:<=',
    'op:<<',
    'op:<<=',
    'op:>=',
    'op:>>',
    'op:>>=',
    'op:||',
    'op:|',
    'op:~',
    'op:&',
    'op:^',
    'op:%',
    'op:[',
    'op:]',
    'op:;',
  ]);
  assert.deepEqual(kinds('a::int'), ['ident:a', 'op:::', 'ident:int', 'eof:']);
  assert.deepEqual(kinds('arr[2:3]'), ['ident:arr', 'op:[', 'number:2', 'op::', 'number:3', 'op:]', 'eof:']);
});

test('skips line and block comments, including QuestDB hints', () => {
  assert.deepEqual(kinds('select -- a comment\n 1 /* block\n comment */ + /*+ hint(a b) */ 2 --'), [
    'ident:select',
    'number:1',
    'op:+',
    'number:2',
    'eof:',
  ]);
  assert.deepEqual(kinds('1-2'), ['number:1', 'op:-', 'number:2', 'eof:']);
});

test('reads $n and $name bind variables and @name DECLARE variables, but leaves $now inside strings alone', () => {
  assert.deepEqual(kinds("$1 $name @x '$now - 1h' $"), [
    'bind:$1',
    'bind:$name',
    'bind:@x',
    'string:$now - 1h',
    'op:$',
    'eof:',
  ]);
});

test('reads geohash literals in base32, binary and with a bit precision', () => {
  assert.deepEqual(kinds('#u33d ##0101 #u33d/18 #'), [
    'geohash:#u33d',
    'geohash:##0101',
    'geohash:#u33d/18',
    'op:#',
    'eof:',
  ]);
});

test('turns any other character into a one-character operator for the parser to reject', () => {
  assert.deepEqual(kinds('a ? { `'), ['ident:a', 'op:?', 'op:{', 'op:`', 'eof:']);
});

test('reads non-ASCII letters as part of identifiers', () => {
  assert.deepEqual(kinds('température_1 Ölpreis'), ['ident:température_1', 'ident:Ölpreis', 'eof:']);
});

test('counts offsets in UTF-16 code units', () => {
  const toks = tokenize("'😀' x");
  assert.equal(toks[1]?.pos, 5);
  assert.equal(tokenize('é x')[1]?.pos, 2); // é is one code unit and a word character
});

test('ends with an eof token at the text length, after trailing space and comments', () => {
  const toks = tokenize('x  -- c');
  assert.deepEqual(toks[toks.length - 1], { kind: 'eof', text: '', up: '', pos: 7, end: 7 });
  assert.deepEqual(kinds(''), ['eof:']);
});

test('rejects an unterminated string, quoted identifier or comment at its start', () => {
  assertLexError("select 'abc", 7, /^unclosed quoted string\?$/);
  assertLexError("select 'it''s", 7, /^unclosed quoted string\?$/);
  assertLexError('select "abc', 7, /^unclosed quoted string\?$/);
  assertLexError('select 1 /* x', 9, /unterminated comment/);
});
