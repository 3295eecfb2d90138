// The layer rule of ARCHITECTURE.md, read from the imports themselves so that
// it cannot drift: every relative import in lib/ goes downward, or to a shared
// bottom folder. Known exceptions are listed with their reason and must exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const LIB = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'lib');

/** The layered folders, higher imports lower: `http, health, cli, embed -> db -> ingest, export -> exec -> sql -> functions -> storage`. */
const LEVEL: Readonly<Record<string, number>> = { http: 7, health: 7, cli: 7, embed: 7, db: 6, ingest: 5, export: 5, exec: 4, sql: 3, functions: 2, storage: 1 };

/**
 * Shared folders (and top files) usable by every layer; among themselves a
 * lower rank only: errors <- core, limits, config, version <- metrics, net <- log <- lifecycle.
 */
const SHARED_RANK: Readonly<Record<string, number>> = { errors: 0, 'version.ts': 0, core: 1, limits: 1, config: 1, metrics: 2, net: 2, log: 3, lifecycle: 4 };

/**
 * Layers beside each other rather than one above the other: storage is below
 * exec only (`storage -> core`), so the compiler and the kernels never import
 * it; the binder binds against sql/schema-source.ts, which the Catalog implements.
 */
const APART: ReadonlySet<string> = new Set(['sql -> storage', 'functions -> storage']);

/** The composition roots: they may import anything. */
const ROOTS = new Set(['index.ts', 'server.ts']);

/** Edges that break the rule today, each with why (issue 17's restructure removes them); none now. */
const KNOWN: Readonly<Record<string, string>> = {};

/** The unit an import belongs to: its first folder under lib/, or the file itself at the top. */
function unitOf(path: string): string {
  const i = path.indexOf('/');
  return i < 0 ? path : path.slice(0, i);
}

/** Why `from` may not import `to` (paths relative to lib/), or null when it may. */
export function violation(from: string, to: string): string | null {
  const a = unitOf(from), b = unitOf(to);
  if (a === b || ROOTS.has(a)) return null;
  const bShared = SHARED_RANK[b], aShared = SHARED_RANK[a];
  if (bShared !== undefined) {
    if (aShared === undefined || bShared < aShared) return null;
    return `${a} (shared, rank ${aShared}) imports ${b} (rank ${bShared})`;
  }
  if (aShared !== undefined) return `${a} is shared (usable by all) but imports the layer ${b}`;
  const la = LEVEL[a], lb = LEVEL[b];
  if (la === undefined || lb === undefined) return `${la === undefined ? a : b} is in no layer (add it to test/layers.test.ts and ARCHITECTURE.md)`;
  if (APART.has(`${a} -> ${b}`)) return `${a} may not import ${b}: they are beside each other, not one above the other`;
  return lb < la ? null : `${a} (level ${la}) imports ${b} (level ${lb}): imports go downward only`;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []);
}

/** The relative modules `text` imports or re-exports (`import ... from`, `export ... from`, and side-effect `import './x.js'`). */
export function relativeImports(text: string): Array<{ path: string; sideEffect: boolean }> {
  const out: Array<{ path: string; sideEffect: boolean }> = [];
  for (const m of text.matchAll(/(?:^|\n)\s*(?:(?:import|export)\b[^'"]*?\bfrom\s+'(\.{1,2}\/[^']+)'|import\s*'(\.{1,2}\/[^']+)')/g)) {
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
  const text = "import { a } from './a.js';\nimport type { B } from '../b/b.js';\nimport './registers.js';\nexport { c } from './c.js';\nimport { readFileSync } from 'node:fs';\n";
  assert.deepEqual(relativeImports(text), [
    { path: './a.js', sideEffect: false }, { path: '../b/b.js', sideEffect: false },
    { path: './registers.js', sideEffect: true }, { path: './c.js', sideEffect: false },
  ]);
});

test('no module in lib/ is imported for its side effects (nothing registers itself at import time)', () => {
  assert.deepEqual(edges().filter((e) => e.sideEffect).map((e) => `${e.from} -> ${e.to}`), []);
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
    if (KNOWN[key] !== undefined) { found.add(key); continue; }
    broken.push(`${key}: ${why}`);
  }
  assert.deepEqual(broken, [], 'imports that break the layer rule');
  const stale = Object.keys(KNOWN).filter((k) => !found.has(k));
  assert.deepEqual(stale, [], 'known exceptions that no longer exist: remove them from KNOWN');
});
