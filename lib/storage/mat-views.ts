// A materialized view's own files in its table folder: `_mv` (its definition: the query as
// written, the base table, how it refreshes) and `_mv.s` (its refresh state: the base table's
// transaction and partitions it reflects, when it last refreshed, why it is invalid). Both JSON,
// replaced atomically. The view's rows are an ordinary table's files beside them. FORMAT.md
// "Materialized views" documents the files.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../errors/svc-error.js';
import { atomicWrite, type CommitMode } from './io.js';

export const MV_FILE = '_mv';
export const MV_STATE_FILE = '_mv.s';
const MV_FORMAT = 1;

export interface MatViewRefreshDef {
  readonly type: 'immediate' | 'manual' | 'timer';
  /** The timer's interval as written (`10m`) and in micros (months and years: 30 and 365 days), or null. */
  readonly every: string | null;
  readonly everyMicros: number | null;
  /** The timer's first tick (epoch micros) and its zone as written; null: the view's creation. */
  readonly start: number | null;
  readonly timeZone: string | null;
  /** PERIOD (LENGTH l [TIME ZONE z] [DELAY d]) as written, or 'sample'; recorded and shown. */
  readonly period:
    { readonly length: string; readonly timeZone: string | null; readonly delay: string | null } | 'sample' | null;
}

export interface MatViewDef {
  /** The query as written. */
  readonly sql: string;
  /** The table whose commits the view follows (its name as created). */
  readonly baseTable: string;
  readonly refresh: MatViewRefreshDef;
  /**
   * EXPIRE ROWS: the policy as written (`WHEN ts < now()`, `KEEP LATEST PARTITION BY sym`) and
   * CLEANUP EVERY as written (null: not written, 1h); absent: no policy. Reads filter by it.
   */
  readonly expire?: MatViewExpireDef;
  /** A live view's clauses (CREATE LIVE VIEW); absent for a materialized view. */
  readonly live?: LiveViewDef;
}

export interface MatViewExpireDef {
  readonly clause: string;
  readonly cleanupEvery: string | null;
}

/** CREATE LIVE VIEW's clauses: durations as written and in micros, START FROM resolved. */
export interface LiveViewDef {
  readonly flushEvery: string;
  readonly flushEveryMicros: number;
  readonly inMemory: string;
  readonly inMemoryMicros: number;
  /** PARTITION BY as written, or null (the base table's). */
  readonly partitionBy: string | null;
  /** START FROM as written: 'NOW', 'BEGINNING' or the timestamp literal's text. */
  readonly startFrom: string;
  /** The inclusive lower bound of the base rows the view holds (epoch micros), or null for BEGINNING. */
  readonly startMicros: number | null;
}

/** A base partition as the view last saw it: enough to tell what changed since (mat-view-refresh.ts). */
export interface SeenPartition {
  readonly name: string;
  readonly dir: string;
  readonly rows: number;
  readonly minTs: number;
  readonly maxTs: number;
}

export interface MatViewState {
  /** The base table's transaction the view reflects (-1: never refreshed). */
  readonly baseTxn: number;
  readonly basePartitions: readonly SeenPartition[];
  readonly lastRefreshStart: number | null;
  readonly lastRefreshFinish: number | null;
  /** Why the view no longer follows its base table (REFRESH ... FULL makes it valid again), or null. */
  readonly invalid: string | null;
  /**
   * A PERIOD view: where the base rows it has seen but not applied begin (they are in a period
   * not complete at its last refresh), or null; and the end of the last complete period then.
   */
  readonly pendingFrom?: number | null;
  readonly periodHi?: number | null;
  /** A live view: the rows it holds and the last one's timestamp (what an in-order append follows). */
  readonly liveRows?: number;
  readonly liveLastTs?: number | null;
  /** A live view: whether its last refresh appended its new rows only (false: replaced them all). */
  readonly liveAppended?: boolean;
  /** A live view: ALTER LIVE VIEW ... SUSPEND WAL stopped its refreshes (RESUME WAL starts them again). */
  readonly liveSuspended?: boolean;
}

export const NEW_STATE: MatViewState = {
  baseTxn: -1,
  basePartitions: [],
  lastRefreshStart: null,
  lastRefreshFinish: null,
  invalid: null,
};

export interface MatViewFiles {
  def: MatViewDef;
  state: MatViewState;
}

export function isMatViewFolder(dir: string): boolean {
  return existsSync(join(dir, MV_FILE));
}

export function writeMatViewDef(dir: string, def: MatViewDef, mode: CommitMode): void {
  atomicWrite(join(dir, MV_FILE), JSON.stringify({ format: MV_FORMAT, ...def }), mode);
}

export function writeMatViewState(dir: string, state: MatViewState, mode: CommitMode): void {
  atomicWrite(join(dir, MV_STATE_FILE), JSON.stringify(state), mode);
}

/** Reads both files; a missing state file is a view never refreshed (a crash right after CREATE). */
export function readMatView(dir: string): MatViewFiles {
  const path = join(dir, MV_FILE);
  const def = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  if (def.format !== MV_FORMAT || typeof def.sql !== 'string' || typeof def.baseTable !== 'string') {
    throw new SvcError('INTERNAL', `not a materialized view definition of format ${MV_FORMAT} [path=${path}]`);
  }
  const statePath = join(dir, MV_STATE_FILE);
  const state = existsSync(statePath) ? (JSON.parse(readFileSync(statePath, 'utf8')) as MatViewState) : NEW_STATE;
  const { format: _format, ...rest } = def;
  return { def: rest as unknown as MatViewDef, state };
}
