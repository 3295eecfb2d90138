// `svcdb shell` as a user runs it: the built CLI as a child process, scripts
// piped to it or given with -f, on a database folder (-d) and on a real server
// (--host) with the same output; every output mode; \d; exact values (LONG
// past 2^53, DOUBLE 80.0, the text 'null' apart from NULL); a million-row
// result cut to its first and last rows; errors with a caret, the script going
// on and ending with code 1; the refusals (a folder a server holds, a folder
// that is not there); and the interactive shell on a pseudo-terminal.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, makeRoot, startServer, type ServerProcess } from '../helpers/server-process.js';

interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `svcdb ...args` with `input` on standard input (then closed). */
function svcdb(args: readonly string[], input = '', env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, SVCDB_HISTORY: '/dev/null', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

// Statements over several lines, `;` inside a string, a line comment and a block comment.
const SCRIPT = `create table readings (ts timestamp, sensor symbol, temp double, big long, note string)
  timestamp(ts) partition by DAY;
insert into readings values
  ('2024-01-01T00:00:00Z', 'a', 80.0, 9007199254740993, 'null'), -- a comment; with a semicolon
  ('2024-01-02T00:00:00Z', 'b;c', null, null, null);
/* a block; comment */ select sensor, temp, big, note from readings order by ts;
\\mode csv
select sensor, temp, big, note from readings order by ts;
\\mode json
select sensor, temp, big, note from readings order by ts;
\\mode line
select sensor, temp, big, note from readings order by ts;
\\mode table
\\d
\\d readings
`;

const TABLE =
  'sensor | temp |              big | note\n' +
  '-------+------+------------------+-----\n' +
  'a      | 80.0 | 9007199254740993 | null\n' +
  'b;c    | NULL |             NULL | NULL\n' +
  '(2 rows)\n';
const CSV = '"sensor","temp","big","note"\n"a",80.0,9007199254740993,"null"\n"b;c",,,\n';
const JSON_ROWS = '"dataset":[["a",80.0,9007199254740993,"null"],["b;c",null,null,null]],"count":2}';
const LINES =
  'sensor = a\n  temp = 80.0\n   big = 9007199254740993\n  note = null\n\n' +
  'sensor = b;c\n  temp = NULL\n   big = NULL\n  note = NULL\n';

/** The script's expected output, piece by piece. */
function checkScriptOutput(r: Ran): void {
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr, '');
  const out = r.stdout;
  assert.ok(out.startsWith(`OK\nOK\n${TABLE}${CSV}{"query":`), out);
  assert.ok(out.includes(JSON_ROWS), out);
  assert.ok(out.includes(`${JSON_ROWS}\n${LINES}`), out);
  assert.match(out, /name +\| kind +\| row_count \| partition_by \| designated_timestamp \| wal\n/);
  assert.match(out, /readings \| table \| +2 \| DAY +\| ts +\| true\n/);
  assert.ok(
    out.endsWith(
      'column | type      | indexed | designated\n' +
        '-------+-----------+---------+-----------\n' +
        'ts     | TIMESTAMP | false   | true\n' +
        'sensor | SYMBOL    | false   | false\n' +
        'temp   | DOUBLE    | false   | false\n' +
        'big    | LONG      | false   | false\n' +
        'note   | STRING    | false   | false\n' +
        '(5 rows)\n',
    ),
    out,
  );
}

/** The table of `select x from long_sequence(1000000)`: the first 20 rows, a gap, the last 20, the footer. */
function checkMillion(r: Ran): void {
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n');
  assert.equal(lines.length, 45, r.stdout.slice(0, 2000));
  assert.equal(lines[0], '      x');
  assert.equal(lines[2], '      1');
  assert.equal(lines[21], '     20');
  assert.equal(lines[22], '      …');
  assert.equal(lines[23], ' 999981');
  assert.equal(lines[42], '1000000');
  assert.equal(lines[43], '1000000 rows (40 shown)');
}

const ERRORS = 'select 1 a;\nselect nope\n  from long_sequence(2);\nselect x\nfrom nosuch;\nselect 2 b;\n';

function checkErrors(r: Ran, name: string): void {
  assert.equal(r.code, 1, 'a script with errors ends with code 1');
  assert.equal(r.stdout, 'a\n-\n1\n(1 row)\nb\n-\n2\n(1 row)\n', 'the statements after an error still run');
  assert.equal(
    r.stderr,
    `select nope\n       ^\nsvcdb: Invalid column: nope [${name}:2, position=7]\n` +
      `from nosuch\n     ^\nsvcdb: table does not exist [table=nosuch] [${name}:5, position=14]\n`,
  );
}

describe('on a database folder (-d)', () => {
  let root: string;
  before(async () => {
    root = makeRoot();
    const made = await svcdb(['shell', '-d', root, '--create', '-c', 'select 1']);
    assert.equal(made.code, 0, made.stderr);
  });

  test('runs a piped script: statements over lines, ; in strings and comments, every mode, \\d', async () => {
    const r = await svcdb(['shell', '-d', root], SCRIPT);
    checkScriptOutput(r);
    // What the script made is in the folder afterwards.
    const again = await svcdb(['shell', '-d', root, '-c', 'select count() n from readings']);
    assert.equal(again.stdout, 'n\n-\n2\n(1 row)\n');
    // \dt lists tables only; \d views too.
    const views = await svcdb(
      ['shell', '-d', root],
      'create view hot as (select * from readings where temp > 50);\n\\dt\n\\d\n',
    );
    assert.equal(views.code, 0, views.stderr);
    const [, dt, d] = views.stdout.split(/^name +\|/m);
    assert.doesNotMatch(dt!, /^hot /m);
    assert.match(d!, /^hot +\| view +\| +NULL \|/m);
    assert.match(d!, /^readings +\| table +\| +2 \|/m);
  });

  test('cuts a million-row table to its first and last rows, with the count', async () => {
    checkMillion(await svcdb(['shell', '-d', root], 'select x from long_sequence(1000000);\n'));
  });

  test('shows a bad statement with a caret, goes on, and ends with code 1; --bail stops', async () => {
    checkErrors(await svcdb(['shell', '-d', root], ERRORS), 'stdin');
    const commands = await svcdb(['shell', '-d', root], '\\d nosuch\n\\frob\n\\mode xml\nselect 1 one;\n');
    assert.equal(commands.code, 1);
    assert.equal(commands.stdout, 'one\n---\n  1\n(1 row)\n');
    assert.equal(
      commands.stderr,
      'svcdb: \\d nosuch: table does not exist [table=nosuch\n' +
        'svcdb: unknown command \\frob (\\? lists the commands)\n' +
        'svcdb: \\mode takes table, csv, json, line [got xml]\n',
    );
    const bail = await svcdb(['shell', '-d', root, '--bail'], ERRORS);
    assert.equal(bail.code, 1);
    assert.equal(bail.stdout, 'a\n-\n1\n(1 row)\n');
  });

  test('runs a file given with -f, naming its lines in errors', async () => {
    const file = join(makeRoot(), 'script.sql');
    writeFileSync(file, ERRORS);
    checkErrors(await svcdb(['shell', '-d', root, '-f', file]), file);
    const missing = await svcdb(['shell', '-d', root, '-f', join(root, 'nope.sql')]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /^svcdb: there is no file .*nope\.sql\n$/);
  });

  test('`svcdb query` takes the folder too, and SQL on standard input; one SQL text prints every row', async () => {
    const all = await svcdb(['query', '-d', root, 'select x from long_sequence(100)']);
    assert.equal(all.code, 0, all.stderr);
    assert.equal(all.stdout.split('\n').length, 104);
    assert.ok(all.stdout.endsWith('\n100\n(100 rows)\n'));
    const piped = await svcdb(['query', '-d', root, '--format', 'csv'], "select 'null' s, null n;");
    assert.equal(piped.stdout, '"s","n"\n"null",\n');
  });

  test('cuts wide rows to the width and names the hidden columns', async () => {
    const r = await svcdb(
      ['shell', '-d', root, '-c', "select 'aaaaaaaaaa' first_col, 'bbbbbbbbbb' second_col, 3 third, 4 fourth"],
      '',
      { COLUMNS: '30' },
    );
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    for (const l of lines.slice(0, 4)) assert.ok(l.length <= 30, l);
    assert.equal(lines[0], 'first_col  | second_col | …');
    assert.equal(lines[4], '4 columns (2 shown); hidden: third, fourth');
  });

  test('refuses a folder that holds no database unless --create, and creates nothing', async () => {
    const missing = join(makeRoot(), 'typo');
    const r = await svcdb(['shell', '-d', missing, '-c', 'select 1']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^svcdb: there is no database folder .*typo; check the path, or add --create/);
    assert.equal(existsSync(missing), false, 'no folder was made');
    const empty = join(makeRoot(), 'empty');
    mkdirSync(empty);
    const notDb = await svcdb(['shell', '-d', empty, '-c', 'select 1']);
    assert.equal(notDb.code, 1);
    assert.match(notDb.stderr, /holds no svcdb database/);
    const made = await svcdb(['shell', '-d', missing, '--create', '-c', 'select 1 one']);
    assert.equal(made.code, 0, made.stderr);
    assert.ok(existsSync(join(missing, 'db')));
  });
});

describe('on a running server (--host)', () => {
  let s: ServerProcess;
  before(async () => {
    s = await startServer();
  });
  after(async () => {
    await s.stop();
  });

  test('prints the same as on a folder: every mode, \\d, exact values', async () => {
    checkScriptOutput(await svcdb(['shell', '--host', s.mainUrl], SCRIPT));
  });

  test('cuts a million-row table to its first and last rows, with the count', async () => {
    checkMillion(await svcdb(['shell', '--host', s.mainUrl], 'select x from long_sequence(1000000);\n'));
  });

  test('shows a bad statement with a caret, goes on, and ends with code 1', async () => {
    checkErrors(await svcdb(['shell', '--host', s.mainUrl.replace('http://', '')], ERRORS), 'stdin');
  });

  test('\\timing prints the server’s compile and execute times', async () => {
    const r = await svcdb(['shell', '--host', s.mainUrl], '\\timing on\nselect 1 a;\n');
    assert.equal(r.code, 0, r.stderr);
    assert.match(
      r.stdout,
      /^Timing is on\.\na\n-\n1\n\(1 row\)\nTime: [\d.]+ ms \(server: compile [\d.]+ ms, execute [\d.]+ ms\)\n$/,
    );
  });

  test('refuses the folder the server holds, saying what to do', async () => {
    const r = await svcdb(['shell', '-d', s.root, '-c', 'select 1']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^svcdb: the database .* is in use by process \d+ \(a running svcdb server/);
    assert.match(r.stderr, /svcdb shell --host/);
    assert.doesNotMatch(r.stderr, /\n {4}at /, 'no stack');
  });

  test('says the health port is not the REST API, without a stack', async () => {
    const r = await svcdb(['shell', '--host', s.healthUrl, '-c', 'select 1']);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^svcdb: .*did not answer as svcdb's \/exec .*main port \(9000 by default/);
    assert.doesNotMatch(r.stderr, /SyntaxError|\n {4}at /);
  });
});

test('a server that is not there is said in words', async () => {
  const r = await svcdb(['shell', '--host', '127.0.0.1:9', '-c', 'select 1']);
  assert.equal(r.code, 1);
  assert.equal(
    r.stderr,
    'svcdb: cannot reach http://127.0.0.1:9: nothing is listening there (is `svcdb serve` running, and on that port?)\n',
  );
});

test('usage mistakes are refused with what to do', async () => {
  const both = await svcdb(['shell', '--host', 'h', '-d', 'x']);
  assert.equal(both.code, 1);
  assert.match(both.stderr, /--host and -d exclude each other/);
  const mode = await svcdb(['shell', '--mode', 'xml']);
  assert.equal(mode.stderr, 'svcdb: --mode must be one of table, csv, json, line [got xml]\n');
  const help = await svcdb(['shell', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /^Usage: svcdb shell/);
});

// The interactive shell needs a terminal: util-linux's `script` gives it one.
const hasScript = spawnSync('script', ['--version']).status === 0;

test(
  'on a terminal: multi-line statements, a prompt, and history kept across sessions',
  { skip: !hasScript },
  async () => {
    const root = makeRoot();
    await svcdb(['shell', '-d', root, '--create', '-c', 'select 1']);
    const history = join(makeRoot(), 'history');
    const term = (input: string): Promise<Ran> =>
      new Promise((resolve, reject) => {
        const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} shell -d ${JSON.stringify(root)}`;
        const child = spawn('script', ['-qec', cmd, '/dev/null'], {
          env: { PATH: process.env.PATH, HOME: process.env.HOME, SVCDB_HISTORY: history, TERM: 'xterm' },
          stdio: ['pipe', 'pipe', 'pipe'],
        });
        let stdout = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
        child.once('error', reject);
        child.once('close', (code) => resolve({ code, stdout, stderr: '' }));
        child.stdin.end(input);
      });
    const first = await term('select 40 + 2\n  answer;\n\\q\n');
    assert.equal(first.code, 0, first.stdout);
    assert.match(first.stdout, /svcdb> /);
    assert.match(first.stdout, / {3}\.\.\.> /, 'the continuation prompt');
    assert.match(first.stdout, /answer\r?\n------\r?\n {4}42\r?\n\(1 row\)/);
    assert.deepEqual(readFileSync(history, 'utf8').split('\n'), ['select 40 + 2', '  answer;', '\\q', '']);
    // Up arrow three times: the first line of the earlier session; then its second line.
    const second = await term('\u001b[A\u001b[A\u001b[A\n\u001b[A\u001b[A\u001b[A\n\\q\n');
    assert.match(second.stdout, /answer\r?\n------\r?\n {4}42\r?\n/, second.stdout);
  },
);
