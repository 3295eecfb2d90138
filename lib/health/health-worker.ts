// The health server in its own thread (http.min.worker.count >= 1): answers
// the health check and /lifecycle from state the main thread pushes to it and
// from the shared unhandled-error count, so a busy main event loop cannot delay
// them. /metrics asks the main thread, which owns the registry.
import { parentPort, workerData } from 'node:worker_threads';
import type { HostPort } from '../config/value-types.js';
import { listen } from '../net/listen.js';
import type { ComponentReport } from '../lifecycle/component-registry.js';
import { createHealthHttpServer } from './health-http.js';
import { HealthResponder, type HealthSettings } from './health-responder.js';
import type { FromWorker, ToWorker } from './health-messages.js';

interface Data {
  readonly settings: HealthSettings;
  readonly bindTo: HostPort;
  readonly unhandled: Int32Array;
  readonly components: readonly ComponentReport[];
  readonly metricsTimeoutMs: number;
}

const port = parentPort;
if (!port) throw new Error('health-worker must run in a worker thread');
const data = workerData as Data;
const post = (m: FromWorker): void => port.postMessage(m);

let components = data.components;
let nextId = 1;
const pending = new Map<
  number,
  { resolve: (m: { contentType: string; body: string }) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }
>();

const server = createHealthHttpServer(new HealthResponder(data.settings), {
  snapshot: () => ({ components, unhandledErrors: Atomics.load(data.unhandled, 0) }),
  metrics: () =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the main thread did not answer within ${data.metricsTimeoutMs} ms`));
      }, data.metricsTimeoutMs);
      pending.set(id, { resolve, reject, timer });
      post({ type: 'metrics-request', id });
    }),
  onRequest: (endpoint, method, status, seconds) => post({ type: 'request', endpoint, method, status, seconds }),
  onError: (message) => post({ type: 'log', level: 'error', message }),
  onBadRequest: (message) => post({ type: 'log', level: 'info', message }),
});

port.on('message', (m: ToWorker) => {
  switch (m.type) {
    case 'lifecycle':
      components = m.components;
      break;
    case 'metrics-reply': {
      const p = pending.get(m.id);
      if (!p) break;
      pending.delete(m.id);
      clearTimeout(p.timer);
      if (m.error !== undefined) p.reject(new Error(m.error));
      else p.resolve({ contentType: m.contentType ?? 'text/plain', body: m.body ?? '' });
      break;
    }
    case 'stop':
      server.close(() => {
        port.close();
      });
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), m.graceMs).unref();
      break;
  }
});

listen(server, data.bindTo).then(
  (address) =>
    post({ type: 'listening', address: { address: address.address, port: address.port, family: address.family } }),
  (e: unknown) => {
    post({ type: 'start-error', message: e instanceof Error ? e.message : String(e) });
    port.close();
  },
);
