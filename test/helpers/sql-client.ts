// The small HTTP client the SQL type tests share: GET a path, /exec as JSON,
// `ok` (a 200 answer), its rows, `fails` (a 400 with a message and position) and /exp CSV.
import assert from 'node:assert/strict';
import { request } from 'undici';

export interface Reply {
  status: number;
  text: string;
  body: Record<string, unknown>;
}

export interface SqlClient {
  get(path: string, params: Record<string, string>): Promise<{ status: number; bytes: Buffer }>;
  exec(query: string): Promise<Reply>;
  ok(query: string): Promise<Record<string, unknown>>;
  rows(query: string): Promise<unknown[][]>;
  fails(query: string, error: RegExp, position: number): Promise<void>;
  csv(query: string): Promise<string>;
}

/** A client of the server at `base()` (read at each request: the server may be restarted). */
export function sqlClient(base: () => string): SqlClient {
  const get: SqlClient['get'] = async (path, params) => {
    const r = await request(`${base()}${path}?${new URLSearchParams(params)}`);
    return { status: r.statusCode, bytes: Buffer.from(await r.body.arrayBuffer()) };
  };
  const exec: SqlClient['exec'] = async (query) => {
    const r = await get('/exec', { query });
    const text = r.bytes.toString();
    return { status: r.status, text, body: JSON.parse(text) as Record<string, unknown> };
  };
  const ok: SqlClient['ok'] = async (query) => {
    const r = await exec(query);
    assert.equal(r.status, 200, `${query}: ${r.text}`);
    return r.body;
  };
  return {
    get,
    exec,
    ok,
    rows: async (query) => (await ok(query)).dataset as unknown[][],
    fails: async (query, error, position) => {
      const r = await exec(query);
      assert.equal(r.status, 400, r.text);
      assert.match(String(r.body.error), error);
      assert.equal(r.body.position, position, r.text);
    },
    csv: async (query) => {
      const r = await get('/exp', { query });
      assert.equal(r.status, 200, r.bytes.toString());
      return r.bytes.toString();
    },
  };
}
