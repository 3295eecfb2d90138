// The fields of the metadata functions and SHOW statements (QuestDB's column
// names: tools query them). The executor fills the rows from the catalog.
import type { Field } from './bound.js';

export const TABLES_FIELDS: readonly Field[] = [
  { name: 'id', type: 'INT' }, { name: 'table_name', type: 'STRING' }, { name: 'designatedTimestamp', type: 'STRING' },
  { name: 'partitionBy', type: 'STRING' }, { name: 'walEnabled', type: 'BOOLEAN' }, { name: 'dedup', type: 'BOOLEAN' },
  { name: 'ttlValue', type: 'INT' }, { name: 'ttlUnit', type: 'STRING' }, { name: 'matView', type: 'BOOLEAN' },
  { name: 'directoryName', type: 'STRING' }, { name: 'maxUncommittedRows', type: 'INT' }, { name: 'o3MaxLag', type: 'LONG' },
  { name: 'table_suspended', type: 'BOOLEAN' }, { name: 'table_type', type: 'CHAR' }, { name: 'table_row_count', type: 'LONG' },
  { name: 'table_min_timestamp', type: 'TIMESTAMP' }, { name: 'table_max_timestamp', type: 'TIMESTAMP' },
];

export const COLUMNS_FIELDS: readonly Field[] = [
  { name: 'column', type: 'STRING' }, { name: 'type', type: 'STRING' }, { name: 'indexed', type: 'BOOLEAN' },
  { name: 'indexBlockCapacity', type: 'INT' }, { name: 'symbolCached', type: 'BOOLEAN' }, { name: 'symbolCapacity', type: 'INT' },
  { name: 'symbolTableSize', type: 'INT' }, { name: 'designated', type: 'BOOLEAN' }, { name: 'upsertKey', type: 'BOOLEAN' },
];

export const SHOW_TABLES_FIELDS: readonly Field[] = [{ name: 'table_name', type: 'STRING' }];
export const SHOW_CREATE_FIELDS: readonly Field[] = [{ name: 'ddl', type: 'VARCHAR' }];
