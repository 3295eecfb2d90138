// Boolean logic and NULL handling: `and`, `or`, `not`, `is_null`,
// `is_not_null`, `case` (cond1, val1, ..., else), `coalesce` and `nullif`.
// BOOLEAN has no NULL: a NULL condition is false.
import type { Kernel, FunctionRegistry } from './registry.js';
import { accept, defineScalar, type Signature } from './signature.js';
import { commonType, type SqlType } from '../core/sql-type.js';
import { boolVector, boolsOf, nullFlags } from '../core/vec.js';
import { nulls } from '../core/rows.js';
import { pickRows } from '../core/vector-ops.js';
import { compareKernel, comparable } from './compare.js';

function logical(op: 'and' | 'or'): Kernel {
  return (args, n) => {
    const a = boolsOf(args[0]!),
      b = boolsOf(args[1]!);
    const out = new Uint8Array(n);
    if (op === 'and') for (let i = 0; i < n; i++) out[i] = a[i]! & b[i]!;
    else for (let i = 0; i < n; i++) out[i] = a[i]! | b[i]!;
    return boolVector(out);
  };
}

const notKernel: Kernel = (args, n) => {
  const a = boolsOf(args[0]!);
  const out = new Uint8Array(n);
  for (let i = 0; i < n; i++) out[i] = a[i]! ^ 1;
  return boolVector(out);
};

function nullTest(wantNull: boolean): Kernel {
  return (args, n) => {
    const f = nullFlags(args[0]!);
    if (!wantNull) for (let i = 0; i < n; i++) f[i] = f[i]! ^ 1;
    return boolVector(f.length === n ? f : f.subarray(0, n));
  };
}

/** The type every value of a list is converted to, or null. */
function common(types: readonly SqlType[]): SqlType | null {
  let t: SqlType = 'NULL';
  for (const x of types) {
    const c = commonType(t, x);
    if (c === null) return null;
    t = c;
  }
  return t;
}

/** case(c1, v1, c2, v2, ..., else): the first value whose condition holds, else the last argument. */
function caseKernel(type: SqlType): Kernel {
  return (args, n) => {
    const pairs = (args.length - 1) >> 1;
    const choice = new Int32Array(n).fill(pairs);
    const open = new Uint8Array(n).fill(1);
    for (let p = 0; p < pairs; p++) {
      const c = args[2 * p]!;
      // A NULL-typed condition arrives as a DOUBLE NaN vector: never true.
      if (c.type !== 'BOOLEAN') continue;
      const cd = boolsOf(c);
      for (let i = 0; i < n; i++)
        if (open[i] && cd[i]) {
          choice[i] = p;
          open[i] = 0;
        }
    }
    const sources = [];
    for (let p = 0; p < pairs; p++) sources.push(args[2 * p + 1]!);
    sources.push(args[args.length - 1]!);
    if (type === 'NULL') return nulls('NULL', n);
    return pickRows(sources, choice, n);
  };
}

const caseSig: Signature = {
  args: [],
  rest: (t) => t,
  minRest: 3,
  build: (t) => {
    if (t.length % 2 === 0) return `there is no matching function \`case\` with the argument types: (${t.join(', ')})`;
    const values: SqlType[] = [];
    for (let i = 0; i < t.length; i++) {
      const isCond = i % 2 === 0 && i < t.length - 1;
      if (isCond) {
        if (t[i] !== 'BOOLEAN' && t[i] !== 'NULL') return `CASE condition must be BOOLEAN, not ${t[i]}`;
        t[i] = 'BOOLEAN';
      } else values.push(t[i]!);
    }
    const type = common(values);
    if (type === null) return `inconvertible types in CASE: ${values.join(', ')}`;
    for (let i = 0; i < t.length; i++) if (!(i % 2 === 0 && i < t.length - 1)) t[i] = type;
    return { type, kernel: caseKernel(type) };
  },
};

function coalesceKernel(type: SqlType): Kernel {
  return (args, n) => {
    if (type === 'NULL') return nulls('NULL', n);
    const choice = new Int32Array(n).fill(-1);
    let open = n;
    for (let a = 0; a < args.length && open > 0; a++) {
      const f = nullFlags(args[a]!);
      for (let i = 0; i < n; i++)
        if (choice[i]! < 0 && !f[i]) {
          choice[i] = a;
          open--;
        }
    }
    return pickRows(args, choice, n);
  };
}

const coalesceSig: Signature = {
  args: [],
  rest: (t) => t,
  minRest: 1,
  build: (t) => {
    if (t.length < 2) return 'coalesce can be used with 2 or more arguments';
    const type = common(t);
    if (type === null) return `inconvertible types in coalesce: ${t.join(', ')}`;
    t.fill(type);
    return { type, kernel: coalesceKernel(type) };
  },
};

/** nullif(a, b): NULL where a = b, else a. */
const nullifSig: Signature = {
  args: [(t) => t, (t) => t],
  build: (t) => {
    const type = common(t);
    const c = type === null ? null : comparable(type, type, false);
    if (type === null || !c)
      return `there is no matching function \`nullif\` with the argument types: (${t.join(', ')})`;
    t.fill(type);
    if (type === 'NULL') return { type, kernel: (_args, n) => nulls('NULL', n) };
    const eq = compareKernel('=', c.family);
    const kernel: Kernel = (args, n, kx) => {
      const same = boolsOf(eq(args, n, kx));
      const choice = new Int32Array(n);
      for (let i = 0; i < n; i++) choice[i] = same[i] ? -1 : 0;
      return pickRows([args[0]!], choice, n);
    };
    return { type, kernel };
  },
};

export function registerLogic(registry: FunctionRegistry): void {
  defineScalar(registry, 'and', [
    { args: [accept.boolean, accept.boolean], build: () => ({ type: 'BOOLEAN', kernel: logical('and') }) },
  ]);
  defineScalar(registry, 'or', [
    { args: [accept.boolean, accept.boolean], build: () => ({ type: 'BOOLEAN', kernel: logical('or') }) },
  ]);
  defineScalar(registry, 'not', [{ args: [accept.boolean], build: () => ({ type: 'BOOLEAN', kernel: notKernel }) }]);
  // IS NULL takes every type; the argument is not cast (a NULL literal is a DOUBLE NaN vector).
  defineScalar(registry, 'is_null', [{ args: [(t) => t], build: () => ({ type: 'BOOLEAN', kernel: nullTest(true) }) }]);
  defineScalar(registry, 'is_not_null', [
    { args: [(t) => t], build: () => ({ type: 'BOOLEAN', kernel: nullTest(false) }) },
  ]);
  defineScalar(registry, 'case', [caseSig]);
  defineScalar(registry, 'coalesce', [coalesceSig]);
  defineScalar(registry, 'nullif', [nullifSig]);
}
