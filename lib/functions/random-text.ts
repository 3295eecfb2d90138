// Random text generators: rnd_symbol, rnd_str and rnd_varchar, each from a
// list of constants, from generated lengths (min, max, nullRate) or from a
// generated finite set (count, min, max, nullRate). Strings are drawn into a
// reused buffer and decoded once, and what a batch builds is charged as it grows
// (rnd_str(1000000, 1000000, 0) over many rows is evaluated in row chunks).
import { Buffer } from 'node:buffer';
import { SvcError } from '../errors/svc-error.js';
import type { ColumnVector } from '../core/column-vector.js';
import { argError, type BindArg, type Kernel, type KernelContext, type FunctionRegistry } from './registry.js';
import { accept, defineScalar, type Signature } from './signature.js';
import { textAt } from '../core/vec.js';
import { TextOut } from './text-out.js';
import { checkRate, constArg, constantArgs, generator, numberArg, type RandomSeeds, type Rng } from './random.js';

/** The string being drawn: Latin-1 bytes or UTF-16 code units (grown to the longest string asked for). */
let scratch = Buffer.alloc(0);

/** A random string of `len` characters: A-Z (rnd_str, rnd_symbol) or mixed scripts (rnd_varchar). */
function randomString(rng: Rng, len: number, wide: boolean): string {
  if (scratch.length < 2 * len) scratch = Buffer.alloc(Math.max(2 * len, 2 * scratch.length));
  if (!wide) {
    for (let k = 0; k < len; k++) scratch[k] = 65 + rng.below(26);
    return scratch.toString('latin1', 0, len);
  }
  const units = new Uint16Array(scratch.buffer, scratch.byteOffset, len);
  for (let k = 0; k < len; k++) {
    const r = rng.below(10);
    // Mostly ASCII, some Latin-1/Latin Extended and CJK, so UTF-8 widths of 1 to 3 bytes occur.
    units[k] = r < 7 ? 33 + rng.below(94) : r < 9 ? 0xc0 + rng.below(0x190) : 0x4e00 + rng.below(0x5000);
  }
  return scratch.toString('utf16le', 0, 2 * len);
}

interface Lengths {
  readonly min: number;
  readonly max: number;
  readonly rate: number;
}

function lengthArgs(args: readonly ColumnVector[], at: number): Lengths {
  const min = constArg(args[at]),
    max = constArg(args[at + 1]),
    rate = constArg(args[at + 2]);
  if (min !== min || max !== max || min < 0 || min > max) throw new SvcError('SQL', 'invalid range');
  if (rate !== rate || rate < 0) throw new SvcError('SQL', 'invalid null rate');
  return { min, max, rate };
}

/** Bind-time checks of (min, max, rate) from argument `at`: the range at the call, the rate at its argument. */
function checkLengths(args: readonly BindArg[], pos: number, at: number): void {
  const min = numberArg(args[at]),
    max = numberArg(args[at + 1]);
  if (min !== min || max !== max || min < 0 || min > max) throw argError('invalid range', pos);
  checkRate(args[at + 2]!, 'invalid null rate');
}

/** Bind hook of the three modes: list items are constants; lengths and generated sets are checked. */
function checkMode(mode: 'list' | 'lengths' | 'generated') {
  return constantArgs((args, pos) => {
    if (mode === 'lengths') checkLengths(args, pos, 0);
    if (mode === 'generated') {
      const count = numberArg(args[0]);
      if (count !== count || count < 1) throw argError('invalid symbol count', args[0]!.pos);
      checkLengths(args, pos, 1);
    }
  });
}

/**
 * `count` distinct random strings (as distinct as the length range allows). It
 * lives as long as the call site, so the most it could take is checked against
 * the budget first rather than charged.
 */
function dictionary(rng: Rng, count: number, l: Lengths, wide: boolean, kx: KernelContext): string[] {
  if (count !== count || count < 1) throw new SvcError('SQL', 'invalid symbol count');
  kx.budget.check(count * (40 + 2 * l.max), 'the values of rnd_str / rnd_symbol');
  const set = new Set<string>();
  for (let tries = 0; set.size < count && tries < count * 20; tries++)
    set.add(randomString(rng, l.min + rng.below(l.max - l.min + 1), wide));
  return [...set];
}

/** The constant list arguments (read once, from the first non-empty batch). */
function listOf(args: readonly ColumnVector[]): (string | null)[] {
  return args.map((a) => textAt(a, 0));
}

/** rnd_symbol: keys into a dictionary that stays the same object across batches. */
function symbols(seeds: RandomSeeds, mode: 'list' | 'generated'): Signature {
  return {
    args: mode === 'generated' ? [accept.int, accept.int, accept.int, accept.int] : [],
    rest: mode === 'list' ? accept.text : undefined,
    minRest: 1,
    build: () =>
      generator(
        'SYMBOL',
        () => {
          const rng = seeds.newRng();
          let dict: readonly string[] | null = null;
          let listNulls: Int32Array | null = null;
          let rate = 0;
          const kernel: Kernel = (args, n, kx) => {
            const keys = new Int32Array(n);
            if (n === 0) return { kind: 'symbol', type: 'SYMBOL', keys, dict: dict ?? [] };
            if (!dict) {
              if (mode === 'generated') {
                const l = lengthArgs(args, 1);
                rate = l.rate;
                dict = dictionary(rng, constArg(args[0]), l, false, kx);
              } else {
                // NULL list items are picked like the others and come out NULL.
                const items = listOf(args);
                const d: string[] = [];
                listNulls = Int32Array.from(items, (s) => (s === null ? -1 : d.push(s) - 1));
                dict = d;
              }
            }
            const size = listNulls ? listNulls.length : dict.length;
            for (let i = 0; i < n; i++) {
              if (rng.isNull(rate) || size === 0) {
                keys[i] = -1;
                continue;
              }
              const k = rng.below(size);
              keys[i] = listNulls ? listNulls[k]! : k;
            }
            return { kind: 'symbol', type: 'SYMBOL', keys, dict };
          };
          return kernel;
        },
        checkMode(mode),
      ),
  };
}

/** rnd_str / rnd_varchar: from a list, from a generated finite list, or fresh strings per row. */
function strings(seeds: RandomSeeds, type: 'STRING' | 'VARCHAR', mode: 'list' | 'lengths' | 'generated'): Signature {
  const args =
    mode === 'lengths'
      ? [accept.int, accept.int, accept.int]
      : mode === 'generated'
        ? [accept.int, accept.int, accept.int, accept.int]
        : [];
  return {
    args,
    rest: mode === 'list' ? accept.text : undefined,
    minRest: 1,
    build: () =>
      generator(
        type,
        () => {
          const rng = seeds.newRng();
          const wide = type === 'VARCHAR';
          let list: (string | null)[] | null = null;
          let l: Lengths | null = null;
          const kernel: Kernel = (a, n, kx) => {
            const out = new TextOut(type, n, kx);
            if (n === 0) return out.vector();
            if (mode === 'list') list ??= listOf(a);
            else if (mode === 'generated' && !list) {
              l = lengthArgs(a, 1);
              list = dictionary(rng, constArg(a[0]), l, wide, kx);
            } else l ??= lengthArgs(a, 0);
            const rate = l ? l.rate : 0;
            // One string is drawn whole before the builder sees it: its size must fit the budget first.
            if (!list) kx.budget.check(3 * l!.max, type === 'VARCHAR' ? 'rnd_varchar' : 'rnd_str');
            for (let i = 0; i < n; i++) {
              if (rng.isNull(rate)) {
                out.set(i, null);
                continue;
              }
              if (list) {
                out.set(i, list[rng.below(list.length)] ?? null);
                continue;
              }
              const len = l!.min + rng.below(l!.max - l!.min + 1);
              kx.deadline.tick(len >> 10);
              out.set(i, randomString(rng, len, wide));
            }
            return out.vector();
          };
          return kernel;
        },
        checkMode(mode),
      ),
  };
}

export function registerRandomText(registry: FunctionRegistry, seeds: RandomSeeds): void {
  defineScalar(registry, 'rnd_symbol', [symbols(seeds, 'generated'), symbols(seeds, 'list')]);
  defineScalar(registry, 'rnd_str', [
    strings(seeds, 'STRING', 'lengths'),
    strings(seeds, 'STRING', 'generated'),
    strings(seeds, 'STRING', 'list'),
  ]);
  defineScalar(registry, 'rnd_varchar', [strings(seeds, 'VARCHAR', 'lengths'), strings(seeds, 'VARCHAR', 'list')]);
}
