// What one statement execution charges to its memory budget: every operator
// that holds rows shares it, everything is given back when the statement ends
// (completed, stopped early or failed), a process-wide parent sees the same
// charges and answers 503 when it is the one exhausted, and text built per row
// is evaluated in row chunks instead of outgrowing the limit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile } from '../../lib/exec/engine.js';
import { valueAt } from '../../lib/exec/vectors.js';
import { MemoryBudget } from '../../lib/limits/memory-budget.js';
import { isSvcError } from '../../lib/errors/svc-error.js';
import { ENGINE, tempCatalog } from '../helpers/engine.js';

const { catalog } = tempCatalog('svcdb-budget-');

const JOIN = 'select a.x, b.x y from long_sequence(200000) a join long_sequence(200000) b on a.x = b.x';
const SORT = 'select x, x y from long_sequence(200000) order by x desc';
const BOTH = `${JOIN} order by a.x desc`;

/** Runs `sql` with `memoryLimit` under a fresh parent budget; its rows (or the error) and the parent's peak and what it still holds. */
async function runUnder(
  sql: string,
  memoryLimit = 1024 ** 3,
  stopAfter = Infinity,
): Promise<{ rows: unknown[][]; error: unknown; peak: number; held: number; parent: MemoryBudget }> {
  const parent = new MemoryBudget(8 * 1024 ** 3, 'query.memory.total.limit', null, true);
  const s = compile(sql, { ...ENGINE, catalog, memoryLimit, parentBudget: parent });
  assert.equal(s.kind, 'select');
  const rows: unknown[][] = [];
  let error: unknown = null;
  try {
    if (s.kind === 'select') {
      let batches = 0;
      for await (const b of s.execute(new AbortController().signal)) {
        for (let i = 0; i < b.rowCount; i++) rows.push(b.columns.map((c) => valueAt(c, i)));
        if (++batches >= stopAfter) break;
      }
    }
  } catch (e) {
    error = e;
  }
  return { rows, error, peak: parent.peak, held: parent.used, parent };
}

test("a query's charges reach the parent budget while it runs and are all given back at its end", async () => {
  const r = await runUnder(BOTH);
  assert.equal(r.error, null);
  assert.equal(r.rows.length, 200000);
  assert.deepEqual(r.rows[0], [200000, 200000]);
  assert.ok(r.peak > 200000 * 16, `peak ${r.peak}`);
  assert.equal(r.held, 0);
});

test('a query stopped after its first batch gives everything back', async () => {
  const r = await runUnder(BOTH, 1024 ** 3, 1);
  assert.equal(r.error, null);
  assert.ok(r.peak > 0);
  assert.equal(r.held, 0);
});

test('a sort and a join in one query share its budget: each fits alone, both together do not', async () => {
  const join = await runUnder(JOIN);
  const sort = await runUnder(SORT);
  const both = await runUnder(BOTH);
  assert.ok(
    both.peak > Math.max(join.peak, sort.peak) * 1.2,
    `join ${join.peak}, sort ${sort.peak}, both ${both.peak}`,
  );
  const limit = Math.floor((Math.max(join.peak, sort.peak) + both.peak) / 2);
  assert.equal((await runUnder(JOIN, limit)).error, null);
  assert.equal((await runUnder(SORT, limit)).error, null);
  const failed = await runUnder(BOTH, limit);
  assert.ok(isSvcError(failed.error), String(failed.error));
  assert.equal(failed.error.status, 400);
  assert.match(
    failed.error.message,
    new RegExp(`needs more than the memory limit of ${limit} bytes \\[limit=query\\.memory\\.limit`),
  );
  assert.equal(failed.held, 0, 'a failed query gives everything back too');
});

test('a parent budget that runs out answers 503 server busy, and the query gives back what it held', async () => {
  const parent = new MemoryBudget(1024 * 1024, 'query.memory.total.limit', null, true);
  const s = compile(SORT, { ...ENGINE, catalog, parentBudget: parent });
  assert.ok(s.kind === 'select');
  await assert.rejects(
    async () => {
      for await (const b of s.execute(new AbortController().signal)) void b;
    },
    (e: unknown) => {
      assert.ok(isSvcError(e));
      assert.equal(e.status, 503);
      assert.match(e.message, /server busy: .*try again later \[limit=query\.memory\.total\.limit/);
      return true;
    },
  );
  assert.equal(parent.used, 0);
});

test('text longer than the limit allows for a batch is built in row chunks: the answer, within the limit', async () => {
  // 100 strings of 100,000 characters: about 20 MB while built, against a limit of 4 MiB.
  const limit = 4 * 1024 * 1024;
  const r = await runUnder('select length(rnd_str(100000, 100000, 0)) n, x from long_sequence(100)', limit);
  assert.equal(r.error, null);
  assert.deepEqual(
    r.rows.map((row) => row[0]),
    new Array(100).fill(100000),
  );
  assert.deepEqual(
    r.rows.map((row) => row[1]),
    Array.from({ length: 100 }, (_, i) => i + 1),
  );
  assert.ok(r.peak <= limit, `peak ${r.peak}`);
  // The strings themselves as the result: smaller batches, in order.
  const s = await runUnder("select concat(rnd_str(50000, 50000, 0), '!') s from long_sequence(100)", limit);
  assert.equal(s.error, null);
  assert.equal(s.rows.length, 100);
  assert.ok(s.rows.every((row) => typeof row[0] === 'string' && row[0].length === 50001 && row[0].endsWith('!')));
});

test('one value larger than the whole limit fails with the limit, at the call', async () => {
  const r = await runUnder("select length(rpad('a', 1000000, 'b')) from long_sequence(3)", 512 * 1024);
  assert.ok(isSvcError(r.error), String(r.error));
  assert.equal(r.error.status, 400);
  assert.match(r.error.message, /memory limit of 524288 bytes \[limit=query\.memory\.limit/);
  assert.equal(r.error.position, 14);
  assert.equal(r.held, 0);
});
