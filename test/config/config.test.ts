import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, defaultServerConf } from '../../lib/config/config.js';
import { CONFIG_KEYS } from '../../lib/config/config-keys.js';
import { durationType, hostPortType, sizeType } from '../../lib/config/value-types.js';
import { parseProperties } from '../../lib/config/properties.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import { availableParallelism } from 'node:os';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'svcdb-conf-'));
  made.push(d);
  return d;
}

function rootWith(conf?: string): string {
  const root = tmp();
  if (conf !== undefined) {
    mkdirSync(join(root, 'conf'));
    writeFileSync(join(root, 'conf', 'server.conf'), conf);
  }
  return root;
}

/** Each (server.conf, environment) refuses to load with one CONFIG line matching its pattern; `more` checks the message further. */
function assertConfigErrors(
  cases: ReadonlyArray<[string, Record<string, string>, RegExp]>,
  more: (message: string) => void = () => {},
): void {
  for (const [conf, env, re] of cases) {
    assert.throws(
      () => loadConfig(rootWith(conf), env),
      (e: unknown) => {
        assert.ok(e instanceof SvcError);
        assert.equal(e.code, 'CONFIG');
        assert.match(e.message, re);
        assert.ok(!e.message.includes('\n'));
        more(e.message);
        return true;
      },
      `${JSON.stringify(conf)} ${JSON.stringify(env)}`,
    );
  }
}

test('creates server.conf with every key documented and commented out at its default', () => {
  const root = rootWith();
  const r = loadConfig(root, {});
  assert.equal(r.created, true);
  const text = readFileSync(join(root, 'conf', 'server.conf'), 'utf8');
  assert.equal(text, defaultServerConf());
  assert.deepEqual(parseProperties(text), [], 'every key is commented out');
  for (const k of Object.keys(CONFIG_KEYS)) assert.ok(text.includes(`#${k}=`), k);
  assert.deepEqual(r.config.get('http.net.bind.to'), { host: '0.0.0.0', port: 9000 });
  assert.deepEqual(r.config.get('http.min.net.bind.to'), { host: '0.0.0.0', port: 9003 });
  assert.equal(r.config.get('metrics.enabled'), false);
  assert.equal(r.config.get('http.min.enabled'), true);
  assert.equal(r.config.get('query.timeout'), 60_000);
});

test('reads values from server.conf and lets SVC_ environment variables win', () => {
  const root = rootWith('http.net.bind.to=127.0.0.1:9100\nmetrics.enabled=true\nquery.timeout=5s\n');
  const r = loadConfig(root, {
    SVC_HTTP_NET_BIND_TO: '127.0.0.1:9200',
    SVC_HTTP_USER: 'admin',
    SVC_HTTP_PASSWORD: 'pw',
  });
  assert.equal(r.created, false);
  assert.deepEqual(r.config.get('http.net.bind.to'), { host: '127.0.0.1', port: 9200 });
  assert.equal(r.config.get('metrics.enabled'), true);
  assert.equal(r.config.get('query.timeout'), 5000);
  assert.equal(r.config.get('http.user'), 'admin');
  assert.ok(r.config.describe().some((l) => l === 'http.net.bind.to : 127.0.0.1:9200 [env SVC_HTTP_NET_BIND_TO]'));
});

test('reports unknown keys instead of failing', () => {
  const r = loadConfig(rootWith('no.such.key=1\ncairo.whatever=2\n'), {});
  assert.deepEqual(r.unknownKeys, ['no.such.key', 'cairo.whatever']);
});

test('stops on a bad value with one line naming key, value and where it came from', () => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    [
      'http.net.bind.to=0.0.0.0:99999\n',
      {},
      /^invalid value http\.net\.bind\.to=0\.0\.0\.0:99999 \(server\.conf line 1\): port out of range/,
    ],
    [
      'metrics.enabled=yes\n',
      {},
      /^invalid value metrics\.enabled=yes \(server\.conf line 1\): expected true or false$/,
    ],
    [
      '',
      { SVC_HTTP_MIN_WORKER_COUNT: 'two' },
      /^invalid value http\.min\.worker\.count=two \(environment variable SVC_HTTP_MIN_WORKER_COUNT\)/,
    ],
    ['\n\nquery.timeout=soon\n', {}, /^invalid value query\.timeout=soon \(server\.conf line 3\)/],
  ];
  assertConfigErrors(cases);
});

test('never echoes the password in errors or in the startup description', () => {
  const r = loadConfig(rootWith('http.user=admin\nhttp.password=s3cret\n'), {});
  assert.ok(r.config.describe().some((l) => l.startsWith('http.password : ****')));
  assert.ok(!r.config.describe().join('\n').includes('s3cret'));
});

test('refuses settings that would half-enable authentication, with one line naming key and source', () => {
  const cases: Array<[string, Record<string, string>, RegExp]> = [
    [
      'http.user=admin\n',
      {},
      /^invalid value http\.user=admin \(server\.conf line 1\): http\.password is empty, so basic authentication would be off/,
    ],
    [
      'http.user=admin\nhttp.password=\n',
      {},
      /^invalid value http\.user=admin \(server\.conf line 1\): http\.password is empty/,
    ],
    [
      'http.user=admin\nhttp.password=pw\n',
      { SVC_HTTP_PASSWORD: '' },
      /^invalid value http\.user=admin \(server\.conf line 1\): http\.password is empty/,
    ],
    [
      '',
      { SVC_HTTP_PASSWORD: 's3cret' },
      /^invalid value http\.password=\*\*\*\* \(environment variable SVC_HTTP_PASSWORD\): http\.user is empty/,
    ],
    [
      'http.health.check.authentication.required=true\n',
      {},
      /^invalid value http\.health\.check\.authentication\.required=true \(server\.conf line 1\): no credentials are set/,
    ],
    [
      '',
      { SVC_HTTP_USER: 'a:b', SVC_HTTP_PASSWORD: 'pw' },
      /^invalid value http\.user=a:b \(environment variable SVC_HTTP_USER\): a user name cannot contain a colon/,
    ],
  ];
  assertConfigErrors(cases, (message) => assert.ok(!message.includes('s3cret'), 'the password is never echoed'));
});

test('starts with authentication fully on or fully off, and health authentication left at its default or turned off', () => {
  const both = loadConfig(
    rootWith('http.user=admin\nhttp.password=pw\nhttp.health.check.authentication.required=true\n'),
    {},
  ).config;
  assert.equal(both.get('http.user'), 'admin');
  const none = loadConfig(rootWith(''), {}).config;
  assert.equal(none.get('http.user'), '');
  assert.equal(
    none.get('http.health.check.authentication.required'),
    true,
    'the default needs no credentials: it applies when they are set',
  );
  const openHealth = loadConfig(rootWith('http.health.check.authentication.required=false\n'), {}).config;
  assert.equal(openHealth.get('http.health.check.authentication.required'), false);
});

test('parses host:port, durations and sizes', () => {
  assert.deepEqual(hostPortType.parse('[::1]:9000'), { host: '::1', port: 9000 });
  assert.throws(() => hostPortType.parse('9000'));
  assert.throws(() => hostPortType.parse('host:port'));
  assert.equal(durationType.parse('250'), 250);
  assert.equal(durationType.parse('1.5s'), 1500);
  assert.equal(durationType.parse('2m'), 120_000);
  assert.equal(sizeType.parse('4m'), 4 * 1024 * 1024);
  assert.equal(sizeType.parse('1g'), 1024 ** 3);
  assert.equal(sizeType.format(2 * 1024 * 1024), '2m');
  assert.throws(() => sizeType.parse('lots'));
});

test('an unreadable server.conf stops startup with one line naming the file', () => {
  const root = rootWith();
  mkdirSync(join(root, 'conf', 'server.conf'), { recursive: true }); // a folder where the file should be
  assert.throws(
    () => loadConfig(root, {}),
    (e: unknown) => {
      assert.ok(e instanceof SvcError);
      assert.match(e.message, /^cannot read server\.conf \[path=.*server\.conf\]: EISDIR/);
      return true;
    },
  );
});

test("shared.worker.count: the machine's cores by default and when empty (as the shipped server.conf shows it), 1..1024 otherwise", () => {
  assert.equal(loadConfig(rootWith(''), {}).config.get('shared.worker.count'), availableParallelism());
  assert.equal(
    loadConfig(rootWith('shared.worker.count=\n'), {}).config.get('shared.worker.count'),
    availableParallelism(),
  );
  assert.match(defaultServerConf(), /^#shared\.worker\.count=$/m);
  assert.equal(loadConfig(rootWith('shared.worker.count=1\n'), {}).config.get('shared.worker.count'), 1);
  assert.equal(loadConfig(rootWith(''), { SVC_SHARED_WORKER_COUNT: '64' }).config.get('shared.worker.count'), 64);
  assertConfigErrors([
    [
      'shared.worker.count=0\n',
      {},
      /^invalid value shared\.worker\.count=0 \(server\.conf line 1\): expected an integer 1\.\.1024/,
    ],
    ['shared.worker.count=-3\n', {}, /^invalid value shared\.worker\.count=-3 .*expected an integer 1\.\.1024/],
    [
      '',
      { SVC_SHARED_WORKER_COUNT: 'all' },
      /^invalid value shared\.worker\.count=all \(environment variable SVC_SHARED_WORKER_COUNT\)/,
    ],
    ['shared.worker.count=2.5\n', {}, /expected an integer 1\.\.1024/],
  ]);
});
