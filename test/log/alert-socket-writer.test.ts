// Tests of the alert socket writer against real loopback TCP servers: the HTTP
// request it sends, the template substitutions, fail-over, retries, overflow and
// construction-time validation of its log.conf properties.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { AlertSocketWriter } from '../../lib/log/alert-socket-writer.js';
import type { AlertSocketWriterOptions } from '../../lib/log/alert-socket-writer.js';
import { Level } from '../../lib/log/levels.js';
import type { LogRecord, WriterContext } from '../../lib/log/log-writer.js';
import { Metrics } from '../../lib/metrics/metrics.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import { freePort } from '../helpers/ports.js';

interface Harness {
  ctx: WriterContext;
  metrics: Metrics;
  reports: Array<[string, string]>;
  /** Resolves with the next report (or one already made and not yet taken). */
  nextReport(): Promise<[string, string]>;
}

function harness(props: Record<string, string>, extra: { env?: NodeJS.ProcessEnv; root?: string } = {}): Harness {
  const metrics = new Metrics({ processMetrics: false });
  const reports: Array<[string, string]> = [];
  let taken = 0;
  let waiter: (() => void) | null = null;
  const ctx: WriterContext = {
    name: 'alert',
    mask: Level.CRITICAL,
    props: new Map(Object.entries(props)),
    root: extra.root ?? tmpdir(),
    logDir: join(extra.root ?? tmpdir(), 'log'),
    env: extra.env ?? {},
    version: '9.8.7-test',
    metrics,
    report: (level, message) => {
      reports.push([level, message]);
      waiter?.();
    },
  };
  const nextReport = async (): Promise<[string, string]> => {
    while (reports.length <= taken)
      await new Promise<void>((res) => {
        waiter = res;
      });
    return reports[taken++]!;
  };
  return { ctx, metrics, reports, nextReport };
}

function record(message: string, level: number = Level.CRITICAL): LogRecord {
  return { micros: Date.now() * 1000, level, logger: 'test', message, line: `ts C test ${message}` };
}

interface Captured {
  requestLine: string;
  headers: Map<string, string>;
  body: string;
  bodyBytes: number;
}

type Action = number | 'destroy' | 'hang';

/** A raw TCP "alert manager": answers connection n with respond(n). */
async function startTarget(respond: (n: number) => Action = () => 200) {
  const requests: Captured[] = [];
  const connectedAt: number[] = [];
  const sockets = new Set<Socket>();
  let notify: (() => void) | null = null;
  const server: Server = createServer((socket) => {
    const action = respond(connectedAt.length);
    connectedAt.push(performance.now());
    notify?.();
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => sockets.delete(socket));
    if (action === 'destroy') return void socket.destroy();
    let buf = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const lines = buf.subarray(0, end).toString('latin1').split('\r\n');
      const headers = new Map(
        lines.slice(1).map((l) => {
          const i = l.indexOf(':');
          return [l.slice(0, i).toLowerCase(), l.slice(i + 1).trim()] as [string, string];
        }),
      );
      const len = Number(headers.get('content-length') ?? 0);
      if (buf.length < end + 4 + len) return;
      const body = buf.subarray(end + 4, end + 4 + len);
      requests.push({ requestLine: lines[0] ?? '', headers, body: body.toString('utf8'), bodyBytes: body.length });
      notify?.();
      if (action !== 'hang') socket.end(`HTTP/1.1 ${action} X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    });
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  const port = (server.address() as { port: number }).port;
  const until = async (cond: () => boolean): Promise<void> => {
    while (!cond())
      await new Promise<void>((res) => {
        notify = res;
      });
  };
  return {
    port,
    requests,
    connectedAt,
    waitForRequests: (n: number) => until(() => requests.length >= n),
    waitForConnections: (n: number) => until(() => connectedAt.length >= n),
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}

const closedPort = freePort;

const first: AlertSocketWriterOptions = { random: () => 0 };

test('posts the alert as an HTTP/1.1 request with the rendered template as JSON body', async () => {
  const target = await startTarget();
  const h = harness(
    { alertTargets: `127.0.0.1:${target.port}` },
    { env: { ORGID: 'org-1', NAMESPACE: 'ns-2', CLUSTER_NAME: 'cl-3', INSTANCE_NAME: 'inst-4' } },
  );
  const writer = new AlertSocketWriter(h.ctx);
  writer.write(record('table writer failed'));
  await target.waitForRequests(1);
  await writer.close();
  await target.close();

  const req = target.requests[0]!;
  assert.equal(req.requestLine, 'POST /api/v1/alerts HTTP/1.1');
  assert.equal(req.headers.get('host'), `127.0.0.1:${target.port}`);
  assert.equal(req.headers.get('content-type'), 'application/json');
  assert.equal(Number(req.headers.get('content-length')), req.bodyBytes);
  assert.equal(req.headers.get('connection'), 'close');
  assert.doesNotMatch(req.body, /\$\{/);
  const alerts = JSON.parse(req.body);
  assert.equal(alerts.length, 1);
  const [alert] = alerts;
  assert.equal(alert.Status, 'firing');
  const { alertTimestamp, ...labels } = alert.Labels;
  assert.deepEqual(labels, {
    alertname: 'SvcdbInstanceLogs',
    service: 'svcdb',
    category: 'application-logs',
    severity: 'critical',
    version: '9.8.7-test',
    cluster: 'cl-3',
    orgid: 'org-1',
    namespace: 'ns-2',
    instance: 'inst-4',
  });
  assert.match(alertTimestamp, /^\d{4}\/\d{2}\/\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
  assert.deepEqual(alert.Annotations, { description: 'ERROR/org-1/ns-2/cl-3/inst-4', message: 'table writer failed' });
  assert.equal(await h.metrics.alertsSent.get().then((m) => m.values[0]?.value), 1);
  assert.equal(await h.metrics.alertsFailed.get().then((m) => m.values[0]?.value), 0);
});

test('substitutes GLOBAL for cloud environment variables that are unset or empty', async () => {
  const target = await startTarget();
  const h = harness({ alertTargets: `127.0.0.1:${target.port}` }, { env: { ORGID: '' } });
  const writer = new AlertSocketWriter(h.ctx);
  writer.write(record('x'));
  await writer.close();
  await target.close();
  const [alert] = JSON.parse(target.requests[0]!.body);
  assert.deepEqual(
    [alert.Labels.cluster, alert.Labels.orgid, alert.Labels.namespace, alert.Labels.instance],
    ['GLOBAL', 'GLOBAL', 'GLOBAL', 'GLOBAL'],
  );
  assert.equal(alert.Annotations.description, 'ERROR/GLOBAL/GLOBAL/GLOBAL/GLOBAL');
});

test('escapes quotes, backslashes, control characters, unicode and lone surrogates in the message', async () => {
  const target = await startTarget();
  const h = harness({ alertTargets: `127.0.0.1:${target.port}` });
  const writer = new AlertSocketWriter(h.ctx);
  const messages = [
    'say "hi" to C:\\temp\\',
    'line1\nline2\r\ttab \u0000 \u0001 \u001f \u007f \u2028',
    'é 漢字 😀 lone \ud800 and \udfff ${ORGID} ${nope}',
  ];
  for (const m of messages) writer.write(record(m));
  await target.waitForRequests(3);
  await writer.close();
  await target.close();
  assert.deepEqual(
    target.requests.map((r) => JSON.parse(r.body)[0].Annotations.message),
    messages,
  );
  assert.equal(await h.metrics.alertsSent.get().then((m) => m.values[0]?.value), 3);
});

test('ignores records whose level is not in the writer mask', async () => {
  const target = await startTarget();
  const h = harness({ alertTargets: `127.0.0.1:${target.port}` });
  const writer = new AlertSocketWriter(h.ctx);
  writer.write(record('just info', Level.INFO));
  writer.write(record('an error', Level.ERROR));
  await writer.close();
  await target.close();
  assert.equal(target.connectedAt.length, 0);
  assert.equal(await h.metrics.alertsSent.get().then((m) => m.values[0]?.value), 0);
});

test('fails over from a closed port to the next target', async () => {
  const dead = await closedPort();
  const target = await startTarget();
  const h = harness({ alertTargets: `127.0.0.1:${dead}, 127.0.0.1:${target.port}` });
  const writer = new AlertSocketWriter(h.ctx, first);
  writer.write(record('boom'));
  writer.write(record('boom again'));
  await writer.close();
  await target.close();
  assert.equal(target.requests.length, 2);
  assert.equal(await h.metrics.alertsSent.get().then((m) => m.values[0]?.value), 2);
  assert.equal(await h.metrics.alertsFailed.get().then((m) => m.values[0]?.value), 0);
  assert.deepEqual(h.reports, []);
});

test('fails over from a target answering 500 to a working target', async () => {
  const broken = await startTarget(() => 500);
  const good = await startTarget();
  const h = harness({ alertTargets: `127.0.0.1:${broken.port},127.0.0.1:${good.port}` });
  const writer = new AlertSocketWriter(h.ctx, first);
  writer.write(record('boom'));
  await writer.close();
  await Promise.all([broken.close(), good.close()]);
  assert.equal(broken.requests.length, 1);
  assert.equal(good.requests.length, 1);
  assert.equal(good.requests[0]!.body, broken.requests[0]!.body);
  assert.equal(await h.metrics.alertsSent.get().then((m) => m.values[0]?.value), 1);
});

test('fails over from a target that accepts but never answers, after the attempt timeout', async () => {
  const silent = await startTarget(() => 'hang');
  const good = await startTarget();
  const h = harness({ alertTargets: `127.0.0.1:${silent.port},127.0.0.1:${good.port}` });
  const writer = new AlertSocketWriter(h.ctx, { ...first, attemptTimeoutMs: 100 });
  writer.write(record('slow'));
  await good.waitForRequests(1);
  await writer.close();
  await Promise.all([silent.close(), good.close()]);
  assert.equal(silent.requests.length, 1);
  assert.equal(await h.metrics.alertsSent.get().then((m) => m.values[0]?.value), 1);
});

test('with every target down, write returns at once and the alert is counted and reported as failed', async () => {
  const ports = [await closedPort(), await closedPort()];
  const h = harness({ alertTargets: ports.map((p) => `127.0.0.1:${p}`).join(','), reconnectDelay: '10' });
  const writer = new AlertSocketWriter(h.ctx);
  const t0 = performance.now();
  assert.doesNotThrow(() => writer.write(record('nobody listens')));
  assert.ok(performance.now() - t0 < 50, 'write() must not wait for the network');
  const [level, message] = await h.nextReport();
  assert.equal(level, 'error');
  for (const p of ports) assert.match(message, new RegExp(`127\\.0\\.0\\.1:${p}`));
  assert.equal(await h.metrics.alertsFailed.get().then((m) => m.values[0]?.value), 1);
  assert.equal(await h.metrics.alertsSent.get().then((m) => m.values[0]?.value), 0);
  const t1 = performance.now();
  await writer.close();
  assert.ok(performance.now() - t1 < 500, 'close() must resolve promptly');
});

test('retries a single target after reconnectDelay until it accepts', async () => {
  const target = await startTarget((n) => (n === 0 ? 'destroy' : 200));
  const h = harness({ alertTargets: `127.0.0.1:${target.port}`, reconnectDelay: '100' });
  const writer = new AlertSocketWriter(h.ctx);
  writer.write(record('flaky'));
  await target.waitForRequests(1);
  await writer.close();
  await target.close();
  assert.equal(target.connectedAt.length, 2);
  const gap = target.connectedAt[1]! - target.connectedAt[0]!;
  assert.ok(gap >= 95, `second attempt came ${gap.toFixed(1)} ms after the first`);
  assert.equal(await h.metrics.alertsSent.get().then((m) => m.values[0]?.value), 1);
  assert.equal(await h.metrics.alertsFailed.get().then((m) => m.values[0]?.value), 0);
});

test('drops alerts beyond the queue bound, and close abandons what is left', async () => {
  const target = await startTarget(() => 'hang');
  const h = harness({ alertTargets: `127.0.0.1:${target.port}` });
  const writer = new AlertSocketWriter(h.ctx, { maxQueued: 1, closeTimeoutMs: 50 });
  writer.write(record('in flight'));
  writer.write(record('queued'));
  writer.write(record('dropped'));
  const [level, message] = await h.nextReport();
  assert.equal(level, 'error');
  assert.match(message, /queue full/);
  await target.waitForRequests(1);
  await writer.close();
  await target.close();
  assert.equal(await h.metrics.alertsFailed.get().then((m) => m.values[0]?.value), 3);
  assert.ok(h.reports.every(([l]) => l === 'error'));
});

test('drops an alert larger than outBufferSize', async () => {
  const h = harness({ alertTargets: '127.0.0.1:1', outBufferSize: '1k' });
  const writer = new AlertSocketWriter(h.ctx);
  writer.write(record('x'.repeat(2000)));
  assert.equal(await h.metrics.alertsFailed.get().then((m) => m.values[0]?.value), 1);
  await writer.close();
});

test('resolves a relative template location against the database root', async () => {
  const root = await mkdtemp(join(tmpdir(), 'svcdb-alert-'));
  await mkdir(join(root, 'conf'));
  await writeFile(
    join(root, 'conf', 'alert.json'),
    '[{"Labels":{"alertname":"Custom","v":"${SVC_VERSION}","year":"${date:yyyy}"},' +
      '"Annotations":{"message":"${ALERT_MESSAGE}"}}]',
  );
  const target = await startTarget();
  const h = harness({ alertTargets: `127.0.0.1:${target.port}`, location: 'conf/alert.json' }, { root });
  const writer = new AlertSocketWriter(h.ctx);
  writer.write(record('custom'));
  await writer.close();
  await target.close();
  await rm(root, { recursive: true, force: true });
  assert.deepEqual(JSON.parse(target.requests[0]!.body), [
    {
      Labels: { alertname: 'Custom', v: '9.8.7-test', year: String(new Date().getUTCFullYear()) },
      Annotations: { message: 'custom' },
    },
  ]);
});

test('close resolves at once when nothing is queued, and later writes are counted as failed', async () => {
  const h = harness({});
  const writer = new AlertSocketWriter(h.ctx);
  assert.deepEqual(writer.targets, [{ host: '127.0.0.1', port: 9093 }]);
  await writer.close();
  writer.write(record('too late'));
  assert.equal(await h.metrics.alertsFailed.get().then((m) => m.values[0]?.value), 1);
  await writer.close();
});

test('parses targets with default ports, IPv6 addresses and surrounding spaces', () => {
  const h = harness({
    alertTargets: ' am1 , am2:9999,[::1]:9095, [::1] ',
    defaultAlertPort: '9193',
    defaultAlertHost: 'x',
  });
  const writer = new AlertSocketWriter(h.ctx);
  assert.deepEqual(writer.targets, [
    { host: 'am1', port: 9193 },
    { host: 'am2', port: 9999 },
    { host: '::1', port: 9095 },
    { host: '::1', port: 9193 },
  ]);
  assert.equal(writer.reconnectDelayMs, 250);
  assert.equal(writer.inBufferSize, 2 * 1024 * 1024);
  assert.equal(writer.outBufferSize, 4 * 1024 * 1024);
});

test('rejects bad properties at construction, naming the property', async () => {
  const root = await mkdtemp(join(tmpdir(), 'svcdb-alert-'));
  await writeFile(join(root, 'object.json'), '{"Labels":{"a":"b"}}');
  await writeFile(join(root, 'numbers.json'), '[1, 2]');
  await writeFile(join(root, 'broken.json'), '[{"a": "${ALERT_MESSAGE}"');
  await writeFile(join(root, 'unknown.json'), '[{"a":"${HOSTNAME}"}]');
  await writeFile(join(root, 'bare.json'), '[{"a": ${ALERT_MESSAGE}}]');
  const cases: Array<[Record<string, string>, string]> = [
    [{ alertTargets: Array.from({ length: 13 }, (_, i) => `h${i}:9093`).join(',') }, 'alertTargets'],
    [{ alertTargets: 'am1:99999' }, 'alertTargets'],
    [{ alertTargets: 'am1:port' }, 'alertTargets'],
    [{ alertTargets: 'am1:0' }, 'alertTargets'],
    [{ alertTargets: 'bad host:9093' }, 'alertTargets'],
    [{ defaultAlertPort: '70000' }, 'defaultAlertPort'],
    [{ defaultAlertHost: 'am1:9093' }, 'defaultAlertHost'],
    [{ reconnectDelay: 'soon' }, 'reconnectDelay'],
    [{ reconnectDelay: '-5' }, 'reconnectDelay'],
    [{ inBufferSize: 'huge' }, 'inBufferSize'],
    [{ outBufferSize: '10' }, 'outBufferSize'],
    [{ alertTarget: 'am1' }, 'alertTarget'],
    [{ rollSize: '1g' }, 'rollSize'],
    [{ location: 'missing.json' }, 'location'],
    [{ location: join(root, 'object.json') }, 'location'],
    [{ location: join(root, 'numbers.json') }, 'location'],
    [{ location: 'broken.json' }, 'location'],
    [{ location: 'unknown.json' }, 'location'],
    [{ location: 'bare.json' }, 'location'],
  ];
  try {
    for (const [props, prop] of cases) {
      const h = harness(props, { root });
      assert.throws(
        () => new AlertSocketWriter(h.ctx),
        (e: unknown) =>
          e instanceof SvcError &&
          e.code === 'CONFIG' &&
          e.message.startsWith(`w.alert.${prop}`) &&
          !e.message.includes('\n'),
        `expected a CONFIG error naming w.alert.${prop} for ${JSON.stringify(props)}`,
      );
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
