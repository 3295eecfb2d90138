// What the health server answers (SPEC.md "Health server"), as a function of
// the request and a state snapshot, so the same rules serve in the main event
// loop and in the health worker thread.
import { BasicAuth, WWW_AUTHENTICATE } from '../net/basic-auth.js';
import type { ComponentReport } from '../lifecycle/component-registry.js';
import { nowMicros } from '../log/clock.js';
import { SvcError } from '../errors/svc-error.js';

export interface HealthSettings {
  readonly user: string;
  readonly password: string;
  /** http.health.check.authentication.required */
  readonly authRequired: boolean;
  readonly metricsEnabled: boolean;
  /** http.pessimistic.health.check.enabled */
  readonly pessimistic: boolean;
}

export interface HealthSnapshot {
  readonly components: readonly ComponentReport[];
  readonly unhandledErrors: number;
}

export type HealthAnswer =
  | {
      readonly kind: 'text' | 'json';
      readonly status: number;
      readonly body: string;
      readonly headers?: Record<string, string>;
      readonly endpoint: string;
    }
  /** Answered through net/error-answer.ts in the health server's shape. */
  | { readonly kind: 'error'; readonly error: SvcError; readonly endpoint: string }
  | { readonly kind: 'metrics'; readonly endpoint: string };

/** The credentials the health server checks: the main server's, unless its authentication is not required. */
export function healthAuthOf(settings: HealthSettings): BasicAuth | null {
  return settings.authRequired ? BasicAuth.fromConfig(settings.user, settings.password) : null;
}

export class HealthResponder {
  readonly #settings: HealthSettings;
  readonly #auth: BasicAuth | null;

  constructor(settings: HealthSettings) {
    this.#settings = settings;
    this.#auth = healthAuthOf(settings);
  }

  answer(
    method: string,
    rawUrl: string,
    authorization: string | undefined,
    snapshot: () => HealthSnapshot,
  ): HealthAnswer {
    const path = pathOf(rawUrl);
    const endpoint = path === '/lifecycle' ? 'lifecycle' : path === '/metrics' ? 'metrics' : 'health';
    if (method !== 'GET' && method !== 'HEAD') {
      // QuestDB's line, as the main port answers it.
      return {
        kind: 'error',
        endpoint,
        error: new SvcError('METHOD_NOT_ALLOWED', `Method ${method} not supported`, {
          headers: { Allow: 'GET, HEAD' },
          plainText: true,
        }),
      };
    }
    if (this.#auth && !this.#auth.check(authorization)) {
      return {
        kind: 'error',
        endpoint,
        error: new SvcError('UNAUTHORIZED', 'unauthorized', { headers: { 'WWW-Authenticate': WWW_AUTHENTICATE } }),
      };
    }
    if (endpoint === 'lifecycle') {
      const report = { capturedAtMicros: nowMicros(), components: snapshot().components };
      return { kind: 'json', status: 200, endpoint, body: JSON.stringify(report) };
    }
    if (endpoint === 'metrics') {
      if (!this.#settings.metricsEnabled) {
        return {
          kind: 'error',
          endpoint,
          error: new SvcError('NOT_FOUND', 'metrics are disabled [metrics.enabled=false]'),
        };
      }
      return { kind: 'metrics', endpoint };
    }
    // Every other path is the health check (SPEC.md: path segments are ignored).
    if (this.#settings.metricsEnabled && this.#settings.pessimistic) {
      const n = snapshot().unhandledErrors;
      if (n > 0) return { kind: 'text', status: 500, endpoint, body: `Status: Unhealthy\nUnhandled errors: ${n}\n` };
    }
    return { kind: 'text', status: 200, endpoint, body: 'Status: Healthy' };
  }
}

function pathOf(rawUrl: string): string {
  const q = rawUrl.indexOf('?');
  const p = q < 0 ? rawUrl : rawUrl.slice(0, q);
  // Trailing slashes do not change the endpoint: /lifecycle/ is /lifecycle.
  return p.length > 1 ? p.replace(/\/+$/, '') : p;
}
