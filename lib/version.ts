// svcdb's version, read once from package.json (two levels above dist/lib).
import { readFileSync } from 'node:fs';

function readVersion(): string {
  for (const rel of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(rel, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === 'svcdb' && pkg.version) return pkg.version;
    } catch {
      // Not at this depth (running from source or from dist); try the next.
    }
  }
  return '0.0.0-unknown';
}

export const VERSION = readVersion();
