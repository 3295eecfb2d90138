// Bitwise operators `&` `|` `^` (XOR, as in QuestDB) and unary `~` (registered as `bitnot`)
// on INT (BYTE and SHORT widen to it) and LONG, and on IPv4 (text on the other side of an
// IPv4 is read as an address). NULL in -> NULL out; IPv4's NULL is 0.0.0.0.
import { INT_NULL, LONG_NULL } from '../core/column-type.js';
import type { ColumnVector } from '../core/column-vector.js';
import type { FunctionRegistry, Kernel } from './registry.js';
import { accept, defineScalar, type Signature } from './signature.js';
import { isText, type SqlType } from '../core/sql-type.js';

type Op = '&' | '|' | '^';

const INT32_MIN = -0x80000000;
const INT32_MAX = 0x7fffffff;

function int32(op: Op, a: number, b: number): number {
  return op === '&' ? a & b : op === '|' ? a | b : a ^ b;
}

/** Two LONGs (held as doubles): 32-bit operations give the same bits while both fit in an int. */
function int64(op: Op, a: number, b: number): number {
  if (a >= INT32_MIN && a <= INT32_MAX && b >= INT32_MIN && b <= INT32_MAX) return int32(op, a, b);
  const x = BigInt(a);
  const y = BigInt(b);
  return Number(BigInt.asIntN(64, op === '&' ? x & y : op === '|' ? x | y : x ^ y));
}

function data(v: ColumnVector): ArrayLike<number> {
  if (v.kind !== 'fixed') throw new Error(`not a fixed vector: ${v.type}`);
  return v.data;
}

/** The kernel of `op` on `type` (INT, LONG or IPV4), with that type's NULL. */
function binaryKernel(op: Op, type: 'INT' | 'LONG' | 'IPV4'): Kernel {
  return (args, n) => {
    const a = data(args[0]!);
    const b = data(args[1]!);
    if (type === 'LONG') {
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const x = a[i]!;
        const y = b[i]!;
        out[i] = x === LONG_NULL || y === LONG_NULL ? LONG_NULL : int64(op, x, y);
      }
      return { kind: 'fixed', type, data: out };
    }
    const nul = type === 'INT' ? INT_NULL : 0;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const x = a[i]!;
      const y = b[i]!;
      out[i] = x === nul || y === nul ? nul : int32(op, x, y);
    }
    return { kind: 'fixed', type, data: out };
  };
}

function notKernel(type: 'INT' | 'LONG' | 'IPV4'): Kernel {
  return (args, n) => {
    const a = data(args[0]!);
    if (type === 'LONG') {
      const out = new Float64Array(n);
      // -x - 1 is ~x for every integer a double holds exactly.
      for (let i = 0; i < n; i++) out[i] = a[i] === LONG_NULL ? LONG_NULL : -a[i]! - 1;
      return { kind: 'fixed', type, data: out };
    }
    const nul = type === 'INT' ? INT_NULL : 0;
    const out = new Int32Array(n);
    for (let i = 0; i < n; i++) out[i] = a[i] === nul ? nul : ~a[i]!;
    return { kind: 'fixed', type, data: out };
  };
}

const ipv4 = accept.exactly('IPV4');
/** Text or NULL beside an IPv4, read as an address. */
const ipv4Text = (t: SqlType): SqlType | null =>
  t === 'IPV4' || t === 'NULL' || (isText(t) && t !== 'CHAR') ? 'IPV4' : null;

function binarySigs(op: Op): Signature[] {
  const sigs: Signature[] = [
    { args: [accept.int, accept.int], build: () => ({ type: 'INT', kernel: binaryKernel(op, 'INT') }) },
    { args: [accept.long, accept.long], build: () => ({ type: 'LONG', kernel: binaryKernel(op, 'LONG') }) },
  ];
  // QuestDB has IPv4 `&` and `|` (a network's address, its broadcast address), not `^`.
  if (op !== '^') {
    sigs.push(
      { args: [ipv4, ipv4Text], build: () => ({ type: 'IPV4', kernel: binaryKernel(op, 'IPV4') }) },
      { args: [ipv4Text, ipv4], build: () => ({ type: 'IPV4', kernel: binaryKernel(op, 'IPV4') }) },
    );
  }
  return sigs;
}

export function registerBitwise(registry: FunctionRegistry): void {
  defineScalar(registry, '&', binarySigs('&'));
  defineScalar(registry, '|', binarySigs('|'));
  defineScalar(registry, '^', binarySigs('^'));
  defineScalar(registry, 'bitnot', [
    { args: [accept.int], build: () => ({ type: 'INT', kernel: notKernel('INT') }) },
    { args: [accept.long], build: () => ({ type: 'LONG', kernel: notKernel('LONG') }) },
    { args: [ipv4], build: () => ({ type: 'IPV4', kernel: notKernel('IPV4') }) },
  ]);
}
