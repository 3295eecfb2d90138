// Loads <root>/conf/server.conf (creating it with documented defaults on first
// start), applies SVC_* environment overrides and validates every value into a
// typed Config. A bad value stops startup with one line naming key and value,
// and so does a combination that would half-enable a security feature.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError, errorMessage } from '../errors/svc-error.js';
import { CONFIG_KEYS, envName, type ConfigKey, type ConfigValue, type KeySpec } from './config-keys.js';
import { parseProperties } from './properties.js';

export class Config {
  readonly #values: Map<string, unknown>;
  /** Where each value came from: `default`, `server.conf:12` or `env SVC_...`. */
  readonly #sources: Map<string, string>;
  /** Reads the configuration again from where this one came from (reload()); null: nothing to reload from. */
  readonly #reloader: (() => Config) | null;

  constructor(values: Map<string, unknown>, sources: Map<string, string>, reloader: (() => Config) | null = null) {
    this.#values = values;
    this.#sources = sources;
    this.#reloader = reloader;
  }

  /**
   * `SELECT reload_config()`: reads server.conf and the SVC_* variables again and takes the
   * reloadable keys' new values (KeySpec.reloadable); the others wait for a restart. True when a
   * value changed, as QuestDB answers. A bad server.conf throws its one-line CONFIG error and
   * changes nothing.
   */
  reload(): boolean {
    if (this.#reloader === null) return false;
    const fresh = this.#reloader();
    let changed = false;
    for (const [k, spec] of Object.entries(CONFIG_KEYS)) {
      if ((spec as KeySpec<unknown>).reloadable !== true) continue;
      const v = fresh.#values.get(k);
      if (v !== this.#values.get(k)) changed = true;
      this.#values.set(k, v);
      const source = fresh.#sources.get(k);
      if (source === undefined) this.#sources.delete(k);
      else this.#sources.set(k, source);
    }
    return changed;
  }

  get<K extends ConfigKey>(k: K): ConfigValue<K> {
    return this.#values.get(k) as ConfigValue<K>;
  }

  /** Where the key's value came from, as SHOW PARAMETERS says it: the default, server.conf, or an SVC_* variable. */
  sourceOf(k: string): 'default' | 'conf' | 'env' {
    const s = this.#sources.get(k);
    return s === undefined ? 'default' : s.startsWith('env ') ? 'env' : 'conf';
  }

  /** `key : value` lines for the startup advisory log; secrets masked. */
  describe(): string[] {
    return Object.entries(CONFIG_KEYS).map(([k, spec]) => {
      const s = spec as KeySpec<unknown>;
      const v = this.#values.get(k);
      const shown = v === '' ? '(empty)' : s.secret ? '****' : s.type.format(v);
      return `${k} : ${shown} [${this.#sources.get(k) ?? 'default'}]`;
    });
  }

  static defaults(): Config {
    return new Config(new Map(Object.entries(CONFIG_KEYS).map(([k, s]) => [k, s.default])), new Map());
  }
}

export interface LoadedConfig {
  readonly config: Config;
  /** Keys in server.conf that svcdb does not know (logged as advisory). */
  readonly unknownKeys: readonly string[];
  /** True when server.conf did not exist and was written with defaults. */
  readonly created: boolean;
  readonly path: string;
}

/** The text of a fresh server.conf: every key documented, commented out at its default. */
export function defaultServerConf(): string {
  const lines = [
    '# svcdb server configuration (Java properties syntax).',
    '# Every key can also be set by an environment variable SVC_<KEY>, upper-cased',
    '# with dots as underscores (http.net.bind.to -> SVC_HTTP_NET_BIND_TO); it wins.',
    '# Remove the leading # to change a value.',
    '',
  ];
  for (const [k, spec] of Object.entries(CONFIG_KEYS)) {
    const s = spec as KeySpec<unknown>;
    lines.push(`# ${s.doc}`, `# type: ${s.type.name}`, `#${k}=${s.shownDefault ?? s.type.format(s.default)}`, '');
  }
  return lines.join('\n');
}

export function loadConfig(root: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const confDir = join(root, 'conf');
  const path = join(confDir, 'server.conf');
  let created = false;
  let text: string;
  try {
    if (!existsSync(path)) {
      mkdirSync(confDir, { recursive: true });
      writeFileSync(path, defaultServerConf());
      created = true;
    }
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new SvcError('CONFIG', `cannot read server.conf [path=${path}]: ${errorMessage(e)}`, { cause: e });
  }
  const values = new Map<string, unknown>();
  const sources = new Map<string, string>();
  for (const [k, s] of Object.entries(CONFIG_KEYS)) values.set(k, s.default);

  /** Where a value was set, as error messages say it; absent for defaults. */
  const where = new Map<string, string>();

  const unknownKeys: string[] = [];
  for (const entry of parseProperties(text)) {
    const spec = (CONFIG_KEYS as Record<string, KeySpec<unknown>>)[entry.key];
    if (!spec) {
      unknownKeys.push(entry.key);
      continue;
    }
    values.set(entry.key, parseValue(entry.key, spec, entry.value, `server.conf line ${entry.line}`));
    sources.set(entry.key, `server.conf:${entry.line}`);
    where.set(entry.key, `server.conf line ${entry.line}`);
  }
  for (const [k, s] of Object.entries(CONFIG_KEYS)) {
    const name = envName(k);
    const v = env[name];
    if (v === undefined) continue;
    values.set(k, parseValue(k, s, v, `environment variable ${name}`));
    sources.set(k, `env ${name}`);
    where.set(k, `environment variable ${name}`);
  }
  checkSecurity(values, where);
  return { config: new Config(values, sources, () => loadConfig(root, env).config), unknownKeys, created, path };
}

/**
 * Settings that would turn a security feature half on refuse to start rather
 * than run open while the operator believes otherwise: a user without a
 * password (or the reverse) would leave basic authentication off, and health
 * authentication explicitly required without credentials would guard nothing.
 */
function checkSecurity(values: ReadonlyMap<string, unknown>, where: ReadonlyMap<string, string>): void {
  const user = values.get('http.user') as string;
  const password = values.get('http.password') as string;
  const refuse = (k: ConfigKey, reason: string): never => {
    const spec = CONFIG_KEYS[k] as KeySpec<unknown>;
    const shown = spec.secret ? '****' : spec.type.format(values.get(k));
    throw new SvcError('CONFIG', `invalid value ${k}=${shown} (${where.get(k) ?? 'default'}): ${reason}`);
  };
  if (user !== '' && password === '') {
    refuse(
      'http.user',
      'http.password is empty, so basic authentication would be off; set http.password too, or leave http.user empty',
    );
  }
  if (password !== '' && user === '') {
    refuse(
      'http.password',
      'http.user is empty, so basic authentication would be off; set http.user too, or leave http.password empty',
    );
  }
  if (
    user === '' &&
    values.get('http.health.check.authentication.required') === true &&
    where.has('http.health.check.authentication.required')
  ) {
    refuse(
      'http.health.check.authentication.required',
      'no credentials are set (http.user, http.password), so the health server would be open; set them, or set this to false',
    );
  }
}

function parseValue(k: string, spec: KeySpec<unknown>, raw: string, where: string): unknown {
  try {
    return spec.type.parse(raw);
  } catch (e) {
    const shown = spec.secret ? '****' : raw;
    throw new SvcError('CONFIG', `invalid value ${k}=${shown} (${where}): ${errorMessage(e)}`);
  }
}
