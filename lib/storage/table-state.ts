// The two metadata files of a table (FORMAT.md): `_meta.<version>` (columns,
// designated timestamp, partitioning) and `_txn` (the committed state: meta
// version, partitions with row counts, symbol dictionary sizes). Replacing
// `_txn` atomically is the commit.
import type { Ttl } from './ttl.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SvcError } from '../errors/svc-error.js';
import { isCanonicalType, type ColumnType } from '../core/column-type.js';
import { atomicWrite, type CommitMode } from './io.js';
import { PARTITION_BY, type PartitionBy } from './partition-by.js';

export const FORMAT_VERSION = 1;

export interface ColumnDef {
  /** Stable id: names files, survives renames. */
  readonly id: number;
  readonly name: string;
  readonly type: ColumnType;
  /** Txn that added the column: partitions created before it may lack its files (NULL). */
  readonly addedTxn: number;
  /**
   * SYMBOL options as QuestDB declares them (absent: its defaults, see SYMBOL_DEFAULTS): the
   * dictionary capacity hint, CACHE/NOCACHE, and INDEX [CAPACITY n]. svcdb's dictionary grows as
   * needed and lookups by value go through it, so these are recorded and shown, not enforced.
   */
  readonly symbolCapacity?: number;
  readonly symbolCached?: boolean;
  readonly indexed?: boolean;
  readonly indexCapacity?: number;
  /** DEDUP UPSERT KEYS member: rows with equal values in every key column replace each other. */
  readonly upsertKey?: boolean;
}

/** The optional per-column settings of ColumnDef. */
export type ColumnOptions = Pick<
  ColumnDef,
  'symbolCapacity' | 'symbolCached' | 'indexed' | 'indexCapacity' | 'upsertKey'
>;

/** Only the options that are set (the metadata file stays as it was for plain columns). */
export function columnOptions(c: ColumnOptions): ColumnOptions {
  const out: { -readonly [K in keyof ColumnOptions]: ColumnOptions[K] } = {};
  if (c.symbolCapacity !== undefined) out.symbolCapacity = c.symbolCapacity;
  if (c.symbolCached !== undefined) out.symbolCached = c.symbolCached;
  if (c.indexed) out.indexed = true;
  if (c.indexCapacity !== undefined) out.indexCapacity = c.indexCapacity;
  if (c.upsertKey) out.upsertKey = true;
  return out;
}

/** QuestDB's defaults for the SYMBOL options (cairo.default.symbol.capacity, cairo.index.value.block.size). */
export const SYMBOL_DEFAULTS = { capacity: 256, cached: true, indexCapacity: 256 } as const;

/** The upsert key columns (DEDUP UPSERT KEYS), empty when the table does not deduplicate. */
export function upsertKeys(meta: TableMeta): readonly ColumnDef[] {
  return meta.columns.filter((c) => c.upsertKey === true);
}

export interface TableMeta {
  readonly formatVersion: number;
  /** Unique per table creation (caches key on it). */
  readonly id: string;
  readonly name: string;
  readonly version: number;
  readonly columns: readonly ColumnDef[];
  /** Id of the designated timestamp column, or -1. */
  readonly timestampId: number;
  readonly partitionBy: PartitionBy;
  readonly maxUncommittedRows: number;
  /** Micros. */
  readonly o3MaxLag: number;
  readonly nextColumnId: number;
  /**
   * WAL write mode as QuestDB decides it (partitioned tables unless BYPASS WAL; absent: false).
   * svcdb writes every table the same way; the flag keeps QuestDB's rules that depend on it
   * (DEDUP needs it, one ADD COLUMN per ALTER on it) and is shown by tables() and SHOW CREATE TABLE.
   */
  readonly wal?: boolean;
  /** Time to live: partitions older than it go at each commit (storage/ttl.ts); absent: none. */
  readonly ttl?: Ttl;
  /**
   * The txn of the table's last REBASE WAL (absent: never rebased): its WAL transaction numbering
   * (wal_tables()) counts from there, while `_txn`'s own numbering, which names partition folders, goes on.
   */
  readonly walTxnBase?: number;
}

export interface PartitionState {
  /** Partition name (2024-01-15, default). */
  readonly name: string;
  /** Folder: `<name>.<txn that wrote this version>`. */
  readonly dir: string;
  readonly rows: number;
  /** Min and max designated timestamp (0 without one). */
  readonly minTs: number;
  readonly maxTs: number;
}

export interface SymbolState {
  readonly count: number;
  /** Bytes of the dictionary file holding `count` entries. */
  readonly bytes: number;
  /**
   * Whether any committed row holds NULL in the column: known since the
   * column's first commit (absent for tables written before it was tracked:
   * then unknown, read as possibly).
   */
  readonly nulls?: boolean;
}

export interface TxnState {
  readonly txn: number;
  readonly metaVersion: number;
  /** In timestamp order. */
  readonly partitions: readonly PartitionState[];
  /** By column id (as a string key). */
  readonly symbols: Readonly<Record<string, SymbolState>>;
}

export const TXN_FILE = '_txn';
export const metaFile = (version: number): string => `_meta.${version}`;

export function writeMeta(dir: string, meta: TableMeta, mode: CommitMode): void {
  atomicWrite(join(dir, metaFile(meta.version)), JSON.stringify(meta, null, 1), mode);
}

export function writeTxn(dir: string, txn: TxnState, mode: CommitMode): void {
  atomicWrite(join(dir, TXN_FILE), JSON.stringify(txn), mode);
}

export function readMeta(dir: string, version: number): TableMeta {
  const path = join(dir, metaFile(version));
  const m = readJson(path) as TableMeta;
  const ok =
    m &&
    m.formatVersion === FORMAT_VERSION &&
    typeof m.id === 'string' &&
    typeof m.name === 'string' &&
    Array.isArray(m.columns) &&
    m.columns.every((c) => Number.isInteger(c.id) && typeof c.name === 'string' && isCanonicalType(c.type)) &&
    (PARTITION_BY as readonly string[]).includes(m.partitionBy) &&
    m.version === version;
  if (!ok) throw corrupt(path, 'unexpected content');
  return m;
}

export function readTxn(dir: string): TxnState {
  const path = join(dir, TXN_FILE);
  const t = readJson(path) as TxnState;
  const ok =
    t &&
    Number.isInteger(t.txn) &&
    Number.isInteger(t.metaVersion) &&
    Array.isArray(t.partitions) &&
    t.partitions.every(
      (p) => typeof p.name === 'string' && typeof p.dir === 'string' && Number.isInteger(p.rows) && p.rows >= 0,
    ) &&
    typeof t.symbols === 'object' &&
    t.symbols !== null;
  if (!ok) throw corrupt(path, 'unexpected content');
  return t;
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw corrupt(path, (e as NodeJS.ErrnoException).code ?? String(e));
  }
  try {
    return JSON.parse(text);
  } catch {
    throw corrupt(path, 'not valid JSON (truncated or overwritten?)');
  }
}

function corrupt(path: string, why: string): SvcError {
  return new SvcError('INTERNAL', `cannot read table file ${path}: ${why}`);
}

/** The txn number a partition folder was written by (`2024-01-15.42` -> 42). */
export function dirTxn(dir: string): number {
  const i = dir.lastIndexOf('.');
  return i < 0 ? -1 : Number(dir.slice(i + 1));
}
