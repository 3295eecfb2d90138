// No pattern can freeze the server (issue 15, ReDoS): LIKE is matched without a
// regular expression and ~, !~ and regexp_replace run RE2 (linear time), so the
// shapes that make a backtracking engine take exponential or high polynomial time
// answer at once, or with a 400 when the pattern needs backtracking, while other
// requests keep being served.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerProcess } from '../helpers/server-process.js';
import { assertAlive, send, startCappedServer, unhandledErrors, type Answer } from '../helpers/reliability.js';

/** Each hostile statement's timeout: it cannot fire inside a backtracking RegExp.test(), which is the failure shown. */
const TIMEOUT = { 'Statement-Timeout': '5000' };
/** How long a hostile statement may take to answer (the client gives up later, so that a frozen server fails rather than hangs). */
const ANSWER_MS = 4000;

let server: ServerProcess;

before(async () => {
  server = await startCappedServer();
});

after(async () => {
  if (!server) return;
  // A server frozen inside a match never handles SIGTERM: kill it, so that a regression fails instead of hanging.
  const killer = setTimeout(() => server.child.kill('SIGKILL'), 5000);
  await server.stop();
  clearTimeout(killer);
});

function execWithin(query: string, headers: Record<string, string> = {}, ms = 20_000): Promise<Answer> {
  return send(`${server.mainUrl}/exec?query=${encodeURIComponent(query)}`, {
    headers,
    headersTimeout: ms,
    bodyTimeout: ms,
  });
}

function errorOf(a: Answer): string {
  return String((a.json as { error?: unknown } | undefined)?.error ?? a.text);
}

/** The first value of the first row of a JSON answer. */
function firstValue(a: Answer): unknown {
  return (a.json as { dataset?: unknown[][] } | undefined)?.dataset?.[0]?.[0];
}

/**
 * Runs `query` under the timeout and, while it runs, `select 1` and the health
 * check one after the other (each must answer within 2 s); the statement must
 * answer within ANSWER_MS.
 */
async function hostile(query: string): Promise<Answer> {
  const t0 = performance.now();
  let done = false;
  const running = execWithin(query, TIMEOUT).finally(() => {
    done = true;
  });
  for (let k = 0; k < 3 && !done; k++) {
    const t1 = performance.now();
    const q = await execWithin('select 1', {}, 10_000);
    const h = await send(`${server.healthUrl}/`, { headersTimeout: 10_000, bodyTimeout: 10_000 });
    assert.equal(q.status, 200, q.text);
    assert.equal(h.status, 200, h.text);
    const ms = performance.now() - t1;
    assert.ok(ms < 2000, `select 1 and the health check took ${ms.toFixed(0)} ms during ${query.slice(0, 80)}`);
  }
  const answer = await running;
  const ms = performance.now() - t0;
  assert.ok(ms < ANSWER_MS, `${query.slice(0, 80)} answered after ${ms.toFixed(0)} ms`);
  return answer;
}

test('LIKE with many % over long texts answers at once', async () => {
  const before = await unhandledErrors(server);
  const r = await hostile(
    `SELECT count() FROM long_sequence(3000) WHERE rpad(cast(x AS VARCHAR), 5000, 'a') LIKE '${'%a'.repeat(10)}%b'`,
  );
  assert.equal(r.status, 200, r.text);
  assert.equal(firstValue(r), 0);
  const r2 = await hostile(
    `SELECT count() FROM long_sequence(3000) WHERE rpad(cast(x AS VARCHAR), 5000, 'a') ILIKE '${'%A_'.repeat(10)}%B%'`,
  );
  assert.equal(r2.status, 200, r2.text);
  assert.equal(firstValue(r2), 0);
  assert.equal(await unhandledErrors(server), before);
  await assertAlive(server, 'LIKE with many %');
});

test('~ with a nested quantifier, (a+)+$, answers at once', async () => {
  const r = await hostile(`SELECT '${'a'.repeat(34)}!' ~ '(a+)+$'`);
  assert.equal(r.status, 200, r.text);
  assert.equal(firstValue(r), false);
  await assertAlive(server, '(a+)+$');
});

test('regexp_replace with an ambiguous alternation, (a|aa)+$, answers at once', async () => {
  const text = `${'a'.repeat(44)}!`;
  const r = await hostile(`SELECT regexp_replace('${text}', '(a|aa)+$', 'x')`);
  assert.equal(r.status, 200, r.text);
  assert.equal(firstValue(r), text);
  await assertAlive(server, '(a|aa)+$');
});

test('~ with a repeated group, (.*a){20}, over a few thousand long rows answers at once', async () => {
  // A digit, 19 a's, then b's: a backtracking engine tries every way to spread the a's over the 20 groups, at every start.
  const text = "rpad(rpad(cast(x % 10 AS VARCHAR), 38, 'ab'), 2000, 'b')";
  const r = await hostile(`SELECT count() FROM long_sequence(3000) WHERE ${text} ~ '(.*a){20}'`);
  assert.equal(r.status, 200, r.text);
  assert.equal(firstValue(r), 0);
  const r2 = await hostile(`SELECT count() FROM long_sequence(3000) WHERE ${text} !~ '(.*a){20}'`);
  assert.equal(r2.status, 200, r2.text);
  assert.equal(firstValue(r2), 3000);
  await assertAlive(server, '(.*a){20}');
});

test('patterns that need backtracking, or too big a program, are refused with a 400 at the pattern, not counted as unhandled', async () => {
  const before = await unhandledErrors(server);
  const a30 = 'a'.repeat(30);
  for (const [query, pattern, why] of [
    [`SELECT '${a30}' ~ '^(a+)\\1$'`, `'^(a+)\\1$'`, /backreferences are not supported/],
    [
      `SELECT regexp_replace('${a30}', '(?=a)(a+)+b', 'x')`,
      `'(?=a)(a+)+b'`,
      /lookahead and lookbehind are not supported/,
    ],
    [`SELECT 'ab' ~ '(?>a+)b'`, `'(?>a+)b'`, /atomic groups are not supported/],
    // Linear, but a step per instruction per character once RE2's DFA gives up: too big a program is refused.
    [
      `SELECT rpad('', 3000, 'ab') ~ '${'(?:[ab]{1000})?'.repeat(100)}[cd]'`,
      `'${'(?:[ab]{1000})?'.repeat(100)}[cd]'`,
      /too complex/,
    ],
  ] as const) {
    const r = await hostile(query);
    assert.equal(r.status, 400, r.text);
    assert.match(errorOf(r), /invalid regular expression/);
    assert.match(errorOf(r), why);
    assert.equal((r.json as { position?: number }).position, query.indexOf(pattern), query);
  }
  assert.equal(await unhandledErrors(server), before);
  await assertAlive(server, 'refused patterns');
});
