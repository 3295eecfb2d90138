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

/**
 * Zone abbreviations QuestDB resolves besides IANA names and offsets. Java's ZoneId.SHORT_IDS
 * (QuestDB's zone table adds them; EST, MST and HST are fixed offsets there), and CEST, which
 * QuestDB's docs use (`today('CEST')`, "a +2h offset") and which Java's zone names give to the
 * Central European zones: the zone's rules, so +01:00 in winter, as QuestDB's lookup does.
 * Ambiguous ones not listed here (BST as British time, IST as Irish time) are not guessed.
 */
const ABBREVIATIONS: Readonly<Record<string, string>> = {
  EST: '-05:00',
  HST: '-10:00',
  MST: '-07:00',
  ACT: 'Australia/Darwin',
  AET: 'Australia/Sydney',
  AGT: 'America/Argentina/Buenos_Aires',
  ART: 'Africa/Cairo',
  AST: 'America/Anchorage',
  BET: 'America/Sao_Paulo',
  BST: 'Asia/Dhaka',
  CAT: 'Africa/Harare',
  CNT: 'America/St_Johns',
  CST: 'America/Chicago',
  CTT: 'Asia/Shanghai',
  EAT: 'Africa/Addis_Ababa',
  ECT: 'Europe/Paris',
  IET: 'America/Indiana/Indianapolis',
  IST: 'Asia/Kolkata',
  JST: 'Asia/Tokyo',
  MIT: 'Pacific/Apia',
  NET: 'Asia/Yerevan',
  NST: 'Pacific/Auckland',
  PLT: 'Asia/Karachi',
  PNT: 'America/Phoenix',
  PRT: 'America/Puerto_Rico',
  PST: 'America/Los_Angeles',
  SST: 'Pacific/Guadalcanal',
  VST: 'Asia/Ho_Chi_Minh',
  CEST: 'Europe/Paris',
};

/** A zone's offset from UTC (micros) at a UTC instant. */
export type ZoneOffsetAt = (utcMicros: number) => number;

const resolved = new Map<string, ZoneOffsetAt | null>();

/**
 * THE zone resolver (to_timezone, to_utc, dateadd, today(tz), SAMPLE BY ... TIME ZONE, TICK
 * `@zone`, materialized views): a fixed offset ('+02:00', 'UTC', 'GMT+1'), an abbreviation
 * QuestDB knows (ABBREVIATIONS, any case) or an IANA name (any case, DST-correct). Null for an
 * unknown name; results are cached per name.
 */
export function resolveZone(zone: string): ZoneOffsetAt | null {
  let r = resolved.get(zone);
  if (r !== undefined) return r;
  r = resolve(zone);
  if (resolved.size > 10_000) resolved.clear();
  resolved.set(zone, r);
  return r;
}

/** The fixed offset (micros) a zone name stands for, abbreviations included; null for a zone with rules or an unknown one. */
export function zoneFixedOffset(zone: string): number | null {
  return fixedZone(ABBREVIATIONS[zone.trim().toUpperCase()] ?? zone);
}

function resolve(zone: string): ZoneOffsetAt | null {
  const name = ABBREVIATIONS[zone.trim().toUpperCase()] ?? zone.trim();
  const fixed = fixedZone(name);
  if (fixed !== null) return () => fixed;
  if (name === '' || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return null;
  try {
    ianaOffset(name, 0);
  } catch {
    return null;
  }
  return (utc) => ianaOffset(name, utc);
}

/** The zone's offset function; throws for an unknown zone (callers word the error). */
export function zoneOffsetAt(zone: string): ZoneOffsetAt {
  const r = resolveZone(zone);
  if (r === null) throw new RangeError(`unknown time zone: ${zone}`);
  return r;
}
