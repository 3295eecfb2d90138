// Generators: per-call-site state continuing across batches, repeatable with
// a registry's random seed, ranges and NULL rates as QuestDB documents them, symbol
// dictionaries that stay the same object, timestamp_sequence.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ints, KX, longs, strs, ts, values, type V, REGISTRY } from './helpers.js';
import { createFunctionRegistry } from '../../lib/functions/index.js';
import type { FunctionRegistry } from '../../lib/functions/registry.js';
import type { ColumnVector } from '../../lib/core/column-vector.js';
import type { SqlType } from '../../lib/core/sql-type.js';
import { formatTimestamp } from '../../lib/core/datetime.js';

const K = (x: number | string | null, n: number, f: (v: (number | null)[]) => ColumnVector = ints): ColumnVector =>
  typeof x === 'string' ? strs(new Array(n).fill(x)) : f(new Array(n).fill(x));

/** The registry the generators are bound from: a new one made with a seed by seeded(). */
let registry: FunctionRegistry = REGISTRY;

/** Generators bound from now on come from a new registry made with random seed `n`. */
function seeded(n: number): void {
  registry = createFunctionRegistry({ randomSeed: n });
}

/** Binds a generator once and draws `batches` of `n` rows from it. */
function draw(
  name: string,
  types: SqlType[],
  argsOf: (n: number) => ColumnVector[],
  n: number,
  batches = 1,
): { type: SqlType; rows: V[]; vectors: ColumnVector[] } {
  const fn = registry.resolveScalar(name, types, 0);
  assert.equal(fn.deterministic, false);
  const vectors: ColumnVector[] = [];
  for (let b = 0; b < batches; b++) vectors.push(fn.kernel(argsOf(n), n, KX));
  return { type: fn.type, rows: vectors.flatMap(values), vectors };
}

test('a registry made with a random seed repeats its call sites; two call sites differ; registries do not share seeds', () => {
  seeded(42);
  const a = draw('rnd_int', [], () => [], 50).rows;
  const b = draw('rnd_int', [], () => [], 50).rows;
  seeded(42);
  assert.deepEqual(draw('rnd_int', [], () => [], 50).rows, a);
  assert.notDeepEqual(a, b);
  // Binding in one database does not move another's seeds: a second registry of seed 42 still starts at `a`.
  const first = createFunctionRegistry({ randomSeed: 42 });
  const second = createFunctionRegistry({ randomSeed: 42 });
  first.resolveScalar('rnd_int', [], 0);
  assert.deepEqual(values(second.resolveScalar('rnd_int', [], 0).kernel([], 50, KX)), a);
  assert.ok(a.every((x) => typeof x === 'number' && Number.isInteger(x)));
});

test('rnd_int(lo, hi, nanRate) stays in range with NULLs at the given rate', () => {
  seeded(1);
  const r = draw('rnd_int', ['INT', 'INT', 'INT'], (n) => [K(1, n), K(4, n), K(0, n)], 2000).rows;
  assert.ok(r.every((x) => x !== null && (x as number) >= 1 && (x as number) <= 4));
  assert.equal(new Set(r).size, 4);
  const all = draw('rnd_int', ['INT', 'INT', 'INT'], (n) => [K(1, n), K(4, n), K(1, n)], 100).rows;
  assert.ok(all.every((x) => x === null));
  const half = draw('rnd_int', ['INT', 'INT', 'INT'], (n) => [K(1, n), K(4, n), K(2, n)], 4000).rows;
  const nulls = half.filter((x) => x === null).length;
  assert.ok(nulls > 1600 && nulls < 2400, String(nulls));
  assert.throws(() => draw('rnd_int', ['INT', 'INT', 'INT'], (n) => [K(5, n), K(4, n), K(0, n)], 3), /invalid range/);
});

test('rnd_long, rnd_double, rnd_float, rnd_boolean, rnd_char, rnd_byte and rnd_short produce their types', () => {
  seeded(7);
  const l = draw('rnd_long', [], () => [], 200);
  assert.equal(l.type, 'LONG');
  assert.ok(l.vectors[0]!.kind === 'fixed' && l.vectors[0]!.exact, 'full-range longs carry exact int64 pairs');
  assert.ok(l.rows.some((x) => Math.abs(x as number) > 2 ** 53));
  const lr = draw(
    'rnd_long',
    ['LONG', 'LONG', 'INT'],
    (n) => [K(-10000000, n, longs), K(10000000, n, longs), K(0, n)],
    500,
  ).rows;
  assert.ok(lr.every((x) => (x as number) >= -10000000 && (x as number) <= 10000000));
  const d = draw('rnd_double', [], () => [], 1000).rows as number[];
  assert.ok(d.every((x) => x >= 0 && x < 1));
  const dn = draw('rnd_double', ['INT'], (n) => [K(2, n)], 1000).rows;
  assert.ok(dn.some((x) => x === null) && dn.some((x) => x !== null));
  const f = draw('rnd_float', [], () => [], 100);
  assert.equal(f.type, 'FLOAT');
  assert.ok((f.rows as number[]).every((x) => x >= 0 && x < 1 && Math.fround(x) === x));
  const b = draw('rnd_boolean', [], () => [], 200).rows;
  assert.ok(b.includes(true) && b.includes(false));
  const c = draw('rnd_char', [], () => [], 200).rows as string[];
  assert.ok(c.every((x) => /^[A-Z]$/.test(x)));
  const by = draw('rnd_byte', [], () => [], 200).rows as number[];
  assert.ok(by.every((x) => x >= 0 && x <= 127));
  const sh = draw('rnd_short', ['INT', 'INT'], (n) => [K(-1, n), K(1, n)], 200).rows as number[];
  assert.deepEqual([...new Set(sh)].sort(), [-1, 0, 1]);
});

test('rnd_timestamp and rnd_date stay between their bounds', () => {
  seeded(3);
  const lo = Date.parse('2015-01-01') * 1000,
    hi = Date.parse('2016-01-01') * 1000;
  const t = draw(
    'rnd_timestamp',
    ['TIMESTAMP', 'TIMESTAMP', 'INT'],
    (n) => [K(lo, n, (v) => longs(v, 'TIMESTAMP')), K(hi, n, (v) => longs(v, 'TIMESTAMP')), K(0, n)],
    500,
  );
  assert.equal(t.type, 'TIMESTAMP');
  assert.ok((t.rows as number[]).every((x) => x >= lo && x <= hi));
  const d = draw(
    'rnd_date',
    ['DATE', 'DATE', 'INT'],
    (n) => [K(lo / 1000, n, (v) => longs(v, 'DATE')), K(hi / 1000, n, (v) => longs(v, 'DATE')), K(0, n)],
    100,
  );
  assert.equal(d.type, 'DATE');
  assert.ok((d.rows as number[]).every((x) => x >= lo / 1000 && x <= hi / 1000));
});

test('rnd_symbol picks from a list or a generated dictionary that stays the same object', () => {
  seeded(11);
  const s = draw('rnd_symbol', ['STRING', 'STRING', 'STRING'], (n) => [K('ABC', n), K('def', n), K('行', n)], 300, 3);
  assert.equal(s.type, 'SYMBOL');
  assert.deepEqual(new Set(s.rows), new Set(['ABC', 'def', '行']));
  const dicts = s.vectors.map((v) => (v.kind === 'symbol' ? v.dict : null));
  assert.ok(dicts.every((d) => d === dicts[0]));
  const g = draw('rnd_symbol', ['INT', 'INT', 'INT', 'INT'], (n) => [K(5, n), K(3, n), K(4, n), K(4, n)], 1000, 2);
  const distinct = new Set(g.rows.filter((x) => x !== null));
  assert.ok(distinct.size <= 5 && distinct.size >= 4);
  assert.ok([...distinct].every((x) => /^[A-Z]{3,4}$/.test(x as string)));
  assert.ok(g.rows.includes(null));
});

test('rnd_str and rnd_varchar generate text of the asked lengths, from lists or finite sets', () => {
  seeded(5);
  const s = draw('rnd_str', ['INT', 'INT', 'INT'], (n) => [K(2, n), K(4, n), K(0, n)], 300);
  assert.equal(s.type, 'STRING');
  assert.ok((s.rows as string[]).every((x) => /^[A-Z]{2,4}$/.test(x)));
  const l = draw('rnd_str', ['STRING', 'STRING'], (n) => [K('B', n), K('S', n)], 100).rows;
  assert.deepEqual(new Set(l), new Set(['B', 'S']));
  const f = draw('rnd_str', ['INT', 'INT', 'INT', 'INT'], (n) => [K(3, n), K(5, n), K(5, n), K(0, n)], 300).rows;
  assert.ok(new Set(f).size <= 3);
  const v = draw('rnd_varchar', ['INT', 'INT', 'INT'], (n) => [K(1, n), K(8, n), K(3, n)], 600);
  assert.equal(v.type, 'VARCHAR');
  assert.ok(v.rows.includes(null));
  assert.ok((v.rows.filter((x) => x !== null) as string[]).every((x) => [...x].length >= 1 && [...x].length <= 8));
  // eslint-disable-next-line no-control-regex -- control characters are the point
  assert.ok((v.rows as (string | null)[]).some((x) => x !== null && /[^\x00-\x7f]/.test(x)));
  assert.deepEqual(draw('rnd_varchar', ['STRING'], (n) => [K('x', n)], 0).rows, []);
});

test('rnd_uuid4 makes version 4 UUIDs', () => {
  seeded(9);
  const u = draw('rnd_uuid4', [], () => [], 50);
  assert.equal(u.type, 'UUID');
  const text = values(REGISTRY.resolveScalar('cast_STRING', ['UUID'], 0).kernel([u.vectors[0]!], 50, KX)) as string[];
  assert.ok(
    text.every((s) => /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(s)),
    text[0],
  );
  assert.equal(new Set(text).size, 50);
});

test('timestamp_sequence continues across batches: row k is start + k * step', () => {
  const start = Date.parse('2019-10-17T00:00:00Z') * 1000;
  const seq = draw(
    'timestamp_sequence',
    ['TIMESTAMP', 'LONG'],
    (n) => [K(start, n, (v) => longs(v, 'TIMESTAMP')), K(100000, n, longs)],
    3,
    2,
  );
  assert.deepEqual(
    seq.rows.map((x) => formatTimestamp(x as number)),
    [
      '2019-10-17T00:00:00.000000Z',
      '2019-10-17T00:00:00.100000Z',
      '2019-10-17T00:00:00.200000Z',
      '2019-10-17T00:00:00.300000Z',
      '2019-10-17T00:00:00.400000Z',
      '2019-10-17T00:00:00.500000Z',
    ],
  );
  // A varying step adds up row by row.
  const v = draw(
    'timestamp_sequence',
    ['TIMESTAMP', 'LONG'],
    () => [ts(['2020-01-01', '2020-01-01', '2020-01-01']), longs([1, 2, 3])],
    3,
  );
  const t0 = Date.parse('2020-01-01') * 1000;
  assert.deepEqual(v.rows, [t0, t0 + 1, t0 + 3]);
});
