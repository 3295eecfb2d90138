// The syntax tree of svcdb's SQL (QuestDB's dialect). Every node is a readonly
// object with a string `kind` and `pos`, the zero-based UTF-16 offset in the
// SQL text where the node starts (errors report it). Visitors switch on `kind`
// and end in assertNever, so a new kind does not compile until every stage
// handles it.

import type { Declared } from './declare.js';

export interface Node {
  readonly kind: string;
  readonly pos: number;
}

// ---------------------------------------------------------------- expressions

/**
 * GEOHASH (`#u33d`, `##0101`, `#u33d/18`) and DECIMAL (`1.5m`) are parser extensions: their
 * `value` is the text as written (GEOHASH) or the digits without the `m` suffix (DECIMAL).
 * LONG256 (`0x` and an even number of hex digits, at most 64, as QuestDB reads constants): `value` and `text` as written.
 */
export type LiteralType =
  'INT' | 'LONG' | 'DOUBLE' | 'STRING' | 'BOOLEAN' | 'NULL' | 'CHAR' | 'GEOHASH' | 'DECIMAL' | 'LONG256';

export interface Literal extends Node {
  readonly kind: 'literal';
  readonly type: LiteralType;
  /** INT/LONG/DOUBLE: the number (LONG beyond 2^53 keeps `text`); STRING/CHAR: the unescaped text; BOOLEAN: true/false; NULL: null. */
  readonly value: number | string | boolean | null;
  /** The literal as written (for column names and exact LONGs). */
  readonly text: string;
}

/** `name`, `t.name` or `"Quoted Name"`. */
export interface ColumnRef extends Node {
  readonly kind: 'column';
  readonly table: string | null;
  readonly name: string;
  /** A "quoted" name as written between its quotes when that differs from `name` (`"a""b"`): errors echo it so. */
  readonly raw?: string;
}

/** `*` as a function argument (count(*)). */
export interface StarArg extends Node {
  readonly kind: 'starArg';
}

export interface Unary extends Node {
  readonly kind: 'unary';
  /** '-', '+', 'NOT', '~' (bitwise not). */
  readonly op: string;
  readonly arg: Expr;
}

export interface Binary extends Node {
  readonly kind: 'binary';
  /**
   * Upper case for words: 'OR' 'AND' '=' '!=' '<' '<=' '>' '>=' '+' '-' '*' '/' '%'
   * '||' '&' '|' '^' '~' (regex match) '!~' 'LIKE' 'ILIKE' 'NOT LIKE' 'NOT ILIKE' 'WITHIN',
   * and the IPv4 containment operators '<<' '>>' '<<=' '>>='.
   * WITHIN's right side is an ArrayLiteral holding the parenthesized geohash list.
   * `pos` is the operator's offset (QuestDB reports type errors there); `left.pos` starts the expression.
   */
  readonly op: string;
  readonly left: Expr;
  readonly right: Expr;
}

export interface Call extends Node {
  readonly kind: 'call';
  /** Lower case. */
  readonly name: string;
  readonly args: readonly Expr[];
  readonly distinct: boolean;
  /** OVER (...) for window functions. */
  readonly over: WindowSpec | null;
  /** `f(x) IGNORE NULLS OVER (...)` / `RESPECT NULLS`; absent or null when not said. */
  readonly nulls?: 'IGNORE' | 'RESPECT' | null;
  /** Offset of IGNORE / RESPECT when `nulls` is said. */
  readonly nullsPos?: number;
}

export interface WindowSpec extends Node {
  readonly kind: 'window';
  /** `OVER w` (or `OVER (w ...)`): the named window from the SELECT's WINDOW clause this one refers to. */
  readonly name?: string | null;
  /** Offset of `name`. */
  readonly namePos?: number;
  /** `ANCHOR DAILY 'HH:MM' ['zone']` or `ANCHOR EXPRESSION expr`: the window's functions restart at each boundary. */
  readonly anchor?: WindowAnchor | null;
  readonly partitionBy: readonly Expr[];
  readonly orderBy: readonly OrderItem[];
  readonly frame: WindowFrame | null;
}

/** A window's anchor (QuestDB's live views): `pos` is the word ANCHOR's offset. */
export type WindowAnchor =
  | {
      readonly kind: 'daily';
      readonly pos: number;
      /** The quoted 'HH:MM' as written, and its offset. */
      readonly time: string;
      readonly timePos: number;
      /** The IANA zone, or null for UTC. */
      readonly zone: string | null;
      readonly zonePos: number;
    }
  | { readonly kind: 'expression'; readonly pos: number; readonly expr: Expr };

export interface WindowFrame extends Node {
  readonly kind: 'frame';
  /** `CUMULATIVE` is parsed as ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW. */
  readonly unit: 'ROWS' | 'RANGE' | 'GROUPS';
  readonly start: FrameBound;
  readonly end: FrameBound;
  /** EXCLUDE CURRENT ROW / NO OTHERS / GROUP / TIES, or PREVAILING / INCLUDE PREVAILING for WINDOW JOIN. */
  readonly exclude: string | null;
  /** Offset of the word after EXCLUDE / INCLUDE when `exclude` is said. */
  readonly excludePos?: number;
}

export interface FrameBound {
  readonly type: 'UNBOUNDED PRECEDING' | 'PRECEDING' | 'CURRENT ROW' | 'FOLLOWING' | 'UNBOUNDED FOLLOWING';
  /** Offset of the bound's last word (PRECEDING, FOLLOWING or ROW), where QuestDB reports a wrong bound; for an implied CURRENT ROW, the frame's. */
  readonly pos: number;
  /** For n PRECEDING/FOLLOWING: the amount; with RANGE it may carry a unit (`'1' MINUTE`, `1 second`). */
  readonly offset: Expr | null;
  readonly unit: string | null;
}

/** CAST(x AS t) and x::t. */
export interface Cast extends Node {
  readonly kind: 'cast';
  readonly expr: Expr;
  readonly type: TypeName;
  /** Written `x::t` (QuestDB rewrites `json_extract(doc, path)::t` into its typed form, not CAST(... AS t)). */
  readonly suffix?: boolean;
}

export interface TypeName extends Node {
  readonly kind: 'typeName';
  /** Upper case, e.g. TIMESTAMP, SYMBOL, VARCHAR, GEOHASH, DOUBLE[] (arrays keep the brackets). */
  readonly name: string;
  /** GEOHASH(5c), DECIMAL(10,2)... as written inside the parentheses. */
  readonly params: string | null;
  /** Offset of the parameters' text (after the opening parenthesis), where errors about them point. */
  readonly paramsPos?: number;
}

export interface Case extends Node {
  readonly kind: 'case';
  readonly operand: Expr | null;
  readonly whens: ReadonlyArray<{ readonly when: Expr; readonly then: Expr }>;
  readonly else: Expr | null;
}

/** `x [NOT] IN (a, b)`, `x IN (SELECT ...)`, and QuestDB's `ts IN '2024-01'` (a single string). */
export interface In extends Node {
  readonly kind: 'in';
  readonly expr: Expr;
  readonly list: readonly Expr[] | null;
  readonly query: Query | null;
  readonly not: boolean;
}

export interface Between extends Node {
  readonly kind: 'between';
  readonly expr: Expr;
  readonly lo: Expr;
  readonly hi: Expr;
  readonly not: boolean;
}

export interface IsNull extends Node {
  readonly kind: 'isNull';
  readonly expr: Expr;
  readonly not: boolean;
}

/** A parenthesized subquery used as a value. */
export interface ScalarSubquery extends Node {
  readonly kind: 'subquery';
  readonly query: Query;
}

/** `$1` style bind variable (parsed; the REST API has none to bind). */
export interface BindVar extends Node {
  readonly kind: 'bindVar';
  /** With its sigil: '$1', '$name'. (`@x` DECLARE variables are replaced before parsing: declare.ts.) */
  readonly name: string;
}

/** `ARRAY[...]` and `[...]` array literals. */
export interface ArrayLiteral extends Node {
  readonly kind: 'array';
  readonly items: readonly Expr[];
}

/** `expr[i]` / `expr[i:j]` array access; `bids[1, 2]` has two indexes. */
export interface Subscript extends Node {
  readonly kind: 'subscript';
  readonly expr: Expr;
  /** A slice (`i:j`, `i:`) is a Slice node; it appears nowhere else. */
  readonly index: readonly Expr[];
}

/** Extension: `lo:hi` inside a subscript (`arr[2:3]`, `arr[2:]`); an omitted end is null. */
export interface Slice extends Node {
  readonly kind: 'slice';
  readonly lo: Expr | null;
  readonly hi: Expr | null;
}

export type Expr =
  | Literal
  | ColumnRef
  | StarArg
  | Unary
  | Binary
  | Call
  | Cast
  | Case
  | In
  | Between
  | IsNull
  | ScalarSubquery
  | BindVar
  | ArrayLiteral
  | Subscript
  | Slice;

// ---------------------------------------------------------------- queries

export type SelectItem =
  | { readonly kind: 'star'; readonly pos: number; readonly table: string | null }
  /** `end`: offset just past the expression (before any alias), for naming unaliased columns after their text. */
  | {
      readonly kind: 'item';
      readonly pos: number;
      readonly expr: Expr;
      readonly alias: string | null;
      readonly end?: number;
    };

export interface OrderItem {
  readonly expr: Expr;
  readonly desc: boolean;
  readonly pos: number;
}

/** `t TIMESTAMP(ts)`: a designated timestamp given in FROM (extension, on every from-source). */
export interface TimestampDesignation {
  readonly column: string;
  readonly pos: number;
}

export interface TableRef extends Node {
  readonly kind: 'tableRef';
  readonly name: string;
  readonly alias: string | null;
  /** Where the alias is written (duplicate alias errors point there). */
  readonly aliasPos?: number;
  readonly timestamp?: TimestampDesignation | null;
}

/** A table-valued function in FROM: long_sequence(10), tables(), table_columns('t'). */
export interface FunctionRef extends Node {
  readonly kind: 'functionRef';
  readonly call: Call;
  readonly alias: string | null;
  /** Where the alias is written (duplicate alias errors point there). */
  readonly aliasPos?: number;
  readonly timestamp?: TimestampDesignation | null;
}

export interface SubqueryRef extends Node {
  readonly kind: 'subqueryRef';
  readonly query: Query;
  readonly alias: string | null;
  /** Where the alias is written (duplicate alias errors point there). */
  readonly aliasPos?: number;
  readonly timestamp?: TimestampDesignation | null;
}

/** Extension: `(SHOW PARAMETERS) WHERE ...` uses a SHOW statement as a row source. */
export interface ShowRef extends Node {
  readonly kind: 'showRef';
  readonly show: Show;
  readonly alias: string | null;
  /** Where the alias is written (duplicate alias errors point there). */
  readonly aliasPos?: number;
}

/** HORIZON is an extension (QuestDB's markout join). */
export type JoinType = 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' | 'CROSS' | 'ASOF' | 'LT' | 'SPLICE' | 'WINDOW' | 'HORIZON';

/** An offset of HORIZON JOIN's RANGE or LIST as written (`1s`, `-5s`, `0`), with where it is written. */
export interface HorizonOffset {
  readonly text: string;
  readonly pos: number;
}

/** HORIZON JOIN ... RANGE FROM a TO b STEP s AS h | LIST (a, b, ...) AS h (after the last of a chain of them). */
export interface Horizon {
  readonly pos: number;
  readonly range: { readonly from: HorizonOffset; readonly to: HorizonOffset; readonly step: HorizonOffset } | null;
  readonly list: readonly HorizonOffset[] | null;
  readonly alias: string | null;
}

export interface Join extends Node {
  readonly kind: 'join';
  readonly type: JoinType;
  readonly left: FromItem;
  readonly right: FromItem;
  readonly on: Expr | null;
  readonly using: readonly string[] | null;
  /** ASOF/LT JOIN ... TOLERANCE 1h. */
  readonly tolerance: string | null;
  /** WINDOW JOIN ... RANGE BETWEEN ...: kept as written. */
  readonly range: WindowFrame | null;
  readonly horizon?: Horizon | null;
}

export type FromItem = TableRef | FunctionRef | SubqueryRef | ShowRef | Join;

export interface SampleBy {
  readonly pos: number;
  /** As written: '15m', '1h', '1d'. */
  readonly interval: string;
  readonly fill: readonly Expr[];
  readonly from: Expr | null;
  readonly to: Expr | null;
  /** 'CALENDAR' (default) or 'FIRST OBSERVATION'. */
  readonly align: 'CALENDAR' | 'FIRST OBSERVATION' | null;
  readonly timeZone: Expr | null;
  readonly offset: Expr | null;
}

export interface LatestOn {
  readonly pos: number;
  /** LATEST ON ts PARTITION BY a, b; null timestamp for the older LATEST BY a, b. */
  readonly timestamp: ColumnRef | null;
  readonly partitionBy: readonly ColumnRef[];
}

export interface Cte {
  readonly name: string;
  readonly pos: number;
  readonly query: Query;
}

export interface Select extends Node {
  readonly kind: 'select';
  readonly with: readonly Cte[];
  readonly distinct: boolean;
  readonly columns: readonly SelectItem[];
  readonly from: FromItem | null;
  readonly where: Expr | null;
  readonly latestOn: LatestOn | null;
  readonly sampleBy: SampleBy | null;
  readonly groupBy: readonly Expr[];
  readonly having: Expr | null;
  readonly orderBy: readonly OrderItem[];
  /** LIMIT n -> {lo: n, hi: null}; LIMIT lo, hi -> both. */
  readonly limit: { readonly lo: Expr; readonly hi: Expr | null } | null;
  /** QuestDB's implicit SELECT: `trades` or `trades WHERE ...` with no SELECT keyword. */
  readonly implicit: boolean;
  /** Extension: the WINDOW clause, `WINDOW w AS (...), w2 AS (...)`. */
  readonly windows?: ReadonlyArray<{ readonly name: string; readonly pos: number; readonly spec: WindowSpec }>;
  /** Extension: `FROM t PIVOT (aggs FOR col IN (...) ... [GROUP BY ...])` applied to the FROM source. */
  readonly pivot?: Pivot | null;
}

/** PIVOT (avg(price) [AS a], ... FOR symbol IN ('A', 'B') [side IN (...)] ... [GROUP BY side]). */
export interface Pivot {
  readonly pos: number;
  readonly aggregates: ReadonlyArray<{ readonly expr: Expr; readonly alias: string | null; readonly pos: number }>;
  readonly for: ReadonlyArray<{
    readonly expr: Expr;
    readonly values: readonly Expr[] | null;
    readonly query: Query | null;
    readonly pos: number;
  }>;
  readonly groupBy: readonly Expr[];
}

export interface SetOp extends Node {
  readonly kind: 'setOp';
  readonly op: 'UNION' | 'EXCEPT' | 'INTERSECT';
  readonly all: boolean;
  readonly left: Query;
  readonly right: Query;
  readonly with: readonly Cte[];
  readonly orderBy: readonly OrderItem[];
  readonly limit: { readonly lo: Expr; readonly hi: Expr | null } | null;
}

export type Query = Select | SetOp;

// ---------------------------------------------------------------- statements

export interface ColumnDefAst extends Node {
  readonly kind: 'columnDef';
  readonly name: string;
  readonly type: TypeName;
  /** SYMBOL CAPACITY n, CACHE/NOCACHE, INDEX [CAPACITY n]: kept as written. */
  readonly options: string | null;
  /** Extension: where the options start (with options), and the options read (absent when not written). */
  readonly optionsPos?: number;
  readonly symbolCapacity?: number;
  readonly symbolCached?: boolean;
  readonly indexed?: boolean;
  readonly indexCapacity?: number;
}

export interface CreateTable extends Node {
  readonly kind: 'createTable';
  readonly name: string;
  readonly namePos: number;
  readonly ifNotExists: boolean;
  /** Empty with AS SELECT. */
  readonly columns: readonly ColumnDefAst[];
  readonly asSelect: Query | null;
  /** CREATE TABLE t AS (...), CAST(col AS type). */
  readonly casts: ReadonlyArray<{ readonly column: string; readonly type: TypeName; readonly pos: number }>;
  /** TIMESTAMP(col): the designated timestamp. (INDEX(col ...) clauses: see `indexes`.) */
  readonly timestamp: { readonly column: string; readonly pos: number } | null;
  readonly partitionBy: { readonly unit: string; readonly pos: number } | null;
  /** WAL / BYPASS WAL / null when not said. */
  readonly wal: boolean | null;
  /** DEDUP UPSERT KEYS(...): the columns with their positions. */
  readonly dedupKeys: ReadonlyArray<{ readonly name: string; readonly pos: number }> | null;
  /**
   * WITH maxUncommittedRows=..., o3MaxLag=... and TTL, IN VOLUME, OWNED BY: kept as key/value text.
   * Keys: the WITH names as written; 'TTL' ('7 DAYS', '12h'), 'IN VOLUME', 'OWNED BY', 'STORAGE POLICY'
   * (inside the parentheses), 'FORMAT' (upper case), and for CREATE ATOMIC / BATCH n [o3MaxLag x] TABLE:
   * 'ATOMIC' (''), 'BATCH', 'BATCH O3MAXLAG'. Strings are unquoted.
   */
  readonly params: ReadonlyArray<{ readonly key: string; readonly value: string; readonly pos?: number }>;
  /** CREATE TABLE new (LIKE old). */
  readonly like: string | null;
  /** Extension: the `, INDEX(col [CAPACITY n])` clauses. */
  readonly indexes?: ReadonlyArray<{ readonly column: string; readonly pos: number; readonly capacity: number | null }>;
}

export interface DropTable extends Node {
  readonly kind: 'dropTable';
  readonly names: ReadonlyArray<{ readonly name: string; readonly pos: number }>;
  readonly ifExists: boolean;
  /** DROP ALL TABLES. */
  readonly all: boolean;
}

export interface TruncateTable extends Node {
  readonly kind: 'truncateTable';
  readonly names: ReadonlyArray<{ readonly name: string; readonly pos: number }>;
  /** Extensions: TRUNCATE TABLE IF EXISTS t; TRUNCATE TABLE t KEEP SYMBOL MAPS. */
  readonly ifExists?: boolean;
  readonly keepSymbolMaps?: boolean;
}

export interface RenameTable extends Node {
  readonly kind: 'renameTable';
  readonly from: string;
  readonly fromPos: number;
  readonly to: string;
  readonly toPos: number;
}

export type AlterAction =
  | {
      readonly kind: 'addColumn';
      readonly pos: number;
      readonly columns: readonly ColumnDefAst[];
      readonly ifNotExists: boolean;
    }
  | {
      readonly kind: 'dropColumn';
      readonly pos: number;
      readonly columns: ReadonlyArray<{ readonly name: string; readonly pos: number }>;
    }
  | {
      readonly kind: 'renameColumn';
      readonly pos: number;
      readonly from: string;
      readonly fromPos: number;
      readonly to: string;
      readonly toPos: number;
    }
  | {
      readonly kind: 'dropPartition';
      readonly pos: number;
      readonly list: readonly Expr[];
      readonly where: Expr | null;
    }
  /** DETACH PARTITION LIST ... | WHERE ..., ATTACH PARTITION LIST ... */
  | {
      readonly kind: 'movePartition';
      readonly pos: number;
      readonly detach: boolean;
      readonly list: readonly Expr[];
      readonly where: Expr | null;
    }
  | { readonly kind: 'squashPartitions'; readonly pos: number }
  | {
      readonly kind: 'convertPartition';
      readonly pos: number;
      readonly parquet: boolean;
      readonly list: readonly Expr[];
      readonly where: Expr | null;
    }
  | {
      readonly kind: 'setParam';
      readonly pos: number;
      readonly params: ReadonlyArray<{ readonly key: string; readonly value: string }>;
    }
  /** ALTER COLUMN c TYPE t: the column rewritten with its values converted. */
  | ({
      readonly kind: 'alterColumnType';
      readonly pos: number;
      readonly column: string;
      readonly columnPos: number;
      readonly type: TypeName;
    } & Pick<ColumnDefAst, 'symbolCapacity' | 'symbolCached' | 'indexed' | 'indexCapacity'>)
  /** ALTER COLUMN c ADD INDEX [CAPACITY n] / DROP INDEX. */
  | {
      readonly kind: 'columnIndex';
      readonly pos: number;
      readonly column: string;
      readonly columnPos: number;
      readonly add: boolean;
      readonly capacity: number | null;
    }
  /** DEDUP ENABLE UPSERT KEYS(...) / DEDUP DISABLE (keys null). */
  | {
      readonly kind: 'dedup';
      readonly pos: number;
      readonly keys: ReadonlyArray<{ readonly name: string; readonly pos: number }> | null;
    }
  /** ALTER COLUMN c CACHE | NOCACHE | SYMBOL CAPACITY n. */
  | {
      readonly kind: 'symbolOptions';
      readonly pos: number;
      readonly column: string;
      readonly columnPos: number;
      readonly cached: boolean | null;
      readonly capacity: number | null;
    }
  /** SET TYPE WAL | BYPASS WAL. */
  | { readonly kind: 'setType'; readonly pos: number; readonly wal: boolean }
  /** SET TTL n unit: the words after TTL as written (storage/ttl.ts parseTtl reads them), and where they start. */
  | { readonly kind: 'setTtl'; readonly pos: number; readonly text: string; readonly textPos: number }
  /** Anything else ALTER TABLE can say in QuestDB (SET TYPE WAL, SYMBOL CAPACITY, ...): kept as text. */
  | { readonly kind: 'otherAlter'; readonly pos: number; readonly text: string };

export interface AlterTable extends Node {
  readonly kind: 'alterTable';
  readonly name: string;
  readonly namePos: number;
  readonly action: AlterAction;
}

export interface Insert extends Node {
  readonly kind: 'insert';
  readonly table: string;
  readonly tablePos: number;
  readonly columns: ReadonlyArray<{ readonly name: string; readonly pos: number }> | null;
  /** VALUES rows, or null with a SELECT. */
  readonly values: ReadonlyArray<readonly Expr[]> | null;
  readonly query: Query | null;
  /** INSERT ATOMIC / BATCH n: accepted. */
  readonly batch: number | null;
  /** Extension: INSERT BATCH n o3MaxLag '1s': the lag as written (string unquoted). */
  readonly o3MaxLag?: string | null;
  /** Extension: `WITH x AS (...) INSERT INTO ...`: the CTEs the query may use. */
  readonly with?: readonly Cte[];
  /** Extension: the offset of each VALUES row's closing `)` (QuestDB's position for a wrong value count). */
  readonly valuesEnds?: readonly number[];
}

export interface Update extends Node {
  readonly kind: 'update';
  readonly table: string;
  readonly tablePos: number;
  readonly alias: string | null;
  readonly set: ReadonlyArray<{ readonly column: string; readonly pos: number; readonly value: Expr }>;
  readonly from: FromItem | null;
  readonly where: Expr | null;
  /** Extension: `WITH x AS (...) UPDATE ...`: the CTEs FROM may use. */
  readonly with?: readonly Cte[];
}

export interface Show extends Node {
  readonly kind: 'show';
  /**
   * TABLES, COLUMNS, CREATE TABLE, PARTITIONS, or another SHOW word (kept for an "unsupported" answer),
   * upper case; a few known phrases stay together ('CREATE VIEW', 'SERVICE ACCOUNT', 'TIME ZONE').
   */
  readonly what: string;
  /** The table (or, for other SHOW forms, a single trailing name such as a view or user). */
  readonly table: string | null;
  /** The table's offset; without a table, the offset of the word after SHOW. */
  readonly tablePos: number;
  /** SHOW CREATE DATABASE's INCLUDE / EXCLUDE clause (absent: everything). */
  readonly dump?: ShowDump;
}

/** SHOW CREATE DATABASE {INCLUDE | EXCLUDE} {ALL | (category, ...)}: the categories upper-cased, as written. */
export interface ShowDump {
  readonly mode: 'INCLUDE' | 'EXCLUDE';
  readonly categories: ReadonlyArray<{ readonly name: string; readonly pos: number }>;
}

export interface Explain extends Node {
  readonly kind: 'explain';
  readonly statement: Statement;
  /** Extension: EXPLAIN (FORMAT JSON) ...: the format word upper-cased. */
  readonly format?: string | null;
}

export interface QueryStatement extends Node {
  readonly kind: 'query';
  readonly query: Query;
}

/**
 * A statement svcdb recognises but does not run (GRANT, CREATE USER, COPY,
 * BACKUP, materialized views, ...): the executor answers with a clear
 * "not supported" error at `pos`. Parsing stops at its first keyword(s).
 */
export interface Unsupported extends Node {
  readonly kind: 'unsupported';
  /** The leading keywords, e.g. 'GRANT', 'CREATE MATERIALIZED VIEW'. */
  readonly what: string;
}

/** CREATE [OR REPLACE] VIEW [IF NOT EXISTS] v AS (query), and ALTER VIEW v AS (query) (`alter`). */
export interface CreateView extends Node {
  readonly kind: 'createView';
  readonly name: string;
  readonly namePos: number;
  readonly orReplace: boolean;
  readonly ifNotExists: boolean;
  /** ALTER VIEW: the view must exist, and its query is replaced. */
  readonly alter: boolean;
  /** The query as parsed (variables replaced), checked when the statement runs. */
  readonly query: Query;
  /** The query's text as written between the parentheses (what is stored, and what views() shows). */
  readonly sql: string;
  readonly queryPos: number;
}

/** DROP VIEW [IF EXISTS] v, and COMPILE VIEW v (`compile`: binds the query, changes nothing). */
export interface ViewCommand extends Node {
  readonly kind: 'dropView' | 'compileView';
  readonly name: string;
  readonly namePos: number;
  readonly ifExists: boolean;
}

/**
 * A materialized view's refresh: IMMEDIATE (on each base commit), MANUAL (REFRESH statements
 * only) or a timer (EVERY n [START ts] [TIME ZONE z]); PERIOD limits refreshes to whole periods.
 */
export interface MatViewRefresh {
  readonly type: 'immediate' | 'manual' | 'timer';
  /** EVERY's interval as written (`10m`). */
  readonly every: string | null;
  readonly start: string | null;
  readonly timeZone: string | null;
  /** PERIOD (LENGTH l [TIME ZONE z] [DELAY d]), or 'sample' for PERIOD (SAMPLE BY INTERVAL). */
  readonly period:
    { readonly length: string; readonly timeZone: string | null; readonly delay: string | null } | 'sample' | null;
}

/** CREATE MATERIALIZED VIEW [IF NOT EXISTS] v [WITH BASE t] [REFRESH ...] [DEFERRED] AS (query) [options]. */
export interface CreateMatView extends Node {
  readonly kind: 'createMatView';
  readonly name: string;
  readonly namePos: number;
  readonly ifNotExists: boolean;
  readonly base: { readonly name: string; readonly pos: number } | null;
  readonly refresh: MatViewRefresh;
  readonly deferred: boolean;
  readonly query: Query;
  /** The query's text as written (inside the parentheses when it has them). */
  readonly sql: string;
  readonly queryPos: number;
  readonly timestamp: { readonly column: string; readonly pos: number } | null;
  readonly partitionBy: { readonly unit: string; readonly pos: number } | null;
  readonly params: ReadonlyArray<{ readonly key: string; readonly value: string }>;
  /** EXPIRE ROWS ..., or null. */
  readonly expire: ExpireRows | null;
}

/**
 * A materialized view's EXPIRE ROWS policy (sql/parse-expire-rows.ts): `when` (a row goes when
 * `predicate` is TRUE), `latest` (the newest row per `partitionBy` key stays), `keep` (the rows at
 * the highest / lowest `column` per key stay, or the `n` highest / lowest).
 */
export interface ExpireRows extends Node {
  readonly kind: 'expireRows';
  readonly mode: 'when' | 'latest' | 'keep';
  readonly predicate: Expr | null;
  /** KEEP LATEST ON ts: the column named, or null. */
  readonly on: { readonly name: string; readonly pos: number } | null;
  readonly n: number | null;
  readonly highest: boolean;
  readonly column: { readonly name: string; readonly pos: number } | null;
  readonly partitionBy: ReadonlyArray<{ readonly name: string; readonly pos: number }>;
  /** The policy as written, from WHEN / KEEP to before CLEANUP EVERY (what the view keeps). */
  readonly clause: string;
  /** Where the clause starts in the text parsed. */
  readonly clausePos: number;
  readonly cleanupEvery: { readonly text: string; readonly pos: number } | null;
}

/**
 * DROP MATERIALIZED VIEW [IF EXISTS] v; REFRESH MATERIALIZED VIEW v [FULL | INCREMENTAL |
 * RANGE FROM a TO b]; ALTER MATERIALIZED VIEW v SET REFRESH ... (`refresh`) or another change
 * kept as `alter` text (SET TTL, RESUME WAL, ...).
 */
export interface MatViewCommand extends Node {
  readonly kind: 'dropMatView' | 'refreshMatView' | 'alterMatView';
  readonly name: string;
  readonly namePos: number;
  readonly ifExists: boolean;
  readonly mode: 'incremental' | 'full' | 'range';
  readonly range: { readonly from: Expr; readonly to: Expr } | null;
  readonly refresh: MatViewRefresh | null;
  readonly alter: string | null;
  /** Where `alter` starts (-1 without one). */
  readonly alterPos: number;
  /** ALTER ... SET TTL: the words after TTL as written, and where they start. */
  readonly ttl: { readonly text: string; readonly pos: number } | null;
  /** ALTER ... SET EXPIRE ROWS (the policy) or DROP EXPIRE [ROWS] ('drop'), else null. */
  readonly expire?: ExpireRows | 'drop' | null;
}

/** A live view's duration as written (`5s`, `100ms`) and where it starts. */
export interface LiveViewDuration {
  readonly text: string;
  readonly pos: number;
}

/**
 * CREATE LIVE VIEW [IF NOT EXISTS] v FLUSH EVERY d [IN MEMORY d] [PARTITION BY unit]
 * START FROM (NOW | BEGINNING | 'ts') AS [(] query [)] [OWNED BY owner]; the clauses after
 * FLUSH EVERY in any order.
 */
export interface CreateLiveView extends Node {
  readonly kind: 'createLiveView';
  readonly name: string;
  readonly namePos: number;
  readonly ifNotExists: boolean;
  readonly flushEvery: LiveViewDuration;
  readonly inMemory: LiveViewDuration | null;
  readonly partitionBy: { readonly unit: string; readonly pos: number } | null;
  /** START FROM: NOW, BEGINNING, or a timestamp literal's text (`value`). */
  readonly startFrom: {
    readonly kind: 'now' | 'beginning' | 'timestamp';
    readonly value: string;
    readonly pos: number;
  };
  /** TTL n unit (SHOW CREATE LIVE VIEW writes it back): the words as written. */
  readonly ttl: { readonly text: string; readonly pos: number } | null;
  readonly query: Query;
  /** The query's text as written (inside the parentheses when it has them). */
  readonly sql: string;
  readonly queryPos: number;
}

/**
 * DROP LIVE VIEW [IF EXISTS] v; ALTER LIVE VIEW v RESUME WAL [FROM TXN n] | SUSPEND WAL |
 * SET TTL n unit | DROP PARTITION ... | CONVERT PARTITION ... (`alter`: the words after the name,
 * the clause's first word in `clause`).
 */
export interface LiveViewCommand extends Node {
  readonly kind: 'dropLiveView' | 'alterLiveView';
  readonly name: string;
  readonly namePos: number;
  readonly ifExists: boolean;
  readonly clause: { readonly word: string; readonly pos: number } | null;
  readonly alter: string | null;
  readonly ttl: { readonly text: string; readonly pos: number } | null;
}

export type Statement =
  | QueryStatement
  | CreateMatView
  | MatViewCommand
  | CreateLiveView
  | LiveViewCommand
  | CreateView
  | ViewCommand
  | CreateTable
  | DropTable
  | TruncateTable
  | RenameTable
  | AlterTable
  | Insert
  | Update
  | Show
  | Explain
  | Copy
  | Maintenance
  | CancelQuery
  | Unsupported;

/** CANCEL QUERY id: stops the running statement query_activity() lists under `id`. */
export interface CancelQuery extends Node {
  readonly kind: 'cancelQuery';
  readonly id: number;
  readonly idPos: number;
}

/** REINDEX TABLE t [COLUMN c] [PARTITION p] LOCK EXCLUSIVE (`reindex`), VACUUM TABLE t (`vacuum`). */
export interface Maintenance extends Node {
  readonly kind: 'maintenance';
  readonly op: 'reindex' | 'vacuum';
  readonly table: string;
  readonly tablePos: number;
  readonly column: { readonly name: string; readonly pos: number } | null;
  readonly partition: { readonly name: string; readonly pos: number } | null;
}

/** A value of a COPY option as written, with where it starts (errors point at it). */
export interface CopyOption {
  /** The option's name, upper case (`HEADER`, `COMPRESSION_CODEC`, ...). */
  readonly name: string;
  readonly namePos: number;
  /** The value's text (a string unquoted), or '' for none. */
  readonly value: string;
  readonly valuePos: number;
  /** Whether the value was a 'string'. */
  readonly quoted: boolean;
}

/**
 * COPY: `COPY t FROM 'file' [WITH ...]` (import from the copy root), `COPY t|(query) TO 'dir'
 * [WITH ...]` (Parquet export to the export root), `COPY 'id' CANCEL`.
 */
export type Copy =
  | (Node & {
      readonly kind: 'copy';
      readonly mode: 'from';
      readonly table: string;
      readonly tablePos: number;
      readonly file: string;
      readonly filePos: number;
      readonly options: readonly CopyOption[];
    })
  | (Node & {
      readonly kind: 'copy';
      readonly mode: 'to';
      /** The table exported, or null for a query. */
      readonly table: string | null;
      readonly tablePos: number;
      /** The query's text (offsets into the statement: `queryPos`), or null for a table. */
      readonly query: QueryStatement | null;
      readonly queryText: string | null;
      readonly dir: string;
      readonly dirPos: number;
      readonly options: readonly CopyOption[];
    })
  | (Node & { readonly kind: 'copy'; readonly mode: 'cancel'; readonly id: string; readonly idPos: number });

/** A parsed statement with the variables its outermost DECLARE gave (views read them: declare.ts). */
export type Parsed = Statement & { readonly variables?: ReadonlyMap<string, Declared> };

export function assertNever(x: never): never {
  throw new Error(`unhandled node ${JSON.stringify(x)}`);
}
