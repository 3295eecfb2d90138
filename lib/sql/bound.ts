// The bound form of a query: typed expressions over input column indexes and
// a tree of logical plan nodes, each with its output fields. The binder makes
// it from the syntax tree; the executor turns it into operators.
import type { FileListing } from './bind-system.js';
import type { Interval } from '../core/batch.js';
import type { AggregateOverload, ScalarOverload } from '../functions/registry.js';
import type { SqlType } from '../core/sql-type.js';
import type { Buckets } from './sample-by.js';
import type { ParquetColumn } from './parquet-source.js';

/** A view as metadata shows it: its query, and its columns or why it does not bind now. */
/** The schema object categories SHOW CREATE DATABASE dumps (QuestDB's ACL ones have nothing to dump here). */
export type DumpCategory = 'TABLES' | 'VIEWS' | 'MATERIALIZED_VIEWS';

export interface ViewInfo {
  readonly name: string;
  readonly sql: string;
  readonly updated: number;
  /** Why the query does not bind against the tables as they are now; null when it does (valid). */
  readonly error: string | null;
  readonly fields: readonly Field[];
  /** Index of the designated timestamp among fields, or -1. */
  readonly timestamp: number;
}

export interface Field {
  readonly name: string;
  readonly type: SqlType;
}

export type BoundExpr =
  | { readonly kind: 'col'; readonly index: number; readonly type: SqlType }
  | { readonly kind: 'const'; readonly type: SqlType; readonly value: number | string | boolean | null }
  /** `pos`: the call's offset in the SQL text, for errors its kernel raises at run time. */
  /** `intervals`: for `in_intervals`, the sorted, merged [lo, hi) micros intervals of an interval literal. */
  /** `runArgs`: the arguments the kernel is given (indexes into args), when its bind hook took the others in already. */
  | {
      readonly kind: 'call';
      readonly name: string;
      readonly fn: ScalarOverload;
      readonly args: readonly BoundExpr[];
      readonly type: SqlType;
      readonly pos: number;
      readonly intervals?: readonly Interval[];
      readonly runArgs?: readonly number[];
    }
  /** `(SELECT ...)` as a value: its one column's only row (NULL without rows), computed before the batches (each execution's own: ExecContext.subqueryValues). */
  | {
      readonly kind: 'subquery';
      readonly plan: Plan;
      readonly type: SqlType;
      readonly pos: number;
      /** touch(SELECT ...): the query is read through and its value is what was read (exec/subqueries.ts). */
      readonly touch?: true;
    }
  /** `expr IN (SELECT ...)`: membership in the subquery's one column (NULL matches NULL, as QuestDB's = does). */
  | {
      readonly kind: 'inSubquery';
      readonly expr: BoundExpr;
      readonly plan: Plan;
      readonly type: 'BOOLEAN';
      readonly pos: number;
    };

export interface BoundAggregate {
  readonly name: string;
  readonly fn: AggregateOverload;
  readonly args: readonly BoundExpr[];
  readonly type: SqlType;
}

export interface SortKey {
  readonly index: number;
  readonly desc: boolean;
}

/** The window functions the executor computes (lib/exec/window.ts). */
export type WindowFunctionName =
  | 'row_number'
  | 'rank'
  | 'dense_rank'
  | 'percent_rank'
  | 'cume_dist'
  | 'ntile'
  | 'lag'
  | 'lead'
  | 'first_value'
  | 'last_value'
  | 'sum'
  | 'ksum'
  | 'nth_value'
  | 'avg'
  | 'min'
  | 'max'
  | 'count';

/**
 * A resolved frame: bounds relative to the current row, -Infinity for
 * UNBOUNDED PRECEDING, -n for n PRECEDING, 0 for CURRENT ROW, n for n
 * FOLLOWING, Infinity for UNBOUNDED FOLLOWING. ROWS counts rows; RANGE
 * compares the one ORDER BY value (micros for a TIMESTAMP, millis for a DATE),
 * or with bounds of 0 and infinities only, peers (rows equal on every ORDER BY key).
 */
export interface BoundFrame {
  readonly unit: 'ROWS' | 'RANGE';
  readonly start: number;
  readonly end: number;
}

/** One window function call: `fn(args) OVER (PARTITION BY ... ORDER BY ... frame)` over the input's columns. */
export interface BoundWindow {
  readonly fn: WindowFunctionName;
  /** The value (lag/lead/first_value/last_value/aggregates; none for count(*) and ranking) and lag/lead's default. */
  readonly args: readonly BoundExpr[];
  readonly partitionBy: readonly BoundExpr[];
  readonly orderBy: ReadonlyArray<{ readonly expr: BoundExpr; readonly desc: boolean }>;
  /** Defaults applied (whole partition without ORDER BY, RANGE UNBOUNDED PRECEDING .. CURRENT ROW with it). */
  readonly frame: BoundFrame;
  /** lag / lead: rows back or ahead; ntile: the number of buckets. */
  readonly offset: number;
  readonly ignoreNulls: boolean;
  readonly type: SqlType;
  /** The call's offset in the SQL text. */
  readonly pos: number;
  /**
   * avg(value, kind, param [, volume]): QuestDB's exponential moving average (volume-weighted with a
   * fourth argument). `alpha` for 'alpha' and 'period'; `tau` (micros) for a time unit, when each
   * row's smoothing is 1 - exp(-dt / tau) over the first ORDER BY timestamp. args: value, [volume], [timestamp].
   */
  readonly ema?: { readonly alpha: number; readonly tau: number; readonly weighted: boolean };
}

interface PlanBase {
  readonly fields: readonly Field[];
  /** Index of the designated timestamp among `fields`, or -1 (derived per node kind: plan-timestamp.ts). */
  readonly timestamp: number;
  /** The rows come newest first (ORDER BY ts DESC); absent when ascending. */
  readonly timestampDesc?: boolean;
}

export type Plan =
  /** `backwards`: newest batches first (rows within a batch still ascending; a `reverse` node above flips them). */
  /** `batchRows`: rows per batch when fewer than the default will do (set under a LIMIT at execution). */
  | (PlanBase & {
      readonly kind: 'scan';
      readonly table: string;
      readonly columns: readonly string[];
      readonly intervals: readonly Interval[] | null;
      readonly backwards?: boolean;
      readonly batchRows?: number;
    })
  /** Batches handed in by the caller under a name (the library's where() / select() operators; never a table). */
  | (PlanBase & { readonly kind: 'input'; readonly name: string })
  /** One row with no columns (SELECT without FROM). */
  | (PlanBase & { readonly kind: 'oneRow' })
  | (PlanBase & { readonly kind: 'longSequence'; readonly count: number })
  /** read_parquet(path): a Parquet file's rows (`columns`: those read, as pruned), errors at `pos` naming `path`. */
  | (PlanBase & {
      readonly kind: 'parquetScan';
      readonly file: string;
      readonly path: string;
      readonly pos: number;
      readonly columns: readonly ParquetColumn[];
    })
  /** Rows computed at execution from the catalog (tables(), table_columns(), SHOW). */
  | (PlanBase & {
      readonly kind: 'metadata';
      readonly what:
        | 'tables'
        | 'columns'
        | 'createTable'
        | 'views'
        | 'createView'
        | 'createDatabase'
        | 'createMatView'
        | 'matViews'
        | 'liveViews'
        | 'createLiveView'
        | 'partitions'
        | 'walTables'
        | 'keywords'
        | 'pgCatalog'
        | 'tableStorage'
        | 'walTransactions'
        | 'memoryMetrics'
        | 'readerPool'
        | 'writerPool'
        | 'writerMetrics'
        | 'queryActivity'
        | 'serverVersion'
        | 'parameters'
        | 'files'
        | 'functions'
        | 'checkpointStatus'
        | 'importLog'
        | 'exportLog';
      readonly table: string | null;
      /** functions(), checkpoint_status(): the rows, known when the statement is bound (the registry's names). */
      readonly rows?: ReadonlyArray<ReadonlyArray<string | boolean | null>>;
      /** The views the rows describe, bound when the statement was (tables(), views(), a view's columns). */
      readonly views?: readonly ViewInfo[];
      /** What a file function lists (bind-system.ts: checked inside its copy root when bound). */
      readonly files?: FileListing;
      /** SHOW CREATE DATABASE: the object categories dumped. */
      readonly dump?: ReadonlySet<DumpCategory>;
    })
  | (PlanBase & { readonly kind: 'filter'; readonly input: Plan; readonly predicate: BoundExpr })
  | (PlanBase & { readonly kind: 'project'; readonly input: Plan; readonly exprs: readonly BoundExpr[] })
  /** `bucketKey`: SAMPLE BY's bucket among the keys (its groups come in bucket order). */
  | (PlanBase & {
      readonly kind: 'aggregate';
      readonly input: Plan;
      readonly keys: readonly BoundExpr[];
      readonly aggregates: readonly BoundAggregate[];
      readonly bucketKey?: number;
    })
  /** The input's rows in their order, each with one more column per window function (after WHERE / GROUP BY, before ORDER BY / LIMIT). */
  | (PlanBase & { readonly kind: 'window'; readonly input: Plan; readonly functions: readonly BoundWindow[] })
  | (PlanBase & {
      readonly kind: 'sort';
      readonly input: Plan;
      readonly keys: readonly SortKey[];
      readonly limit: number | null;
    })
  /** Rows [lo, hi) counted from 0; `last` keeps the final `last` rows instead. */
  | (PlanBase & {
      readonly kind: 'limit';
      readonly input: Plan;
      readonly lo: number;
      readonly hi: number;
      readonly last: number | null;
    })
  | (PlanBase & { readonly kind: 'distinct'; readonly input: Plan })
  /**
   * SAMPLE BY ... FILL: the aggregation's rows plus, per key, one row for every bucket without data
   * (between FROM/TO or the first and last bucket), its aggregates filled per `fills`.
   */
  | (PlanBase & {
      readonly kind: 'sampleFill';
      readonly input: Plan;
      readonly bucket: number;
      readonly keys: readonly number[];
      readonly fills: readonly FillSpec[];
      readonly buckets: Buckets;
      readonly from: number | null;
      readonly to: number | null;
    })
  /** ASOF JOIN (LT JOIN when `strict`): each left row with the latest right row at or before it, per key; SPLICE: rows of both sides. */
  | (PlanBase & {
      readonly kind: 'asofJoin';
      readonly strict: boolean;
      readonly splice: boolean;
      readonly left: Plan;
      readonly right: Plan;
      readonly leftKeys: readonly number[];
      readonly rightKeys: readonly number[];
      readonly leftTs: number;
      readonly rightTs: number;
      /** Micros a matched right row may be older than the left row, or null. */
      readonly tolerance: number | null;
    })
  /**
   * WINDOW JOIN: one row per left row (its columns as they are), then one column per aggregate: the aggregate
   * over the rows of its join's right side whose keys match and whose timestamp lies in [left ts + lo, left ts + hi]
   * (plus, with `prevailing`, the latest such row at or before the window's start when none lies exactly there).
   */
  | (PlanBase & {
      readonly kind: 'windowJoin';
      readonly left: Plan;
      readonly leftTs: number;
      readonly joins: readonly WindowJoinPart[];
      readonly aggregates: readonly BoundAggregate[];
      /** The join (index into `joins`) whose right rows each aggregate reads. */
      readonly aggJoin: readonly number[];
    })
  /**
   * HORIZON JOIN: per left row and per offset (ascending), the left row's columns, the offset (LONG micros),
   * the left timestamp + offset (TIMESTAMP), then for each join its right side's row ASOF that time: the
   * latest row of the same key at or before it (NULLs when there is none). Left order is kept.
   */
  | (PlanBase & {
      readonly kind: 'horizonJoin';
      readonly left: Plan;
      readonly leftTs: number;
      /** Micros, ascending. */
      readonly offsets: readonly number[];
      readonly joins: readonly TimeJoinSide[];
    })
  /** LATEST ON: per distinct `keys` tuple, the row with the greatest `ts`; output in `ts` order. */
  | (PlanBase & {
      readonly kind: 'latestBy';
      readonly input: Plan;
      readonly keys: readonly number[];
      readonly ts: number;
    })
  /** `TIMESTAMP(col)` on a FROM source: its rows as they are, `column` named their designated timestamp (trusted to be in order, as QuestDB does). */
  | (PlanBase & { readonly kind: 'designate'; readonly input: Plan; readonly column: number })
  /** The rows of each batch in reverse order (over a backwards scan: descending designated timestamp). */
  | (PlanBase & { readonly kind: 'reverse'; readonly input: Plan })
  | (PlanBase & {
      readonly kind: 'join';
      readonly type: 'INNER' | 'LEFT' | 'CROSS';
      readonly left: Plan;
      readonly right: Plan;
      readonly leftKeys: readonly number[];
      readonly rightKeys: readonly number[];
      readonly residual: BoundExpr | null;
    })
  | (PlanBase & {
      readonly kind: 'setOp';
      readonly op: 'UNION' | 'EXCEPT' | 'INTERSECT';
      readonly all: boolean;
      readonly left: Plan;
      readonly right: Plan;
    });

/** One join of a WINDOW or HORIZON JOIN chain: its right side and the key columns a left row matches it by. */
export interface TimeJoinSide {
  /** The right table's rows in timestamp order (ON conditions on the right table alone applied as a filter). */
  readonly right: Plan;
  readonly leftKeys: readonly number[];
  readonly rightKeys: readonly number[];
  readonly rightTs: number;
}

/** One WINDOW JOIN of a chain: its right table and how a left row finds its window there. */
export interface WindowJoinPart extends TimeJoinSide {
  /** Window bounds in micros relative to the left row's timestamp, both inclusive (lo <= hi). */
  readonly lo: number;
  readonly hi: number;
  /** INCLUDE PREVAILING (the default). */
  readonly prevailing: boolean;
  /** The rest of ON, over the left's fields then the right's, evaluated per (left row, right row) pair. */
  readonly residual: BoundExpr | null;
}

export type PlanKind = Plan['kind'];

/** How SAMPLE BY fills an aggregate in a bucket without rows. */
export type FillSpec =
  | { readonly kind: 'none' | 'null' | 'prev' | 'linear' }
  | { readonly kind: 'const'; readonly value: number | string | boolean | null };
