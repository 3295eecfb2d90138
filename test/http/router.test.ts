import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Router, type Handler } from '../../lib/http/router.js';
import { SvcError } from '../../lib/errors/svc-error.js';

const h: Handler = () => {};

test('answers exact paths first, then the longest path prefix (the console files under /console/)', () => {
  const r = new Router()
    .add({ endpoint: 'page', paths: ['/'], methods: { GET: h } })
    .add({ endpoint: 'files', paths: [], prefixes: ['/console/'], methods: { GET: h, HEAD: h } })
    .add({ endpoint: 'fonts', paths: [], prefixes: ['/console/fonts/'], methods: { GET: h } })
    .add({ endpoint: 'exact', paths: ['/console/exact'], methods: { GET: h } });
  const endpoint = (m: string, p: string): string => {
    const got = r.resolve(m, p);
    return got instanceof SvcError ? `${got.status}` : got.endpoint;
  };
  assert.equal(endpoint('GET', '/'), 'page');
  assert.equal(endpoint('GET', '/console/app-X.js'), 'files');
  assert.equal(endpoint('HEAD', '/console/a/b.css'), 'files');
  assert.equal(endpoint('GET', '/console/fonts/a.woff2'), 'fonts');
  assert.equal(endpoint('GET', '/console/exact'), 'exact');
  assert.equal(endpoint('GET', '/console'), '404'); // the prefix needs its slash
  assert.equal(endpoint('GET', '/other'), '404');
  assert.equal(endpoint('POST', '/console/app-X.js'), '405');
  assert.equal(r.endpointOf('/console/x'), 'files');
  assert.equal(r.endpointOf('/nope'), 'other');
});

test('refuses a prefix twice or one without its trailing slash', () => {
  const r = new Router().add({ endpoint: 'a', paths: [], prefixes: ['/a/'], methods: { GET: h } });
  assert.throws(() => r.add({ endpoint: 'b', paths: [], prefixes: ['/a/'], methods: { GET: h } }), /defined twice/);
  assert.throws(() => r.add({ endpoint: 'c', paths: [], prefixes: ['/c'], methods: { GET: h } }), /must end with \//);
});
