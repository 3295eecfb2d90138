// The README's first screen as a new user meets it: every command of its tour
// run from the clone by bash against a real server (only the port and the folder an
// output file lands in are changed: the server listens on an ephemeral port), and
// "Use as a library"'s install line run in an empty project, whose script then
// imports 'svcdb' and queries the tour's data file.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { makeRoot, startServer, type ServerProcess } from '../helpers/server-process.js';

const repo = (rel: string): string => fileURLToPath(new URL(`../../../${rel}`, import.meta.url));
const run = promisify(execFile);
const README = readFileSync(repo('README.md'), 'utf8');

/** The ```sh blocks of `text`, each as its lines. */
function shellBlocks(text: string): string[][] {
  return [...text.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!.trimEnd().split('\n'));
}

/** The README up to its first second-level heading: what a visitor sees first. */
const FIRST_SCREEN = README.slice(0, README.indexOf('\n## '));

let server: ServerProcess;
before(async () => {
  server = await startServer();
});
after(async () => {
  await server.stop();
});

test('the build leaves the CLI executable, as `npx svcdb` from the clone needs (tsc writes it without the bit)', () => {
  assert.notEqual(statSync(repo('dist/bin/svcdb.js')).mode & 0o111, 0, 'dist/bin/svcdb.js is executable');
});

test("the README's tour runs as written from the clone: its data file ships, each command succeeds", async () => {
  const tour = shellBlocks(FIRST_SCREEN).find((lines) => lines.some((l) => l.includes('localhost:9000')));
  assert.ok(tour !== undefined, 'the first screen has a tour with commands for the server at localhost:9000');
  const port = new URL(server.mainUrl).port;
  const out = makeRoot();
  const results: string[] = [];
  for (const line of tour) {
    const command = line
      .replaceAll('localhost:9000', `127.0.0.1:${port}`)
      .replace(/^npx svcdb query /, `npx svcdb query --host 127.0.0.1:${port} `)
      .replace(/ > (\S+)$/, (_, file: string) => ` > ${join(out, file)}`);
    // curl -f: an HTTP error fails the command as a missing file does.
    const r = await run('bash', ['-c', command.replace(/^curl /, 'curl -sSf ')], { cwd: repo('') }).catch(
      (e: { code: number; stdout: string; stderr: string }) =>
        assert.fail(`\`${line}\` failed (exit ${e.code}):\n${e.stderr}${e.stdout}`),
    );
    assert.doesNotMatch(r.stdout, /"error"/, line);
    results.push(r.stdout);
  }
  const all = results.join('\n');
  assert.match(all, /Rows imported\s*\|\s*6000\b/, 'the tour imports the shipped file');
  assert.match(all, /\(9 rows\)/, 'three days of three symbols sampled by day');
  assert.match(all, /\(3 rows\)/, 'the latest trade of each symbol');
  const exported = tour.find((l) => / > \S+$/.test(l));
  if (exported !== undefined) {
    const lines = readFileSync(join(out, / > (\S+)$/.exec(exported)![1]!), 'utf8')
      .trimEnd()
      .split('\n');
    assert.ok(lines.length > 100 && lines.slice(1).every((l) => l.includes('"BTC-USD"')), 'the export has the rows');
  }
});

test(
  "the README's library install line works in an empty project, without svcdb on npm",
  { timeout: 120_000 },
  async () => {
    const section = README.slice(README.indexOf('## Use as a library'));
    const install = shellBlocks(section)
      .flat()
      .find((l) => /^npm install \S*svcdb/.test(l));
    assert.ok(install !== undefined, '"Use as a library" says how to install svcdb');
    const app = join(makeRoot(), 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'tour-app', private: true, type: 'module' }));
    const command = install.replace(/\s+#.*$/, '').replace('/path/to/svcdb', repo('').replace(/\/$/, ''));
    // Offline: a line naming a package that is not published cannot pass by reaching the registry.
    await run('bash', ['-c', `${command} --offline --no-audit --no-fund`], { cwd: app }).catch(
      (e: { code: number; stderr: string }) => assert.fail(`\`${install}\` failed (exit ${e.code}):\n${e.stderr}`),
    );
    writeFileSync(
      join(app, 'count.mjs'),
      [
        "import { openDatabase } from 'svcdb';",
        'const db = openDatabase(process.argv[2]);',
        "const r = await db.importCsv(process.argv[3], { name: 'trades', timestamp: 'ts', partitionBy: 'DAY' });",
        "for await (const row of db.query('select count() n, count_distinct(sym) syms from trades').rows())",
        '  console.log(JSON.stringify({ imported: r.rowsImported, ...row }));',
        'await db.close();',
      ].join('\n'),
    );
    const r = await run(process.execPath, ['count.mjs', join(app, 'db'), repo('examples/trades.csv')], { cwd: app });
    assert.deepEqual(JSON.parse(r.stdout), { imported: 6000, n: 6000, syms: 3 });
  },
);
