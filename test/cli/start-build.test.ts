// `npm start`'s build step (package.json's start script up to its first &&),
// run as npm runs it on a small TypeScript project of the same layout: it
// compiles a missing or stale dist/, and leaves a current one alone, so a
// start with nothing changed does not spend the half minute a full compile of
// svcdb takes. Whether the files were written is told by their mtimes, never by time taken.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { makeRoot } from '../helpers/server-process.js';

const repo = (rel: string): string => fileURLToPath(new URL(`../../../${rel}`, import.meta.url));
const run = promisify(execFile);

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name));
}

test('the start script compiles a stale build and leaves a current one alone', { timeout: 120_000 }, async () => {
  const pkg = JSON.parse(readFileSync(repo('package.json'), 'utf8')) as { scripts: Record<string, string> };
  const build = pkg.scripts.start!.split('&&')[0]!.trim();
  assert.match(build, /\btsc\b/, 'npm start compiles before it serves');

  const project = makeRoot();
  mkdirSync(join(project, 'lib'));
  // svcdb's compiler options (without @types/node, which the small project has no node_modules for).
  const tsconfig = JSON.parse(readFileSync(repo('tsconfig.json'), 'utf8')) as { compilerOptions: object };
  const compilerOptions = { ...tsconfig.compilerOptions, types: [] };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['lib/**/*.ts'] }));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'small', private: true, type: 'module' }));
  writeFileSync(join(project, 'lib/a.ts'), 'export const a: number = 1;\n');
  const source = [join(project, 'tsconfig.json'), join(project, 'lib/a.ts')];
  const out = join(project, 'dist/lib/a.js');
  // As npm runs a script: its folder's node_modules/.bin first on the PATH (here svcdb's, for tsc).
  const npmRun = async (): Promise<void> => {
    await run('sh', ['-c', build], {
      cwd: project,
      env: { ...process.env, PATH: `${repo('node_modules/.bin')}:${process.env.PATH ?? ''}` },
    }).catch((e: { stdout: string }) => assert.fail(`\`${build}\` failed:\n${e.stdout}`));
  };

  await npmRun();
  assert.match(readFileSync(out, 'utf8'), /a = 1/, 'the first start compiles');

  // Sources from 2000, their build from 2001: current.
  const y2000 = new Date('2000-01-01T00:00:00Z');
  const y2001 = new Date('2001-01-01T00:00:00Z');
  for (const f of source) utimesSync(f, y2000, y2000);
  for (const f of filesUnder(join(project, 'dist'))) utimesSync(f, y2001, y2001);
  await npmRun();
  const rewritten = filesUnder(join(project, 'dist')).filter((f) => statSync(f).mtimeMs !== y2001.getTime());
  assert.deepEqual(rewritten, [], 'a current build is not compiled again');

  writeFileSync(join(project, 'lib/a.ts'), 'export const a: number = 2;\n');
  await npmRun();
  assert.match(readFileSync(out, 'utf8'), /a = 2/, 'a changed source is compiled');
});
