// End-to-end: the svcdb command line and the server process lifecycle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { request } from 'undici';
import { CLI, makeRoot, startServer } from '../helpers/server-process.js';
import { VERSION } from '../../lib/version.js';

const run = promisify(execFile);

async function runCli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH, ...env }, timeout: 20_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

test('prints its version and its help', async () => {
  assert.equal((await runCli(['--version'])).stdout, `svcdb ${VERSION}\n`);
  const help = await runCli(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /svcdb serve \[-d <root>\] +Start the server/);
  assert.match(
    (await runCli(['serve', '--help'])).stdout,
    /svcdb serve \[-d <root>\] \[--service\] \[-Dout=<log\.conf>\] \[-Debug\]/,
  );
  const bad = await runCli(['frobnicate']);
  assert.equal(bad.code, 1);
  assert.equal(bad.stderr, 'svcdb: unknown command frobnicate (see svcdb --help)\n');
});

test('a bad configuration value stops startup with one line naming key and value', async () => {
  const root = makeRoot();
  const env = { SVC_HTTP_NET_BIND_TO: '0.0.0.0:99999' };
  const r = await runCli(['serve', '-d', root], env);
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    'svcdb: invalid value http.net.bind.to=0.0.0.0:99999 (environment variable SVC_HTTP_NET_BIND_TO): port out of range 0..65535\n',
  );
  writeFileSync(join(root, 'conf', 'server.conf'), 'http.min.enabled=perhaps\n');
  const r2 = await runCli(['serve', '-d', root]);
  assert.equal(r2.code, 1);
  assert.match(
    r2.stderr,
    /^svcdb: invalid value http\.min\.enabled=perhaps \(server\.conf line 1\): expected true or false\n$/,
  );
});

test('a bad log.conf stops startup with one line naming the writer property', async () => {
  const root = makeRoot();
  const r = await runCli(['serve', '-d', root], {
    SVC_LOG_W_STDOUT_LEVEL: 'CHATTY',
    SVC_HTTP_NET_BIND_TO: '127.0.0.1:0',
    SVC_HTTP_MIN_NET_BIND_TO: '127.0.0.1:0',
  });
  assert.equal(r.code, 1);
  assert.match(
    r.stderr,
    /^svcdb: log configuration \S+log\.conf: invalid value w\.stdout\.level=CHATTY: unknown level CHATTY/,
  );
  assert.equal(r.stderr.split('\n').length, 2);
});

test('a port in use stops startup with a clear line and exit code 1', async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const port = (blocker.address() as { port: number }).port;
  try {
    const r = await runCli(['serve', '-d', makeRoot()], {
      SVC_HTTP_NET_BIND_TO: `127.0.0.1:${port}`,
      SVC_HTTP_MIN_NET_BIND_TO: '127.0.0.1:0',
    });
    assert.equal(r.code, 1);
    assert.match(
      r.stderr,
      new RegExp(
        `^svcdb: cannot start http \\(http: port ${port} is already in use \\(127\\.0\\.0\\.1:${port}, another server listens there\\): stop the other server, or set http\\.net\\.bind\\.to in conf/server\\.conf or SVC_HTTP_NET_BIND_TO=<host:port>\\)\\n$`,
      ),
    );
    assert.match(r.stdout, / C server-main component http: STARTING -> FAILED/);
    assert.match(r.stdout, / I server-main component http\.min: READY -> STOPPING/, 'what started is stopped again');
  } finally {
    blocker.close();
  }
});

test('logs unknown server.conf keys as advisory and starts anyway', async () => {
  const s = await startServer({ files: { 'conf/server.conf': 'cairo.future.key=1\n' } });
  try {
    assert.match(s.stdout(), / A server-main unknown server\.conf key ignored: cairo\.future\.key/);
  } finally {
    await s.stop();
  }
});

test('SIGTERM lets an in-flight request finish, stops components in reverse order and exits 0', async () => {
  const s = await startServer({ env: { SVC_HTTP_DEBUG_ENDPOINTS_ENABLED: 'true' } });
  const res = await request(`${s.mainUrl}/debug/sleep?ms=800`);
  assert.equal(res.statusCode, 200);
  s.child.kill('SIGTERM');
  assert.equal(await res.body.text(), 'sleeping\ndone\n');
  assert.equal(await s.stop(), 0);
  const out = s.stdout();
  const order = [
    'http: READY -> STOPPING',
    'http: STOPPING -> STOPPED',
    'http.min: READY -> STOPPING',
    'metrics: STOPPING -> STOPPED',
    'A server-main stopped',
  ].map((x) => out.indexOf(x));
  assert.ok(
    order.every((i, k) => i > 0 && (k === 0 || i > order[k - 1]!)),
    `order ${order}`,
  );
});

test('past the shutdown grace period in-flight requests are aborted and the server still exits 0', async () => {
  const s = await startServer({
    env: { SVC_HTTP_DEBUG_ENDPOINTS_ENABLED: 'true', SVC_HTTP_SHUTDOWN_GRACE_PERIOD: '200ms' },
  });
  const res = await request(`${s.mainUrl}/debug/sleep?ms=60000`);
  s.child.kill('SIGINT');
  const body = await res.body.text().catch(() => 'connection closed');
  assert.ok(body === 'sleeping\naborted\n' || body === 'connection closed', body);
  assert.equal(await s.stop(), 0);
});

test('--service writes console lines to log/service-<timestamp>.txt and not to standard output', async () => {
  const s = await startServer({ args: ['--service'], noWait: true });
  const root = s.root;
  try {
    const deadline = Date.now() + 15_000;
    let text = '';
    while (!text.includes('server is ready') && Date.now() < deadline) {
      const f = existsSync(join(root, 'log'))
        ? readdirSync(join(root, 'log')).find((n) => n.startsWith('service-'))
        : undefined;
      text = f ? readFileSync(join(root, 'log', f), 'utf8') : '';
      if (!text.includes('server is ready')) await new Promise((r) => setTimeout(r, 50));
    }
    assert.match(text, / A server-main server is ready/);
    assert.equal(s.stdout(), '');
    assert.ok(!readdirSync(join(root, 'log')).some((n) => n.startsWith('stdout-')));
  } finally {
    await s.stop();
  }
});

test('-Debug and SVC_DEBUG=true turn on debug lines; -Dout picks the log.conf', async () => {
  const root = makeRoot();
  const conf = join(root, 'my-log.conf');
  writeFileSync(conf, 'writers=stdout\nw.stdout.class=io.svc.log.LogConsoleWriter\nw.stdout.level=ADVISORY\n');
  const s = await startServer({ root, args: ['-Debug', `-Dout=${conf}`] });
  const h = await request(`${s.healthUrl}/`);
  await h.body.dump();
  await s.stop();
  assert.match(s.stdout(), / D http-min-server GET health 200/);
  assert.doesNotMatch(s.stdout(), / I /, 'INFO is not in this log.conf');
  assert.match(s.stdout(), /log\.conf: \S+my-log\.conf, debug on/);

  const s2 = await startServer({ env: { SVC_DEBUG: 'true' } });
  const h2 = await request(`${s2.healthUrl}/`);
  await h2.body.dump();
  await s2.stop();
  assert.match(s2.stdout(), / D http-min-server GET health 200/);
});

test('with http.min.worker.count=0 the health server runs in the main event loop', async () => {
  const s = await startServer({ env: { SVC_HTTP_MIN_WORKER_COUNT: '0', SVC_METRICS_ENABLED: 'true' } });
  try {
    assert.match(s.stdout(), /health server listening on \S+ \(main event loop\)/);
    for (const path of ['/', '/lifecycle', '/metrics']) {
      const r = await request(s.healthUrl + path);
      assert.equal(r.statusCode, 200);
      await r.body.dump();
    }
  } finally {
    await s.stop();
  }
});

test('http.min.enabled=false runs without a health server', async () => {
  const s = await startServer({ env: { SVC_HTTP_MIN_ENABLED: 'false' } });
  try {
    assert.doesNotMatch(s.stdout(), /health server listening/);
    const r = await request(`${s.mainUrl}/x`);
    assert.equal(r.statusCode, 404);
    await r.body.dump();
  } finally {
    await s.stop();
  }
});

test('svcdb query prints a table, CSV or JSON from a running server, and errors with their position', async () => {
  const s = await startServer({ env: { SVC_HTTP_USER: 'u', SVC_HTTP_PASSWORD: 'p:w' } });
  try {
    const host = s.mainUrl;
    const q = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
      runCli(['query', ...args, '--host', host, '--user', 'u:p:w']);
    assert.equal((await q(['create table cq (ts timestamp, s symbol, d double) timestamp(ts)'])).stdout, 'OK\n');
    await q(["insert into cq values ('2024-01-01', 'a', 1.5), ('2024-01-02', null, -20.25)"]);
    const table = await q(['select s, d from cq']);
    assert.equal(table.code, 0, table.stderr);
    assert.equal(table.stdout, 's    |      d\n-----+-------\na    |    1.5\nNULL | -20.25\n(2 rows)\n');
    const csv = await q(['select s, d from cq', '--format', 'csv']);
    assert.equal(csv.stdout, '"s","d"\n"a",1.5\n,-20.25\n');
    const json = await q(['select d from cq limit 1', '--format', 'json']);
    assert.deepEqual(JSON.parse(json.stdout).dataset, [[1.5]]);
    assert.equal((await q(["update cq set d = 0 where s = 'a'"])).stdout, 'OK (1 rows updated)\n');
    const bad = await q(['select nope from cq']);
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'select nope from cq\n       ^\nsvcdb: Invalid column: nope [position=7]\n');
    const unauthorized = await runCli(['query', 'select 1', '--host', host]);
    assert.equal(unauthorized.code, 1);
    assert.match(
      unauthorized.stderr,
      /^svcdb: http:\/\/\S+ needs credentials: --user <user:password> or SVCDB_AUTH=<user:password>\n$/,
    );
    const usage = await runCli(['query', 'select 1', '--format', 'xml']);
    assert.equal(usage.code, 1);
    assert.match(usage.stderr, /--format must be one of table, csv, json, line/);
  } finally {
    await s.stop();
  }
  const gone = await runCli(['query', 'select 1', '--host', s.mainUrl]);
  assert.equal(gone.code, 1);
  assert.match(gone.stderr, /^svcdb: cannot reach/);
});
