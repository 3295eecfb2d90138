// End-to-end: a server started with query.tracing.enabled=true (and basic authentication)
// records a query run over HTTP in _query_trace, under the HTTP user; one started without it
// has no _query_trace until server.conf turns tracing on and `SELECT reload_config()` reloads it.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { startServer, type ServerProcess } from '../helpers/server-process.js';

interface Body {
  dataset?: unknown[][];
  error?: string;
  position?: number;
}

function client(s: ServerProcess, auth?: string) {
  return async (query: string): Promise<{ status: number; body: Body }> => {
    const r = await request(`${s.mainUrl}/exec?${new URLSearchParams({ query }).toString()}`, {
      headers: auth ? { authorization: `Basic ${Buffer.from(auth).toString('base64')}` } : {},
    });
    return { status: r.statusCode, body: (await r.body.json()) as Body };
  };
}

/** The rows of `query` once `ready` accepts them: the trace is written in the background, just after the statement. */
async function eventually(
  exec: (q: string) => Promise<{ status: number; body: Body }>,
  query: string,
  ready: (rows: unknown[][]) => boolean,
): Promise<unknown[][]> {
  let last: unknown = null;
  for (let i = 0; i < 200; i++) {
    const r = await exec(query);
    last = r.body;
    if (r.status === 200 && ready(r.body.dataset ?? [])) return r.body.dataset!;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`never ready: ${JSON.stringify(last)}`);
}

describe('query tracing over HTTP', () => {
  const servers: ServerProcess[] = [];
  after(async () => {
    for (const s of servers) await s.stop();
  });

  test('a query run over HTTP shows in _query_trace with its time and the HTTP user', async () => {
    const s = await startServer({
      files: { 'conf/server.conf': 'query.tracing.enabled=true\nhttp.user=alice\nhttp.password=wonderland\n' },
    });
    servers.push(s);
    const exec = client(s, 'alice:wonderland');
    const q = 'SELECT sum(x) FROM long_sequence(1000)';
    const r = await exec(q);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.dataset, [[500500]]);
    const rows = await eventually(
      exec,
      `SELECT query_text, principal, execution_micros >= 0, ts <= now() FROM _query_trace WHERE query_text = '${q}'`,
      (d) => d.length === 1,
    );
    assert.deepEqual(rows, [[q, 'alice', true, true]]);
    // QuestDB's page's query over the trace runs too.
    const slow = await exec(
      'SELECT query_text FROM _query_trace WHERE execution_micros > 100_000 ORDER BY execution_micros DESC',
    );
    assert.equal(slow.status, 200);
  });

  test('without it there is no _query_trace, until reload_config() takes the edited server.conf', async () => {
    const s = await startServer();
    servers.push(s);
    const exec = client(s);
    const missing = await exec('SELECT * from _query_trace');
    assert.equal(missing.status, 400);
    assert.match(missing.body.error ?? '', /table does not exist \[table=_query_trace\]/);
    assert.equal(missing.body.position, 14);
    writeFileSync(join(s.root, 'conf', 'server.conf'), 'query.tracing.enabled=true\n');
    assert.deepEqual((await exec('SELECT reload_config()')).body.dataset, [[true]]);
    assert.equal((await exec('SELECT 42 answer')).status, 200);
    const rows = await eventually(
      exec,
      "SELECT query_text, principal FROM _query_trace WHERE query_text = 'SELECT 42 answer'",
      (d) => d.length === 1,
    );
    assert.deepEqual(rows, [['SELECT 42 answer', 'admin']]);
  });
});
