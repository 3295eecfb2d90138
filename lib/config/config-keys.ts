// Every server.conf key: its type, default and documentation. The default
// conf/server.conf is generated from this table, and Config.get is typed by it.
// Later capabilities add their keys here.
import { availableParallelism, totalmem } from 'node:os';
import {
  basicUserType,
  booleanType,
  durationType,
  enumType,
  hostPortType,
  intType,
  sizeType,
  stringType,
  type ValueType,
} from './value-types.js';

export interface KeySpec<T> {
  readonly type: ValueType<T>;
  readonly default: T;
  readonly doc: string;
  /** Secrets are never echoed in logs or errors. */
  readonly secret?: boolean;
  /** What the shipped server.conf shows for a default that depends on the machine (it parses back to that default). */
  readonly shownDefault?: string;
  /** Taken again from server.conf by `SELECT reload_config()`, without a restart (QuestDB's reloadable properties). */
  readonly reloadable?: boolean;
}

function key<T>(type: ValueType<T>, def: T, doc: string, secret = false): KeySpec<T> {
  return { type, default: def, doc, secret };
}

/** Most threads shared.worker.count may ask for. */
const MAX_WORKERS = 1024;

/** shared.worker.count: an integer 1..MAX_WORKERS; empty means every core (the default, as the shipped server.conf shows it). */
const workerCountType: ValueType<number> = {
  name: `integer 1..${MAX_WORKERS} (empty: the machine's cores)`,
  parse(t) {
    const s = t.trim();
    if (s === '') return availableParallelism();
    if (!/^-?\d+$/.test(s) || Number(s) < 1 || Number(s) > MAX_WORKERS)
      throw new Error(`expected an integer 1..${MAX_WORKERS} (threads; empty for the machine's cores)`);
    return Number(s);
  },
  format: (v) => String(v),
};

/** cairo.reader.cache.size when empty (the default): an eighth of the machine's memory, 256 MiB at least. */
export function defaultReaderCacheSize(): number {
  return Math.max(256 * 1024 * 1024, Math.floor(totalmem() / 8 / 65_536) * 65_536);
}

/** cairo.reader.cache.size: a size, or empty for defaultReaderCacheSize() (as the shipped server.conf shows it). */
const readerCacheType: ValueType<number> = {
  name: `${sizeType.name} (empty: an eighth of the machine's memory)`,
  parse: (t) => (t.trim() === '' ? defaultReaderCacheSize() : sizeType.parse(t)),
  format: sizeType.format,
};

export const CONFIG_KEYS = {
  'http.net.bind.to': key(
    hostPortType,
    { host: '0.0.0.0', port: 9000 },
    'Address and port of the main HTTP server (REST API). Port 0 picks a free port.',
  ),
  'http.user': key(
    basicUserType,
    '',
    'User name for HTTP basic authentication on the main server (no colon). Set both http.user and http.password to turn authentication on; one without the other stops startup.',
  ),
  'http.password': key(
    stringType,
    '',
    'Password for HTTP basic authentication (everything after the first colon of the credential). Needs http.user.',
    true,
  ),
  'http.health.check.authentication.required': key(
    booleanType,
    true,
    'Whether the health server (health, /lifecycle, /metrics) asks for the same basic credentials, when credentials are set. Set to true explicitly without credentials, it stops startup.',
  ),
  'http.pessimistic.health.check.enabled': key(
    booleanType,
    false,
    'With metrics.enabled, the health check answers 500 once svc_unhandled_errors_total is above zero.',
  ),
  'http.shutdown.grace.period': key(
    durationType,
    10_000,
    'On SIGINT/SIGTERM, how long in-flight requests may run before their connections are closed.',
  ),
  'http.debug.endpoints.enabled': key(
    booleanType,
    false,
    'Serve /debug/fault and /debug/sleep on the main server. For tests only: never enable in production.',
  ),
  'http.min.enabled': key(
    booleanType,
    true,
    'Whether the minimal health server (health check, /lifecycle, /metrics) runs.',
  ),
  'http.min.net.bind.to': key(
    hostPortType,
    { host: '0.0.0.0', port: 9003 },
    'Address and port of the minimal health server.',
  ),
  'http.min.worker.count': key(
    intType(0, 64),
    1,
    'Threads for the health server. 1 or more: one worker thread answers the health check and /lifecycle, so they stay fast while the main event loop is busy (values above 1 act as 1); 0: served from the main event loop.',
  ),
  'shared.worker.count': {
    ...key(
      workerCountType,
      availableParallelism(),
      "Threads that share a request's CPU work (QuestDB's shared worker pool), today CSV and JSON export formatting and Parquet page compression: the main thread plus shared.worker.count - 1 helper threads, started when work first needs them. 1: all of it on the main thread. Default (empty): the machine's cores. Results are byte for byte the same for every value.",
    ),
    shownDefault: '',
  },
  'metrics.enabled': key(
    booleanType,
    false,
    'Serve Prometheus metrics at /metrics on the health server. When false, /metrics answers 404.',
  ),
  'query.timeout': key(
    durationType,
    60_000,
    'Default statement timeout; the Statement-Timeout request header overrides it.',
  ),
  'http.export.timeout': key(
    durationType,
    300_000,
    'Default timeout of a Parquet export (/exp?fmt=parquet); its timeout parameter overrides it. CSV exports use query.timeout.',
  ),
  'query.tracing.enabled': {
    ...key(
      booleanType,
      false,
      'Record every statement run (its text, start, execution time in micros and user) in the table _query_trace, which keeps a day of them (TTL 1 DAY). Reloadable: SELECT reload_config() applies a change without a restart.',
    ),
    reloadable: true,
  },
  'query.memory.limit': key(
    sizeType,
    1024 * 1024 * 1024,
    'Bytes one statement may hold: collected rows, sorts, hash aggregation, join hash tables and output, DISTINCT, set operations, window functions, subquery results and text built per row. Past it the statement fails with a 400 naming this key instead of exhausting the process.',
  ),
  'query.memory.total.limit': key(
    sizeType,
    0,
    "Bytes all running statements may hold together (each within query.memory.limit). A statement that would pass it fails with 503 (server busy, try again later). 0: the smaller of half the machine's memory and three quarters of the JavaScript heap limit, at least query.memory.limit.",
  ),
  'cairo.sql.string.function.buffer.max.size': key(
    sizeType,
    1024 * 1024,
    'Most UTF-8 bytes of one value that lpad, rpad, replace and regexp_replace may build; past it the call fails with "breached memory limit" at its position (QuestDB\'s key and default).',
  ),
  'cairo.sql.column.alias.expression.enabled': key(
    booleanType,
    true,
    "Name a result column without an alias after its expression, as QuestDB 9 does (`x + 1`, `'a'::symbol`, `count()`, in double quotes when the text holds a dot). false: the older style, the name of the function or column (`count`, `cast`), `column` for operators.",
  ),
  'cairo.sql.column.alias.generated.max.size': key(
    intType(4, 255),
    64,
    "Longest name (in characters) given to a result column after its expression; a longer expression's name is cut (QuestDB's key and default).",
  ),
  'http.text.analysis.max.lines': key(
    intType(2, 1_000_000),
    1000,
    'Lines at the start of an imported file that delimiter, header and type detection look at (detection stops waiting for more once it holds 1 MiB and at least two lines).',
  ),
  'http.text.roll.buffer.limit': key(
    sizeType,
    4 * 1024 * 1024,
    'The longest line an import holds while detection waits for it, and the longest single value it holds across reads; a longer one fails the import with an error naming this key.',
  ),
  'import.memory.limit': key(
    sizeType,
    1024 * 1024 * 1024,
    "Bytes one import (POST /imp, svcdb import) may hold: column builders, lines held for detection, the table writer's buffers, SYMBOL dictionaries, out-of-order rows waiting for the commit; past it the import fails with a 400 and nothing is imported.",
  ),
  'import.segment.size': key(
    sizeType,
    4 * 1024 * 1024,
    "Bytes of an imported file (POST /imp, svcdb import) each worker thread parses at once: segments cut at a line end, parsed by the threads of shared.worker.count and taken in file order (the same rows and errors as on one thread); a file smaller than one is parsed by the import's own thread.",
  ),
  'import.max.columns': key(
    intType(1, 1_000_000),
    2048,
    'Columns an imported file may have; a wider file fails with a 400 before anything is created.',
  ),
  'cairo.commit.mode': key(
    enumType(['nosync', 'async', 'sync'] as const),
    'nosync',
    'Durability of a commit: nosync hands data to the OS (SPEC.md consistency rule 4); async also starts an fsync without waiting; sync waits for fsync of the data and the transaction file.',
  ),
  'cairo.max.uncommitted.rows': key(
    intType(1, 2_147_483_647),
    500_000,
    'Default per-table number of uncommitted rows after which a writer commits by itself.',
  ),
  'cairo.o3.max.lag': key(
    durationType,
    600_000,
    'Default per-table out-of-order lag: at an automatic commit, out-of-order rows newer than the max timestamp minus this stay in memory to merge with later stragglers.',
  ),
  'cairo.reader.cache.size': {
    ...key(
      readerCacheType,
      defaultReaderCacheSize(),
      "Bytes of column data kept in memory for readers (an LRU of 64 KiB file chunks, shared with the worker threads), filled as queries read; larger tables still work, read from the files again. As much again at most holds the dictionary codes of text columns used as keys (1-2 bytes a row). Default (empty): an eighth of the machine's memory, 256 MiB at least (as QuestDB leaves its column files to the OS page cache, the hot columns of a table stay in memory).",
    ),
    shownDefault: '',
  },
  'cairo.sql.page.frame.min.rows': key(
    intType(1, 2 ** 31 - 1),
    1 << 20,
    'Fewest rows of a table one worker thread takes as a task of a parallel scan (aggregates without GROUP BY; half as many for GROUP BY over text keys and SAMPLE BY, whose rows cost more): smaller scans stay on one thread, where handing the work over would cost more than it saves.',
  ),
  'cairo.sql.page.frame.max.rows': key(
    intType(1, 2 ** 31 - 1),
    1 << 23,
    'Most rows a parallel scan hands out at once (between two checks for cancel and timeout); its tasks split them among the threads of shared.worker.count.',
  ),
  'cairo.sql.copy.root': key(
    stringType,
    'import',
    "The folder read_parquet(), parquet_scan() and COPY ... FROM read files from (QuestDB's key and default): a relative path is under the database's root folder (the default: <root>/import); a query's path is relative to it, or absolute inside it, and may not leave it. Empty: read_parquet() and COPY FROM are refused.",
  ),
  'cairo.sql.copy.export.root': key(
    stringType,
    'export',
    "The folder COPY ... TO writes Parquet exports under and export_files() lists (QuestDB's key and default): a relative path is under the database's root folder (the default: <root>/export); a statement's folder is relative to it and may not leave it. Empty: COPY TO and export_files() are refused.",
  ),
  'cairo.writer.wait.timeout': key(
    durationType,
    5_000,
    'How long a second writer of a table waits for the first before failing with table busy.',
  ),
} as const satisfies Record<string, KeySpec<unknown>>;

export type ConfigKey = keyof typeof CONFIG_KEYS;
export type ConfigValue<K extends ConfigKey> = (typeof CONFIG_KEYS)[K] extends KeySpec<infer T> ? T : never;

/** `SVC_HTTP_NET_BIND_TO` for `http.net.bind.to`. */
export function envName(k: string): string {
  return 'SVC_' + k.toUpperCase().replace(/\./g, '_');
}
