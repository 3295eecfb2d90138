// Sending the SQL fuzzer's requests (fuzz-sql.test.ts, npm run soak): the
// tables set up first, the URL of each endpoint, the checks every answer must
// pass (below 500, the body the endpoint promises), a curl line to repeat it,
// and the reference table's state (its checksum before and after a run).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { FormData } from 'undici';
import type { FuzzServer, Reply } from './fuzz-harness.js';
import { encodeQuery } from './sql-fuzz-hostile.js';
import type { SqlRequest } from './sql-fuzz-gen.js';
import { IMPORTED, REFERENCE, REFERENCE_CHECK, importCsv, setupStatements } from './sql-fuzz-tables.js';

/** Statement-Timeout of every request (and /exp's timeout): no single statement may run long. */
export const STATEMENT_TIMEOUT_MS = 2000;
/** An answer later than this (statement timeout plus generous headroom for a loaded machine) means the timeout did not fire. */
export const SLOW_MS = 15_000;

/** The path and query string of a request to its endpoint (some with count, limit, codecs, row group sizes). */
export function sqlPath(req: SqlRequest): string {
  const q = req.encodedQuery ?? encodeQuery(req.sql);
  const seconds = STATEMENT_TIMEOUT_MS / 1000;
  switch (req.endpoint) {
    case 'exec':
      return `/exec?query=${q}${req.index % 7 === 0 ? '&count=true' : ''}${req.index % 11 === 0 ? '&limit=3,10' : ''}`;
    case 'validate':
      return `/api/v1/sql/validate?query=${q}`;
    case 'exp':
      return `/exp?query=${q}&timeout=${seconds}${req.index % 5 === 0 ? '&limit=-5' : ''}`;
    case 'parquet':
      return `/exp?query=${q}&fmt=parquet&timeout=${seconds}&compression_codec=${['ZSTD', 'SNAPPY', 'GZIP', 'LZ4_RAW', 'UNCOMPRESSED'][req.index % 5]}&row_group_size=${[100000, 1000, 7][req.index % 3]}`;
  }
}

/** A curl line that sends the request by hand (long SQL shortened: the rerun line gives it whole). */
export function sqlCurl(req: SqlRequest): string {
  const sql = req.sql.length > 2000 ? `${req.sql.slice(0, 2000)}... (${req.sql.length} chars)` : req.sql;
  const endpoint = { exec: '/exec', validate: '/api/v1/sql/validate', exp: '/exp', parquet: '/exp?fmt=parquet' }[
    req.endpoint
  ];
  return `${req.endpoint}${req.encodedQuery ? ` (raw query parameter ${req.encodedQuery.slice(0, 400)})` : ''}\n    curl -sG 'localhost:9000${endpoint}' -H 'Statement-Timeout: ${STATEMENT_TIMEOUT_MS}' --data-urlencode ${JSON.stringify(`query=${sql}`)}`;
}

/** What is wrong with an answer below 500: the body must be what the endpoint promises. */
export function malformedSql(req: SqlRequest, r: Reply): string | null {
  const text = (): string => r.body.toString('utf8');
  const json = (): Record<string, unknown> | undefined => {
    try {
      const v: unknown = JSON.parse(text());
      return typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };
  if (r.status === 200 && req.endpoint === 'parquet') {
    const magic =
      r.body.length >= 8 && r.body.subarray(0, 4).toString() === 'PAR1' && r.body.subarray(-4).toString() === 'PAR1';
    return magic ? null : `a 200 Parquet body without PAR1 at both ends (${r.body.length} bytes)`;
  }
  if (r.status === 200 && req.endpoint === 'exp')
    return String(r.headers['content-type']).startsWith('text/csv')
      ? null
      : `a 200 CSV export as ${String(r.headers['content-type'])}`;
  if (r.status === 200) {
    const body = json();
    if (body === undefined) return 'a 200 whose body is not a JSON object';
    if (req.endpoint === 'exec' && !Array.isArray(body.dataset) && body.ddl === undefined && body.dml === undefined)
      return 'a 200 without dataset, ddl or dml';
    return null;
  }
  if (r.status === 400) {
    const body = json();
    if (typeof body?.error !== 'string') return 'a 400 without a JSON error';
    if (body.error === 'internal error') return 'a 400 saying internal error';
  }
  return null;
}

/** Sends one request and records what is wrong with its answer; the status, or null when no answer came. */
export async function sendSql(fz: FuzzServer, req: SqlRequest): Promise<number | null> {
  const what = { index: req.index, category: req.category, repro: sqlCurl(req) };
  // An export cut after its timeout has passed is how a streamed export ends then (its 200 is out).
  const exported = req.endpoint === 'exp' || req.endpoint === 'parquet';
  const r = await fz.send(sqlPath(req), { headers: { 'Statement-Timeout': String(STATEMENT_TIMEOUT_MS) } }, what, {
    slowMs: SLOW_MS,
    ...(exported ? { cutOkAfterMs: STATEMENT_TIMEOUT_MS } : {}),
  });
  if (r === null) return null;
  fz.count(String(r.status));
  if (r.status >= 500) {
    fz.fail({
      ...what,
      problem: `status ${r.status}`,
      detail: `${r.body.toString('utf8').slice(0, 600)}\n${fz.criticalLines()}`,
    });
  } else {
    const bad = malformedSql(req, r);
    if (bad)
      fz.fail({ ...what, problem: 'malformed answer', detail: `${bad}: ${r.body.toString('utf8').slice(0, 600)}` });
  }
  return r.status;
}

/** Creates and fills the fuzzer's tables (fz_imp through /imp, as users import text). */
export async function setupSqlTables(fz: FuzzServer, seed: number): Promise<void> {
  for (const sql of setupStatements()) {
    const r = await fz.send(`/exec?query=${encodeQuery(sql)}`, {}, { index: -1, category: 'setup', repro: sql });
    assert.equal(r?.status, 200, `set-up failed: ${sql}\n${r?.body.toString()}`);
  }
  const form = new FormData();
  form.append('data', new Blob([importCsv(seed)]), 'users.csv');
  const imp = await fz.send(
    `/imp?name=${IMPORTED.name}&timestamp=ts&partitionBy=MONTH&fmt=json`,
    { method: 'POST', body: form },
    { index: -1, category: 'setup', repro: 'fz_imp upload' },
  );
  assert.equal(imp?.status, 200, imp?.body.toString());
}

/** The reference table's checksum query result and the SHA-256 of its CSV export. */
export async function referenceState(fz: FuzzServer): Promise<{ check: string; csvHash: string }> {
  const c = await fz.send(
    `/exec?query=${encodeQuery(REFERENCE_CHECK)}`,
    {},
    { index: -1, category: 'reference', repro: REFERENCE_CHECK },
  );
  const e = await fz.send(
    `/exp?query=${encodeQuery(`SELECT * FROM ${REFERENCE.name}`)}`,
    {},
    { index: -1, category: 'reference', repro: 'export of fz_ref' },
  );
  assert.ok(c && e, 'the reference table could not be read');
  assert.equal(c.status, 200, c.body.toString());
  assert.equal(e.status, 200, e.body.toString());
  return {
    check: JSON.stringify((JSON.parse(c.body.toString()) as { dataset: unknown }).dataset),
    csvHash: createHash('sha256').update(e.body).digest('hex'),
  };
}
