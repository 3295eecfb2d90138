// End-to-end: a long statement running in one HTTP request is stopped from another, by
// cancel_query(id) and by CANCEL QUERY id (the id from query_activity()); the stopped request
// answers QuestDB's `cancelled by user`, and an id no statement has answers an error.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'undici';
import { makeRoot, startServer, type ServerProcess } from '../helpers/server-process.js';

interface Body {
  dataset?: unknown[][];
  error?: string;
  position?: number;
  ddl?: string;
}

const LONG = 'SELECT count(*) FROM long_sequence(100000000000) WHERE rnd_double() > 2';

describe('CANCEL QUERY over HTTP', () => {
  let s: ServerProcess | null = null;
  const exec = async (query: string): Promise<{ status: number; body: Body }> => {
    const r = await request(`${s!.mainUrl}/exec?${new URLSearchParams({ query }).toString()}`);
    return { status: r.statusCode, body: (await r.body.json()) as Body };
  };
  /** The id query_activity() gives the running LONG statement, waiting until it is listed. */
  const runningId = async (): Promise<number> => {
    for (let i = 0; i < 200; i++) {
      const r = await exec(`SELECT query_id FROM query_activity() WHERE query = '${LONG.replaceAll("'", "''")}'`);
      const id = r.body.dataset?.[0]?.[0];
      if (typeof id === 'number') return id;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('the long statement never showed in query_activity()');
  };
  after(async () => {
    await s?.stop();
  });

  test('cancel_query(id) stops a statement another request runs', async () => {
    s = await startServer({ root: makeRoot() });
    const started = performance.now();
    const long = exec(LONG);
    const id = await runningId();
    const cancelled = await exec(`SELECT cancel_query(${id})`);
    assert.equal(cancelled.status, 200);
    assert.deepEqual(cancelled.body.dataset, [[true]]);
    const answer = await long;
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'cancelled by user');
    assert.ok(performance.now() - started < 20_000);
    // Gone from the registry: nothing more to cancel.
    assert.deepEqual((await exec(`SELECT cancel_query(${id})`)).body.dataset, [[false]]);
    const unknown = await exec(`CANCEL QUERY ${id}`);
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error, `query to cancel not found in registry [id=${id}]`);
    assert.equal(unknown.body.position, 13);
  });

  test('CANCEL QUERY id stops it too, and so does cancel_query over query_activity()', async () => {
    const long = exec(LONG);
    const id = await runningId();
    const r = await exec(`CANCEL QUERY ${id}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.ddl, 'OK');
    assert.equal((await long).body.error, 'cancelled by user');

    const again = exec(LONG);
    await runningId();
    const bulk = await exec("SELECT cancel_query(query_id) FROM query_activity() WHERE query LIKE 'SELECT count(*)%'");
    assert.deepEqual(bulk.body.dataset, [[true]]);
    assert.equal((await again).body.error, 'cancelled by user');
  });
});
