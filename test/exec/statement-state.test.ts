// Per-statement state lives in the statement and its execution context, not in
// modules or plans: now() is the statement's time from the engine's clock, and
// the values of a subquery belong to one execution, so that one compiled
// statement runs twice, or twice at once, each time with its own answer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compile } from '../../lib/exec/engine.js';
import { execContext } from '../../lib/exec/context.js';
import { run } from '../../lib/exec/operators.js';
import { Pacer } from '../../lib/exec/pacer.js';
import { valueAt } from '../../lib/exec/vectors.js';
import { fixedClock } from '../../lib/functions/clock.js';
import { createFunctionRegistry } from '../../lib/functions/index.js';
import { parseTimestamp } from '../../lib/core/datetime.js';
import type { Batch } from '../../lib/core/batch.js';
import { ENGINE, statementRunner, tempCatalog } from '../helpers/engine.js';

const { catalog } = tempCatalog('svcdb-statement-state-');
const signal = new AbortController().signal;

const { rows, exec } = statementRunner(catalog, signal);

const T = parseTimestamp('2024-02-29T12:34:56.789012Z')!;
const DAY = 86_400_000_000;

test('now() is one value in every call site of a statement, read from the clock when it is compiled', async () => {
  const before = Date.now() * 1000;
  const got = await exec('SELECT now() a, now() b, now() = now() same FROM long_sequence(3)');
  const after = Date.now() * 1000;
  assert.equal(got.length, 3);
  const t = got[0]![0] as number;
  for (const r of got) assert.deepEqual(r, [t, t, true]);
  assert.ok(t >= before - 1000 && t <= after + 1000, `${t} in [${before}, ${after}]`);

  // A fixed clock shows through now(), today() and its neighbours, and `ts IN today()`.
  const clock = fixedClock(T);
  assert.deepEqual(
    await exec(
      'SELECT now(), interval_start(today()), interval_start(yesterday()), interval_start(tomorrow()), interval_end(today())',
      { clock },
    ),
    [[T, T - (T % DAY), T - (T % DAY) - DAY, T - (T % DAY) + DAY, T - (T % DAY) + DAY - 1]],
  );
  assert.deepEqual(await exec("SELECT now() - 1000000 earlier, dateadd('d', 1, now()) next_day", { clock }), [
    [T - 1_000_000, T + DAY],
  ]);
  await exec('CREATE TABLE clocked (ts TIMESTAMP, x INT) TIMESTAMP(ts) PARTITION BY DAY');
  await exec(
    "INSERT INTO clocked VALUES ('2024-02-28T23:59:59.999999Z', 1), ('2024-02-29T00:00:00.000000Z', 2), ('2024-02-29T23:59:59.999999Z', 3), ('2024-03-01T00:00:00.000000Z', 4)",
  );
  assert.deepEqual(await exec('SELECT x FROM clocked WHERE ts IN today()', { clock }), [[2], [3]]);
  assert.deepEqual(await exec('SELECT x FROM clocked WHERE ts IN yesterday()', { clock }), [[1]]);
  // INSERT VALUES computes now() with the statement's time too.
  await exec('INSERT INTO clocked VALUES (now(), 5)', { clock: fixedClock(T + 7) });
  assert.deepEqual(await exec('SELECT ts FROM clocked WHERE x = 5'), [[T + 7]]);

  // The statement's time is fixed once: a compiled statement run again later still shows it.
  let ticks = T;
  const s = compile('SELECT now(), now() FROM long_sequence(2)', {
    ...ENGINE,
    catalog,
    clock: { micros: () => (ticks += 1_000_000) },
  });
  assert.deepEqual(await rows(s), [
    [T + 1_000_000, T + 1_000_000],
    [T + 1_000_000, T + 1_000_000],
  ]);
  assert.deepEqual(await rows(s), [
    [T + 1_000_000, T + 1_000_000],
    [T + 1_000_000, T + 1_000_000],
  ]);
  assert.equal(ticks, T + 1_000_000, 'the clock is read once per compile()');
});

test('one compiled statement with subqueries runs again after the table changed and gets the fresh answer', async () => {
  await exec('CREATE TABLE sq (ts TIMESTAMP, v LONG) TIMESTAMP(ts) PARTITION BY DAY');
  await exec("INSERT INTO sq VALUES ('2024-01-01T00:00:00.000000Z', 1)");
  const s = compile('SELECT x, (SELECT count() FROM sq) n FROM long_sequence(3) WHERE x IN (SELECT v FROM sq)', {
    ...ENGINE,
    catalog,
  });
  assert.deepEqual(await rows(s), [[1, 1]]);
  await exec("INSERT INTO sq VALUES ('2024-01-02T00:00:00.000000Z', 3)");
  assert.deepEqual(await rows(s), [
    [1, 2],
    [3, 2],
  ]);
  await exec("INSERT INTO sq VALUES ('2024-01-03T00:00:00.000000Z', 2)");
  assert.deepEqual(await rows(s), [
    [1, 3],
    [2, 3],
    [3, 3],
  ]);
});

/** Batches handed in one at a time: `requested` resolves when the plan first asks, `release` hands the batch over. */
function gatedInput(batch: Batch): { iterable: AsyncIterable<Batch>; requested: Promise<void>; release: () => void } {
  let asked!: () => void;
  let open!: () => void;
  const requested = new Promise<void>((r) => {
    asked = r;
  });
  const gate = new Promise<void>((r) => {
    open = r;
  });
  return {
    requested,
    release: () => open(),
    iterable: (async function* () {
      asked();
      await gate;
      yield batch;
    })(),
  };
}

test('two executions of one compiled statement at once each keep their own subquery values', async () => {
  await exec('CREATE TABLE sqc (ts TIMESTAMP, v LONG) TIMESTAMP(ts) PARTITION BY DAY');
  await exec("INSERT INTO sqc VALUES ('2024-01-01T00:00:00.000000Z', 1)");
  const fields = [{ name: 'x', type: 'LONG' as const }];
  const s = compile('SELECT x, (SELECT count() FROM sqc) n FROM src WHERE x IN (SELECT v FROM sqc)', {
    ...ENGINE,
    catalog,
    inputs: new Map([['src', { fields, timestamp: -1 }]]),
  });
  assert.equal(s.kind, 'select');
  if (s.kind !== 'select') return;
  const batch: Batch = { rowCount: 3, columns: [{ kind: 'fixed', type: 'LONG', data: Float64Array.from([1, 2, 3]) }] };
  const runtime = { ...ENGINE, statementMicros: s.statementMicros };
  const start = (input: AsyncIterable<Batch>): { next: Promise<unknown[][]> } => {
    const cx = execContext(catalog, signal, runtime, {}, undefined, new Map([['src', input]]));
    const out = (async () => {
      const got: unknown[][] = [];
      for await (const b of run(s.plan, cx))
        for (let i = 0; i < b.rowCount; i++) got.push(b.columns.map((c) => valueAt(c, i)));
      return got;
    })();
    return { next: out };
  };
  // The first execution runs its subqueries (sqc holds 1) and waits for its input...
  const a = gatedInput(batch);
  const first = start(a.iterable);
  await a.requested;
  // ...the table changes, and a second execution runs its subqueries (sqc holds 1 and 3) and waits too.
  await exec("INSERT INTO sqc VALUES ('2024-01-02T00:00:00.000000Z', 3)");
  const b = gatedInput(batch);
  const second = start(b.iterable);
  await b.requested;
  a.release();
  b.release();
  assert.deepEqual(await first.next, [[1, 1]]);
  assert.deepEqual(await second.next, [
    [1, 2],
    [3, 2],
  ]);
});

test('a registry is sealed once built, and each database builds its own', () => {
  const r = createFunctionRegistry();
  assert.equal(r.sealed, true);
  assert.throws(() => r.registerScalar({ name: 'mine', resolve: () => 'no' }), /function registry is sealed/);
  assert.throws(() => r.registerAggregate({ name: 'mine', resolve: () => 'no' }), /function registry is sealed/);
  assert.throws(() => r.registerScalarFamily(() => undefined), /function registry is sealed/);
  assert.equal(r.hasScalar('mine'), false);
  const other = createFunctionRegistry();
  assert.notEqual(other, r);
  assert.deepEqual(other.scalarNames(), r.scalarNames());
  assert.deepEqual(other.aggregateNames(), r.aggregateNames());
  // A statement resolves its functions through the registry it is given.
  const bare = { registry: createFunctionRegistry(), pacer: new Pacer() };
  assert.equal(compile('SELECT abs(-1)', { ...bare, catalog }).kind, 'select');
});

test('the pacer gives the event loop a turn once per 8 ms of work, counted across the statements sharing it', () => {
  const p = new Pacer();
  const t0 = performance.now();
  assert.equal(p.due(t0 + 1), false);
  assert.equal(p.due(t0 + 9), true);
  // Another statement of the same database 3 ms later: the last turn was just given, none is due.
  assert.equal(p.due(t0 + 12), false);
  assert.equal(p.due(t0 + 17.5), true);
  // A database of its own has its own clock: 8 ms from when it was made.
  const q = new Pacer();
  const t1 = performance.now();
  assert.equal(q.due(t1 + 1), false);
  assert.equal(p.due(t1 + 30), true);
  assert.equal(q.due(t1 + 30), true);
});
