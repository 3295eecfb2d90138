// The console's calls to the server's HTTP API, same origin: /exec (query, with count and
// timings), /imp (CSV upload with progress, XMLHttpRequest for its upload events) and the /exp
// links. With basic authentication on, the browser sends the credentials it signed in with.

export interface Column {
  readonly name: string;
  readonly type: string;
}

export interface Timings {
  readonly compiler: number;
  readonly execute: number;
  readonly count: number;
}

/** A query's answer: rows (capped at the request's limit), the total count and timings (ns). */
export interface QueryResult {
  readonly kind: 'rows';
  readonly query: string;
  readonly columns: readonly Column[];
  /** Index of the designated timestamp column, -1 for none. */
  readonly timestamp: number;
  readonly dataset: readonly (readonly unknown[])[];
  readonly count: number;
  readonly timings: Timings | null;
  /** Round trip in the browser, ms. */
  readonly elapsedMs: number;
}

/** DDL and DML: `{ddl: 'OK'}`, `{dml: 'OK'}`, `{ddl: 'OK', updated}`. */
export interface StatementResult {
  readonly kind: 'ok';
  readonly query: string;
  readonly what: string;
  readonly updated?: number;
  readonly elapsedMs: number;
}

/** An error the server answered; `position` is the SQL offset where it has one. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly position: number | null,
  ) {
    super(message);
  }
}

/** Rows the grid and chart hold at most; the count says how many matched. */
export const ROW_LIMIT = 100_000;

export async function execute(query: string, signal?: AbortSignal): Promise<QueryResult | StatementResult> {
  const params = new URLSearchParams({ query, count: 'true', timings: 'true', limit: `0,${ROW_LIMIT}` });
  const t0 = performance.now();
  const res = await fetch(`/exec?${params}`, { signal, headers: { Accept: 'application/json' } });
  const text = await res.text();
  const elapsedMs = performance.now() - t0;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new ApiError(
      res.status === 401 ? 'unauthorized: sign in again (reload the page)' : text.trim(),
      res.status,
      null,
    );
  }
  if (!res.ok || typeof body.error === 'string') {
    const pos =
      typeof body.position === 'number' ? body.position : typeof body.errorPos === 'number' ? body.errorPos : null;
    throw new ApiError(String(body.error ?? `HTTP ${res.status}`), res.status, pos);
  }
  if (Array.isArray(body.dataset)) {
    return {
      kind: 'rows',
      query,
      columns: (body.columns as Column[] | undefined) ?? [],
      timestamp: typeof body.timestamp === 'number' ? body.timestamp : -1,
      dataset: body.dataset as unknown[][],
      count: typeof body.count === 'number' ? body.count : (body.dataset as unknown[]).length,
      timings: (body.timings as Timings | undefined) ?? null,
      elapsedMs,
    };
  }
  const what = typeof body.ddl === 'string' ? 'ddl' : 'dml';
  return {
    kind: 'ok',
    query,
    what: what === 'ddl' ? 'DDL OK' : 'DML OK',
    ...(typeof body.updated === 'number' ? { updated: body.updated } : {}),
    elapsedMs,
  };
}

/** The rows of a metadata query, for the table list and completion. */
export async function rows(query: string): Promise<readonly (readonly unknown[])[]> {
  const r = await execute(query);
  return r.kind === 'rows' ? r.dataset : [];
}

export interface ImportReport {
  readonly status: string;
  readonly location?: string;
  readonly rowsImported?: number;
  readonly rowsRejected?: number;
  readonly header?: boolean;
  readonly partitionBy?: string;
  readonly timestamp?: string;
  readonly warnings?: readonly string[];
  readonly columns?: readonly { name: string; type: string; size: number; errors: number }[];
}

/** POST /imp?fmt=json with the file as `data`; onProgress gets the fraction uploaded. */
export function importCsv(file: File, onProgress: (fraction: number) => void): Promise<ImportReport> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/imp?fmt=json');
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    });
    xhr.addEventListener('load', () => {
      try {
        resolve(JSON.parse(xhr.responseText) as ImportReport);
      } catch {
        reject(new ApiError(xhr.responseText.trim() || `HTTP ${xhr.status}`, xhr.status, null));
      }
    });
    xhr.addEventListener('error', () => reject(new ApiError('the upload failed (network error)', 0, null)));
    const form = new FormData();
    form.append('data', file, file.name);
    xhr.send(form);
  });
}

/** The /exp link that downloads `query` as CSV or Parquet. */
export function exportUrl(query: string, fmt: 'csv' | 'parquet'): string {
  return `/exp?${new URLSearchParams({ query, fmt })}`;
}

/** A SQL string literal. */
export function sqlString(s: string): string {
  return `'${s.replace(/'/g, "''")}'`;
}
