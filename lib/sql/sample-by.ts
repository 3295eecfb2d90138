// SAMPLE BY: the bucket of a timestamp for `SAMPLE BY 15m` and its kin.
// ALIGN TO CALENDAR (the default) puts boundaries on the calendar: strides of
// the unit counted from the epoch (weeks from a Monday; months and years from
// January), shifted by WITH OFFSET and computed in local time with TIME ZONE
// (DST-correct: the zone's offset at each instant). ALIGN TO FIRST
// OBSERVATION counts strides from the first row (or FROM).
import { SvcError } from '../errors/svc-error.js';
import { monthIndex, monthStart } from '../core/datetime.js';
import { resolveZone, zoneFixedOffset, zoneOffsetAt, type ZoneOffsetAt } from '../core/time-zones.js';
import { LONG_NULL } from '../core/column-type.js';

export type SampleUnit = 'U' | 'T' | 's' | 'm' | 'h' | 'd' | 'w' | 'M' | 'y';

export interface Sampling {
  readonly n: number;
  readonly unit: SampleUnit;
  /** Micros added to calendar boundaries (WITH OFFSET '00:15'). */
  readonly offset: number;
  /** IANA name or a fixed offset; null for UTC. */
  readonly zone: string | null;
  readonly firstObservation: boolean;
}

const UNIT_US: Record<string, number> = {
  U: 1,
  T: 1000,
  s: 1_000_000,
  m: 60_000_000,
  h: 3_600_000_000,
  d: 86_400_000_000,
  w: 604_800_000_000,
};
/**
 * Micros of one unit of an interval (`10m`, `1h`), months and years as 30 and 365 days: for
 * lengths that are not calendar strides (timer intervals, periods, defaults chosen by size).
 */
export function unitMicros(unit: SampleUnit): number {
  return UNIT_US[unit] ?? (unit === 'M' ? 30 * UNIT_US.d! : 365 * UNIT_US.d!);
}

/** 1969-12-29, the Monday before the epoch: week strides start there. */
const WEEK_ORIGIN = -3 * 86_400_000_000;

/** `15m` -> {n: 15, unit: 'm'}; `w` -> {n: 1, unit: 'w'}. */
export function parseSampleInterval(text: string, pos: number): { n: number; unit: SampleUnit } {
  const m = /^(\d*)\s*(U|T|s|m|h|d|w|M|y)$/.exec(text.trim());
  if (!m)
    throw new SvcError(
      'SQL',
      `Invalid SAMPLE BY interval [${text}]: expected a number and a unit (U, T, s, m, h, d, w, M, y), e.g. 15m`,
      { position: pos },
    );
  const n = m[1] === '' ? 1 : Number(m[1]);
  if (n < 1 || n > 1_000_000)
    throw new SvcError('SQL', `Invalid SAMPLE BY interval [${text}]: the count must be from 1`, { position: pos });
  return { n, unit: m[2] as SampleUnit };
}

/** `+hh:mm` / `-hh:mm` / `hh:mm` -> micros. */
export function parseOffset(text: string, pos: number): number {
  const m = /^([+-])?(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!m || Number(m[3]) > 59)
    throw new SvcError('SQL', `Invalid WITH OFFSET [${text}]: expected '[+-]hh:mm'`, { position: pos });
  const us = (Number(m[2]) * 60 + Number(m[3])) * 60_000_000;
  return m[1] === '-' ? -us : us;
}

/** Checks a zone name (IANA, a fixed offset or an abbreviation: core/time-zones.ts resolveZone) now, so a bad one is an error at its position. */
export function checkZone(zone: string, pos: number): void {
  if (resolveZone(zone) === null) throw new SvcError('SQL', `Invalid TIME ZONE [${zone}]`, { position: pos });
}

/** Bucket arithmetic for one SAMPLE BY; `origin` is set by the first observation when aligned to it. */
export class Buckets {
  readonly s: Sampling;
  origin: number | null;
  readonly #fixed: number | null;
  readonly #zone: ZoneOffsetAt | null;
  readonly #hourOffsets = new Map<number, number>();

  constructor(s: Sampling, origin: number | null) {
    this.s = s;
    this.origin = origin;
    this.#fixed = s.zone === null ? 0 : zoneFixedOffset(s.zone);
    this.#zone = s.zone === null ? null : zoneOffsetAt(s.zone);
  }

  /** The zone's offset at a UTC instant (cached per hour). */
  #offset(utc: number): number {
    if (this.#fixed !== null) return this.#fixed;
    if (this.#zone === null) return 0;
    const h = Math.floor(utc / 3_600_000_000);
    let o = this.#hourOffsets.get(h);
    if (o === undefined) {
      o = this.#zone(h * 3_600_000_000);
      if (this.#hourOffsets.size > 100_000) this.#hourOffsets.clear();
      this.#hourOffsets.set(h, o);
    }
    return o;
  }

  /** The start of the bucket holding `t` (UTC micros). */
  floor(t: number): number {
    const s = this.s;
    if (s.firstObservation) {
      const o = this.origin ?? t;
      if (this.origin === null) this.origin = t;
      if (s.unit === 'M' || s.unit === 'y') {
        const k = s.unit === 'y' ? 12 * s.n : s.n;
        const base = monthIndex(o);
        const idx = base + Math.floor((monthIndex(t) - base) / k) * k;
        return monthStart(idx) + (o - monthStart(monthIndex(o)));
      }
      const stride = s.n * UNIT_US[s.unit]!;
      return o + Math.floor((t - o) / stride) * stride;
    }
    const off = this.#offset(t);
    const local = t + off - s.offset;
    let b: number;
    if (s.unit === 'M' || s.unit === 'y') {
      const k = s.unit === 'y' ? 12 * s.n : s.n;
      b = monthStart(Math.floor(monthIndex(local) / k) * k);
    } else if (s.unit === 'w') {
      const stride = s.n * UNIT_US.w!;
      b = WEEK_ORIGIN + Math.floor((local - WEEK_ORIGIN) / stride) * stride;
    } else {
      const stride = s.n * UNIT_US[s.unit]!;
      b = Math.floor(local / stride) * stride;
    }
    b += s.offset;
    // Back to UTC with the offset in force at the boundary (it may differ across a DST change).
    return this.#fixed !== null ? b - off : b - this.#offset(b - off);
  }

  /**
   * out[i] = floor(t[i]) for rows [0, n), LONG_NULL kept: with a fixed stride (no months, no
   * DST zone, no first observation) a bucket is [b, b + stride) in UTC, so rows that stay in the
   * last one found (ascending timestamps: nearly all) take it without the arithmetic.
   */
  floorAll(t: Float64Array, out: Float64Array, n: number): void {
    const s = this.s;
    const fixedStride = s.unit !== 'M' && s.unit !== 'y' && !s.firstObservation && this.#fixed !== null;
    const stride = fixedStride ? s.n * UNIT_US[s.unit]! : 0;
    let lo = Infinity,
      hi = -Infinity,
      b = 0;
    for (let i = 0; i < n; i++) {
      const v = t[i]!;
      if (v >= lo && v < hi) {
        out[i] = b;
        continue;
      }
      if (v === LONG_NULL) {
        out[i] = LONG_NULL;
        continue;
      }
      b = this.floor(v);
      if (fixedStride) {
        lo = b;
        hi = b + stride;
      }
      out[i] = b;
    }
  }

  /** The start of the bucket after the one starting at `b`. */
  next(b: number): number {
    const s = this.s;
    if (s.unit === 'M' || s.unit === 'y') {
      const k = s.unit === 'y' ? 12 * s.n : s.n;
      const off = this.s.firstObservation ? 0 : this.#offset(b);
      const local = b + off;
      const nxt = monthStart(monthIndex(local) + k) + (local - monthStart(monthIndex(local)));
      return this.s.firstObservation ? nxt : nxt - this.#offset(nxt - off);
    }
    const stride = s.n * UNIT_US[s.unit]!;
    if (s.firstObservation || this.#fixed !== null) return b + stride;
    // In a zone with DST, the next local boundary: step and floor again.
    return this.floor(b + stride + 1);
  }
}
