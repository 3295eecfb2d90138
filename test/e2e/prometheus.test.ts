// End-to-end: a real Prometheus scrapes the server's /metrics and sees
// svc_unhandled_errors_total move when a handler fails; `promtool check
// metrics` (Debian package prometheus) finds nothing to object to in it.
import { spawn } from 'node:child_process';
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

/** `promtool check metrics` over `text` on its standard input: exit code and what it printed. */
function promtoolCheck(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn('/usr/bin/promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    p.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    p.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, output }));
    p.stdin.end(text);
  });
}

test('promtool check metrics accepts /metrics: no gauge named like a counter, no other lint problem', async (t) => {
  const s = await startServer({ env: { SVC_METRICS_ENABLED: 'true' } });
  t.after(() => s.stop());
  // Some traffic first, so that every labelled series is there.
  for (const q of ['select 1', 'select * from nope'])
    await (await request(`${s.mainUrl}/exec?query=${encodeURIComponent(q)}`)).body.dump();
  await (await request(`${s.mainUrl}/exp?query=${encodeURIComponent('select x from long_sequence(3)')}`)).body.dump();
  const r = await request(`${s.healthUrl}/metrics`);
  const text = await r.body.text();
  assert.equal(r.statusCode, 200);
  // The process gauges are there, the *_total gauges prom-client adds are not.
  assert.match(text, /^# TYPE svc_nodejs_active_handles gauge$/m);
  assert.match(text, /^# TYPE svc_process_cpu_user_seconds_total counter$/m);
  assert.doesNotMatch(text, /^# TYPE \S+_total (?!counter)/m);
  const check = await promtoolCheck(text);
  assert.equal(check.output.trim(), '', check.output);
  assert.equal(check.code, 0, check.output);
  // And it does object to a gauge named like a counter (the check is real).
  const bad = await promtoolCheck('# HELP x_total A gauge.\n# TYPE x_total gauge\nx_total 1\n');
  assert.notEqual(bad.code, 0);
  assert.match(bad.output, /_total/);
});
