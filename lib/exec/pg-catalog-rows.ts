// Rows of QuestDB's PostgreSQL-compatible catalogue (sql/pg-catalog.ts has the columns), as
// QuestDB fills them: pg_class has a row for itself then one per table, view and materialized
// view (oid = the id tables() gives it, namespace public = 2200); pg_attribute and pg_attrdef one
// per column of each table; pg_type QuestDB's 16 types and pg_proc their receive functions;
// pg_namespace, pg_database, pg_extension fixed rows; the rest empty, as in QuestDB.
import { typeName } from '../core/column-type.js';
import type { ViewInfo } from '../sql/bound.js';
import { QUESTDB_KEYWORDS } from '../sql/metadata.js';
import type { Catalog } from '../storage/catalog.js';
import type { Table } from '../storage/table.js';
import { VERSION } from '../version.js';
import type { Value } from './vectors.js';

const PG_CATALOG_OID = 11;
const PUBLIC_OID = 2200;

/** QuestDB's pg_type rows: oid, name, array type, category, element type, length, default. */
const TYPES: ReadonlyArray<[number, string, number, string, number, number, string | null]> = [
  [1043, 'varchar', 1015, 'S', 0, -1, null],
  [1114, 'timestamp', 1115, 'D', 0, 8, null],
  [701, 'float8', 1022, 'N', 0, 8, null],
  [700, 'float4', 1021, 'N', 0, 4, null],
  [23, 'int4', 1007, 'N', 0, 4, null],
  [21, 'int2', 1005, 'N', 0, 2, '0'],
  [1042, 'bpchar', 0, 'Z', 0, 2, '0'],
  [20, 'int8', 1016, 'N', 0, 8, null],
  [16, 'bool', 1000, 'B', 0, 1, 'false'],
  [17, 'binary', 0, 'U', 0, -1, null],
  [1082, 'date', 0, 'D', 0, 8, null],
  [2950, 'uuid', 0, 'U', 0, 16, null],
  [2281, 'internal', 0, 'P', 0, 8, null],
  [26, 'oid', 0, 'N', 0, 4, null],
  [1022, '_float8', 0, 'A', 701, -1, null],
  [1700, 'numeric', 0, 'N', 0, -1, null],
];

/** pg_proc: each type's receive function oid, as PostgreSQL numbers them. */
const RECEIVE_OIDS: Readonly<Record<string, number>> = {
  varchar: 2432,
  timestamp: 2474,
  float8: 2426,
  float4: 2424,
  int4: 2406,
  int2: 2404,
  bpchar: 2434,
  int8: 2408,
  bool: 2436,
  binary: 2412,
  date: 2568,
  uuid: 2961,
  internal: 0,
  oid: 2418,
  _float8: 2400,
  numeric: 3823,
};

/** The PostgreSQL type oid QuestDB reports for a column type. */
export function pgTypeOid(type: string): number {
  if (type.startsWith('DECIMAL')) return 1700;
  if (type.endsWith('[]')) return type.startsWith('LONG') ? 1016 : 1022;
  switch (type) {
    case 'TIMESTAMP':
    case 'TIMESTAMP_NS':
    case 'DATE':
      return 1114;
    case 'DOUBLE':
      return 701;
    case 'FLOAT':
      return 700;
    case 'INT':
      return 23;
    case 'SHORT':
    case 'BYTE':
      return 21;
    case 'CHAR':
      return 1042;
    case 'LONG':
      return 20;
    case 'BOOLEAN':
      return 16;
    case 'BINARY':
      return 17;
    case 'UUID':
      return 2950;
    default:
      return 1043; // STRING, VARCHAR, SYMBOL, LONG256, GEOHASH, IPv4, INTERVAL and the rest
  }
}

/** attlen: the fixed sizes PostgreSQL knows, -1 otherwise. */
const FIXED_LENGTHS: Readonly<Record<number, number>> = {
  701: 8,
  700: 4,
  23: 4,
  21: 2,
  20: 8,
  16: 1,
  1114: 8,
  2950: 16,
};

/** information_schema.columns' data_type for a type oid. */
const SQL_TYPE_NAMES: Readonly<Record<number, string>> = {
  1043: 'character varying',
  1114: 'timestamp without time zone',
  701: 'double precision',
  700: 'real',
  23: 'integer',
  21: 'smallint',
  1042: 'character',
  20: 'bigint',
  16: 'boolean',
  17: 'bytea',
  1082: 'date',
  2950: 'character varying',
};

/** Tables and views by name with the ids tables() gives them (their place in that list, from 1). */
function relations(
  catalog: Catalog,
  views: readonly ViewInfo[],
): Array<{ id: number; table?: Table; view?: ViewInfo }> {
  return [
    ...catalog.tables().map((t) => ({ name: t.name, table: t })),
    ...views.map((v) => ({ name: v.name, view: v })),
  ]
    .sort((a, b) => a.name.localeCompare(b.name))
    .map((e, i) => ({ ...e, id: i + 1 }));
}

function pgClassRow(oid: number, name: string, namespace: number, persistence: string, kind: string): Value[] {
  const populated = namespace === PUBLIC_OID;
  return [
    oid,
    name,
    namespace,
    0,
    0,
    0,
    0,
    0,
    0,
    false,
    -1,
    0,
    0,
    false,
    false,
    persistence,
    kind,
    0,
    0,
    false,
    false,
    false,
    false,
    false,
    populated,
    'd',
    false,
    0,
    0,
    0,
    null,
    null,
    null,
    false,
    0,
  ];
}

/** The rows of catalogue table `name` (a key of sql/pg-catalog.ts PG_TABLES). */
export function pgCatalogRows(name: string, catalog: Catalog, views: readonly ViewInfo[]): Value[][] {
  switch (name) {
    case 'pg_class': {
      const rows = [pgClassRow(1259, 'pg_class', PG_CATALOG_OID, 'u', 'r')];
      for (const r of relations(catalog, views)) {
        const kind = r.view ? 'v' : r.table!.mv !== null ? 'm' : 'r';
        rows.push(pgClassRow(r.id, r.view?.name ?? r.table!.name, PUBLIC_OID, 'p', kind));
      }
      return rows;
    }
    case 'pg_namespace':
      return [
        ['pg_catalog', PG_CATALOG_OID, 0, 1],
        ['public', PUBLIC_OID, 0, 1],
      ];
    case 'pg_type':
      return TYPES.map(([oid, typname, array, category, elem, len, dflt]) => [
        oid,
        typname,
        0,
        array,
        PG_CATALOG_OID,
        false,
        0,
        'b',
        category,
        null,
        elem,
        0,
        0,
        0,
        0,
        len,
        false,
        false,
        true,
        'c',
        'p',
        0,
        0,
        dflt,
      ]);
    case 'pg_proc':
      return TYPES.map(([oid, typname]) => {
        const array = typname === '_float8';
        return [
          RECEIVE_OIDS[typname] ?? 0,
          array ? 'array_recv' : `${typname}_recv`,
          PUBLIC_OID,
          0,
          0,
          0,
          0,
          0,
          0,
          'f',
          false,
          false,
          true,
          false,
          'i',
          's',
          1,
          0,
          oid,
          array ? 'array_recv' : `${typname}recv`,
          null,
        ];
      });
    case 'pg_attribute':
    case 'pg_attrdef':
    case 'information_schema.columns': {
      const rows: Value[][] = [];
      for (const r of relations(catalog, [])) {
        r.table!.meta.columns.forEach((c, k) => {
          const oid = pgTypeOid(typeName(c.type));
          if (name === 'pg_attrdef') rows.push([r.id, k + 1, '']);
          else if (name === 'pg_attribute')
            rows.push([
              r.id,
              c.name,
              k + 1,
              oid,
              false,
              oid === 1042 ? 5 : -1,
              FIXED_LENGTHS[oid] ?? -1,
              '',
              false,
              true,
            ]);
          else rows.push(['qdb', 'public', r.table!.name, c.name, k, null, 'yes', SQL_TYPE_NAMES[oid] ?? 'unknown']);
        });
      }
      return rows;
    }
    case 'information_schema.tables':
      return relations(catalog, views).map((r) => [
        'qdb',
        'public',
        r.view?.name ?? r.table!.name,
        'BASE TABLE',
        null,
        null,
        null,
        null,
        null,
        true,
        false,
        null,
      ]);
    case 'pg_database':
      return [[1, 'qdb', 2, 0, 'en_US.UTF-8', 'en_US.UTF-8', false, true, -1, 1, -1, 0, 3, '']];
    case 'pg_extension':
      return [['1', 'questdb', '1', '1', false, VERSION, null, null]];
    case 'pg_get_keywords':
      return QUESTDB_KEYWORDS.map((w) => [w, null, false, null, null]);
    default:
      return []; // pg_description, pg_shdescription, pg_index, pg_inherits, pg_locks, pg_roles, pg_range, _pg_expandarray
  }
}
