// End-to-end: the built server as a child process, talked to over HTTP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

const LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z [ACEID] \S+ .*$/;

async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const r = await request(url, { headers });
  return { status: r.statusCode, headers: r.headers, body: await r.body.text() };
}

function basic(user: string, password: string): Record<string, string> {
  return { authorization: 'Basic ' + Buffer.from(`${user}:${password}`).toString('base64') };
}

describe('a server with default settings', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startServer();
  });
  after(async () => {
    await s.stop();
  });

  test('answers the health check on any path with Status: Healthy, chunked text', async () => {
    for (const path of ['/', '/status', '/a/b/c?x=1']) {
      const r = await get(s.healthUrl + path);
      assert.equal(r.status, 200);
      assert.equal(r.body, 'Status: Healthy');
      assert.match(String(r.headers['content-type']), /^text\/plain/);
      assert.equal(r.headers['transfer-encoding'], 'chunked');
    }
  });

  test("answers other methods on the health port with 405, Allow and QuestDB's text line", async () => {
    for (const method of ['POST', 'PUT', 'DELETE']) {
      const r = await fetch(s.healthUrl + '/', { method });
      assert.equal(r.status, 405);
      assert.equal(r.headers.get('allow'), 'GET, HEAD');
      assert.match(String(r.headers.get('content-type')), /^text\/plain/);
      assert.equal(await r.text(), `Method ${method} not supported\r\n`);
    }
  });

  test('reports every component READY in registration order with its dependencies', async () => {
    const r = await get(s.healthUrl + '/lifecycle');
    assert.equal(r.status, 200);
    assert.equal(r.headers['transfer-encoding'], 'chunked');
    const report = JSON.parse(r.body) as { capturedAtMicros: number; components: Array<Record<string, unknown>> };
    assert.ok(Math.abs(report.capturedAtMicros / 1000 - Date.now()) < 60_000);
    assert.deepEqual(
      report.components.map((c) => c.name),
      ['metrics', 'http.min', 'storage', 'http'],
    );
    assert.deepEqual(report.components[3]!.hardRequiredDependencies, ['storage']);
    assert.deepEqual(report.components[2]!.softDependencies, ['http.min']);
    for (const c of report.components) {
      assert.equal(c.state, 'READY');
      assert.equal(c.latestProgress, null);
      assert.equal(typeof c.lastTransitionMicros, 'number');
      assert.ok(Array.isArray(c.hardRequiredDependencies));
    }
    assert.deepEqual(report.components[1]!.softDependencies, ['metrics']);
  });

  test('answers 404 on /metrics while metrics are disabled', async () => {
    const r = await get(s.healthUrl + '/metrics');
    assert.equal(r.status, 404);
    assert.match(r.body, /metrics.enabled/);
  });

  test("answers an unknown path on the main port with QuestDB's 404 text line", async () => {
    const r = await get(s.mainUrl + '/no/such/path');
    assert.equal(r.status, 404);
    assert.match(String(r.headers['content-type']), /^text\/plain/);
    assert.equal(r.body, 'Not Found\r\n');
  });

  test('does not serve the debug endpoints unless they are enabled', async () => {
    assert.equal((await get(s.mainUrl + '/debug/fault')).status, 404);
  });

  test('writes SPEC.md log lines to standard output and to log/stdout-<timestamp>.txt', async () => {
    const files = readdirSync(join(s.root, 'log'));
    const console = files.find((f) => /^stdout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.txt$/.test(f));
    assert.ok(console, `no stdout-<ts>.txt in ${files.join(', ')}`);
    const lines = s.stdout().trim().split('\n');
    for (const l of lines) assert.match(l, LINE);
    assert.ok(lines.some((l) => / A server-main http server listening on /.test(l)));
    assert.ok(lines.some((l) => / I server-main component http: STARTING -> READY/.test(l)));
    const text = readFileSync(join(s.root, 'log', console), 'utf8');
    assert.ok(text.includes('server is ready'));
  });

  test('creates conf/server.conf with every key documented and conf/log.conf', () => {
    const conf = readFileSync(join(s.root, 'conf', 'server.conf'), 'utf8');
    for (const k of ['http.net.bind.to', 'http.min.net.bind.to', 'metrics.enabled', 'query.timeout']) {
      assert.match(conf, new RegExp(`^#${k.replace(/\./g, '\\.')}=`, 'm'));
    }
    assert.ok(existsSync(join(s.root, 'conf', 'log.conf')));
    assert.ok(existsSync(join(s.root, 'db')));
  });
});

describe('a server with metrics, the pessimistic check and the debug endpoints', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startServer({
      env: {
        SVC_METRICS_ENABLED: 'true',
        SVC_HTTP_PESSIMISTIC_HEALTH_CHECK_ENABLED: 'true',
        SVC_HTTP_DEBUG_ENDPOINTS_ENABLED: 'true',
      },
    });
  });
  after(async () => {
    await s.stop();
  });

  test('serves Prometheus text with the svc_ metrics', async () => {
    await get(s.mainUrl + '/nope');
    const r = await get(s.healthUrl + '/metrics');
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(r.body, /^# TYPE svc_unhandled_errors_total counter$/m);
    assert.match(r.body, /^svc_unhandled_errors_total 0$/m);
    assert.match(r.body, /^svc_http_requests_total\{server="main",endpoint="other",method="GET",status="404"\} [1-9]/m);
    assert.match(r.body, /^svc_http_request_duration_seconds_bucket\{le="0\.005",server="main",endpoint="other"\} /m);
    assert.match(r.body, /^svc_process_cpu_user_seconds_total /m);
    assert.match(r.body, /^svc_nodejs_eventloop_lag_seconds /m);
  });

  test('an unhandled handler error answers 500, is counted and logged critical, and the server keeps serving', async () => {
    const before = await get(s.healthUrl + '/');
    assert.equal(before.status, 200);
    const r = await get(s.mainUrl + '/debug/fault?kind=reject&message=boom-42');
    assert.equal(r.status, 500);
    assert.deepEqual(JSON.parse(r.body), { error: 'internal error' });
    assert.doesNotMatch(r.body, /boom-42|at /, 'no message or stack of the internal error in the response');
    await s.waitForLine(/ C http-server unhandled error in GET \/debug\/fault: Error: boom-42/);
    const m = await get(s.healthUrl + '/metrics');
    assert.match(m.body, /^svc_unhandled_errors_total 1$/m);
    const h = await get(s.healthUrl + '/anything');
    assert.equal(h.status, 500);
    assert.match(h.body, /^Status: Unhealthy\nUnhandled errors: 1/);
    assert.equal((await get(s.mainUrl + '/nope')).status, 404, 'the main server still answers');
  });

  test('a bad debug parameter is a 400 with a JSON error, not an unhandled error', async () => {
    const r = await get(s.mainUrl + '/debug/fault?kind=nonsense');
    assert.equal(r.status, 400);
    assert.match(JSON.parse(r.body).error, /invalid kind/);
  });

  test('the health server answers while the main event loop is blocked', async () => {
    const order: string[] = [];
    const blocked = await request(s.mainUrl + '/debug/block?ms=1500');
    assert.equal(blocked.statusCode, 200, 'the block has begun');
    const lifecycle = await get(s.healthUrl + '/lifecycle');
    order.push('lifecycle');
    assert.equal(lifecycle.status, 200);
    assert.match(await blocked.body.text(), /unblocked/);
    order.push('block');
    assert.deepEqual(order, ['lifecycle', 'block']);
  });
});

describe('basic authentication', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startServer({
      env: { SVC_HTTP_USER: 'admin', SVC_HTTP_PASSWORD: 'p:a:ss', SVC_METRICS_ENABLED: 'true' },
    });
  });
  after(async () => {
    await s.stop();
  });

  test('asks for credentials with 401 and WWW-Authenticate on the main port', async () => {
    for (const headers of [
      {},
      basic('admin', 'wrong'),
      basic('other', 'p:a:ss'),
      { authorization: 'Bearer x' },
      { authorization: 'Basic !!!' },
    ]) {
      const r = await get(s.mainUrl + '/nope', headers);
      assert.equal(r.status, 401);
      assert.match(String(r.headers['www-authenticate']), /^Basic realm="svcdb"/);
      assert.deepEqual(JSON.parse(r.body), { error: 'unauthorized' });
    }
  });

  test('accepts the right credentials, the password being everything after the first colon', async () => {
    assert.equal((await get(s.mainUrl + '/nope', basic('admin', 'p:a:ss'))).status, 404);
  });

  test('guards the health server too by default', async () => {
    for (const path of ['/', '/lifecycle', '/metrics']) {
      assert.equal((await get(s.healthUrl + path)).status, 401);
      assert.equal((await get(s.healthUrl + path, basic('admin', 'p:a:ss'))).status, 200);
    }
  });

  test('leaves the health server open when http.health.check.authentication.required=false', async () => {
    const open = await startServer({
      env: { SVC_HTTP_USER: 'admin', SVC_HTTP_PASSWORD: 'x', SVC_HTTP_HEALTH_CHECK_AUTHENTICATION_REQUIRED: 'false' },
    });
    try {
      assert.equal((await get(open.healthUrl + '/')).status, 200);
      assert.equal((await get(open.mainUrl + '/')).status, 401);
    } finally {
      await open.stop();
    }
  });
});

describe('a server whose database holds a corrupt table', () => {
  test('starts with the storage component DEGRADED, logs the table critical, and keeps serving', async () => {
    const { makeRoot } = await import('../helpers/server-process.js');
    const { Catalog } = await import('../../lib/storage/catalog.js');
    const { writeFileSync } = await import('node:fs');
    const root = makeRoot();
    const c = Catalog.open(join(root, 'db'), {
      commitMode: 'nosync',
      writerWaitMs: 100,
      readerCacheSize: 1 << 20,
      maxUncommittedRows: 1000,
      o3MaxLag: 0,
    });
    c.create({ name: 'good', columns: [{ name: 'x', type: 'INT' }] });
    c.create({ name: 'bad', columns: [{ name: 'x', type: 'INT' }] });
    c.close();
    writeFileSync(join(root, 'db', 'bad', '_txn'), 'garbage');
    const s = await startServer({ root });
    try {
      const r = await get(s.healthUrl + '/lifecycle');
      const storage = (JSON.parse(r.body) as { components: Array<{ name: string; state: string }> }).components.find(
        (x) => x.name === 'storage',
      );
      assert.equal(storage?.state, 'DEGRADED');
      assert.match(s.stdout(), / C storage cannot open table bad: cannot read table file \S+_txn: not valid JSON/);
      assert.match(s.stdout(), / A storage database \S+: 1 tables open, 1 unusable/);
      assert.equal((await get(s.healthUrl + '/')).status, 200);
      assert.equal((await get(s.mainUrl + '/nope')).status, 404);
    } finally {
      await s.stop();
    }
  });
});
