// The command line as a new user meets it (issue 20): every command answers
// --help and -h with its usage, options and examples; errors say what went
// wrong and what to do in the CLI's own words (no errno codes, no stacks, no
// HTTP wording); a mistyped -d is refused without making a database; --host
// without a port means 9000, and a port that is not svcdb's main one is said
// to be so. All through the built CLI (dist/bin/svcdb.js) in a child process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLI, makeRoot, startServer } from '../helpers/server-process.js';

const run = promisify(execFile);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function svcdb(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Ran> {
  try {
    const r = await run(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, ...env },
      timeout: 30_000,
      ...(cwd === undefined ? {} : { cwd }),
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

/** An error in words: one `svcdb:` line or more, no errno code, no stack, no JSON parser's message. */
function assertWords(r: Ran, re: RegExp): void {
  assert.equal(r.code, 1, `exit code 1; stderr: ${r.stderr}`);
  assert.match(r.stderr, re);
  assert.match(r.stderr, /^svcdb: /);
  assert.doesNotMatch(r.stderr, /\bE(NOENT|ISDIR|ACCES|PERM|ADDRINUSE|CONNREFUSED|NOTDIR|NOTFOUND)\b/);
  assert.doesNotMatch(r.stderr, /\n\s+at |SyntaxError|Unexpected token/);
}

test('every command answers --help and -h with its usage, options and examples, exit 0', async () => {
  for (const cmd of ['serve', 'query', 'import', 'export']) {
    for (const flag of ['--help', '-h']) {
      const r = await svcdb([cmd, flag]);
      assert.equal(r.code, 0, `${cmd} ${flag}: ${r.stderr}`);
      assert.equal(r.stderr, '');
      assert.match(r.stdout, new RegExp(`^Usage: svcdb ${cmd}`), `${cmd} ${flag}`);
      assert.match(r.stdout, /Options:/, `${cmd} ${flag}`);
      assert.match(r.stdout, /Examples:\n {2}svcdb /, `${cmd} ${flag}`);
    }
  }
  // After other arguments too, and as `svcdb help <command>`.
  assert.match((await svcdb(['import', 'x.csv', '--table', 't', '--help'])).stdout, /^Usage: svcdb import/);
  assert.match((await svcdb(['help', 'export'])).stdout, /^Usage: svcdb export/);
  const top = await svcdb(['--help']);
  assert.equal(top.code, 0);
  for (const cmd of ['serve', 'query', 'import', 'export']) assert.match(top.stdout, new RegExp(`svcdb ${cmd} `));
  assert.match(top.stdout, /svcdb <command> --help +The command's options and examples/);
  assert.equal((await svcdb(['-h'])).stdout, top.stdout);
});

test('an unknown option fails with a usage error pointing to the command --help', async () => {
  const root = makeRoot();
  for (const [cmd, ...args] of [
    ['import', 'x.csv', '--bogus', '-d', root],
    ['export', 'select 1', '--bogus', '-d', root],
    ['serve', '--bogus', '-d', root],
    ['query', 'select 1', '--bogus'],
  ] as const) {
    const r = await svcdb([cmd, ...args]);
    assertWords(r, new RegExp(`unknown option for ${cmd}: --bogus \\(see svcdb ${cmd} --help\\)`));
  }
});

test('import: a missing file, a folder, a bad --schema file are said in words, with what to do', async () => {
  const root = makeRoot();
  const dir = join(root, 'a-folder');
  mkdirSync(dir);
  const csv = join(root, 'x.csv');
  writeFileSync(csv, 'a,b\n1,2\n');
  assertWords(await svcdb(['import', join(root, 'nope.csv'), '-d', root]), /file not found: \S+nope\.csv\n$/);
  assertWords(await svcdb(['import', dir, '-d', root]), /a-folder is a directory, give a CSV file\n$/);
  assertWords(
    await svcdb(['import', csv, '--schema', join(root, 'nope.json'), '-d', root]),
    /file not found: \S+nope\.json/,
  );
  const bad = join(root, 'bad.json');
  writeFileSync(bad, '[{"name": "a", ');
  const r = await svcdb(['import', csv, '--schema', bad, '-d', root]);
  assertWords(r, /the --schema file \S+bad\.json is not valid JSON/);
  assert.doesNotMatch(r.stderr, /schema part/, 'not the HTTP wording');
  assertWords(await svcdb(['import', '-', '-d', root]), /reading standard input needs --table <name>/);
  // /imp's parameter names become the command's options.
  assertWords(
    await svcdb(['import', csv, '--partition-by', 'DAY', '-d', root, '--create']),
    /--partition-by needs --timestamp <column>/,
  );
  assertWords(
    await svcdb(['import', csv, '--timestamp', 'ts', '-d', root, '--create']),
    /the file has no column ts for --timestamp/,
  );
});

test('import -d: a folder that does not exist or holds no database is refused unless --create; the default folder is made', async () => {
  const base = makeRoot();
  const csv = join(base, 'x.csv');
  writeFileSync(csv, 'a,b\n1,2\n');
  const typo = join(base, 'tyop');
  assertWords(
    await svcdb(['import', csv, '-d', typo]),
    /there is no database folder \S+tyop: check -d, or add --create/,
  );
  assert.equal(existsSync(typo), false, 'nothing made');
  const notDb = join(base, 'photos');
  mkdirSync(notDb);
  writeFileSync(join(notDb, 'cat.jpg'), 'x');
  assertWords(await svcdb(['import', csv, '-d', notDb]), /photos holds no svcdb database .*--create/);
  assert.deepEqual(readdirSync(notDb), ['cat.jpg']);
  const made = await svcdb(['import', csv, '-d', typo, '--create']);
  assert.equal(made.code, 0, made.stderr);
  assert.ok(existsSync(join(typo, 'db')));
  // The default folder (./svcdb-data, as `svcdb serve` makes it) needs no --create.
  const cwd = join(base, 'fresh');
  mkdirSync(cwd);
  const dflt = await svcdb(['import', csv], {}, cwd);
  assert.equal(dflt.code, 0, dflt.stderr);
  assert.ok(existsSync(join(cwd, 'svcdb-data', 'db')));
});

test('export -d: a mistyped folder, or one without a database, is refused and nothing is made', async () => {
  const base = makeRoot();
  const typo = join(base, 'tyop');
  assertWords(await svcdb(['export', 'select 1', '-d', typo]), /there is no database folder \S+tyop: check -d/);
  assert.equal(existsSync(typo), false);
  const empty = join(base, 'empty');
  mkdirSync(empty);
  assertWords(await svcdb(['export', 'select 1', '-d', empty]), /empty holds no svcdb database/);
  assert.deepEqual(readdirSync(empty), []);
  // Writing the result where it cannot go.
  const root = join(base, 'db1');
  writeFileSync(join(base, 'x.csv'), 'a,b\n1,2\n');
  assert.equal((await svcdb(['import', join(base, 'x.csv'), '-d', root, '--create'])).code, 0);
  assertWords(
    await svcdb(['export', 'select * from x', '-d', root, '-o', join(base, 'no', 'such', 'out.csv')]),
    /cannot write \S+out\.csv: the folder \S+such does not exist/,
  );
  assertWords(
    await svcdb(['export', 'select * from x', '-d', root, '-o', base]),
    /cannot write \S+: it is a directory, give a file name/,
  );
});

test('serve: a port in use names the port and the setting that moves it; a root that is a file is said so', async () => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
  const port = (blocker.address() as { port: number }).port;
  try {
    const main = await svcdb(['serve', '-d', makeRoot()], {
      SVC_HTTP_NET_BIND_TO: `127.0.0.1:${port}`,
      SVC_HTTP_MIN_NET_BIND_TO: '127.0.0.1:0',
    });
    assertWords(
      main,
      new RegExp(
        `port ${port} is already in use .*stop the other server, or set http\\.net\\.bind\\.to .*SVC_HTTP_NET_BIND_TO`,
      ),
    );
    const health = await svcdb(['serve', '-d', makeRoot()], {
      SVC_HTTP_NET_BIND_TO: '127.0.0.1:0',
      SVC_HTTP_MIN_NET_BIND_TO: `127.0.0.1:${port}`,
    });
    assertWords(health, new RegExp(`port ${port} is already in use .*SVC_HTTP_MIN_NET_BIND_TO`));
  } finally {
    blocker.close();
  }
  const file = join(makeRoot(), 'file');
  writeFileSync(file, '');
  assertWords(
    await svcdb(['serve', '-d', file]),
    /cannot create the root folder \S+file: a part of the path is a file/,
  );
});

test('query --host: no port means 9000, host:port works, a port that is not the main one is said to be so', async () => {
  // Nothing listens on a port just freed: the message names it, in words.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const free = (probe.address() as { port: number }).port;
  await new Promise<void>((r) => probe.close(() => r()));
  assertWords(
    await svcdb(['query', 'select 1', '--host', `127.0.0.1:${free}`]),
    new RegExp(`cannot reach http://127\\.0\\.0\\.1:${free}: nothing is listening there`),
  );
  // `localhost` alone is port 9000 (not HTTP's 80), whether or not a server runs there.
  const local = await svcdb(['query', 'select 1', '--host', 'localhost']);
  assert.doesNotMatch(local.stderr, /localhost(?!:9000)|:80\b/);
  if (local.code !== 0) assert.match(local.stderr, /localhost:9000/);

  const s = await startServer();
  try {
    const mainPort = new URL(s.mainUrl).port;
    const ok = await svcdb(['query', 'select 1 x', '--host', `127.0.0.1:${mainPort}`, '--format', 'csv']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.equal(ok.stdout, '"x"\n1\n');
    const healthPort = new URL(s.healthUrl).port;
    for (const format of ['table', 'csv', 'json']) {
      const r = await svcdb(['query', 'select 1', '--host', `127.0.0.1:${healthPort}`, '--format', format]);
      assertWords(r, /did not answer as svcdb's \/e(xec|xp).*main port \(9000/);
      assert.equal(r.stdout, '', 'the health page is not printed as a result');
    }
  } finally {
    await s.stop();
  }
});

test('query on a server with authentication: missing or refused credentials say how to give them', async () => {
  const s = await startServer({ env: { SVC_HTTP_USER: 'u', SVC_HTTP_PASSWORD: 'p' } });
  try {
    const host = s.mainUrl.replace(/^http:\/\//, '');
    assertWords(
      await svcdb(['query', 'select 1', '--host', host]),
      /needs credentials: --user <user:password> or SVCDB_AUTH=<user:password>/,
    );
    assertWords(await svcdb(['query', 'select 1', '--host', host, '--user', 'u:wrong']), /these were refused/);
    const ok = await svcdb(['query', 'select 1 x', '--host', host, '--format', 'csv'], { SVCDB_AUTH: 'u:p' });
    assert.equal(ok.stdout, '"x"\n1\n');
  } finally {
    await s.stop();
  }
});
