// Time zone offsets: fixed zones ('UTC', '+02:00', 'GMT+1') parsed from their
// name, IANA zones (DST-correct) from the runtime's tz data, cached per zone.
const formatters = new Map<string, Intl.DateTimeFormat>();

/** Micros of a fixed zone ('UTC', '+02:00', '-0530', 'GMT+1', '08:00'), or null for an IANA name. */
export function fixedZone(zone: string): number | null {
  const z = zone.trim().toUpperCase();
  if (z === 'UTC' || z === 'GMT' || z === 'Z') return 0;
  // An unsigned 'HH:MM' is east of UTC, as QuestDB reads it ('08:00').
  const m = /^(?:UTC|GMT)?([+-])(\d{1,2}):?(\d{2})?$/.exec(z) ?? /^()(\d{1,2}):(\d{2})$/.exec(z);
  if (!m) return null;
  const us = (Number(m[2]) * 60 + Number(m[3] ?? 0)) * 60_000_000;
  return m[1] === '-' ? -us : us;
}

/** Offset of an IANA zone from UTC at a UTC instant, in micros (DST-correct, from the runtime's tz data). */
export function ianaOffset(zone: string, utcMicros: number): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  const ms = Math.floor(utcMicros / 1000);
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day, parts.hour, parts.minute, parts.second);
  return (wall - (ms - (((ms % 1000) + 1000) % 1000))) * 1000;
}
