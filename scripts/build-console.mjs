// Builds the web console (console/*.ts, CodeMirror 6, uPlot) into dist/console/ with esbuild (and
// marks dist/bin/svcdb.js executable):
// app-<hash>.js, app-<hash>.css (and gzip copies), index.html naming them, licenses.txt. The SQL words the editor highlights
// and completes (QuestDB's keywords, svcdb's function names, the column types) come from the
// compiled server (dist/lib, so `tsc -p .` runs first) and are inlined into the bundle.
// Run by `npm run build`; `node scripts/build-console.mjs [outdir]`; `--if-stale` (npm start) skips a
// bundle newer than its sources.
import { build } from 'esbuild';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { constants, gzipSync } from 'node:zlib';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = resolve(fileURLToPath(new URL('..', import.meta.url)));
const args = process.argv.slice(2);
const ifStale = args.includes('--if-stale');
const outdir = resolve(args.find((a) => !a.startsWith('--')) ?? join(repo, 'dist', 'console'));

/** The newest modification time (ms) of the files under `dir` whose names match `re`; 0 when none. */
function newest(dir, re) {
  if (!existsSync(dir)) return 0;
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (e.isFile() && re.test(e.name)) t = Math.max(t, statSync(join(e.parentPath, e.name)).mtimeMs);
  return t;
}

// The CLI as `npx svcdb` runs it from the clone: tsc writes dist/bin/svcdb.js without the executable
// bit, which a fresh build then lacks (`sh: svcdb: Permission denied`). Every build path (npm run
// build, npm start) comes through here.
const cli = join(repo, 'dist', 'bin', 'svcdb.js');
if (existsSync(cli)) chmodSync(cli, 0o755);

// `npm start`: nothing to do when the bundle is newer than its sources and the compiled server
// whose SQL words it inlines.
if (ifStale) {
  const built = existsSync(join(outdir, 'index.html')) ? statSync(join(outdir, 'index.html')).mtimeMs : 0;
  const sources = Math.max(
    newest(join(repo, 'console'), /\.(ts|css|html)$/),
    newest(join(repo, 'dist', 'lib'), /\.js$/),
    statSync(fileURLToPath(import.meta.url)).mtimeMs,
  );
  if (built > sources) process.exit(0);
}

async function sqlWords() {
  const lib = (p) => import(new URL(`../dist/lib/${p}`, import.meta.url).href);
  const { QUESTDB_KEYWORDS } = await lib('sql/metadata.js');
  const { functionNames } = await lib('sql/function-names.js');
  const { createFunctionRegistry } = await lib('functions/index.js');
  const { COLUMN_TYPES } = await lib('core/column-type.js');
  return {
    keywords: [...QUESTDB_KEYWORDS],
    functions: functionNames(createFunctionRegistry()),
    types: COLUMN_TYPES.map((t) => t.toLowerCase()),
  };
}

const started = Date.now();
const words = await sqlWords();
mkdirSync(outdir, { recursive: true });
// Old hashed files go; index.html is written last, so a running server never names a missing file for long.
for (const f of readdirSync(outdir)) if (/^app-/.test(f)) rmSync(join(outdir, f));
const result = await build({
  entryPoints: { app: join(repo, 'console', 'main.ts') },
  bundle: true,
  format: 'esm',
  target: ['es2022'],
  platform: 'browser',
  minify: true,
  sourcemap: false,
  entryNames: '[name]-[hash]',
  outdir,
  metafile: true,
  legalComments: 'none',
  define: { __SQL_WORDS__: JSON.stringify(words) },
  logLevel: 'warning',
});
const outputs = Object.keys(result.metafile.outputs).map((p) => basename(p));
const js = outputs.find((f) => /^app-.*\.js$/.test(f));
const css = outputs.find((f) => /^app-.*\.css$/.test(f));
if (!js || !css) throw new Error(`esbuild wrote no app bundle: ${outputs.join(', ')}`);
// The licences of the bundled packages (MIT all), kept beside the bundle that copies them.
const packages = new Set();
for (const input of Object.keys(result.metafile.inputs)) {
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input);
  if (m) packages.add(m[1]);
}
const licences = [...packages].sort().map((name) => {
  const dir = join(repo, 'node_modules', name);
  const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  const { version, license } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  const text = file && existsSync(join(dir, file)) ? readFileSync(join(dir, file), 'utf8').trim() : `(${license})`;
  return `${name} ${version} (${license})\n\n${text}\n`;
});
writeFileSync(join(outdir, 'licenses.txt'), `Packages bundled into app-*.js\n\n${licences.join('\n---\n\n')}`);
// Gzip copies the server sends to browsers that take them (a third of the size).
for (const f of [js, css])
  writeFileSync(
    join(outdir, `${f}.gz`),
    gzipSync(readFileSync(join(outdir, f)), { level: constants.Z_BEST_COMPRESSION }),
  );
writeFileSync(
  join(outdir, 'index.html'),
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svcdb console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/${css}">
<script type="module" src="/console/${js}"></script>
</head>
<body></body>
</html>
`,
);
const size = (f) => result.metafile.outputs[Object.keys(result.metafile.outputs).find((p) => p.endsWith(f))].bytes;
console.log(
  `console: ${outdir} (${js} ${(size(js) / 1024).toFixed(0)} KiB, ${css} ${(size(css) / 1024).toFixed(0)} KiB) in ${Date.now() - started} ms`,
);
