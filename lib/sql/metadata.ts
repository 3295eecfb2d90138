// The fields of the metadata functions and SHOW statements (QuestDB's column
// names: tools query them). The executor fills the rows from the catalog.
import type { Field } from './bound.js';

/**
 * tables(): QuestDB 9.3.3's 45 columns in its order. The statistics QuestDB keeps of its WAL
 * apply, write amplification, merge rate and replication have no counterpart in svcdb and are
 * NULL (metadata-rows.ts fills the rest from the table's state).
 */
export const TABLES_FIELDS: readonly Field[] = [
  { name: 'id', type: 'INT' },
  { name: 'table_name', type: 'STRING' },
  { name: 'designatedTimestamp', type: 'STRING' },
  { name: 'partitionBy', type: 'STRING' },
  { name: 'walEnabled', type: 'BOOLEAN' },
  { name: 'dedup', type: 'BOOLEAN' },
  { name: 'ttlValue', type: 'INT' },
  { name: 'ttlUnit', type: 'STRING' },
  { name: 'matView', type: 'BOOLEAN' },
  { name: 'directoryName', type: 'STRING' },
  { name: 'maxUncommittedRows', type: 'INT' },
  { name: 'o3MaxLag', type: 'LONG' },
  { name: 'table_suspended', type: 'BOOLEAN' },
  { name: 'table_type', type: 'CHAR' },
  { name: 'table_row_count', type: 'LONG' },
  { name: 'table_min_timestamp', type: 'TIMESTAMP' },
  { name: 'table_max_timestamp', type: 'TIMESTAMP' },
  { name: 'table_last_write_timestamp', type: 'TIMESTAMP' },
  { name: 'table_txn', type: 'LONG' },
  { name: 'table_memory_pressure_level', type: 'INT' },
  { name: 'table_write_amp_count', type: 'LONG' },
  { name: 'table_write_amp_p50', type: 'DOUBLE' },
  { name: 'table_write_amp_p90', type: 'DOUBLE' },
  { name: 'table_write_amp_p99', type: 'DOUBLE' },
  { name: 'table_write_amp_max', type: 'DOUBLE' },
  { name: 'table_merge_rate_count', type: 'LONG' },
  { name: 'table_merge_rate_p50', type: 'LONG' },
  { name: 'table_merge_rate_p90', type: 'LONG' },
  { name: 'table_merge_rate_p99', type: 'LONG' },
  { name: 'table_merge_rate_max', type: 'LONG' },
  { name: 'wal_pending_row_count', type: 'LONG' },
  { name: 'wal_dedup_row_count_since_start', type: 'LONG' },
  { name: 'wal_txn', type: 'LONG' },
  { name: 'wal_max_timestamp', type: 'TIMESTAMP' },
  { name: 'wal_tx_count', type: 'LONG' },
  { name: 'wal_tx_size_p50', type: 'LONG' },
  { name: 'wal_tx_size_p90', type: 'LONG' },
  { name: 'wal_tx_size_p99', type: 'LONG' },
  { name: 'wal_tx_size_max', type: 'LONG' },
  { name: 'replica_batch_count', type: 'LONG' },
  { name: 'replica_batch_size_p50', type: 'LONG' },
  { name: 'replica_batch_size_p90', type: 'LONG' },
  { name: 'replica_batch_size_p99', type: 'LONG' },
  { name: 'replica_batch_size_max', type: 'LONG' },
  { name: 'replica_more_pending', type: 'BOOLEAN' },
];

export const COLUMNS_FIELDS: readonly Field[] = [
  { name: 'column', type: 'STRING' },
  { name: 'type', type: 'STRING' },
  { name: 'indexed', type: 'BOOLEAN' },
  { name: 'indexBlockCapacity', type: 'INT' },
  { name: 'symbolCached', type: 'BOOLEAN' },
  { name: 'symbolCapacity', type: 'INT' },
  { name: 'symbolTableSize', type: 'INT' },
  { name: 'designated', type: 'BOOLEAN' },
  { name: 'upsertKey', type: 'BOOLEAN' },
];

export const SHOW_TABLES_FIELDS: readonly Field[] = [{ name: 'table_name', type: 'STRING' }];
export const SHOW_CREATE_FIELDS: readonly Field[] = [{ name: 'ddl', type: 'VARCHAR' }];

/** views(): QuestDB 9.3's columns (its STRING types). */
export const VIEWS_FIELDS: readonly Field[] = [
  { name: 'view_name', type: 'STRING' },
  { name: 'view_sql', type: 'STRING' },
  { name: 'view_table_dir_name', type: 'STRING' },
  { name: 'invalidation_reason', type: 'STRING' },
  { name: 'view_status', type: 'STRING' },
  { name: 'view_status_update_time', type: 'TIMESTAMP' },
];

/** materialized_views(): QuestDB 9.3's columns. */
export const MAT_VIEWS_FIELDS: readonly Field[] = [
  { name: 'view_name', type: 'STRING' },
  { name: 'refresh_type', type: 'STRING' },
  { name: 'base_table_name', type: 'STRING' },
  { name: 'last_refresh_start_timestamp', type: 'TIMESTAMP' },
  { name: 'last_refresh_finish_timestamp', type: 'TIMESTAMP' },
  { name: 'view_sql', type: 'STRING' },
  { name: 'view_table_dir_name', type: 'STRING' },
  { name: 'invalidation_reason', type: 'STRING' },
  { name: 'view_status', type: 'STRING' },
  { name: 'refresh_period_hi', type: 'TIMESTAMP' },
  { name: 'refresh_base_table_txn', type: 'LONG' },
  { name: 'base_table_txn', type: 'LONG' },
  { name: 'refresh_limit', type: 'INT' },
  { name: 'refresh_limit_unit', type: 'STRING' },
  { name: 'timer_time_zone', type: 'STRING' },
  { name: 'timer_start', type: 'TIMESTAMP' },
  { name: 'timer_interval', type: 'INT' },
  { name: 'timer_interval_unit', type: 'STRING' },
  { name: 'period_length', type: 'INT' },
  { name: 'period_length_unit', type: 'STRING' },
  { name: 'period_delay', type: 'INT' },
  { name: 'period_delay_unit', type: 'STRING' },
  // QuestDB 10.2's EXPIRE ROWS policy: its clause, CLEANUP EVERY, FILTER_ONLY / FILTER_AND_RECLAIM.
  { name: 'expire_clause', type: 'STRING' },
  { name: 'expire_cleanup_every', type: 'STRING' },
  { name: 'expire_enforcement', type: 'STRING' },
];

/**
 * live_views(): QuestDB's columns in its order. The first twenty-odd describe the view; the
 * in-memory tier, out-of-order repair and checkpoint-timeline figures have no counterpart in
 * svcdb (no in-memory tier, a refresh recomputes) and are 0 or NULL (live-view-rows.ts).
 */
export const LIVE_VIEWS_FIELDS: readonly Field[] = [
  { name: 'view_name', type: 'STRING' },
  { name: 'view_table_dir_name', type: 'STRING' },
  { name: 'base_table_name', type: 'STRING' },
  { name: 'view_sql', type: 'STRING' },
  { name: 'view_status', type: 'STRING' },
  { name: 'invalidation_reason', type: 'STRING' },
  { name: 'flush_every_interval', type: 'LONG' },
  { name: 'flush_every_interval_unit', type: 'STRING' },
  { name: 'in_memory_interval', type: 'LONG' },
  { name: 'in_memory_interval_unit', type: 'STRING' },
  { name: 'in_mem_bytes', type: 'LONG' },
  { name: 'in_mem_rows', type: 'LONG' },
  { name: 'o3_rejected_count', type: 'LONG' },
  { name: 'below_lower_bound_count', type: 'LONG' },
  { name: 'lag_seqtxn', type: 'LONG' },
  { name: 'lag_micros', type: 'LONG' },
  { name: 'last_processed_seqtxn', type: 'LONG' },
  { name: 'applied_watermark', type: 'LONG' },
  { name: 'lv_consumed_seqtxn', type: 'LONG' },
  { name: 'view_lower_bound_timestamp', type: 'TIMESTAMP' },
  { name: 'writer_stall_micros', type: 'LONG' },
  { name: 'seed_target_seqtxn', type: 'LONG' },
  { name: 'o3_resume_replay_rows', type: 'LONG' },
  { name: 'o3_boundary_replay_rows', type: 'LONG' },
  { name: 'o3_replay_scan_rows', type: 'LONG' },
  { name: 'checkpoint_timeline_generation', type: 'LONG' },
  { name: 'checkpoint_timeline_entries', type: 'LONG' },
  { name: 'checkpoint_timeline_normalized_base_seqtxn', type: 'LONG' },
  { name: 'checkpoint_timeline_logical_bytes', type: 'LONG' },
  { name: 'checkpoint_timeline_physical_bytes', type: 'LONG' },
  { name: 'checkpoint_timeline_shared_bytes', type: 'LONG' },
  { name: 'checkpoint_timeline_sharing_ratio', type: 'DOUBLE' },
  { name: 'checkpoint_timeline_row_position_delta_bytes', type: 'LONG' },
  { name: 'checkpoint_data_segment_count', type: 'LONG' },
  { name: 'checkpoint_obsolete_segment_bytes', type: 'LONG' },
  { name: 'checkpoint_oldest_pinned_generation', type: 'LONG' },
  { name: 'checkpoint_gc_lag_generations', type: 'LONG' },
  { name: 'checkpoint_last_write_micros', type: 'LONG' },
  { name: 'checkpoint_last_restore_micros', type: 'LONG' },
  { name: 'checkpoint_last_write_new_bytes', type: 'LONG' },
  { name: 'checkpoint_last_lookup_depth', type: 'LONG' },
  { name: 'checkpoint_repair_in_progress', type: 'BOOLEAN' },
  { name: 'checkpoint_repair_correction_timestamp', type: 'TIMESTAMP' },
  { name: 'checkpoint_repair_low_timestamp', type: 'TIMESTAMP' },
  { name: 'checkpoint_repair_high_timestamp', type: 'TIMESTAMP' },
  { name: 'checkpoint_repair_roots_versioned', type: 'LONG' },
  { name: 'checkpoint_repair_new_bytes', type: 'LONG' },
  { name: 'checkpoint_repair_resumes', type: 'LONG' },
  { name: 'checkpoint_repair_failures', type: 'LONG' },
  { name: 'checkpoint_repair_plan', type: 'STRING' },
  { name: 'checkpoint_repair_last_disposition', type: 'STRING' },
  { name: 'checkpoint_repair_last_denial', type: 'STRING' },
];

/** table_partitions('t') and SHOW PARTITIONS FROM t: QuestDB 9.3's columns. */
export const PARTITIONS_FIELDS: readonly Field[] = [
  { name: 'index', type: 'INT' },
  { name: 'partitionBy', type: 'STRING' },
  { name: 'name', type: 'STRING' },
  { name: 'minTimestamp', type: 'TIMESTAMP' },
  { name: 'maxTimestamp', type: 'TIMESTAMP' },
  { name: 'numRows', type: 'LONG' },
  { name: 'diskSize', type: 'LONG' },
  { name: 'diskSizeHuman', type: 'STRING' },
  { name: 'readOnly', type: 'BOOLEAN' },
  { name: 'active', type: 'BOOLEAN' },
  { name: 'attached', type: 'BOOLEAN' },
  { name: 'detached', type: 'BOOLEAN' },
  { name: 'attachable', type: 'BOOLEAN' },
  { name: 'isParquet', type: 'BOOLEAN' },
  { name: 'parquetFileSize', type: 'LONG' },
];

/** checkpoint_status(): whether a checkpoint is in progress and since when (QuestDB's columns). */
export const CHECKPOINT_STATUS_FIELDS: readonly Field[] = [
  { name: 'in_progress', type: 'BOOLEAN' },
  { name: 'started_at', type: 'TIMESTAMP' },
];

/** wal_tables(): the WAL tables with their transactions (svcdb applies each commit at once: no lag). */
export const WAL_TABLES_FIELDS: readonly Field[] = [
  { name: 'name', type: 'STRING' },
  { name: 'suspended', type: 'BOOLEAN' },
  { name: 'writerTxn', type: 'LONG' },
  { name: 'writerLagTxnCount', type: 'LONG' },
  { name: 'sequencerTxn', type: 'LONG' },
];

/** keywords(): one row per word of QuestDB's keyword list (its catalogue's), in its order. */
export const KEYWORDS_FIELDS: readonly Field[] = [{ name: 'keyword', type: 'STRING' }];

/** functions(): QuestDB's columns. */
export const FUNCTIONS_FIELDS: readonly Field[] = [
  { name: 'name', type: 'STRING' },
  { name: 'signature', type: 'STRING' },
  { name: 'signature_translated', type: 'STRING' },
  { name: 'runtime_constant', type: 'BOOLEAN' },
  { name: 'type', type: 'STRING' },
];

export const QUESTDB_KEYWORDS: readonly string[] = (
  'add all alter and as asc asof backup between by cache capacity case cast column columns copy create cross ' +
  'database default delete desc distinct drop else end except exists fill foreign from grant group header if in ' +
  'index inner insert intersect into isolation join key latest left level limit lock lt nan natural nocache none ' +
  'not null on only or order outer over partition primary references rename repair right sample select show ' +
  'splice system table tables then to transaction truncate type union unlock update values when where with ' +
  'writer window'
).split(' ');

/** table_storage(): QuestDB's columns, one row per table and materialized view. */
export const TABLE_STORAGE_FIELDS: readonly Field[] = [
  { name: 'tableName', type: 'STRING' },
  { name: 'walEnabled', type: 'BOOLEAN' },
  { name: 'partitionBy', type: 'STRING' },
  { name: 'partitionCount', type: 'LONG' },
  { name: 'rowCount', type: 'LONG' },
  { name: 'diskSize', type: 'LONG' },
];

/** wal_transactions('t'): QuestDB's columns (svcdb answers with its last commit: system-rows.ts). */
export const WAL_TRANSACTIONS_FIELDS: readonly Field[] = [
  { name: 'sequencerTxn', type: 'LONG' },
  { name: 'timestamp', type: 'TIMESTAMP' },
  { name: 'walId', type: 'INT' },
  { name: 'segmentId', type: 'INT' },
  { name: 'segmentTxn', type: 'INT' },
  { name: 'structureVersion', type: 'LONG' },
  { name: 'minTimestamp', type: 'TIMESTAMP' },
  { name: 'maxTimestamp', type: 'TIMESTAMP' },
  { name: 'rowCount', type: 'LONG' },
  { name: 'alterCommandType', type: 'SHORT' },
];

/** memory_metrics() and table_writer_metrics(): a name and a number per row. */
export const MEMORY_METRICS_FIELDS: readonly Field[] = [
  { name: 'memory_tag', type: 'STRING' },
  { name: 'bytes', type: 'LONG' },
];
export const WRITER_METRICS_FIELDS: readonly Field[] = [
  { name: 'name', type: 'STRING' },
  { name: 'value', type: 'LONG' },
];

export const READER_POOL_FIELDS: readonly Field[] = [
  { name: 'table_name', type: 'STRING' },
  { name: 'owner_thread_id', type: 'LONG' },
  { name: 'last_access_timestamp', type: 'TIMESTAMP' },
  { name: 'current_txn', type: 'LONG' },
];

export const WRITER_POOL_FIELDS: readonly Field[] = [
  { name: 'table_name', type: 'STRING' },
  { name: 'owner_thread_id', type: 'LONG' },
  { name: 'last_access_timestamp', type: 'TIMESTAMP' },
  { name: 'ownership_reason', type: 'STRING' },
];

export const QUERY_ACTIVITY_FIELDS: readonly Field[] = [
  { name: 'query_id', type: 'LONG' },
  { name: 'worker_id', type: 'LONG' },
  { name: 'worker_pool', type: 'STRING' },
  { name: 'username', type: 'STRING' },
  { name: 'query_start', type: 'TIMESTAMP' },
  { name: 'state_change', type: 'TIMESTAMP' },
  { name: 'state', type: 'STRING' },
  { name: 'query', type: 'STRING' },
];

/** SHOW SERVER_VERSION: the PostgreSQL version QuestDB reports to drivers. */
export const SERVER_VERSION_FIELDS: readonly Field[] = [{ name: 'server_version', type: 'STRING' }];
export const SERVER_VERSION = '12.3 (questdb)';

/** SHOW PARAMETERS: QuestDB's columns, one row per server.conf key. */
export const PARAMETERS_FIELDS: readonly Field[] = [
  { name: 'property_path', type: 'STRING' },
  { name: 'env_var_name', type: 'STRING' },
  { name: 'value', type: 'STRING' },
  { name: 'value_source', type: 'STRING' },
  { name: 'sensitive', type: 'BOOLEAN' },
  { name: 'reloadable', type: 'BOOLEAN' },
];

/** files('dir'), import_files(), export_files() and glob('pattern'). */
export const FILES_FIELDS: readonly Field[] = [
  { name: 'path', type: 'VARCHAR' },
  { name: 'diskSize', type: 'LONG' },
  { name: 'diskSizeHuman', type: 'STRING' },
  { name: 'modifiedTime', type: 'DATE' },
];

/** The columns of sys.text_import_log (QuestDB's). */
export const COPY_IMPORT_LOG_FIELDS: readonly Field[] = [
  { name: 'ts', type: 'TIMESTAMP' },
  { name: 'id', type: 'STRING' },
  { name: 'table_name', type: 'SYMBOL' },
  { name: 'file', type: 'SYMBOL' },
  { name: 'phase', type: 'SYMBOL' },
  { name: 'status', type: 'SYMBOL' },
  { name: 'message', type: 'STRING' },
  { name: 'rows_handled', type: 'LONG' },
  { name: 'rows_imported', type: 'LONG' },
  { name: 'errors', type: 'LONG' },
];

/** The columns of sys.copy_export_log (QuestDB's documentation). */
export const COPY_EXPORT_LOG_FIELDS: readonly Field[] = [
  { name: 'ts', type: 'TIMESTAMP' },
  { name: 'id', type: 'VARCHAR' },
  { name: 'table_name', type: 'SYMBOL' },
  { name: 'export_path', type: 'SYMBOL' },
  { name: 'num_exported_files', type: 'INT' },
  { name: 'phase', type: 'SYMBOL' },
  { name: 'status', type: 'SYMBOL' },
  { name: 'message', type: 'VARCHAR' },
  { name: 'errors', type: 'LONG' },
];
