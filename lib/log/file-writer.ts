// io.svc.log.LogFileWriter (one file that grows) and io.svc.log.LogRollingFileWriter
// (a new file every rollEvery period and whenever rollSize would be passed; a
// line is never split across two files).
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { sizeType } from '../config/value-types.js';
import { nowMicros } from './clock.js';
import { FileSink } from './file-sink.js';
import { Level } from './levels.js';
import type { LogRecord, LogWriter, WriterContext } from './log-writer.js';
import { expandLocation } from './template-vars.js';

export const ROLL_UNITS = ['minute', 'hour', 'day', 'month', 'year'] as const;
export type RollUnit = (typeof ROLL_UNITS)[number];

function checkProps(ctx: WriterContext, allowed: readonly string[], cls: string): void {
  for (const k of ctx.props.keys()) {
    if (!allowed.includes(k)) throw new Error(`unknown property w.${ctx.name}.${k} for ${cls}`);
  }
}

function locationOf(ctx: WriterContext, micros: number): string {
  const loc = ctx.props.get('location');
  if (loc === undefined || loc.trim() === '') throw new Error(`w.${ctx.name}.location is required`);
  const path = expandLocation(loc.trim(), { 'log.dir': ctx.logDir }, micros);
  return isAbsolute(path) ? path : resolve(ctx.root, path);
}

export class FileWriter implements LogWriter {
  readonly mask: number;
  readonly #sink: FileSink;

  constructor(ctx: WriterContext) {
    checkProps(ctx, ['location'], 'LogFileWriter');
    this.mask = ctx.mask;
    this.#sink = new FileSink(locationOf(ctx, (ctx.now ?? nowMicros)()));
  }

  get path(): string {
    return this.#sink.path;
  }

  write(record: LogRecord): void {
    this.#sink.write(record.line + '\n', record.level === Level.CRITICAL);
  }

  flush(): void {
    this.#sink.flush();
  }

  async close(): Promise<void> {
    this.#sink.close();
  }
}

/** Epoch micros of the first instant of the next `unit` period after `micros` (UTC). */
export function nextRollMicros(unit: RollUnit, micros: number): number {
  const d = new Date(Math.floor(micros / 1000));
  const y = d.getUTCFullYear(),
    mo = d.getUTCMonth(),
    da = d.getUTCDate(),
    h = d.getUTCHours(),
    mi = d.getUTCMinutes();
  const ms = {
    minute: Date.UTC(y, mo, da, h, mi + 1),
    hour: Date.UTC(y, mo, da, h + 1),
    day: Date.UTC(y, mo, da + 1),
    month: Date.UTC(y, mo + 1, 1),
    year: Date.UTC(y + 1, 0, 1),
  }[unit];
  return ms * 1000;
}

export class RollingFileWriter implements LogWriter {
  readonly mask: number;
  readonly #ctx: WriterContext;
  readonly #now: () => number;
  readonly #rollEvery: RollUnit | null;
  readonly #rollSize: number;
  #sink: FileSink;
  #nextRoll: number;

  constructor(ctx: WriterContext) {
    checkProps(ctx, ['location', 'rollEvery', 'rollSize'], 'LogRollingFileWriter');
    this.mask = ctx.mask;
    this.#ctx = ctx;
    this.#now = ctx.now ?? nowMicros;
    const every = ctx.props.get('rollEvery')?.trim().toLowerCase();
    if (every !== undefined && every !== '' && !(ROLL_UNITS as readonly string[]).includes(every)) {
      throw new Error(`invalid value w.${ctx.name}.rollEvery=${every}: expected one of ${ROLL_UNITS.join(', ')}`);
    }
    this.#rollEvery = every ? (every as RollUnit) : null;
    const size = ctx.props.get('rollSize');
    try {
      this.#rollSize = size === undefined || size.trim() === '' ? 0 : sizeType.parse(size);
    } catch (e) {
      throw new Error(`invalid value w.${ctx.name}.rollSize=${size}: ${(e as Error).message}`, { cause: e });
    }
    const now = this.#now();
    this.#sink = new FileSink(locationOf(ctx, now));
    this.#nextRoll = this.#rollEvery ? nextRollMicros(this.#rollEvery, now) : Infinity;
  }

  get path(): string {
    return this.#sink.path;
  }

  write(record: LogRecord): void {
    const text = record.line + '\n';
    const now = this.#now();
    if (now >= this.#nextRoll) this.#roll(now);
    else if (this.#rollSize > 0 && this.#sink.size > 0 && this.#sink.size + Buffer.byteLength(text) > this.#rollSize) {
      this.#roll(now);
    }
    this.#sink.write(text, record.level === Level.CRITICAL);
  }

  /** Closes the current file and opens the next: the location at `now`, with `.1`, `.2`... if that name is taken. */
  #roll(now: number): void {
    this.#sink.close();
    const base = locationOf(this.#ctx, now);
    let path = base;
    for (let i = 1; existsSync(path); i++) path = `${base}.${i}`;
    this.#sink = new FileSink(path);
    if (this.#rollEvery) this.#nextRoll = nextRollMicros(this.#rollEvery, now);
  }

  flush(): void {
    this.#sink.flush();
  }

  async close(): Promise<void> {
    this.#sink.close();
  }
}
