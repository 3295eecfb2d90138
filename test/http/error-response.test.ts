import { test } from 'node:test';
import assert from 'node:assert/strict';
import { asSvcError, errorClass } from '../../lib/http/error-response.js';
import { SvcError } from '../../lib/errors/svc-error.js';

test("classes errors: 4xx are the client's, 503 and 507 the environment's, 500 and foreign errors internal", () => {
  assert.equal(errorClass(new SvcError('SQL', 'bad')), 'client');
  assert.equal(errorClass(new SvcError('HEADERS_TOO_LARGE', 'long')), 'client');
  assert.equal(errorClass(new SvcError('DISK_FULL', 'full')), 'environment');
  assert.equal(errorClass(new SvcError('UNAVAILABLE', 'shutting down')), 'environment');
  assert.equal(errorClass(new SvcError('INTERNAL', 'bug')), 'internal');
  assert.equal(errorClass(new TypeError('x is undefined')), 'internal');
  assert.equal(errorClass('a string'), 'internal');
});

test('reads a raw ENOSPC or EDQUOT from any layer as disk full (507)', () => {
  for (const code of ['ENOSPC', 'EDQUOT']) {
    const raw = Object.assign(new Error(`${code}: no space left on device, write`), { code });
    const e = asSvcError(raw);
    assert.ok(e instanceof SvcError);
    assert.equal(e.status, 507);
    assert.equal(e.cause, raw);
    assert.equal(errorClass(raw), 'environment');
  }
  const other = Object.assign(new Error('EACCES'), { code: 'EACCES' });
  assert.equal(asSvcError(other), other);
});

test('reads running out of file descriptors (EMFILE, ENFILE) as unavailable (503), an environment condition', () => {
  for (const code of ['EMFILE', 'ENFILE']) {
    const raw = Object.assign(new Error(`${code}: too many open files, open`), { code });
    const e = asSvcError(raw);
    assert.ok(e instanceof SvcError);
    assert.equal(e.status, 503);
    assert.match(e.message, /too many open files/);
    assert.equal(errorClass(raw), 'environment');
  }
});
