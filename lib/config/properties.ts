// Java-properties text to ordered key/value entries: the syntax of server.conf
// and log.conf. Pure function; callers decide what the keys mean.

export interface PropertyEntry {
  readonly key: string;
  readonly value: string;
  /** One-based line where the entry starts. */
  readonly line: number;
}

/**
 * Parses properties text as java.util.Properties does: `#` and `!` comments,
 * `key=value`, `key: value` or `key value`, a trailing backslash continues the
 * line, escapes `\t \n \r \f \uXXXX` and `\x` for any other x.
 */
export function parseProperties(text: string): PropertyEntry[] {
  const out: PropertyEntry[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    const startLine = i + 1;
    let logical = (lines[i] ?? '').replace(/^[ \t\f]+/, '');
    if (logical === '' || logical[0] === '#' || logical[0] === '!') continue;
    while (endsWithOddBackslashes(logical) && i + 1 < lines.length) {
      i++;
      logical = logical.slice(0, -1) + (lines[i] ?? '').replace(/^[ \t\f]+/, '');
    }
    if (endsWithOddBackslashes(logical)) logical = logical.slice(0, -1);
    // The key ends at the first unescaped '=', ':' or white space.
    let k = 0;
    while (k < logical.length) {
      const c = logical[k];
      if (c === '\\') {
        k += 2;
        continue;
      }
      if (c === '=' || c === ':' || c === ' ' || c === '\t' || c === '\f') break;
      k++;
    }
    const rawKey = logical.slice(0, Math.min(k, logical.length));
    let v = k;
    while (v < logical.length && /[ \t\f]/.test(logical[v] ?? '')) v++;
    if (v < logical.length && (logical[v] === '=' || logical[v] === ':')) v++;
    while (v < logical.length && /[ \t\f]/.test(logical[v] ?? '')) v++;
    out.push({ key: unescape(rawKey), value: unescape(logical.slice(v)), line: startLine });
  }
  return out;
}

function endsWithOddBackslashes(s: string): boolean {
  let n = 0;
  for (let j = s.length - 1; j >= 0 && s[j] === '\\'; j--) n++;
  return n % 2 === 1;
}

function unescape(s: string): string {
  if (!s.includes('\\')) return s;
  let r = '';
  for (let j = 0; j < s.length; j++) {
    const c = s[j];
    if (c !== '\\' || j + 1 >= s.length) {
      r += c;
      continue;
    }
    const n = s[++j];
    switch (n) {
      case 't':
        r += '\t';
        break;
      case 'n':
        r += '\n';
        break;
      case 'r':
        r += '\r';
        break;
      case 'f':
        r += '\f';
        break;
      case 'u': {
        const hex = s.slice(j + 1, j + 5);
        if (/^[0-9a-fA-F]{4}$/.test(hex)) {
          r += String.fromCharCode(parseInt(hex, 16));
          j += 4;
        } else r += 'u';
        break;
      }
      default:
        r += n;
    }
  }
  return r;
}

/** Last value per key, as Properties.load keeps it. */
export function propertiesToMap(entries: readonly PropertyEntry[]): Map<string, PropertyEntry> {
  const m = new Map<string, PropertyEntry>();
  for (const e of entries) m.set(e.key, e);
  return m;
}
