// What bench:realistic measures, shared by its svcdb side (benchmarks/realistic.ts) and its DuckDB
// child (benchmarks/realistic-duckdb.ts): the queries in both dialects, the exports, a process's
// peak RSS per phase (/proc), and answers reduced to comparable values.
import { readFileSync, writeFileSync } from 'node:fs';
import { FILTER_PRICE, FILTER_SYM, type TradesCsv } from './realistic-csv.js';

export interface QueryWork {
  readonly key: string;
  /** The svcdb query (QuestDB's dialect), also the row's label. */
  readonly svcdb: string;
  /** The same question in DuckDB's dialect. */
  readonly duckdb: string;
}

/**
 * The exports: `level` null is each side's default ZSTD level (QuestDB's 9 for svcdb, 3 for DuckDB);
 * the level-3 row compares both at DuckDB's.
 */
export const EXPORTS = [
  { key: 'export-csv', label: 'CSV export (/exp to a file vs COPY TO csv)', ext: 'csv', level: null },
  {
    key: 'export-parquet',
    label: 'Parquet export, ZSTD at each default (svcdb 9 as QuestDB, DuckDB 3)',
    ext: 'parquet',
    level: null,
  },
  { key: 'export-parquet-3', label: 'Parquet export, ZSTD level 3 on both sides', ext: 'parquet', level: 3 },
] as const;

/** The queries, in the order of the table; `csv` gives the filter's threshold, the day and the point. */
export function queries(csv: TradesCsv): QueryWork[] {
  const day = csv.day;
  const next = new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return [
    { key: 'sum', svcdb: 'select sum(price) from t', duckdb: 'select sum(price) from t' },
    {
      key: 'group-sym',
      svcdb: 'select sym, avg(price), count() from t',
      duckdb: 'select sym, avg(price), count(*) from t group by sym',
    },
    {
      key: 'group-sym-side',
      svcdb: 'select sym, side, sum(amount) from t',
      duckdb: 'select sym, side, sum(amount) from t group by sym, side',
    },
    {
      key: 'group-filtered',
      svcdb: "select sym, avg(price), count() from t where side = 'buy' and amount > 1",
      duckdb: "select sym, avg(price), count(*) from t where side = 'buy' and amount > 1 group by sym",
    },
    {
      key: 'count-distinct',
      svcdb: 'select count_distinct(sym) from t',
      duckdb: 'select count(distinct sym) from t',
    },
    {
      key: 'latest-on',
      svcdb: 'select * from t latest on ts partition by sym',
      // LATEST ON keeps each symbol's last row: the row with the largest ts, column by column.
      duckdb:
        'select max(ts) as ts, sym, arg_max(price, ts) as price, arg_max(amount, ts) as amount, arg_max(side, ts) as side from t group by sym',
    },
    {
      key: 'filter-top',
      svcdb: `select * from t where sym = '${FILTER_SYM}' and price > ${FILTER_PRICE} order by ts desc limit 10`,
      duckdb: `select * from t where sym = '${FILTER_SYM}' and price > ${FILTER_PRICE} order by ts desc limit 10`,
    },
    {
      key: 'sample-by',
      svcdb: 'select ts, avg(price) from t sample by 1m',
      duckdb: "select time_bucket(interval '1 minute', ts) as ts, avg(price) from t group by 1 order by 1",
    },
    {
      key: 'interval',
      svcdb: `select count(), avg(price) from t where ts in '${day}'`,
      duckdb: `select count(*), avg(price) from t where ts >= '${day}T00:00:00Z' and ts < '${next}T00:00:00Z'`,
    },
    {
      key: 'point',
      svcdb: `select * from t where ts = '${csv.pointTs}'`,
      duckdb: `select * from t where ts = '${csv.pointTs}'::timestamptz`,
    },
  ];
}

// ---- peak RSS per phase --------------------------------------------------------------------

/** Resets a process's VmHWM to its current RSS (Linux clear_refs 5), so the next peak is the phase's own. */
export function resetPeak(pid: number | 'self'): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** VmHWM of a live process, MiB. */
export function peakMib(pid: number | 'self'): number {
  const s = readFileSync(`/proc/${pid}/status`, 'latin1');
  const kb = Number(/^VmHWM:\s*(\d+) kB/m.exec(s)?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return kb / 1024;
}

/** User + system CPU seconds a live process used so far (/proc/<pid>/stat; 100 ticks a second on Linux). */
export function cpuSeconds(pid: number | 'self'): number {
  const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

// ---- results -------------------------------------------------------------------------------

/** One row of the table for one system: times in ms, the first (cold) run apart from the rest. */
export interface Measured {
  readonly coldMs: number;
  /** The runs after the cold one (empty for an import run once). */
  readonly runsMs: number[];
  readonly peakMib: number;
  readonly cpuSeconds: number;
  /** Output file size in bytes (exports), or null. */
  readonly bytes: number | null;
  /** The answer reduced by `summarize` (queries), or null. */
  readonly answer: Answer | null;
}

export type Cell = number | string | null;
export interface Answer {
  readonly rowCount: number;
  /** All rows sorted (up to 1000 rows), or the first and last rows of a larger answer. */
  readonly rows: Cell[][];
  /** For a larger answer: the sum of each numeric column, null for others. */
  readonly sums: (number | null)[] | null;
}

const ISO_US = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.(\d{6})Z$/;

/** A cell as compared: a timestamp (svcdb's ISO text, DuckDB's micros) becomes epoch microseconds. */
export function cell(v: unknown): Cell {
  if (v === null || v === undefined) return null;
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'string') {
    const m = ISO_US.exec(v);
    return m ? Date.parse(`${m[1]}Z`) * 1000 + Number(m[2]) : v;
  }
  if (typeof v === 'object' && 'micros' in v && typeof v.micros === 'bigint') return Number(v.micros);
  return String(v);
}

const SMALL = 1000;

/** An answer as compared: small ones whole (sorted: row order is not asked for), large ones summed. */
export function summarize(rows: readonly (readonly unknown[])[]): Answer {
  const cells = rows.map((r) => r.map(cell));
  if (cells.length <= SMALL) {
    cells.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    return { rowCount: cells.length, rows: cells, sums: null };
  }
  const width = cells[0]!.length;
  const sums: (number | null)[] = [];
  for (let c = 0; c < width; c++) {
    let s: number | null = 0;
    for (const r of cells) {
      const v = r[c];
      if (typeof v === 'number' && s !== null) s += v;
      else s = null;
    }
    sums.push(s);
  }
  return { rowCount: cells.length, rows: [cells[0]!, cells.at(-1)!], sums };
}

function close(a: Cell, b: Cell): boolean {
  if (typeof a === 'number' && typeof b === 'number')
    return a === b || Math.abs(a - b) <= 1e-9 * Math.max(Math.abs(a), Math.abs(b));
  return a === b;
}

/** Why two answers differ (counts, cells, sums within 1e-9 relative), or null when they agree. */
export function difference(a: Answer, b: Answer): string | null {
  if (a.rowCount !== b.rowCount) return `${a.rowCount} rows vs ${b.rowCount}`;
  for (let r = 0; r < a.rows.length; r++) {
    const x = a.rows[r]!;
    const y = b.rows[r] ?? [];
    if (x.length !== y.length || x.some((v, i) => !close(v, y[i] ?? null)))
      return `row ${r}: ${JSON.stringify(x)} vs ${JSON.stringify(y)}`;
  }
  const sa = a.sums ?? [];
  const sb = b.sums ?? [];
  for (let c = 0; c < Math.max(sa.length, sb.length); c++)
    if (!close(sa[c] ?? null, sb[c] ?? null)) return `column ${c} sums to ${sa[c]} vs ${sb[c]}`;
  return null;
}

/** One timed run: its time (ms), the output's size (exports) and the answer (queries). */
export interface Once {
  readonly ms: number;
  readonly bytes?: number;
  readonly answer?: Answer;
}

/** What the import made: checked and printed. */
export interface Described {
  readonly version: string;
  readonly columns: string;
  readonly rows: number;
  /** RSS before the import, MiB. */
  readonly baseMib: number;
}

/**
 * A system under test, driven one run at a time so that systems alternate run by run (a drift in the
 * machine's speed then moves both sides of a ratio alike).
 */
export interface System {
  readonly name: string;
  /** Resets the process's peak RSS and marks its CPU time. */
  phaseStart(): Promise<void>;
  /** The peak RSS (MiB) and CPU seconds since phaseStart. */
  phaseEnd(): Promise<{ peakMib: number; cpuSeconds: number }>;
  /** Imports the CSV into t (replacing it, untimed, when `replace`). */
  importOnce(replace: boolean): Promise<Once>;
  /** Checks what the import made (throws when it is not what a user's import makes). */
  describe(): Promise<Described>;
  query(q: QueryWork): Promise<Once>;
  /** Exports t; the file is removed after it is measured (untimed). */
  exportOnce(e: (typeof EXPORTS)[number]): Promise<Once>;
  close(): Promise<void>;
}

/** Requests to the DuckDB child (benchmarks/realistic-duckdb.ts) over IPC, and its replies. */
export type DuckRequest =
  | { readonly op: 'phase-start' }
  | { readonly op: 'phase-end' }
  | { readonly op: 'import'; readonly file: string; readonly replace: boolean }
  | { readonly op: 'describe' }
  | { readonly op: 'query'; readonly sql: string }
  | { readonly op: 'export'; readonly ext: 'csv' | 'parquet'; readonly level: number | null; readonly out: string };
export type DuckReply = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };
