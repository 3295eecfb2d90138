// svcdb's functions against QuestDB's own list of its functions (the npm
// package @questdb/sql-parser): every name of the list is built, or listed in
// the README's "QuestDB's function list" as won't do (with a reason), Enterprise
// or not built yet, and nothing listed there is built. Prints the coverage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as questdbParser from '@questdb/sql-parser';
import { REGISTRY } from './helpers.js';
import { functionNames, TABLE_FUNCTIONS } from '../../lib/sql/function-names.js';
import { ENGINE, tempCatalog } from '../helpers/engine.js';
import { compile } from '../../lib/exec/engine.js';
import { fromValues } from '../../lib/exec/vectors.js';
import { PARQUET_DEFAULTS } from '../../lib/export/parquet/options.js';
import { parquetBody, planParquet } from '../../lib/export/parquet/parquet-writer.js';

// The package's typings re-export without file extensions, which this project's module resolution does not follow.
const QUESTDB_FUNCTIONS = (questdbParser as unknown as { functions: readonly string[] }).functions;

const README = fileURLToPath(new URL('../../../README.md', import.meta.url));

/** The README section's three lists of names (in backquotes), by their bold labels. */
function readmeLists(): { wontDo: string[]; enterprise: string[]; notYet: string[] } {
  const text = readFileSync(README, 'utf8');
  const start = text.indexOf("### QuestDB's function list");
  assert.ok(start >= 0, "the README has a section ### QuestDB's function list");
  const end = text.slice(start + 4).search(/\n##/);
  const section = text.slice(start, end < 0 ? undefined : start + 4 + end);
  const part = (label: string, next: string | null): string[] => {
    const from = section.indexOf(`**${label}**`);
    assert.ok(from >= 0, `the section has **${label}**`);
    const to = next === null ? section.length : section.indexOf(`**${next}**`);
    const body = section.slice(from, to);
    // Won't do is a table: only its first column names functions.
    const cells = label === "Won't do" ? body.split('\n').map((l) => /^\| `([^`]+)`/.exec(l)?.[1] ?? '') : null;
    return cells !== null ? cells.filter((c) => c !== '') : [...body.matchAll(/`([a-z0-9_.]+)`/g)].map((m) => m[1]!);
  };
  return {
    wontDo: part("Won't do", 'Enterprise'),
    enterprise: part('Enterprise', 'Not built yet'),
    notYet: part('Not built yet', null),
  };
}

test("every function of QuestDB's list is built or listed in the README, and none listed is built", () => {
  const list = [...new Set(QUESTDB_FUNCTIONS.map((f) => f.toLowerCase()))].sort();
  assert.ok(list.length >= 300, `QuestDB's list has ${list.length} names`);
  const have = new Set(functionNames(REGISTRY));
  const { wontDo, enterprise, notYet } = readmeLists();
  const listed = new Map<string, string>();
  for (const [names, where] of [
    [wontDo, "won't do"],
    [enterprise, 'Enterprise'],
    [notYet, 'not built yet'],
  ] as const)
    for (const n of names) {
      assert.ok(!listed.has(n), `${n} is listed twice (${listed.get(n)}, ${where})`);
      listed.set(n, where);
    }
  const built = list.filter((n) => have.has(n));
  const missing = list.filter((n) => !have.has(n) && !listed.has(n));
  assert.deepEqual(missing, [], "functions of QuestDB's list neither built nor listed in the README");
  const stale = [...listed].filter(([n]) => have.has(n)).map(([n, where]) => `${n} (${where})`);
  assert.deepEqual(stale, [], 'functions built but still listed in the README');
  const unknown = [...listed.keys()].filter((n) => !list.includes(n));
  assert.deepEqual(unknown, [], "names listed in the README that are not in QuestDB's list");
  const counted = list.length - enterprise.length;
  console.log(
    `QuestDB's function list: ${built.length} of ${list.length} built (${((100 * built.length) / list.length).toFixed(1)}%); ` +
      `without the ${enterprise.length} Enterprise ones, ${built.length} of ${counted} (${((100 * built.length) / counted).toFixed(1)}%); ` +
      `${wontDo.length} won't do, ${notYet.length} not built yet`,
  );
  const claimed = /At this commit svcdb has (\d+) of the list's (\d+) names/.exec(readFileSync(README, 'utf8'));
  assert.ok(claimed !== null, 'the README states the coverage');
  assert.deepEqual(
    [Number(claimed[1]), Number(claimed[2])],
    [built.length, list.length],
    'the README states the coverage as it is',
  );
});

test('each table function named in function-names.ts is one FROM binds', async () => {
  const { catalog, root } = tempCatalog('svcdb-fnames-');
  const args: Record<string, string> = {
    long_sequence: '3',
    table_columns: "'t'",
    table_partitions: "'t'",
    generate_series: '1, 3',
    wal_transactions: "'w'",
    files: "'.'",
    glob: "'*.csv'",
    read_parquet: "'x.parquet'",
    parquet_scan: "'x.parquet'",
  };
  for (const ddl of ['CREATE TABLE t (x INT)', 'CREATE TABLE w (ts TIMESTAMP) TIMESTAMP(ts) PARTITION BY DAY WAL']) {
    const create = compile(ddl, { catalog, ...ENGINE });
    assert.ok(create.kind === 'ddl');
    await create.execute(new AbortController().signal);
  }
  // A Parquet file for read_parquet, in a copy root of its own; the file functions list inside
  // the copy roots (none are set by default).
  const copyRoot = join(root, 'import');
  mkdirSync(copyRoot);
  const parts: Buffer[] = [];
  const rows = (async function* () {
    yield { rowCount: 1, columns: [fromValues('LONG', [1])] };
  })();
  const plan = planParquet([{ name: 'x', type: 'LONG' }], -1, null, PARQUET_DEFAULTS);
  for await (const c of parquetBody(plan, rows, null, { sent: 0, matched: 0 })) parts.push(c);
  writeFileSync(join(copyRoot, 'x.parquet'), Buffer.concat(parts));
  const copyRoots = { input: copyRoot, export: root };
  for (const name of TABLE_FUNCTIONS) {
    const stmt = compile(`SELECT * FROM ${name}(${args[name] ?? ''})`, { catalog, ...ENGINE, copyRoots, copyRoot });
    assert.equal(stmt.kind, 'select', name);
  }
  assert.throws(() => compile('SELECT * FROM no_such_fn()', { catalog, ...ENGINE }));
});
