// Parses every statement of QuestDB's documentation corpus (../shared/corpus/docs-queries.json)
// and prints a coverage report; fails when a statement of a kind the parser covers fails.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseStatement } from '../../lib/sql/parser.js';
import { SvcError } from '../../lib/errors/svc-error.js';

/** The corpus lives in shared/ beside the clone: `<clone>/../shared/corpus`. */
function findCorpus(): string | null {
  const here = fileURLToPath(new URL('.', import.meta.url)); // <clone>/dist/test/sql/
  const candidates = [
    resolve(process.cwd(), '../shared/corpus/docs-queries.json'),
    resolve(here, '../../../../shared/corpus/docs-queries.json'),
  ];
  return candidates.find((p) => existsSync(p)) ?? null;
}

/**
 * Corpus entries that are prose or fragments rather than statements, by index, with the reason.
 * Keep this explicit and small; it is empty today (every entry is a statement).
 */
const NOT_A_STATEMENT: ReadonlyMap<number, string> = new Map<number, string>([]);

/** Leading keywords of the statements this parser covers (anything else may be Unsupported). */
const COVERED = new Set([
  'SELECT',
  'WITH',
  'CREATE TABLE',
  'DROP',
  'TRUNCATE',
  'RENAME',
  'ALTER TABLE',
  'INSERT',
  'UPDATE',
  'SHOW',
  'EXPLAIN',
  'DECLARE',
  'CREATE VIEW',
  'ALTER VIEW',
  'DROP VIEW',
  'COMPILE VIEW',
  'CREATE MATERIALIZED',
  'ALTER MATERIALIZED',
  'DROP MATERIALIZED',
  'REFRESH',
]);

/** The statement's leading keyword(s) after comments, for grouping; implicit selects read as SELECT. */
function leadingKeyword(sql: string): string {
  const text = sql.replace(/^(\s|--[^\n]*(\n|$)|\/\*[\s\S]*?\*\/)*/, '');
  const m = /^([A-Za-z_]+)(\s+([A-Za-z_]+))?/.exec(text);
  if (m === null) return text.startsWith('(') ? 'SELECT' : '?';
  const first = (m[1] as string).toUpperCase();
  const second = (m[3] ?? '').toUpperCase();
  if (first === 'CREATE') {
    if (second === 'OR' && /^CREATE\s+OR\s+REPLACE\s+VIEW\b/i.test(text)) return 'CREATE VIEW';
    return second === 'TABLE' || second === 'ATOMIC' || second === 'BATCH' ? 'CREATE TABLE' : `CREATE ${second}`;
  }
  if (first === 'COMPILE') return `COMPILE ${second}`;
  if (first === 'ALTER') return second === 'TABLE' ? 'ALTER TABLE' : `ALTER ${second}`;
  if (first === 'DROP') return second === 'TABLE' || second === 'ALL' ? 'DROP' : `DROP ${second}`;
  const known = [
    'SELECT',
    'WITH',
    'TRUNCATE',
    'RENAME',
    'INSERT',
    'UPDATE',
    'SHOW',
    'EXPLAIN',
    'GRANT',
    'REVOKE',
    'DECLARE',
    'COPY',
    'BACKUP',
    'CHECKPOINT',
    'REINDEX',
    'VACUUM',
    'CANCEL',
    'REFRESH',
    'COMPILE',
    'ASSUME',
    'EXIT',
    'SWITCH',
    'ADD',
    'REMOVE',
  ];
  return known.includes(first) ? first : 'SELECT'; // a bare table name or table function: QuestDB's implicit select
}

test('parses the QuestDB documentation corpus: every covered statement kind parses', (t) => {
  const path = findCorpus();
  if (path === null) {
    t.skip('corpus not found: expected ../shared/corpus/docs-queries.json beside the clone');
    return;
  }
  const entries = JSON.parse(readFileSync(path, 'utf8')) as Array<{ query: string }>;
  let parsed = 0;
  let unsupported = 0;
  const failures = new Map<
    string,
    Array<{ index: number; sql: string; message: string; position: number | undefined }>
  >();
  const wronglyUnsupported: string[] = [];
  // Documentation fragments that use a variable an earlier, separate statement declared: QuestDB
  // refuses them too ("undeclared variable"), so they count apart, not as parser failures.
  const undeclared: number[] = [];
  const unsupportedWhat = new Map<string, number>();
  let declareInCovered = 0;
  for (const [index, { query }] of entries.entries()) {
    if (NOT_A_STATEMENT.has(index)) continue;
    const kw = leadingKeyword(query);
    try {
      const s = parseStatement(query);
      if (s.kind === 'unsupported') {
        unsupported++;
        unsupportedWhat.set(s.what, (unsupportedWhat.get(s.what) ?? 0) + 1);
        // A covered kind may only be Unsupported because it uses DECLARE variables.
        if (COVERED.has(kw)) {
          if (s.what === 'DECLARE') declareInCovered++;
          else wronglyUnsupported.push(`#${index} ${s.what}: ${query.slice(0, 80)}`);
        }
      } else {
        parsed++;
      }
    } catch (e) {
      if (!(e instanceof SvcError)) throw e;
      if (e.message.startsWith('undeclared variable: @')) {
        undeclared.push(index);
        continue;
      }
      const list = failures.get(kw) ?? [];
      list.push({ index, sql: query, message: e.message, position: e.position });
      failures.set(kw, list);
    }
  }
  const failed = [...failures.values()].reduce((n, l) => n + l.length, 0);
  console.log(`corpus ${path}`);
  console.log(
    `total ${entries.length}, parsed ${parsed}, unsupported ${unsupported}, not a statement ${NOT_A_STATEMENT.size}, failed ${failed}`,
  );
  const whats = [...unsupportedWhat].sort((a, b) => b[1] - a[1]).map(([w, n]) => `${w} ${n}`);
  console.log(`  unsupported by leading keywords: ${whats.join(', ')}`);
  console.log(`  (${declareInCovered} of them are SELECT/CREATE TABLE/INSERT... using DECLARE @variables)`);
  console.log(
    `  ${undeclared.length} fragments use a variable declared in another statement: #${undeclared.join(', #')}`,
  );
  for (const [index, reason] of NOT_A_STATEMENT) console.log(`  not a statement #${index}: ${reason}`);
  for (const [kw, list] of [...failures].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`  ${kw}: ${list.length} failed${COVERED.has(kw) ? ' (covered kind)' : ''}`);
    for (const f of list.slice(0, 3)) {
      const at = f.position ?? 0;
      console.log(
        `    #${f.index} ${f.message} at ${at}: ${f.sql.slice(Math.max(0, at - 40), at + 40).replace(/\s+/g, ' ')}`,
      );
    }
  }
  const coveredFailures = [...failures]
    .filter(([kw]) => COVERED.has(kw))
    .flatMap(([, l]) => l.map((f) => `#${f.index} ${f.message}`));
  assert.deepEqual(coveredFailures, [], 'statements of covered kinds must parse');
  assert.deepEqual(wronglyUnsupported, [], 'covered kinds must not come back Unsupported');
});
