import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProperties, propertiesToMap } from '../../lib/config/properties.js';

test('reads key=value, key: value and key value lines and skips # and ! comments', () => {
  const e = parseProperties('# comment\n! also\n\na=1\nb: 2\nc 3\n  d  =  four  \n');
  assert.deepEqual(
    e.map((x) => [x.key, x.value, x.line]),
    [
      ['a', '1', 4],
      ['b', '2', 5],
      ['c', '3', 6],
      ['d', 'four  ', 7],
    ],
  );
});

test('joins lines ending in a backslash and unescapes \\t \\n \\uXXXX and escaped separators', () => {
  const e = parseProperties('path=/a/\\\n    b\nk\\=ey=v\\:x\\u0041\\t!\nodd=\\\\\n');
  assert.deepEqual(
    e.map((x) => [x.key, x.value]),
    [
      ['path', '/a/b'],
      ['k=ey', 'v:xA\t!'],
      ['odd', '\\'],
    ],
  );
});

test('handles CRLF line ends and an empty value', () => {
  const e = parseProperties('a=1\r\nb=\r\nc\r\n');
  assert.deepEqual(
    e.map((x) => [x.key, x.value]),
    [
      ['a', '1'],
      ['b', ''],
      ['c', ''],
    ],
  );
});

test('keeps the last value of a repeated key', () => {
  const m = propertiesToMap(parseProperties('a=1\na=2\n'));
  assert.equal(m.get('a')?.value, '2');
  assert.equal(m.get('a')?.line, 2);
});
