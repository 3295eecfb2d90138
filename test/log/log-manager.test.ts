import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { LogManager } from '../../lib/log/log-manager.js';
import { DEFAULT_LOG_CONF, loadLogConf } from '../../lib/log/log-conf.js';
import { Metrics } from '../../lib/metrics/metrics.js';

const made: string[] = [];
after(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'svcdb-log-'));
  made.push(d);
  return d;
}

const LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z [ACEID] \S+ .*$/;

interface Setup {
  readonly root: string;
  readonly logs: LogManager;
  /** Everything written to "standard output" after a flush. */
  out(): string[];
}

function setup(
  conf: string | null,
  opts: { env?: Record<string, string>; debug?: boolean; service?: boolean; consoleFile?: boolean } = {},
): Setup {
  const root = tmp();
  const env = opts.env ?? {};
  if (conf !== null) {
    writeFileSync(join(root, 'custom.conf'), conf);
  }
  const source = loadLogConf(root, conf === null ? undefined : join(root, 'custom.conf'), env);
  const stdout = new PassThrough();
  let text = '';
  stdout.setEncoding('utf8').on('data', (d: string) => {
    text += d;
  });
  const logs = new LogManager({
    root,
    conf: source,
    debug: opts.debug ?? false,
    service: opts.service ?? false,
    stdout,
    consoleFile: opts.consoleFile ?? false,
    env,
    version: '9.9.9',
    metrics: new Metrics(),
  });
  return {
    root,
    logs,
    out: () => {
      logs.flush();
      return text.split('\n').filter(Boolean);
    },
  };
}

test('creates conf/log.conf from the bundled default when it is missing, and reads it when present', () => {
  const root = tmp();
  const first = loadLogConf(root, undefined, {});
  assert.equal(first.created, true);
  assert.equal(readFileSync(join(root, 'conf', 'log.conf'), 'utf8'), DEFAULT_LOG_CONF);
  writeFileSync(join(root, 'conf', 'log.conf'), 'writers=stdout\nw.stdout.class=io.svc.log.LogConsoleWriter\n');
  const second = loadLogConf(root, undefined, {});
  assert.equal(second.created, false);
  assert.equal(second.values.get('writers'), 'stdout');
});

test('-Dout names the log.conf to use and a missing one is an error', () => {
  const root = tmp();
  assert.throws(() => loadLogConf(root, join(root, 'missing.conf'), {}), /cannot read log configuration -Dout=/);
  assert.equal(existsSync(join(root, 'conf', 'log.conf')), false, 'the default is not created when -Dout is given');
});

test('the default configuration writes A, C, E and I lines to the console and no D lines', () => {
  const s = setup(null);
  const log = s.logs.logger('server-main');
  log.advisory('adv');
  log.critical('crit');
  log.error('err');
  log.info('inf');
  log.debug('dbg');
  const lines = s.out();
  for (const l of lines) assert.match(l, LINE);
  assert.deepEqual(
    lines.map((l) => l.split(' ').slice(1).join(' ')),
    ['A server-main adv', 'C server-main crit', 'E server-main err', 'I server-main inf'],
  );
});

test('a writer takes exactly the levels of its set', () => {
  const s = setup('writers=stdout\nw.stdout.class=io.svc.log.LogConsoleWriter\nw.stdout.level=INFO,ERROR\n');
  const log = s.logs.logger('x');
  log.advisory('adv');
  log.critical('crit');
  log.error('err');
  log.info('inf');
  assert.deepEqual(
    s.out().map((l) => l.split(' ')[1]),
    ['E', 'I'],
  );
});

test('a logger goes to the writers of the longest scope its name starts with, and only to them', () => {
  const root = tmp();
  const conf = [
    'writers=stdout,minfile,all',
    'w.stdout.class=io.svc.log.LogConsoleWriter',
    'w.minfile.class=io.svc.log.LogFileWriter',
    `w.minfile.location=${join(root, 'min.log')}`,
    'w.minfile.scope=http-min',
    'w.minfile.level=ERROR',
    'w.all.class=io.svc.log.LogFileWriter',
    'w.all.location=${log.dir}/all.log',
  ].join('\n');
  const s = setup(conf);
  s.logs.logger('http-min-server').info('health info');
  s.logs.logger('http-min-server').error('health error');
  s.logs.logger('http-server').error('main error');
  const out = s.out();
  assert.deepEqual(
    out.map((l) => l.split(' ').slice(2).join(' ')),
    ['http-server main error'],
  );
  assert.deepEqual(
    readFileSync(join(root, 'min.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ').slice(2).join(' ')),
    ['http-min-server health error'],
  );
  assert.deepEqual(
    readFileSync(join(s.root, 'log', 'all.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(' ').slice(2).join(' ')),
    ['http-server main error'],
  );
});

test('SVC_LOG_ variables override keys, including camel-case writer properties and the writer list', () => {
  const s = setup('writers=stdout\nw.stdout.class=io.svc.log.LogConsoleWriter\nw.stdout.level=INFO\n', {
    env: {
      SVC_LOG_W_STDOUT_LEVEL: 'ERROR',
      SVC_LOG_WRITERS: 'stdout,roll',
      SVC_LOG_W_ROLL_CLASS: 'io.svc.log.LogRollingFileWriter',
      SVC_LOG_W_ROLL_LOCATION: '${log.dir}/r.log',
      SVC_LOG_W_ROLL_ROLLSIZE: '1k',
    },
  });
  const log = s.logs.logger('x');
  log.info('hidden');
  log.error('shown');
  assert.deepEqual(
    s.out().map((l) => l.split(' ').slice(3).join(' ')),
    ['shown'],
  );
  assert.match(readFileSync(join(s.root, 'log', 'r.log'), 'utf8'), /I x hidden\n.*E x shown\n/);
});

test('debug mode adds D lines to every writer', () => {
  const s = setup('writers=stdout\nw.stdout.class=io.svc.log.LogConsoleWriter\nw.stdout.level=ERROR\n', {
    debug: true,
  });
  const log = s.logs.logger('x');
  assert.equal(log.debugEnabled, true);
  log.debug('detail');
  log.info('not in the set');
  assert.deepEqual(
    s.out().map((l) => l.split(' ').slice(1).join(' ')),
    ['D x detail'],
  );
});

test('keeps every message on one line, and printf sequences in messages are not interpreted', () => {
  const s = setup(null);
  s.logs.logger('x').error('select 1\nfrom t 100%% %s', new Error('bad\nthing'));
  const out = s.out();
  assert.equal(out.length, 1);
  assert.match(out[0]!, /^\S+ E x select 1\\nfrom t 100%% %s: Error: bad\\nthing\\n {4}at /);
});

test('an interactive run keeps console lines in log/stdout-<ts>.txt; service mode writes log/service-<ts>.txt only', async () => {
  const a = setup(null, { consoleFile: true });
  a.logs.logger('x').info('hello');
  assert.deepEqual(a.out().length, 1);
  await a.logs.close();
  const fa = readdirSync(join(a.root, 'log'));
  assert.equal(fa.length, 1);
  assert.match(fa[0]!, /^stdout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.txt$/);
  assert.match(readFileSync(join(a.root, 'log', fa[0]!), 'utf8'), /I x hello\n$/);

  const b = setup(null, { service: true });
  b.logs.logger('x').info('quiet');
  assert.deepEqual(b.out(), [], 'nothing on standard output');
  await b.logs.close();
  const fb = readdirSync(join(b.root, 'log'));
  assert.match(fb[0]!, /^service-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.txt$/);
  assert.match(readFileSync(join(b.root, 'log', fb[0]!), 'utf8'), /I x quiet\n$/);
});

test('names the writer and the property of a bad configuration', () => {
  const bad: Array<[string, RegExp]> = [
    ['writers=x\n', /writer x has no w\.x\.class/],
    ['writers=x\nw.x.class=io.svc.log.Nope\n', /unknown class w\.x\.class=io\.svc\.log\.Nope/],
    ['writers=x\nw.x.class=io.svc.log.LogConsoleWriter\nw.x.level=LOUD\n', /invalid value w\.x\.level=LOUD/],
    ['writers=x\nw.x.class=io.svc.log.LogConsoleWriter\nw.x.colour=red\n', /unknown property w\.x\.colour/],
    ['writers=x\nw.x.class=io.svc.log.LogFileWriter\n', /w\.x\.location is required/],
    [
      'writers=x\nw.x.class=io.svc.log.LogRollingFileWriter\nw.x.location=a.log\nw.x.rollEvery=week\n',
      /invalid value w\.x\.rollEvery=week/,
    ],
    [
      'writers=x\nw.x.class=io.svc.log.LogRollingFileWriter\nw.x.location=a.log\nw.x.rollSize=huge\n',
      /invalid value w\.x\.rollSize=huge/,
    ],
    ['writers=x\nw.x.class=io.svc.log.LogAlertSocketWriter\nw.x.alertTargets=h:99999\n', /w\.x\.alertTargets=h:99999/],
  ];
  for (const [conf, re] of bad) {
    assert.throws(
      () => setup(conf),
      (e: Error) => {
        assert.match(e.message, /^log configuration .*custom\.conf: /);
        assert.match(e.message, re);
        return true;
      },
      conf,
    );
  }
});
