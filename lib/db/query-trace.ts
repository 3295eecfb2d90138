// Query tracing (QuestDB's query.tracing.enabled, reloadable): the engine tells this each
// execution's text, start, length and user as it ends; the rows are queued and written in the
// background to the table _query_trace, made at the first trace (ts designated, PARTITION BY
// HOUR, TTL 1 DAY: QuestDB keeps a day of them). Best effort: a write that fails never reaches
// the statement traced; it is counted and kept as lastError.
import type { Config } from '../config/config.js';
import type { StatementTracer } from '../exec/engine.js';
import type { Catalog, CreateTableDef } from '../storage/catalog.js';

export const QUERY_TRACE_TABLE = '_query_trace';

/** The table QuestDB's page shows: ts, query_text, execution_micros, principal. */
const TRACE_TABLE: CreateTableDef = {
  name: QUERY_TRACE_TABLE,
  columns: [
    { name: 'ts', type: 'TIMESTAMP' },
    { name: 'query_text', type: 'VARCHAR' },
    { name: 'execution_micros', type: 'LONG' },
    { name: 'principal', type: 'VARCHAR' },
  ],
  timestamp: 'ts',
  partitionBy: 'HOUR',
  wal: true,
  ttl: { value: 1, unit: 'DAY' },
};

/** Rows waiting past this are dropped (counted): a writer stuck behind a user's lock must not grow memory. */
const MAX_QUEUED = 10_000;

interface TraceRow {
  readonly start: number;
  readonly text: string;
  readonly micros: number;
  readonly principal: string;
}

export class QueryTrace implements StatementTracer {
  readonly #catalog: Catalog;
  readonly #config: Config;
  #queue: TraceRow[] = [];
  #flushing: Promise<void> | null = null;
  #closed = false;
  /** Rows lost: the queue was full, or their write failed. */
  dropped = 0;
  /** The last write's error (null when none failed). */
  lastError: unknown = null;

  constructor(catalog: Catalog, config: Config) {
    this.#catalog = catalog;
    this.#config = config;
  }

  /** Read at each execution's start: the configuration's current value (reload_config() changes it). */
  get enabled(): boolean {
    return !this.#closed && this.#config.get('query.tracing.enabled');
  }

  record(text: string, principal: string, startMicros: number, micros: number): void {
    if (this.#closed) return;
    if (this.#queue.length >= MAX_QUEUED) {
      this.dropped++;
      return;
    }
    this.#queue.push({ start: startMicros, text, micros, principal });
    this.#flushing ??= this.#flush();
  }

  /** Resolves once every row recorded so far is written (or dropped). */
  idle(): Promise<void> {
    return this.#flushing ?? Promise.resolve();
  }

  /** Writes what is queued, then takes no more rows. */
  async close(): Promise<void> {
    await this.idle();
    this.#closed = true;
  }

  /** The queue written a batch at a time until it is empty, from the next turn (the statement's end is not held up). */
  async #flush(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    try {
      while (this.#queue.length > 0) {
        const rows = this.#queue;
        this.#queue = [];
        try {
          await this.#write(rows);
        } catch (e) {
          this.dropped += rows.length;
          this.lastError = e;
        }
      }
    } finally {
      this.#flushing = null;
    }
  }

  async #write(rows: readonly TraceRow[]): Promise<void> {
    if (!this.#catalog.exists(QUERY_TRACE_TABLE)) this.#catalog.create(TRACE_TABLE, { ifNotExists: true });
    const w = await this.#catalog.writer(QUERY_TRACE_TABLE);
    try {
      w.append({
        rowCount: rows.length,
        columns: {
          ts: Float64Array.from(rows, (r) => r.start),
          query_text: rows.map((r) => r.text),
          execution_micros: Float64Array.from(rows, (r) => r.micros),
          principal: rows.map((r) => r.principal),
        },
      });
      w.commit();
    } finally {
      w.close();
    }
  }
}
