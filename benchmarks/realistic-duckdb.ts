// The DuckDB side of bench:realistic, a child process of its own per thread setting (so its peak RSS
// is its own): read_csv of the trades CSV into an in-memory table, the queries, COPY TO csv and
// parquet (ZSTD); sends the timings, peaks and answers to the parent over IPC.
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { duckdbConnection } from './duckdb.js';
import {
  cpuSeconds,
  EXPORTS,
  peakMib,
  resetPeak,
  summarize,
  type DuckResult,
  type DuckSpec,
  type Measured,
} from './realistic-work.js';

interface DuckReader {
  getRows(): unknown[][];
}
interface DuckConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<DuckReader>;
  closeSync(): void;
}

const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/**
 * Runs `once` (cold) and then `runs` more times, timing each (not `after`, run untimed after each);
 * peak RSS and CPU over all of them.
 */
async function phase(
  runs: number,
  once: () => Promise<{ bytes?: number; rows?: unknown[][] }>,
  after: () => void = () => undefined,
): Promise<Measured> {
  resetPeak('self');
  const cpu0 = cpuSeconds('self');
  const times: number[] = [];
  let last: { bytes?: number; rows?: unknown[][] } = {};
  for (let r = 0; r <= runs; r++) {
    const t0 = performance.now();
    last = await once();
    times.push(performance.now() - t0);
    after();
  }
  return {
    coldMs: times[0]!,
    runsMs: times.slice(1),
    peakMib: peakMib('self'),
    cpuSeconds: cpuSeconds('self') - cpu0,
    bytes: last.bytes ?? null,
    answer: last.rows === undefined ? null : summarize(last.rows),
  };
}

async function main(spec: DuckSpec): Promise<DuckResult> {
  const con = await duckdbConnection<DuckConnection>();
  await con.run(`SET threads=${spec.threads}`);
  await con.run("SET TimeZone='UTC'");
  const version = String((await con.runAndReadAll('select version()')).getRows()[0]?.[0]);
  const baseMib = process.memoryUsage().rss / 2 ** 20;
  const work: Record<string, Measured> = {};
  let imported = 0;
  work.import = await phase(spec.importRuns - 1, async () => {
    if (imported++ > 0) await con.run('DROP TABLE t');
    await con.run(`CREATE TABLE t AS SELECT * FROM read_csv(${quote(spec.file)})`);
    return {};
  });
  const rows = Number((await con.runAndReadAll('select count(*) from t')).getRows()[0]?.[0]);
  const columns = (await con.runAndReadAll('describe t'))
    .getRows()
    .map((r) => `${String(r[0])} ${String(r[1])}`)
    .join(', ');
  for (const q of spec.queries) {
    process.stderr.write(`  DuckDB ${spec.threads} thread(s): ${q.sql}\n`);
    work[q.key] = await phase(spec.runs, async () => ({ rows: (await con.runAndReadAll(q.sql)).getRows() }));
  }
  for (const e of EXPORTS) {
    process.stderr.write(`  DuckDB ${spec.threads} thread(s): ${e.label}\n`);
    const out = join(spec.dir, `duckdb-export.${e.ext}`);
    const options = e.ext === 'csv' ? '(HEADER)' : '(FORMAT parquet, COMPRESSION zstd)';
    try {
      work[e.key] = await phase(
        spec.runs,
        async () => {
          await con.run(`COPY t TO ${quote(out)} ${options}`);
          return { bytes: statSync(out).size };
        },
        () => rmSync(out, { force: true }),
      );
    } finally {
      rmSync(out, { force: true });
    }
  }
  con.closeSync();
  return { version, columns, rows, baseMib, work };
}

const spec = JSON.parse(process.argv[2] ?? '') as DuckSpec;
main(spec).then(
  (result) => process.send!(result, () => process.exit(0)),
  (e: unknown) => {
    console.error(e instanceof Error ? e.stack : String(e));
    process.exit(1);
  },
);
