// Functions whose answer depends on what else runs or on the clock (golden 96 has the rest):
// 'cancel_query' stops a statement of the same database, which then fails with `cancelled by
// user`; 'now_ns' is the statement's time; the hashes of BINARY values.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from '../../lib/db/database.js';
import { valueAt } from '../../lib/exec/vectors.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import { compile } from '../../lib/exec/engine.js';
import { fixedClock } from '../../lib/functions/clock.js';
import { renderAt } from '../../lib/core/render.js';
import { ENGINE, tempCatalog } from '../helpers/engine.js';
import { createFunctionRegistry } from '../../lib/functions/index.js';
import { standaloneKernelContext } from '../../lib/functions/registry.js';
import { textAt } from '../../lib/core/vec.js';
import type { ColumnVector } from '../../lib/core/column-vector.js';

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

test("'now_ns' is the statement's time (the clock's micros) at nanosecond resolution", async () => {
  const micros = Date.UTC(2024, 0, 2, 3, 4, 5, 678) * 1000 + 901;
  const s = compile('SELECT now_ns() n, now() m FROM long_sequence(2)', {
    ...ENGINE,
    catalog: tempCatalog('svcdb-now-ns-').catalog,
    clock: fixedClock(micros),
  });
  assert.ok(s.kind === 'select');
  const out: string[] = [];
  for await (const b of s.execute(new AbortController().signal))
    for (let i = 0; i < b.rowCount; i++) out.push(String(renderAt(b.columns[0]!, i)));
  assert.deepEqual(out, ['2024-01-02T03:04:05.678901000Z', '2024-01-02T03:04:05.678901000Z']);
});

test("'sha1', 'md5' and 'sha256' of BINARY hash its bytes (the text form's digests of the same bytes)", () => {
  const registry = createFunctionRegistry();
  const abc = [0x61, 0x62, 0x63];
  const offsets = Int32Array.from([0, 3, 3, 3]);
  const bin: ColumnVector = {
    kind: 'var',
    type: 'BINARY',
    bytes: Uint8Array.from(abc),
    offsets,
    nulls: Uint8Array.from([0, 0, 1]),
  };
  const expected: Record<string, [string, string]> = {
    sha1: ['a9993e364706816aba3e25717850c26c9cd0d89d', 'da39a3ee5e6b4b0d3255bfef95601890afd80709'],
    md5: ['900150983cd24fb0d6963f7d28e17f72', 'd41d8cd98f00b204e9800998ecf8427e'],
    sha256: [
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    ],
  };
  for (const [name, [full, empty]] of Object.entries(expected)) {
    const fn = registry.resolveScalar(name, ['BINARY'], 0);
    assert.equal(fn.type, 'VARCHAR');
    const out = fn.kernel([bin], 3, standaloneKernelContext(0));
    assert.deepEqual(
      [0, 1, 2].map((i) => textAt(out, i)),
      [full, empty, null],
      name,
    );
  }
});

test("'touch' reads its query through and counts 4 KiB pages of what it read", async () => {
  const { catalog } = tempCatalog('svcdb-touch-');
  const run = async (sql: string): Promise<(string | null)[]> => {
    const s = compile(sql, { ...ENGINE, catalog });
    if (s.kind !== 'select') {
      await s.execute(new AbortController().signal);
      return [];
    }
    const out: (string | null)[] = [];
    for await (const b of s.execute(new AbortController().signal))
      for (let i = 0; i < b.rowCount; i++) out.push(renderAt(b.columns[0]!, i));
    return out;
  };
  await run('CREATE TABLE t AS (SELECT x k FROM long_sequence(1025))');
  // 1,025 LONGs: 8,200 bytes, three pages.
  assert.deepEqual(await run('SELECT touch(SELECT k FROM t)'), [
    '{"data_pages": 3, "index_key_pages": 0, "index_values_pages": 0}',
  ]);
  assert.deepEqual(await run('SELECT touch(SELECT k FROM t) FROM long_sequence(2)').then((r) => r.length), 2);
});
