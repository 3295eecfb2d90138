// End-to-end: a real Prometheus scrapes the server's /metrics and sees
// svc_unhandled_errors_total move when a handler fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { startPrometheus } from '../helpers/prometheus.js';
import { startServer } from '../helpers/server-process.js';

test('Prometheus scrapes /metrics and reads svc_unhandled_errors_total as it changes', async (t) => {
  const s = await startServer({
    env: {
      SVC_METRICS_ENABLED: 'true',
      SVC_HTTP_DEBUG_ENDPOINTS_ENABLED: 'true',
      SVC_HTTP_USER: 'scraper',
      SVC_HTTP_PASSWORD: 'secret',
    },
  });
  t.after(() => s.stop());
  const target = new URL(s.healthUrl).host;
  const prom = await startPrometheus({ targets: [target], basicAuth: { username: 'scraper', password: 'secret' } });
  t.after(() => prom.stop());

  const zero = await prom.waitFor('svc_unhandled_errors_total', (r) => r.length > 0, 30_000);
  assert.equal(zero[0].value[1], '0');
  assert.equal(zero[0].metric.job, 'svcdb');

  const auth = { authorization: 'Basic ' + Buffer.from('scraper:secret').toString('base64') };
  for (let i = 0; i < 2; i++) {
    const r = await request(`${s.mainUrl}/debug/fault?kind=throw`, { headers: auth });
    assert.equal(r.statusCode, 500);
    await r.body.dump();
  }
  const two = await prom.waitFor('svc_unhandled_errors_total', (r) => r[0]?.value[1] === '2', 30_000);
  assert.equal(two.length, 1);
  const up = await prom.query('up{job="svcdb"}');
  assert.equal(up.result[0].value[1], '1', 'the target is up (basic auth accepted)');
  const reqs = await prom.query('sum(svc_http_requests_total{server="main",status="500"})');
  assert.equal(reqs.result[0].value[1], '2');
});
