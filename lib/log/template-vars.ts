// `${log.dir}` and `${date:<format>}` in log.conf writer locations.
import { formatDatePattern } from './clock.js';

/** Whether a location changes with time (and so names a new file when a writer rolls). */
export function hasDateVar(location: string): boolean {
  return /\$\{date:[^}]*\}/.test(location);
}

export function expandLocation(location: string, vars: Readonly<Record<string, string>>, micros: number): string {
  return location.replace(/\$\{([^}]+)\}/g, (whole, name: string) => {
    if (name.startsWith('date:')) return formatDatePattern(name.slice(5).trim(), micros);
    const v = vars[name];
    if (v === undefined)
      throw new Error(
        `unknown variable ${whole} (known: ${Object.keys(vars)
          .map((k) => '${' + k + '}')
          .join(', ')}, \${date:<format>})`,
      );
    return v;
  });
}
