// json_extract (functions/json.ts: the path parser, the scanner that keeps values' text, the
// typed conversions) and the nanosecond helpers of functions/time-ns.ts: nanos, to_timestamp_ns,
// to_pg_date, called through the registry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, resultType, strs } from './helpers.js';
import { jsonAt, parseJsonPath } from '../../lib/functions/json.js';
import { formatTimestampNs, pairsOf } from '../../lib/core/nanos.js';
import { run } from './helpers.js';

test('parses $, .field and [n] steps; other shapes are no path', () => {
  assert.deepEqual(parseJsonPath('$'), []);
  assert.deepEqual(parseJsonPath(''), []);
  assert.deepEqual(parseJsonPath('$.a[2].b'), ['a', 2, 'b']);
  assert.deepEqual(parseJsonPath('.path2[2]'), ['path2', 2]);
  assert.deepEqual(parseJsonPath('[0][1]'), [0, 1]);
  assert.equal(parseJsonPath('a'), null);
  assert.equal(parseJsonPath('$.'), null);
  assert.equal(parseJsonPath('$[x]'), null);
  assert.equal(parseJsonPath('$[1'), null);
});

test('finds values and keeps their text as written', () => {
  const at = (doc: string, path: string): string | null => {
    const v = jsonAt(doc, parseJsonPath(path)!);
    return v === null ? null : v.text;
  };
  assert.equal(at('{"a": 100000000000000000000000000}', '.a'), '100000000000000000000000000');
  assert.equal(at('{"a": 1e400}', '.a'), '1e400');
  assert.equal(at('{"a": [ 1 ,\n 2 ]}', '.a'), '[ 1 ,\n 2 ]');
  assert.equal(at('{"a": "\\u00e9\\n\\"x"}', '.a'), 'é\n"x');
  assert.equal(at('{"a\\u0062": 1}', '.ab'), '1');
  assert.equal(at('{"a": {"b": [0, [1, {"c": false}]]}}', '.a.b[1][1].c'), 'false');
  assert.equal(at('[[], {}, ""]', '[1]'), '{}');
  assert.equal(at('[[], {}, ""]', '[2]'), '');
  assert.equal(at('{"a": 1}', '[0]'), null);
  assert.equal(at('[1]', '.a'), null);
  assert.equal(at('[1]', '[1]'), null);
  assert.equal(at('{}', '.a'), null);
  assert.equal(at('[]', '[0]'), null);
  assert.equal(at('"top"', '$'), 'top');
});

test('a malformed document anywhere has no values', () => {
  for (const doc of [
    '',
    '{',
    '{"a": 1',
    '{"a": 1,}',
    '[1,]',
    '{"a" 1}',
    '{a: 1}',
    '{"a": 01}',
    '{"a": 1.}',
    '{"a": tru}',
    '{"a": "x\\q"}',
    '{"a": "\u0001"}',
    '{"a": 1} x',
    '{"a": 1}}',
    '[1] [2]',
    "{'a': 1}",
  ])
    assert.equal(jsonAt(doc, ['a']), null, doc);
});

test('deep nesting costs no call stack', () => {
  const deep = '['.repeat(200_000) + ']'.repeat(200_000);
  assert.equal(jsonAt(deep, [0, 0])?.text.length, 2 * (200_000 - 2));
  assert.equal(jsonAt('['.repeat(200_000), []), null);
});

test('json_extract through the registry: text, NULLs, a path per row', () => {
  assert.equal(resultType('json_extract', ['VARCHAR', 'STRING']), 'VARCHAR');
  assert.deepEqual(
    call('json_extract', [
      strs(['{"path": 123}', '{}', '{"path": null}', null, '{"path": "s"}'], 'VARCHAR'),
      strs(['.path', '.path', '.path', '.path', null]),
    ]),
    ['123', null, null, null, null],
  );
});

test('nanos: the nanoseconds within the microsecond', () => {
  assert.equal(resultType('nanos', ['TIMESTAMP_NS']), 'INT');
  assert.equal(resultType('nanos', ['TIMESTAMP']), 'INT');
  const ns = run('to_timestamp_ns', [
    strs(['2020-03-01:15:43:21.123456789', '2020-03-01:15:43:21.000000001', 'bad', null]),
    strs(['yyyy-MM-dd:HH:mm:ss.SSSUUUNNN', 'yyyy-MM-dd:HH:mm:ss.SSSUUUNNN', 'yyyy', 'yyyy']),
  ]);
  assert.equal(ns.type, 'TIMESTAMP_NS');
  const p = pairsOf(ns);
  assert.equal(formatTimestampNs(p[0]!, p[1]!), '2020-03-01T15:43:21.123456789Z');
  assert.deepEqual(call('nanos', [ns]), [789, 1, null, null]);
});

test('to_timestamp_ns reads N digits, N+ and fewer fraction digits', () => {
  const text = (s: string, pattern: string): string | null => {
    const v = run('to_timestamp_ns', [strs([s]), strs([pattern])]);
    const p = pairsOf(v);
    return p[1] === -2147483648 && p[0] === 0 ? null : formatTimestampNs(p[0]!, p[1]!);
  };
  assert.equal(text('2020-03-01 1.5', 'yyyy-MM-dd s.N+'), '2020-03-01T00:00:01.500000000Z');
  assert.equal(text('2020-03-01 1.123456789', 'yyyy-MM-dd s.N+'), '2020-03-01T00:00:01.123456789Z');
  assert.equal(text('2020-03-01 1.12345678', 'yyyy-MM-dd s.SSSUUUN'), '2020-03-01T00:00:01.123456780Z');
  assert.equal(text('2020-03-01 1.12345678', 'yyyy-MM-dd s.SSSUUUNNN'), null);
  assert.equal(text('2020-03-01', 'yyyy-MM-dd HH'), null);
});

test('to_pg_date reads y-MM-dd only', () => {
  assert.equal(resultType('to_pg_date', ['STRING']), 'DATE');
  assert.deepEqual(call('to_pg_date', [strs(['2023-01-15', '1970-01-02', '2023-02-30', '2023/01/15', null])]), [
    Date.UTC(2023, 0, 15),
    86_400_000,
    null,
    null,
    null,
  ]);
});
