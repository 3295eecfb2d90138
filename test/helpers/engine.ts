// What tests that call compile() directly give it besides a catalog: the
// function registry and the yield clock a database would own, one each for
// the test file (spread into EngineOptions: `{ ...ENGINE, catalog }`); and
// a catalog in a temporary folder for such tests.
import { after } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { compile, type CompiledStatement, type EngineOptions } from '../../lib/exec/engine.js';
import { valueAt } from '../../lib/exec/vectors.js';
import { Catalog } from '../../lib/storage/catalog.js';
import { Pacer } from '../../lib/exec/pacer.js';
import { createFunctionRegistry } from '../../lib/functions/index.js';

export const ENGINE: Pick<EngineOptions, 'registry' | 'pacer'> = {
  registry: createFunctionRegistry(),
  pacer: new Pacer(),
};

/**
 * A catalog in a new temporary folder (`prefix` names it), closed and removed after the tests of
 * the scope that asks for it; `root` holds it in `root/db` and may hold the test's other files.
 */
export function tempCatalog(prefix: string): { readonly root: string; readonly catalog: Catalog } {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const catalog = Catalog.open(join(root, 'db'), {
    commitMode: 'nosync',
    writerWaitMs: 100,
    readerCacheSize: 16 << 20,
    maxUncommittedRows: 1_000_000,
    o3MaxLag: 0,
  });
  after(() => {
    catalog.close();
    rmSync(root, { recursive: true, force: true });
  });
  return { root, catalog };
}

/**
 * Runs statements on `catalog` through compile(): `rows` of a SELECT (each row its values),
 * `exec` any statement (a SELECT's rows, else [] once it ran).
 */
export function statementRunner(catalog: Catalog, signal: AbortSignal = new AbortController().signal) {
  async function rows(s: CompiledStatement): Promise<unknown[][]> {
    assert.equal(s.kind, 'select');
    const out: unknown[][] = [];
    if (s.kind === 'select')
      for await (const b of s.execute(signal))
        for (let i = 0; i < b.rowCount; i++) out.push(b.columns.map((c) => valueAt(c, i)));
    return out;
  }
  async function exec(sql: string, opts: Partial<EngineOptions> = {}): Promise<unknown[][]> {
    const s = compile(sql, { ...ENGINE, catalog, ...opts });
    if (s.kind !== 'select') {
      await s.execute(signal);
      return [];
    }
    return rows(s);
  }
  return { rows, exec };
}
