import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JsonSyntaxError, JsonTokenizer, type JsonTokenSink } from '../../lib/export/json-tokenizer.js';

/** Every token as a line: `{`, `}`, `[`, `]`, `key:name`, `str:value`, `num:text`, `lit:value`. */
function tokens(input: Buffer, chunk: number): string[] {
  const out: string[] = [];
  const sink: JsonTokenSink = {
    startObject: () => out.push('{'),
    endObject: () => out.push('}'),
    startArray: () => out.push('['),
    endArray: () => out.push(']'),
    key: (k) => out.push(`key:${k}`),
    string: (v) => out.push(`str:${v}`),
    number: (t) => out.push(`num:${t}`),
    literal: (v) => out.push(`lit:${String(v)}`),
  };
  const t = new JsonTokenizer(sink);
  for (let i = 0; i < input.length; i += chunk) t.write(input.subarray(i, i + chunk));
  t.end();
  return out;
}

const DOC = Buffer.from(
  '{"query":"select \\"x\\"\\n","columns":[{"name":"é€😀","type":"LONG"}],' +
    '"dataset":[[9007199254740993,-9223372036854775808,1.0E-5,-0.0,null,true,false,"a\\u0000\\ud83d\\ude00b",[1,{"k":2}]]],"count":1}',
);

const WANT = [
  '{',
  'key:query',
  'str:select "x"\n',
  'key:columns',
  '[',
  '{',
  'key:name',
  'str:é€😀',
  'key:type',
  'str:LONG',
  '}',
  ']',
  'key:dataset',
  '[',
  '[',
  'num:9007199254740993',
  'num:-9223372036854775808',
  'num:1.0E-5',
  'num:-0.0',
  'lit:null',
  'lit:true',
  'lit:false',
  'str:a\u0000😀b',
  '[',
  'num:1',
  '{',
  'key:k',
  'num:2',
  '}',
  ']',
  ']',
  ']',
  'key:count',
  'num:1',
  '}',
];

test('keeps numbers as written and decodes strings, in chunks of every size down to one byte', () => {
  for (const chunk of [1, 2, 3, 5, 7, 16, 64, DOC.length])
    assert.deepEqual(tokens(DOC, chunk), WANT, `chunks of ${chunk}`);
});

test('emits a number that ends the input', () => {
  assert.deepEqual(tokens(Buffer.from('12345678901234567890'), 3), ['num:12345678901234567890']);
});

test('rejects malformed or cut input with the byte offset', () => {
  for (const [text, re] of [
    ['{"a":1', /ends early/],
    ['{"a":"b', /ends early/],
    ['[1,2}', /unexpected '}'/],
    ['[nul]', /unexpected 'nul'/],
    ['[1,@]', /unexpected byte 0x40/],
    ['["\\x"]', /bad escape/],
    ['[tru', /ends inside a literal/],
  ] as const) {
    assert.throws(
      () => tokens(Buffer.from(text), 1),
      (e: unknown) => e instanceof JsonSyntaxError && re.test(e.message),
      text,
    );
  }
  assert.throws(() => tokens(Buffer.from('[1,@]'), 100), /at byte 3/);
});
