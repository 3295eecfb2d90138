// The layer rule of ARCHITECTURE.md: which folder of lib/ may import which.
// One copy, used twice: test/layers.test.ts checks every import of lib/ with it,
// and eslint.config.js runs it as the rule `svcdb/layers` (feedback in editors).
import { dirname, join, normalize, relative, sep } from 'node:path';

/** The layered folders, higher imports lower: `http, health, cli, embed -> db -> ingest, export -> exec -> sql -> functions -> storage`. */
export const LEVEL = Object.freeze({
  http: 7,
  health: 7,
  cli: 7,
  embed: 7,
  db: 6,
  ingest: 5,
  export: 5,
  exec: 4,
  sql: 3,
  functions: 2,
  storage: 1,
});

/**
 * Shared folders (and top files) usable by every layer; among themselves a
 * lower rank only: errors <- core, limits, config, workers, version <- metrics, net <- log <- lifecycle.
 */
export const SHARED_RANK = Object.freeze({
  errors: 0,
  'version.ts': 0,
  core: 1,
  limits: 1,
  config: 1,
  workers: 1,
  metrics: 2,
  net: 2,
  log: 3,
  lifecycle: 4,
});

/**
 * Layers beside each other rather than one above the other: storage is below
 * exec only (`storage -> core`), so the compiler and the kernels never import
 * it; the binder binds against sql/schema-source.ts, which the Catalog implements.
 */
export const APART = Object.freeze(new Set(['sql -> storage', 'functions -> storage']));

/** The composition roots: they may import anything. */
export const ROOTS = Object.freeze(new Set(['index.ts', 'server.ts']));

/** The unit an import belongs to: its first folder under lib/, or the file itself at the top. */
function unitOf(path) {
  const i = path.indexOf('/');
  return i < 0 ? path : path.slice(0, i);
}

/**
 * Why `from` may not import `to` (paths relative to lib/, `/`-separated), or null when it may.
 * @param {string} from
 * @param {string} to
 * @returns {string | null}
 */
export function violation(from, to) {
  const a = unitOf(from),
    b = unitOf(to);
  if (a === b || ROOTS.has(a)) return null;
  const bShared = SHARED_RANK[b],
    aShared = SHARED_RANK[a];
  if (bShared !== undefined) {
    if (aShared === undefined || bShared < aShared) return null;
    return `${a} (shared, rank ${aShared}) imports ${b} (rank ${bShared})`;
  }
  if (aShared !== undefined) return `${a} is shared (usable by all) but imports the layer ${b}`;
  const la = LEVEL[a],
    lb = LEVEL[b];
  if (la === undefined || lb === undefined)
    return `${la === undefined ? a : b} is in no layer (add it to scripts/layers.mjs and ARCHITECTURE.md)`;
  if (APART.has(`${a} -> ${b}`)) return `${a} may not import ${b}: they are beside each other, not one above the other`;
  return lb < la ? null : `${a} (level ${la}) imports ${b} (level ${lb}): imports go downward only`;
}

/** `spec` imported by the file at `file` as a path relative to `lib`, or null when either is outside lib/ or `spec` is a package. */
export function libTarget(lib, file, spec) {
  if (!spec.startsWith('./') && !spec.startsWith('../')) return null;
  const from = relative(lib, file);
  const to = relative(lib, normalize(join(dirname(file), spec)).replace(/\.js$/, '.ts'));
  if (from.startsWith('..') || to.startsWith('..')) return null;
  return { from: from.split(sep).join('/'), to: to.split(sep).join('/') };
}

/** The ESLint plugin: `svcdb/layers` reports an import of lib/ that breaks the rule, at the import. */
export function layersPlugin(lib) {
  return {
    rules: {
      layers: {
        meta: {
          type: 'problem',
          docs: { description: 'imports of lib/ follow the layer rule (ARCHITECTURE.md)' },
          schema: [],
        },
        create(context) {
          const check = (node) => {
            const spec = node.source?.value;
            if (typeof spec !== 'string') return;
            const edge = libTarget(lib, context.filename, spec);
            if (edge === null) return;
            const why = violation(edge.from, edge.to);
            if (why !== null) context.report({ node: node.source, message: `layer rule: ${why}` });
          };
          return {
            ImportDeclaration: check,
            ExportNamedDeclaration: check,
            ExportAllDeclaration: check,
            ImportExpression: check,
          };
        },
      },
    },
  };
}
