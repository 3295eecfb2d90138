// Issue 15 items 8, 10 and the HTTP points of 11, the way a user meets them:
// half-enabled authentication through `svcdb serve`, the CLI's table for large
// results and exact digits, HEAD on statements, oversize and malformed HTTP on
// both ports, disk full. Servers run under the suite's address-space cap.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, openSync, closeSync, rmSync, statfsSync, writeSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { assertAlive, exec, send, startCappedServer, unhandledErrors } from '../helpers/reliability.js';
import { CLI, makeRoot, type ServerProcess } from '../helpers/server-process.js';

const run = promisify(execFile);

/** Runs the CLI; past `timeoutMs` it is killed (a `serve` that should have refused to start). */
async function runCli(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 60_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, ...env },
      timeout: timeoutMs,
      killSignal: 'SIGKILL',
      maxBuffer: 256 * 1024 * 1024,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

/** Sends raw bytes (in `pieces` writes) and returns everything the server answers before it closes. */
function raw(url: string, bytes: Buffer, pieces = 1): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname);
    socket.on('data', (d) => chunks.push(d));
    // The server may close while we still write: that is an answer too, not a failure.
    socket.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNRESET' || e.code === 'EPIPE') resolve(Buffer.concat(chunks).toString('latin1'));
      else reject(e);
    });
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.once('connect', async () => {
      const step = Math.ceil(bytes.length / pieces);
      for (let i = 0; i < bytes.length && !socket.destroyed; i += step) {
        await new Promise<void>((r) => socket.write(bytes.subarray(i, i + step), () => r()));
      }
      if (!socket.destroyed) socket.end();
    });
  });
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1] ?? NaN);
}

/** The JSON error of an answer, with a Content-Length or chunked body. */
function errorOf(answer: string): string {
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return (JSON.parse(body.slice(body.indexOf('{'), body.lastIndexOf('}') + 1)) as { error: string }).error;
}

describe('the HTTP edges of a capped server', () => {
  let s: ServerProcess;
  before(async () => {
    // The pessimistic health check is on: assertAlive's health check fails once anything counted as unhandled.
    s = await startCappedServer({ env: { SVC_HTTP_PESSIMISTIC_HEALTH_CHECK_ENABLED: 'true' } });
  });
  after(() => s.stop());

  test('HEAD on the SQL endpoints and /imp runs nothing: 405 with Allow, and the statement never happens', async () => {
    const before = await unhandledErrors(s);
    const create = encodeURIComponent('create table head_made (x int)');
    for (const path of [
      `/exec?query=${create}`,
      `/api/v1/sql/execute?query=${create}`,
      `/execute?query=${create}`,
      `/exp?query=${encodeURIComponent('select 1')}`,
      `/validate?query=${create}`,
    ]) {
      const r = await send(s.mainUrl + path, { method: 'HEAD' });
      assert.equal(r.status, 405, path);
      assert.equal(r.headers.allow, 'GET', path);
      assert.equal(r.text, '', 'no body to a HEAD');
    }
    const imp = await send(`${s.mainUrl}/imp?name=head_imp`, { method: 'HEAD' });
    assert.equal(imp.status, 405);
    assert.equal(imp.headers.allow, 'POST');
    const tables = await exec(s, "select table_name from tables() where table_name in ('head_made', 'head_imp')");
    assert.equal(tables.status, 200);
    assert.deepEqual((tables.json as { dataset: unknown[] }).dataset, [], 'HEAD created nothing');
    assert.equal(await unhandledErrors(s), before);
    await assertAlive(s, 'HEAD requests');
  });

  test('a URL past the limit gets 414 and header fields past theirs 431 saying headers, on both ports, whole or in pieces', async () => {
    const before = await unhandledErrors(s);
    const longUrl = (n: number): Buffer =>
      Buffer.from(`GET /exec?query=${'1'.repeat(n)} HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n`);
    const longHeader = (n: number): Buffer =>
      Buffer.from(
        `GET /exec?query=select%201 HTTP/1.1\r\nHost: a\r\nConnection: close\r\nX-Big: ${'x'.repeat(n)}\r\n\r\n`,
      );
    const manyHeaders = Buffer.from(
      `GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n${Array.from({ length: 4000 }, (_, i) => `X-H${i}: ${'y'.repeat(20)}\r\n`).join('')}\r\n`,
    );
    for (const base of [s.mainUrl, s.healthUrl]) {
      // 70 KB: past the main port's URL limit (64 KiB) but inside the parser's; 300 KB: past both.
      for (const [bytes, status, message] of [
        [longUrl(70_000), 414, /^URL too long/],
        [longUrl(300_000), 414, /^URL too long/],
        [longHeader(20_000), 431, /^request header fields too large/],
        [longHeader(300_000), 431, /^request header fields too large/],
        [manyHeaders, 431, /^request header fields too large/],
      ] as const) {
        for (const pieces of [1, 37]) {
          const answer = await raw(base, bytes, pieces);
          const what = `${base === s.mainUrl ? 'main' : 'health'} port, ${bytes.length} bytes in ${pieces} pieces`;
          assert.equal(statusOf(answer), status, `${what}: ${answer.slice(0, 200)}`);
          assert.match(errorOf(answer), message, what);
        }
      }
    }
    assert.equal(await unhandledErrors(s), before);
    await assertAlive(s, 'oversize requests');
  });

  test('malformed HTTP gets a 400 with a JSON error on both ports and is never counted as unhandled', async () => {
    const before = await unhandledErrors(s);
    const cases = [
      'GARBAGE\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: a\r\nContent-Length: nope\r\n\r\n',
      'GET / HTTP/9.9\r\nHost: a\r\n\r\n',
      'GET / HTTP/1.1\r\nBad Header Name: x\r\n\r\n',
    ];
    // A body is read by the main port's /imp only (the health port answers a POST 405 before any body).
    const badBody =
      'POST /imp HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\nContent-Type: multipart/form-data; boundary=x\r\n\r\nzz\r\n';
    for (const base of [s.mainUrl, s.healthUrl]) {
      for (const text of base === s.mainUrl ? [...cases, badBody] : cases) {
        const answer = await raw(base, Buffer.from(text));
        assert.equal(statusOf(answer), 400, `${JSON.stringify(text)}: ${answer.slice(0, 200)}`);
        assert.match(errorOf(answer), /^malformed HTTP request/);
      }
    }
    // A request target the URL parser refuses is the client's mistake too.
    const target = await raw(s.mainUrl, Buffer.from('GET //[ HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n'));
    assert.equal(statusOf(target), 400, target);
    assert.match(errorOf(target), /malformed request target/);
    assert.equal(await unhandledErrors(s), before);
    await assertAlive(s, 'malformed requests');
  });

  test('svcdb query prints 200,000 rows and the count as a table', async () => {
    const r = await runCli(['query', 'select x from long_sequence(200000)', '--host', s.mainUrl]);
    assert.equal(r.code, 0, r.stderr.slice(0, 2000));
    const lines = r.stdout.split('\n');
    assert.equal(lines.length, 200_004, 'header, rule, 200,000 rows, count, and the final newline');
    assert.equal(lines[0], '     x');
    assert.equal(lines[2], '     1');
    assert.equal(lines[200_001], '200000');
    assert.equal(lines[200_002], '(200000 rows)');
    await assertAlive(s, 'a large table');
  });

  test('svcdb query prints the digits the server sent: LONGs past 2^53, DOUBLEs as written, NULL as NULL', async () => {
    const sql =
      'select 9007199254740993L a, -9007199254740993L b, 9223372036854775807L c, cast(null as long) d, ' +
      '0.1 + 0.2 e, 1e-7 f, 123456789012345678.0 g';
    const json = await exec(s, sql);
    assert.equal(json.status, 200, json.text);
    // The numbers as the server wrote them in /exec's body.
    const written = /"dataset":\[\[(.*)\]\]/.exec(json.text)?.[1]?.split(',') ?? [];
    assert.deepEqual(written.slice(0, 4), ['9007199254740993', '-9007199254740993', '9223372036854775807', 'null']);
    const r = await runCli(['query', sql, '--host', s.mainUrl]);
    assert.equal(r.code, 0, r.stderr);
    const cells = r.stdout
      .split('\n')[2]!
      .split('|')
      .map((c) => c.trim());
    assert.deepEqual(
      cells,
      written.map((w) => (w === 'null' ? 'NULL' : w)),
      'every number as the server wrote it, NULL as NULL (apart from the text null)',
    );
  });
});

/** Mounts a small tmpfs at `dir`; false where mounting is not permitted. */
function mountTmpfs(dir: string, bytes: number): boolean {
  mkdirSync(dir, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir]).status === 0;
}

/** Fills the file system of `dir` up to its last byte. */
function fill(dir: string): void {
  const fd = openSync(join(dir, 'filler'), 'w');
  const block = Buffer.alloc(64 * 1024);
  try {
    for (;;) {
      const free = Number(statfsSync(dir).bavail) * Number(statfsSync(dir).bsize);
      if (free === 0) break;
      writeSync(fd, block, 0, Math.min(block.length, free));
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
  } finally {
    closeSync(fd);
  }
}

test('a full disk answers 507 to CREATE TABLE and INSERT, logged at error level and counted apart from unhandled errors', async (t) => {
  const root = makeRoot();
  const db = join(root, 'db');
  if (!mountTmpfs(db, 4 * 1024 * 1024)) {
    t.skip('a tmpfs cannot be mounted here (needs root)');
    return;
  }
  let s: ServerProcess | null = null;
  try {
    s = await startCappedServer({ root, env: { SVC_HTTP_PESSIMISTIC_HEALTH_CHECK_ENABLED: 'true' } });
    assert.equal((await exec(s, 'create table full_t (x long, s string)')).status, 200);
    fill(db);
    const before = await unhandledErrors(s);
    const ddl = await exec(s, 'create table full_ddl (x int)');
    assert.equal(ddl.status, 507, ddl.text);
    assert.match((ddl.json as { error: string }).error, /disk full/);
    const ins = await exec(s, "insert into full_t select x, rpad('a', 1000, 'b') from long_sequence(1000)");
    assert.equal(ins.status, 507, ins.text);
    assert.equal(await unhandledErrors(s), before, '507 is not an unhandled error');
    const m = await send(`${s.healthUrl}/metrics`);
    assert.match(m.text, /^svc_environment_errors_total\{code="DISK_FULL"\} 2$/m);
    assert.match(s.stdout(), / E http-server GET \/exec -> 507 /);
    assert.doesNotMatch(s.stdout(), / C http-server /, 'nothing logged critical (no alert)');
    rmSync(join(db, 'filler'));
    await assertAlive(s, 'disk full');
    assert.equal(
      (await exec(s, 'select count() from full_t')).text.includes('[[0]]'),
      true,
      'the failed insert left nothing',
    );
  } finally {
    await s?.stop();
    spawnSync('umount', [db]);
  }
});

test('a server whose standard output goes away keeps serving, counts nothing unhandled and stops on SIGTERM', async () => {
  const s = await startCappedServer();
  try {
    s.child.stdout!.destroy(); // as a supervisor that died, or execFile past its timeout, leaves it
    // Bounded requests: a server spinning on its own logging would never answer.
    const bounded = { headersTimeout: 10_000, bodyTimeout: 10_000 };
    for (let i = 0; i < 5; i++) {
      const r = await send(`${s.mainUrl}/exec?query=${encodeURIComponent('select 1')}`, bounded);
      assert.equal(r.status, 200, 'each request logs a line to the closed output');
    }
    const m = await send(`${s.healthUrl}/metrics`, bounded);
    assert.match(m.text, /^svc_unhandled_errors_total 0$/m);
    s.child.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<string>((resolve) => {
      timer = setTimeout(() => resolve('still running'), 15_000);
    });
    const outcome = await Promise.race([s.exited.then((code) => `exit ${code}`), bound]);
    clearTimeout(timer);
    assert.equal(outcome, 'exit 0');
  } finally {
    if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await s.exited;
  }
});

describe('half-enabled authentication', () => {
  const env = { SVC_HTTP_NET_BIND_TO: '127.0.0.1:0', SVC_HTTP_MIN_NET_BIND_TO: '127.0.0.1:0' };

  test('a user without a password, or a password without a user, refuses to start with one line', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [
        { SVC_HTTP_USER: 'admin', SVC_HTTP_PASSWORD: '' },
        /^svcdb: invalid value http\.user=admin \(environment variable SVC_HTTP_USER\): http\.password is empty, so basic authentication would be off/,
      ],
      [
        { SVC_HTTP_USER: 'admin' },
        /^svcdb: invalid value http\.user=admin \(environment variable SVC_HTTP_USER\): http\.password is empty/,
      ],
      [
        { SVC_HTTP_PASSWORD: 's3cret' },
        /^svcdb: invalid value http\.password=\*\*\*\* \(environment variable SVC_HTTP_PASSWORD\): http\.user is empty/,
      ],
      [
        { SVC_HTTP_HEALTH_CHECK_AUTHENTICATION_REQUIRED: 'true' },
        /^svcdb: invalid value http\.health\.check\.authentication\.required=true \(environment variable SVC_HTTP_HEALTH_CHECK_AUTHENTICATION_REQUIRED\): no credentials are set/,
      ],
    ];
    for (const [vars, message] of cases) {
      const r = await runCli(['serve', '-d', makeRoot()], { ...env, ...vars }, 15_000);
      assert.equal(r.code, 1, JSON.stringify(vars));
      assert.match(r.stderr, message);
      assert.equal(r.stderr.split('\n').length, 2, 'one line');
      assert.doesNotMatch(r.stderr + r.stdout, /s3cret/);
      assert.doesNotMatch(r.stdout, /listening/, 'nothing was served');
    }
  });

  test('with both set, the start-up lines say authentication is on and both ports ask for it', async () => {
    const s = await startCappedServer({ env: { SVC_HTTP_USER: 'admin', SVC_HTTP_PASSWORD: 'pw' } });
    try {
      assert.match(s.stdout(), / A server-main http server listening on \S+ \(basic authentication on\)/);
      assert.match(
        s.stdout(),
        / A server-main health server listening on \S+ \(worker thread, basic authentication on\)/,
      );
      assert.equal((await exec(s, 'select 1')).status, 401);
      assert.equal((await send(`${s.healthUrl}/`)).status, 401);
      const auth = `Basic ${Buffer.from('admin:pw').toString('base64')}`;
      assert.equal((await exec(s, 'select 1', { authorization: auth })).status, 200);
    } finally {
      await s.stop();
    }
    const open = await startCappedServer({
      env: { SVC_HTTP_USER: 'admin', SVC_HTTP_PASSWORD: 'pw', SVC_HTTP_HEALTH_CHECK_AUTHENTICATION_REQUIRED: 'false' },
    });
    try {
      assert.match(
        open.stdout(),
        / A server-main health server listening on \S+ \(worker thread\)\n/,
        'the health line does not claim authentication',
      );
      assert.equal((await send(`${open.healthUrl}/`)).status, 200);
    } finally {
      await open.stop();
    }
  });
});
