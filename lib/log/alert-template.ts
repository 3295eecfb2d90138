// The alert template of the alert socket writer (SPEC.md "Events", "Alert template"):
// the built-in default, loading from `location`, validation at construction, and a
// pre-split form so rendering an alert at send time is a cheap join.
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { formatDatePattern } from './clock.js';

/**
 * The built-in template: one firing alert whose labels identify the instance and
 * whose `message` annotation carries the critical log message.
 */
export const DEFAULT_ALERT_TEMPLATE: string = JSON.stringify(
  [
    {
      Status: 'firing',
      Labels: {
        alertname: 'SvcdbInstanceLogs',
        service: 'svcdb',
        category: 'application-logs',
        severity: 'critical',
        version: '${SVC_VERSION}',
        cluster: '${CLUSTER_NAME}',
        orgid: '${ORGID}',
        namespace: '${NAMESPACE}',
        instance: '${INSTANCE_NAME}',
        alertTimestamp: '${date: yyyy/MM/ddTHH:mm:ss.SSS}',
      },
      Annotations: {
        description: 'ERROR/${ORGID}/${NAMESPACE}/${CLUSTER_NAME}/${INSTANCE_NAME}',
        message: '${ALERT_MESSAGE}',
      },
    },
  ],
  null,
  2,
);

/** The environment variables a template may name; each defaults to `GLOBAL`. */
export const ALERT_ENV_NAMES = ['ORGID', 'NAMESPACE', 'CLUSTER_NAME', 'INSTANCE_NAME'] as const;

/** Values fixed for the life of the writer, substituted once at construction. */
export interface AlertTemplateValues {
  readonly env: NodeJS.ProcessEnv;
  readonly version: string;
}

/** A placeholder whose value is only known at send time. */
type DynamicPart = { readonly kind: 'message' } | { readonly kind: 'date'; readonly format: string };
type Part = string | DynamicPart;

const PLACEHOLDER = /\$\{([^}]*)\}/g;
const DATE_PREFIX = 'date:';

/**
 * The text as it would appear inside a JSON string literal, without the quotes.
 * JSON.stringify escapes quotes, backslashes, control characters and (since
 * ES2019) lone surrogates, so the result is always valid inside `"..."`.
 */
export function escapeJsonString(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}

/** A template split into literal text and send-time placeholders. */
export class AlertTemplate {
  /** Length of the literal parts, to estimate the size of a rendered alert. */
  readonly literalLength: number;

  private constructor(private readonly parts: readonly Part[]) {
    this.literalLength = parts.reduce((n, p) => n + (typeof p === 'string' ? p.length : 0), 0);
  }

  /**
   * Splits `text`, substitutes the fixed values, and checks that a rendered alert
   * is a JSON array of objects. Throws an Error whose message starts with `source`.
   */
  static compile(text: string, values: AlertTemplateValues, source: string): AlertTemplate {
    const parts: Part[] = [];
    let literal = '';
    let last = 0;
    for (const m of text.matchAll(PLACEHOLDER)) {
      literal += text.slice(last, m.index);
      last = m.index + m[0].length;
      const name = (m[1] ?? '').trim();
      if (name.startsWith(DATE_PREFIX)) {
        const format = name.slice(DATE_PREFIX.length).trim();
        if (format === '') throw new Error(`${source}: empty date format in ${m[0]}`);
        parts.push(literal, { kind: 'date', format });
        literal = '';
      } else if (name === 'ALERT_MESSAGE') {
        parts.push(literal, { kind: 'message' });
        literal = '';
      } else if (name === 'SVC_VERSION') {
        literal += escapeJsonString(values.version);
      } else if ((ALERT_ENV_NAMES as readonly string[]).includes(name)) {
        const v = values.env[name];
        literal += escapeJsonString(v === undefined || v === '' ? 'GLOBAL' : v);
      } else {
        throw new Error(
          `${source}: unknown placeholder ${m[0]} (expected ALERT_MESSAGE, SVC_VERSION, ` +
            `${ALERT_ENV_NAMES.join(', ')} or date:<format>)`,
        );
      }
    }
    parts.push(literal + text.slice(last));
    const template = new AlertTemplate(parts.filter((p) => p !== ''));
    template.validate(source);
    return template;
  }

  /** The alert JSON for an already escaped message (see escapeJsonString) at `micros`. */
  render(escapedMessage: string, micros: number): string {
    let out = '';
    for (const p of this.parts) {
      if (typeof p === 'string') out += p;
      else if (p.kind === 'message') out += escapedMessage;
      else out += escapeJsonString(formatDatePattern(p.format, micros));
    }
    return out;
  }

  private validate(source: string): void {
    // A sample with quotes and a backslash also catches a placeholder outside a string.
    const sample = this.render(escapeJsonString('sample "alert" message \\ with escapes'), Date.now() * 1000);
    let parsed: unknown;
    try {
      parsed = JSON.parse(sample);
    } catch (e) {
      const why = e instanceof Error ? e.message : String(e);
      throw new Error(`${source}: not valid JSON after substituting placeholders (${why})`, { cause: e });
    }
    if (!Array.isArray(parsed) || parsed.length === 0) {
      throw new Error(`${source}: must be a non-empty JSON array of alert objects`);
    }
    parsed.forEach((a: unknown, i) => {
      if (a === null || typeof a !== 'object' || Array.isArray(a)) {
        throw new Error(`${source}: element ${i} of the alert array is not an object`);
      }
    });
  }
}

/**
 * The template named by a writer's `location` property (absolute, or relative to
 * `root`; `${log.dir}` is replaced by `logDir`), or the built-in one when the
 * location is absent or empty. `prop` names the property in error messages.
 */
export function loadAlertTemplate(
  location: string | undefined,
  dirs: { readonly root: string; readonly logDir: string },
  values: AlertTemplateValues,
  prop: string,
): AlertTemplate {
  const loc = location?.trim() ?? '';
  if (loc === '') return AlertTemplate.compile(DEFAULT_ALERT_TEMPLATE, values, 'built-in alert template');
  const expanded = loc.split('${log.dir}').join(dirs.logDir);
  const path = isAbsolute(expanded) ? expanded : resolve(dirs.root, expanded);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
    throw new Error(`${prop}: cannot read alert template ${path} (${code})`, { cause: e });
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return AlertTemplate.compile(text, values, `${prop}: alert template ${path}`);
}
