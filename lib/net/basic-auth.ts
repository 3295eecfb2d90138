// HTTP basic authentication (SPEC.md "Authentication" rules 1, 3, 5): the
// credential is base64(user:password), the password is everything after the
// first colon; comparison in constant time. Used by the main and health servers.
import { createHash, timingSafeEqual } from 'node:crypto';

export class BasicAuth {
  readonly #user: Buffer;
  readonly #password: Buffer;

  /**
   * Null when authentication is off (neither set). One without the other is
   * refused, never read as "off": the configuration loader already stops on it.
   */
  static fromConfig(user: string, password: string): BasicAuth | null {
    if (user === '' && password === '') return null;
    if (user === '' || password === '') throw new Error('basic authentication needs both http.user and http.password');
    return new BasicAuth(user, password);
  }

  constructor(user: string, password: string) {
    if (user.includes(':')) throw new Error('http.user cannot contain a colon');
    this.#user = digest(user);
    this.#password = digest(password);
  }

  /** Whether an Authorization header value carries the configured credentials. */
  check(header: string | undefined): boolean {
    if (header === undefined) return false;
    const m = /^Basic\s+([A-Za-z0-9+/=._~-]+)\s*$/i.exec(header);
    if (!m) return false;
    const decoded = Buffer.from(m[1] ?? '', 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    // Compare digests so both sides have equal length; evaluate both always.
    const userOk = timingSafeEqual(digest(decoded.slice(0, colon)), this.#user);
    const passOk = timingSafeEqual(digest(decoded.slice(colon + 1)), this.#password);
    return userOk && passOk;
  }
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s, 'utf8').digest();
}

export const WWW_AUTHENTICATE = 'Basic realm="svcdb", charset="UTF-8"';
