// The server's Prometheus registry (prom-client) with every svc_ metric in one
// place. One instance per server, so several servers can share a process.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Default metrics that are gauges named like counters: left out. */
const GAUGES_NAMED_TOTAL = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

export class Metrics {
  readonly registry = new Registry();

  /** Errors that reached the top of a request or the process without being handled; only via recordUnhandled(). */
  readonly #unhandledErrors = new Counter({
    name: 'svc_unhandled_errors_total',
    help: 'Unhandled errors since the server started',
    registers: [this.registry],
  });

  /** Requests failed by a condition of the machine or of the server's state, not a bug nor the client (507 disk full, 503 unavailable). */
  readonly environmentErrors = new Counter({
    name: 'svc_environment_errors_total',
    help: 'Requests that failed for a condition of the machine or of the server (disk full, unavailable), by error code',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });

  readonly httpRequests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests served, by server, endpoint, method and status',
    labelNames: ['server', 'endpoint', 'method', 'status'] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: 'svc_http_request_duration_seconds',
    help: 'HTTP request latency from request start to response end, by server and endpoint',
    labelNames: ['server', 'endpoint'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  });

  readonly httpRows = new Counter({
    name: 'svc_http_rows_total',
    help: 'Result rows sent by the main server (execute, exp) and rows written by its statements, by endpoint',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });

  readonly httpBytes = new Counter({
    name: 'svc_http_response_bytes_total',
    help: 'Response body bytes produced by the main server before compression, by endpoint',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });

  readonly httpErrors = new Counter({
    name: 'svc_http_errors_total',
    help: 'Main server requests answered with a 4xx or 5xx status or cut short, by endpoint',
    labelNames: ['endpoint'] as const,
    registers: [this.registry],
  });

  readonly alertsSent = new Counter({
    name: 'svc_alerts_sent_total',
    help: 'Critical-log alerts delivered to an alert manager',
    registers: [this.registry],
  });

  readonly alertsFailed = new Counter({
    name: 'svc_alerts_failed_total',
    help: 'Critical-log alerts that could not be delivered to any target (or were dropped on overflow)',
    registers: [this.registry],
  });

  /**
   * The unhandled-error count, shared with the health worker thread so that the
   * pessimistic health check reads it without waiting for the main event loop.
   */
  readonly unhandledShared = new Int32Array(new SharedArrayBuffer(4));

  #processMetrics = false;

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics) this.enableProcessMetrics();
  }

  /** Adds the process metrics (CPU, memory, event loop lag, handles) as svc_process_* and svc_nodejs_*. */
  enableProcessMetrics(): void {
    if (this.#processMetrics) return;
    this.#processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
    // prom-client's *_total gauges break the naming rule `promtool check metrics` enforces
    // (_total is for counters); the per-type gauges they sum stay (svc_nodejs_active_handles...).
    for (const name of GAUGES_NAMED_TOTAL) this.registry.removeSingleMetric(`svc_${name}`);
  }

  /** Counts an unhandled error (svc_unhandled_errors_total and the shared count). */
  recordUnhandled(): void {
    this.#unhandledErrors.inc();
    Atomics.add(this.unhandledShared, 0, 1);
  }

  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
