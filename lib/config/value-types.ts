// Parsers for the value types of server.conf keys. Each returns the typed value
// or throws a plain Error whose message says what was expected; the config
// loader adds the key and the source.

export interface HostPort {
  readonly host: string;
  readonly port: number;
}

export interface ValueType<T> {
  /** Shown in server.conf comments and error messages. */
  readonly name: string;
  parse(text: string): T;
  format(value: T): string;
}

export const stringType: ValueType<string> = {
  name: 'string',
  parse: (t) => t,
  format: (v) => v,
};

/** A user name of HTTP basic authentication: the credential's colon ends it, so none inside. */
export const basicUserType: ValueType<string> = {
  name: 'string without a colon',
  parse(t) {
    if (t.includes(':')) throw new Error('a user name cannot contain a colon (the credential is user:password)');
    return t;
  },
  format: (v) => v,
};

export const booleanType: ValueType<boolean> = {
  name: 'boolean',
  parse(t) {
    const s = t.trim().toLowerCase();
    if (s === 'true') return true;
    if (s === 'false') return false;
    throw new Error('expected true or false');
  },
  format: (v) => String(v),
};

export function intType(min: number, max: number): ValueType<number> {
  return {
    name: `integer ${min}..${max}`,
    parse(t) {
      const s = t.trim();
      if (!/^-?\d+$/.test(s)) throw new Error(`expected an integer ${min}..${max}`);
      const n = Number(s);
      if (n < min || n > max) throw new Error(`expected an integer ${min}..${max}`);
      return n;
    },
    format: (v) => String(v),
  };
}

export const hostPortType: ValueType<HostPort> = {
  name: 'host:port',
  parse(t) {
    const s = t.trim();
    const i = s.lastIndexOf(':');
    if (i <= 0) throw new Error('expected host:port, e.g. 0.0.0.0:9000');
    let host = s.slice(0, i);
    if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
    const portText = s.slice(i + 1);
    if (!/^\d+$/.test(portText)) throw new Error('expected host:port with a numeric port');
    const port = Number(portText);
    if (port > 65535) throw new Error('port out of range 0..65535');
    if (!/^[A-Za-z0-9.\-:]+$/.test(host)) throw new Error('expected host:port with a host name or address');
    return { host, port };
  },
  format: (v) => (v.host.includes(':') ? `[${v.host}]` : v.host) + ':' + v.port,
};

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Milliseconds; `250`, `250ms`, `60s`, `5m`, `1h`, `1d`. */
export const durationType: ValueType<number> = {
  name: 'duration (ms, or with unit ms/s/m/h/d)',
  parse(t) {
    const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/i.exec(t.trim());
    if (!m) throw new Error('expected a duration such as 500ms, 60s or 5m');
    const unit = DURATION_UNITS[(m[2] ?? 'ms').toLowerCase()] ?? 1;
    return Math.round(Number(m[1]) * unit);
  },
  format(v) {
    if (v % 1000 === 0 && v > 0) return `${v / 1000}s`;
    return `${v}ms`;
  },
};

const SIZE_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3, t: 1024 ** 4 };

/** Bytes; `4096`, `512k`, `4m`, `1g` (binary multiples). */
export const sizeType: ValueType<number> = {
  name: 'size (bytes, or with unit k/m/g)',
  parse(t) {
    const m = /^(\d+)\s*([bkmgt]?)b?$/i.exec(t.trim());
    if (!m) throw new Error('expected a size such as 4096, 512k, 4m or 1g');
    return Number(m[1]) * (SIZE_UNITS[(m[2] ?? '').toLowerCase()] ?? 1);
  },
  format(v) {
    for (const [u, f] of [
      ['g', 1024 ** 3],
      ['m', 1024 ** 2],
      ['k', 1024],
    ] as const) {
      if (v >= f && v % f === 0) return `${v / f}${u}`;
    }
    return String(v);
  },
};

export function enumType<const T extends string>(values: readonly T[]): ValueType<T> {
  return {
    name: values.join('|'),
    parse(t) {
      const s = t.trim();
      const hit = values.find((v) => v.toLowerCase() === s.toLowerCase());
      if (hit === undefined) throw new Error(`expected one of ${values.join(', ')}`);
      return hit;
    },
    format: (v) => v,
  };
}
