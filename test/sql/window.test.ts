// Seeded randomized differential test of window functions: random functions,
// PARTITION BY, ORDER BY and ROWS/RANGE frames over a random multi-partition
// table (several scan batches, duplicate timestamps, NULL keys and values) run
// through compile() and through a brute-force evaluator (per row: sort its
// partition, list its frame by definition, apply the function). Reproduce a
// failure with SVCDB_WINDOW_SEED=<seed>; SVCDB_WINDOW_QUERIES sets the count.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Catalog } from '../../lib/storage/catalog.js';
import { compile } from '../../lib/exec/engine.js';
import { valueAt } from '../../lib/exec/vectors.js';
import { INT_NULL } from '../../lib/core/column-type.js';
import { mulberry32 } from '../helpers/prng.js';
import { ENGINE } from '../helpers/engine.js';

const SEED = Number(process.env.SVCDB_WINDOW_SEED ?? 20240612);
const QUERIES = Number(process.env.SVCDB_WINDOW_QUERIES ?? 100);
const ROWS = 3_000;

type V = number | string | null;
interface Row {
  ts: number;
  k: string | null;
  g: number | null;
  x: number | null;
}
type Col = 'ts' | 'k' | 'g' | 'x';

const root = mkdtempSync(join(tmpdir(), 'svcdb-window-'));
const catalog = Catalog.open(join(root, 'db'), {
  commitMode: 'nosync',
  writerWaitMs: 1000,
  readerCacheSize: 64 << 20,
  maxUncommittedRows: 1_000_000,
  o3MaxLag: 0,
});
const signal = new AbortController().signal;
const rows: Row[] = [];

const rng = mulberry32;

const rand = rng(SEED);
const int = (n: number): number => Math.floor(rand() * n);
const pickOne = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;

before(async () => {
  const create = compile('CREATE TABLE t (ts TIMESTAMP, k SYMBOL, g INT, x DOUBLE) TIMESTAMP(ts) PARTITION BY DAY', {
    ...ENGINE,
    catalog,
  });
  assert.ok(create.kind === 'ddl');
  await create.execute(signal);
  let ts = Date.UTC(2024, 0, 1) * 1000;
  for (let i = 0; i < ROWS; i++) {
    ts += int(4) === 0 ? 0 : int(200) * 1_000_000; // duplicate timestamps are peers in RANGE frames
    rows.push({
      ts,
      k: rand() < 0.1 ? null : pickOne(['a', 'b', 'c']),
      g: rand() < 0.1 ? null : int(6),
      x: rand() < 0.15 ? null : int(41) - 20,
    });
  }
  const w = await catalog.writer('t');
  w.append({
    rowCount: rows.length,
    columns: {
      ts: Float64Array.from(rows, (r) => r.ts),
      k: rows.map((r) => r.k),
      g: Int32Array.from(rows, (r) => (r.g === null ? INT_NULL : r.g)),
      x: Float64Array.from(rows, (r) => (r.x === null ? NaN : r.x)),
    },
  });
  w.commit();
  w.close();
  assert.ok(rows[rows.length - 1]!.ts - rows[0]!.ts > 86_400_000_000, 'the table spans several day partitions');
});

after(() => {
  catalog.close();
  rmSync(root, { recursive: true, force: true });
});

interface Spec {
  fn: string;
  arg: Col | null;
  offset: number | null;
  dflt: number | null;
  ignoreNulls: boolean;
  partition: Col[];
  order: Array<[Col, boolean]>;
  /** unit, start, end (signed, infinities for UNBOUNDED; RANGE offsets in the key's units), and the SQL. */
  frame: { unit: 'ROWS' | 'RANGE'; start: number; end: number; sql: string } | null;
}

function cmp(a: V, b: V): number {
  if (a === null) return b === null ? 0 : -1;
  if (b === null) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

const boundSql = (x: number, unit: string): string =>
  x === -Infinity
    ? 'UNBOUNDED PRECEDING'
    : x === Infinity
      ? 'UNBOUNDED FOLLOWING'
      : x === 0
        ? 'CURRENT ROW'
        : `${Math.abs(x) / (unit === 'MINUTE' ? 60e6 : unit === 'SECOND' ? 1e6 : 1)}${unit ? ` ${unit}` : ''} ${x < 0 ? 'PRECEDING' : 'FOLLOWING'}`;

function randomSpec(): Spec {
  const fn = pickOne([
    'row_number',
    'rank',
    'dense_rank',
    'percent_rank',
    'cume_dist',
    'ntile',
    'lag',
    'lead',
    'first_value',
    'last_value',
    'sum',
    'avg',
    'min',
    'max',
    'count',
  ]);
  const partition = pickOne<Col[]>([[], ['k'], ['g'], ['k', 'g']]);
  const order = pickOne<Array<[Col, boolean]>>([
    [],
    [['ts', false]],
    [['ts', true]],
    [['x', false]],
    [['x', true]],
    [
      ['g', false],
      ['x', true],
    ],
    [['k', false]],
  ]);
  let arg: Col | null = null;
  if (['sum', 'avg', 'min', 'max'].includes(fn)) arg = pickOne<Col>(['x', 'g']);
  else if (['lag', 'lead', 'first_value', 'last_value'].includes(fn)) arg = pickOne<Col>(['x', 'g', 'k']);
  else if (fn === 'count') arg = pickOne<Col | null>([null, 'x', 'k']);
  let offset: number | null = null,
    dflt: number | null = null;
  if (fn === 'ntile') offset = 1 + int(7);
  if (fn === 'lag' || fn === 'lead') {
    if (rand() < 0.7) offset = int(4);
    if (arg !== 'k' && rand() < 0.4) {
      offset ??= 1;
      dflt = int(100);
    }
  }
  const ignoreNulls = ['lag', 'lead', 'first_value', 'last_value'].includes(fn) && rand() < 0.4;
  let frame: Spec['frame'] = null;
  if (rand() < 0.75 && fn !== 'cume_dist' && fn !== 'ntile') {
    const single = order.length === 1 && (order[0]![0] === 'ts' || order[0]![0] === 'x');
    const useRange = rand() < 0.5;
    if (useRange && single) {
      const unit = order[0]![0] === 'ts' ? pickOne(['SECOND', 'MINUTE', '']) : '';
      const scale = unit === 'MINUTE' ? 60e6 : unit === 'SECOND' ? 1e6 : order[0]![0] === 'ts' ? 1 : 1;
      const off = (): number =>
        unit === '' && order[0]![0] === 'ts' ? int(90) * 1e6 : int(unit === 'MINUTE' ? 3 : 60) * scale;
      const [start, end] = randomBounds(off);
      frame = { unit: 'RANGE', start, end, sql: `RANGE BETWEEN ${boundSql(start, unit)} AND ${boundSql(end, unit)}` };
    } else if (useRange) {
      const start = pickOne([-Infinity, 0]);
      const end = start === 0 ? pickOne([0, Infinity]) : pickOne([0, Infinity]);
      frame = { unit: 'RANGE', start, end, sql: `RANGE BETWEEN ${boundSql(start, '')} AND ${boundSql(end, '')}` };
    } else {
      const [start, end] = randomBounds(() => int(6));
      frame = { unit: 'ROWS', start, end, sql: `ROWS BETWEEN ${boundSql(start, '')} AND ${boundSql(end, '')}` };
    }
  }
  return { fn, arg, offset, dflt, ignoreNulls, partition, order, frame };
}

/** A valid (start <= end) pair of bounds. */
function randomBounds(off: () => number): [number, number] {
  for (;;) {
    const b = (): number => {
      const r = int(5);
      return r === 0 ? -Infinity : r === 1 ? Infinity : r === 2 ? 0 : r === 3 ? -off() : off();
    };
    const s = b(),
      e = b();
    if (s === Infinity || e === -Infinity || s > e) continue;
    if (s === 0 && e < 0) continue;
    return [s === 0 ? 0 : s, e === 0 ? 0 : e]; // -0 as 0
  }
}

function sqlOf(s: Spec): string {
  const args: string[] =
    s.fn === 'count' && s.arg === null ? ['*'] : s.arg ? [s.arg] : s.fn === 'ntile' ? [String(s.offset)] : [];
  if (s.offset !== null && s.fn !== 'ntile') args.push(String(s.offset));
  if (s.dflt !== null) args.push(String(s.dflt));
  const parts: string[] = [];
  if (s.partition.length) parts.push(`PARTITION BY ${s.partition.join(', ')}`);
  if (s.order.length) parts.push(`ORDER BY ${s.order.map(([c, d]) => c + (d ? ' DESC' : '')).join(', ')}`);
  if (s.frame) parts.push(s.frame.sql);
  return `SELECT ${s.fn}(${args.join(', ')})${s.ignoreNulls ? ' IGNORE NULLS' : ''} OVER (${parts.join(' ')}) FROM t`;
}

/** The brute-force evaluator: QuestDB's documented semantics with SQL-standard RANGE peers. */
function reference(s: Spec): V[] {
  const out: V[] = new Array(rows.length).fill(null);
  const parts = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const key = JSON.stringify(s.partition.map((c) => r[c]));
    const list = parts.get(key);
    if (list) list.push(i);
    else parts.set(key, [i]);
  });
  const byOrder = (a: number, b: number): number => {
    for (const [c, desc] of s.order) {
      const r = cmp(rows[a]![c], rows[b]![c]);
      if (r !== 0) return desc ? -r : r;
    }
    return a - b;
  };
  const peers = (a: number, b: number): boolean => s.order.every(([c]) => cmp(rows[a]![c], rows[b]![c]) === 0);
  const val = (i: number): V => (s.arg ? rows[i]![s.arg] : 1);
  for (const list of parts.values()) {
    const idx = [...list].sort(byOrder);
    const m = idx.length;
    // Frame membership by definition.
    const frame =
      s.frame ??
      (s.order.length
        ? { unit: 'RANGE' as const, start: -Infinity, end: 0 }
        : { unit: 'ROWS' as const, start: -Infinity, end: Infinity });
    const rangeOffsets =
      frame.unit === 'RANGE' &&
      ((frame.start !== 0 && Number.isFinite(frame.start)) || (frame.end !== 0 && Number.isFinite(frame.end)));
    const key = (q: number): number => {
      const [c, desc] = s.order[0]!;
      const v = rows[idx[q]!]![c] as number | null;
      return v === null ? (desc ? Infinity : -Infinity) : desc ? -v : v;
    };
    for (let p = 0; p < m; p++) {
      const i = idx[p]!;
      switch (s.fn) {
        case 'row_number':
          out[i] = p + 1;
          continue;
        case 'percent_rank':
        case 'cume_dist': {
          let first = p,
            last = p;
          while (first > 0 && peers(idx[first - 1]!, i)) first--;
          while (last + 1 < m && peers(idx[last + 1]!, i)) last++;
          out[i] = s.fn === 'cume_dist' ? (last + 1) / m : m === 1 ? 0 : first / (m - 1);
          continue;
        }
        case 'ntile': {
          // Bucket b (0-based) holds floor(m / n) rows, one more for the first m % n buckets.
          const nb = s.offset!;
          let b = 0,
            acc = 0;
          while (acc + Math.floor(m / nb) + (b < m % nb ? 1 : 0) <= p) {
            acc += Math.floor(m / nb) + (b < m % nb ? 1 : 0);
            b++;
          }
          out[i] = b + 1;
          continue;
        }
        case 'rank':
        case 'dense_rank': {
          let first = p;
          while (first > 0 && peers(idx[first - 1]!, i)) first--;
          let groups = 0;
          for (let q = 0; q <= first; q++) if (q === 0 || !peers(idx[q - 1]!, idx[q]!)) groups++;
          out[i] = s.fn === 'rank' ? first + 1 : groups;
          continue;
        }
        case 'lag':
        case 'lead': {
          const off = s.offset ?? 1;
          if (s.ignoreNulls && off > 0) {
            const cand: number[] = [];
            for (let q = 0; q < m; q++) if (val(idx[q]!) !== null && (s.fn === 'lag' ? q < p : q > p)) cand.push(q);
            if (s.fn === 'lag') cand.reverse();
            out[i] = cand.length >= off ? val(idx[cand[off - 1]!]!) : s.dflt;
          } else {
            const q = s.fn === 'lag' ? p - off : p + off;
            out[i] = q >= 0 && q < m ? val(idx[q]!) : s.dflt;
          }
          continue;
        }
        default:
          break;
      }
      const inFrame: number[] = [];
      for (let q = 0; q < m; q++) {
        let ok: boolean;
        if (frame.unit === 'ROWS') ok = q >= p + frame.start && q <= p + frame.end;
        else if (rangeOffsets) {
          ok =
            (frame.start === -Infinity || key(q) >= key(p) + frame.start) &&
            (frame.end === Infinity || key(q) <= key(p) + frame.end);
        } else {
          const lo = frame.start === -Infinity ? -1 : 0,
            hi = frame.end === Infinity ? 1 : 0;
          const c = peers(idx[q]!, i) ? 0 : byOrder(idx[q]!, i) < 0 ? -1 : 1;
          ok = c >= lo && c <= hi;
        }
        if (ok) inFrame.push(idx[q]!);
      }
      const vals = inFrame.map(val);
      const nn = vals.filter((v): v is number | string => v !== null);
      const nums = nn as number[];
      switch (s.fn) {
        case 'count':
          out[i] = s.arg === null ? vals.length : nn.length;
          break;
        case 'sum':
          out[i] = nn.length ? nums.reduce((a, b) => a + b, 0) : null;
          break;
        case 'avg':
          out[i] = nn.length ? nums.reduce((a, b) => a + b, 0) / nn.length : null;
          break;
        case 'min':
          out[i] = nn.length ? Math.min(...nums) : null;
          break;
        case 'max':
          out[i] = nn.length ? Math.max(...nums) : null;
          break;
        case 'first_value': {
          const src = s.ignoreNulls ? nn : vals;
          out[i] = src.length ? src[0]! : null;
          break;
        }
        case 'last_value': {
          const src = s.ignoreNulls ? nn : vals;
          out[i] = src.length ? src[src.length - 1]! : null;
          break;
        }
        default:
          throw new Error(s.fn);
      }
    }
  }
  return out;
}

async function actual(sql: string): Promise<V[]> {
  const s = compile(sql, { ...ENGINE, catalog });
  assert.ok(s.kind === 'select');
  const out: V[] = [];
  for await (const b of s.execute(signal))
    for (let i = 0; i < b.rowCount; i++) out.push(valueAt(b.columns[0]!, i) as V);
  return out;
}

test(`window functions agree with a brute-force evaluator on ${QUERIES} random windows (seed ${SEED})`, async () => {
  for (let q = 0; q < QUERIES; q++) {
    const spec = randomSpec();
    const sql = sqlOf(spec);
    const got = await actual(sql);
    const want = reference(spec);
    assert.equal(got.length, want.length, sql);
    for (let i = 0; i < want.length; i++) {
      if (got[i] !== want[i])
        assert.fail(
          `seed ${SEED} query ${q}: ${sql}\nrow ${i} (${JSON.stringify(rows[i])}): expected ${String(want[i])}, got ${String(got[i])}`,
        );
    }
  }
});

test('the same window twice, in the select list and in ORDER BY, is computed once and sorts the result', async () => {
  const s = compile(
    'SELECT x, sum(x) OVER (PARTITION BY k) s FROM t ORDER BY sum(x) OVER (PARTITION BY k), ts LIMIT 5',
    { ...ENGINE, catalog },
  );
  assert.ok(s.kind === 'select');
  const plan = JSON.stringify(s.plan, (k, v: unknown) => (k === 'fn' && typeof v === 'object' ? undefined : v));
  assert.equal(plan.match(/"kind":"window"/g)?.length, 1);
  assert.equal(plan.match(/"fn":"sum"/g)?.length, 1);
  let prev = -Infinity;
  for await (const b of s.execute(signal)) {
    for (let i = 0; i < b.rowCount; i++) {
      const v = valueAt(b.columns[1]!, i) as number | null;
      const n = v === null ? -Infinity : v;
      assert.ok(n >= prev);
      prev = n;
    }
  }
});

test('a query over more rows than the memory limit allows fails with the limit error', async () => {
  const s = compile('SELECT row_number() OVER (ORDER BY x) FROM t', { ...ENGINE, catalog, memoryLimit: 64 * 1024 });
  assert.ok(s.kind === 'select');
  await assert.rejects(async () => {
    for await (const b of s.execute(signal)) void b;
  }, /window functions needs more than the memory limit/);
});
