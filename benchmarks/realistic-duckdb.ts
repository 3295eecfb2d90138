// The DuckDB side of bench:realistic: a child process per thread setting (so its peak RSS is its
// own) holding an in-memory database, driven run by run over IPC (read_csv of the trades CSV, a
// query, COPY TO csv or parquet ZSTD), and the parent's System that drives it.
import { fork, type ChildProcess } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { duckdbConnection } from './duckdb.js';
import {
  cpuSeconds,
  peakMib,
  resetPeak,
  summarize,
  type Described,
  type DuckReply,
  type DuckRequest,
  type Once,
  type System,
} from './realistic-work.js';

interface DuckReader {
  getRows(): unknown[][];
}
interface DuckConnection {
  run(sql: string): Promise<unknown>;
  runAndReadAll(sql: string): Promise<DuckReader>;
}

const quote = (s: string): string => `'${s.replace(/'/g, "''")}'`;

// ---- the child -------------------------------------------------------------------------------

/** Serves the parent's requests one at a time until it disconnects. */
async function child(threads: number): Promise<void> {
  const con = await duckdbConnection<DuckConnection>();
  await con.run(`SET threads=${threads}`);
  await con.run("SET TimeZone='UTC'");
  const baseMib = process.memoryUsage().rss / 2 ** 20;
  let cpu0 = 0;
  const handle = async (req: DuckRequest): Promise<unknown> => {
    switch (req.op) {
      case 'phase-start':
        resetPeak('self');
        cpu0 = cpuSeconds('self');
        return null;
      case 'phase-end':
        return { peakMib: peakMib('self'), cpuSeconds: cpuSeconds('self') - cpu0 };
      case 'import': {
        if (req.replace) await con.run('DROP TABLE t');
        const t0 = performance.now();
        await con.run(`CREATE TABLE t AS SELECT * FROM read_csv(${quote(req.file)})`);
        return { ms: performance.now() - t0 } satisfies Once;
      }
      case 'describe': {
        const version = String((await con.runAndReadAll('select version()')).getRows()[0]?.[0]);
        const rows = Number((await con.runAndReadAll('select count(*) from t')).getRows()[0]?.[0]);
        const columns = (await con.runAndReadAll('describe t'))
          .getRows()
          .map((r) => `${String(r[0])} ${String(r[1])}`)
          .join(', ');
        return { version, columns, rows, baseMib } satisfies Described;
      }
      case 'query': {
        const t0 = performance.now();
        const rows = (await con.runAndReadAll(req.sql)).getRows();
        const ms = performance.now() - t0;
        return { ms, answer: summarize(rows) } satisfies Once;
      }
      case 'export': {
        const level = req.level === null ? '' : `, COMPRESSION_LEVEL ${req.level}`;
        const options = req.ext === 'csv' ? '(HEADER)' : `(FORMAT parquet, COMPRESSION zstd${level})`;
        try {
          const t0 = performance.now();
          await con.run(`COPY t TO ${quote(req.out)} ${options}`);
          const ms = performance.now() - t0;
          return { ms, bytes: statSync(req.out).size } satisfies Once;
        } finally {
          rmSync(req.out, { force: true });
        }
      }
    }
  };
  let queue = Promise.resolve();
  process.on('message', (req: DuckRequest) => {
    queue = queue.then(async () => {
      let reply: DuckReply;
      try {
        reply = { ok: true, value: await handle(req) };
      } catch (e) {
        reply = { ok: false, error: e instanceof Error ? e.message : String(e) };
      }
      process.send!(reply);
    });
  });
  process.once('disconnect', () => process.exit(0));
}

// ---- the parent's side -----------------------------------------------------------------------

/**
 * A DuckDB child with `threads` threads that imports `file`; `dir` holds its export files while they
 * are measured; `track` registers the child's kill for the caller's cleanup and returns its undoing.
 */
export function duckdbSystem(
  threads: number,
  file: string,
  dir: string,
  track: (kill: () => void) => () => void,
): System {
  const proc: ChildProcess = fork(fileURLToPath(import.meta.url), ['--child', String(threads)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const untrack = track(() => proc.kill('SIGKILL'));
  const name = `DuckDB ${threads} thread${threads === 1 ? '' : 's'}`;
  let pending: { resolve: (v: unknown) => void; reject: (e: Error) => void } | null = null;
  let exited: Error | null = null;
  proc.on('message', (reply: DuckReply) => {
    const p = pending;
    pending = null;
    if (reply.ok) p?.resolve(reply.value);
    else p?.reject(new Error(`${name}: ${reply.error}`));
  });
  proc.once('exit', (code, signal) => {
    exited = new Error(`the ${name} child exited (${code ?? signal})`);
    pending?.reject(exited);
    pending = null;
  });
  const call = <T>(req: DuckRequest): Promise<T> => {
    if (exited !== null) return Promise.reject(exited);
    return new Promise<T>((resolve, reject) => {
      pending = { resolve: resolve as (v: unknown) => void, reject };
      proc.send(req);
    });
  };
  return {
    name,
    phaseStart: () => call({ op: 'phase-start' }),
    phaseEnd: () => call({ op: 'phase-end' }),
    importOnce: (replace) => call({ op: 'import', file, replace }),
    describe: () => call({ op: 'describe' }),
    query: (q) => call({ op: 'query', sql: q.duckdb }),
    exportOnce: (e) => call({ op: 'export', ext: e.ext, level: e.level, out: join(dir, `duckdb-export.${e.ext}`) }),
    close: async () => {
      if (exited === null) {
        const gone = new Promise((resolve) => proc.once('exit', resolve));
        proc.disconnect();
        await gone;
      }
      untrack();
    },
  };
}

if (process.argv[2] === '--child') {
  child(Number(process.argv[3])).catch((e: unknown) => {
    console.error(e instanceof Error ? e.stack : String(e));
    process.exit(1);
  });
}
