// The shared conformance suite (../shared/conformance: QuestDB 9.3.3's recorded answers to request
// sequences over every endpoint) against a real server, as a ratchet: every case listed in
// passing.txt must still pass. Cases that pass and are not listed yet are printed, to be added
// (CONFORMANCE_UPDATE=1 rewrites the list with every passing case).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../helpers/server-process.js';

const here = fileURLToPath(new URL('.', import.meta.url)); // <clone>/dist/test/conformance/

/** The suite lives in shared/ beside the clone: `<clone>/../shared/conformance`. */
function findSuite(): string | null {
  const candidates = [resolve(process.cwd(), '../shared/conformance'), resolve(here, '../../../../shared/conformance')];
  return candidates.find((p) => existsSync(join(p, 'run.mjs'))) ?? null;
}

/** The committed list: test/conformance/passing.txt in the source tree (one case id a line; # comments). */
const LIST =
  [resolve(process.cwd(), 'test/conformance/passing.txt'), resolve(here, '../../../test/conformance/passing.txt')].find(
    existsSync,
  ) ?? resolve(process.cwd(), 'test/conformance/passing.txt');

function node(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, args, { maxBuffer: 64 * 1024 * 1024 }, (e, stdout, stderr) => {
      done({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout, stderr });
    });
  });
}

test('every conformance case on the committed list still answers as QuestDB does', { timeout: 300_000 }, async (t) => {
  const suite = findSuite();
  if (suite === null) {
    if (process.env.CI === 'true') assert.fail('../shared/conformance not found beside the clone');
    t.skip('conformance suite not found: expected ../shared/conformance beside the clone');
    return;
  }
  // QuestDB's answers were recorded with metrics enabled and otherwise default settings.
  const server = await startServer({ env: { SVC_METRICS_ENABLED: 'true' } });
  const work = mkdtempSync(join(tmpdir(), 'svcdb-conformance-'));
  try {
    const actual = join(work, 'actual.json');
    const ran = await node([join(suite, 'run.mjs'), server.mainUrl, server.healthUrl, actual]);
    assert.equal(ran.code, 0, `run.mjs failed: ${ran.stderr}${ran.stdout}`);
    const compared = await node([join(suite, 'compare.mjs'), join(suite, 'expected/questdb.json'), actual]);
    const summary = /^(\d+) passed, (\d+) failed$/m.exec(compared.stdout);
    assert.ok(summary, `compare.mjs printed no summary: ${compared.stderr}${compared.stdout.slice(-2000)}`);
    const failing = new Map<string, string>();
    for (const line of compared.stdout.split('\n')) {
      const m = /^(?:FAIL|JUDGE) (\S+) (.*)$/.exec(line);
      if (m) failing.set(m[1]!, line);
    }
    const expected = JSON.parse(readFileSync(join(suite, 'expected/questdb.json'), 'utf8')) as Record<string, unknown>;
    const passing = Object.keys(expected)
      .filter((id) => !failing.has(id))
      .sort();
    t.diagnostic(`${summary[0]} (${compared.stdout.split('\n').find((l) => l.startsWith('by area:')) ?? ''})`);
    if (process.env.CONFORMANCE_UPDATE === '1') {
      writeFileSync(
        LIST,
        `# Conformance cases that must keep passing (test/conformance/conformance.test.ts); one id a line.\n${passing.join('\n')}\n`,
      );
      t.diagnostic(`wrote ${passing.length} case ids to ${LIST}`);
    }
    const listed = readFileSync(LIST, 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    const unknown = listed.filter((id) => !(id in expected));
    assert.deepEqual(unknown, [], 'cases on the list that the suite does not have');
    const regressed = listed.filter((id) => failing.has(id)).map((id) => failing.get(id)!);
    const fresh = passing.filter((id) => !listed.includes(id));
    if (fresh.length > 0) t.diagnostic(`passing but not on the list yet (add them to ${LIST}): ${fresh.join(' ')}`);
    assert.deepEqual(regressed, [], 'cases on the list that no longer pass');
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
});
