// lib/core/vector-ops.ts against a model of rows as strings: slices, copies,
// concatenation, gathering (with -1 -> NULL) and picking give the rows they
// should for every vector kind (fixed, exact int64 pairs, symbol, var with and
// without NULLs) and type layout (UUID, LONG256, DECIMAL, GEOHASH, arrays,
// TIMESTAMP_NS), including empty vectors and zero-length slices.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_BATCH_ROWS, type Batch } from '../../lib/core/batch.js';
import { typeInfo, type ColumnType } from '../../lib/core/column-type.js';
import {
  nullVector,
  rowsOf,
  varFromStrings,
  type ColumnVector,
  type FixedVector,
  type SymbolVector,
  type VarVector,
} from '../../lib/core/column-vector.js';
import { arraysFromTexts } from '../../lib/core/array-values.js';
import {
  concatBatches,
  concatVectors,
  copySlice,
  gatherBatch,
  gatherFromBatches,
  gatherOrNull,
  gatherVector,
  mergeDicts,
  pickRows,
  sliceBatch,
  sliceBatches,
  sliceVector,
} from '../../lib/core/vector-ops.js';

const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');

/** Row i of `v` as text: its bytes (and exact pair), its symbol, or its var bytes; 'NULL' for var and symbol NULLs. */
function rowOf(v: ColumnVector, i: number): string {
  switch (v.kind) {
    case 'fixed': {
      const w = typeInfo(v.type).stride;
      const e = v.data.BYTES_PER_ELEMENT;
      const bytes = new Uint8Array(v.data.buffer, v.data.byteOffset + i * w * e, w * e);
      return hex(bytes) + (v.exact ? `/${v.exact[2 * i]},${v.exact[2 * i + 1]}` : '');
    }
    case 'symbol':
      return v.keys[i]! < 0 ? 'NULL' : `S${v.dict[v.keys[i]!]}`;
    case 'var':
      return v.nulls?.[i] ? 'NULL' : `V${hex(v.bytes.subarray(v.offsets[i]!, v.offsets[i + 1]!))}`;
  }
}

function rowsText(v: ColumnVector): string[] {
  return Array.from({ length: rowsOf(v) }, (_, i) => rowOf(v, i));
}

/** The shape invariants every vector keeps: the arrays of one row count agree. */
function assertShape(v: ColumnVector, rows: number): void {
  assert.equal(rowsOf(v), rows);
  if (v.kind === 'fixed' && v.exact) assert.equal(v.exact.length, 2 * rows);
  if (v.kind === 'var') {
    if (v.nulls) assert.equal(v.nulls.length, rows);
    assert.ok(v.offsets[rows]! <= v.bytes.length);
  }
}

/** What a NULL row of `v` looks like: its type's sentinel bytes (and NULL pair where `v` has pairs), or 'NULL'. */
function nullRow(v: ColumnVector): string {
  if (v.kind !== 'fixed') return 'NULL';
  return rowOf(nullVector(v.type, 1), 0).split('/')[0]! + (v.exact ? '/0,-2147483648' : '');
}

const enc = new TextEncoder();
const TWO32 = 4294967296;

/** LONG with values beyond 2^53 (only their pairs are exact) and NULL. */
function exactLongs(): FixedVector {
  const big = [2n ** 60n + 1n, -(2n ** 55n) - 3n, 7n, -9223372036854775808n, 2n ** 53n + 1n];
  const exact = new Int32Array(big.length * 2);
  const data = new Float64Array(big.length);
  big.forEach((b, i) => {
    exact[2 * i] = Number(BigInt.asIntN(32, b));
    exact[2 * i + 1] = Number(BigInt.asIntN(32, b >> 32n));
    data[i] = exact[2 * i + 1]! * TWO32 + (exact[2 * i]! >>> 0);
  });
  return { kind: 'fixed', type: 'LONG', data, exact };
}

function byteRows(type: ColumnType, rows: number, seed: number): FixedVector {
  const w = typeInfo(type).stride;
  const data = new Uint8Array(rows * w);
  for (let i = 0; i < data.length; i++) data[i] = (i * 31 + seed) & 0xff;
  return { kind: 'fixed', type, data };
}

/** One vector of every kind and layout, each with a NULL somewhere. */
function samples(): Record<string, ColumnVector> {
  const nanos = exactLongs();
  return {
    BOOLEAN: { kind: 'fixed', type: 'BOOLEAN', data: Uint8Array.from([1, 0, 1, 1, 0]) },
    BYTE: { kind: 'fixed', type: 'BYTE', data: Int8Array.from([-128, 0, 5, 127, -1]) },
    SHORT: { kind: 'fixed', type: 'SHORT', data: Int16Array.from([-32768, 1, 2, 32767, 0]) },
    CHAR: { kind: 'fixed', type: 'CHAR', data: Uint16Array.from([65, 0, 0x263a, 66, 67]) },
    INT: { kind: 'fixed', type: 'INT', data: Int32Array.from([1, -2147483648, 3, 2147483647, -5]) },
    IPV4: { kind: 'fixed', type: 'IPV4', data: Int32Array.from([0, -1, 0x7f000001, 5, 6]) },
    FLOAT: { kind: 'fixed', type: 'FLOAT', data: Float32Array.from([1.5, NaN, -0, 3.25, 1e30]) },
    DOUBLE: { kind: 'fixed', type: 'DOUBLE', data: Float64Array.from([0.1, NaN, -0, 1e300, -7]) },
    TIMESTAMP: {
      kind: 'fixed',
      type: 'TIMESTAMP',
      data: Float64Array.from([0, -9223372036854775808, 1700000000000000, 5, 6]),
    },
    'LONG exact': exactLongs(),
    'TIMESTAMP_NS exact': { ...nanos, type: 'TIMESTAMP_NS' },
    UUID: byteRows('UUID', 5, 1),
    LONG256: byteRows('LONG256', 5, 2),
    'DECIMAL(2,0)': byteRows('DECIMAL(2,0)', 5, 3),
    'DECIMAL(4,1)': byteRows('DECIMAL(4,1)', 5, 4),
    'DECIMAL(9,2)': byteRows('DECIMAL(9,2)', 5, 5),
    'DECIMAL(18,3)': byteRows('DECIMAL(18,3)', 5, 6),
    'DECIMAL(30,2)': byteRows('DECIMAL(30,2)', 5, 7),
    'DECIMAL(60,2)': byteRows('DECIMAL(60,2)', 5, 8),
    'GEOHASH(1c)': byteRows('GEOHASH(1c)', 5, 9),
    'GEOHASH(3c)': byteRows('GEOHASH(3c)', 5, 10),
    'GEOHASH(6c)': byteRows('GEOHASH(6c)', 5, 11),
    'GEOHASH(12c)': byteRows('GEOHASH(12c)', 5, 12),
    SYMBOL: { kind: 'symbol', type: 'SYMBOL', keys: Int32Array.from([0, -1, 2, 1, 0]), dict: ['a', 'b', 'c'] },
    'VARCHAR nulls': varFromStrings('VARCHAR', ['ab', null, '', 'é€😀', 'x'.repeat(40)]),
    'STRING no nulls': varFromStrings('STRING', ['one', 'two', '', 'four', 'y'.repeat(33)]),
    BINARY: varFromStrings('BINARY', ['\u0001', null, 'bin', '', 'z']),
    'DOUBLE[]': arraysFromTexts('DOUBLE[]', ['[1.0,2.0]', null, '[]', '[3.5]', '[4.0,5.0,6.0]']),
    'DOUBLE[][]': arraysFromTexts('DOUBLE[][]', ['[[1.0],[2.0]]', '[[3.0]]', null, '[]', '[[4.0,5.0]]']),
  };
}

test('sliceVector views rows [lo, hi) without copying, for every kind, including zero-length slices', () => {
  for (const [name, v] of Object.entries(samples())) {
    const rows = rowsText(v);
    for (const [lo, hi] of [
      [0, 5],
      [1, 4],
      [2, 2],
      [0, 0],
      [5, 5],
      [4, 5],
    ] as const) {
      const s = sliceVector(v, lo, hi);
      assertShape(s, hi - lo);
      assert.deepEqual(rowsText(s), rows.slice(lo, hi), `${name} [${lo}, ${hi})`);
      const shared =
        s.kind === 'fixed'
          ? s.data.buffer === (v as FixedVector).data.buffer
          : s.kind === 'symbol'
            ? s.keys.buffer === (v as SymbolVector).keys.buffer
            : s.bytes === (v as VarVector).bytes && s.offsets.buffer === (v as VarVector).offsets.buffer;
      assert.ok(shared, `${name}: a slice shares its arrays`);
    }
    // A slice of a slice is the same rows as one slice.
    assert.deepEqual(rowsText(sliceVector(sliceVector(v, 1, 5), 1, 3)), rows.slice(2, 4), name);
  }
});

test('copySlice copies rows [lo, hi) into arrays of their own, with every array listed for transfer', () => {
  for (const [name, v] of Object.entries(samples())) {
    const rows = rowsText(v);
    for (const [lo, hi] of [
      [0, 5],
      [1, 4],
      [3, 3],
    ] as const) {
      const transfer: ArrayBuffer[] = [];
      const c = copySlice(v, lo, hi, transfer);
      assertShape(c, hi - lo);
      assert.deepEqual(rowsText(c), rows.slice(lo, hi), `${name} [${lo}, ${hi})`);
      if (c.kind === 'fixed') {
        assert.notEqual(c.data.buffer, (v as FixedVector).data.buffer);
        assert.deepEqual(transfer, c.exact ? [c.data.buffer, c.exact.buffer] : [c.data.buffer]);
      }
      if (c.kind === 'var') {
        assert.equal(c.offsets[0], 0, `${name}: offsets rebased`);
        assert.equal(c.bytes.length, c.offsets[hi - lo], `${name}: just the rows' bytes`);
        assert.ok(
          transfer.includes(c.bytes.buffer as ArrayBuffer) && transfer.includes(c.offsets.buffer as ArrayBuffer),
        );
      }
    }
  }
  // The copy does not follow later writes to the source (a reused builder buffer).
  const src: FixedVector = { kind: 'fixed', type: 'INT', data: Int32Array.from([1, 2, 3]) };
  const copy = copySlice(src, 0, 3) as FixedVector;
  (src.data as Int32Array)[0] = 99;
  assert.deepEqual([...copy.data], [1, 2, 3]);
});

test('copySlice rebases var offsets and cuts a large dictionary to the entries used', () => {
  const t: ArrayBuffer[] = [];
  const v = copySlice(
    {
      kind: 'var',
      type: 'VARCHAR',
      bytes: enc.encode('aabbbc'),
      offsets: Int32Array.from([0, 2, 5, 5, 6]),
      nulls: Uint8Array.from([0, 0, 1, 0]),
    },
    1,
    4,
    t,
  );
  assert.deepEqual(v.kind === 'var' ? [new TextDecoder().decode(v.bytes), [...v.offsets], [...v.nulls!]] : null, [
    'bbbc',
    [0, 3, 3, 4],
    [0, 1, 0],
  ]);
  const small = copySlice(
    {
      kind: 'symbol',
      type: 'SYMBOL',
      keys: Int32Array.from([3, -1, 7, 3]),
      dict: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'],
    },
    1,
    4,
    t,
  );
  assert.deepEqual(small.kind === 'symbol' ? [[...small.keys], small.dict.length] : null, [[-1, 7, 3], 8]);
  const dict = Array.from({ length: 5000 }, (_, i) => `s${i}`);
  const s = copySlice({ kind: 'symbol', type: 'SYMBOL', keys: Int32Array.from([3, -1, 4999, 3]), dict }, 1, 4, t);
  assert.deepEqual(s.kind === 'symbol' ? [[...s.keys], s.dict] : null, [
    [-1, 0, 1],
    ['s4999', 's3'],
  ]);
  assert.equal(t.length, 5);
});

test('concatVectors puts the rows of several vectors end to end, for every kind, slices and empty parts included', () => {
  for (const [name, v] of Object.entries(samples())) {
    const rows = rowsText(v);
    // Slices (var offsets not from 0), an empty part and a zero-length slice among them.
    const parts = [sliceVector(v, 3, 5), sliceVector(v, 0, 0), v, sliceVector(v, 1, 2), sliceVector(v, 2, 2)];
    const c = concatVectors(parts);
    assertShape(c, 8);
    assert.deepEqual(rowsText(c), [...rows.slice(3, 5), ...rows, ...rows.slice(1, 2)], name);
    assert.equal(c.type, v.type);
    // Two parts, the O3 merge's case; one part comes back as it is.
    assert.deepEqual(rowsText(concatVectors([v, sliceVector(v, 0, 1)])), [...rows, rows[0]], name);
    assert.equal(concatVectors([v]), v);
    // Empty vectors only: an empty vector of the kind.
    assertShape(concatVectors([sliceVector(v, 0, 0), sliceVector(v, 5, 5)]), 0);
  }
});

test('concatVectors keeps exact int64 pairs when any part has them (the others from their doubles)', () => {
  const exact = exactLongs();
  const plain: FixedVector = {
    kind: 'fixed',
    type: 'LONG',
    data: Float64Array.from([-1, 4294967296 * 3 + 5, -9223372036854775808]),
  };
  const c = concatVectors([plain, exact, plain]) as FixedVector;
  assertShape(c, 11);
  assert.deepEqual([...c.exact!.subarray(0, 6)], [-1, -1, 5, 3, 0, -2147483648]);
  assert.deepEqual([...c.exact!.subarray(6, 16)], [...exact.exact!]);
  assert.deepEqual([...c.exact!.subarray(16)], [-1, -1, 5, 3, 0, -2147483648]);
  // Without pairs anywhere the result has none.
  assert.equal((concatVectors([plain, plain]) as FixedVector).exact, undefined);
});

test('concatVectors of symbols: one dictionary is kept as it is, different ones are merged', () => {
  const dict = ['a', 'b', 'c'];
  const a: SymbolVector = { kind: 'symbol', type: 'SYMBOL', keys: Int32Array.from([0, -1, 2]), dict };
  const b: SymbolVector = { kind: 'symbol', type: 'SYMBOL', keys: Int32Array.from([1]), dict };
  const same = concatVectors([a, b, a]) as SymbolVector;
  assert.equal(same.dict, dict, 'the shared dictionary itself (a table dictionary growing in place)');
  assert.deepEqual([...same.keys], [0, -1, 2, 1, 0, -1, 2]);
  const other: SymbolVector = {
    kind: 'symbol',
    type: 'SYMBOL',
    keys: Int32Array.from([0, 1, -1, 2]),
    dict: ['c', 'd', 'a'],
  };
  const merged = concatVectors([a, other, b]) as SymbolVector;
  assert.deepEqual(merged.dict, ['a', 'b', 'c', 'd']);
  assert.deepEqual(rowsText(merged), ['Sa', 'NULL', 'Sc', 'Sc', 'Sd', 'NULL', 'Sa', 'Sb']);
  assert.deepEqual(
    mergeDicts([a, other, a]).maps.map((m) => [...m]),
    [
      [0, 1, 2],
      [2, 3, 0],
      [0, 1, 2],
    ],
  );
});

test('concatVectors of var vectors: NULL flags only where a part has them, a prefix with slack bytes copies just its rows', () => {
  const withNulls = varFromStrings('VARCHAR', ['a', null]);
  const without = varFromStrings('VARCHAR', ['bb', 'c']);
  assert.equal((concatVectors([without, without]) as VarVector).nulls, null);
  const c = concatVectors([without, withNulls]) as VarVector;
  assert.deepEqual([...c.nulls!], [0, 0, 0, 1]);
  // A builder's vector: bytes longer than its rows use.
  const slack: VarVector = {
    kind: 'var',
    type: 'VARCHAR',
    bytes: enc.encode('xyGARBAGE'),
    offsets: Int32Array.from([0, 1, 2]),
    nulls: null,
  };
  const s = concatVectors([slack, without]) as VarVector;
  assert.equal(new TextDecoder().decode(s.bytes), 'xybbc');
});

test('concatVectors refuses vectors of different kinds and an empty list', () => {
  const s = samples();
  assert.throws(() => concatVectors([s.INT!, s.SYMBOL!]), /cannot concatenate fixed and symbol/);
  assert.throws(() => concatVectors([]), /no vectors/);
});

test('gatherVector takes rows by index in any order, repeated or none, for every kind', () => {
  for (const [name, v] of Object.entries(samples())) {
    const rows = rowsText(v);
    for (const idx of [[4, 0, 2, 2, 1, 3], [], [3], [0, 1, 2, 3, 4]]) {
      const g = gatherVector(v, Int32Array.from(idx));
      assertShape(g, idx.length);
      assert.deepEqual(
        rowsText(g),
        idx.map((i) => rows[i]),
        `${name} ${JSON.stringify(idx)}`,
      );
    }
    // From a slice (absolute var offsets, views at an offset) and from an unaligned byte view.
    const sl = sliceVector(v, 1, 5);
    assert.deepEqual(rowsText(gatherVector(sl, Int32Array.from([3, 0]))), [rows[4], rows[1]], `${name} slice`);
  }
  // Byte rows whose buffer is not 4-aligned still gather right.
  const buf = new Uint8Array(1 + 3 * 16);
  for (let i = 0; i < buf.length; i++) buf[i] = i;
  const odd: FixedVector = { kind: 'fixed', type: 'UUID', data: buf.subarray(1) };
  assert.deepEqual(rowsText(gatherVector(odd, Int32Array.from([2, 0]))), [rowOf(odd, 2), rowOf(odd, 0)]);
});

test("gatherOrNull writes each type's NULL where the index is -1", () => {
  for (const [name, v] of Object.entries(samples())) {
    const rows = rowsText(v);
    const nul = nullRow(v);
    const idx = [2, -1, 0, -1, 4];
    const g = gatherOrNull(v, Int32Array.from(idx), v.type);
    assertShape(g, idx.length);
    assert.deepEqual(
      rowsText(g),
      idx.map((i) => (i < 0 ? nul : rows[i])),
      name,
    );
    // All missing, and an empty source: every row NULL.
    assert.deepEqual(rowsText(gatherOrNull(v, Int32Array.from([-1, -1]), v.type)), [nul, nul], `${name} all missing`);
    assert.deepEqual(
      rowsText(gatherOrNull(sliceVector(v, 0, 0), Int32Array.from([-1]), v.type)),
      [nul],
      `${name} empty source`,
    );
    // None missing: a plain gather.
    assert.deepEqual(
      rowsText(gatherOrNull(v, Int32Array.from([1, 3]), v.type)),
      [rows[1], rows[3]],
      `${name} none missing`,
    );
  }
});

test('pickRows takes row i from the source choice[i] names, NULL for -1', () => {
  for (const [name, v] of Object.entries(samples())) {
    const rows = rowsText(v);
    // A second source of the same kind with other rows: v reversed.
    const rev = gatherVector(v, Int32Array.from([4, 3, 2, 1, 0]));
    const choice = Int32Array.from([0, 1, -1, 1, 0]);
    const p = pickRows([v, rev], choice, 5);
    assertShape(p, 5);
    assert.deepEqual(rowsText(p), [rows[0], rows[3], nullRow(v), rows[1], rows[4]], name);
  }
});

test('batches: slice, cut into DEFAULT_BATCH_ROWS pieces, concatenate and gather every column', () => {
  const s = samples();
  const b: Batch = { rowCount: 5, columns: [s.INT!, s['VARCHAR nulls']!, s.SYMBOL!, s['LONG exact']!] };
  assert.equal(sliceBatch(b, 0, 5), b);
  const sl = sliceBatch(b, 1, 3);
  assert.equal(sl.rowCount, 2);
  sl.columns.forEach((c, i) => assert.deepEqual(rowsText(c), rowsText(b.columns[i]!).slice(1, 3)));
  const cat = concatBatches([b, sl, sliceBatch(b, 0, 0)], 4);
  assert.equal(cat.rowCount, 7);
  cat.columns.forEach((c, i) =>
    assert.deepEqual(rowsText(c), [...rowsText(b.columns[i]!), ...rowsText(b.columns[i]!).slice(1, 3)]),
  );
  assert.equal(concatBatches([b], 4), b);
  assert.deepEqual(concatBatches([], 4), { rowCount: 0, columns: [] });
  const g = gatherBatch(b, Int32Array.from([4, 4, 0]));
  assert.equal(g.rowCount, 3);
  g.columns.forEach((c, i) =>
    assert.deepEqual(
      rowsText(c),
      [4, 4, 0].map((r) => rowsText(b.columns[i]!)[r]),
    ),
  );

  const big: Batch = {
    rowCount: 2 * DEFAULT_BATCH_ROWS + 10,
    columns: [
      { kind: 'fixed', type: 'INT', data: Int32Array.from({ length: 2 * DEFAULT_BATCH_ROWS + 10 }, (_, i) => i) },
    ],
  };
  const pieces = [...sliceBatches(big, 5)];
  assert.deepEqual(
    pieces.map((p) => p.rowCount),
    [DEFAULT_BATCH_ROWS, DEFAULT_BATCH_ROWS, 5],
  );
  assert.equal((pieces[1]!.columns[0] as FixedVector).data[0], 5 + DEFAULT_BATCH_ROWS);
  assert.deepEqual([...sliceBatches(big, 3, 3)], []);
});

test('gatherFromBatches takes each row from its own batch, NULL where there is none, values exact', () => {
  const s = samples();
  const names = Object.keys(s);
  const one: Batch = { rowCount: 5, columns: names.map((n) => s[n]!) };
  // A second batch of the same columns with the rows reversed, its symbols in another dictionary.
  const rev = gatherBatch(one, Int32Array.from([4, 3, 2, 1, 0]));
  const two: Batch = {
    ...rev,
    columns: rev.columns.map((c) => (c.kind === 'symbol' ? { ...c, dict: [...c.dict] } : c)),
  };
  const types = one.columns.map((c) => c.type);
  const picks: [Batch | null, number][] = [
    [two, 0],
    [one, 1],
    [null, 0],
    [one, 4],
    [two, 4],
    [null, 3],
    [one, 1],
  ];
  const got = gatherFromBatches(
    picks.map((p) => p[0]),
    Int32Array.from(picks, (p) => p[1]),
    types,
  );
  got.forEach((v, c) => {
    assertShape(v, picks.length);
    assert.deepEqual(
      rowsText(v),
      picks.map(([b, r]) => (b === null ? nullRow(one.columns[c]!) : rowOf(b.columns[c]!, r))),
      names[c],
    );
  });
  // Every row from one batch: a plain gather; no batch at all: NULLs of each type.
  assert.deepEqual(rowsText(gatherFromBatches([one, one], Int32Array.from([3, 0]), types)[0]!), [
    rowOf(one.columns[0]!, 3),
    rowOf(one.columns[0]!, 0),
  ]);
  const empty = gatherFromBatches([null, null], Int32Array.from([0, 0]), ['LONG', 'SYMBOL', 'VARCHAR', 'NULL']);
  assert.deepEqual(
    empty.map((v) => rowsOf(v)),
    [2, 2, 2, 2],
  );
  assert.deepEqual(rowsText(empty[1]!), ['NULL', 'NULL']);
});
