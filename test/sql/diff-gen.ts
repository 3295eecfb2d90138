// Random data and random queries for the differential SQL test: a seeded
// generator of a table's rows (every column type the test covers, with NULLs)
// and of well-typed expression trees, filters and aggregate queries over it,
// built from the reference's nodes (reference.ts) so both sides read one tree.
import * as R from './reference.js';
import type { Agg, Expr, RType, Row, Val } from './reference.js';
import { mulberry32 } from '../helpers/prng.js';

export const rng = mulberry32;

export interface Column {
  readonly name: string;
  readonly type: RType;
}

/** The table: ts is the designated timestamp (never NULL); every other column has NULLs but b (BOOLEAN has none). */
export const COLUMNS: readonly Column[] = [
  { name: 'ts', type: 'TIMESTAMP' },
  { name: 'i', type: 'INT' },
  { name: 'j', type: 'INT' },
  { name: 'l', type: 'LONG' },
  { name: 'd', type: 'DOUBLE' },
  { name: 's', type: 'SYMBOL' },
  { name: 'v', type: 'VARCHAR' },
  { name: 'b', type: 'BOOLEAN' },
  { name: 't2', type: 'TIMESTAMP' },
  { name: 's2', type: 'SYMBOL' },
  { name: 'st', type: 'STRING' },
];

/** A column reference by name. */
export function named(name: string): Expr {
  const idx = COLUMNS.findIndex((c) => c.name === name);
  return R.col(name, idx, COLUMNS[idx]!.type);
}

const DAY = 86_400_000_000;
const T0 = Date.UTC(2024, 0, 1) * 1000;
/** Rows per day partition: the first spans two 8192-row batches, one day is missing, one is tiny. */
const DAYS: ReadonlyArray<[number, number]> = [
  [0, 9000],
  [1, 2500],
  [2, 40],
  [4, 3500],
];
export const SYMBOLS = ['alpha', 'beta', 'gamma', 'Delta', 'é-acute', 'x', 'z 9', 'Ωmega'];
/** The second symbol column's values: some shared with the first (other dictionary keys), some not. */
const SYMBOLS2 = ['gamma', 'alpha', 'omicron', 'x', 'pi', 'Delta', ''];
const CHARS = 'abcXYZ019 -_éüΩ日';
/**
 * Constructs the generator can be told to leave out (the test's EXCLUDED list)
 * when one exposes a confirmed svcdb bug: arithmetic with a NULL literal, NULL
 * in an IN list, count(DISTINCT x) for count_distinct(x), min / max of text.
 */
export type Feature = 'null-arith' | 'in-null' | 'count-distinct-spelling' | 'text-min-max';

export class Gen {
  readonly r: () => number;

  /** The table's rows, when known: literals then sometimes take values the data holds, so equality hits. */
  data: readonly Row[] = [];

  constructor(
    seed: number,
    private readonly excluded: ReadonlySet<Feature>,
  ) {
    this.r = rng(seed);
  }

  /** A non-NULL value of column `name` from a random row, if the data has one there. */
  private seen(name: string): Val {
    if (this.data.length === 0) return null;
    const k = COLUMNS.findIndex((c) => c.name === name);
    return this.pick(this.data)[k] ?? null;
  }

  int(lo: number, hi: number): number {
    return lo + Math.floor(this.r() * (hi - lo + 1));
  }
  pick<X>(xs: readonly X[]): X {
    return xs[Math.floor(this.r() * xs.length)]!;
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  ok(f: Feature): boolean {
    return !this.excluded.has(f);
  }

  // ---- data ----

  rows(): Row[] {
    const out: Row[] = [];
    for (const [day, n] of DAYS) {
      const offsets = Array.from({ length: n }, () => this.int(0, DAY - 1)).sort((a, b) => a - b);
      // A few equal timestamps: their order is the insertion order.
      for (let k = 1; k < n; k++) if (this.chance(0.01)) offsets[k] = offsets[k - 1]!;
      for (const off of offsets) out.push(this.row(T0 + day * DAY + off));
    }
    return out;
  }

  private row(ts: number): Row {
    const nul = (p = 0.1): boolean => this.chance(p);
    const i = nul()
      ? null
      : this.chance(0.9)
        ? this.int(-1000, 1000)
        : this.chance(0.5)
          ? this.pick([0, 1, -1, 2147483647, -2147483647, 46341, 65536, -65536])
          : this.int(-2147483647, 2147483647);
    const j = nul() ? null : this.int(-5, 5);
    const l = nul()
      ? null
      : this.chance(0.9)
        ? this.int(-100000, 100000)
        : this.pick([0, 1, -1, 2147483648, -2147483649, 3000000000, 2 ** 26, -(2 ** 26)]);
    const d = nul()
      ? null
      : this.chance(0.45)
        ? this.int(-8000, 8000) / 8
        : this.chance(0.8)
          ? (this.r() - 0.5) * 2000
          : this.pick([0, 0.5, -0.5, 0.001, 1e6, -1e6, 2.5]);
    const s = nul() ? null : this.pick(SYMBOLS);
    const v = nul() ? null : this.text();
    const b = this.chance(0.5);
    const t2 = nul(0.15) ? null : T0 + this.int(-DAY, 6 * DAY);
    const s2 = nul(0.2) ? null : this.pick(SYMBOLS2);
    const st = nul() ? null : this.chance(0.3) ? this.pick(SYMBOLS) : this.text();
    return [ts, i, j, l, d, s, v, b, t2, s2, st];
  }

  text(): string {
    const n = this.int(0, 7);
    let s = '';
    for (let k = 0; k < n; k++) s += this.pick(Array.from(CHARS));
    return s;
  }

  // ---- literals ----

  intLit(): Expr {
    const known = this.chance(0.2) ? this.seen(this.pick(['i', 'j'])) : null;
    const x =
      known !== null
        ? (known as number)
        : this.chance(0.85)
          ? this.int(-10, 100)
          : this.pick([2147483647, -2147483647, 1000, 65536]);
    return R.lit(String(x), x, 'INT');
  }

  longLit(): Expr {
    const x = this.pick([3000000000, -3000000000, 2147483648, 10000000000]);
    return R.lit(String(x), x, 'LONG');
  }

  doubleLit(nonZero = false): Expr {
    let x = this.chance(0.6) ? this.int(-80, 80) / 8 : Math.round((this.r() - 0.5) * 2e6) / 1000;
    if (nonZero && x === 0) x = 2.5;
    const text = String(x);
    return R.lit(/[.e]/.test(text) ? text : `${text}.0`, x, 'DOUBLE');
  }

  textLit(): Expr {
    const known = this.chance(0.25) ? this.seen(this.pick(['s', 'v', 's2', 'st'])) : null;
    const s =
      known !== null ? (known as string) : this.chance(0.5) ? this.pick([...SYMBOLS, 'a', 'm', 'Z']) : this.text();
    return R.lit(`'${s.replace(/'/g, "''")}'`, s, 'STRING');
  }

  tsLit(): Expr {
    const known = this.chance(0.3) ? this.seen(this.pick(['ts', 't2'])) : null;
    const us = known !== null ? (known as number) : T0 + this.int(-DAY, 6 * DAY);
    return R.lit(
      `'${new Date(us / 1000).toISOString().replace('Z', '')}${String(us % 1000).padStart(3, '0')}Z'`,
      us,
      'TIMESTAMP',
    );
  }

  private colOf(...types: RType[]): Expr {
    const cs = COLUMNS.map((c, idx) => ({ ...c, idx })).filter((c) => types.includes(c.type));
    const c = this.pick(cs);
    return R.col(c.name, c.idx, c.type);
  }

  // ---- expressions ----

  numeric(depth: number): Expr {
    if (depth <= 0 || this.chance(0.3)) {
      if (this.chance(0.7)) return this.colOf('INT', 'LONG', 'DOUBLE');
      return this.chance(0.5) ? this.intLit() : this.chance(0.7) ? this.doubleLit() : this.longLit();
    }
    const d = depth - 1;
    switch (this.int(0, 8)) {
      case 0:
      case 1:
      case 2: {
        const op = this.pick(['+', '-', '*', '/', '%'] as const);
        const a = this.numeric(d);
        // NULL on one side adopts the other's type.
        if (this.chance(0.05) && this.ok('null-arith')) return R.arith(op, a, R.lit('NULL', null, 'NULL'));
        let b = this.numeric(d);
        // A DOUBLE division by zero is Infinity or NaN in QuestDB (not NULL): keep double divisors nonzero constants.
        if ((op === '/' || op === '%') && R.common([a.type, b.type]) === 'DOUBLE')
          b = this.chance(0.5) ? this.doubleLit(true) : R.lit('3', 3, 'INT');
        return R.arith(op, a, b);
      }
      case 3:
        return R.neg(this.numeric(d));
      case 4:
        return R.fn('abs', [this.numeric(d)]);
      case 5: {
        const x = this.numeric(d);
        if (this.chance(0.3)) return R.fn('round', [x]);
        const s = this.int(-2, 3);
        return R.fn('round', [x, R.lit(String(s), s, 'INT')]);
      }
      case 6:
        return this.caseOf(d, () => this.numeric(d));
      case 7:
        return this.coalesce(() => this.numeric(d));
      default: {
        // length(NULL) is -1 (QuestDB's documentation).
        if (this.chance(0.1)) return R.fn('length', [this.nul()]);
        return R.fn('length', [this.textual(d)]);
      }
    }
  }

  textual(depth: number): Expr {
    if (depth <= 0 || this.chance(0.35))
      return this.chance(0.8) ? this.colOf('SYMBOL', 'VARCHAR', 'STRING') : this.textLit();
    const d = depth - 1;
    switch (this.int(0, 4)) {
      case 0:
        return R.fn('upper', [this.textual(d)]);
      case 1:
        return R.concatOp(this.chance(0.1) ? this.nul() : this.textual(d), this.textual(d));
      case 2: {
        const args = [
          this.textual(d),
          this.chance(0.3) ? this.pick([this.colOf('INT'), this.intLit()]) : this.textual(d),
        ];
        if (this.chance(0.4)) args.push(this.textLit());
        return R.fn('concat', args);
      }
      case 3:
        return this.caseOf(d, () => this.textual(d));
      default:
        return this.coalesce(() => this.textual(d));
    }
  }

  timestamp(): Expr {
    switch (this.int(0, 9)) {
      case 0:
        return R.fn('coalesce', [this.colOf('TIMESTAMP'), this.colOf('TIMESTAMP')]);
      case 1:
        return R.caseOf(
          [{ c: this.bool(0), v: this.colOf('TIMESTAMP') }],
          this.chance(0.5) ? this.colOf('TIMESTAMP') : null,
        );
      case 2: {
        // The difference of two timestamps is a TIMESTAMP of the micros between them (QuestDB 9.3).
        if (this.chance(0.2)) return R.arith('-', named('ts'), named('t2'));
        // Plus or minus micros keeps the type.
        const micros = this.pick([1, 1000000, 86400000000, -3600000000]);
        return R.arith(
          this.pick(['+', '-'] as const),
          this.colOf('TIMESTAMP'),
          R.lit(String(micros), micros, micros > 2147483647 ? 'LONG' : 'INT'),
        );
      }
      default:
        return this.colOf('TIMESTAMP');
    }
  }

  /** The NULL literal, where the other operands give the expression its type. */
  nul(): Expr {
    return R.lit('NULL', null, 'NULL');
  }

  private caseOf(d: number, value: () => Expr): Expr {
    // The first branch gives the type; later ones may be NULL.
    const whens = Array.from({ length: this.int(1, 2) }, (_, n) => ({
      c: this.bool(d),
      v: n > 0 && this.chance(0.2) ? this.nul() : value(),
    }));
    return R.caseOf(whens, this.chance(0.7) ? (this.chance(0.15) ? this.nul() : value()) : null);
  }

  private coalesce(value: () => Expr): Expr {
    const args = [value(), value()];
    if (this.chance(0.3)) args.push(this.chance(0.5) ? R.lit('NULL', null, 'NULL') : value());
    return R.fn('coalesce', args);
  }

  bool(depth: number): Expr {
    const d = Math.max(depth - 1, 0);
    switch (this.int(0, depth <= 0 ? 5 : 11)) {
      case 0:
      case 1: {
        const op = this.pick(['=', '!=', '<', '<=', '>', '>='] as const);
        return R.cmp(
          op,
          this.numeric(d),
          this.chance(0.05)
            ? this.nul()
            : this.chance(0.5)
              ? this.numeric(d)
              : this.pick([this.intLit(), this.doubleLit()]),
        );
      }
      case 2: {
        const op = this.pick(['=', '!=', '<', '<=', '>', '>='] as const);
        return R.cmp(
          op,
          this.textual(d),
          this.chance(0.05) ? this.nul() : this.chance(0.5) ? this.textual(d) : this.textLit(),
        );
      }
      case 3: {
        const op = this.pick(['=', '!=', '<', '<=', '>', '>='] as const);
        return R.cmp(op, this.timestamp(), this.chance(0.7) ? this.tsLit() : this.timestamp());
      }
      case 4: {
        const b = named('b');
        return this.chance(0.5)
          ? b
          : R.cmp(
              this.pick(['=', '!='] as const),
              b,
              this.chance(0.5) ? R.lit('true', true, 'BOOLEAN') : R.lit('false', false, 'BOOLEAN'),
            );
      }
      case 5: {
        const x = this.pick([() => this.numeric(d), () => this.textual(d), () => this.timestamp(), () => named('b')])();
        return R.isNull(x, this.chance(0.5), this.chance(0.4));
      }
      case 6:
      case 7:
        return R.logic(this.pick(['AND', 'OR'] as const), this.bool(d), this.bool(d));
      case 8:
        return R.not(this.bool(d));
      case 9: {
        if (this.chance(0.5)) {
          const x = this.numeric(d);
          const list = Array.from({ length: this.int(1, 4) }, () =>
            x.type === 'DOUBLE' && this.chance(0.5) ? this.doubleLit() : this.intLit(),
          );
          if (this.chance(0.15) && this.ok('in-null')) list.push(R.lit('NULL', null, 'NULL'));
          return R.inList(x, list, this.chance(0.3));
        }
        const list = Array.from({ length: this.int(1, 4) }, () => this.textLit());
        if (this.chance(0.15) && this.ok('in-null')) list.push(R.lit('NULL', null, 'NULL'));
        return R.inList(this.textual(d), list, this.chance(0.3));
      }
      case 10: {
        const kind = this.int(0, 2);
        // QuestDB's BETWEEN takes integers (as micros) but no DOUBLE.
        if (kind === 0) {
          const x = this.numeric(d);
          if (x.type !== 'DOUBLE')
            return R.between(x, this.intLit(), this.chance(0.05) ? this.nul() : this.intLit(), this.chance(0.3));
        }
        if (kind === 1) return R.between(this.textual(d), this.textLit(), this.textLit(), this.chance(0.3));
        return R.between(this.timestamp(), this.tsLit(), this.tsLit(), this.chance(0.3));
      }
      default:
        return this.bool(0);
    }
  }

  /** A condition on the designated timestamp, which the engine turns into partition intervals. */
  timeFilter(): Expr {
    const ts = named('ts');
    switch (this.int(0, 3)) {
      case 0:
        return R.cmp(this.pick(['<', '<=', '>', '>='] as const), ts, this.tsLit());
      case 1:
        return R.between(ts, this.tsLit(), this.tsLit(), false);
      case 2:
        return R.cmp('=', ts, this.tsLit());
      default:
        return R.inList(ts, [this.tsLit(), this.tsLit(), this.tsLit()], false);
    }
  }

  /** A WHERE condition or none; sometimes a designated-timestamp condition ANDed in front. */
  where(): Expr | null {
    let w = this.chance(0.55) ? this.bool(this.int(0, 3)) : null;
    if (this.chance(0.3)) {
      const t = this.timeFilter();
      w = w ? R.logic('AND', t, w) : t;
    }
    return w;
  }

  /** Any scalar: what a SELECT list shows. */
  scalar(depth: number): Expr {
    switch (this.int(0, 9)) {
      case 0:
      case 1:
      case 2:
      case 3:
        return this.numeric(depth);
      case 4:
      case 5:
        return this.textual(depth);
      case 6:
        return this.timestamp();
      default:
        return this.bool(depth);
    }
  }

  // ---- aggregates ----

  aggregate(): Agg {
    const a = this.aggregateCall();
    // Arithmetic over an aggregate's value.
    if (R.isNum(a.type) && this.chance(0.15))
      return R.withPost(a, this.pick(['+', '-', '*'] as const), this.pick([1, 2, 10]));
    return a;
  }

  private aggregateCall(): Agg {
    const name = this.pick([
      'count(*)',
      'count',
      'sum',
      'avg',
      'min',
      'max',
      'first',
      'last',
      'count_distinct',
    ] as const);
    const depth = this.int(0, 2);
    switch (name) {
      case 'count(*)':
        return R.agg(name, null);
      case 'count':
        return R.agg(name, this.pick([() => this.numeric(depth), () => this.textual(depth), () => this.timestamp()])());
      case 'sum':
      case 'avg':
        return R.agg(name, this.numeric(depth));
      case 'count_distinct': {
        // QuestDB: varchar, symbol, long256, uuid, ipv4, long, int or string.
        let x = this.chance(0.5) ? this.textual(depth) : this.numeric(depth);
        if (x.type === 'DOUBLE') x = this.colOf('INT', 'LONG');
        // count(DISTINCT x) is the same aggregate.
        return R.agg(name, x, this.chance(0.3) && this.ok('count-distinct-spelling'));
      }
      case 'min':
      case 'max': {
        let x = this.pick([() => this.numeric(depth), () => this.timestamp(), () => this.textual(depth)])();
        // QuestDB: "any numeric or string value"; a SYMBOL is neither, so its text is taken as a string.
        if (x.type === 'SYMBOL') x = R.fn('upper', [x]);
        return R.agg(name, isTextMinMax(x) && !this.ok('text-min-max') ? this.numeric(depth) : x);
      }
      default: {
        // first / last: numbers, timestamps, symbol and varchar (not STRING, not BOOLEAN).
        const x = this.pick([
          () => this.numeric(depth),
          () => this.timestamp(),
          () => this.colOf('SYMBOL', 'VARCHAR'),
        ])();
        return R.agg(name, x);
      }
    }
  }

  /** A GROUP BY key: a SYMBOL, INT or BOOLEAN column, or a small INT expression. */
  key(): Expr {
    switch (this.int(0, 5)) {
      case 0:
        return named('s');
      case 1:
        return named(this.pick(['s2', 'v']));
      case 2:
        return named('j');
      case 3:
        return named('b');
      case 4:
        return named('i');
      default:
        return R.arith('%', named('i'), R.lit('7', 7, 'INT'));
    }
  }
}

const isTextMinMax = (x: Expr): boolean => R.isText(x.type);

/** A value's rendering in failure messages. */
export const show = (v: Val): string => (v === null ? 'null' : typeof v === 'string' ? JSON.stringify(v) : String(v));
