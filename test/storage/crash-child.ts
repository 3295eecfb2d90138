// Child process of crash.test.ts (not a test itself): appends rows whose content
// is a function of their id, in and out of order, and commits in a loop, saying
// on stdout which state it is about to commit and which it committed, until killed.
import { once } from 'node:events';
import { writeSync } from 'node:fs';
import { COMMIT_MODES, setWriteFault, type CommitMode } from '../../lib/storage/io.js';
import {
  CRASH_BASE_TS,
  CRASH_TABLE,
  CrashSum,
  DAY_US,
  Rng,
  crashColumns,
  crashTableDef,
  openCatalog,
} from './helpers.js';

/** A child the test forgot must not run forever. */
const MAX_RUN_MS = 60_000;
const SECOND = 1_000_000;

// Usage: node crash-child.js <dbDir> <seed> [nosync|async|sync] [killAtWrite]
// With killAtWrite > 0 it kills itself with SIGKILL just before its killAtWrite-th
// data write (through the storage layer's write hook), so the crash lands exactly there.
//
// Lines: `start <count> <sum>` (the state found at open), `append <rows> <o3rows>`
// before each append, `rollback` before a rollback, `intent <count> <sum> <o3rows>`
// just before commit(), `done <count> <sum>` just after it, `selfkill <file>`.
const [dir, seedText, modeText = 'nosync', killAtText = '0'] = process.argv.slice(2);
if (!dir || !seedText || !(COMMIT_MODES as readonly string[]).includes(modeText)) {
  process.stderr.write('usage: crash-child.js <dbDir> <seed> [nosync|async|sync] [killAtWrite]\n');
  process.exit(2);
}
const mode = modeText as CommitMode;
const killAt = Number(killAtText);

// The parent went away: stop.
process.stdout.on('error', () => process.exit(4));

/** Writes a line; it must be in the pipe before the step it announces starts. */
async function say(line: string): Promise<void> {
  process.stdout.write(`${line}\n`);
  // Writes to a pipe are synchronous on Linux unless the pipe is full; then wait until it drained.
  if (process.stdout.writableLength > 0) await once(process.stdout, 'drain');
}

async function main(): Promise<void> {
  const rng = new Rng(Number(seedText));
  const catalog = openCatalog(dir!, { commitMode: mode });
  if (!catalog.exists(CRASH_TABLE)) catalog.create(crashTableDef);

  let count = 0;
  let sum = new CrashSum();
  let minTs = Infinity;
  let maxTs = -Infinity;
  const r = catalog.reader(CRASH_TABLE);
  for (const b of r.scan({ columns: ['id', 'ts'] })) {
    const ids = (b.columns[0] as { data: Float64Array }).data;
    const ts = (b.columns[1] as { data: Float64Array }).data;
    for (let i = 0; i < b.rowCount; i++) {
      sum.add(ids[i]!, ts[i]!);
      if (ts[i]! < minTs) minTs = ts[i]!;
      if (ts[i]! > maxTs) maxTs = ts[i]!;
    }
    count += b.rowCount;
  }
  r.close();
  await say(`start ${count} ${sum}`);

  if (killAt > 0) {
    let writes = 0;
    setWriteFault((path) => {
      if (++writes !== killAt) return;
      try {
        writeSync(1, `selfkill ${path.slice(dir!.length + 1)}\n`);
      } catch {
        /* the kill matters, not the line */
      }
      process.kill(process.pid, 'SIGKILL');
    });
  }

  const w = await catalog.writer(CRASH_TABLE);
  const deadline = Date.now() + MAX_RUN_MS;
  while (Date.now() < deadline) {
    let nextId = count;
    let writerMax = maxTs;
    let lowest = minTs;
    const pending = new CrashSum();
    let o3Total = 0;
    const kind = rng.weighted({ inorder: 4, o3small: 3, o3large: 2, mixed: 3 });
    const batches = kind === 'inorder' ? rng.int(1, 4) : kind === 'o3large' ? 1 : rng.int(1, 3);
    for (let b = 0; b < batches; b++) {
      const n =
        kind === 'inorder'
          ? rng.int(100, 3000)
          : kind === 'o3small'
            ? rng.int(1, 200)
            : kind === 'o3large'
              ? rng.int(2000, 15_000)
              : rng.int(50, 1500);
      // Whole seconds, so out-of-order rows often hit timestamps that exist already.
      let x = Number.isFinite(writerMax) ? writerMax : CRASH_BASE_TS;
      if (rng.chance(0.7)) x += rng.int(0, 60) * SECOND;
      const back = Number.isFinite(writerMax) ? rng.pick([DAY_US, 5 * DAY_US, 60 * DAY_US]) : DAY_US;
      const oldest = Math.max(
        CRASH_BASE_TS - 10 * DAY_US,
        Math.min(lowest, writerMax) - (rng.chance(0.2) ? DAY_US : 0),
      );
      const lo = Math.max(oldest, (Number.isFinite(writerMax) ? writerMax : CRASH_BASE_TS) - back);
      const hi = Number.isFinite(writerMax) ? writerMax : CRASH_BASE_TS + DAY_US;
      const ids: number[] = [];
      const ts: number[] = [];
      let o3 = 0;
      for (let i = 0; i < n; i++) {
        const inOrder = kind === 'inorder' || (kind === 'mixed' && rng.chance(0.6));
        let t: number;
        if (inOrder) {
          t = x;
          x += rng.int(0, 17) * SECOND;
        } else {
          t = Math.floor(rng.int(lo, hi) / SECOND) * SECOND;
        }
        if (t < writerMax) o3++;
        else writerMax = t;
        if (t < lowest) lowest = t;
        ids.push(nextId);
        ts.push(t);
        pending.add(nextId, t);
        nextId++;
      }
      await say(`append ${n} ${o3}`);
      w.append({ rowCount: n, columns: crashColumns(ids, ts) });
      o3Total += o3;
    }
    if (rng.chance(0.07)) {
      await say('rollback');
      w.rollback();
      continue;
    }
    const next = sum.plus(pending);
    await say(`intent ${nextId} ${next} ${o3Total}`);
    w.commit();
    count = nextId;
    sum = next;
    maxTs = writerMax;
    minTs = lowest;
    await say(`done ${count} ${sum}`);
  }
  process.stderr.write(`crash-child: not killed within ${MAX_RUN_MS} ms\n`);
  process.exit(3);
}

main().catch((e: unknown) => {
  process.stderr.write(`crash-child failed: ${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
