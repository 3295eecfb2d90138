// More rnd_* generators (QuestDB's Random value generator page): rnd_ipv4() and
// rnd_ipv4(subnet, nullRate), rnd_double_array(nDims[, nanRate[, maxDimLength[, dim lengths...]]]),
// rnd_symbol_zipf(symbols..., alpha) / rnd_symbol_zipf(count, alpha) and
// rnd_symbol_weighted(symbol, weight, ...). Arguments are constants; each call site has its own
// generator (random.ts RandomSeeds), so a seeded registry repeats its values.
import { SvcError } from '../errors/svc-error.js';
import { ArrayVectorBuilder } from '../core/array-values.js';
import { arrayType } from '../core/column-type.js';
import type { ColumnVector } from '../core/column-vector.js';
import { parseIpv4Text } from '../core/parse-text.js';
import { argError, type BindArg, type FunctionRegistry } from './registry.js';
import { accept, defineScalar, type Built, type Signature } from './signature.js';
import { constantArgs, generator, numberArg, type RandomSeeds } from './random.js';

/** A constant text argument (a symbol of a list). */
function textArg(a: BindArg): string | null {
  return typeof a.value === 'string' ? a.value : a.value === null ? null : String(a.value);
}

/** rnd_ipv4(): any address but 0.0.0.0; rnd_ipv4('a.b.c.d/n', nullRate): one of that subnet. */
function ipv4(seeds: RandomSeeds, withSubnet: boolean): Signature {
  return {
    args: withSubnet ? [accept.text, accept.int] : [],
    build: () => {
      let base = 0;
      let size = 2 ** 32 - 1;
      let nullRate = 0;
      return generator(
        'IPV4',
        () => {
          const rng = seeds.newRng();
          return (_a, n) => {
            const out = new Int32Array(n);
            for (let i = 0; i < n; i++) {
              if (rng.isNull(nullRate)) continue; // 0 is IPv4's NULL
              let v = (base + rng.below(size)) | 0;
              if (v === 0) v = 1;
              out[i] = withSubnet ? v : (1 + rng.below(2 ** 32 - 1)) | 0;
            }
            return { kind: 'fixed', type: 'IPV4', data: out };
          };
        },
        constantArgs((args) => {
          if (!withSubnet) return;
          const text = textArg(args[0]!);
          const m = text === null ? null : /^(.+)\/(\d{1,2})$/.exec(text.trim());
          const addr = m === null ? null : parseIpv4Text(m[1]!);
          const bits = m === null ? NaN : Number(m[2]);
          if (addr === null || !(bits >= 0 && bits <= 32))
            throw argError('invalid subnet, expected CIDR such as 192.168.1.0/24', args[0]!.pos);
          const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
          base = ((addr >>> 0) & mask) >>> 0;
          size = 2 ** (32 - bits);
          nullRate = numberArg(args[1]);
          if (!(nullRate >= 0)) throw argError('null rate must be 0 or more', args[1]!.pos);
        }),
      );
    },
  };
}

/** rnd_double_array(nDims[, nanRate[, maxDimLength[, len1, len2, ...]]]): lengths 1..max (16), or fixed with max 0. */
function doubleArray(seeds: RandomSeeds, fixed: number): Signature {
  const args = [accept.int, accept.int, accept.int].slice(0, Math.min(fixed, 3));
  return {
    args,
    ...(fixed > 3 ? { rest: accept.int, minRest: 1 } : {}),
    build: () => {
      let dims = 1;
      let nanRate = 0;
      let maxLen = 16;
      let lengths: number[] | null = null;
      const make = (): ((a: readonly ColumnVector[], n: number) => ColumnVector) => {
        const rng = seeds.newRng();
        return (_a, n) => {
          const b = new ArrayVectorBuilder(arrayType(dims), n, n * 64);
          const shape = new Array<number>(dims);
          for (let i = 0; i < n; i++) {
            let count = 1;
            for (let d = 0; d < dims; d++) {
              shape[d] = lengths !== null ? lengths[d]! : 1 + rng.below(maxLen);
              count *= shape[d]!;
            }
            b.begin(shape);
            for (let k = 0; k < count; k++) b.element(rng.isNull(nanRate) ? NaN : rng.nextDouble());
            b.end();
          }
          return b.finish();
        };
      };
      // The result type depends on nDims, a constant: QuestDB's form takes it as a literal.
      return {
        type: 'DOUBLE[]',
        kernel: make(),
        deterministic: false,
        bind: (args, pos) => {
          constantArgs(check)(args, pos);
          return { type: arrayType(dims) };
        },
      };
      function check(a: readonly BindArg[]): void {
        dims = numberArg(a[0]);
        if (!(dims >= 1 && dims <= 32 && Number.isInteger(dims)))
          throw argError('dimensions must be from 1 to 32', a[0]!.pos);
        if (a.length > 1) nanRate = numberArg(a[1]);
        if (a.length > 2) maxLen = numberArg(a[2]);
        if (a.length > 3) {
          lengths = a.slice(3).map((x) => numberArg(x));
          if (lengths.length !== dims || lengths.some((x) => !(x >= 0 && Number.isInteger(x))))
            throw argError(`expected ${dims} dimension lengths`, a[3]!.pos);
        } else if (!(maxLen >= 1)) throw argError('maximum dimension length must be 1 or more', a[2]!.pos);
      }
    },
  };
}

/**
 * A SYMBOL generator picking one of the symbols `weigh` reads from the constant arguments (at
 * bind time), each with probability proportional to its weight.
 */
function weightedSymbols(
  seeds: RandomSeeds,
  weigh: (args: readonly BindArg[]) => { values: string[]; weights: number[] },
): Built {
  let values: string[] = [];
  const cum: number[] = [];
  return generator(
    'SYMBOL',
    () => {
      const rng = seeds.newRng();
      return (_a, n) => {
        const keys = new Int32Array(n);
        const total = cum[cum.length - 1]!;
        for (let i = 0; i < n; i++) {
          // The first symbol whose cumulative weight is above a uniform draw of the total.
          const r = rng.nextDouble() * total;
          let lo = 0;
          let hi = cum.length - 1;
          while (lo < hi) {
            const mid = (lo + hi) >>> 1;
            if (cum[mid]! > r) hi = mid;
            else lo = mid + 1;
          }
          keys[i] = lo;
        }
        return { kind: 'symbol', type: 'SYMBOL', keys, dict: values };
      };
    },
    constantArgs((args) => {
      const w = weigh(args);
      values = w.values;
      cum.length = 0;
      let s = 0;
      for (const x of w.weights) cum.push((s += x));
      if (!(s > 0)) throw new SvcError('SQL', 'at least one weight must be above 0');
    }),
  );
}

/** The symbol a constant argument names. */
function symbolArg(a: BindArg): string {
  const s = textArg(a);
  if (s === null) throw argError('symbol expected', a.pos);
  return s;
}

/** rnd_symbol_zipf(s1, s2, ..., alpha) or rnd_symbol_zipf(count, alpha): P(k-th) proportional to 1 / k^alpha. */
function zipf(seeds: RandomSeeds): Signature {
  return {
    args: [accept.any],
    rest: accept.any,
    minRest: 1,
    build: () =>
      weightedSymbols(seeds, (args) => {
        const alpha = numberArg(args[args.length - 1]);
        if (!(alpha > 0)) throw argError('alpha must be greater than 0', args[args.length - 1]!.pos);
        const first = args[0]!;
        let values: string[];
        if (args.length === 2 && typeof first.value === 'number') {
          const count = first.value;
          if (!(count >= 1 && Number.isInteger(count))) throw argError('count must be a positive integer', first.pos);
          values = Array.from({ length: count }, (_, k) => `S${k}`);
        } else values = args.slice(0, -1).map(symbolArg);
        return { values, weights: values.map((_, k) => 1 / (k + 1) ** alpha) };
      }),
  };
}

/** rnd_symbol_weighted(s1, w1, s2, w2, ...): relative non-negative weights. */
function weighted(seeds: RandomSeeds): Signature {
  return {
    args: [accept.any, accept.double],
    rest: accept.any,
    build: (t) => {
      if (t.length % 2 !== 0) return 'rnd_symbol_weighted takes symbol and weight pairs';
      return weightedSymbols(seeds, (args) => {
        const values: string[] = [];
        const weights: number[] = [];
        for (let k = 0; k < args.length; k += 2) {
          const w = numberArg(args[k + 1]);
          if (!(w >= 0)) throw argError('weight must be 0 or more', args[k + 1]!.pos);
          values.push(symbolArg(args[k]!));
          weights.push(w);
        }
        return { values, weights };
      });
    },
  };
}

export function registerRandomData(registry: FunctionRegistry, seeds: RandomSeeds): void {
  defineScalar(registry, 'rnd_ipv4', [ipv4(seeds, false), ipv4(seeds, true)]);
  defineScalar(
    registry,
    'rnd_double_array',
    [1, 2, 3, 4].map((k) => doubleArray(seeds, k)),
  );
  defineScalar(registry, 'rnd_symbol_zipf', [zipf(seeds)]);
  defineScalar(registry, 'rnd_symbol_weighted', [weighted(seeds)]);
}
