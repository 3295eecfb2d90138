// End-to-end test of the alert socket writer against the real Prometheus
// Alertmanager (0.25, Debian package): the alert must show up on its API with
// every template placeholder substituted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AlertSocketWriter } from '../../lib/log/alert-socket-writer.js';
import { Level } from '../../lib/log/levels.js';
import type { WriterContext } from '../../lib/log/log-writer.js';
import { Metrics } from '../../lib/metrics/metrics.js';
import { startAlertmanager } from '../helpers/alertmanager.js';

test('Alertmanager receives a critical log message as an alert with substituted labels', async (t) => {
  const am = await startAlertmanager();
  t.after(() => am.stop());
  const metrics = new Metrics({ processMetrics: false });
  const reports: string[] = [];
  const ctx: WriterContext = {
    name: 'alert',
    mask: Level.CRITICAL,
    props: new Map([['alertTargets', `127.0.0.1:${am.port}`]]),
    root: tmpdir(),
    logDir: join(tmpdir(), 'log'),
    env: { ORGID: 'acme', NAMESPACE: 'prod-ns', CLUSTER_NAME: 'eu-1', INSTANCE_NAME: 'db-7' },
    version: '1.2.3-e2e',
    metrics,
    report: (_level, message) => reports.push(message),
  };
  const writer = new AlertSocketWriter(ctx);
  const message = `checkpoint failed: "disk full" \\ ${process.pid}`;
  writer.write({ micros: Date.now() * 1000, level: Level.CRITICAL, logger: 'e2e', message, line: message });
  await writer.close();
  assert.deepEqual(reports, []);
  assert.equal((await metrics.alertsSent.get()).values[0]?.value, 1);

  const alert = await am.waitForAlert((a) => a.annotations?.message === message, 5000);
  assert.equal(alert.status.state, 'active');
  assert.deepEqual(
    {
      alertname: alert.labels.alertname,
      service: alert.labels.service,
      category: alert.labels.category,
      severity: alert.labels.severity,
      version: alert.labels.version,
      cluster: alert.labels.cluster,
      orgid: alert.labels.orgid,
      namespace: alert.labels.namespace,
      instance: alert.labels.instance,
    },
    {
      alertname: 'SvcdbInstanceLogs',
      service: 'svcdb',
      category: 'application-logs',
      severity: 'critical',
      version: '1.2.3-e2e',
      cluster: 'eu-1',
      orgid: 'acme',
      namespace: 'prod-ns',
      instance: 'db-7',
    },
  );
  assert.match(alert.labels.alertTimestamp, /^\d{4}\/\d{2}\/\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
  assert.equal(alert.annotations.description, 'ERROR/acme/prod-ns/eu-1/db-7');
});
