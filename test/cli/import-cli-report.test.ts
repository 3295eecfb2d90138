// `svcdb import`'s report as a user acts on it (issue 20): the first rejected
// lines and the values stored as NULL with line, column, value and reason;
// --rejects writing every one (the same on one thread and on the worker pool's
// segments); no row imported is exit 1 and leaves no table; the progress line
// on a terminal (a pseudo-terminal made by util-linux `script`) as wide as the
// terminal, with human byte counts, and for standard input what was read so far.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CLI, makeRoot } from '../helpers/server-process.js';

const run = promisify(execFile);

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

async function svcdb(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  try {
    const r = await run(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, ...env },
      timeout: 60_000,
      maxBuffer: 64 << 20,
    });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

async function tables(root: string): Promise<string[]> {
  const r = await svcdb(['export', 'select table_name from tables() order by 1', '-d', root, '--no-header']);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => l.replace(/^"|"$/g, ''));
}

test('names the first rejected lines and values stored as NULL: line, column, value, reason', async () => {
  const [dir, root] = [makeRoot(), makeRoot()];
  const csv = join(dir, 'readings.csv');
  writeFileSync(
    csv,
    [
      'id,ts,temp',
      '1,2024-01-01T00:00:00.000000Z,20.5',
      '2,2024-01-01T01:00:00.000000Z,warm',
      '3,yesterday,21.5',
      '4,2024-01-01T03:00:00.000000Z,22.5,extra',
      '5,,23.5',
      '6,2024-01-01T05:00:00.000000Z,24.5',
      '',
    ].join('\n'),
  );
  const schema = join(dir, 'schema.json');
  writeFileSync(schema, '[{"name": "ts", "type": "TIMESTAMP"}, {"name": "temp", "type": "DOUBLE"}]');
  const r = await svcdb([
    'import',
    csv,
    '-d',
    root,
    '--timestamp',
    'ts',
    '--partition-by',
    'DAY',
    '--schema',
    schema,
    '--delimiter',
    ',',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /\| {2}Rows imported {2}\|\s+3 {2}\|/);
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines[0], 'svcdb: 3 rows rejected, 1 value that did not convert stored as NULL in readings');
  assert.deepEqual(lines.slice(2, 6), [
    '    line 3, column temp, value "warm": not a DOUBLE; stored as NULL',
    '    line 4, column ts, value "yesterday": not a TIMESTAMP (the designated timestamp); row rejected',
    '    line 5: the line has 4 values, more than the 3 columns; row rejected (--skip-lev keeps such rows without their extra values)',
    '    line 6, column ts, value "": the designated timestamp is empty; row rejected',
  ]);
  assert.equal(lines[1], '  the first 4:');
  assert.equal(lines.length, 6, 'all of them shown: no pointer to --rejects');
});

/** A CSV of `rows` rows, every 97th with a bad temperature, every 89th with a bad timestamp, some quoted. */
function sensorCsv(rows: number): { text: string; nulls: number[]; rejected: number[] } {
  const out = ['id,ts,temp,note'];
  const nulls: number[] = [];
  const rejected: number[] = [];
  for (let i = 1; i <= rows; i++) {
    const line = i + 1;
    const badTemp = i % 97 === 0;
    const badTs = i % 89 === 0;
    const ts = badTs ? `2024-13-${i}` : new Date(Date.UTC(2024, 0, 1) + i * 1000).toISOString();
    const note = i % 3 === 0 ? `"a, ""quoted"" note ${i}"` : `n${i}`;
    out.push(`${i},${ts},${badTemp ? `t${i}` : (i / 10).toFixed(1)},${note}`);
    if (badTs) rejected.push(line);
    else if (badTemp) nulls.push(line);
  }
  return { text: `${out.join('\n')}\n`, nulls, rejected };
}

test('--rejects writes every rejected line and NULLed value with its line and text, the same on the worker pool', async () => {
  const [dir, root] = [makeRoot(), makeRoot()];
  const { text, nulls, rejected } = sensorCsv(5000);
  const csv = join(dir, 'sensors.csv');
  writeFileSync(csv, text);
  const schema = join(dir, 'schema.json');
  writeFileSync(schema, '[{"name": "temp", "type": "DOUBLE"}, {"name": "ts", "type": "TIMESTAMP"}]');
  const source = text.split('\n');
  const results: string[] = [];
  for (const [table, env] of [
    ['one_thread', { SVC_SHARED_WORKER_COUNT: '1' }],
    // Segments of 4 KiB parsed by pool threads: their lines are counted from the file's start.
    ['pool', { SVC_SHARED_WORKER_COUNT: '3', SVC_IMPORT_SEGMENT_SIZE: '4k' }],
  ] as const) {
    const rejects = join(dir, `${table}-rejects.csv`);
    const r = await svcdb(
      [
        'import',
        csv,
        '--table',
        table,
        '--timestamp',
        'ts',
        '--partition-by',
        'DAY',
        '--schema',
        schema,
        '--rejects',
        rejects,
        '-d',
        root,
        '--format',
        'json',
      ],
      env,
    );
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout) as { rowsImported: number; rowsRejected: number };
    assert.equal(report.rowsRejected, rejected.length);
    assert.equal(report.rowsImported, 5000 - rejected.length);
    assert.match(r.stderr, new RegExp(`${rejected.length} rows rejected, ${nulls.length} values .* stored as NULL`));
    assert.match(r.stderr, new RegExp(`every one is in ${rejects.replace(/[.*]/g, '\\$&')}`));
    const written = readFileSync(rejects, 'utf8');
    results.push(written);
    const rows = written.trimEnd().split('\n');
    assert.equal(rows[0], 'line,column,value,reason,action,raw_line');
    assert.equal(rows.length - 1, nulls.length + rejected.length);
    const byLine = new Map<number, string>();
    for (const row of rows.slice(1)) byLine.set(Number(row.slice(0, row.indexOf(','))), row);
    assert.deepEqual(
      [...byLine.keys()],
      [...nulls, ...rejected].sort((a, b) => a - b),
    );
    for (const line of rejected) {
      const i = line - 1;
      const raw = source[line - 1]!;
      assert.equal(
        byLine.get(line),
        `${line},ts,2024-13-${i},not a TIMESTAMP (the designated timestamp),rejected,"${raw.replace(/"/g, '""')}"`,
      );
    }
    const n = nulls[0]!;
    assert.match(byLine.get(n)!, new RegExp(`^${n},temp,t${n - 1},not a DOUBLE,null,`));
  }
  assert.equal(results[0], results[1], 'the same on one thread and on the pool');
});

test('no row imported: exit 1, the first rejected lines, what to do, and no table left behind', async () => {
  const [dir, root] = [makeRoot(), makeRoot()];
  const csv = join(dir, 'trades.csv');
  writeFileSync(csv, 'ts,price\n2024-01-01T10:00:00.000000Z,1.5\n2024-01-01T11:00:00.000000Z,2.5\n');
  const schema = join(dir, 'wrong.json');
  // A wrong pattern: every timestamp is rejected.
  writeFileSync(schema, '[{"name": "ts", "type": "TIMESTAMP", "pattern": "dd/MM/yyyy HH:mm"}]');
  const r = await svcdb(['import', csv, '--timestamp', 'ts', '--schema', schema, '-d', root]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /^svcdb: nothing was imported: all 2 rows were rejected; no table trades was made\n/);
  assert.match(
    r.stderr,
    /line 2, column ts, value "2024-01-01T10:00:00\.000000Z": not a TIMESTAMP in the pattern dd\/MM\/yyyy HH:mm \(the designated timestamp\); row rejected/,
  );
  assert.match(r.stderr, /check the pattern of ts in \S+wrong\.json/);
  assert.deepEqual(await tables(root), []);

  // Into an existing table: it stays as it was, and the command still fails.
  const ok = await svcdb(['import', csv, '--timestamp', 'ts', '-d', root]);
  assert.equal(ok.code, 0, ok.stderr);
  const again = await svcdb(['import', csv, '--timestamp', 'ts', '--schema', schema, '-d', root]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /nothing was imported: all 2 rows were rejected; table trades is unchanged/);
  const count = await svcdb(['export', 'select count() from trades', '-d', root, '--no-header']);
  assert.equal(count.stdout, '2\n');

  // Standard input, every row with a bad value and atomicity skipRow.
  const intSchema = join(dir, 'int.json');
  writeFileSync(intSchema, '[{"name": "b", "type": "INT"}]');
  const piped = run(
    process.execPath,
    [CLI, 'import', '-', '--table', 'p', '--atomicity', 'skipRow', '--schema', intSchema, '-d', root],
    { env: { PATH: process.env.PATH } },
  );
  piped.child.stdin!.end('a,b\n1,x\n2,y\n');
  const failed = await piped.then(
    () => null,
    (e: unknown) => e as Ran,
  );
  assert.equal(failed?.code, 1);
  assert.match(failed.stderr, /nothing was imported: all 2 rows were rejected; no table p was made/);
  assert.match(failed.stderr, /line 3, column b, value "y": not an INT; row rejected/);
  assert.match(failed.stderr, /--atomicity skipCol/);
  assert.deepEqual(await tables(root), ['trades']);
});

/**
 * Runs `command` (a shell command line) in a pseudo-terminal `columns` wide
 * (util-linux `script`); returns what the terminal received.
 */
async function inTerminal(command: string, columns: number): Promise<string> {
  const r = await run('script', ['-qefc', `stty cols ${columns} rows 40; ${command}`, '/dev/null'], {
    env: { PATH: process.env.PATH, TERM: 'xterm' },
    timeout: 60_000,
    maxBuffer: 64 << 20,
  });
  return r.stdout;
}

/** A terminal's escape sequence (ESC [ ... letter, or ESC and one character). */
const ESCAPE = new RegExp(`${String.fromCharCode(27)}(\\[[0-9;?]*[A-Za-z]|.)`, 'g');

/** The progress lines drawn (each redraw, escape sequences removed). */
function progressLines(screen: string): string[] {
  return screen
    .split(/[\r\n]/)
    .map((l) => l.replace(ESCAPE, ''))
    .filter((l) => l.startsWith('importing'));
}

test('the progress line uses the terminal width, human byte counts, and for standard input what was read', async () => {
  const [dir, root] = [makeRoot(), makeRoot()];
  const { text } = sensorCsv(20_000);
  const csv = join(dir, 'wide.csv');
  writeFileSync(csv, text);
  const q = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
  const cmd = (args: string): string => `${q(process.execPath)} ${q(CLI)} import ${args} -d ${q(root)} >/dev/null`;

  const wide = progressLines(await inTerminal(cmd(`${q(csv)} --table w1`), 160));
  assert.ok(wide.length > 0, 'a progress line was drawn');
  for (const l of wide) {
    assert.ok(l.length <= 159, `within 160 columns: ${l}`);
    assert.match(l, /\[[= ]+\] +\d+%/);
    assert.match(l, /[\d,]+ rows .*\d+(\.\d)? (B|KB|MB) of \d+\.\d (KB|MB) .*rows\/s .*(B|KB|MB)\/s/);
  }
  assert.ok(
    wide.some((l) => l.length > 80),
    'not cut at 80 columns',
  );

  const narrow = progressLines(await inTerminal(cmd(`${q(csv)} --table w2`), 50));
  assert.ok(narrow.length > 0);
  for (const l of narrow) assert.ok(l.length <= 49, `within 50 columns: ${l}`);

  const stdin = progressLines(await inTerminal(`cat ${q(csv)} | ${cmd('- --table w3')}`, 160));
  assert.ok(stdin.length > 0);
  for (const l of stdin) {
    assert.match(l, /^importing standard input {2}[\d,]+ rows {2}\d+(\.\d)? (B|KB|MB) read {2}/);
    assert.doesNotMatch(l, /bytes|\[/, 'no raw byte count, no bar against an unknown total');
  }

  // Not a terminal: no progress drawn at all.
  const piped = await svcdb(['import', csv, '--table', 'w4', '-d', root]);
  assert.equal(piped.code, 0, piped.stderr);
  assert.doesNotMatch(piped.stderr, /importing/);
});
