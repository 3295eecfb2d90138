// Self-test of test/helpers/prometheus.ts: a real Prometheus scrapes a tiny prom-client
// server and records what it serves, with and without basic auth.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { Counter, Registry } from 'prom-client';
import { request } from 'undici';
import { startPrometheus } from '../helpers/prometheus.js';

// Prometheus 2.42 applies new targets on a 5 s ticker, so the first scrape comes ~5.5 s after ready;
// the tests therefore run concurrently, and the bound is generous.
const SCRAPE_TIMEOUT_MS = 30_000;

interface MetricsServer {
  target: string;
  seen: { authorized: number; refused: number };
  close(): Promise<void>;
}

/** Serves `registry` at `path`; with `authorization`, answers 401 to requests without that exact header. */
async function serveRegistry(registry: Registry, path: string, authorization?: string): Promise<MetricsServer> {
  const seen = { authorized: 0, refused: 0 };
  const server = createServer((req, res) => {
    if (authorization !== undefined && req.headers.authorization !== authorization) {
      seen.refused++;
      res.writeHead(401, { 'www-authenticate': 'Basic realm="selftest"' }).end();
      return;
    }
    seen.authorized++;
    if (req.url !== path) {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: Error) => res.writeHead(500).end(err.message),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    target: `127.0.0.1:${port}`,
    seen,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

describe('the Prometheus test helper', { concurrency: true }, () => {
  test('records the value of a counter that a prom-client registry serves at /metrics', async (t) => {
    const registry = new Registry();
    const counter = new Counter({ name: 'svc_selftest_total', help: 'Self-test counter', registers: [registry] });
    for (let i = 0; i < 3; i++) counter.inc();
    const metrics = await serveRegistry(registry, '/metrics');
    t.after(() => metrics.close());
    const prom = await startPrometheus({ targets: [metrics.target] });
    t.after(() => prom.stop());

    const result = await prom.waitFor('svc_selftest_total', (r) => r[0]?.value[1] === '3', SCRAPE_TIMEOUT_MS);
    assert.equal(result.length, 1);
    assert.equal(result[0].metric.job, 'svcdb');
    assert.equal(result[0].metric.instance, metrics.target);

    await prom.stop();
    await assert.rejects(request(`${prom.url}/-/ready`), 'nothing listens once stopped');
  });

  test('sends basic auth when configured, so a protected target at a custom path is up', async (t) => {
    const basicAuth = { username: 'scraper', password: 'p@ss: "word"' };
    const header = `Basic ${Buffer.from(`${basicAuth.username}:${basicAuth.password}`).toString('base64')}`;
    const metrics = await serveRegistry(new Registry(), '/private/metrics', header);
    t.after(() => metrics.close());
    const prom = await startPrometheus({ targets: [metrics.target], metricsPath: '/private/metrics', basicAuth });
    t.after(() => prom.stop());

    await prom.waitFor('up{job="svcdb"}', (r) => r[0]?.value[1] === '1', SCRAPE_TIMEOUT_MS);
    const { activeTargets } = await prom.targets();
    assert.equal(activeTargets.length, 1);
    assert.equal(activeTargets[0].health, 'up');
    assert.equal(activeTargets[0].scrapeUrl, `http://${metrics.target}/private/metrics`);
    assert.ok(metrics.seen.authorized > 0);
    assert.equal(metrics.seen.refused, 0, 'every scrape carried the credentials');
  });

  test('refuses to start without the binary and names the Debian package to install', async () => {
    await assert.rejects(
      startPrometheus({ targets: ['127.0.0.1:9'], binary: '/nonexistent/prometheus' }),
      /install the Debian package prometheus \(apt-get install prometheus\)/,
    );
  });
});
