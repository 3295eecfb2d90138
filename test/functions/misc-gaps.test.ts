// Functions whose answer depends on what else runs (golden 96 has the rest): 'cancel_query'
// stops a statement of the same database, which then fails with `cancelled by user`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../../lib/db/database.js';
import { valueAt } from '../../lib/exec/vectors.js';
import { SvcError } from '../../lib/errors/svc-error.js';

test("'cancel_query' stops a running statement of the database and answers true once", async () => {
  const root = mkdtempSync(join(tmpdir(), 'svcdb-cancel-'));
  const db = Database.open(root, { workerCount: 1 });
  try {
    const long = db.compile('SELECT count(*) FROM long_sequence(100000000000) WHERE rnd_double() > 2');
    assert.ok(long.kind === 'select');
    const running = long.execute(new AbortController().signal);
    const first = running.next();
    first.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    const cancel = async (): Promise<unknown[]> => {
      const s = db.compile("SELECT cancel_query(query_id) FROM query_activity() WHERE query LIKE 'SELECT count(*)%'");
      assert.ok(s.kind === 'select');
      const out: unknown[] = [];
      for await (const b of s.execute(new AbortController().signal))
        for (let i = 0; i < b.rowCount; i++) out.push(valueAt(b.columns[0]!, i));
      return out;
    };
    let answered: unknown[] = [];
    for (let i = 0; i < 100 && answered.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      answered = await cancel();
    }
    assert.deepEqual(answered, [true]);
    await assert.rejects(first, (e: unknown) => e instanceof SvcError && e.message === 'cancelled by user');
    assert.deepEqual(await cancel(), []);
  } finally {
    db.close();
    rmSync(root, { recursive: true, force: true });
  }
});
