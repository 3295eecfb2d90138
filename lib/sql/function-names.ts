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
  'generate_series',
  'wal_tables',
  'table_partitions',
  'keywords',
  ...SYSTEM_TABLE_FUNCTIONS,
  'read_parquet',
  'parquet_scan',
  ...PG_TABLE_SPELLINGS,
];

/** Call forms the parser turns into other nodes. */
const SYNTAX_FUNCTIONS: readonly string[] = ['cast', 'in', 'switch'];

/** The names, lowercase and sorted; the registry's internal ones (operators such as `+`, cast_<type>) left out. */
export function functionNames(registry: FunctionRegistry): string[] {
  const names = new Set<string>();
  for (const n of [...registry.scalarNames(), ...registry.aggregateNames()])
    if (/^[a-z_][a-z0-9_.]*$/i.test(n) && !n.startsWith('cast_')) names.add(n.toLowerCase());
  for (const n of [...windowFunctionNames(), ...TABLE_FUNCTIONS, ...SYNTAX_FUNCTIONS]) names.add(n.toLowerCase());
  return [...names].sort();
}
