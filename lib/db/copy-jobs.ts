// COPY's jobs for one Database: imports from the copy root through the Database's ImportJob
// (the /imp pipeline: all of a file or nothing) and Parquet exports to the export root through
// Database.export (the /exp writer), each run in the background as QuestDB runs them; one import
// at a time. Their logs (sys.text_import_log, sys.copy_export_log) are kept in memory.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SvcError, isSvcError } from '../errors/svc-error.js';
import type { CopyControl, CopyExportRequest, CopyImportRequest, CopyLogRow } from '../exec/copy.js';
import { parseParquetOptions, PARQUET_DEFAULTS, ROW_GROUP_SIZE_RANGE } from '../export/parquet/options.js';
import { partitionCeil, partitionFloor, partitionName, type PartitionBy } from '../storage/partition-by.js';
import type { ExportOptions, ImportJob, ImportStreamOptions } from './database.js';

/** Rows each log keeps (the oldest go first): QuestDB keeps three days in a table, svcdb this many in memory. */
const LOG_ROWS = 10_000;

/** What CopyJobs uses of its Database. */
export interface CopyHost {
  importJob(o: ImportStreamOptions): ImportJob;
  exportParquet(sql: string, o: ExportOptions): AsyncGenerator<Buffer>;
  /** The table's partitioning (NONE when it has none or does not exist). */
  partitionBy(table: string): PartitionBy;
  /** The column of the query's rows that splits them: the designated timestamp, else the only timestamp column; or null. */
  partitionTimestamp(sql: string): string | null;
  /** The first column's values of the query's rows, as numbers (a TIMESTAMP column: epoch micros). */
  numbers(sql: string, signal: AbortSignal): Promise<number[]>;
}

interface Running {
  readonly ac: AbortController;
  readonly done: Promise<void>;
}

const nowMicros = (): number => Date.now() * 1000;

export class CopyJobs implements CopyControl {
  readonly importRoot: string;
  readonly exportRoot: string;
  readonly #host: CopyHost;
  readonly #importLog: CopyLogRow[] = [];
  readonly #exportLog: CopyLogRow[] = [];
  readonly #running = new Map<string, Running>();
  #activeImport: string | null = null;
  #closed = false;

  constructor(host: CopyHost, importRoot: string, exportRoot: string) {
    this.#host = host;
    this.importRoot = importRoot;
    this.exportRoot = exportRoot;
  }

  startImport(r: CopyImportRequest, pos: number): string {
    this.#checkOpen();
    if (this.#activeImport !== null)
      throw new SvcError(
        'SQL',
        `unable to process the import request: another import may be in progress [activeImportId=${this.#activeImport}]`,
        { position: pos },
      );
    const id = this.#newId();
    this.#activeImport = id;
    const log = (
      status: string,
      message: string | null,
      handled: number | null,
      imported: number | null,
      errors: number,
    ): void =>
      push(this.#importLog, [nowMicros(), id, r.table, r.fileName, null, status, message, handled, imported, errors]);
    log('started', null, null, null, 0);
    const ac = new AbortController();
    const job = this.#host.importJob({
      opts: {
        atomicity: r.atomicity,
        delimiter: r.delimiter === null ? null : r.delimiter.charCodeAt(0),
        forceHeader: r.header,
        overwrite: false,
        create: true,
        partitionBy: r.partitionBy,
        timestamp: r.timestamp,
        skipLev: false,
      },
      table: r.table,
      schema:
        r.timestamp !== null && r.format !== null ? [{ name: r.timestamp, type: 'TIMESTAMP', pattern: r.format }] : [],
      location: r.fileName,
    });
    const done = (async () => {
      try {
        const result = await job.run(
          { path: r.file },
          { stopped: () => (ac.signal.aborted ? (ac.signal.reason as unknown) : null) },
        );
        const handled = result.rowsImported + result.rowsRejected;
        log('finished', null, handled, result.rowsImported, result.rowsRejected);
      } catch (e) {
        if (ac.signal.aborted) log('cancelled', 'import cancelled [msg=`Cancelled`]', 0, 0, 0);
        else log('failed', messageOf(e), 0, 0, 1);
      } finally {
        this.#activeImport = null;
        this.#running.delete(id);
      }
    })();
    this.#running.set(id, { ac, done });
    return id;
  }

  startExport(r: CopyExportRequest): string {
    this.#checkOpen();
    const id = this.#newId();
    const parquet = exportOptions(r.parquet);
    let phase = 'wait_to_run';
    const log = (status: string, message: string | null, files: number, errors: number): void =>
      push(this.#exportLog, [nowMicros(), id, r.source, r.dirName, files, phase, status, message, errors]);
    log('started', 'queued', 0, 0);
    const ac = new AbortController();
    const temps: string[] = [];
    const done = (async () => {
      try {
        await new Promise((resolve) => setImmediate(resolve));
        phase = 'converting_partitions';
        log('started', null, 0, 0);
        const files = await this.#exportFiles(r, parquet, ac.signal, temps);
        log('finished', null, files, 0);
        phase = 'success';
        log('finished', null, files, 0);
      } catch (e) {
        await Promise.all(temps.map((t) => rm(t, { force: true })));
        if (ac.signal.aborted) log('cancelled', 'export cancelled', 0, 0);
        else log('failed', messageOf(e), 0, 1);
      } finally {
        this.#running.delete(id);
      }
    })();
    this.#running.set(id, { ac, done });
    return id;
  }

  /**
   * Writes the export's files and says how many: one `default.parquet` (PARTITION_BY NONE), or one
   * `<partition>.parquet` per partition of the rows' designated timestamp (2025-01-01.parquet for
   * DAY: the names of table partitions); a query's rows without one split by their only timestamp
   * column, as the COPY page's generate_series example does. Each file is written to a temporary name first; they are
   * renamed once all are written, so a failed export leaves none.
   */
  async #exportFiles(
    r: CopyExportRequest,
    parquet: ReturnType<typeof parseParquetOptions>,
    signal: AbortSignal,
    temps: string[],
  ): Promise<number> {
    const by: PartitionBy =
      (r.partitionBy as PartitionBy | null) ?? (r.source === 'query' ? 'NONE' : this.#host.partitionBy(r.source));
    const parts: { name: string; sql: string }[] = [];
    if (by === 'NONE') parts.push({ name: 'default', sql: r.sql });
    else {
      const ts = this.#host.partitionTimestamp(r.sql);
      if (ts === null)
        throw new SvcError(
          'BAD_REQUEST',
          `PARTITION_BY ${by} needs a designated timestamp (or a single timestamp column) in the exported rows`,
        );
      const col = `"${ts.replace(/"/g, '""')}"`;
      // Distinct hours or days first (few rows), then their partitions.
      const unit = by === 'HOUR' ? 'h' : 'd';
      const floors = new Set<number>();
      const starts = await this.#host.numbers(
        `SELECT DISTINCT CAST(timestamp_floor('${unit}', ${col}) AS TIMESTAMP) FROM (${r.sql}) WHERE ${col} IS NOT NULL`,
        signal,
      );
      for (const t of starts) floors.add(partitionFloor(by, t));
      for (const lo of [...floors].sort((a, b) => a - b)) {
        const hi = partitionCeil(by, lo);
        parts.push({
          name: partitionName(by, lo),
          sql: `SELECT * FROM (${r.sql}) WHERE ${col} >= '${isoMicros(lo)}' AND ${col} < '${isoMicros(hi)}'`,
        });
      }
    }
    await mkdir(r.dir, { recursive: true });
    let rows = 0;
    const written: [string, string][] = [];
    for (const part of parts) {
      const temp = join(r.dir, `.${part.name}.parquet.${randomBytes(4).toString('hex')}.tmp`);
      temps.push(temp);
      let partRows = 0;
      const bytes = this.#host.exportParquet(part.sql, { parquet, signal, onProgress: (p) => (partRows = p.rows) });
      await pipeline(Readable.from(bytes), createWriteStream(temp), { signal });
      rows += partRows;
      written.push([temp, join(r.dir, `${part.name}.parquet`)]);
    }
    if (rows === 0) throw new SvcError('BAD_REQUEST', 'the query returned no rows: nothing was exported');
    for (const [temp, file] of written) await rename(temp, file);
    return written.length;
  }

  cancel(id: string): string {
    const job = this.#running.get(id);
    if (job === undefined) return 'unknown';
    job.ac.abort(new SvcError('BAD_REQUEST', 'the import was cancelled; nothing was imported'));
    return 'cancelled';
  }

  importLog(): readonly CopyLogRow[] {
    return this.#importLog;
  }

  exportLog(): readonly CopyLogRow[] {
    return this.#exportLog;
  }

  /** Resolves once no COPY job runs (tests, close()). */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.all([...this.#running.values()].map((j) => j.done));
  }

  /** Cancels what runs and waits for it to unwind (its imports and exports leave nothing). */
  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#running.values()) job.ac.abort(new SvcError('UNAVAILABLE', 'the database was closed'));
    await this.idle();
  }

  #checkOpen(): void {
    if (this.#closed) throw new SvcError('UNAVAILABLE', 'the database is closed');
  }

  /** A 64-bit id in 16 hex digits, as QuestDB's. */
  #newId(): string {
    for (;;) {
      const id = randomBytes(8).toString('hex');
      if (!this.#running.has(id)) return id;
    }
  }
}

/** Epoch micros as an ISO-8601 UTC literal with micros (what a timestamp compares with). */
function isoMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  return `${new Date(ms).toISOString().slice(0, 23)}${String(us - ms * 1000).padStart(3, '0')}Z`;
}

function push(log: CopyLogRow[], row: CopyLogRow): void {
  log.push(row);
  if (log.length > LOG_ROWS) log.splice(0, log.length - LOG_ROWS);
}

function messageOf(e: unknown): string {
  return isSvcError(e) || e instanceof Error ? e.message : String(e);
}

/**
 * COPY TO's options as /exp's Parquet options (their checks: the parser has QuestDB's for each
 * value already). QuestDB takes any ROW_GROUP_SIZE, a non-positive one meaning its default;
 * svcdb's writer holds at most ROW_GROUP_SIZE_RANGE.max rows a group.
 */
function exportOptions(options: ReadonlyMap<string, string>): ReturnType<typeof parseParquetOptions> {
  // QuestDB's COPY TO compresses with LZ4_RAW unless told otherwise (/exp: ZSTD).
  const params = new URLSearchParams({ compression_codec: 'lz4_raw' });
  for (const [k, v] of options) {
    if (k === 'row_group_size') {
      const n = Number(v);
      params.set(k, String(n <= 0 ? PARQUET_DEFAULTS.rowGroupSize : Math.min(n, ROW_GROUP_SIZE_RANGE.max)));
    } else params.set(k, v);
  }
  return parseParquetOptions(params);
}
