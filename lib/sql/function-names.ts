// Every name svcdb answers to as a function, whatever binds it: the registry's
// scalars and aggregates, the window functions, the table functions of FROM
// and the call forms the parser makes something else of (CAST, IN). Compared
// with QuestDB's own list by test/functions/questdb-functions.test.ts.
import type { FunctionRegistry } from '../functions/registry.js';
import { windowFunctionNames } from './window-functions.js';
import { PG_TABLE_SPELLINGS } from './pg-catalog.js';
import { SYSTEM_TABLE_FUNCTIONS } from './bind-system.js';

/** The table-valued functions of FROM (binder.ts bindTableFunction binds each). */
export const TABLE_FUNCTIONS: readonly string[] = [
  'long_sequence',
  'tables',
  'all_tables',
  'table_columns',
  'views',
  'materialized_views',
  'live_views',
  'generate_series',
  'wal_tables',
  'checkpoint_status',
  'table_partitions',
  'keywords',
  'functions',
  ...SYSTEM_TABLE_FUNCTIONS,
  'read_parquet',
  'parquet_scan',
  ...PG_TABLE_SPELLINGS,
];

/** Call forms the parser or binder turns into other nodes (touch: bind-expr.ts touchExpr). */
const SYNTAX_FUNCTIONS: readonly string[] = ['cast', 'in', 'switch', 'touch'];

/** The names, lowercase and sorted; the registry's internal ones (operators such as `+`, cast_<type>) left out. */
export function functionNames(registry: FunctionRegistry): string[] {
  const names = new Set<string>();
  for (const n of [...registry.scalarNames(), ...registry.aggregateNames()])
    if (/^[a-z_][a-z0-9_.]*$/i.test(n) && !n.startsWith('cast_')) names.add(n.toLowerCase());
  for (const n of [...windowFunctionNames(), ...TABLE_FUNCTIONS, ...SYNTAX_FUNCTIONS]) names.add(n.toLowerCase());
  return [...names].sort();
}

/**
 * functions(): a row per name svcdb answers to, with QuestDB's kind (STANDARD, GROUP_BY, WINDOW,
 * CURSOR) and whether it is a runtime constant. svcdb's registry keeps argument rules, not
 * QuestDB's signature strings: signature and signature_translated are NULL.
 */
export function functionRows(registry: FunctionRegistry): Array<[string, null, null, boolean, string]> {
  const kinds = new Map<string, string>();
  const usable = (n: string): boolean => /^[a-z_][a-z0-9_.]*$/i.test(n) && !n.startsWith('cast_');
  for (const n of registry.scalarNames()) if (usable(n)) kinds.set(n.toLowerCase(), 'STANDARD');
  for (const n of registry.aggregateNames()) if (usable(n)) kinds.set(n.toLowerCase(), 'GROUP_BY');
  for (const n of windowFunctionNames()) if (!kinds.has(n)) kinds.set(n, 'WINDOW');
  for (const n of TABLE_FUNCTIONS) kinds.set(n.toLowerCase(), 'CURSOR');
  for (const n of SYNTAX_FUNCTIONS) if (!kinds.has(n)) kinds.set(n, 'STANDARD');
  return [...kinds]
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([n, kind]) => [n, null, null, false, kind]);
}
