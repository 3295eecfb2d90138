// QuestDB's PostgreSQL-compatible catalogue: the pg_catalog tables and information_schema
// functions it answers with (tools such as psql, DBeaver, Grafana and JDBC drivers query them),
// with QuestDB's columns and types. exec/pg-catalog-rows.ts fills the rows from the catalog.
import type { ColumnType } from '../core/column-type.js';
import type { Field } from './bound.js';

const cols = (spec: string): Field[] =>
  spec
    .trim()
    .split(/\s*,\s*/)
    .map((s) => {
      const [name, type] = s.split(/\s+/) as [string, ColumnType];
      return { name, type };
    });

const BOOLS = (names: string): string =>
  names
    .split(/\s+/)
    .map((n) => `${n} BOOLEAN`)
    .join(', ');

/** The catalogue tables by QuestDB's name (without `pg_catalog.`), with their columns in order. */
export const PG_TABLES: ReadonlyMap<string, readonly Field[]> = new Map([
  [
    'pg_class',
    cols(`oid INT, relname STRING, relnamespace INT, reltype INT, reloftype INT, relowner INT, relam INT,
      relfilenode INT, reltablespace INT, relpages BOOLEAN, reltuples FLOAT, relallvisible INT, reltoastrelid INT,
      relhasindex BOOLEAN, relisshared BOOLEAN, relpersistence CHAR, relkind CHAR, relnatts SHORT, relchecks SHORT,
      relhasrules BOOLEAN, relhastriggers BOOLEAN, relhassubclass BOOLEAN, relrowsecurity BOOLEAN,
      relforcerowsecurity BOOLEAN, relispopulated BOOLEAN, relreplident CHAR, relispartition BOOLEAN, relrewrite INT,
      relfrozenxid LONG, relminmxid LONG, relacl STRING, reloptions STRING, relpartbound STRING, relhasoids BOOLEAN,
      xmin LONG`),
  ],
  ['pg_namespace', cols('nspname STRING, oid INT, xmin LONG, nspowner INT')],
  [
    'pg_type',
    cols(`oid INT, typname STRING, typbasetype INT, typarray INT, typnamespace INT, typnotnull BOOLEAN,
      typtypmod INT, typtype CHAR, typcategory CHAR, typrelid INT, typelem INT, typreceive INT, typdelim INT,
      typinput INT, typowner INT, typlen SHORT, typbyval BOOLEAN, typispreferred BOOLEAN, typisdefined BOOLEAN,
      typalign CHAR, typstorage CHAR, typndims INT, typcollation INT, typdefault STRING`),
  ],
  [
    'pg_attribute',
    cols(`attrelid INT, attname STRING, attnum SHORT, atttypid INT, attnotnull BOOLEAN, atttypmod INT,
      attlen SHORT, attidentity CHAR, attisdropped BOOLEAN, atthasdef BOOLEAN`),
  ],
  ['pg_attrdef', cols('adrelid INT, adnum SHORT, adbin STRING')],
  [
    'pg_database',
    cols(`oid INT, datname STRING, datdba INT, encoding INT, datcollate STRING, datctype STRING,
      datistemplate BOOLEAN, datallowconn BOOLEAN, datconnlimit INT, datlastsysoid INT, datfrozenxid LONG,
      datminmxid LONG, dattablespace INT, datacl STRING`),
  ],
  ['pg_description', cols('objoid INT, classoid INT, objsubid SHORT, description STRING')],
  ['pg_shdescription', cols('objoid INT, classoid INT, description STRING')],
  [
    'pg_index',
    cols(
      `indexrelid INT, indrelid INT, indnatts SHORT, indnkeyatts SHORT, ${BOOLS(
        'indisunique indnullsnotdistinct indisprimary indisexclusion indimmediate indisclustered indisvalid indcheckxmin indisready indislive indisreplident',
      )}, indkey INT, indcollation INT, indclass INT, indoption INT, indexprs STRING, indpred STRING`,
    ),
  ],
  ['pg_inherits', cols('inhrelid INT, inhparent INT, inhseqno INT')],
  [
    'pg_locks',
    cols(`locktype STRING, database INT, relation INT, page INT, tuple SHORT, virtualxid STRING,
      transactionid LONG, classid INT, objid INT, objsubid SHORT, virtualtransaction STRING, pid INT, mode STRING,
      granted BOOLEAN, fastpath BOOLEAN, waitstart TIMESTAMP`),
  ],
  [
    'pg_roles',
    cols(`rolname STRING, ${BOOLS('rolsuper rolinherit rolcreaterole rolcreatedb rolcanlogin rolreplication')},
      rolconnlimit INT, rolpassword STRING, rolvaliduntil TIMESTAMP, rolbypassrls BOOLEAN, rolconfig STRING, oid INT`),
  ],
  [
    'pg_proc',
    cols(`oid INT, proname STRING, pronamespace INT, proowner INT, prolang INT, procost FLOAT, prorows FLOAT,
      provariadic INT, prosupport INT, prokind CHAR, prosecdef BOOLEAN, proleakproof BOOLEAN, proisstrict BOOLEAN,
      proretset BOOLEAN, provolatile CHAR, proparallel CHAR, pronargs SHORT, pronargdefaults SHORT, prorettype INT,
      prosrc STRING, probin STRING`),
  ],
  ['pg_range', cols('rngtypid INT, rngsubtype INT, rngcollation INT, rngsubopc INT, rngcanonical INT, rngsubdiff INT')],
  [
    'pg_extension',
    cols(`oid STRING, extname STRING, extowner STRING, extnamespace STRING, extrelocatable BOOLEAN,
      extversion STRING, extconfig STRING, extcondition STRING`),
  ],
  ['pg_get_keywords', cols('word STRING, catcode STRING, barelabel BOOLEAN, catdesc STRING, baredesc STRING')],
  ['_pg_expandarray', cols('x INT, n INT')],
  [
    'information_schema.columns',
    cols(`table_catalog STRING, table_schema STRING, table_name STRING, column_name STRING, ordinal_position INT,
      column_default STRING, is_nullable STRING, data_type STRING`),
  ],
  [
    'information_schema.tables',
    cols(`table_catalog STRING, table_schema STRING, table_name STRING, table_type STRING,
      self_referencing_column_name STRING, reference_generation STRING, user_defined_type_catalog STRING,
      user_defined_type_schema STRING, user_defined_type_name STRING, is_insertable_into BOOLEAN, is_typed BOOLEAN,
      commit_action STRING`),
  ],
]);

/** The names QuestDB answers to (its registered spellings), each to its catalogue table. */
const SPELLINGS: ReadonlyMap<string, string> = new Map([
  ...[
    'pg_class',
    'pg_namespace',
    'pg_type',
    'pg_attribute',
    'pg_attrdef',
    'pg_database',
    'pg_description',
    'pg_index',
    'pg_inherits',
    'pg_locks',
    'pg_roles',
    'pg_extension',
    'pg_get_keywords',
  ].flatMap((n): Array<[string, string]> => [
    [n, n],
    [`pg_catalog.${n}`, n],
  ]),
  ['pg_proc', 'pg_proc'],
  ['pg_range', 'pg_range'],
  ['pg_catalog.pg_shdescription', 'pg_shdescription'],
  ['information_schema._pg_expandarray', '_pg_expandarray'],
  ['information_schema.columns', 'information_schema.columns'],
  ['information_schema.tables', 'information_schema.tables'],
]);

/** Every spelling, for the list of table functions. */
export const PG_TABLE_SPELLINGS: readonly string[] = [...SPELLINGS.keys()];

/** The catalogue table a FROM name (any case) stands for, or null. */
export function pgTable(name: string): string | null {
  return SPELLINGS.get(name.toLowerCase()) ?? null;
}
