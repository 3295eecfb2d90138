// Wall-clock time in epoch microseconds and its ISO-8601 rendering. Used by log
// lines, the lifecycle report and anything else that stamps events.
import { performance } from 'node:perf_hooks';

/** Epoch microseconds (exact in a double until the year 2255). */
export function nowMicros(): number {
  return Math.round((performance.timeOrigin + performance.now()) * 1000);
}

/** `2024-01-01T00:00:00.000000Z` for epoch microseconds. */
export function formatIsoMicros(micros: number): string {
  const ms = Math.floor(micros / 1000);
  const sub = micros - ms * 1000;
  const iso = new Date(ms).toISOString(); // yyyy-MM-ddTHH:mm:ss.SSSZ
  return iso.slice(0, 23) + String(sub).padStart(3, '0') + 'Z';
}

const TOKEN = /'[^']*'|yyyy|yy|MM|dd|HH|mm|ss|SSS|UUU|[A-Za-z]/g;

/**
 * Formats a UTC time with Java-style pattern letters: yyyy yy MM dd HH mm ss SSS
 * (millis) UUU (micros within the milli); text in single quotes is literal and
 * any other character is copied. Used by `${date:<format>}` in log.conf and in
 * alert templates. Unknown letters are copied as they are.
 */
export function formatDatePattern(pattern: string, micros: number): string {
  const d = new Date(Math.floor(micros / 1000));
  const p2 = (n: number): string => String(n).padStart(2, '0');
  return pattern.replace(TOKEN, (t) => {
    switch (t) {
      case 'yyyy':
        return String(d.getUTCFullYear()).padStart(4, '0');
      case 'yy':
        return p2(d.getUTCFullYear() % 100);
      case 'MM':
        return p2(d.getUTCMonth() + 1);
      case 'dd':
        return p2(d.getUTCDate());
      case 'HH':
        return p2(d.getUTCHours());
      case 'mm':
        return p2(d.getUTCMinutes());
      case 'ss':
        return p2(d.getUTCSeconds());
      case 'SSS':
        return String(d.getUTCMilliseconds()).padStart(3, '0');
      case 'UUU':
        return String(Math.floor(micros) % 1000).padStart(3, '0');
      default:
        return t.startsWith("'") ? t.slice(1, -1) : t;
    }
  });
}
