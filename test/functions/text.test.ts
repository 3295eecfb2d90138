// Text functions over STRING, VARCHAR, SYMBOL and CHAR: character counts and
// positions in code points (length: UTF-16 units but for VARCHAR), NULL
// handling, QuestDB's documented edge cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { standaloneKernelContext } from '../../lib/functions/registry.js';
import {
  bools,
  call,
  chars,
  doubles,
  ints,
  nullArg,
  resolveError,
  resultType,
  strs,
  syms,
  ts,
  values,
  KX,
  REGISTRY,
} from './helpers.js';

const rep = (s: string | null, n: number): ReturnType<typeof strs> => strs(new Array(n).fill(s));
const n = (x: number, k: number): ReturnType<typeof ints> => ints(new Array(k).fill(x));

test('length counts UTF-16 code units of STRING and SYMBOL, code points of VARCHAR, -1 for NULL (QuestDB)', () => {
  assert.deepEqual(call('length', [strs(['AARON', '', null, 'é😀'])]), [5, 0, -1, 3]);
  assert.deepEqual(call('length', [syms(['TOM', null, '😀'])]), [3, -1, 2]);
  assert.deepEqual(call('length', [strs(['ab', 'é😀', null], 'VARCHAR')]), [2, 2, -1]);
  assert.deepEqual(call('length', [chars(['x', null])]), [1, -1]);
  assert.equal(resultType('length', ['SYMBOL']), 'INT');
});

test("upper and lower map each character as Java's Character does (one for one), keep NULL, and are STRING", () => {
  // 'ß' has no one-character upper case: it stays (String.toUpperCase would make it 'SS').
  assert.deepEqual(call('upper', [strs(['questDB', null, 'straße', 'ﬁx', 'ǆ'])]), [
    'QUESTDB',
    null,
    'STRAßE',
    'ﬁX',
    'Ǆ',
  ]);
  assert.deepEqual(call('lower', [syms(['QuestDB', 'ÉTÉ', 'İx'])]), ['questdb', 'été', 'ix']);
  assert.deepEqual(call('to_uppercase', [strs(['a'])]), ['A']);
  assert.deepEqual(call('to_lowercase', [strs(['MiX', null], 'VARCHAR')]), ['mix', null]);
  assert.equal(resultType('upper', ['VARCHAR']), 'STRING');
  assert.equal(resultType('lower', ['VARCHAR']), 'STRING');
  assert.equal(resultType('upper', ['SYMBOL']), 'STRING');
});

test('concat joins any number of values of any type, NULL as empty', () => {
  assert.deepEqual(call('concat', [strs(['Tim', 'Anna']), rep(' ', 2), strs(['Thompson', null])]), [
    'Tim Thompson',
    'Anna ',
  ]);
  assert.deepEqual(call('concat', [strs(['p=']), ints([70867]), strs([',t=']), ts(['2020-01-01'])]), [
    'p=70867,t=2020-01-01T00:00:00.000000Z',
  ]);
  assert.deepEqual(call('concat', [doubles([1.5]), bools([false])]), ['1.5false']);
  assert.deepEqual(call('concat', [strs([null])]), ['']);
  assert.equal(resultType('concat', ['STRING', 'VARCHAR', 'INT']), 'STRING'); // QuestDB: always STRING
  assert.match(resolveError('concat', []), /no matching function `concat`/);
});

test('substring is 1-based and follows QuestDB for starts before 1', () => {
  const s = rep('Lorem ipsum dolor sit amet', 1);
  assert.deepEqual(call('substring', [s, n(-5, 1), n(9, 1)]), ['Lor']);
  assert.deepEqual(call('substring', [s, n(1, 1), n(5, 1)]), ['Lorem']);
  assert.deepEqual(call('substring', [s, n(-3, 1), n(3, 1)]), ['']);
  assert.deepEqual(call('substring', [s, n(-3, 1), n(2, 1)]), [null]);
  assert.throws(() => call('substring', [s, n(7, 1), n(-1, 1)]), /negative substring length is not allowed/);
  assert.deepEqual(call('substring', [s, n(23, 1), n(100, 1)]), ['amet']);
  assert.deepEqual(call('substring', [s, n(100, 1), n(2, 1)]), ['']);
  assert.deepEqual(call('substring', [s, n(7, 1)]), ['ipsum dolor sit amet']);
  assert.deepEqual(call('substring', [strs(['a😀bc', null]), n(2, 2), n(2, 2)]), ['😀b', null]);
  assert.deepEqual(call('substring', [strs(['abc']), ints([null]), n(1, 1)]), [null]);
});

test('left and right take characters from either end; negative counts drop them', () => {
  assert.deepEqual(call('left', [strs(['Thompson', 'ab', null]), n(3, 3)]), ['Tho', 'ab', null]);
  assert.deepEqual(call('right', [strs(['Thompson', 'ab']), n(2, 2)]), ['on', 'ab']);
  assert.deepEqual(call('left', [strs(['Thompson']), n(-2, 1)]), ['Thomps']);
  assert.deepEqual(call('right', [strs(['Thompson']), n(-2, 1)]), ['ompson']);
  assert.deepEqual(call('right', [strs(['x😀']), n(1, 1)]), ['😀']);
});

test('strpos / position find 1-based character positions, 0 when absent', () => {
  assert.deepEqual(call('strpos', [strs(['Tim Thompson', 'Anna Mason', null, '😀Thompson']), rep('Thompson', 4)]), [
    5,
    0,
    null,
    2,
  ]);
  assert.deepEqual(call('position', [syms(['abc']), strs(['c'])]), [3]);
  assert.deepEqual(call('strpos', [strs(['abc']), strs([''])]), [1]);
});

test('replace is VARCHAR only when all three arguments are', () => {
  assert.equal(resultType('replace', ['VARCHAR', 'VARCHAR', 'VARCHAR']), 'VARCHAR');
  assert.equal(resultType('replace', ['VARCHAR', 'STRING', 'STRING']), 'STRING');
  assert.equal(resultType('replace', ['STRING', 'VARCHAR', 'VARCHAR']), 'STRING');
  assert.equal(resultType('left', ['VARCHAR', 'INT']), 'VARCHAR');
});

test('replace, trims, split_part and starts_with', () => {
  assert.deepEqual(call('replace', [strs(['Hello World', 'aaa', null]), rep('World', 3), rep('QuestDB', 3)]), [
    'Hello QuestDB',
    'aaa',
    null,
  ]);
  assert.deepEqual(call('replace', [strs(['a.b.c']), strs(['.']), strs([''])]), ['abc']);
  assert.deepEqual(call('replace', [strs(['abc']), strs(['']), strs(['x'])]), ['abc']);
  assert.deepEqual(call('trim', [strs(['   QuestDB   ', '\t x \n', null])]), ['QuestDB', 'x', null]);
  assert.deepEqual(call('ltrim', [strs(['   QuestDB   '])]), ['QuestDB   ']);
  assert.deepEqual(call('rtrim', [strs(['Hello QuestDB   '])]), ['Hello QuestDB']);
  assert.deepEqual(call('split_part', [strs(['Hello,QuestDB,SQL', 'a,b', 'a,b']), rep(',', 3), ints([2, 5, -1])]), [
    'QuestDB',
    '',
    'b',
  ]);
  assert.throws(() => call('split_part', [strs(['a,b']), strs([',']), ints([0])]), /field position must not be zero/);
  assert.deepEqual(call('starts_with', [strs(['Hello QuestDB', 'x', null]), rep('Hello', 3)]), [true, false, false]);
});

test('regexp_replace replaces every match, with group references', () => {
  assert.deepEqual(call('regexp_replace', [strs(['a1b22c333', null]), rep('[0-9]+', 2), rep('#', 2)]), [
    'a#b#c#',
    null,
  ]);
  assert.deepEqual(call('regexp_replace', [strs(['2024-01-15']), strs(['(\\d+)-(\\d+)-(\\d+)']), strs(['$3/$2/$1'])]), [
    '15/01/2024',
  ]);
});

test('regexp_replace reads the replacement as Java does: $n, ${name}, and a backslash escaping the next character', () => {
  const one = (s: string, p: string, r: string): unknown =>
    call('regexp_replace', [strs([s]), strs([p]), strs([r])])[0];
  assert.equal(one('a1b22', '([0-9]+)', '[$1|$0]'), 'a[1|1]b[22|22]');
  assert.equal(one('x-y', '(?<l>\\w)-(?<r>\\w)', '${r}-${l}'), 'y-x');
  assert.equal(one('x-y', '(?P<l>\\w)-(?P<r>\\w)', '${r}+$1'), 'y+x');
  assert.equal(one('ab', 'b', '\\$1 \\\\ \\x'), 'a$1 \\ x');
  // $10 with one group is group 1 then "0"; with ten groups it is group 10.
  assert.equal(one('ab', '(b)', '$10'), 'ab0');
  assert.equal(one('abcdefghijk', '(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)', '$10$1'), 'jak');
  // A group that took no part in the match is empty.
  assert.equal(one('ac', 'a(b)?c', '[$1]'), '[]');
  // Empty matches: one before every character and one at the end; a surrogate pair is one character.
  assert.equal(one('a😀b', 'x*', '-'), '-a-😀-b-');
  assert.equal(one('aaa', 'a', ''), '');
});

test('regexp_replace refuses a replacement Java refuses', () => {
  const refused: [string, string, RegExp][] = [
    ['b', '$&', /\$ must be followed by a group number or \{name\}/],
    ['b', '$$', /\$ must be followed by a group number/],
    ['b', 'x$', /group index is missing/],
    ['b', 'x\\', /character to be escaped is missing/],
    ['(b)', '$2', /no group 2/],
    ['(?<n>b)', '${m}', /no group named m/],
    ['(?<n>b)', '${n', /\$\{name\}/],
  ];
  for (const [p, r, why] of refused) {
    assert.throws(
      () => call('regexp_replace', [strs(['ab']), strs([p]), strs([r])]),
      (e: Error) => {
        assert.match(e.message, /^invalid replacement: /, r);
        assert.match(e.message, why, r);
        return true;
      },
    );
  }
});

test('regexp_replace stops once the text it builds passes the per-value limit', () => {
  const kx = standaloneKernelContext(KX.statementMicros, 1024 ** 3, 1000);
  const fn = REGISTRY.resolveScalar('regexp_replace', ['STRING', 'STRING', 'STRING'], 0);
  const args = [strs(['a'.repeat(400)]), strs(['a']), strs(['$0$0$0'])];
  assert.throws(() => fn.kernel(args, 1, kx), /breached memory limit set for regexp_replace \[maxLength=1000/);
  assert.deepEqual(values(fn.kernel([strs(['a'.repeat(300)]), strs(['a']), strs(['$0$0$0'])], 1, kx)), [
    'a'.repeat(900),
  ]);
});

test('lpad and rpad pad or cut to a length', () => {
  assert.deepEqual(call('lpad', [strs(['QuestDB', 'toolongtext']), n(10, 2), rep('0', 2)]), [
    '000QuestDB',
    'toolongtex',
  ]);
  assert.deepEqual(call('rpad', [strs(['ab']), n(5, 1), strs(['xy'])]), ['abxyx']);
  assert.deepEqual(call('lpad', [strs(['ab']), n(4, 1)]), ['  ab']);
});

test('handles empty batches and rejects wrong argument types', () => {
  assert.deepEqual(call('upper', [strs([])], undefined, 0), []);
  assert.deepEqual(call('length', [syms([])], undefined, 0), []);
  assert.deepEqual(call('substring', [strs([]), ints([]), ints([])], undefined, 0), []);
  assert.equal(
    resolveError('length', ['INT']),
    'there is no matching function `length` with the argument types: (INT)',
  );
  assert.match(resolveError('left', ['STRING', 'STRING']), /no matching function `left`/);
  assert.match(resolveError('upper', ['STRING', 'STRING']), /no matching function `upper`/);
});

test('md5, sha1 and sha256 hash the UTF-8 bytes to lowercase hex VARCHAR, NULL for NULL', () => {
  for (const name of ['md5', 'sha1', 'sha256']) {
    assert.equal(resultType(name, ['STRING']), 'VARCHAR');
    assert.equal(resultType(name, ['VARCHAR']), 'VARCHAR');
  }
  assert.deepEqual(call('md5', [strs(['abc', '', null])]), [
    '900150983cd24fb0d6963f7d28e17f72',
    'd41d8cd98f00b204e9800998ecf8427e',
    null,
  ]);
  assert.deepEqual(call('sha1', [strs(['abc'], 'VARCHAR')]), ['a9993e364706816aba3e25717850c26c9cd0d89d']);
  assert.deepEqual(call('sha256', [strs(['', 'Zürich'], 'VARCHAR')]), [
    'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    '4251685e06cab635578c72b1f5f221e9840a05ac4d8f2404be4177aa87f9907d',
  ]);
});

test('length_bytes counts UTF-8 bytes (-1 for NULL); quote_ident quotes all but letters, digits, _ and $', () => {
  assert.deepEqual(call('length_bytes', [strs(['abc', 'é', '😀', null], 'VARCHAR')]), [3, 2, 4, -1]);
  assert.equal(resultType('length_bytes', ['VARCHAR']), 'INT');
  assert.deepEqual(call('quote_ident', [strs(['abc', 'a b', 'a"b', 'Ü_1$', '', '😀', null])]), [
    'abc',
    '"a b"',
    '"a""b"',
    'Ü_1$',
    '',
    '"😀"',
    null,
  ]);
  assert.equal(resultType('quote_ident', ['VARCHAR']), 'STRING');
});

test("typeof names its argument's type, NULL for a NULL literal", () => {
  assert.equal(resultType('typeof', ['INT']), 'STRING');
  assert.deepEqual(call('typeof', [ints([1, null])]), ['INT', 'INT']);
  assert.deepEqual(call('typeof', [strs(['a'], 'VARCHAR')]), ['VARCHAR']);
  assert.deepEqual(call('typeof', [nullArg(1)], ['NULL']), ['NULL']);
});
