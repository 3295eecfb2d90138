// What an error is follows from its code, never from its message: the limit
// codes (a configured limit of the server, a value past the per-value limit)
// are told apart from faults of the input, the bind-time evaluation leaves a
// limit to run time, and `svcdb export` places only SQL errors in the text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Database } from '../../lib/db/database.js';
import { ERROR_STATUS, SvcError, isLimitError, isSqlError } from '../../lib/errors/svc-error.js';
import { MemoryBudget } from '../../lib/limits/memory-budget.js';
import { standaloneKernelContext } from '../../lib/functions/registry.js';
import { checkTextSize, isLimitError as isKernelLimit, RowChunkOverflow } from '../../lib/functions/text-out.js';
import { lineTooLong, tooManyColumns, DEFAULT_IMPORT_LIMITS } from '../../lib/ingest/import-limits.js';
import { compile } from '../../lib/exec/engine.js';
import { valueAt } from '../../lib/exec/vectors.js';
import { CLI, makeRoot } from '../helpers/server-process.js';
import { ENGINE, tempCatalog } from '../helpers/engine.js';

const run = promisify(execFile);

function thrown(fn: () => unknown): SvcError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof SvcError, String(e));
    return e;
  }
  assert.fail('nothing was thrown');
}

test('a memory budget passed is a LIMIT (400); the shared budget passed is UNAVAILABLE (503)', () => {
  const e = thrown(() => new MemoryBudget(10, 'query.memory.limit').charge(11, 'ORDER BY'));
  assert.equal(e.code, 'LIMIT');
  assert.equal(e.status, 400);
  assert.ok(isLimitError(e));
  assert.ok(!isSqlError(e));
  const shared = new MemoryBudget(10, 'query.memory.total.limit', null, true);
  const busy = thrown(() => new MemoryBudget(100, 'query.memory.limit', shared).charge(11, 'ORDER BY'));
  assert.equal(busy.code, 'UNAVAILABLE');
  assert.equal(busy.status, 503);
  assert.ok(!isLimitError(busy));
});

test("the import's column and line limits are LIMITs answered as 400s", () => {
  for (const e of [tooManyColumns(DEFAULT_IMPORT_LIMITS, 5000, 't'), lineTooLong(DEFAULT_IMPORT_LIMITS, 'line 3', 3)]) {
    assert.equal(e.code, 'LIMIT');
    assert.equal(e.status, 400);
    assert.ok(isLimitError(e));
  }
});

test('a value past the per-value text limit is a VALUE_LIMIT: a SQL error (400) and a limit', () => {
  const e = thrown(() => checkTextSize('lpad', 2 << 20, standaloneKernelContext(Date.now() * 1000)));
  assert.equal(e.code, 'VALUE_LIMIT');
  assert.equal(e.status, ERROR_STATUS.SQL);
  assert.ok(isSqlError(e));
  assert.ok(isLimitError(e));
  assert.ok(isKernelLimit(e));
});

test('limits are told by their code alone: the same words in another error are not a limit', () => {
  assert.ok(!isKernelLimit(new SvcError('SQL', 'breached memory limit set for lpad [maxLength=1]')));
  assert.ok(
    !isKernelLimit(
      new SvcError('BAD_REQUEST', 'x needs more than the memory limit of 10 bytes [limit=query.memory.limit]'),
    ),
  );
  assert.ok(!isKernelLimit(new Error('breached memory limit set for lpad')));
  assert.ok(isKernelLimit(new RowChunkOverflow(10, 100)));
  assert.ok(isKernelLimit(new SvcError('LIMIT', 'any words')));
  assert.ok(!isSqlError(new SvcError('BAD_REQUEST', 'x')));
  assert.ok(isSqlError(new SvcError('SQL', 'x')));
});

const { catalog } = tempCatalog('svcdb-codes-');

test('a constant past the bind-time per-value limit is left to run time, which has its own limit', async () => {
  // Bound with the bind-time evaluation's 1 MiB; run with 4 MiB: the value is made.
  const s = compile("select length(lpad('x', 2000000, 'y')) n", { ...ENGINE, catalog, maxTextBytes: 4 << 20 });
  assert.equal(s.kind, 'select');
  const out: unknown[] = [];
  if (s.kind === 'select')
    for await (const b of s.execute(new AbortController().signal)) out.push(valueAt(b.columns[0]!, 0));
  assert.deepEqual(out, [2000000]);
  // And a value past the run-time limit fails there, at the call.
  const small = compile("select lpad('x', 2000000, 'y') v", { ...ENGINE, catalog, maxTextBytes: 1000 });
  assert.equal(small.kind, 'select');
  if (small.kind === 'select') {
    await assert.rejects(
      async () => {
        for await (const b of small.execute(new AbortController().signal)) void b;
      },
      (e: unknown) => e instanceof SvcError && e.code === 'VALUE_LIMIT' && e.position === 7,
    );
  }
});

/** Exit code and stderr of `svcdb export ...args`. */
async function exportCli(...args: string[]): Promise<{ code: number; stderr: string }> {
  try {
    const r = await run(process.execPath, [CLI, 'export', ...args]);
    return { code: 0, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stderr: string };
    return { code: x.code, stderr: x.stderr };
  }
}

test('svcdb export shows a caret under a SQL error and a value limit, not under a memory limit', async () => {
  const db = makeRoot();
  // A database folder (export refuses one without a database): its conf/ and db/ made by opening it.
  await Database.open(db).close();
  try {
    const text = await exportCli("select lpad('x', 2000000, 'y') v", '-d', db);
    assert.equal(text.code, 1);
    assert.match(
      text.stderr,
      /^select lpad\('x', 2000000, 'y'\) v\n {7}\^\nsvcdb: breached memory limit set for lpad \[maxLength=1048576, requiredLength=2000000, limit=cairo\.sql\.string\.function\.buffer\.max\.size\] \[position=7\]\n$/,
    );
    // A value within a raised per-value limit but past the statement's memory: the LIMIT placed at the call has no caret.
    appendFileSync(
      join(db, 'conf', 'server.conf'),
      '\nquery.memory.limit=1m\ncairo.sql.string.function.buffer.max.size=8m\n',
    );
    const memory = await exportCli("select rpad('x', 2000000, 'y') v", '-d', db);
    assert.equal(memory.code, 1);
    assert.equal(
      memory.stderr,
      'svcdb: text built by functions needs more than the memory limit of 1048576 bytes [limit=query.memory.limit, held=0, requested=4000000]\n',
    );
  } finally {
    rmSync(db, { recursive: true, force: true });
  }
});
