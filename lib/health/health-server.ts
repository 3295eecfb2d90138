// The minimal health server (port 9003): health check, /lifecycle, /metrics.
// With http.min.worker.count >= 1 it runs in a worker thread; with 0 it shares
// the main event loop.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import type { HostPort } from '../config/value-types.js';
import { closeGracefully, listen } from '../net/listen.js';
import type { ComponentRegistry } from '../lifecycle/component-registry.js';
import type { Logger } from '../log/log-manager.js';
import type { Metrics } from '../metrics/metrics.js';
import { createHealthHttpServer, type HealthBackend } from './health-http.js';
import type { FromWorker, ToWorker } from './health-messages.js';
import { HealthResponder, type HealthSettings } from './health-responder.js';

export interface HealthServerOptions {
  readonly bindTo: HostPort;
  readonly workerCount: number;
  readonly settings: HealthSettings;
  readonly registry: ComponentRegistry;
  readonly metrics: Metrics;
  /** The http-min-server logger. */
  readonly log: Logger;
  /** How long a /metrics scrape served by the worker waits for the main thread. */
  readonly metricsTimeoutMs?: number;
}

export class HealthServer {
  readonly #opts: HealthServerOptions;
  #server: Server | null = null;
  #worker: Worker | null = null;
  #unsubscribe: (() => void) | null = null;
  #address: AddressInfo | null = null;
  #stopping = false;
  /** Called when the worker thread dies after it started. */
  onFailure: ((reason: string) => void) | null = null;

  constructor(opts: HealthServerOptions) {
    this.#opts = opts;
  }

  get address(): AddressInfo {
    if (!this.#address) throw new Error('health server is not listening');
    return this.#address;
  }

  async start(): Promise<AddressInfo> {
    this.#address = this.#opts.workerCount > 0 ? await this.#startWorker() : await this.#startInLoop();
    return this.#address;
  }

  async stop(graceMs: number): Promise<void> {
    this.#stopping = true;
    this.#unsubscribe?.();
    if (this.#server) await closeGracefully(this.#server, graceMs, () => undefined);
    const w = this.#worker;
    if (w) {
      const exited = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      w.postMessage({ type: 'stop', graceMs } satisfies ToWorker);
      const timer = setTimeout(() => {
        void w.terminate();
      }, graceMs + 1000);
      await exited;
      clearTimeout(timer);
    }
  }

  #onRequest(endpoint: string, method: string, status: number, seconds: number): void {
    this.#opts.metrics.httpRequests.inc({ server: 'min', endpoint, method, status: String(status) });
    this.#opts.metrics.httpDuration.observe({ server: 'min', endpoint }, seconds);
    this.#opts.log.debug(`${method} ${endpoint} ${status}`);
  }

  async #startInLoop(): Promise<AddressInfo> {
    const { registry, metrics, log } = this.#opts;
    const backend: HealthBackend = {
      snapshot: () => ({
        components: registry.report().components,
        unhandledErrors: Atomics.load(metrics.unhandledShared, 0),
      }),
      metrics: () => metrics.exposition(),
      onRequest: (e, m, s, t) => this.#onRequest(e, m, s, t),
      onError: (message) => log.error(message),
      onBadRequest: (message) => log.info(message),
    };
    this.#server = createHealthHttpServer(new HealthResponder(this.#opts.settings), backend);
    return listen(this.#server, this.#opts.bindTo);
  }

  #startWorker(): Promise<AddressInfo> {
    const { registry, metrics, log } = this.#opts;
    const worker = new Worker(new URL('./health-worker.js', import.meta.url), {
      workerData: {
        settings: this.#opts.settings,
        bindTo: this.#opts.bindTo,
        unhandled: metrics.unhandledShared,
        components: registry.report().components,
        metricsTimeoutMs: this.#opts.metricsTimeoutMs ?? 10_000,
      },
      // Small heap: the worker only serves tiny responses.
      resourceLimits: { maxOldGenerationSizeMb: 64 },
    });
    this.#worker = worker;
    this.#unsubscribe = registry.subscribe(() => {
      worker.postMessage({ type: 'lifecycle', components: registry.report().components } satisfies ToWorker);
    });
    return new Promise((resolve, reject) => {
      worker.on('message', (m: FromWorker) => {
        switch (m.type) {
          case 'listening':
            resolve(m.address);
            break;
          case 'start-error':
            reject(new Error(m.message));
            break;
          case 'request':
            this.#onRequest(m.endpoint, m.method, m.status, m.seconds);
            break;
          case 'log':
            if (m.level === 'error') log.error(m.message);
            else log.info(m.message);
            break;
          case 'metrics-request':
            metrics.exposition().then(
              (x) =>
                worker.postMessage({
                  type: 'metrics-reply',
                  id: m.id,
                  contentType: x.contentType,
                  body: x.body,
                } satisfies ToWorker),
              (e: unknown) =>
                worker.postMessage({ type: 'metrics-reply', id: m.id, error: String(e) } satisfies ToWorker),
            );
            break;
        }
      });
      worker.on('error', (e) => {
        metrics.recordUnhandled();
        log.critical('health worker failed', e);
        reject(e);
      });
      worker.on('exit', (code) => {
        if (this.#stopping) return;
        const reason = `health worker exited with code ${code}`;
        reject(new Error(reason));
        if (this.#address) {
          log.critical(reason);
          this.onFailure?.(reason);
        }
      });
    });
  }
}
