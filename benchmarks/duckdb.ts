// The DuckDB peer of the benchmarks: an in-memory database on one thread.
// @duckdb/node-api is loaded at run time so the project builds without it
// (each bench:* script installs it with --no-save first).

/** A connection to a fresh in-memory DuckDB with threads=1, typed as the caller uses it. */
export async function duckdbConnection<C>(): Promise<C> {
  const duckdbModule = '@duckdb/node-api';
  const { DuckDBInstance } = (await import(duckdbModule)) as {
    DuckDBInstance: { create(path: string, opts: Record<string, string>): Promise<{ connect(): Promise<C> }> };
  };
  return (await DuckDBInstance.create(':memory:', { threads: '1' })).connect();
}
