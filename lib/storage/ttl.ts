// A table's time to live (TTL), as QuestDB keeps it: a number of hours, days, weeks, months or
// years. Whole partitions go once their time range ends at or before the reference time minus
// the TTL; the reference time is the table's newest timestamp, capped by the wall clock (a row
// dated far in the future must not empty the table). Months and years are calendar periods.
import { addMonths } from '../core/datetime.js';
import { SvcError } from '../errors/svc-error.js';
import type { PartitionBy } from './partition-by.js';
import { partitionCeil, partitionFloor } from './partition-by.js';
import type { PartitionState } from './table-state.js';

export const TTL_UNITS = ['HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export type TtlUnit = (typeof TTL_UNITS)[number];

export interface Ttl {
  readonly value: number;
  readonly unit: TtlUnit;
}

const HOUR_US = 3_600_000_000;
const HOURS: Record<TtlUnit, number> = { HOUR: 1, DAY: 24, WEEK: 168, MONTH: 0, YEAR: 0 };
const MONTHS: Record<TtlUnit, number> = { HOUR: 0, DAY: 0, WEEK: 0, MONTH: 1, YEAR: 12 };
const LETTERS: Record<string, TtlUnit> = { H: 'HOUR', D: 'DAY', W: 'WEEK', M: 'MONTH', Y: 'YEAR' };
const INT_MAX = 2_147_483_647;

/**
 * A TTL as written after the TTL keyword: `7 DAYS`, `2w`, `12 HOURS`, `0` (none). QuestDB's
 * messages; `pos` is where the text starts (the error positions count from it).
 */
export function parseTtl(text: string, pos: number): Ttl {
  const s = text.trimEnd();
  if (s.trim() === '')
    throw new SvcError('SQL', 'missing argument, should be TTL <number> <unit> or <number_with_unit>', {
      position: pos,
    });
  const m = /^(\s*)([0-9][0-9_]*)(\s*)([A-Za-z]*)\s*$/.exec(s);
  if (m === null) {
    const word = /^\s*([A-Za-z]+)\s*$/.exec(s)?.[1];
    if (word !== undefined && /^(HOUR|DAY|WEEK|MONTH|YEAR)S?$/i.test(word))
      throw new SvcError('SQL', 'invalid argument, should be TTL <number> <unit> or <number_with_unit>', {
        position: pos,
      });
    const first = /^\s*(\S)/.exec(s)?.[1] ?? '';
    const shown = /^[A-Za-z]/.test(first) ? (/^\s*([A-Za-z]\w*)/.exec(s)?.[1] ?? first) : first;
    throw new SvcError('SQL', `invalid syntax, should be TTL <number> <unit> but was TTL ${shown}`, { position: pos });
  }
  const [, lead, digits, gap, word] = m as unknown as [string, string, string, string, string];
  const value = Number(digits.replace(/_/g, ''));
  const unitPos = pos + lead.length + digits.length + gap.length;
  if (value === 0 && word === '') return { value: 0, unit: 'HOUR' };
  if (word === '')
    throw new SvcError('SQL', "missing unit, 'HOUR(S)', 'DAY(S)', 'WEEK(S)', 'MONTH(S)' or 'YEAR(S)' expected", {
      position: unitPos,
    });
  let unit: TtlUnit;
  if (gap === '' && word.length === 1) {
    const u = LETTERS[word.toUpperCase()];
    if (u === undefined)
      throw new SvcError('SQL', `invalid time unit, expecting 'H', 'D', 'W', 'M' or 'Y', but was '${word}'`, {
        position: unitPos,
      });
    unit = u;
  } else {
    const up = word.toUpperCase().replace(/S$/, '');
    if (!(TTL_UNITS as readonly string[]).includes(up))
      throw new SvcError(
        'SQL',
        `invalid unit, expected 'HOUR(S)', 'DAY(S)', 'WEEK(S)', 'MONTH(S)' or 'YEAR(S)', but was '${word}'`,
        { position: unitPos },
      );
    unit = up as TtlUnit;
  }
  if (value > INT_MAX)
    throw new SvcError('SQL', `TTL value out of range: ${value}. Max value: ${INT_MAX}`, { position: pos });
  const per = HOURS[unit] || MONTHS[unit];
  if (per > 1 && value > Math.floor(INT_MAX / per)) {
    const name = `${unit.toLowerCase()}s`;
    throw new SvcError('SQL', `value out of range: ${value} ${name}. Max value: ${Math.floor(INT_MAX / per)} ${name}`, {
      position: pos,
    });
  }
  return { value, unit };
}

/** QuestDB's rules for where a TTL may be set: a partitioned table, whole partitions. */
export function checkTtl(ttl: Ttl, partitionBy: PartitionBy, pos: number): void {
  if (ttl.value === 0) return;
  if (partitionBy === 'NONE') throw new SvcError('SQL', 'cannot set TTL on a non-partitioned table', { position: pos });
  const hours = ttl.value * HOURS[ttl.unit];
  const months = ttl.value * MONTHS[ttl.unit];
  const ok =
    partitionBy === 'HOUR'
      ? true
      : partitionBy === 'DAY'
        ? months > 0 || hours % 24 === 0
        : partitionBy === 'WEEK'
          ? months > 0 || hours % 168 === 0
          : partitionBy === 'MONTH'
            ? months > 0
            : months > 0 && months % 12 === 0;
  if (!ok) throw new SvcError('SQL', 'TTL value must be an integer multiple of partition size', { position: pos });
}

/** `2 HOURS`, `1 DAY`: how SHOW CREATE TABLE writes it. */
export function ttlText(ttl: Ttl): string {
  return `${ttl.value} ${ttl.unit}${ttl.value === 1 ? '' : 'S'}`;
}

/**
 * The partitions a TTL removes: those whose time range ends at or before min(`maxTs`, `now`)
 * minus the TTL. The partition holding the newest row never goes.
 */
export function expiredPartitions(
  partitions: readonly PartitionState[],
  by: PartitionBy,
  ttl: Ttl | undefined,
  maxTs: number,
  now: number,
): PartitionState[] {
  if (ttl === undefined || ttl.value === 0 || by === 'NONE' || partitions.length === 0) return [];
  const ref = Math.min(maxTs, now);
  if (!Number.isFinite(ref)) return [];
  const cutoff =
    MONTHS[ttl.unit] > 0 ? addMonths(ref, -ttl.value * MONTHS[ttl.unit]) : ref - ttl.value * HOURS[ttl.unit] * HOUR_US;
  return partitions.filter((p) => partitionCeil(by, partitionFloor(by, p.minTs)) <= cutoff);
}
