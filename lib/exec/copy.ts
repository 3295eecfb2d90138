// COPY compiled: the checks QuestDB makes before an import or export starts (roots set, paths
// inside them, the table or query bound), then a one-row answer (the job's id) when it runs.
// The jobs themselves, their logs and cancelling are lib/db's (CopyControl, db/copy-jobs.ts).
import { resolve, sep } from 'node:path';
import { SvcError } from '../errors/svc-error.js';
import type * as A from '../sql/ast.js';
import type { Field } from '../sql/bound.js';
import type { BindContext } from '../sql/binder.js';
import { bindQuery } from '../sql/binder.js';
import type { Batch } from '../core/batch.js';
import type { PartitionBy } from '../storage/partition-by.js';
import { copyRootFile } from './parquet-file.js';
import { fromValues, type Value } from './vectors.js';

export type CopyAtomicity = 'skipCol' | 'skipRow' | 'abort';

/** COPY t FROM 'file': what the import job needs. */
export interface CopyImportRequest {
  readonly table: string;
  /** The file, absolute, inside the copy root. */
  readonly file: string;
  /** The file as the statement names it (the log's `file`). */
  readonly fileName: string;
  readonly header: boolean;
  readonly timestamp: string | null;
  /** The timestamp column's pattern (FORMAT), or null to detect. */
  readonly format: string | null;
  /** The delimiter, or null to detect. */
  readonly delimiter: string | null;
  readonly partitionBy: PartitionBy | null;
  readonly atomicity: CopyAtomicity;
}

/** COPY t|(query) TO 'dir': what the export job needs. */
export interface CopyExportRequest {
  /** The log's table_name: the table, or 'query'. */
  readonly source: string;
  /** The query run at export (the table's rows: SELECT * FROM it). */
  readonly sql: string;
  /** The folder written, absolute, inside the export root. */
  readonly dir: string;
  /** The folder as the statement names it (the log's export_path). */
  readonly dirName: string;
  /** The WITH options but FORMAT and PARTITION_BY, lower-case names to their values (the Parquet options of /exp). */
  readonly parquet: ReadonlyMap<string, string>;
  /**
   * PARTITION_BY as written (NONE, HOUR, DAY, WEEK, MONTH, YEAR), or null: QuestDB's default, the
   * table's partitioning for a table, NONE for a query.
   */
  readonly partitionBy: string | null;
}

/** A log's rows in its columns' order (sql/metadata.ts COPY_IMPORT_LOG_FIELDS, COPY_EXPORT_LOG_FIELDS). */
export type CopyLogRow = readonly Value[];

/** What runs COPY's jobs (lib/db's CopyJobs): the roots, starting, cancelling, the logs. */
export interface CopyControl {
  /** cairo.sql.copy.root, absolute; '' when not set (COPY FROM is disabled). */
  readonly importRoot: string;
  /** cairo.sql.copy.export.root, absolute; '' when not set (COPY TO is disabled). */
  readonly exportRoot: string;
  /** Starts an import in the background; its id. Throws (SQL, at `pos`) while another import runs. */
  startImport(r: CopyImportRequest, pos: number): string;
  /** Starts an export in the background; its id. */
  startExport(r: CopyExportRequest): string;
  /** Cancels a running import or export: 'cancelled', or 'unknown' when no job of that id runs. */
  cancel(id: string): string;
  importLog(): readonly CopyLogRow[];
  exportLog(): readonly CopyLogRow[];
}

const ID: Field = { name: 'id', type: 'STRING' };

/** A compiled COPY: its answer's columns and the run that starts the job (nothing starts before). */
export interface CompiledCopy {
  readonly fields: readonly Field[];
  run(): Batch;
}

/** Checks a COPY statement and prepares its run; `bind` binds COPY TO's query (errors at their positions). */
export function compileCopy(stmt: A.Copy, control: CopyControl | undefined, cx: BindContext): CompiledCopy {
  switch (stmt.mode) {
    case 'cancel': {
      if (!/^[0-9a-fA-F]{1,16}$/.test(stmt.id))
        throw new SvcError('SQL', `copy cancel ID format is invalid: '${stmt.id}'`, { position: 0 });
      const id = stmt.id.toLowerCase().padStart(16, '0');
      return {
        fields: [ID, { name: 'status', type: 'STRING' }],
        run: () => rowOf(['STRING', 'STRING'], [id, control?.cancel(id) ?? 'unknown']),
      };
    }
    case 'from': {
      const root = control?.importRoot ?? '';
      if (root === '')
        throw new SvcError('SQL', "COPY is disabled ['cairo.sql.copy.root' is not set?]", { position: stmt.filePos });
      const file = insideRoot(root, stmt.file, stmt.filePos);
      const r = importRequest(stmt, file);
      return { fields: [ID], run: () => rowOf(['STRING'], [control!.startImport(r, stmt.pos)]) };
    }
    case 'to': {
      const root = control?.exportRoot ?? '';
      if (root === '')
        throw new SvcError('SQL', "COPY TO is disabled ['cairo.sql.copy.export.root' is not set?]", {
          position: stmt.dirPos,
        });
      const dir = insideRoot(root, stmt.dir, stmt.dirPos);
      if (stmt.options.length > 0 && !stmt.options.some((o) => o.name === 'FORMAT'))
        throw new SvcError('SQL', "export format must be specified, supported formats:, 'parquet'", { position: 0 });
      const pb = [...stmt.options].reverse().find((o) => o.name === 'PARTITION_BY');
      let sql: string;
      if (stmt.query !== null) {
        bindQuery(stmt.query.query, cx);
        sql = stmt.queryText!;
      } else {
        const table = stmt.table!;
        if (!cx.catalog.exists(table) && !cx.catalog.view?.(table))
          throw new SvcError('SQL', `table does not exist [table=${table}]`, { position: stmt.tablePos });
        sql = `SELECT * FROM "${table.replace(/"/g, '""')}"`;
      }
      const parquet = new Map<string, string>();
      for (const o of stmt.options)
        if (o.name !== 'FORMAT' && o.name !== 'PARTITION_BY') parquet.set(o.name.toLowerCase(), o.value);
      const r: CopyExportRequest = {
        source: stmt.table ?? 'query',
        sql,
        dir,
        dirName: stmt.dir,
        parquet,
        partitionBy: pb === undefined ? null : pb.value.toUpperCase(),
      };
      return { fields: [ID], run: () => rowOf(['STRING'], [control!.startExport(r)]) };
    }
  }
}

/** The path under `root`; a `..` (or `.` alone) anywhere is refused as QuestDB refuses it. */
function insideRoot(root: string, path: string, pos: number): string {
  const file = path.split(/[\\/]/).some((s) => s === '..' || s === '.') ? null : copyRootFile(root, path);
  if (file === null || resolve(file) === resolve(root) || !resolve(file).startsWith(resolve(root) + sep))
    throw new SvcError('SQL', "'.' is not allowed", { position: pos });
  return file;
}

function importRequest(stmt: Extract<A.Copy, { mode: 'from' }>, file: string): CopyImportRequest {
  const opt = (name: string): A.CopyOption | undefined => [...stmt.options].reverse().find((o) => o.name === name);
  const atomicity = opt('ON ERROR')?.value;
  return {
    table: stmt.table,
    file,
    fileName: stmt.file,
    header: opt('HEADER')?.value.toLowerCase() === 'true',
    timestamp: opt('TIMESTAMP')?.value ?? null,
    format: opt('FORMAT')?.value ?? null,
    delimiter: opt('DELIMITER')?.value ?? null,
    partitionBy: (opt('PARTITION BY')?.value.toUpperCase() as PartitionBy | undefined) ?? null,
    atomicity: atomicity === 'SKIP_ROW' ? 'skipRow' : atomicity === 'ABORT' ? 'abort' : 'skipCol',
  };
}

function rowOf(types: readonly Field['type'][], values: readonly Value[]): Batch {
  return { rowCount: 1, columns: types.map((t, i) => fromValues(t, [values[i] ?? null])) };
}
