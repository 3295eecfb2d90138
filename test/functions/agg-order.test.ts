// twap and isOrdered (functions/agg-order.ts): the states over batches cut anywhere give the
// one-pass answer, twap equals a brute-force step-function mean, and through SQL over a table of
// many partitions (keyless, keyed, SAMPLE BY; 1 and 3 worker threads) the answers equal the
// brute force computed from the same rows.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openDatabase, type Row } from 'svcdb';
import { makeRoot } from '../helpers/server-process.js';
import { mulberry32 } from '../helpers/prng.js';
import { aggregate, doubles, longs, type V } from './helpers.js';

/** The definition: observations sorted by time, each price weighted by the time to the next. */
function bruteTwap(obs: ReadonlyArray<readonly [number | null, number]>): number | null {
  const xs = obs.filter(([p]) => p !== null) as Array<[number, number]>;
  if (xs.length === 0) return null;
  const total = xs[xs.length - 1]![1] - xs[0]![1];
  if (total === 0) return xs.reduce((s, [p]) => s + p, 0) / xs.length;
  let w = 0;
  for (let i = 0; i + 1 < xs.length; i++) w += xs[i]![0] * (xs[i + 1]![1] - xs[i]![1]);
  return w / total;
}

/** twap over `obs` (in time order) fed in batches cut at `cuts`, groups by `ids`. */
function twapBatches(
  obs: ReadonlyArray<readonly [number | null, number]>,
  ids: readonly number[],
  cuts: readonly number[],
  groups: number,
): V[] {
  const bounds = [0, ...cuts, obs.length];
  const batches: Array<[number[], ReturnType<typeof doubles>[]]> = [];
  for (let b = 0; b + 1 < bounds.length; b++) {
    const part = obs.slice(bounds[b], bounds[b + 1]);
    batches.push([
      ids.slice(bounds[b], bounds[b + 1]),
      [
        doubles(part.map(([p]) => p)),
        longs(
          part.map(([, t]) => t),
          'TIMESTAMP',
        ),
      ],
    ]);
  }
  return aggregate('twap', ['DOUBLE', 'TIMESTAMP'], batches, groups);
}

const close = (a: V, b: number | null, what: string): void => {
  if (b === null) return assert.equal(a, null, what);
  assert.ok(typeof a === 'number' && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
};

test('twap: QuestDB cases, NULLs, one observation, one instant', () => {
  const s = 1_000_000;
  assert.deepEqual(
    twapBatches(
      [
        [10, 0],
        [20, 10 * s],
        [30, 30 * s],
      ],
      [0, 0, 0],
      [],
      1,
    ),
    [16.666666666666668],
  );
  assert.deepEqual(twapBatches([[42.5, 0]], [0], [], 1), [42.5]);
  assert.deepEqual(
    twapBatches(
      [
        [10, 5],
        [20, 5],
        [30, 5],
      ],
      [0, 0, 0],
      [1],
      1,
    ),
    [20],
  );
  assert.deepEqual(
    twapBatches(
      [
        [10, 0],
        [null, 10],
        [30, 20],
      ],
      [0, 0, 0],
      [],
      1,
    ),
    [10],
  );
  assert.deepEqual(twapBatches([], [], [], 1), [null]);
  // Group 1 never has a valid row.
  assert.deepEqual(
    twapBatches(
      [
        [null, 0],
        [1, 1],
      ],
      [1, 0],
      [],
      2,
    ),
    [1, null],
  );
});

test('twap: batches cut anywhere and interleaved groups give the brute-force answer', () => {
  const rnd = mulberry32(82);
  for (let round = 0; round < 200; round++) {
    const n = 1 + Math.floor(rnd() * 60);
    const groups = 1 + Math.floor(rnd() * 4);
    const obs: Array<[number | null, number]> = [];
    const ids: number[] = [];
    let t = 1_700_000_000_000_000;
    for (let i = 0; i < n; i++) {
      if (rnd() < 0.7) t += Math.floor(rnd() * 5_000_000); // repeated timestamps too
      obs.push([rnd() < 0.15 ? null : Math.round(rnd() * 10_000) / 100, t]);
      ids.push(Math.floor(rnd() * groups));
    }
    const cuts = [...new Set(Array.from({ length: Math.floor(rnd() * 5) }, () => Math.floor(rnd() * n)))].sort(
      (a, b) => a - b,
    );
    const got = twapBatches(obs, ids, cuts, groups);
    for (let g = 0; g < groups; g++)
      close(got[g]!, bruteTwap(obs.filter((_, i) => ids[i] === g)), `round ${round} g ${g}`);
    // The same rows in one batch: the very same doubles.
    assert.deepEqual(twapBatches(obs, ids, [], groups), got);
  }
});

test('twap refuses rows that go back in time', () => {
  assert.throws(
    () =>
      twapBatches(
        [
          [1, 10],
          [2, 5],
        ],
        [0, 0],
        [],
        1,
      ),
    /ascending designated timestamp order/,
  );
});

test('isOrdered: equal values allowed, a decrease or a NULL after a value breaks it, exact past 2^53', () => {
  const run = (xs: Array<number | null>, cuts: number[] = []): V[] => {
    const bounds = [0, ...cuts, xs.length];
    const batches = [];
    for (let b = 0; b + 1 < bounds.length; b++) {
      const part = xs.slice(bounds[b], bounds[b + 1]);
      batches.push([part.map(() => 0), [longs(part)]] as const);
    }
    return aggregate('isordered', ['LONG'], batches, 1);
  };
  assert.deepEqual(run([1, 2, 2, 3]), [true]);
  assert.deepEqual(run([1, 2, 2, 3], [2]), [true]);
  assert.deepEqual(run([1, 3, 2]), [false]);
  assert.deepEqual(run([3, 1], [1]), [false]);
  assert.deepEqual(run([null, 1, 2]), [true]);
  assert.deepEqual(run([1, null]), [false]);
  assert.deepEqual(run([null, null]), [true]);
  assert.deepEqual(run([]), [false]);
  // Broken stays broken.
  assert.deepEqual(run([5, 1, 6, 7]), [false]);
  const big = (v: bigint): ReturnType<typeof longs> => {
    const exact = new Int32Array(2);
    exact[0] = Number(v & 0xffffffffn) | 0;
    exact[1] = Number(v >> 32n) | 0;
    return { kind: 'fixed', type: 'LONG', data: Float64Array.of(Number(v)), exact };
  };
  const pair = (a: bigint, b: bigint): V[] =>
    aggregate(
      'isordered',
      ['LONG'],
      [
        [[0], [big(a)]],
        [[0], [big(b)]],
      ],
      1,
    );
  // Both round to 2^63 as doubles.
  assert.deepEqual(pair(9223372036854775807n, 9223372036854775806n), [false]);
  assert.deepEqual(pair(9223372036854775806n, 9223372036854775807n), [true]);
});

describe('twap over many partitions and workers equals the brute force', () => {
  // Row x: price x*37 mod 1000 / 10 (NULL every 13th), three rows per timestamp, 11 s apart, key x mod 4.
  const N = 60_000;
  const START = Date.UTC(2024, 0, 1) * 1000;
  const rowsOf = (): Array<{ p: number | null; t: number; k: string }> =>
    Array.from({ length: N }, (_, i) => {
      const x = i + 1;
      return {
        p: x % 13 === 0 ? null : ((x * 37) % 1000) / 10,
        t: START + Math.floor(x / 3) * 11_000_000,
        k: `k${x % 4}`,
      };
    });
  let root = '';
  const answers = new Map<number, Row[][]>();
  before(async () => {
    root = makeRoot();
    const db = openDatabase(root, { workerCount: 1 });
    await db.execute('create table tw (k symbol, price double, ts timestamp) timestamp(ts) partition by hour');
    await db.execute(`insert into tw
      select 'k' || (x % 4), case when x % 13 = 0 then null else (x * 37 % 1000) / 10.0 end,
        cast(${START} + (x / 3) * 11_000_000 as timestamp)
      from long_sequence(${N})`);
    await db.close();
    process.env.SVC_CAIRO_SQL_PAGE_FRAME_MIN_ROWS = '5000';
    process.env.SVC_CAIRO_SQL_PAGE_FRAME_MAX_ROWS = '20000';
    try {
      for (const workers of [1, 3]) {
        const db = openDatabase(root, { workerCount: workers });
        try {
          const out: Row[][] = [];
          for (const sql of [
            'select twap(price, ts) t, count() n from tw',
            'select k, twap(price, ts) t from tw order by k',
            'select ts, twap(price, ts) t from tw sample by 1h',
            "select twap(price, ts) t from tw where ts in '2024-01-01T03'",
          ]) {
            const rows: Row[] = [];
            for await (const r of db.query(sql).rows()) rows.push(r);
            out.push(rows);
          }
          answers.set(workers, out);
        } finally {
          await db.close();
        }
      }
    } finally {
      delete process.env.SVC_CAIRO_SQL_PAGE_FRAME_MIN_ROWS;
      delete process.env.SVC_CAIRO_SQL_PAGE_FRAME_MAX_ROWS;
    }
  });
  after(() => answers.clear());

  test('keyless, keyed, SAMPLE BY and an interval, on 1 and 3 threads', () => {
    const data = rowsOf();
    const obs = (rows: typeof data): Array<[number | null, number]> => rows.map((r) => [r.p, r.t]);
    const hours = new Set(data.map((r) => Math.floor((r.t - START) / 3_600_000_000)));
    assert.ok(hours.size > 40, `partitions: ${hours.size}`);
    for (const workers of [1, 3]) {
      const [all, keyed, sampled, interval] = answers.get(workers)!;
      assert.equal(all![0]!.n, N);
      close(all![0]!.t as number, bruteTwap(obs(data)), 'keyless');
      assert.equal(keyed!.length, 4);
      for (const r of keyed!)
        close(r.t as number, bruteTwap(obs(data.filter((d) => d.k === r.k))), `key ${String(r.k)}`);
      assert.equal(sampled!.length, hours.size);
      for (const r of sampled!) {
        const h = Math.floor((Date.parse(String(r.ts)) * 1000 - START) / 3_600_000_000);
        close(
          r.t as number,
          bruteTwap(obs(data.filter((d) => Math.floor((d.t - START) / 3_600_000_000) === h))),
          `hour ${h}`,
        );
      }
      const h3 = data.filter((d) => Math.floor((d.t - START) / 3_600_000_000) === 3);
      close(interval![0]!.t as number, bruteTwap(obs(h3)), 'interval');
    }
    assert.deepEqual(answers.get(3), answers.get(1));
  });
});
