// The one error -> HTTP answer mapper: the status comes from the code table,
// the condition's headers come along, and each kind of endpoint gets its body
// shape (main server JSON with or without the SQL text, QuestDB's text lines,
// /imp's {"status"} or 200 line, the health server's content types).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ERROR_STATUS, SvcError } from '../../lib/errors/svc-error.js';
import { errorAnswer } from '../../lib/net/error-answer.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const TEXT_TYPE = 'text/plain; charset=utf-8';

test('SQL endpoints answer {query, error, position}: the position of the error, 0 for a whole-statement one', () => {
  const sql = new SvcError('SQL', 'Invalid column: nosuch', { position: 7 });
  assert.deepEqual(errorAnswer(sql, { kind: 'main', query: 'select nosuch from t' }), {
    status: 400,
    headers: { 'Content-Type': JSON_TYPE },
    body: '{"query":"select nosuch from t","error":"Invalid column: nosuch","position":7}',
  });
  const timeout = new SvcError('TIMEOUT', 'timeout, query aborted [timeout=10ms]');
  assert.equal(
    errorAnswer(timeout, { kind: 'main', query: 'select 1' }).body,
    '{"query":"select 1","error":"timeout, query aborted [timeout=10ms]","position":0}',
  );
  // The query is echoed as it was sent, even an empty one.
  assert.equal(
    errorAnswer(new SvcError('BAD_REQUEST', 'No query text', { position: 0 }), { kind: 'main', query: '' }).body,
    '{"query":"","error":"No query text","position":0}',
  );
  const limit = new SvcError('VALUE_LIMIT', 'breached memory limit set for lpad', { position: 7 });
  assert.equal(errorAnswer(limit, { kind: 'main', query: 'q' }).status, 400);
});

test('other main-server errors are {error} (position only when known), with the headers their condition needs', () => {
  assert.deepEqual(errorAnswer(new SvcError('BAD_REQUEST', 'malformed request target'), { kind: 'main' }), {
    status: 400,
    headers: { 'Content-Type': JSON_TYPE },
    body: '{"error":"malformed request target"}',
  });
  const auth = errorAnswer(
    new SvcError('UNAUTHORIZED', 'unauthorized', { headers: { 'WWW-Authenticate': 'Basic realm="svcdb"' } }),
    { kind: 'main' },
  );
  assert.deepEqual(auth, {
    status: 401,
    headers: { 'WWW-Authenticate': 'Basic realm="svcdb"', 'Content-Type': JSON_TYPE },
    body: '{"error":"unauthorized"}',
  });
  const busy = errorAnswer(new SvcError('UNAVAILABLE', 'server busy', { headers: { 'Retry-After': '1' } }), {
    kind: 'main',
  });
  assert.equal(busy.status, 503);
  assert.equal(busy.headers['Retry-After'], '1');
  assert.equal(errorAnswer(new SvcError('DISK_FULL', 'disk full'), { kind: 'main' }).status, 507);
  assert.equal(
    errorAnswer(new SvcError('LIMIT', 'x [limit=query.memory.limit]', { position: 3 }), { kind: 'main' }).body,
    '{"error":"x [limit=query.memory.limit]","position":3}',
  );
});

test("the HTTP layer's 404 and 405 are QuestDB's text lines", () => {
  assert.deepEqual(errorAnswer(new SvcError('NOT_FOUND', 'Not Found', { plainText: true }), { kind: 'main' }), {
    status: 404,
    headers: { 'Content-Type': TEXT_TYPE },
    body: 'Not Found\r\n',
  });
  assert.deepEqual(
    errorAnswer(
      new SvcError('METHOD_NOT_ALLOWED', 'Method PUT not supported', { headers: { Allow: 'GET' }, plainText: true }),
      { kind: 'main' },
    ),
    { status: 405, headers: { Allow: 'GET', 'Content-Type': TEXT_TYPE }, body: 'Method PUT not supported\r\n' },
  );
});

test('/imp answers {"status"} with the status for fmt=json, the line with 200 otherwise; a non-multipart body is a 400 line', () => {
  const e = new SvcError(
    'LIMIT',
    'the file has 11 columns, more than the limit of 10 [limit=import.max.columns, table=t]',
  );
  assert.deepEqual(errorAnswer(e, { kind: 'import', json: true }), {
    status: 400,
    headers: { 'Content-Type': JSON_TYPE },
    body: JSON.stringify({ status: e.message }),
  });
  assert.deepEqual(errorAnswer(e, { kind: 'import', json: false }), {
    status: 200,
    headers: { 'Content-Type': TEXT_TYPE },
    body: `${e.message}\r\n`,
  });
  assert.equal(errorAnswer(new SvcError('DISK_FULL', 'disk full'), { kind: 'import', json: true }).status, 507);
  const notMultipart = new SvcError('BAD_REQUEST', 'Non-multipart POST not supported', { plainText: true });
  for (const json of [true, false]) {
    assert.deepEqual(errorAnswer(notMultipart, { kind: 'import', json }), {
      status: 400,
      headers: { 'Content-Type': TEXT_TYPE },
      body: 'Non-multipart POST not supported\r\n',
    });
  }
});

test('the health server answers {error} as application/json and text lines as text/plain', () => {
  assert.deepEqual(
    errorAnswer(new SvcError('NOT_FOUND', 'metrics are disabled [metrics.enabled=false]'), { kind: 'health' }),
    {
      status: 404,
      headers: { 'Content-Type': 'application/json' },
      body: '{"error":"metrics are disabled [metrics.enabled=false]"}',
    },
  );
  assert.deepEqual(
    errorAnswer(
      new SvcError('METHOD_NOT_ALLOWED', 'Method POST not supported', {
        headers: { Allow: 'GET, HEAD' },
        plainText: true,
      }),
      { kind: 'health' },
    ),
    {
      status: 405,
      headers: { Allow: 'GET, HEAD', 'Content-Type': 'text/plain' },
      body: 'Method POST not supported\r\n',
    },
  );
  assert.equal(errorAnswer(new SvcError('URI_TOO_LONG', 'URL too long'), { kind: 'health' }).status, 414);
});

test('every code answers the status of the code table, in every shape but /imp text', () => {
  for (const [code, status] of Object.entries(ERROR_STATUS)) {
    const e = new SvcError(code as keyof typeof ERROR_STATUS, 'm');
    for (const shape of [{ kind: 'main' }, { kind: 'health' }, { kind: 'import', json: true }] as const)
      assert.equal(errorAnswer(e, shape).status, status, `${code} ${shape.kind}`);
  }
  assert.equal(ERROR_STATUS.REQUEST_TIMEOUT, 408);
  assert.equal(ERROR_STATUS.PAYLOAD_TOO_LARGE, 413);
});
