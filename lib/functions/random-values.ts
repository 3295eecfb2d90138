// Random generators of the wide and parametric types (QuestDB's Random value generator page):
// rnd_long256() and rnd_long256(n) (n values drawn once, then picked among), rnd_geohash(bits),
// rnd_bin() and rnd_bin(min, max, nullRate), rnd_decimal(precision, scale, nullRate); and the
// data helpers list(a, b, ...) (a SYMBOL cycling through its arguments) and
// timestamp_shuffle(t1, t2). Arguments are constants; each call site has its own generator.
import { decimalType, geohashType, typeInfo, DECIMAL_MAX_PRECISION, type ColumnType } from '../core/column-type.js';
import { nullVector, type FixedVector, type VarVector } from '../core/column-vector.js';
import { putDecimal } from '../core/decimal.js';
import { fromDoubles } from '../core/vec.js';
import { argError, type BindArg, type Kernel, type FunctionRegistry } from './registry.js';
import { accept, defineScalar, type Signature } from './signature.js';
import { checkRate, constantArgs, generator, numberArg, type RandomSeeds, type Rng } from './random.js';

/** Fills `b` from `at` with `len` random bytes. */
function fillRandom(rng: Rng, b: Uint8Array, at: number, len: number): void {
  let k = 0;
  for (; k + 4 <= len; k += 4) {
    const x = rng.nextInt();
    b[at + k] = x;
    b[at + k + 1] = x >>> 8;
    b[at + k + 2] = x >>> 16;
    b[at + k + 3] = x >>> 24;
  }
  if (k < len) {
    let x = rng.nextInt();
    for (; k < len; k++, x >>>= 8) b[at + k] = x;
  }
}

/** A random LONG256 into row i (redrawn in the one case of every lane at LONG's NULL). */
function randomLong256(rng: Rng, b: Uint8Array, i: number): void {
  const at = 32 * i;
  do fillRandom(rng, b, at, 32);
  while (isNullLong256(b, at));
}

function isNullLong256(b: Uint8Array, at: number): boolean {
  for (let k = 0; k < 32; k++) if (b[at + k] !== ((k & 7) === 7 ? 0x80 : 0)) return false;
  return true;
}

/** rnd_long256(): four random words a row. */
function long256(seeds: RandomSeeds): Signature {
  return {
    args: [],
    build: () =>
      generator('LONG256', () => {
        const rng = seeds.newRng();
        return (_a, n) => {
          const out = nullVector('LONG256', n) as FixedVector;
          for (let i = 0; i < n; i++) randomLong256(rng, out.data as Uint8Array, i);
          return out;
        };
      }),
  };
}

/** rnd_long256(n): n values drawn when the call is bound, then a random one of them a row. */
function long256Of(seeds: RandomSeeds): Signature {
  return {
    args: [accept.int],
    build: () => {
      const rng = seeds.newRng();
      let pool = new Uint8Array(0);
      let count = 0;
      return generator(
        'LONG256',
        () => (_a, n) => {
          const out = nullVector('LONG256', n) as FixedVector;
          const b = out.data as Uint8Array;
          for (let i = 0; i < n; i++) {
            const k = rng.below(count);
            b.set(pool.subarray(32 * k, 32 * k + 32), 32 * i);
          }
          return out;
        },
        constantArgs((args) => {
          count = numberArg(args[0]);
          if (!(count >= 1)) throw argError('count must be greater than 0', args[0]!.pos);
          pool = new Uint8Array(32 * count);
          for (let k = 0; k < count; k++) randomLong256(rng, pool, k);
        }),
      );
    },
  };
}

/** rnd_geohash(bits): `bits` random bits, the result type GEOHASH(bits). */
function geohash(seeds: RandomSeeds): Signature {
  return {
    args: [accept.int],
    build: () => {
      const rng = seeds.newRng();
      const kernelOf =
        (type: ColumnType, bits: number): Kernel =>
        (_a, n) => {
          const w = typeInfo(type).width;
          const out = nullVector(type, n) as FixedVector;
          const b = out.data as Uint8Array;
          for (let i = 0; i < n; i++) {
            fillRandom(rng, b, i * w, w);
            // Bits above the hash's are 0, as stored.
            for (let k = bits; k < 8 * w; k++) b[i * w + (k >> 3)]! &= ~(1 << (k & 7));
          }
          return out;
        };
      return {
        type: geohashType(60),
        kernel: kernelOf(geohashType(60), 60),
        deterministic: false,
        bind: (args) => {
          const a = args[0]!;
          if (a.value === undefined) throw argError('constant expected', a.pos);
          const bits = numberArg(a);
          if (!(bits >= 1 && bits <= 60)) throw argError('precision must be in [1..60] range', a.pos);
          const type = geohashType(bits);
          return { type, kernel: kernelOf(type, bits) };
        },
      };
    },
  };
}

/** A BINARY vector of `n` rows, each NULL at `rate` or else `lo..hi` random bytes; charged before it is made. */
function randomBinary(rng: Rng, n: number, lo: number, hi: number, rate: number, kx: Parameters<Kernel>[2]): VarVector {
  const lengths = new Float64Array(n);
  const nulls = rate > 0 ? new Uint8Array(n) : null;
  let total = 0;
  for (let i = 0; i < n; i++) {
    if (nulls !== null && rng.isNull(rate)) {
      nulls[i] = 1;
      continue;
    }
    lengths[i] = lo === hi ? lo : lo + rng.below(hi - lo + 1);
    total += lengths[i]!;
  }
  kx.budget.charge(total + 4 * (n + 1), 'rnd_bin');
  kx.deadline.tick(total >> 10);
  const bytes = new Uint8Array(total);
  const offsets = new Int32Array(n + 1);
  let at = 0;
  for (let i = 0; i < n; i++) {
    fillRandom(rng, bytes, at, lengths[i]!);
    at += lengths[i]!;
    offsets[i + 1] = at;
  }
  return { kind: 'var', type: 'BINARY', bytes, offsets, nulls };
}

/** rnd_bin(): 32 random bytes a row (the page says "up to 32"; QuestDB always makes 32). */
function bin(seeds: RandomSeeds): Signature {
  return {
    args: [],
    build: () =>
      generator('BINARY', () => {
        const rng = seeds.newRng();
        return (_a, n, kx) => randomBinary(rng, n, 32, 32, 0, kx);
      }),
  };
}

/** rnd_bin(min, max, nullRate), checked as QuestDB does: the rate, then the range, then the minimum. */
function binRange(seeds: RandomSeeds): Signature {
  return {
    args: [accept.long, accept.long, accept.int],
    build: () => {
      let lo = 0,
        hi = 0,
        rate = 0;
      return generator(
        'BINARY',
        () => {
          const rng = seeds.newRng();
          return (_a, n, kx) => randomBinary(rng, n, lo, hi, rate, kx);
        },
        constantArgs((args, pos) => {
          checkRate(args[2]!, 'invalid null rate');
          lo = numberArg(args[0]);
          hi = numberArg(args[1]);
          rate = numberArg(args[2]);
          if (lo !== lo || hi !== hi || lo > hi) throw argError('invalid range', pos);
          if (lo < 1) throw argError('minimum has to be grater than 0', args[0]!.pos);
        }),
      );
    },
  };
}

const E9 = 1e9;

/** A uniform unscaled value in [0, 10^precision). */
function randomDigits(rng: Rng, precision: number): bigint {
  if (precision <= 15) return BigInt(rng.below(10 ** precision));
  // Nine digits at a time: the top group has precision % 9 of them (or nine).
  const top = precision % 9 === 0 ? 9 : precision % 9;
  let x = BigInt(rng.below(10 ** top));
  for (let left = precision - top; left > 0; left -= 9) x = x * BigInt(E9) + BigInt(rng.below(E9));
  return x;
}

/** rnd_decimal(precision, scale, nullRate): DECIMAL(precision, scale) values from 0 to the largest it holds. */
function decimal(seeds: RandomSeeds): Signature {
  return {
    args: [accept.int, accept.int, accept.int],
    build: () => {
      const rng = seeds.newRng();
      const kernelOf =
        (type: ColumnType, precision: number, rate: number): Kernel =>
        (_a, n) => {
          const w = typeInfo(type).width;
          const out = nullVector(type, n) as FixedVector;
          const b = out.data as Uint8Array;
          for (let i = 0; i < n; i++) if (!rng.isNull(rate)) putDecimal(b, i, w, randomDigits(rng, precision));
          return out;
        };
      return {
        type: decimalType(18, 3),
        kernel: kernelOf(decimalType(18, 3), 18, 0),
        deterministic: false,
        bind: (args: readonly BindArg[], pos: number) => {
          constantArgs()(args, pos);
          checkRate(args[2]!, 'invalid NULL rate');
          const p = numberArg(args[0]),
            s = numberArg(args[1]);
          if (!(s >= 0 && p > 0 && p >= s && p <= DECIMAL_MAX_PRECISION))
            throw argError(`invalid precision and scale: ${p !== p ? 'null' : p}, ${s !== s ? 'null' : s}`, pos);
          const type = decimalType(p, s);
          return { type, kernel: kernelOf(type, p, numberArg(args[2])) };
        },
      };
    },
  };
}

/** list(a, b, ...): row k of the call site's output is argument k mod count (its rows continue across batches). */
function list(): Signature {
  return {
    args: [accept.text],
    rest: accept.text,
    build: () => {
      let dict: string[] = [];
      let keyOf = new Int32Array(0);
      let next = 0;
      return generator(
        'SYMBOL',
        () => (_a, n) => {
          const keys = new Int32Array(n);
          for (let i = 0; i < n; i++) {
            keys[i] = keyOf[next]!;
            next = next + 1 === keyOf.length ? 0 : next + 1;
          }
          return { kind: 'symbol', type: 'SYMBOL', keys, dict };
        },
        constantArgs((args) => {
          // A value listed twice is one symbol; a NULL argument is a NULL row.
          const index = new Map<string, number>();
          dict = [];
          keyOf = Int32Array.from(args, (a) => {
            if (a.value === null) return -1;
            const s = String(a.value);
            let k = index.get(s);
            if (k === undefined) index.set(s, (k = dict.push(s) - 1));
            return k;
          });
        }),
      );
    },
  };
}

/** timestamp_shuffle(t1, t2): a uniform TIMESTAMP between the two, both included (either may be the earlier). */
function timestampShuffle(seeds: RandomSeeds): Signature {
  return {
    args: [accept.timestamp, accept.timestamp],
    build: () => {
      let lo = NaN,
        hi = NaN;
      return generator(
        'TIMESTAMP',
        () => {
          const rng = seeds.newRng();
          return (_a, n) => {
            const out = new Float64Array(n);
            for (let i = 0; i < n; i++) out[i] = lo + rng.below(hi - lo + 1);
            return fromDoubles('TIMESTAMP', out);
          };
        },
        constantArgs((args) => {
          const a = numberArg(args[0]),
            b = numberArg(args[1]);
          lo = Math.min(a, b);
          hi = Math.max(a, b);
        }),
      );
    },
  };
}

export function registerRandomValues(registry: FunctionRegistry, seeds: RandomSeeds): void {
  defineScalar(registry, 'rnd_long256', [long256(seeds), long256Of(seeds)]);
  defineScalar(registry, 'rnd_geohash', [geohash(seeds)]);
  defineScalar(registry, 'rnd_bin', [bin(seeds), binRange(seeds)]);
  defineScalar(registry, 'rnd_decimal', [decimal(seeds)]);
  defineScalar(registry, 'list', [list()]);
  defineScalar(registry, 'timestamp_shuffle', [timestampShuffle(seeds)]);
}
