// Row selection across vectors of one type: pick each row from one of several
// sources (CASE, coalesce, nullif), gather rows by index (DISTINCT aggregates),
// and NULL values per type. Symbol dictionaries are merged, bytes copied.
import { INT_NULL, LONG_NULL, hasExactPairs, typeInfo } from './column-type.js';
import { f64ToInt64, nullVector, type ColumnVector, type FixedArray, type FixedVector, type SymbolVector, type VarVector } from './column-vector.js';
import type { SqlType } from './sql-type.js';
import { constantVector } from './vec.js';

/** The NULL sentinel of a fixed type held in its typed array. */
export function nullValue(type: string): number {
  switch (type) {
    case 'INT': return INT_NULL;
    case 'LONG': case 'TIMESTAMP': case 'DATE': case 'TIMESTAMP_NS': return LONG_NULL;
    case 'FLOAT': case 'DOUBLE': return NaN;
    default: return 0;
  }
}

/** `n` NULLs of a SQL type (the NULL type is a DOUBLE NaN vector, as the executor builds it). */
export function nulls(type: SqlType, n: number): ColumnVector {
  return type === 'NULL' ? constantVector(type, null, n) : nullVector(type, n);
}

type ArrayCtor = new (n: number) => FixedArray;

function widthOf(v: FixedVector): number {
  return typeInfo(v.type).stride;
}

/** Row i of the result is row i of sources[choice[i]], or NULL where choice[i] < 0. */
export function pickRows(sources: readonly ColumnVector[], choice: Int32Array, n: number): ColumnVector {
  const first = sources[0]!;
  switch (first.kind) {
    case 'fixed': return pickFixed(sources as readonly FixedVector[], choice, n);
    case 'symbol': return pickSymbols(sources as readonly SymbolVector[], choice, n);
    case 'var': return pickVar(sources as readonly VarVector[], choice, n);
  }
}

function pickFixed(sources: readonly FixedVector[], choice: Int32Array, n: number): FixedVector {
  const first = sources[0]!;
  const w = widthOf(first);
  const out = new (first.data.constructor as ArrayCtor)(n * w);
  const nv = nullValue(first.type);
  if (w === 1) {
    for (let i = 0; i < n; i++) {
      const c = choice[i]!;
      out[i] = c < 0 ? nv : sources[c]!.data[i]!;
    }
  } else {
    const blank = nulls(first.type, 1) as FixedVector;
    for (let i = 0; i < n; i++) {
      const c = choice[i]!;
      if (c < 0) (out as Uint8Array).set(blank.data as Uint8Array, i * w);
      else (out as Uint8Array).set((sources[c]!.data as Uint8Array).subarray(i * w, i * w + w), i * w);
    }
  }
  let exact: Int32Array | undefined;
  if (hasExactPairs(first.type) && sources.some((s) => s.exact)) {
    // Keep exact int64 values through the selection when any source has them.
    const pairs = sources.map((s) => s.exact ?? f64ToInt64(s.data as Float64Array));
    exact = new Int32Array(n * 2);
    for (let i = 0; i < n; i++) {
      const c = choice[i]!;
      if (c < 0) { exact[2 * i] = 0; exact[2 * i + 1] = INT_NULL; } else { exact[2 * i] = pairs[c]![2 * i]!; exact[2 * i + 1] = pairs[c]![2 * i + 1]!; }
    }
  }
  return exact ? { kind: 'fixed', type: first.type, data: out, exact } : { kind: 'fixed', type: first.type, data: out };
}

/** One dictionary for several symbol vectors and each one's key map into it. */
export function mergeDicts(sources: readonly SymbolVector[]): { dict: readonly string[]; maps: Int32Array[] } {
  const firstDict = sources[0]!.dict;
  if (sources.every((s) => s.dict === firstDict)) {
    const id = Int32Array.from(firstDict, (_, k) => k);
    return { dict: firstDict, maps: sources.map(() => id) };
  }
  const dict: string[] = [];
  const index = new Map<string, number>();
  const maps = sources.map((s) => {
    const m = new Int32Array(s.dict.length);
    for (let k = 0; k < s.dict.length; k++) {
      const v = s.dict[k]!;
      let g = index.get(v);
      if (g === undefined) { g = dict.length; dict.push(v); index.set(v, g); }
      m[k] = g;
    }
    return m;
  });
  return { dict, maps };
}

function pickSymbols(sources: readonly SymbolVector[], choice: Int32Array, n: number): SymbolVector {
  const { dict, maps } = mergeDicts(sources);
  const keys = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const c = choice[i]!;
    if (c < 0) { keys[i] = -1; continue; }
    const k = sources[c]!.keys[i]!;
    keys[i] = k < 0 ? -1 : maps[c]![k]!;
  }
  return { kind: 'symbol', type: 'SYMBOL', keys, dict };
}

function pickVar(sources: readonly VarVector[], choice: Int32Array, n: number): VarVector {
  const offsets = new Int32Array(n + 1);
  let nullFlags: Uint8Array | null = null;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const c = choice[i]!;
    const s = c < 0 ? null : sources[c]!;
    if (!s || (s.nulls && s.nulls[i])) (nullFlags ??= new Uint8Array(n))[i] = 1;
    else total += s.offsets[i + 1]! - s.offsets[i]!;
    offsets[i + 1] = total;
  }
  const bytes = new Uint8Array(total);
  for (let i = 0; i < n; i++) {
    if (offsets[i + 1] === offsets[i]) continue;
    const s = sources[choice[i]!]!;
    bytes.set(s.bytes.subarray(s.offsets[i]!, s.offsets[i + 1]!), offsets[i]!);
  }
  return { kind: 'var', type: sources[0]!.type, bytes, offsets, nulls: nullFlags };
}

/** Rows idx[0..m) of `v`, in that order. */
export function gather(v: ColumnVector, idx: Int32Array, m: number): ColumnVector {
  switch (v.kind) {
    case 'symbol': {
      const keys = new Int32Array(m);
      for (let i = 0; i < m; i++) keys[i] = v.keys[idx[i]!]!;
      return { kind: 'symbol', type: 'SYMBOL', keys, dict: v.dict };
    }
    case 'var': {
      const offsets = new Int32Array(m + 1);
      let nullFlags: Uint8Array | null = null;
      let total = 0;
      for (let i = 0; i < m; i++) {
        const r = idx[i]!;
        if (v.nulls && v.nulls[r]) (nullFlags ??= new Uint8Array(m))[i] = 1;
        else total += v.offsets[r + 1]! - v.offsets[r]!;
        offsets[i + 1] = total;
      }
      const bytes = new Uint8Array(total);
      for (let i = 0; i < m; i++) {
        const r = idx[i]!;
        if (offsets[i + 1] !== offsets[i]) bytes.set(v.bytes.subarray(v.offsets[r]!, v.offsets[r + 1]!), offsets[i]!);
      }
      return { kind: 'var', type: v.type, bytes, offsets, nulls: nullFlags };
    }
    case 'fixed': {
      const w = widthOf(v);
      const out = new (v.data.constructor as ArrayCtor)(m * w);
      if (w === 1) for (let i = 0; i < m; i++) out[i] = v.data[idx[i]!]!;
      else for (let i = 0; i < m; i++) (out as Uint8Array).set((v.data as Uint8Array).subarray(idx[i]! * w, idx[i]! * w + w), i * w);
      let exact: Int32Array | undefined;
      if (v.exact) {
        exact = new Int32Array(m * 2);
        for (let i = 0; i < m; i++) { exact[2 * i] = v.exact[2 * idx[i]!]!; exact[2 * i + 1] = v.exact[2 * idx[i]! + 1]!; }
      }
      return exact ? { kind: 'fixed', type: v.type, data: out, exact } : { kind: 'fixed', type: v.type, data: out };
    }
  }
}
