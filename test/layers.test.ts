// The layer rule of ARCHITECTURE.md (scripts/layers.mjs), checked on the imports
// themselves so that it cannot drift: every relative import in lib/ goes downward,
// or to a shared bottom folder. Known exceptions are listed with their reason and must exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const LIB = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'lib');

/** scripts/layers.mjs: the rule's tables and check, shared with ESLint's `svcdb/layers`. */
interface LayerRule {
  violation(from: string, to: string): string | null;
}
const { violation } = (await import(pathToFileURL(join(LIB, '..', 'scripts', 'layers.mjs')).href)) as LayerRule;

/** Edges that break the rule today, each with why; none now. */
const KNOWN: Readonly<Record<string, string>> = {};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The relative modules `text` imports or re-exports (`import ... from`, `export ... from`, and side-effect `import './x.js'`). */
export function relativeImports(text: string): Array<{ path: string; sideEffect: boolean }> {
  const out: Array<{ path: string; sideEffect: boolean }> = [];
  for (const m of text.matchAll(
    /(?:^|\n)\s*(?:(?:import|export)\b[^'"]*?\bfrom\s+'(\.{1,2}\/[^']+)'|import\s*'(\.{1,2}\/[^']+)')/g,
  )) {
    out.push(m[1] !== undefined ? { path: m[1], sideEffect: false } : { path: m[2]!, sideEffect: true });
  }
  return out;
}

/** Every relative import (and re-export) of lib/, as `from -> to` paths relative to lib/ with .ts names. */
function edges(): Array<{ from: string; to: string; sideEffect: boolean }> {
  const out: Array<{ from: string; to: string; sideEffect: boolean }> = [];
  for (const file of sources(LIB)) {
    for (const { path, sideEffect } of relativeImports(readFileSync(file, 'utf8'))) {
      const target = normalize(join(dirname(file), path)).replace(/\.js$/, '.ts');
      out.push({ from: relative(LIB, file), to: relative(LIB, target), sideEffect });
    }
  }
  return out;
}

test('the import reader sees imports, re-exports and side-effect imports', () => {
  const text =
    "import { a } from './a.js';\nimport type { B } from '../b/b.js';\nimport './registers.js';\nexport { c } from './c.js';\nimport { readFileSync } from 'node:fs';\n";
  assert.deepEqual(relativeImports(text), [
    { path: './a.js', sideEffect: false },
    { path: '../b/b.js', sideEffect: false },
    { path: './registers.js', sideEffect: true },
    { path: './c.js', sideEffect: false },
  ]);
});

test('no module in lib/ is imported for its side effects (nothing registers itself at import time)', () => {
  assert.deepEqual(
    edges()
      .filter((e) => e.sideEffect)
      .map((e) => `${e.from} -> ${e.to}`),
    [],
  );
});

test('the checker refuses upward, sideways and shared-to-layer imports and allows downward ones', () => {
  assert.equal(violation('exec/sort.ts', 'sql/bound.ts'), null);
  assert.equal(violation('http/router.ts', 'core/batch.ts'), null);
  assert.equal(violation('log/log-manager.ts', 'config/config.ts'), null);
  assert.equal(violation('server.ts', 'http/main-server.ts'), null);
  assert.equal(violation('http/sql-routes.ts', 'db/database.ts'), null);
  assert.match(violation('db/database.ts', 'http/router.ts')!, /downward only/);
  assert.match(violation('cli/export-cli.ts', 'embed/operators.ts')!, /downward only/);
  assert.match(violation('ingest/importer.ts', 'db/database.ts')!, /downward only/);
  assert.match(violation('storage/table.ts', 'sql/bound.ts')!, /downward only/);
  assert.match(violation('ingest/importer.ts', 'export/csv-response.ts')!, /downward only/);
  assert.match(violation('core/batch.ts', 'storage/table.ts')!, /shared/);
  assert.match(violation('config/config.ts', 'log/log-manager.ts')!, /rank/);
  assert.match(violation('nowhere/x.ts', 'sql/bound.ts')!, /no layer/);
  assert.equal(violation('exec/operators.ts', 'storage/catalog.ts'), null);
  assert.match(violation('sql/binder.ts', 'storage/catalog.ts')!, /beside/);
  assert.match(violation('functions/registry.ts', 'storage/table.ts')!, /beside/);
});

test('every import in lib/ follows the layer rule (known exceptions listed with a reason)', () => {
  const all = edges();
  assert.ok(all.length > 300, `read ${all.length} imports`);
  const found = new Set<string>();
  const broken: string[] = [];
  for (const { from, to } of all) {
    const why = violation(from, to);
    if (why === null) continue;
    const key = `${from} -> ${to}`;
    if (KNOWN[key] !== undefined) {
      found.add(key);
      continue;
    }
    broken.push(`${key}: ${why}`);
  }
  assert.deepEqual(broken, [], 'imports that break the layer rule');
  const stale = Object.keys(KNOWN).filter((k) => !found.has(k));
  assert.deepEqual(stale, [], 'known exceptions that no longer exist: remove them from KNOWN');
});
