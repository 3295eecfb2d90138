// Random and sequence generators (rnd_*, timestamp_sequence): each call site
// gets its own state when bound, so values continue across batches;
// RandomSeeds (one per function registry) seeds them; a registry made
// with a seed repeats its runs. xoshiro128**, typed-array fills.
// rnd_* arguments are constants, checked when the call is bound.
import { SvcError } from '../errors/svc-error.js';
import { INT_NULL } from '../core/column-type.js';
import type { ColumnVector } from '../core/column-vector.js';
import { argError, type BindArg, type BindHook, type Kernel, type FunctionRegistry } from './registry.js';
import { accept, defineScalar, type Built, type Signature } from './signature.js';
import { asDoubles, boolVector, fromDoubles } from '../core/vec.js';

const TWO32 = 4294967296;

/** A small fast generator (xoshiro128**), seeded through splitmix32. */
export class Rng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    let x = seed | 0;
    const mix = (): number => {
      x = (x + 0x9e3779b9) | 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) | 0;
    };
    this.s0 = mix();
    this.s1 = mix();
    this.s2 = mix();
    this.s3 = mix();
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** Uniform int32. */
  nextInt(): number {
    const r = Math.imul(rotl(Math.imul(this.s1, 5), 7), 9);
    const t = this.s1 << 9;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3, 11);
    return r | 0;
  }

  /** Uniform in [0, 1) with 53 random bits. */
  nextDouble(): number {
    return ((this.nextInt() >>> 5) * 67108864 + (this.nextInt() >>> 6)) / 9007199254740992;
  }

  /** Uniform integer in [0, k) for k >= 1. */
  below(k: number): number {
    return Math.floor(this.nextDouble() * k);
  }

  /** True with probability 1/rate (never for rate 0): QuestDB's NaN / null rate. */
  isNull(rate: number): boolean {
    return rate > 0 && (rate === 1 || this.below(rate) === 0);
  }
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}

/**
 * Where the generators of one function registry get their seeds: each call site
 * bound draws one, in binding order, so a registry made with a seed
 * (createFunctionRegistry({ randomSeed })) repeats its call sites' values.
 */
export class RandomSeeds {
  readonly #seeds: Rng;

  constructor(seed: number = Date.now() ^ Math.floor(Math.random() * TWO32)) {
    this.#seeds = new Rng(seed);
  }

  /** A fresh generator for one call site. */
  newRng(): Rng {
    return new Rng(this.#seeds.nextInt());
  }
}

/** Row 0 of a constant argument as a number (NaN for NULL). */
export function constArg(v: ColumnVector | undefined): number {
  if (!v) return NaN;
  const d = asDoubles(v);
  return d.length > 0 ? d[0]! : NaN;
}

/** A generator built per call site: `make` runs at bind time and returns the kernel holding the state. */
export function generator(type: Built['type'], make: () => Kernel, bind?: BindHook): Built {
  return { type, kernel: make(), deterministic: false, bind };
}

/** Bind hook: every argument is a constant (an error at the first that is not), then `check` looks at them. */
export function constantArgs(check?: (args: readonly BindArg[], pos: number) => void): BindHook {
  return (args, pos) => {
    for (const a of args) if (a.value === undefined) throw argError('constant expected', a.pos);
    check?.(args, pos);
  };
}

/** A constant argument as a number (NaN for NULL or text). */
export function numberArg(a: BindArg | undefined): number {
  return a && typeof a.value === 'number' ? a.value : NaN;
}

/** lo <= hi (an error at the call) and a rate >= 0 (an error at the rate), as QuestDB checks them. */
function checkRange(args: readonly BindArg[], pos: number): void {
  const lo = numberArg(args[0]),
    hi = numberArg(args[1]);
  if (lo !== lo || hi !== hi || lo > hi) throw argError('invalid range', pos);
  if (args.length > 2) checkRate(args[2]!, 'invalid NaN rate');
}

/** A NULL rate (1 in rate rows NULL) must be a number >= 0. */
export function checkRate(a: BindArg, message: string): void {
  const rate = numberArg(a);
  if (rate !== rate || rate < 0) throw argError(message, a.pos);
}

/** lo, hi and rate (constants, checked at bind) read from the argument vectors. */
export function rangeArgs(args: readonly ColumnVector[], at = 0): { lo: number; hi: number; rate: number } {
  const lo = constArg(args[at]),
    hi = constArg(args[at + 1]),
    rate = args.length > at + 2 ? constArg(args[at + 2]) : 0;
  if (lo !== lo || hi !== hi || lo > hi) throw new SvcError('SQL', 'invalid range');
  if (rate !== rate || rate < 0) throw new SvcError('SQL', 'invalid NaN rate');
  return { lo, hi, rate };
}

/** Numbers in [lo, hi] (integers) or NULL at `rate`. */
function ranged(seeds: RandomSeeds, type: 'INT' | 'LONG' | 'TIMESTAMP' | 'DATE' | 'BYTE' | 'SHORT'): Signature {
  const arg =
    type === 'TIMESTAMP'
      ? accept.timestamp
      : type === 'DATE'
        ? (t: Built['type']) => (accept.timestamp(t) ? ('DATE' as const) : null)
        : type === 'INT' || type === 'BYTE' || type === 'SHORT'
          ? accept.int
          : accept.long;
  const args = type === 'BYTE' || type === 'SHORT' ? [arg, arg] : [arg, arg, accept.int];
  return {
    args,
    build: () =>
      generator(
        type,
        () => {
          const rng = seeds.newRng();
          return (a, n) => {
            const out = new Float64Array(n);
            if (n === 0) return fromDoubles(type, out);
            const { lo, hi, rate } = rangeArgs(a);
            const span = hi - lo + 1;
            for (let i = 0; i < n; i++) out[i] = rng.isNull(rate) ? NaN : lo + rng.below(span);
            return fromDoubles(type, out);
          };
        },
        constantArgs(checkRange),
      ),
  };
}

/** Full-range values of a type. */
function full(seeds: RandomSeeds, type: 'INT' | 'LONG' | 'BYTE' | 'SHORT' | 'BOOLEAN' | 'CHAR'): Signature {
  return {
    args: [],
    build: () =>
      generator(type, () => {
        const rng = seeds.newRng();
        return (_a, n) => {
          switch (type) {
            case 'INT': {
              const out = new Int32Array(n);
              for (let i = 0; i < n; i++) {
                let x = rng.nextInt();
                while (x === INT_NULL) x = rng.nextInt();
                out[i] = x;
              }
              return { kind: 'fixed', type, data: out };
            }
            case 'LONG': {
              // Both halves random: the int64 pairs carry the exact value, the doubles its nearest.
              const exact = new Int32Array(2 * n);
              const data = new Float64Array(n);
              for (let i = 0; i < n; i++) {
                let lo = rng.nextInt(),
                  hi = rng.nextInt();
                while (lo === 0 && hi === INT_NULL) {
                  lo = rng.nextInt();
                  hi = rng.nextInt();
                } // -2^63 is NULL
                exact[2 * i] = lo;
                exact[2 * i + 1] = hi;
                data[i] = hi * TWO32 + (lo >>> 0);
              }
              return { kind: 'fixed', type, data, exact };
            }
            case 'BYTE': {
              const out = new Int8Array(n);
              for (let i = 0; i < n; i++) out[i] = rng.nextInt() & 127;
              return { kind: 'fixed', type, data: out };
            }
            case 'SHORT': {
              const out = new Int16Array(n);
              for (let i = 0; i < n; i++) out[i] = rng.nextInt();
              return { kind: 'fixed', type, data: out };
            }
            case 'BOOLEAN': {
              const out = new Uint8Array(n);
              for (let i = 0; i < n; i++) out[i] = rng.nextInt() & 1;
              return boolVector(out);
            }
            case 'CHAR': {
              const out = new Uint16Array(n);
              for (let i = 0; i < n; i++) out[i] = 65 + rng.below(26);
              return { kind: 'fixed', type, data: out };
            }
          }
        };
      }),
  };
}

/** rnd_double / rnd_float in [0, 1), NULL at an optional rate. */
function unit(seeds: RandomSeeds, type: 'DOUBLE' | 'FLOAT', withRate: boolean): Signature {
  return {
    args: withRate ? [accept.int] : [],
    build: () =>
      generator(
        type,
        () => {
          const rng = seeds.newRng();
          return (a, n) => {
            const rate = withRate && n > 0 ? constArg(a[0]) : 0;
            if (rate !== rate || rate < 0) throw new SvcError('SQL', 'invalid NaN rate');
            const out = new Float64Array(n);
            for (let i = 0; i < n; i++)
              out[i] = rng.isNull(rate) ? NaN : type === 'FLOAT' ? (rng.nextInt() >>> 8) / 16777216 : rng.nextDouble();
            return fromDoubles(type, out);
          };
        },
        withRate ? constantArgs((args) => checkRate(args[0]!, 'invalid NaN rate')) : undefined,
      ),
  };
}

function uuid4(seeds: RandomSeeds): Signature {
  return {
    args: [],
    build: () =>
      generator('UUID', () => {
        const rng = seeds.newRng();
        return (_a, n) => {
          const data = new Uint8Array(16 * n);
          const words = new Int32Array(data.buffer);
          for (let k = 0; k < 4 * n; k++) words[k] = rng.nextInt();
          for (let i = 0; i < n; i++) {
            // Stored low long first: the version nibble lives in byte 9, the variant bits in byte 7.
            data[16 * i + 9] = (data[16 * i + 9]! & 0x0f) | 0x40;
            data[16 * i + 7] = (data[16 * i + 7]! & 0x3f) | 0x80;
          }
          return { kind: 'fixed', type: 'UUID', data };
        };
      }),
  };
}

/** timestamp_sequence(start, step): row k is start + the steps of the rows before it, continuing across batches. */
function timestampSequence(): Signature {
  return {
    args: [accept.timestamp, accept.long],
    build: () =>
      generator('TIMESTAMP', () => {
        let next = NaN;
        return (a, n) => {
          const start = asDoubles(a[0]!),
            step = asDoubles(a[1]!);
          const out = new Float64Array(n);
          for (let i = 0; i < n; i++) {
            if (next !== next) next = start[i]!;
            out[i] = next;
            const s = step[i]!;
            if (next === next && s === s) next += s;
          }
          return fromDoubles('TIMESTAMP', out);
        };
      }),
  };
}

export function registerRandom(registry: FunctionRegistry, seeds: RandomSeeds): void {
  defineScalar(registry, 'rnd_int', [full(seeds, 'INT'), ranged(seeds, 'INT')]);
  defineScalar(registry, 'rnd_long', [full(seeds, 'LONG'), ranged(seeds, 'LONG')]);
  defineScalar(registry, 'rnd_byte', [full(seeds, 'BYTE'), ranged(seeds, 'BYTE')]);
  defineScalar(registry, 'rnd_short', [full(seeds, 'SHORT'), ranged(seeds, 'SHORT')]);
  defineScalar(registry, 'rnd_boolean', [full(seeds, 'BOOLEAN')]);
  defineScalar(registry, 'rnd_char', [full(seeds, 'CHAR')]);
  defineScalar(registry, 'rnd_double', [unit(seeds, 'DOUBLE', false), unit(seeds, 'DOUBLE', true)]);
  defineScalar(registry, 'rnd_float', [unit(seeds, 'FLOAT', false), unit(seeds, 'FLOAT', true)]);
  defineScalar(registry, 'rnd_timestamp', [ranged(seeds, 'TIMESTAMP')]);
  defineScalar(registry, 'rnd_date', [ranged(seeds, 'DATE')]);
  defineScalar(registry, 'rnd_uuid4', [uuid4(seeds)]);
  defineScalar(registry, 'timestamp_sequence', [timestampSequence()]);
}
