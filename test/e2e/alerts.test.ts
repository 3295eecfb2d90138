// End-to-end: critical errors of a running server become alerts in a real
// Alertmanager; with every alert target down the server stays healthy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { startAlertmanager } from '../helpers/alertmanager.js';
import { startServer } from '../helpers/server-process.js';
import { VERSION } from '../../lib/version.js';
import { freePort } from '../helpers/ports.js';

const closedPort = freePort;

test('a forced critical error reaches a real Alertmanager with the substituted labels', async (t) => {
  const am = await startAlertmanager();
  t.after(() => am.stop());
  const s = await startServer({
    env: {
      SVC_HTTP_DEBUG_ENDPOINTS_ENABLED: 'true',
      SVC_LOG_WRITERS: 'stdout,alert',
      SVC_LOG_W_ALERT_ALERTTARGETS: `127.0.0.1:${am.port}`,
      ORGID: 'acme',
      CLUSTER_NAME: 'eu-west',
      INSTANCE_NAME: 'db-3',
    },
  });
  t.after(() => s.stop());
  const marker = `disk-on-fire-${process.pid}-${Date.now()}`;
  const r = await request(`${s.mainUrl}/debug/fault?kind=throw&message=${marker}`);
  assert.equal(r.statusCode, 500);
  await r.body.dump();
  const alert = await am.waitForAlert((a) => String(a.annotations?.message ?? '').includes(marker), 10_000);
  assert.equal(alert.labels.alertname, 'SvcdbInstanceLogs');
  assert.equal(alert.labels.severity, 'critical');
  assert.equal(alert.labels.version, VERSION);
  assert.equal(alert.labels.orgid, 'acme');
  assert.equal(alert.labels.cluster, 'eu-west');
  assert.equal(alert.labels.instance, 'db-3');
  assert.equal(alert.labels.namespace, 'GLOBAL', 'unset variables default to GLOBAL');
  assert.match(alert.annotations.message, new RegExp(`^unhandled error in GET /debug/fault: Error: ${marker}`));
});

test('a template file named by w.alert.location shapes the alert', async (t) => {
  const am = await startAlertmanager();
  t.after(() => am.stop());
  const template = fileURLToPath(new URL('../../../fixtures/alert-template.json', import.meta.url));
  const s = await startServer({
    env: {
      SVC_HTTP_DEBUG_ENDPOINTS_ENABLED: 'true',
      SVC_LOG_WRITERS: 'stdout,alert',
      SVC_LOG_W_ALERT_ALERTTARGETS: `127.0.0.1:${am.port}`,
      SVC_LOG_W_ALERT_LOCATION: template,
      INSTANCE_NAME: 'db-9',
    },
  });
  t.after(() => s.stop());
  const marker = `custom-template-${process.pid}-${Date.now()}`;
  const r = await request(`${s.mainUrl}/debug/fault?kind=critical&message=${marker}`);
  await r.body.dump();
  const alert = await am.waitForAlert((a) => a.annotations?.message === marker, 10_000);
  assert.equal(alert.labels.alertname, 'SvcdbCritical');
  assert.equal(alert.labels.team, 'storage-oncall');
  assert.equal(alert.labels.severity, 'page');
  assert.equal(alert.annotations.description, `svcdb ${VERSION} on db-9`);
});

test('with every alert target down the server stays healthy and responsive, and counts the failures', async (t) => {
  const ports = [await closedPort(), await closedPort()];
  const s = await startServer({
    env: {
      SVC_HTTP_DEBUG_ENDPOINTS_ENABLED: 'true',
      SVC_METRICS_ENABLED: 'true',
      SVC_LOG_WRITERS: 'stdout,alert',
      SVC_LOG_W_ALERT_ALERTTARGETS: ports.map((p) => `127.0.0.1:${p}`).join(','),
      SVC_LOG_W_ALERT_RECONNECTDELAY: '10',
    },
  });
  t.after(() => s.stop());
  for (let i = 0; i < 5; i++) {
    const r = await request(`${s.mainUrl}/debug/fault?kind=critical&message=alert-${i}`);
    assert.equal(r.statusCode, 200, 'logging a critical line does not slow or break the request');
    await r.body.dump();
    const h = await request(`${s.healthUrl}/`);
    assert.equal(h.statusCode, 200);
    assert.equal(await h.body.text(), 'Status: Healthy');
  }
  // Undelivered alerts are logged at error (not critical: no loop) and counted.
  await s.waitForLine(/ E log-writer-alert .*alert-4/);
  assert.doesNotMatch(s.stdout(), / C log-writer-alert /);
  const m = await request(`${s.healthUrl}/metrics`);
  const text = await m.body.text();
  const failed = Number(/^svc_alerts_failed_total (\d+)/m.exec(text)?.[1]);
  assert.ok(failed >= 5, `svc_alerts_failed_total is ${failed}`);
  const nf = await request(`${s.mainUrl}/nope`);
  assert.equal(nf.statusCode, 404);
  await nf.body.dump();
  assert.equal(await s.stop(), 0, 'and it still shuts down cleanly');
});
