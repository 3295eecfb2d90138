// Randomized differential test: arithmetic and comparison kernels over random
// vectors of every numeric type (NULLs and edge values included) against a
// straightforward per-row reference with Java semantics (BigInt for integers).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { call, resultType } from './helpers.js';
import { INT_NULL, LONG_NULL } from '../../lib/core/column-type.js';
import type { ColumnVector } from '../../lib/core/column-vector.js';
import type { SqlType } from '../../lib/core/sql-type.js';

type Num = number | null;
const TYPES = ['BYTE', 'SHORT', 'INT', 'LONG', 'FLOAT', 'DOUBLE'] as const;
type T = (typeof TYPES)[number];

let seed = 12345;
function rand(): number {
  seed = (Math.imul(seed, 1103515245) + 12345) | 0;
  return ((seed >>> 1) % 1_000_000) / 1_000_000;
}
const pick = <X>(xs: readonly X[]): X => xs[Math.floor(rand() * xs.length)]!;

const EDGES: Record<T, number[]> = {
  BYTE: [0, 1, -1, 127, -128],
  SHORT: [0, 1, -1, 32767, -32768],
  INT: [0, 1, -1, 2147483647, -2147483647, 65536],
  LONG: [0, 1, -1, 2 ** 40, -(2 ** 40), 2 ** 52, -(2 ** 52), 4294967296],
  FLOAT: [0, -0, 1, -1, 0.5, Math.fround(0.1), Math.fround(3.4e38), Math.fround(1e-30)],
  DOUBLE: [0, -0, 1, -1, 0.1, 1e300, -1e-300, 2 ** 53],
};

function value(t: T): Num {
  const r = rand();
  if (r < 0.1 && t !== 'BYTE' && t !== 'SHORT') return null;
  if (r < 0.3) return pick(EDGES[t]);
  switch (t) {
    case 'BYTE':
      return Math.floor(rand() * 256) - 128;
    case 'SHORT':
      return Math.floor(rand() * 65536) - 32768;
    case 'INT':
      return Math.floor(rand() * 4294967295) - 2147483647;
    case 'LONG':
      return Math.floor((rand() - 0.5) * 2 ** 50) * (rand() < 0.5 ? 1 : 7);
    case 'FLOAT':
      return Math.fround((rand() - 0.5) * 10 ** Math.floor(rand() * 10 - 3));
    case 'DOUBLE':
      return (rand() - 0.5) * 10 ** Math.floor(rand() * 30 - 10);
  }
}

function vector(t: T, xs: readonly Num[]): ColumnVector {
  switch (t) {
    case 'BYTE':
      return { kind: 'fixed', type: t, data: Int8Array.from(xs, (x) => x ?? 0) };
    case 'SHORT':
      return { kind: 'fixed', type: t, data: Int16Array.from(xs, (x) => x ?? 0) };
    case 'INT':
      return { kind: 'fixed', type: t, data: Int32Array.from(xs, (x) => (x === null ? INT_NULL : x)) };
    case 'LONG':
      return { kind: 'fixed', type: t, data: Float64Array.from(xs, (x) => (x === null ? LONG_NULL : x)) };
    case 'FLOAT':
      return { kind: 'fixed', type: t, data: Float32Array.from(xs, (x) => (x === null ? NaN : x)) };
    case 'DOUBLE':
      return { kind: 'fixed', type: t, data: Float64Array.from(xs, (x) => (x === null ? NaN : x)) };
  }
}

const RANK: Record<T, number> = { BYTE: 0, SHORT: 1, INT: 2, LONG: 3, FLOAT: 4, DOUBLE: 5 };
const wider = (a: T, b: T): T => TYPES[Math.max(RANK[a], RANK[b], 2)]!;

/** Java semantics per row; undefined where doubles cannot be compared exactly (LONG past 2^53). */
function reference(op: string, type: T, a: Num, b: Num): Num | undefined {
  if (a === null || b === null) return null;
  if (type === 'INT' || type === 'LONG') {
    const bits = type === 'INT' ? 32 : 64;
    const x = BigInt(a),
      y = BigInt(b);
    let r: bigint;
    switch (op) {
      case '+':
        r = x + y;
        break;
      case '-':
        r = x - y;
        break;
      case '*':
        r = x * y;
        break;
      case '/':
        if (y === 0n) return null;
        r = x / y;
        break;
      default:
        if (y === 0n) return null;
        r = x % y;
    }
    if (type === 'LONG' && (r > 2n ** 53n || r < -(2n ** 53n))) return undefined;
    const w = Number(BigInt.asIntN(bits, r));
    return (type === 'INT' && w === INT_NULL) || (type === 'LONG' && w === LONG_NULL) ? null : w;
  }
  let r: number;
  if (type === 'FLOAT') {
    a = Math.fround(a);
    b = Math.fround(b);
  }
  switch (op) {
    case '+':
      r = a + b;
      break;
    case '-':
      r = a - b;
      break;
    case '*':
      r = a * b;
      break;
    case '/':
      r = b === 0 ? NaN : a / b;
      break;
    default:
      r = a % b;
  }
  if (type === 'FLOAT') r = Math.fround(r);
  return r !== r ? null : r;
}

function compareRef(op: string, a: Num, b: Num): boolean {
  if (op === '=') return a === null || b === null ? a === b : a === b;
  if (op === '!=') return !(a === null || b === null ? a === b : a === b);
  if (a === null || b === null) return false;
  switch (op) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    default:
      return a >= b;
  }
}

test('arithmetic kernels agree with a per-row Java-semantics reference on random vectors', () => {
  let checked = 0;
  for (let round = 0; round < 60; round++) {
    const ta = pick(TYPES),
      tb = pick(TYPES);
    const n = Math.floor(rand() * 40);
    const xs = Array.from({ length: n }, () => value(ta));
    const ys = Array.from({ length: n }, () => value(tb));
    for (const op of ['+', '-', '*', '/', '%']) {
      const type = wider(ta, tb);
      assert.equal(resultType(op, [ta, tb] as SqlType[]), type, `${ta} ${op} ${tb}`);
      const got = call(op, [vector(ta, xs), vector(tb, ys)], undefined, n);
      for (let i = 0; i < n; i++) {
        const want = reference(op, type, xs[i]!, ys[i]!);
        if (want === undefined) continue;
        assert.ok(
          Object.is(got[i], want) || (got[i] === 0 && want === 0),
          `${xs[i]} ${op} ${ys[i]} as ${type}: got ${got[i]}, want ${want}`,
        );
        checked++;
      }
    }
  }
  assert.ok(checked > 1000, String(checked));
});

test('comparison kernels agree with a per-row reference on random vectors of mixed types', () => {
  let checked = 0;
  for (let round = 0; round < 80; round++) {
    const ta = pick(TYPES),
      tb = pick(TYPES);
    const n = Math.floor(rand() * 40);
    const xs = Array.from({ length: n }, () => value(ta));
    // Reuse some left values on the right so that equality happens.
    const ys = Array.from({ length: n }, (_, i) =>
      rand() < 0.3 && (tb === 'DOUBLE' || tb === ta) ? xs[i]! : value(tb),
    );
    for (const op of ['=', '!=', '<', '<=', '>', '>=']) {
      const got = call(op, [vector(ta, xs), vector(tb, ys)], undefined, n);
      for (let i = 0; i < n; i++) {
        // Values as the vectors hold them (a FLOAT column rounds, BYTE/SHORT have no NULL).
        const a = ta === 'BYTE' || ta === 'SHORT' ? (xs[i] ?? 0) : xs[i]!,
          b = tb === 'BYTE' || tb === 'SHORT' ? (ys[i] ?? 0) : ys[i]!;
        assert.equal(
          got[i],
          compareRef(op, a, tb === 'FLOAT' && b !== null ? Math.fround(b) : b),
          `${a} ${op} ${b} (${ta}, ${tb})`,
        );
        checked++;
      }
    }
  }
  assert.ok(checked > 1000, String(checked));
});
