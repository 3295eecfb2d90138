import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BasicAuth } from '../../lib/net/basic-auth.js';

const b64 = (s: string): string => 'Basic ' + Buffer.from(s).toString('base64');

test('is off when neither user nor password is set, on when both are, and refuses one without the other', () => {
  assert.equal(BasicAuth.fromConfig('', ''), null);
  assert.throws(() => BasicAuth.fromConfig('admin', ''), /needs both http\.user and http\.password/);
  assert.throws(() => BasicAuth.fromConfig('', 'x'), /needs both http\.user and http\.password/);
  assert.ok(BasicAuth.fromConfig('admin', 'x'));
});

test('accepts the credential whose password is everything after the first colon', () => {
  const a = new BasicAuth('admin', 'pa:ss:');
  assert.equal(a.check(b64('admin:pa:ss:')), true);
  assert.equal(a.check('basic ' + Buffer.from('admin:pa:ss:').toString('base64')), true, 'scheme is case-insensitive');
  assert.equal(a.check(b64('admin:pa:ss')), false);
  assert.equal(a.check(b64('admin:pa')), false);
  assert.equal(a.check(b64('admi:npa:ss:')), false);
  assert.equal(a.check(b64('adminpa:ss:')), false);
  assert.equal(a.check(undefined), false);
  assert.equal(a.check('Bearer abc'), false);
  assert.equal(a.check('Basic'), false);
  assert.equal(a.check(b64('admin:pa:ss:') + '\n'), true, 'trailing white space is ignored');
});

test('rejects a user name with a colon at construction', () => {
  assert.throws(() => new BasicAuth('a:b', 'x'), /colon/);
});
