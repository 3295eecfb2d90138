// How much of QuestDB's documentation compiles in svcdb (issue 19's figure): every statement of
// ../shared/corpus/docs-queries.json, in order, compiled against a database holding tables made to
// fit the documentation (corpus-fixtures.sql: the demo dataset's tables with the columns the pages
// use; the demo's trades.parquet under the copy root). A CREATE TABLE / VIEW / MATERIALIZED VIEW of a new name also runs, so later statements see
// it; one whose name a fixture or an earlier statement took is compiled under a fresh name, so the
// statement itself is checked, not the harness's state. Nothing else runs (no INSERT, DROP, ALTER).
// QuestDB Enterprise's statements (users, groups, permissions, service accounts, their SHOWs,
// storage policies, backups, exchange calendars, TLS, replication roles) are counted apart until
// svcdb has them. Prints the figure and the errors by
// kind; fails when the figure falls below the floor (raise FLOOR as it grows).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Database } from '../../lib/db/database.js';
import { SvcError } from '../../lib/errors/svc-error.js';
import { tokenize } from '../../lib/sql/lexer.js';
import { parseStatement } from '../../lib/sql/parser.js';
import { parseParquetOptions } from '../../lib/export/parquet/options.js';

/** The share of non-Enterprise statements that must compile (the figure when this was last raised). */
const FLOOR = 0.85;

const ENTERPRISE =
  /^(GRANT|REVOKE|(CREATE|ALTER|DROP) (USER|GROUP|SERVICE ACCOUNT)|ADD USER|REMOVE USER|(ASSUME|EXIT) SERVICE ACCOUNT|SWITCH ROLE)/;

/** SHOW of Enterprise's users, groups, service accounts and permissions. */
const ENTERPRISE_SHOW = /^(USERS?|GROUPS|SERVICE ACCOUNTS?|PERMISSIONS)$/;

/**
 * Statements of features QuestDB's pages mark Enterprise only, found by their text: storage policies
 * (the TTL replacement), incremental backups (BACKUP, backups()), exchange calendars (a TICK `#`
 * filter naming an exchange instead of a day of the week, tick_calendars(), _tick_calendars_custom),
 * TLS (reload_tls), permissions (all_permissions(), COPY PERMISSIONS) and replication roles.
 */
const ENTERPRISE_TEXT = [
  /\bSTORAGE\s+POLICY\b|\bstorage_policies\s*\(/i,
  /^\s*BACKUP\s+(DATABASE|ABORT)\b|\bbackups\s*\(|\bbackup_instance_name\b/i,
  /\b_?tick_calendars(_custom)?\b|\breload_tick_calendars\s*\(|\bIN\s+'[^']*#(?!(workday|wd|weekend|(mon|tue|wed|thu|fri|sat|sun)[a-z]*)\b)[a-z]+[^']*'/i,
  /\breload_tls\s*\(/i,
  /\ball_permissions\s*\(|^\s*COPY\s+PERMISSIONS\b/i,
  /^\s*SWITCH\s+(ROLE|STATUS)\b/i,
];

/** The statement without its leading `--` comment lines. */
function withoutComments(sql: string): string {
  return sql.replace(/^(\s*--[^\n]*\n)+/, '');
}

const notSelect = (): SvcError => new SvcError('SQL', 'not a query');

function findCorpus(): string | null {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const candidates = [
    resolve(process.cwd(), '../shared/corpus/docs-queries.json'),
    resolve(here, '../../../../shared/corpus/docs-queries.json'),
  ];
  return candidates.find((p) => existsSync(p)) ?? null;
}

const FIXTURES = fileURLToPath(new URL('../../../test/sql/corpus-fixtures.sql', import.meta.url));

/** The statement with its CREATE target renamed (the written name token at `namePos` replaced). */
function renamed(sql: string, namePos: number, to: string): string {
  const tok = tokenize(sql).find((t) => t.pos === namePos);
  return tok === undefined ? sql : sql.slice(0, tok.pos) + to + sql.slice(tok.end);
}

test('QuestDB documentation statements compile: the figure', async (t) => {
  const path = findCorpus();
  if (path === null) {
    t.skip('corpus not found: expected ../shared/corpus/docs-queries.json beside the clone');
    return;
  }
  const corpus = (JSON.parse(readFileSync(path, 'utf8')) as Array<{ query: string }>).map((e) => e.query);
  const root = mkdtempSync(join(tmpdir(), 'svcdb-corpus-'));
  const db = Database.open(root, { workerCount: 1 });
  try {
    const signal = new AbortController().signal;
    /** Names of the tables and views made so far (lower case): the fixtures' and the corpus's. */
    const taken = new Set<string>();
    for (const f of readFileSync(FIXTURES, 'utf8').split(/;\s*\n/)) {
      if (f.trim() === '') continue;
      await db.compile(f).execute(signal);
      const s = parseStatement(f);
      if (s.kind === 'createTable') taken.add(s.name.toLowerCase());
    }
    // The pages' read_parquet('trades.parquet'): the demo's trades table exported under the copy root.
    const parts: Buffer[] = [];
    for await (const c of db.export(
      'SELECT * FROM trades',
      'parquet',
      { parquet: parseParquetOptions(new URLSearchParams()) },
      notSelect,
    ))
      parts.push(c);
    mkdirSync(join(root, 'import'), { recursive: true });
    writeFileSync(join(root, 'import', 'trades.parquet'), Buffer.concat(parts));
    let compiled = 0;
    let enterprise = 0;
    let renames = 0;
    const errors = new Map<string, number[]>();
    for (const [i, raw] of corpus.entries()) {
      let sql = raw;
      let kind = '';
      let target: string | null = null;
      try {
        const s = parseStatement(sql);
        kind = s.kind === 'unsupported' ? s.what : s.kind;
        if (s.kind === 'show' && ENTERPRISE_SHOW.test(s.what)) kind = 'ENTERPRISE';
        const creates = s.kind === 'createTable' || s.kind === 'createMatView' || (s.kind === 'createView' && !s.alter);
        if (creates) {
          target = s.name.toLowerCase();
          if (taken.has(target)) {
            sql = renamed(sql, s.namePos, `${s.name.replace(/[^\w]/g, '_')}__doc${i}`);
            target = null;
            renames++;
          }
        }
      } catch {
        // A parse error: compile() reports it below.
      }
      if (ENTERPRISE_TEXT.some((re) => re.test(withoutComments(sql)))) kind = 'ENTERPRISE';
      if (ENTERPRISE.test(kind) || kind === 'ENTERPRISE') {
        enterprise++;
        continue;
      }
      try {
        const st = db.compile(sql);
        compiled++;
        if (st.kind === 'ddl' && target !== null) {
          await st.execute(signal).then(
            () => taken.add(target!),
            () => undefined,
          );
        }
      } catch (e) {
        if (!(e instanceof SvcError)) throw e;
        const fn = /^unknown function name: ([\w.]+)/.exec(e.message);
        const key =
          fn !== null ? `unknown function name: ${fn[1]}(...)` : e.message.replace(/\[.*$/s, '[...]').slice(0, 70);
        errors.set(key, [...(errors.get(key) ?? []), i]);
      }
    }
    const counted = corpus.length - enterprise;
    const share = compiled / counted;
    console.log(
      `corpus compile: ${compiled} of ${counted} statements (${(100 * share).toFixed(1)}%), ${enterprise} Enterprise statements apart; ${renames} CREATEs compiled under a fresh name`,
    );
    for (const [k, list] of [...errors].sort((a, b) => b[1].length - a[1].length).slice(0, 30)) {
      console.log(`  ${list.length} ${k} (#${list.slice(0, 5).join(', #')})`);
    }
    assert.ok(share >= FLOOR, `${(100 * share).toFixed(1)}% compile, below the floor of ${100 * FLOOR}%`);
  } finally {
    await db.close();
    rmSync(root, { recursive: true, force: true });
  }
});
