// Binding a query: FROM sources, WHERE, grouping (explicit or QuestDB's
// implicit GROUP BY), HAVING, the SELECT list, DISTINCT, ORDER BY, LIMIT and
// set operations, into a logical plan with typed fields.
import { isSvcError, SvcError } from '../errors/svc-error.js';
import type * as A from './ast.js';
import {
  bindExpr,
  castTo,
  exprKey,
  implicitNumber,
  literal,
  resolveColumn,
  unify,
  type ExprContext,
  type Scope,
  type ScopeField,
} from './bind-expr.js';
import type { BoundAggregate, BoundExpr, DumpCategory, Field, Plan, ViewInfo } from './bound.js';
import {
  COLUMNS_FIELDS,
  COPY_EXPORT_LOG_FIELDS,
  COPY_IMPORT_LOG_FIELDS,
  KEYWORDS_FIELDS,
  FUNCTIONS_FIELDS,
  MAT_VIEWS_FIELDS,
  LIVE_VIEWS_FIELDS,
  PARTITIONS_FIELDS,
  PARAMETERS_FIELDS,
  SERVER_VERSION_FIELDS,
  SHOW_CREATE_FIELDS,
  SHOW_TABLES_FIELDS,
  TABLES_FIELDS,
  VIEWS_FIELDS,
  WAL_TABLES_FIELDS,
  CHECKPOINT_STATUS_FIELDS,
} from './metadata.js';
import { setOpType } from '../core/sql-type.js';
import { typeName } from '../core/column-type.js';
import { TWAP_ORDER_MESSAGE, TWAP_TIMESTAMP_MESSAGE } from '../functions/agg-order.js';
import type { Interval } from '../core/batch.js';
import { pushIntervals } from './intervals.js';
import { pruneColumns } from './prune.js';
import { useTimestampOrder } from './timestamp-order.js';
import { bindSampleBy, sampleFill, type SampleSetup } from './bind-sample-by.js';
import { bindAsofJoin } from './bind-asof-join.js';
import { isWindowJoin, MIXED_JOINS, WindowJoinBinder } from './bind-window-join.js';
import {
  hasHorizonJoin,
  HORIZON_FOLLOWED,
  HORIZON_MIXED,
  HorizonJoinBinder,
  isHorizonJoin,
} from './bind-horizon-join.js';
import { checkWindowPlacement, hasAggregate, WindowBinder } from './bind-window.js';
import { checkPlanDepth } from './depth-guard.js';
import { designateTimestamp, node } from './plan-timestamp.js';
import { balancedAnd } from './parse-expr.js';
import { expandLateralAliases } from './lateral-alias.js';
import { DEFAULT_COLUMN_NAMING, selectColumnNames, type ColumnNaming } from './column-alias.js';
import type { SchemaSource, TableSchema, ViewSource } from './schema-source.js';
import { parseStatement, parseWithOverrides } from './parser.js';
import { parseExpireClause } from './parse-expire-rows.js';
import { expireFilterSql } from './expire-rows.js';
import { seriesQuery } from './bind-series.js';
import { PG_TABLE_SPELLINGS, PG_TABLES, pgTable } from './pg-catalog.js';
import { functionRows } from './function-names.js';
import { bindSystemFunction, SYSTEM_NO_ARGUMENT_FUNCTIONS, type CopyRoots } from './bind-system.js';
import type { StatementEnv } from './statement-env.js';

/** A statement's binding: its tables and inputs, and (StatementEnv) its functions and time. */
export interface BindContext extends StatementEnv {
  /** The tables FROM may read (the storage Catalog, or none for the library's stream operators). */
  readonly catalog: SchemaSource;
  /** Named batch inputs FROM may read instead of a table (the library's stream operators), by lower-case name. */
  readonly inputs?: ReadonlyMap<string, { readonly fields: readonly Field[]; readonly timestamp: number }>;
  /** How unaliased columns are named (QuestDB 9's expression text by default). */
  readonly naming?: ColumnNaming;
  /** The statement's text, where the syntax tree's offsets point (names as written). */
  readonly sql?: string;
  /** The statement's DECLARE variables as text, for the views it reads (declare.ts variableTexts). */
  readonly variables?: ReadonlyMap<string, string>;
  /** The views being expanded around this binding, outermost first (a view cannot read itself). */
  readonly viewPath?: readonly string[];
  /** Scans of this table read only these intervals (a materialized view's refresh of its changed buckets). */
  readonly scanLimit?: { readonly table: string; readonly intervals: readonly Interval[] };
  /** The folders the file functions may list (bind-system.ts); absent: none, they are disabled. */
  readonly copyRoots?: CopyRoots;
  /** A policied materialized view read as stored (inside its own EXPIRE ROWS filter), lower case. */
  readonly rawTable?: string;
}

/**
 * The WITH queries in scope by lower-case name, each bound once where it is defined, in the
 * scope of the ones before it (standard SQL's rule; QuestDB's documented examples only refer
 * back), or the error binding it gave, thrown where it is used. References share the plan:
 * a chain of CTEs costs one binding each, not one per path, and cannot refer to itself.
 */
type Ctes = ReadonlyMap<string, { readonly plan: Plan } | { readonly error: unknown }>;

interface Source {
  readonly plan: Plan;
  readonly scope: Scope;
}

/** Binds a query and prunes the columns its scans read. */
export function bindQuery(q: A.Query, cx: BindContext): Plan {
  return useTimestampOrder(pruneColumns(bindQueryIn(q, cx, new Map())));
}

/** UPDATE ... FROM: the FROM item (table, subquery, join; `with`: the statement's CTEs) with every column kept. */
export function bindFromItem(f: A.FromItem, cx: BindContext, withs: readonly A.Cte[]): { plan: Plan; scope: Scope } {
  const s = bindFrom(f, cx, bindCtes(withs, cx, new Map()));
  return { plan: useTimestampOrder(pruneColumns(s.plan)), scope: s.scope };
}

/** Binds subqueries of a statement that is not a query (UPDATE's SET and WHERE). */
export function subqueryBinder(cx: BindContext): (q: A.Query) => Plan {
  return (q) => bindQuery(q, cx);
}

function bindQueryIn(q: A.Query, cx: BindContext, ctes: Ctes): Plan {
  const scoped = bindCtes(q.with, cx, ctes);
  const plan = q.kind === 'setOp' ? bindSetOp(q, cx, scoped) : bindSelect(q, cx, scoped);
  // CTE references and a SELECT's stack of operators can make a plan deeper than its syntax tree.
  checkPlanDepth(plan, q.pos);
  return plan;
}

/** `outer` plus the WITH queries of `list`, bound in order. */
function bindCtes(list: readonly A.Cte[], cx: BindContext, outer: Ctes): Ctes {
  if (list.length === 0) return outer;
  const scoped = new Map(outer);
  for (const c of list) {
    let bound: { plan: Plan } | { error: unknown };
    try {
      // Bound now, with the CTEs so far (later ones are added after it returns).
      bound = { plan: bindQueryIn(c.query, cx, scoped) };
    } catch (error) {
      bound = { error };
    }
    scoped.set(c.name.toLowerCase(), bound);
  }
  return scoped;
}

/** The leftmost operand of a set operation tree (where QuestDB points at a mismatched query). */
function firstSelect(q: A.Query): A.Query {
  return q.kind === 'setOp' ? firstSelect(q.left) : q;
}

function bindSetOp(q: A.SetOp, cx: BindContext, ctes: Ctes): Plan {
  let left = bindQueryIn(q.left, cx, ctes);
  let right = bindQueryIn(q.right, cx, ctes);
  if (left.fields.length !== right.fields.length) {
    throw new SvcError('SQL', 'queries have different number of columns', { position: firstSelect(q.right).pos });
  }
  // QuestDB's union cast rules: every pair of types has a column type (STRING at worst).
  const types = left.fields.map((f, i) => setOpType(f.type, right.fields[i]!.type));
  const conform = (p: Plan): Plan => {
    if (p.fields.every((f, i) => f.type === types[i])) return p;
    const exprs = p.fields.map((f, i) => {
      const col: BoundExpr = { kind: 'col', index: i, type: f.type };
      if (f.type === types[i]) return col;
      try {
        // QuestDB converts no CHAR to a floating column (its ordinal would be a number, not the text).
        if (f.type === 'CHAR' && (types[i] === 'DOUBLE' || types[i] === 'FLOAT'))
          throw new SvcError('SQL', 'no CHAR to floating conversion');
        return castTo(cx, col, types[i]!, q.pos);
      } catch (e) {
        if (!isSvcError(e)) throw e;
        // QuestDB's message for a pair its union rules admit but no cast converts.
        throw new SvcError(
          'SQL',
          `unsupported cast [column=${left.fields[i]!.name}, from=${typeName(f.type)}, to=${typeName(types[i]!)}]`,
          { position: firstSelect(q).pos, cause: e },
        );
      }
    });
    return node({
      kind: 'project',
      input: p,
      exprs,
      fields: p.fields.map((f, i) => ({ name: f.name, type: types[i]! })),
    });
  };
  left = conform(left);
  right = conform(right);
  let plan: Plan = node({
    kind: 'setOp',
    op: q.op,
    all: q.all,
    left,
    right,
    fields: left.fields.map((f, i) => ({ name: f.name, type: types[i]! })),
  });
  plan = orderAndLimit(plan, q.orderBy, q.limit);
  return plan;
}

/** A FROM item, with the designated timestamp its TIMESTAMP(col) names. */
function bindFrom(f: A.FromItem, cx: BindContext, ctes: Ctes): Source {
  const s = bindSource(f, cx, ctes);
  const d = f.kind === 'join' || f.kind === 'showRef' ? null : f.timestamp;
  return d ? { plan: designateTimestamp(s.plan, d.column, d.pos), scope: s.scope } : s;
}

function bindSource(f: A.FromItem, cx: BindContext, ctes: Ctes): Source {
  switch (f.kind) {
    case 'tableRef': {
      const cte = ctes.get(f.name.toLowerCase());
      if (cte) {
        if ('error' in cte) throw cte.error;
        const plan = cte.plan;
        return {
          plan,
          scope: { fields: plan.fields.map((x) => ({ table: f.alias ?? f.name, name: x.name, type: x.type })) },
        };
      }
      const input = cx.inputs?.get(f.name.toLowerCase());
      if (input) {
        const plan: Plan = node({
          kind: 'input',
          name: f.name.toLowerCase(),
          fields: input.fields,
          timestamp: input.timestamp,
        });
        return {
          plan,
          scope: { fields: input.fields.map((x) => ({ table: f.alias ?? f.name, name: x.name, type: x.type })) },
        };
      }
      const view = cx.catalog.view?.(f.name);
      if (view) {
        const plan = bindView(view, cx, f.pos);
        return {
          plan,
          scope: { fields: plan.fields.map((x) => ({ table: f.alias ?? view.name, name: x.name, type: x.type })) },
        };
      }
      const expire = cx.rawTable === f.name.toLowerCase() ? null : (cx.catalog.expireRows?.(f.name) ?? null);
      if (expire !== null) {
        const plan = bindExpiring(f.name, expire.clause, cx, f.pos);
        const table = f.alias ?? cx.catalog.schema(f.name).name;
        return { plan, scope: { fields: plan.fields.map((x) => ({ table, name: x.name, type: x.type })) } };
      }
      // QuestDB's COPY logs are tables named `sys.…`; svcdb keeps them in memory (lib/db/copy-jobs.ts).
      const log = COPY_LOGS.get(f.name.toLowerCase());
      if (log !== undefined && !cx.catalog.exists(f.name)) {
        const plan: Plan = node({ kind: 'metadata', what: log.what, table: null, fields: log.fields });
        return {
          plan,
          scope: { fields: plan.fields.map((x) => ({ table: f.alias ?? f.name, name: x.name, type: x.type })) },
        };
      }
      // A table function that takes no arguments may be named without parentheses (FROM pg_class,
      // FROM tables) when no table has the name.
      if (NO_ARGUMENT_FUNCTIONS.has(f.name.toLowerCase()) && !cx.catalog.exists(f.name))
        return bindTableFunction(
          {
            kind: 'functionRef',
            pos: f.pos,
            call: { kind: 'call', pos: f.pos, name: f.name.toLowerCase(), args: [], distinct: false, over: null },
            alias: f.alias ?? f.name,
            ...(f.aliasPos !== undefined ? { aliasPos: f.aliasPos } : {}),
          },
          cx,
        );
      let meta: TableSchema;
      try {
        meta = cx.catalog.schema(f.name);
      } catch (e) {
        if (e instanceof SvcError)
          throw new SvcError(e.code === 'NOT_FOUND' ? 'SQL' : e.code, e.message, { position: f.pos });
        throw e;
      }
      const fields: Field[] = meta.columns.map((c) => ({ name: c.name, type: c.type }));
      const ts = meta.columns.findIndex((c) => c.id === meta.timestampId);
      const limit = cx.scanLimit;
      const plan: Plan = node({
        kind: 'scan',
        table: meta.name,
        columns: fields.map((x) => x.name),
        intervals:
          limit !== undefined && ts >= 0 && limit.table.toLowerCase() === meta.name.toLowerCase()
            ? limit.intervals
            : null,
        fields,
        timestamp: ts,
      });
      return {
        plan,
        scope: { fields: fields.map((x) => ({ table: f.alias ?? meta.name, name: x.name, type: x.type })) },
      };
    }
    case 'functionRef':
      return bindTableFunction(f, cx);
    case 'subqueryRef': {
      const plan = bindQueryIn(f.query, cx, ctes);
      return { plan, scope: { fields: plan.fields.map((x) => ({ table: f.alias, name: x.name, type: x.type })) } };
    }
    case 'join':
      return bindJoin(f, cx, ctes);
    case 'showRef': {
      const plan = showPlan(f.show, cx);
      const alias = f.alias ?? 'show';
      return { plan, scope: { fields: plan.fields.map((x) => ({ table: alias, name: x.name, type: x.type })) } };
    }
    default:
      throw new SvcError('SQL', `unsupported FROM item [${(f as { kind: string }).kind}]`, {
        position: (f as { pos: number }).pos,
      });
  }
}

/**
 * A view read by a query: its stored query parsed (with the statement's variables for those it
 * marks OVERRIDABLE) and bound in its own scope (no outer CTEs), as if written there as a
 * subquery. An error binding it is reported at the reference, with its own message.
 */
export function bindView(view: ViewSource, cx: BindContext, pos: number): Plan {
  const path = cx.viewPath ?? [];
  const key = view.name.toLowerCase();
  if (path.some((n) => n.toLowerCase() === key)) {
    throw new SvcError('SQL', `circular view reference [view=${view.name}]`, { position: pos });
  }
  try {
    const { stmt, text } = parseWithOverrides(view.sql, cx.variables);
    if (stmt.kind !== 'query') throw new SvcError('SQL', 'a view is a query', { position: 0 });
    return bindQueryIn(stmt.query, { ...cx, sql: text, viewPath: [...path, view.name] }, new Map());
  } catch (e) {
    if (e instanceof SvcError && (e.code === 'SQL' || e.code === 'NOT_FOUND')) {
      throw new SvcError('SQL', e.message, { position: pos, cause: e });
    }
    throw e;
  }
}

/**
 * A materialized view with an EXPIRE ROWS policy, read: its table through the policy's filter
 * (sql/expire-rows.ts), so expired rows are hidden whether or not they are still on disk.
 */
function bindExpiring(name: string, clause: string, cx: BindContext, pos: number): Plan {
  const meta = cx.catalog.schema(name);
  const fields = meta.columns.map((c) => ({ name: c.name, type: c.type }));
  const target = { name: meta.name, fields, timestamp: meta.columns.findIndex((c) => c.id === meta.timestampId) };
  const sql = expireFilterSql(parseExpireClause(clause), target);
  try {
    const stmt = parseStatement(sql);
    if (stmt.kind !== 'query') throw new SvcError('INTERNAL', 'an EXPIRE ROWS filter is a query');
    return bindQueryIn(stmt.query, { ...cx, sql, rawTable: meta.name.toLowerCase() }, new Map());
  } catch (e) {
    if (e instanceof SvcError && (e.code === 'SQL' || e.code === 'NOT_FOUND'))
      throw new SvcError('SQL', `invalid EXPIRE ROWS policy of ${meta.name}: ${e.message}`, {
        position: pos,
        cause: e,
      });
    throw e;
  }
}

/** Every view (or the one named) as metadata shows it, each bound against the tables as they are now. */
export function describeViews(cx: BindContext, only: string | null = null): ViewInfo[] {
  const all = only === null ? (cx.catalog.views?.() ?? []) : [cx.catalog.view?.(only)].filter((v) => v != null);
  return all.map((v) => {
    try {
      const plan = useTimestampOrder(pruneColumns(bindView(v, { ...cx, variables: undefined }, 0)));
      return {
        name: v.name,
        sql: v.sql,
        updated: v.updated,
        error: null,
        fields: plan.fields,
        timestamp: plan.timestamp,
      };
    } catch (e) {
      if (!(e instanceof SvcError)) throw e;
      return { name: v.name, sql: v.sql, updated: v.updated, error: e.message, fields: [], timestamp: -1 };
    }
  });
}

const SCHEMA_CATEGORIES: readonly DumpCategory[] = ['TABLES', 'VIEWS', 'MATERIALIZED_VIEWS'];
/** QuestDB Enterprise's access-control categories: accepted, with nothing to dump (svcdb has no users or grants). */
const ACL_CATEGORIES = new Set(['USERS', 'GROUPS', 'SERVICE_ACCOUNTS', 'PERMISSIONS', 'ACL']);

/** SHOW CREATE DATABASE's categories: INCLUDE / EXCLUDE of TABLES, VIEWS, MATERIALIZED_VIEWS and the umbrellas. */
function dumpSet(show: A.Show): ReadonlySet<DumpCategory> {
  const named = new Set<DumpCategory>();
  for (const c of show.dump?.categories ?? [{ name: 'ALL', pos: show.pos }]) {
    if (c.name === 'ALL' || c.name === 'SCHEMA') SCHEMA_CATEGORIES.forEach((k) => named.add(k));
    else if ((SCHEMA_CATEGORIES as readonly string[]).includes(c.name)) named.add(c.name as DumpCategory);
    else if (!ACL_CATEGORIES.has(c.name))
      throw new SvcError(
        'SQL',
        'unknown category, expected TABLES, VIEWS, MATERIALIZED_VIEWS, USERS, GROUPS, SERVICE_ACCOUNTS, PERMISSIONS, SCHEMA, ACL or ALL',
        { position: c.pos },
      );
  }
  if (show.dump?.mode !== 'EXCLUDE') return named;
  return new Set(SCHEMA_CATEGORIES.filter((k) => !named.has(k)));
}

/**
 * A SHOW statement's rows, at the top of a statement or as a FROM source `(SHOW ...)`: SHOW
 * TABLES, COLUMNS FROM t (a view's too), PARTITIONS FROM t, CREATE TABLE t, CREATE VIEW v.
 */
export function showPlan(show: A.Show, cx: BindContext): Plan {
  const what = show.what.toUpperCase();
  const table = show.table;
  const isView = table !== null && cx.catalog.view?.(table) != null;
  if (what === 'CREATE DATABASE')
    return node({
      kind: 'metadata',
      what: 'createDatabase',
      table: null,
      fields: SHOW_CREATE_FIELDS,
      dump: dumpSet(show),
    });
  if (what === 'CREATE VIEW') {
    if (table === null) throw new SvcError('SQL', 'view name expected', { position: show.tablePos });
    if (!isView) {
      if (cx.catalog.exists(table)) throw new SvcError('SQL', 'view expected, got table', { position: show.tablePos });
      throw new SvcError('SQL', `view does not exist [view=${table}]`, { position: show.tablePos });
    }
    return node({ kind: 'metadata', what: 'createView', table, fields: SHOW_CREATE_FIELDS });
  }
  if (what === 'CREATE MATERIALIZED VIEW') {
    if (table === null) throw new SvcError('SQL', 'materialized view name expected', { position: show.tablePos });
    if (isView) throw new SvcError('SQL', 'materialized view expected, got view', { position: show.tablePos });
    if (!cx.catalog.exists(table))
      throw new SvcError('SQL', `materialized view does not exist [view=${table}]`, { position: show.tablePos });
    return node({ kind: 'metadata', what: 'createMatView', table, fields: SHOW_CREATE_FIELDS });
  }
  if (what === 'CREATE LIVE VIEW') {
    if (table === null) throw new SvcError('SQL', 'live view name expected', { position: show.tablePos });
    if (cx.catalog.isLiveView?.(table) !== true) {
      if (cx.catalog.exists(table) || isView)
        throw new SvcError('SQL', 'live view name expected', { position: show.tablePos });
      throw new SvcError('SQL', 'live view does not exist', { position: show.tablePos });
    }
    return node({ kind: 'metadata', what: 'createLiveView', table, fields: SHOW_CREATE_FIELDS });
  }
  if (table !== null && !isView && !cx.catalog.exists(table))
    throw new SvcError('SQL', `table does not exist [table=${table}]`, { position: show.tablePos });
  switch (what) {
    case 'TABLES':
      return node({
        kind: 'metadata',
        what: 'tables',
        table: null,
        fields: SHOW_TABLES_FIELDS,
        views: describeViews(cx),
      });
    case 'COLUMNS':
      return node({
        kind: 'metadata',
        what: 'columns',
        table,
        fields: COLUMNS_FIELDS,
        ...(isView ? { views: describeViews(cx, table) } : {}),
      });
    case 'PARTITIONS':
      if (!isView) return node({ kind: 'metadata', what: 'partitions', table, fields: PARTITIONS_FIELDS });
      break;
    case 'CREATE TABLE':
      return node({ kind: 'metadata', what: 'createTable', table, fields: SHOW_CREATE_FIELDS });
    case 'SERVER_VERSION':
      return node({ kind: 'metadata', what: 'serverVersion', table: null, fields: SERVER_VERSION_FIELDS });
    case 'PARAMETERS':
      return node({ kind: 'metadata', what: 'parameters', table: null, fields: PARAMETERS_FIELDS });
  }
  throw new SvcError('SQL', `SHOW ${show.what} is not supported`, { position: show.pos });
}

/** An integer literal; with `textEnv` (a function's argument), a text literal converts too. */
function constInt(e: A.Expr | undefined, what: string, pos: number, textEnv: StatementEnv | null = null): number {
  // A function's text argument converts as QuestDB's implicit casts do: '5' is 5, 'a' is `inconvertible value`.
  const env = textEnv;
  if (env !== null && e && e.kind === 'literal' && e.type === 'STRING') {
    const n = implicitNumber(env, literal(env, e) as Extract<BoundExpr, { kind: 'const' }>, 'LONG');
    if (n.kind === 'const') return n.value as number;
  }
  if (!e && what === 'long_sequence count') throw new SvcError('SQL', 'invalid arguments', { position: pos });
  if (!e || e.kind !== 'literal' || (e.type !== 'INT' && e.type !== 'LONG')) {
    throw new SvcError('SQL', `${what} must be an integer constant`, { position: e?.pos ?? pos });
  }
  return e.value as number;
}

/** QuestDB's COPY log tables, which FROM finds by name (as `sys.x` or `'sys.x'`). */
const COPY_LOGS: ReadonlyMap<string, { what: 'importLog' | 'exportLog'; fields: readonly Field[] }> = new Map([
  ['sys.text_import_log', { what: 'importLog', fields: COPY_IMPORT_LOG_FIELDS }],
  ['sys.copy_export_log', { what: 'exportLog', fields: COPY_EXPORT_LOG_FIELDS }],
]);

/** The table functions FROM also finds by their bare name (QuestDB's cursor functions without arguments). */
const NO_ARGUMENT_FUNCTIONS: ReadonlySet<string> = new Set([
  'tables',
  'all_tables',
  'views',
  'materialized_views',
  'live_views',
  'wal_tables',
  'checkpoint_status',
  'keywords',
  ...SYSTEM_NO_ARGUMENT_FUNCTIONS,
  ...PG_TABLE_SPELLINGS,
]);

function bindTableFunction(f: A.FunctionRef, cx: BindContext): Source {
  const name = f.call.name;
  const alias = f.alias ?? name;
  let plan: Plan;
  switch (name) {
    case 'long_sequence': {
      const n = constInt(f.call.args[0], 'long_sequence count', f.pos, cx);
      // A negative count is an empty sequence in QuestDB (no error).
      plan = node({ kind: 'longSequence', count: Math.max(n, 0), fields: [{ name: 'x', type: 'LONG' }] });
      break;
    }
    case 'tables':
    case 'all_tables':
      plan = node({ kind: 'metadata', what: 'tables', table: null, fields: TABLES_FIELDS, views: describeViews(cx) });
      break;
    case 'views':
      plan = node({ kind: 'metadata', what: 'views', table: null, fields: VIEWS_FIELDS, views: describeViews(cx) });
      break;
    case 'generate_series': {
      const text = seriesQuery(f.call, cx);
      const stmt = parseWithOverrides(text).stmt;
      if (stmt.kind !== 'query') throw new SvcError('INTERNAL', 'generate_series made no query');
      try {
        plan = bindQueryIn(stmt.query, { ...cx, sql: text }, new Map());
      } catch (e) {
        if (e instanceof SvcError) throw new SvcError('SQL', e.message, { position: f.call.pos });
        throw e;
      }
      break;
    }
    case 'materialized_views':
      plan = node({ kind: 'metadata', what: 'matViews', table: null, fields: MAT_VIEWS_FIELDS });
      break;
    case 'live_views':
      plan = node({ kind: 'metadata', what: 'liveViews', table: null, fields: LIVE_VIEWS_FIELDS });
      break;
    case 'keywords':
      plan = node({ kind: 'metadata', what: 'keywords', table: null, fields: KEYWORDS_FIELDS });
      break;
    case 'functions':
      plan = node({
        kind: 'metadata',
        what: 'functions',
        table: null,
        fields: FUNCTIONS_FIELDS,
        rows: functionRows(cx.registry),
      });
      break;
    case 'checkpoint_status':
      // svcdb has no checkpoint mode (CHECKPOINT CREATE is refused): never one in progress.
      plan = node({
        kind: 'metadata',
        what: 'checkpointStatus',
        table: null,
        fields: CHECKPOINT_STATUS_FIELDS,
        rows: [[false, null]],
      });
      break;
    case 'wal_tables':
      plan = node({ kind: 'metadata', what: 'walTables', table: null, fields: WAL_TABLES_FIELDS });
      break;
    case 'read_parquet':
    case 'parquet_scan':
      plan = bindReadParquet(f.call, cx);
      break;
    case 'table_partitions': {
      const a = f.call.args[0];
      if (!a || a.kind !== 'literal' || a.type !== 'STRING')
        throw new SvcError('SQL', 'table_partitions needs a table name string', { position: a?.pos ?? f.pos });
      const t = String(a.value);
      if (!cx.catalog.exists(t)) throw new SvcError('SQL', `table does not exist [table=${t}]`, { position: a.pos });
      plan = node({ kind: 'metadata', what: 'partitions', table: t, fields: PARTITIONS_FIELDS });
      break;
    }
    case 'table_columns': {
      const a = f.call.args[0];
      if (!a || a.kind !== 'literal' || a.type !== 'STRING')
        throw new SvcError('SQL', 'table_columns needs a table name string', { position: a?.pos ?? f.pos });
      const t = String(a.value);
      // QuestDB 9.3's text for table_columns() exactly, without the closing bracket its other messages have.
      if (cx.catalog.view?.(t)) {
        const views = describeViews(cx, t);
        plan = node({ kind: 'metadata', what: 'columns', table: t, fields: COLUMNS_FIELDS, views });
        break;
      }
      if (!cx.catalog.exists(t)) throw new SvcError('SQL', `table does not exist [table=${t}`, { position: a.pos });
      plan = node({ kind: 'metadata', what: 'columns', table: t, fields: COLUMNS_FIELDS });
      break;
    }
    default: {
      const system = bindSystemFunction(f.call, cx.catalog, cx.copyRoots);
      if (system !== null) {
        plan = system;
        break;
      }
      const pg = pgTable(name);
      if (pg === null) throw new SvcError('SQL', `unknown function name: ${name}`, { position: f.call.pos });
      // information_schema._pg_expandarray takes any arguments; the others take none.
      if (f.call.args.length > 0 && pg !== '_pg_expandarray')
        throw new SvcError('SQL', `${name}() takes no arguments`, { position: f.call.args[0]!.pos });
      plan = node({
        kind: 'metadata',
        what: 'pgCatalog',
        table: pg,
        fields: PG_TABLES.get(pg)!,
        views: describeViews(cx),
      });
    }
  }
  return { plan, scope: { fields: plan.fields.map((x) => ({ table: alias, name: x.name, type: x.type })) } };
}

/**
 * read_parquet(path) / parquet_scan(path): a Parquet file under the copy root, its columns read
 * by the statement's ParquetSource when bound (errors at the argument, as QuestDB places them).
 */
function bindReadParquet(call: A.Call, cx: BindContext): Plan {
  const a = call.args[0];
  if (a === undefined)
    throw new SvcError('SQL', `function \`${call.name}\` requires arguments`, { position: call.pos });
  if (call.args.length > 1 || a.kind !== 'literal' || (a.type !== 'STRING' && a.type !== 'CHAR' && a.type !== 'NULL'))
    throw new SvcError('SQL', `${call.name}() takes one constant string, the file's path`, {
      position: call.args.length > 1 ? call.args[1]!.pos : a.pos,
    });
  const path = a.value === null ? '' : String(a.value);
  if (cx.parquet === undefined)
    throw new SvcError(
      'SQL',
      `failed to read parquet file: ${path}: [${a.pos}] parquet files can only be read from cairo.sql.copy.root, please add cairo.sql.copy.root=<path> to your configuration`,
      { position: a.pos },
    );
  const { file, columns } = cx.parquet.describe(path, a.pos);
  return node({
    kind: 'parquetScan',
    file,
    path,
    pos: a.pos,
    columns,
    fields: columns.map((c) => ({ name: c.name, type: c.type })),
  });
}

/** The names a FROM item's sources are known by (alias, else table name), with where each is written. */
function sourceNames(
  f: A.FromItem,
  out: Array<{ name: string; pos: number }> = [],
): Array<{ name: string; pos: number }> {
  if (f.kind === 'join') {
    sourceNames(f.left, out);
    sourceNames(f.right, out);
  } else if (f.alias !== null) {
    out.push({ name: f.alias, pos: f.aliasPos ?? f.pos });
  } else if (f.kind === 'tableRef') {
    out.push({ name: f.name, pos: f.pos });
  }
  return out;
}

function bindJoin(j: A.Join, cx: BindContext, ctes: Ctes): Source {
  // QuestDB: every source of a FROM needs its own name, so a self-join takes aliases.
  const seen = new Set(sourceNames(j.left).map((s) => s.name.toLowerCase()));
  for (const s of sourceNames(j.right)) {
    if (seen.has(s.name.toLowerCase()))
      throw new SvcError('SQL', `Duplicate table or alias: ${s.name}`, { position: s.pos });
  }
  // A SELECT's FROM of HORIZON JOINs alone is bound by HorizonJoinBinder: no other join follows or precedes them.
  if (hasHorizonJoin(j.left)) throw new SvcError('SQL', HORIZON_FOLLOWED, { position: j.pos });
  if (j.type === 'HORIZON') throw new SvcError('SQL', HORIZON_MIXED, { position: j.pos });
  // A SELECT's FROM of WINDOW JOINs alone is bound by WindowJoinBinder; one reached here is mixed with other joins.
  if (j.type === 'WINDOW') throw new SvcError('SQL', MIXED_JOINS, { position: j.pos });
  if (isWindowJoin(j.left)) throw new SvcError('SQL', MIXED_JOINS, { position: j.pos });
  if (j.type === 'ASOF' || j.type === 'LT' || j.type === 'SPLICE')
    return bindAsofJoin(j, bindFrom(j.left, cx, ctes), bindFrom(j.right, cx, ctes));
  if (j.type !== 'INNER' && j.type !== 'LEFT' && j.type !== 'CROSS') {
    throw new SvcError('SQL', `${j.type} JOIN is not supported yet`, { position: j.pos });
  }
  const l = bindFrom(j.left, cx, ctes);
  const r = bindFrom(j.right, cx, ctes);
  const fields: ScopeField[] = [...l.scope.fields, ...r.scope.fields];
  const scope: Scope = { fields, subquery: (sq) => useTimestampOrder(pruneColumns(bindQueryIn(sq, cx, ctes))) };
  const leftKeys: number[] = [];
  const rightKeys: number[] = [];
  let residual: BoundExpr | null = null;
  const nl = l.scope.fields.length;
  if (j.using) {
    for (const name of j.using) {
      leftKeys.push(resolveColumn(l.scope, { kind: 'column', pos: j.pos, table: null, name }).index);
      rightKeys.push(resolveColumn(r.scope, { kind: 'column', pos: j.pos, table: null, name }).index);
    }
  } else if (j.on) {
    const rest: A.Expr[] = [];
    for (const c of conjuncts(j.on)) {
      if (c.kind === 'binary' && c.op === '=' && c.left.kind === 'column' && c.right.kind === 'column') {
        const a = resolveColumn(scope, c.left).index,
          b = resolveColumn(scope, c.right).index;
        if (a < nl && b >= nl) {
          leftKeys.push(a);
          rightKeys.push(b - nl);
          continue;
        }
        if (b < nl && a >= nl) {
          leftKeys.push(b);
          rightKeys.push(a - nl);
          continue;
        }
      }
      rest.push(c);
    }
    if (rest.length > 0) {
      residual = bindExpr(balancedAnd(rest), { env: cx, scope, onAggregate: null });
      // As WHERE: ON a.sym or ON a.k is not a condition (it used to join every pair, or fail inside the join).
      if (residual.type !== 'BOOLEAN')
        throw new SvcError('SQL', 'boolean expression expected', { position: rest[0]!.pos });
    }
  } else if (j.type !== 'CROSS') {
    throw new SvcError('SQL', 'join needs ON or USING', { position: j.pos });
  }
  const type = j.type === 'CROSS' || (leftKeys.length === 0 && !j.on) ? 'CROSS' : j.type;
  const plan: Plan = node({
    kind: 'join',
    type,
    left: l.plan,
    right: r.plan,
    leftKeys,
    rightKeys,
    residual,
    fields: fields.map((f) => ({ name: f.name, type: f.type })),
  });
  return { plan, scope };
}

/**
 * twap's arguments, its second checked to be the designated timestamp of the rows it reads
 * (QuestDB's rule, an error at the call): under SAMPLE BY the name reads the bucket, so the
 * argument is taken back to the row's own timestamp. Rows must come oldest first.
 */
function twapArgs(args: BoundExpr[], plan: Plan, sampling: SampleSetup | null, pos: number): BoundExpr[] {
  const t = args[1];
  // Under SAMPLE BY `plan` is the bucket projection over the rows: their timestamp is its input's.
  const rows = sampling !== null && plan.kind === 'project' ? plan.input : plan;
  const index = sampling !== null && t?.kind === 'col' && t.index === sampling.bucketField ? rows.timestamp : -2;
  const ts = index >= 0 ? { kind: 'col' as const, index, type: rows.fields[index]!.type } : t;
  if (ts?.kind !== 'col' || rows.timestamp < 0 || ts.index !== rows.timestamp)
    throw new SvcError('SQL', TWAP_TIMESTAMP_MESSAGE, { position: pos });
  if (rows.timestampDesc === true || reordered(rows)) throw new SvcError('SQL', TWAP_ORDER_MESSAGE, { position: pos });
  return [args[0]!, ts];
}

/** Whether rows read through `TIMESTAMP(col)` were put in another order first (a sort by something else). */
function reordered(plan: Plan): boolean {
  let p = plan;
  while (p.kind === 'filter' || p.kind === 'project' || p.kind === 'limit') p = p.input;
  if (p.kind !== 'designate') return false;
  const inner = p.input;
  if (inner.timestamp >= 0) return inner.timestamp !== p.column || inner.timestampDesc === true;
  for (let q = inner; ; q = q.input) {
    if (q.kind === 'sort') return true;
    if (q.kind !== 'filter' && q.kind !== 'project' && q.kind !== 'limit') return false;
  }
}

export function conjuncts(e: A.Expr): A.Expr[] {
  return e.kind === 'binary' && e.op === 'AND' ? [...conjuncts(e.left), ...conjuncts(e.right)] : [e];
}

function bindSelect(q: A.Select, cx: BindContext, ctes: Ctes): Plan {
  // WINDOW JOIN: the left source is the FROM (WHERE filters it); the SELECT list reads right tables in aggregates.
  const wj = q.from && isWindowJoin(q.from) ? new WindowJoinBinder(cx, q.from, (f) => bindFrom(f, cx, ctes)) : null;
  if (wj) checkWindowJoinClauses(q);
  // HORIZON JOIN: WHERE filters the left source; the rest of the SELECT reads the node's rows.
  const hj = q.from && isHorizonJoin(q.from) ? new HorizonJoinBinder(cx, q.from, (f) => bindFrom(f, cx, ctes)) : null;
  hj?.checkClauses(q);
  const src: Source = wj
    ? wj.left
    : hj
      ? hj.left
      : q.from
        ? bindFrom(q.from, cx, ctes)
        : { plan: node({ kind: 'oneRow', fields: [] }), scope: { fields: [] } };
  let plan = src.plan;
  // Uncorrelated subqueries in this query's expressions see the same tables and CTEs.
  const subquery = (sq: A.Query): Plan => useTimestampOrder(pruneColumns(bindQueryIn(sq, cx, ctes)));
  let inScope: Scope = { ...src.scope, subquery };
  checkWindowPlacement(cx, q);
  const windows = new WindowBinder(cx, inScope, q.windows, plan.timestamp);

  if (q.where) {
    hj?.checkWhere(q.where);
    const predicate = bindExpr(q.where, { env: cx, scope: inScope, onAggregate: null });
    if (predicate.type !== 'BOOLEAN')
      throw new SvcError('SQL', 'boolean expression expected', { position: q.where.pos });
    plan = pushIntervals(plan, predicate, cx);
  }
  if (q.latestOn) plan = bindLatestOn(q.latestOn, plan, inScope);
  if (hj) {
    plan = hj.build(plan);
    inScope = { ...hj.scope, subquery };
  }
  let sampling: SampleSetup | null = null;
  if (q.sampleBy) {
    sampling = bindSampleBy(cx, q.sampleBy, plan, inScope);
    plan = sampling.plan;
    inScope = sampling.scope;
  }

  // Expand the select list.
  const items: Array<{ expr: A.Expr; alias: string | null; pos: number; star: boolean }> = [];
  for (const it of q.columns) {
    if (it.kind === 'star') {
      const t = it.table?.toLowerCase() ?? null;
      const fs = (wj ? wj.combined : hj ? hj.starFields : inScope.fields).filter(
        (f) => t === null || f.table?.toLowerCase() === t,
      );
      if (t !== null && fs.length === 0)
        throw new SvcError('SQL', `Invalid table name or alias: ${it.table}`, { position: it.pos });
      for (const f of fs)
        items.push({
          expr: { kind: 'column', pos: it.pos, table: f.table, name: f.name },
          alias: null,
          pos: it.pos,
          star: true,
        });
    } else {
      items.push({ expr: it.expr, alias: it.alias, pos: it.pos, star: false });
    }
  }
  // The one place result columns get their names (exec, exp, CTAS, Parquet all read plan.fields).
  const names = selectColumnNames(items, cx.naming ?? DEFAULT_COLUMN_NAMING, cx.sql ?? null);
  // Names of earlier items' aliases stand for their expressions (the columns keep their names above).
  const fromColumns = [...inScope.fields, ...(wj?.combined ?? []), ...(hj?.starFields ?? [])].map((f) => f.name);
  items.splice(0, items.length, ...expandLateralAliases(items, fromColumns));

  const hasAgg = (e: A.Expr): boolean => hasAggregate(cx, e);
  const grouped = !wj && (q.groupBy.length > 0 || items.some((i) => hasAgg(i.expr)) || q.having !== null);

  let selectExprs: BoundExpr[];
  let postScope: Scope;
  let keyOf: ((e: A.Expr) => BoundExpr | null) | undefined;
  if (grouped) {
    // Keys: GROUP BY (by expression, select alias or position), else every select item without an aggregate.
    let keyAsts: A.Expr[] =
      q.groupBy.length > 0
        ? q.groupBy.map((g) => resolveGroupItem(g, items, names))
        : items.filter((i) => !hasAgg(i.expr)).map((i) => i.expr);
    if (hj && q.groupBy.length > 0)
      keyAsts = hj.groupKeys(
        q.groupBy,
        keyAsts,
        items.filter((i) => !hasAgg(i.expr)),
      );
    const keys = keyAsts.map((k) => bindExpr(k, { env: cx, scope: inScope, onAggregate: null }));
    // SAMPLE BY groups by bucket even when the timestamp is not selected (a hidden key).
    if (sampling && !keys.some((k) => k.kind === 'col' && k.index === sampling.bucketField)) {
      keys.push({ kind: 'col', index: sampling.bucketField, type: 'TIMESTAMP' });
    }
    const keyIndex = new Map(keyAsts.map((k, i) => [exprKey(k), i]));
    const aggregates: BoundAggregate[] = [];
    const aggIndex = new Map<string, number>();
    const onAggregate = (c: A.Call): BoundExpr => {
      const key = exprKey(c);
      let i = aggIndex.get(key);
      if (i === undefined) {
        const star = c.args.length === 1 && c.args[0]!.kind === 'starArg';
        let args = star ? [] : c.args.map((a) => bindExpr(a, { env: cx, scope: inScope, onAggregate: null }));
        const name = c.name === 'count' && c.distinct ? 'count_distinct' : c.name;
        const fn = cx.registry.resolveAggregate(
          name,
          args.map((a) => a.type),
          c.distinct && name !== 'count_distinct',
          c.pos,
        );
        if (name.toLowerCase() === 'twap') args = twapArgs(args, plan, sampling, c.pos);
        i = aggregates.length;
        aggregates.push({ name, fn, args, type: fn.type });
        aggIndex.set(key, i);
      }
      return { kind: 'col', index: keys.length + i, type: aggregates[i]!.type };
    };
    keyOf = (e: A.Expr): BoundExpr | null => {
      const i = keyIndex.get(exprKey(e));
      return i === undefined ? null : { kind: 'col', index: i, type: keys[i]!.type };
    };
    // Bind select items and HAVING in the post-aggregation world: keys and aggregates only.
    const keyFields: ScopeField[] = keys.map((k, i) => ({ table: null, name: `$key${i}`, type: k.type }));
    // A name that is neither a key nor inside an aggregate: QuestDB's message says why.
    // A name the rows do not have at all is an unknown column, as anywhere else.
    const unknownColumn = (name: string): string => {
      const dot = name.lastIndexOf('.');
      const ref: A.ColumnRef = {
        kind: 'column',
        pos: 0,
        table: dot > 0 ? name.slice(0, dot) : null,
        name: dot > 0 ? name.slice(dot + 1) : name,
      };
      try {
        resolveColumn(inScope, ref);
      } catch {
        return `Invalid column: ${name}`;
      }
      return `column must appear in GROUP BY clause or aggregate function [column=${name}]`;
    };
    postScope = { fields: keyFields, subquery, unknownColumn, inner: inScope };
    const post: ExprContext = { env: cx, scope: postScope, onAggregate, keyOf };
    const bindPost = (e: A.Expr): BoundExpr => bindExpr(e, post);
    selectExprs = items.map((i) => bindPost(i.expr));
    const having = q.having ? bindPost(q.having) : null;
    const aggFields: Field[] = [
      ...keys.map((k, i) => ({ name: `$key${i}`, type: k.type })),
      ...aggregates.map((a) => ({ name: a.name, type: a.type })),
    ];
    const bucketKey = sampling ? keys.findIndex((k) => k.kind === 'col' && k.index === sampling.bucketField) : -1;
    const agg = node({
      kind: 'aggregate',
      input: plan,
      keys,
      aggregates,
      fields: aggFields,
      ...(bucketKey >= 0 ? { bucketKey } : {}),
    });
    plan = sampling ? sampleFill(cx, sampling, agg, keys) : agg;
    if (having) plan = node({ kind: 'filter', input: plan, predicate: having, fields: plan.fields });
    postScope = { fields: aggFields.map((f) => ({ table: null, name: f.name, type: f.type })) };
  } else {
    if (q.sampleBy)
      throw new SvcError('SQL', 'SAMPLE BY needs aggregate functions in the select list', { position: q.sampleBy.pos });
    postScope = inScope;
    selectExprs = items.map((i) => {
      if (!wj) return bindExpr(i.expr, { env: cx, scope: inScope, onAggregate: null, onWindow: windows.hook });
      wj.check(i.expr);
      return bindExpr(i.expr, { env: cx, scope: inScope, onAggregate: wj.onAggregate, windowError: WJ_WINDOW });
    });
  }

  // Projection, with hidden columns for ORDER BY expressions that are not selected.
  const fields: Field[] = selectExprs.map((e, i) => ({ name: names[i]!, type: e.type }));
  const exprs = [...selectExprs];
  const order: Array<{ index: number; desc: boolean }> = [];
  for (const o of q.orderBy) {
    const idx = orderTarget(o.expr, items, names);
    if (idx !== null) {
      order.push({ index: idx, desc: o.desc });
      continue;
    }
    if (q.distinct)
      throw new SvcError('SQL', 'ORDER BY items must appear in the select list with DISTINCT', { position: o.pos });
    wj?.check(o.expr);
    const e = bindExpr(
      o.expr,
      grouped
        ? { env: cx, scope: postScope, onAggregate: null, keyOf }
        : wj
          ? { env: cx, scope: inScope, onAggregate: wj.onAggregate, windowError: WJ_WINDOW }
          : { env: cx, scope: inScope, onAggregate: null, onWindow: windows.hook },
    );
    exprs.push(e);
    order.push({ index: exprs.length - 1, desc: o.desc });
  }
  if (wj) plan = wj.build(plan);
  plan = windows.apply(plan);
  const projFields = [...fields, ...exprs.slice(fields.length).map((e, i) => ({ name: `$order${i}`, type: e.type }))];
  plan = node({ kind: 'project', input: plan, exprs, fields: projFields });
  if (q.distinct) plan = node({ kind: 'distinct', input: plan, fields: plan.fields });
  if (order.length > 0) {
    const limit = simpleLimit(q.limit);
    plan = node({ kind: 'sort', input: plan, keys: order, limit, fields: plan.fields });
  }
  plan = applyLimit(plan, q.limit);
  if (projFields.length > fields.length) {
    plan = node({
      kind: 'project',
      input: plan,
      exprs: fields.map((f, i) => ({ kind: 'col', index: i, type: f.type })),
      fields,
    });
  }
  return plan;
}

const WJ_WINDOW = 'window functions are not supported with WINDOW JOIN; use a subquery';

/** QuestDB: a SELECT over WINDOW JOINs has no GROUP BY, HAVING or SAMPLE BY (aggregate its result in a subquery). */
function checkWindowJoinClauses(q: A.Select): void {
  const pos = q.groupBy[0]?.pos ?? q.having?.pos ?? q.sampleBy?.pos;
  if (pos !== undefined)
    throw new SvcError('SQL', 'GROUP BY, HAVING and SAMPLE BY are not supported with WINDOW JOIN; use a subquery', {
      position: pos,
    });
}

/**
 * LATEST ON ts PARTITION BY k1, k2 (or LATEST BY k1, k2 on the designated
 * timestamp): for every key, the row with the newest timestamp among the rows
 * WHERE kept. Over a table in timestamp order the scan runs newest first.
 */
function bindLatestOn(l: A.LatestOn, plan: Plan, scope: Scope): Plan {
  if (l.partitionBy.length === 0)
    throw new SvcError('SQL', 'LATEST ON needs PARTITION BY columns', { position: l.pos });
  let ts: number;
  if (l.timestamp) {
    ts = resolveColumn(scope, l.timestamp).index;
    const t = scope.fields[ts]!.type;
    if (t !== 'TIMESTAMP') throw new SvcError('SQL', 'not a TIMESTAMP', { position: l.timestamp.pos });
  } else {
    ts = plan.timestamp;
    if (ts < 0)
      throw new SvcError('SQL', 'LATEST BY needs a designated timestamp; use LATEST ON ts PARTITION BY ...', {
        position: l.pos,
      });
  }
  const keys = l.partitionBy.map((k) => resolveColumn(scope, k).index);
  return node({ kind: 'latestBy', input: plan, keys, ts, fields: plan.fields });
}

function resolveGroupItem(
  g: A.Expr,
  items: ReadonlyArray<{ expr: A.Expr; alias: string | null }>,
  names: string[],
): A.Expr {
  if (g.kind === 'literal' && g.type === 'INT') {
    const i = (g.value as number) - 1;
    if (i < 0 || i >= items.length)
      throw new SvcError('SQL', `GROUP BY position ${g.value} is not in select list`, { position: g.pos });
    return items[i]!.expr;
  }
  if (g.kind === 'column' && g.table === null) {
    const i = names.findIndex((n, k) => items[k]!.alias !== null && n.toLowerCase() === g.name.toLowerCase());
    if (i >= 0) return items[i]!.expr;
  }
  return g;
}

/** The select-list position an ORDER BY item names (position, alias, or the same expression), or null. */
function orderTarget(e: A.Expr, items: ReadonlyArray<{ expr: A.Expr }>, names: string[]): number | null {
  if (e.kind === 'literal' && e.type === 'INT') {
    const i = (e.value as number) - 1;
    if (i < 0 || i >= items.length)
      throw new SvcError('SQL', `ORDER BY position ${e.value} is not in select list`, { position: e.pos });
    return i;
  }
  if (e.kind === 'column' && e.table === null) {
    const i = names.findIndex((n) => n.toLowerCase() === e.name.toLowerCase());
    if (i >= 0) return i;
  }
  const k = exprKey(e);
  const i = items.findIndex((it) => exprKey(it.expr) === k);
  return i >= 0 ? i : null;
}

function limitBounds(limit: A.Select['limit']): { lo: number; hi: number; last: number | null } | null {
  if (!limit) return null;
  const a = limitValue(limit.lo);
  if (limit.hi === null) return a >= 0 ? { lo: 0, hi: a, last: null } : { lo: 0, hi: Infinity, last: -a };
  const b = limitValue(limit.hi);
  if (a < 0 && b < 0) return { lo: 0, hi: Infinity, last: -a };
  return { lo: Math.max(0, a), hi: Math.max(0, b), last: null };
}

/**
 * One LIMIT bound: an integer constant. QuestDB binds it as an expression, so a
 * name is an unknown column and a literal of another type is "invalid type".
 */
function limitValue(e: A.Expr): number {
  if (e.kind === 'column')
    throw new SvcError('SQL', `Invalid column: ${e.table === null ? '' : `${e.table}.`}${e.name}`, { position: e.pos });
  if (e.kind === 'literal' && e.type !== 'INT' && e.type !== 'LONG' && e.type !== 'NULL') {
    // A one-character 'x' is a CHAR constant in QuestDB.
    const type = e.type === 'STRING' && String(e.value).length === 1 ? 'CHAR' : e.type;
    throw new SvcError('SQL', `invalid type: ${type}`, { position: e.pos });
  }
  return constInt(e, 'LIMIT', e.pos);
}

function simpleLimit(limit: A.Select['limit']): number | null {
  const b = limitBounds(limit);
  return b && b.last === null && Number.isFinite(b.hi) ? b.hi : null;
}

function applyLimit(plan: Plan, limit: A.Select['limit']): Plan {
  const b = limitBounds(limit);
  if (!b) return plan;
  return node({ kind: 'limit', input: plan, lo: b.lo, hi: b.hi, last: b.last, fields: plan.fields });
}

/** ORDER BY (by column name or position) and LIMIT of a set operation. */
function orderAndLimit(plan: Plan, orderBy: readonly A.OrderItem[], limit: A.Select['limit']): Plan {
  const scope: ScopeField[] = plan.fields.map((f) => ({ table: null, name: f.name, type: f.type }));
  if (orderBy.length > 0) {
    const keys = orderBy.map((o) => {
      if (o.expr.kind === 'literal' && o.expr.type === 'INT')
        return { index: (o.expr.value as number) - 1, desc: o.desc };
      if (o.expr.kind === 'column') return { index: resolveColumn({ fields: scope }, o.expr).index, desc: o.desc };
      throw new SvcError('SQL', 'ORDER BY of a set operation must name a column or position', { position: o.pos });
    });
    plan = node({ kind: 'sort', input: plan, keys, limit: simpleLimit(limit), fields: plan.fields });
  }
  return applyLimit(plan, limit);
}

export { unify };
