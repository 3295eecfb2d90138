// The composition root: loads the configuration and logging, registers the
// components in dependency order, starts them, and stops them in reverse.
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { Config, loadConfig } from './config/config.js';
import { SvcError, errorMessage } from './errors/svc-error.js';
import { healthAuthOf, type HealthSettings } from './health/health-responder.js';
import { HealthServer } from './health/health-server.js';
import { BasicAuth } from './net/basic-auth.js';
import { debugRoutes } from './http/debug-routes.js';
import { ListenError, urlOf } from './net/listen.js';
import { MainServer } from './http/main-server.js';
import { Router } from './http/router.js';
import { sqlRoutes } from './http/sql-routes.js';
import { chkRoutes } from './http/chk-route.js';
import { consoleRoutes } from './http/console-route.js';
import { importRoutes } from './http/imp-route.js';
import { ComponentRegistry } from './lifecycle/component-registry.js';
import { loadLogConf } from './log/log-conf.js';
import { LogManager, type Logger } from './log/log-manager.js';
import { Metrics } from './metrics/metrics.js';
import { Database } from './db/database.js';
import { VERSION } from './version.js';

export interface ServerOptions {
  /** Database root (`-d`): conf/, db/, log/ live here. */
  readonly root: string;
  /** `-Dout=<path>`: the log.conf to use instead of <root>/conf/log.conf. */
  readonly logConf?: string;
  /** `-Debug` (SVC_DEBUG=true in env does the same). */
  readonly debug?: boolean;
  /** `--service`: console lines go to log/service-<ts>.txt instead of standard output. */
  readonly service?: boolean;
  readonly env?: NodeJS.ProcessEnv;
  /** Standard output; null for none. Default process.stdout. */
  readonly stdout?: NodeJS.WritableStream | null;
  /** Keep console lines in log/stdout-<ts>.txt (default true). */
  readonly consoleFile?: boolean;
}

/** Component names, as /lifecycle reports them. */
export const COMPONENTS = { metrics: 'metrics', health: 'http.min', storage: 'storage', main: 'http' } as const;

export class SvcdbServer {
  readonly root: string;
  readonly config: Config;
  readonly metrics: Metrics;
  readonly logs: LogManager;
  readonly registry: ComponentRegistry;
  #database: Database | null = null;
  readonly #log: Logger;
  readonly #main: MainServer;
  readonly #health: HealthServer | null;
  /** Whether each server actually checks credentials, for the start-up lines (which must tell the truth). */
  readonly #mainAuth: boolean;
  readonly #healthAuth: boolean;
  #stopping: Promise<void> | null = null;

  private constructor(root: string, config: Config, metrics: Metrics, logs: LogManager) {
    this.root = root;
    this.config = config;
    this.metrics = metrics;
    this.logs = logs;
    this.#log = logs.logger('server-main');
    this.registry = new ComponentRegistry({
      onTransition: (name, from, to, reason) => {
        const line = `component ${name}: ${from} -> ${to}${reason ? ` (${reason})` : ''}`;
        if (to === 'FAILED') this.#log.critical(line);
        else this.#log.info(line);
      },
      onNotStarted: (name, reason) => this.#log.error(`component ${name} not started: ${reason}`),
    });

    const router = new Router();
    const database = (): Database => this.database;
    for (const r of sqlRoutes({
      database,
      queryTimeoutMs: config.get('query.timeout'),
      exportTimeoutMs: config.get('http.export.timeout'),
      // Basic authentication admits http.user alone: the user every request runs as (QuestDB's 'admin' without it).
      principal: config.get('http.user') === '' ? 'admin' : config.get('http.user'),
    }))
      router.add(r);
    for (const r of importRoutes({ database })) router.add(r);
    for (const r of chkRoutes({ database })) router.add(r);
    for (const r of consoleRoutes()) router.add(r);
    if (config.get('http.debug.endpoints.enabled')) for (const r of debugRoutes) router.add(r);
    const auth = BasicAuth.fromConfig(config.get('http.user'), config.get('http.password'));
    this.#mainAuth = auth !== null;
    this.#main = new MainServer({
      router,
      auth,
      log: logs.logger('http-server'),
      metrics,
    });
    const healthSettings: HealthSettings = {
      user: config.get('http.user'),
      password: config.get('http.password'),
      authRequired: config.get('http.health.check.authentication.required'),
      metricsEnabled: config.get('metrics.enabled'),
      pessimistic: config.get('http.pessimistic.health.check.enabled'),
    };
    this.#healthAuth = healthAuthOf(healthSettings) !== null;
    this.#health = config.get('http.min.enabled')
      ? new HealthServer({
          bindTo: config.get('http.min.net.bind.to'),
          workerCount: config.get('http.min.worker.count'),
          settings: healthSettings,
          registry: this.registry,
          metrics,
          log: logs.logger('http-min-server'),
        })
      : null;
  }

  /**
   * Loads configuration and logging and starts every component. Throws an
   * SvcError('CONFIG') with a one-line message for bad configuration, and an
   * Error when a component cannot start (everything started is stopped again).
   */
  static async start(opts: ServerOptions): Promise<SvcdbServer> {
    const env = opts.env ?? process.env;
    const root = resolve(opts.root);
    try {
      for (const d of ['conf', 'db', 'log']) mkdirSync(join(root, d), { recursive: true });
    } catch (e) {
      throw new SvcError('CONFIG', `cannot create the root folder ${root}: ${mkdirProblem(e)}`);
    }
    const loaded = loadConfig(root, env);
    const debug = opts.debug === true || env.SVC_DEBUG === 'true';
    const metrics = new Metrics();
    let logs: LogManager;
    try {
      const conf = loadLogConf(root, opts.logConf, env);
      logs = new LogManager({
        root,
        conf,
        debug,
        service: opts.service === true,
        stdout: opts.stdout === undefined ? process.stdout : opts.stdout,
        consoleFile: opts.consoleFile ?? true,
        env,
        version: VERSION,
        metrics,
      });
      const server = new SvcdbServer(root, loaded.config, metrics, logs);
      server.#announce(loaded.path, loaded.created, loaded.unknownKeys, conf.path, conf.overridden, debug);
      await server.#startComponents();
      return server;
    } catch (e) {
      throw e instanceof SvcError ? e : new SvcError('CONFIG', errorMessage(e), { cause: e });
    }
  }

  get mainAddress(): AddressInfo {
    return this.#main.address;
  }

  /** The database; available once the storage component has started. */
  get database(): Database {
    if (!this.#database) throw new SvcError('UNAVAILABLE', 'storage is not open');
    return this.#database;
  }
  get healthAddress(): AddressInfo | null {
    return this.#health?.address ?? null;
  }

  #announce(
    confPath: string,
    created: boolean,
    unknown: readonly string[],
    logConfPath: string,
    overridden: readonly string[],
    debug: boolean,
  ): void {
    const log = this.#log;
    log.advisory(`svcdb ${VERSION} on Node.js ${process.version}, pid ${process.pid}`);
    log.advisory(`root: ${this.root}`);
    log.advisory(`server.conf: ${confPath}${created ? ' (created with defaults)' : ''}`);
    log.advisory(
      `log.conf: ${logConfPath}${overridden.length ? ` (overridden from the environment: ${overridden.join(', ')})` : ''}${debug ? ', debug on' : ''}`,
    );
    if (this.logs.consoleFilePath) log.advisory(`console log: ${this.logs.consoleFilePath}`);
    for (const k of unknown) log.advisory(`unknown server.conf key ignored: ${k}`);
    log.advisory('config:');
    for (const line of this.config.describe()) log.advisory(` - ${line}`);
  }

  async #startComponents(): Promise<void> {
    const { registry, config, metrics } = this;
    registry.register({
      name: COMPONENTS.metrics,
      start: async () => {
        if (config.get('metrics.enabled')) metrics.enableProcessMetrics();
      },
      stop: async () => undefined,
    });
    const health = this.#health;
    if (health) {
      registry.register({
        name: COMPONENTS.health,
        softDependencies: [COMPONENTS.metrics],
        start: async (handle) => {
          health.onFailure = (reason) => handle.fail(reason);
          const a = await health.start();
          const where = config.get('http.min.worker.count') > 0 ? 'worker thread' : 'main event loop';
          this.#log.advisory(
            `health server listening on ${urlOf(a)} (${where}${this.#healthAuth ? ', basic authentication on' : ''})`,
          );
        },
        stop: () => health.stop(1000),
      });
    }
    registry.register({
      name: COMPONENTS.storage,
      // After the health server, so /lifecycle shows recovery progress.
      softDependencies: health ? [COMPONENTS.health] : [],
      start: async (handle) => {
        const log = this.logs.logger('storage');
        const database = Database.open(this.root, {
          config,
          onProgress: (done, total, table) =>
            handle.setProgress({ task: `opening table ${table}`, done, total, unit: 'tables' }),
        });
        handle.setProgress(null);
        this.#database = database;
        // The pool's threads start now rather than with the first import or query.
        database.workerPool()?.warm();
        for (const r of database.recovered) log.info(`recovered table ${r.table}: removed ${r.removed.join(', ')}`);
        for (const p of database.problems) log.critical(`cannot open table ${p.table}: ${p.error}`);
        log.advisory(
          `database ${database.dir}: ${database.tableCount - database.problems.length} tables open${database.problems.length ? `, ${database.problems.length} unusable` : ''}`,
        );
        return database.problems.length > 0 ? 'DEGRADED' : 'READY';
      },
      stop: async () => {
        await this.#database?.close();
      },
    });
    registry.register({
      name: COMPONENTS.main,
      hardRequiredDependencies: [COMPONENTS.storage],
      softDependencies: [COMPONENTS.metrics],
      start: async () => {
        const a = await this.#main.start(config.get('http.net.bind.to'));
        this.#log.advisory(`http server listening on ${urlOf(a)}${this.#mainAuth ? ' (basic authentication on)' : ''}`);
        if (config.get('http.debug.endpoints.enabled')) {
          this.#log.advisory(
            `debug endpoints on: ${debugRoutes.flatMap((r) => r.paths).join(', ')} (http.debug.endpoints.enabled; for tests only)`,
          );
        }
      },
      stop: () => this.#main.stop(config.get('http.shutdown.grace.period')),
    });
    const { failed, notStarted } = await registry.startAll();
    if (failed.length > 0 || notStarted.length > 0) {
      const why = failed
        .map((n) => `${n}: ${errorMessage(registry.failureOf(n))}${listenAdvice(n, registry.failureOf(n))}`)
        .join('; ');
      await this.stop();
      throw new Error(`cannot start ${[...failed, ...notStarted].join(', ')}${why ? ` (${why})` : ''}`);
    }
    this.#log.advisory('server is ready');
  }

  /** Counts and logs an error that escaped every handler; the server keeps running. */
  recordUnhandled(what: string, err: unknown): void {
    this.metrics.recordUnhandled();
    this.#log.critical(`unhandled ${what}`, err);
  }

  /** Graceful stop: in-flight requests get the grace period, components stop in reverse order, logs flush. */
  stop(reason = 'stop requested'): Promise<void> {
    this.#stopping ??= (async () => {
      this.#log.advisory(`stopping: ${reason}`);
      await this.registry.stopAll();
      this.#log.advisory('stopped');
      await this.logs.close();
    })();
    return this.#stopping;
  }
}

/** The setting that moves a server whose address could not be bound (the error says why). */
const BIND_SETTINGS: Readonly<Record<string, string>> = {
  [COMPONENTS.main]: 'http.net.bind.to',
  [COMPONENTS.health]: 'http.min.net.bind.to',
};

/** What to do about an address that cannot be bound: stop what holds it, or move the server. */
function listenAdvice(component: string, e: unknown): string {
  const key = BIND_SETTINGS[component];
  // The health server may listen on a thread of its own: its error comes back as a message.
  const message = errorMessage(e);
  if (
    key === undefined ||
    !(
      e instanceof ListenError || /^(port \d+ is already in use|no permission to listen|cannot listen on)/.test(message)
    )
  )
    return '';
  const env = `SVC_${key.toUpperCase().replace(/\./g, '_')}`;
  return `: ${/already in use/.test(message) ? 'stop the other server, or ' : ''}set ${key} in conf/server.conf or ${env}=<host:port>`;
}

/** Why a folder could not be made, in words (no errno code). */
function mkdirProblem(e: unknown): string {
  switch ((e as NodeJS.ErrnoException).code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied (give -d a folder you can write)';
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a part of the path is a file, not a folder (give -d a folder)';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'the disk is full';
    default:
      return errorMessage(e);
  }
}
