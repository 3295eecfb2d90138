// What the binder needs of a catalog: whether a table exists, and its columns
// and designated timestamp. sql/ binds against this narrow interface and never
// imports lib/storage; the storage Catalog implements it (structurally).
import type { ColumnType } from '../core/column-type.js';

/** A column as the binder sees it; `id` is stable and names the designated timestamp. */
export interface ColumnSchema {
  readonly id: number;
  readonly name: string;
  readonly type: ColumnType;
}

export interface TableSchema {
  /** The table's name as it was created (its case). */
  readonly name: string;
  readonly columns: readonly ColumnSchema[];
  /** Id of the designated timestamp column, or -1. */
  readonly timestampId: number;
  /** QuestDB's WAL flag (wal_transactions() refuses a table without it); absent: false. */
  readonly wal?: boolean;
}

/** A stored view: its query as written (storage/views.ts keeps it). */
export interface ViewSource {
  readonly name: string;
  readonly sql: string;
  /** Epoch micros of its last change. */
  readonly updated: number;
}

export interface SchemaSource {
  /** The view of that name, or null; absent: a source without views. */
  view?(name: string): ViewSource | null;
  /** Every view, in name order. */
  views?(): readonly ViewSource[];
  /**
   * A materialized view's EXPIRE ROWS policy as its definition keeps it (the clause after EXPIRE
   * ROWS, without CLEANUP EVERY), or null; absent: a source without policies.
   */
  expireRows?(name: string): { readonly clause: string } | null;
  /** Whether the table of that name is a live view (SHOW CREATE LIVE VIEW); absent: none are. */
  isLiveView?(name: string): boolean;
  /** Whether a table of that name exists (names compare case-insensitively). */
  exists(name: string): boolean;
  /**
   * The table's schema as it is now. Throws an SvcError when there is no such
   * table (NOT_FOUND: the binder places it in the SQL text as a SQL error) or
   * when the table cannot be read (its own error, e.g. a corrupt table's).
   */
  schema(name: string): TableSchema;
}
