// Finds, creates and reads log.conf (SPEC.md "Logging configuration" 3, 4, 7):
// `-Dout=<path>` if given, else <root>/conf/log.conf, created from the bundled
// default when missing; then SVC_LOG_* environment overrides.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { propertiesToMap, parseProperties } from '../config/properties.js';

/** The bundled default log.conf (also shipped as conf/log.conf in the package). */
export const DEFAULT_LOG_CONF = `# svcdb log configuration.
# writers: comma-separated writer names; each has w.<name>.class and optional
# w.<name>.level (a set of ADVISORY, CRITICAL, ERROR, INFO, DEBUG; default all but
# DEBUG), w.<name>.scope (the writer takes only loggers whose name starts with it;
# a logger goes to the writers of the longest matching scope, writers without a
# scope take the rest), w.<name>.location (\${log.dir}, \${date:<format>}),
# w.<name>.rollEvery (minute, hour, day, month, year) and w.<name>.rollSize (1g).
# Any key can be overridden by SVC_LOG_<KEY>, e.g. SVC_LOG_W_STDOUT_LEVEL.
# Debug lines are added to every writer by -Debug or SVC_DEBUG=true.
writers=stdout,http.min

# The console: standard output (and log/stdout-<timestamp>.txt) in an
# interactive run, log/service-<timestamp>.txt with \`serve --service\`.
w.stdout.class=io.svc.log.LogConsoleWriter
w.stdout.level=ADVISORY,CRITICAL,ERROR,INFO

# The health server's own messages: only its problems reach the console.
w.http.min.class=io.svc.log.LogConsoleWriter
w.http.min.level=ADVISORY,CRITICAL,ERROR
w.http.min.scope=http-min-server

# A rolling file: add "file" to writers to use it.
w.file.class=io.svc.log.LogRollingFileWriter
w.file.location=\${log.dir}/svcdb-\${date:yyyy-MM-dd}.log
w.file.level=ADVISORY,CRITICAL,ERROR,INFO
w.file.rollEvery=day
w.file.rollSize=1g

# Critical messages as alerts to an Alertmanager: add "alert" to writers.
w.alert.class=io.svc.log.LogAlertSocketWriter
w.alert.level=CRITICAL
w.alert.alertTargets=127.0.0.1:9093
w.alert.reconnectDelay=250
`;

export interface LogConfSource {
  /** Final key/value pairs after environment overrides. */
  readonly values: ReadonlyMap<string, string>;
  /** The file read, or `(bundled default)`. */
  readonly path: string;
  readonly created: boolean;
  /** Keys overridden from the environment, for the startup advisory. */
  readonly overridden: readonly string[];
}

/** Writer properties that SVC_LOG_ variables may set even when the file does not mention them. */
const WRITER_PROPS = [
  'class',
  'level',
  'scope',
  'location',
  'rollEvery',
  'rollSize',
  'alertTargets',
  'defaultAlertHost',
  'defaultAlertPort',
  'inBufferSize',
  'outBufferSize',
  'reconnectDelay',
];

export function loadLogConf(root: string, dOut: string | undefined, env: NodeJS.ProcessEnv): LogConfSource {
  let path: string;
  let created = false;
  let text: string;
  if (dOut !== undefined) {
    path = resolve(dOut);
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new Error(`cannot read log configuration -Dout=${dOut}: ${(e as Error).message}`, { cause: e });
    }
  } else {
    path = join(root, 'conf', 'log.conf');
    if (!existsSync(path)) {
      try {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, DEFAULT_LOG_CONF);
        created = true;
      } catch {
        // A read-only root still starts, with the bundled default.
        path = '(bundled default)';
      }
    }
    text = path === '(bundled default)' ? DEFAULT_LOG_CONF : readFileSync(path, 'utf8');
  }
  const values = new Map([...propertiesToMap(parseProperties(text))].map(([k, e]) => [k, e.value]));
  const overridden = applyEnvOverrides(values, env);
  return { values, path, created, overridden };
}

function envKey(key: string): string {
  return 'SVC_LOG_' + key.toUpperCase().replace(/\./g, '_');
}

/**
 * SVC_LOG_<KEY> overrides <key>. Variable names lose case and dots, so each is
 * matched against the keys it could mean: the file's keys, `writers`, and the
 * writer properties of every writer named in `writers` (after its own override).
 */
function applyEnvOverrides(values: Map<string, string>, env: NodeJS.ProcessEnv): string[] {
  const overridden: string[] = [];
  const set = (key: string): void => {
    const v = env[envKey(key)];
    if (v !== undefined) {
      values.set(key, v);
      overridden.push(key);
    }
  };
  set('writers');
  const candidates = new Set(values.keys());
  for (const w of (values.get('writers') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    for (const p of WRITER_PROPS) candidates.add(`w.${w}.${p}`);
  }
  candidates.delete('writers');
  for (const k of candidates) set(k);
  return overridden;
}
