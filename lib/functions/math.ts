// Numeric functions: abs, sign (keep the argument's type), round (Java's
// Math.round; with a scale half away from zero; round_half_even, round_down, round_up), floor, ceil, sqrt, power,
// ln, log (base 10, as QuestDB/PostgreSQL), exp, greatest, least; the trigonometric functions (sin ... atan2, cot,
// degrees, radians, pi).
import type { Kernel, FunctionRegistry } from './registry.js';
import { accept, defineScalar, widest, type Signature } from './signature.js';
import type { SqlType } from '../core/sql-type.js';
import { asDoubles, fromDoubles } from '../core/vec.js';

type Mode = 'half-up' | 'half-even' | 'down' | 'up';

/** Rounds by the shortest decimal digits of |x| (what the user sees), as BigDecimal.valueOf(x).setScale would. */
function roundByDigits(x: number, scale: number, mode: Mode): number {
  const e = Math.abs(x).toExponential();
  const at = e.indexOf('e');
  const digits = e.slice(0, at).replace('.', '');
  const keep = Number(e.slice(at + 1)) + 1 + scale;
  if (keep >= digits.length) return x;
  let kept = keep > 0 ? Number(digits.slice(0, keep)) : 0;
  const next = keep >= 0 ? digits.charCodeAt(keep) - 48 : 0;
  const restNonZero = /[1-9]/.test(digits.slice(Math.max(keep + 1, 0)));
  let up: boolean;
  switch (mode) {
    case 'half-up':
      up = keep >= 0 && next >= 5;
      break;
    case 'half-even':
      up = keep >= 0 && (next > 5 || (next === 5 && (restNonZero || kept % 2 === 1)));
      break;
    case 'down':
      up = false;
      break;
    case 'up':
      up = next > 0 || restNonZero;
      break;
  }
  if (up) kept += 1;
  const r = scale >= 0 ? kept / 10 ** scale : kept * 10 ** -scale;
  return x < 0 ? -r : r;
}

/**
 * Rounds `x` to `scale` decimals. Fast path on doubles; values whose scaled
 * fraction sits within 1e-6 of the decision point (a tie, or an integer for
 * down/up) go through their decimal digits so that 2.675 rounds to 2.68.
 */
export function roundTo(x: number, scale: number, mode: Mode): number {
  if (x !== x || x === Infinity || x === -Infinity || scale !== scale) return scale !== scale ? NaN : x;
  const f = scale >= 0 ? 10 ** scale : 10 ** -scale;
  const a = Math.abs(x);
  const y = scale >= 0 ? a * f : a / f;
  if (y >= 4503599627370496) return x;
  const fl = Math.floor(y);
  const frac = y - fl;
  const edge = mode === 'half-up' || mode === 'half-even' ? Math.abs(frac - 0.5) : Math.min(frac, 1 - frac);
  if (edge < 1e-6) return roundByDigits(x, scale, mode);
  let r: number;
  switch (mode) {
    case 'half-up':
    case 'half-even':
      r = frac > 0.5 ? fl + 1 : fl;
      break;
    case 'down':
      r = fl;
      break;
    case 'up':
      r = frac > 0 ? fl + 1 : fl;
      break;
  }
  const v = scale >= 0 ? r / f : r * f;
  return x < 0 ? -v : v;
}

/** QuestDB's allowance for a value just under a decimal step (Numbers.TOLERANCE). */
const TOLERANCE = 1e-10;

/**
 * round_down / round_up as QuestDB computes them on doubles: |x| scaled by a
 * power of ten, truncated (with its tolerance), scaled back (round_down
 * multiplies by the inverse power, round_up divides), sign restored. The
 * scaling back is what shows: round_down(1.29, 1) is 12 * 0.1 =
 * 1.2000000000000002 and round_up(4.0036, 1) is 41 / 10 = 4.1, as there.
 */
export function roundDirected(x: number, scale: number, up: boolean): number {
  if (x !== x || x === Infinity || x === -Infinity || scale !== scale) return scale !== scale ? NaN : x;
  const a = Math.abs(x);
  const k = Math.abs(scale);
  const pow = 10 ** k,
    inv = 10 ** -k;
  const y =
    scale >= 0
      ? up
        ? a * pow + 1 - TOLERANCE
        : (a + TOLERANCE) * pow
      : up
        ? a * inv + 1 - TOLERANCE
        : (a + TOLERANCE) * inv;
  if (y >= 2 ** 63) return x; // past LONG's range (2^63 - 1 reads as 2^63 in a double)
  const t = Math.trunc(y);
  const r = scale < 0 ? t * pow : up ? t / pow : t * inv;
  return x < 0 || Object.is(x, -0) ? -r : r;
}

function roundKernel(mode: Mode, withScale: boolean): Kernel {
  return (args, n) => {
    const x = asDoubles(args[0]!);
    const s = withScale ? asDoubles(args[1]!) : null;
    const out = new Float64Array(n);
    if (!s) {
      // round(x) is Java's Math.round: half up towards positive infinity (round(-2.5) = -2).
      for (let i = 0; i < n; i++) out[i] = Math.round(x[i]!) + 0; // + 0: a long has no -0
    } else if (mode === 'down' || mode === 'up') {
      for (let i = 0; i < n; i++) out[i] = roundDirected(x[i]!, s[i]!, mode === 'up');
    } else {
      for (let i = 0; i < n; i++) out[i] = roundTo(x[i]!, s[i]!, mode);
    }
    return fromDoubles('DOUBLE', out);
  };
}

/** A DOUBLE -> DOUBLE function of one argument. */
function unary(fn: (x: number) => number): Signature {
  return {
    args: [accept.double],
    build: () => ({
      type: 'DOUBLE',
      kernel: (args, n) => {
        const x = asDoubles(args[0]!);
        const out = new Float64Array(n);
        for (let i = 0; i < n; i++) out[i] = fn(x[i]!);
        return fromDoubles('DOUBLE', out);
      },
    }),
  };
}

/** A function keeping the argument's numeric type (abs, sign). */
function sameType(fn: (x: number) => number): Signature {
  return {
    args: [accept.numeric],
    build: (t) => {
      const type = t[0]!;
      return {
        type,
        kernel: (args, n) => {
          const x = asDoubles(args[0]!);
          const out = new Float64Array(n);
          for (let i = 0; i < n; i++) out[i] = fn(x[i]!);
          return fromDoubles(type, out);
        },
      };
    },
  };
}

/** greatest / least: the extreme non-NULL argument, NULL only when all are. */
function extreme(max: boolean): Signature {
  return {
    args: [accept.numeric],
    rest: accept.numeric,
    build: (t) => {
      let type: SqlType = 'INT';
      for (const x of t) type = widest(type, x);
      t.fill(type);
      return {
        type,
        kernel: (args, n) => {
          const out = new Float64Array(n).fill(NaN);
          for (const a of args) {
            const x = asDoubles(a);
            for (let i = 0; i < n; i++) {
              const v = x[i]!,
                o = out[i]!;
              if (v === v && (o !== o || (max ? v > o : v < o))) out[i] = v;
            }
          }
          return fromDoubles(type, out);
        },
      };
    },
  };
}

/** A DOUBLE -> DOUBLE function of two arguments (power, atan2). */
function binary(fn: (a: number, b: number) => number): Signature {
  return {
    args: [accept.double, accept.double],
    build: () => ({
      type: 'DOUBLE',
      kernel: (args, n) => {
        const a = asDoubles(args[0]!),
          b = asDoubles(args[1]!);
        const out = new Float64Array(n);
        for (let i = 0; i < n; i++) out[i] = fn(a[i]!, b[i]!);
        return fromDoubles('DOUBLE', out);
      },
    }),
  };
}

export function registerMath(registry: FunctionRegistry): void {
  defineScalar(registry, 'abs', [sameType(Math.abs)]);
  defineScalar(registry, 'sign', [sameType((x) => (x !== x ? NaN : x > 0 ? 1 : x < 0 ? -1 : 0))]);
  for (const [name, mode] of [
    ['round', 'half-up'],
    ['round_half_even', 'half-even'],
    ['round_down', 'down'],
    ['round_up', 'up'],
  ] as const) {
    const sigs: Signature[] = [
      { args: [accept.double, accept.int], build: () => ({ type: 'DOUBLE', kernel: roundKernel(mode, true) }) },
    ];
    if (name === 'round')
      sigs.push({ args: [accept.double], build: () => ({ type: 'DOUBLE', kernel: roundKernel(mode, false) }) });
    defineScalar(registry, name, sigs);
  }
  defineScalar(registry, 'floor', [unary(Math.floor)]);
  defineScalar(registry, ['ceil', 'ceiling'], [unary(Math.ceil)]);
  defineScalar(registry, 'sqrt', [unary(Math.sqrt)]);
  defineScalar(registry, ['power', 'pow'], [binary((b, e) => b ** e)]);
  defineScalar(registry, 'ln', [unary(Math.log)]);
  defineScalar(registry, 'log', [unary(Math.log10)]);
  defineScalar(registry, 'exp', [unary(Math.exp)]);
  defineScalar(registry, 'greatest', [extreme(true)]);
  defineScalar(registry, 'least', [extreme(false)]);
  registerTrigonometry(registry);
}

/**
 * QuestDB's trigonometric functions, DOUBLE in radians. A NaN result is NULL, as QuestDB has it
 * (an infinite argument of sin, cos, tan; asin and acos past 1); cot(0) is NULL too, not
 * Infinity, and atan of an infinity is the nearest value to pi/2 of its sign.
 */
function registerTrigonometry(registry: FunctionRegistry): void {
  defineScalar(registry, 'sin', [unary(Math.sin)]);
  defineScalar(registry, 'cos', [unary(Math.cos)]);
  defineScalar(registry, 'tan', [unary(Math.tan)]);
  defineScalar(registry, 'cot', [unary((x) => (x === 0 ? NaN : 1 / Math.tan(x)))]);
  defineScalar(registry, 'asin', [unary(Math.asin)]);
  defineScalar(registry, 'acos', [unary(Math.acos)]);
  defineScalar(registry, 'atan', [unary(Math.atan)]);
  defineScalar(registry, 'atan2', [binary(Math.atan2)]);
  defineScalar(registry, 'degrees', [unary((x) => (x * 180) / Math.PI)]);
  defineScalar(registry, 'radians', [unary((x) => (x * Math.PI) / 180)]);
  defineScalar(registry, 'pi', [
    {
      args: [],
      build: () => ({ type: 'DOUBLE', kernel: (_args, n) => fromDoubles('DOUBLE', new Float64Array(n).fill(Math.PI)) }),
    },
  ]);
}
