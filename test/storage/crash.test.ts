// Crash test of the storage engine: a child process (crash-child.ts) appends and
// commits in a loop and is killed with SIGKILL at random moments; after each kill
// the reopened table must hold exactly a state the child committed, intact and writable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Catalog } from '../../lib/storage/catalog.js';
import type { CommitMode } from '../../lib/storage/io.js';
import {
  CRASH_TABLE,
  CrashSum,
  DAY_US,
  Rng,
  checkTableFolder,
  crashColumns,
  crashRow,
  envInt,
  openCatalog,
  readTxnFile,
  sameValue,
  tempRoot,
  valueAt,
} from './helpers.js';

// SVCDB_CRASH_ROUNDS runs more kills; SVCDB_CRASH_SEED another sequence of them.
const ROUNDS = envInt('SVCDB_CRASH_ROUNDS', 16);
const SEED = envInt('SVCDB_CRASH_SEED', 424242);
const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'crash-child.js');
/** Above this many rows the test drops the table between rounds, so rounds stay fast. */
const MAX_ROWS = 150_000;
/** A child that has not reached its kill point by then is killed anyway and reported. */
const ROUND_TIMEOUT_MS = 8000;

interface State {
  readonly count: number;
  readonly sum: string;
}

/** Where the test kills the child: after a random delay, during a commit with out-of-order rows, on an append, or at a data write (the child kills itself). */
type Plan =
  | { readonly kind: 'delay'; readonly ms: number }
  | { readonly kind: 'commit'; readonly nth: number; readonly ms: number }
  | { readonly kind: 'append'; readonly nth: number }
  | { readonly kind: 'write'; readonly nth: number };

interface ChildRun {
  readonly lines: string[];
  readonly stderr: string;
  readonly signal: NodeJS.Signals | null;
  readonly code: number | null;
  /** The kill point was never reached: the round timed out. */
  readonly timedOut: boolean;
}

async function runChild(dir: string, seed: number, mode: CommitMode, plan: Plan): Promise<ChildRun> {
  const args = [CHILD, dir, String(seed), mode, String(plan.kind === 'write' ? plan.nth : 0)];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  let stderr = '';
  let killTimer: NodeJS.Timeout | undefined;
  let seen = 0;
  const kill = (): void => {
    child.kill('SIGKILL');
  };
  const onLine = (line: string): void => {
    lines.push(line);
    const word = line.split(' ', 1)[0];
    if (plan.kind === 'delay' && word === 'start') killTimer = setTimeout(kill, plan.ms);
    if (plan.kind === 'commit' && word === 'intent' && Number(line.split(' ')[3]) > 0 && ++seen === plan.nth) {
      if (plan.ms === 0) kill();
      else killTimer = setTimeout(kill, plan.ms);
    }
    if (plan.kind === 'append' && word === 'append' && ++seen === plan.nth) kill();
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop()!;
    for (const p of parts) onLine(p);
  });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    stderr += chunk;
  });
  let timedOut = false;
  const guard = setTimeout(() => {
    timedOut = true;
    kill();
  }, ROUND_TIMEOUT_MS);
  try {
    const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
    // An incomplete last line (in `partial`) was cut by the kill: it announced nothing.
    return { lines, stderr, signal, code, timedOut };
  } finally {
    clearTimeout(guard);
    clearTimeout(killTimer);
  }
}

function parseState(line: string): State {
  const [, count, sum] = line.split(' ');
  return { count: Number(count), sum: sum! };
}

/**
 * The states the table may be in after the kill: the last one the child
 * reported committed, or the one it announced just before calling commit()
 * (the commit point, the rename of _txn, may have passed before the kill).
 */
function acceptable(lines: readonly string[]): { committed: State; committing: State | null; start: State | null } {
  let committed: State | null = null;
  let committing: State | null = null;
  let start: State | null = null;
  for (const line of lines) {
    if (line.startsWith('start ')) {
      start = parseState(line);
      committed = start;
      committing = null;
    }
    if (line.startsWith('intent ')) committing = parseState(line);
    if (line.startsWith('done ')) {
      committed = parseState(line);
      committing = null;
    }
  }
  assert.ok(committed, 'the child reported the state it started from');
  return { committed, committing, start };
}

/** What the child was doing when it died, from its last line. */
function landing(lines: readonly string[]): string {
  const last = lines[lines.length - 1] ?? '(nothing)';
  const word = last.split(' ', 1)[0]!;
  switch (word) {
    case 'append':
      return 'append';
    case 'intent':
      return 'commit';
    case 'rollback':
      return 'rollback';
    case 'done':
    case 'start':
      return 'between transactions';
    case 'selfkill':
      return `write of ${/\.tmp$/.test(last) ? '_txn/_meta' : /\.sym$/.test(last) ? 'a symbol dictionary' : /\/\d+\.[di]$/.test(last) ? 'column data' : last}`;
    default:
      return last;
  }
}

/**
 * Reads the whole table and checks it: ids 0..count-1 each once, every column
 * as crashRow(id) says, rows ordered by (timestamp, id) (equal timestamps keep
 * arrival order, and ids grow with arrival), every partition holding exactly
 * the rows of its day. Returns the table's state.
 */
function verifyTable(catalog: Catalog): State {
  const r = catalog.reader(CRASH_TABLE);
  try {
    const count = r.rowCount;
    const seen = new Uint8Array(count);
    const sum = new CrashSum();
    let prevTs = -Infinity;
    let prevId = -1;
    let row = 0;
    for (const b of r.scan({ columns: ['ts', 'id', 'sym', 'd', 's', 'n'] })) {
      const [tsV, idV, symV, dV, sV, nV] = b.columns;
      const ts = (tsV as { data: Float64Array }).data;
      const ids = (idV as { data: Float64Array }).data;
      for (let i = 0; i < b.rowCount; i++, row++) {
        const id = ids[i]!,
          t = ts[i]!;
        if (!(Number.isInteger(id) && id >= 0 && id < count))
          assert.fail(`row ${row}: id ${id} outside 0..${count - 1}`);
        if (seen[id]) assert.fail(`row ${row}: id ${id} appears twice`);
        seen[id] = 1;
        if (!(t > prevTs || (t === prevTs && id > prevId))) {
          assert.fail(
            `row ${row}: (ts ${t}, id ${id}) does not follow (ts ${prevTs}, id ${prevId}): rows must be in timestamp order, equal timestamps in arrival order`,
          );
        }
        prevTs = t;
        prevId = id;
        const want = crashRow(id);
        const got = { sym: valueAt(symV!, i), d: valueAt(dV!, i), s: valueAt(sV!, i), n: valueAt(nV!, i) };
        const ok =
          sameValue(got.sym, want.sym) &&
          sameValue(got.d, Number.isNaN(want.d) ? null : want.d) &&
          sameValue(got.s, want.s) &&
          sameValue(got.n, want.n === -0x80000000 ? null : want.n);
        if (!ok) assert.fail(`row ${row} (id ${id}): got ${JSON.stringify(got)}, expected ${JSON.stringify(want)}`);
        sum.add(id, t);
      }
    }
    assert.equal(row, count, 'a full scan returns rowCount rows');
    let prevName = '';
    for (const p of r.partitions) {
      const day = Math.floor(p.minTs / DAY_US) * DAY_US;
      assert.equal(
        p.name,
        new Date(day / 1000).toISOString().slice(0, 10),
        `partition ${p.name} is named after its day`,
      );
      assert.ok(p.name > prevName, 'partitions are in order');
      prevName = p.name;
      assert.ok(p.maxTs < day + DAY_US, `partition ${p.name} ends within its day`);
      let n = 0;
      for (const b of r.scan({ columns: ['ts'], intervals: [[day, day + DAY_US]] })) n += b.rowCount;
      assert.equal(n, p.rows, `partition ${p.name} holds exactly the rows of its day`);
    }
    return { count, sum: sum.toString() };
  } finally {
    r.close();
  }
}

/** The table takes appends (in order and out of order, onto existing timestamps) and commits after the crash. */
async function appendAfterCrash(catalog: Catalog, rng: Rng, before: State): Promise<State> {
  const r = catalog.reader(CRASH_TABLE);
  const parts = r.partitions;
  r.close();
  const first = parts[0];
  const last = parts[parts.length - 1];
  const base = last ? last.maxTs : Date.UTC(2024, 2, 1) * 1000;
  const ids: number[] = [];
  const ts: number[] = [];
  for (let i = 0; i < 30; i++) ts.push(base + i * 1_000_000);
  for (let i = 0; i < 10; i++) ts.push(first ? rng.pick([first.minTs, first.maxTs, last!.minTs, base]) : base);
  for (let i = 0; i < ts.length; i++) ids.push(before.count + i);
  const w = await catalog.writer(CRASH_TABLE);
  try {
    assert.equal(w.uncommittedRows, 0, 'nothing is pending after a reopen');
    w.append({ rowCount: ids.length, columns: crashColumns(ids, ts) });
    w.commit();
  } finally {
    w.close();
  }
  const sum = new CrashSum();
  for (let i = 0; i < ids.length; i++) sum.add(ids[i]!, ts[i]!);
  return { count: before.count + ids.length, sum: CrashSum.parse(before.sum).plus(sum).toString() };
}

function planFor(round: number, rng: Rng): Plan {
  switch (round % 4) {
    case 0:
      return { kind: 'delay', ms: rng.int(0, 700) };
    case 1:
      return { kind: 'commit', nth: rng.int(1, 4), ms: rng.pick([0, 0, rng.int(1, 40)]) };
    case 2:
      return { kind: 'append', nth: rng.int(1, 25) };
    default:
      return { kind: 'write', nth: rng.int(1, 400) };
  }
}

function modeFor(round: number): CommitMode {
  if (round % 8 === 5) return 'sync';
  if (round % 8 === 2) return 'async';
  return 'nosync';
}

test(`a table killed at random moments reopens at a committed state, intact and writable (seed ${SEED}, ${ROUNDS} rounds)`, async (ctx) => {
  assert.ok(existsSync(CHILD), `${CHILD} is built`);
  const tmp = tempRoot('svcdb-crash-');
  const rng = new Rng(SEED);
  const landed: Record<string, number> = {};
  const outcomes: Record<string, number> = {};
  const leftBehind: Record<string, number> = {};
  let expectedStart: State | null = null;
  let totalCommits = 0;
  const started = Date.now();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const plan = planFor(round, rng);
      const mode = modeFor(round);
      const seed = SEED * 1000 + round;
      const what = `round ${round} (child seed ${seed}, ${mode}, kill ${JSON.stringify(plan)})`;
      const run = await runChild(tmp.dir, seed, mode, plan);
      const tail = `\nlast lines: ${run.lines.slice(-6).join(' | ')}\nstderr: ${run.stderr}`;
      assert.equal(run.signal, 'SIGKILL', `${what}: the child died of SIGKILL, not exit code ${run.code}${tail}`);
      assert.ok(!run.timedOut, `${what}: the child reached its kill point within ${ROUND_TIMEOUT_MS} ms${tail}`);
      const { committed, committing, start } = acceptable(run.lines);
      if (expectedStart)
        assert.deepEqual(start, expectedStart, `${what}: the child started from the state the test left${tail}`);
      totalCommits += run.lines.filter((l) => l.startsWith('done ')).length;
      const where = landing(run.lines);
      landed[where] = (landed[where] ?? 0) + 1;

      const left = leftovers(join(tmp.dir, CRASH_TABLE));
      leftBehind[left] = (leftBehind[left] ?? 0) + 1;
      const catalog = openCatalog(tmp.dir, { commitMode: mode });
      try {
        assert.deepEqual(catalog.problems, [], `${what}: the table opens cleanly${tail}`);
        checkTableFolder(join(tmp.dir, CRASH_TABLE));
        const found = verifyTable(catalog);
        if (plan.kind === 'write') {
          // The child died before a data write: the _txn rename of a commit in progress cannot have happened.
          assert.deepEqual(found, committed, `${what}: the table is at the last commit the child reported${tail}`);
        } else {
          const ok = sameState(found, committed) || (committing !== null && sameState(found, committing));
          assert.ok(
            ok,
            `${what}: the table holds ${JSON.stringify(found)}, expected the last commit ${JSON.stringify(committed)}${committing ? ` or the one in progress ${JSON.stringify(committing)}` : ''}${tail}`,
          );
        }
        const outcome = sameState(found, committed) ? 'last reported commit' : 'commit in progress made it';
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
        const after = await appendAfterCrash(catalog, rng, found);
        assert.deepEqual(
          verifyTable(catalog),
          after,
          `${what}: rows appended after the crash are committed and intact`,
        );
        expectedStart = after;
        if (after.count > MAX_ROWS) {
          await catalog.drop(CRASH_TABLE);
          expectedStart = { count: 0, sum: new CrashSum().toString() };
        }
      } finally {
        catalog.close();
      }
    }
  } finally {
    tmp.remove();
  }
  ctx.diagnostic(
    `seed ${SEED}: ${ROUNDS} kills in ${Date.now() - started} ms after ${totalCommits} reported commits; died during ${JSON.stringify(landed)}; left for recovery ${JSON.stringify(leftBehind)}; found ${JSON.stringify(outcomes)}`,
  );
});

/** What the kill left in the table folder for recovery: uncommitted partition folders and a half-made _txn. */
function leftovers(tableDir: string): string {
  if (!existsSync(join(tableDir, '_txn'))) return 'no table yet';
  const txn = readTxnFile(tableDir);
  const committed = new Set(txn.partitions.map((p) => p.dir));
  const entries = readdirSync(tableDir);
  const folders = entries.filter((e) => /^\d{4}-\d\d-\d\d\.\d+(\.o3)?$/.test(e) && !committed.has(e));
  const parts = [];
  if (folders.length > 0) parts.push('uncommitted partition folders');
  if (folders.some((f) => f.endsWith('.o3'))) parts.push('a merge build folder');
  if (entries.includes('_txn.tmp')) parts.push('_txn.tmp');
  // Column ids and widths of crashTableDef's fixed-width columns.
  const widths: Record<string, number> = { '0.d': 8, '1.d': 8, '2.d': 4, '3.d': 8, '5.d': 4 };
  const longer = txn.partitions.some((p) =>
    Object.entries(widths).some(([f, w]) => {
      const path = join(tableDir, p.dir, f);
      return existsSync(path) && statSync(path).size > p.rows * w;
    }),
  );
  if (longer) parts.push('bytes past the commit');
  const sym = join(tableDir, '2.sym');
  if (existsSync(sym) && statSync(sym).size > (txn.symbols['2']?.bytes ?? 0)) parts.push('symbols past the commit');
  return parts.length > 0 ? parts.join(' + ') : 'no extra folders';
}

function sameState(a: State, b: State): boolean {
  return a.count === b.count && a.sum === b.sum;
}
