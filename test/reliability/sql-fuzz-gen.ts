// Seeded SQL for the reliability fuzzer (fuzz-sql.test.ts, npm run soak):
// request number i of a seed, regenerable alone from (seed, i): grammar-built
// statements over the fuzzer's tables (sql-fuzz-tables.ts) calling every
// registry function, DDL/DML on its own scratch tables, hostile statements and
// mutants of valid ones (sql-fuzz-hostile.ts).
import { createFunctionRegistry } from '../../lib/functions/index.js';
import { Rand, mix } from './fuzz-rand.js';
import { hostileStatement, mutate } from './sql-fuzz-hostile.js';
import {
  ALL,
  IMPORTED,
  QUOTES,
  READ_TABLES,
  REFERENCE,
  SCRATCH,
  SCRATCH_COLS,
  SMALL,
  SYMBOLS,
  type Col,
  type Kind,
  type Tab,
} from './sql-fuzz-tables.js';

/** Where a request goes: /exec, /exp as CSV or Parquet, or /api/v1/sql/validate. */
export type Endpoint = 'exec' | 'exp' | 'parquet' | 'validate';

export interface SqlRequest {
  readonly index: number;
  readonly endpoint: Endpoint;
  readonly sql: string;
  /** What produced it (`select`, `join`, `ddl`, `hostile:rpad`, `mutant` ...), for the failure report. */
  readonly category: string;
  /** The query parameter already percent-encoded, when it holds bytes no string can (invalid UTF-8). */
  readonly encodedQuery?: string;
}

/** Constructs the generator can be told to leave out (FUZZ_SKIP), each a known failure class while it is being fixed. */
export const FEATURES = [
  'rpad',
  'rnd-str',
  'cross-join',
  'deep',
  'in-list',
  'long-name',
  'redos',
  'huge-literal',
  'heavy',
  'mutant',
  'ddl',
  'bytes',
] as const;
export type Feature = (typeof FEATURES)[number];

// ---- function signatures ----
// Argument codes: n number, i integer, t timestamp, s text, b boolean, x any; upper case are
// constants: I small integer, S short text, T timestamp literal, D date literal, u dateadd unit,
// U date_trunc unit, P timestamp_floor stride, F date format, Z time zone, R regex, Q a percentile.
interface Sig {
  readonly args: string;
  readonly kind: Kind;
}
const sig = (args: string, kind: Kind): Sig => ({ args, kind });
const num1 = [sig('n', 'num')];
const tsPart = [sig('t', 'int')];
const text1 = [sig('s', 'text')];

const SIGNATURES: Readonly<Record<string, readonly Sig[]>> = {
  abs: num1,
  ceil: num1,
  ceiling: num1,
  floor: num1,
  exp: num1,
  ln: num1,
  log: num1,
  sqrt: num1,
  sign: num1,
  pow: [sig('nn', 'num')],
  power: [sig('nn', 'num')],
  round: [sig('n', 'num'), sig('nI', 'num')],
  round_down: [sig('nI', 'num')],
  round_half_even: [sig('nI', 'num')],
  round_up: [sig('nI', 'num')],
  greatest: [sig('nn', 'num'), sig('nnn', 'num')],
  least: [sig('nn', 'num'), sig('nnn', 'num')],
  concat: [sig('ss', 'text'), sig('sxs', 'text')],
  length: [sig('s', 'int')],
  lower: text1,
  upper: text1,
  to_lowercase: text1,
  to_uppercase: text1,
  ltrim: text1,
  rtrim: text1,
  trim: text1,
  left: [sig('sI', 'text')],
  right: [sig('sI', 'text')],
  lpad: [sig('sI', 'text'), sig('sIS', 'text')],
  rpad: [sig('sI', 'text'), sig('sIS', 'text')],
  position: [sig('sS', 'int')],
  strpos: [sig('sS', 'int')],
  replace: [sig('sSS', 'text')],
  regexp_replace: [sig('sRS', 'text')],
  split_part: [sig('sSI', 'text')],
  starts_with: [sig('sS', 'bool')],
  substring: [sig('sII', 'text')],
  date_trunc: [sig('Ut', 'ts')],
  dateadd: [sig('uIt', 'ts')],
  datediff: [sig('utt', 'int')],
  day: tsPart,
  hour: tsPart,
  minute: tsPart,
  second: tsPart,
  month: tsPart,
  year: tsPart,
  micros: tsPart,
  millis: tsPart,
  day_of_week: tsPart,
  day_of_week_sunday_first: tsPart,
  days_in_month: tsPart,
  week_of_year: tsPart,
  is_leap_year: [sig('t', 'bool')],
  timestamp_ceil: [sig('ut', 'ts')],
  timestamp_floor: [sig('Pt', 'ts')],
  to_str: [sig('tF', 'text')],
  to_timestamp: [sig('sF', 'ts'), sig('SF', 'ts')],
  to_date: [sig('SF', 'ts')],
  to_timezone: [sig('tZ', 'ts')],
  to_utc: [sig('tZ', 'ts')],
  now: [sig('', 'ts')],
  sysdate: [sig('', 'ts')],
  systimestamp: [sig('', 'ts')],
  // INTERVAL values (QuestDB 9), with an optional time zone.
  today: [sig('', 'other'), sig('Z', 'other')],
  tomorrow: [sig('', 'other'), sig('Z', 'other')],
  yesterday: [sig('', 'other'), sig('Z', 'other')],
  rnd_boolean: [sig('', 'bool')],
  rnd_byte: [sig('', 'int'), sig('II', 'int')],
  rnd_short: [sig('', 'int'), sig('II', 'int')],
  rnd_int: [sig('', 'int'), sig('III', 'int')],
  rnd_long: [sig('', 'int'), sig('III', 'int')],
  rnd_char: [sig('', 'text')],
  rnd_date: [sig('DDI', 'ts')],
  rnd_double: [sig('', 'num'), sig('I', 'num')],
  rnd_float: [sig('', 'num'), sig('I', 'num')],
  rnd_str: [sig('III', 'text'), sig('SSS', 'text')],
  rnd_varchar: [sig('III', 'text'), sig('SS', 'text')],
  rnd_symbol: [sig('SSS', 'sym')],
  rnd_timestamp: [sig('TTI', 'ts')],
  rnd_uuid4: [sig('', 'uuid')],
  timestamp_sequence: [sig('TI', 'ts')],
  coalesce: [sig('nn', 'num'), sig('ss', 'text'), sig('tt', 'ts')],
  nullif: [sig('nn', 'num'), sig('ss', 'text')],
};

/**
 * Registry names written as syntax rather than calls (operators, CASE, casts, IN, IS NULL ...):
 * expr() produces each of them; every other registry name is called by name, through
 * SIGNATURES when it is listed there, else with arguments of random kinds.
 */
const SYNTAX = new Set([
  '!=',
  '!~',
  '%',
  '*',
  '+',
  '-',
  '/',
  '<',
  '<=',
  '=',
  '>',
  '>=',
  'and',
  'or',
  'not',
  'neg',
  'between',
  'case',
  'ilike',
  'like',
  'in_list',
  'is_null',
  'is_not_null',
  'extract',
  '||',
  '~',
]);
const CAST_TYPES = [
  'BOOLEAN',
  'BYTE',
  'SHORT',
  'CHAR',
  'INT',
  'LONG',
  'FLOAT',
  'DOUBLE',
  'DATE',
  'TIMESTAMP',
  'SYMBOL',
  'STRING',
  'VARCHAR',
  'UUID',
  'IPV4',
  'LONG256',
  'BINARY',
];

/** The server's functions: a registry like the one it builds. */
const REGISTRY = createFunctionRegistry();
/** Functions called by name: every registry scalar that is not syntax or a cast, in a stable order. */
export const CALLED = REGISTRY.scalarNames().filter((n) => !SYNTAX.has(n) && !n.startsWith('cast_'));
export const AGGREGATES = REGISTRY.aggregateNames();

const UNITS = ['y', 'M', 'w', 'd', 'h', 'm', 's', 'T', 'u'];
const TRUNC_UNITS = [
  'year',
  'quarter',
  'month',
  'week',
  'day',
  'hour',
  'minute',
  'second',
  'millisecond',
  'microsecond',
  'decade',
  'century',
  'millennium',
  'fortnight',
];
const STRIDES = ['1s', '15m', '2h', '1d', 'M', 'y', '3w', '0h', '-1d', '100000000d'];
const FORMATS = [
  'yyyy-MM-dd',
  'yyyy-MM-ddTHH:mm:ss.SSSUUUZ',
  'dd/MM/yyyy HH:mm',
  'E, d MMM yyyy',
  'yyyy',
  'HH:mm:ss.SSS',
  'MMMM',
  "'quoted' yyyy",
  'u',
  '',
];
const ZONES = ['UTC', 'Europe/Berlin', 'America/New_York', '+05:30', 'Asia/Kathmandu', 'Nowhere/Atlantis', '-25:00'];
const REGEXES = ['[0-9]+', '^a', '(?i)z', 'a|b|c', '\\s+', '.', '(x)(y)?', '[', 'é+', '$'];
const EXTRACT_PARTS = [
  'year',
  'month',
  'day',
  'hour',
  'minute',
  'second',
  'millisecond',
  'microsecond',
  'dow',
  'doy',
  'week',
  'quarter',
  'epoch',
  'century',
  'decade',
  'isodow',
  'isoyear',
  'millennium',
];
const TEXTS = ['', 'a', 'abc', 'AAPL', 'é', 'Ωmega', '日本語', '🚀', "it's", 'a,b', '%', '_', 'null', ' x ', 'MSFT'];

/** Scope of an expression: the columns it may name (qualified by an alias when set). */
interface Scope {
  readonly cols: ReadonlyArray<{ readonly ref: string; readonly kind: Kind }>;
}
function scopeOf(t: Tab, alias?: string): Scope {
  return { cols: t.cols.map((c) => ({ ref: alias ? `${alias}.${c.name}` : c.name, kind: c.kind })) };
}
function joinScopes(...ss: Scope[]): Scope {
  return { cols: ss.flatMap((s) => s.cols) };
}

const fits = (have: Kind, want: Kind): boolean =>
  have === want || (want === 'num' && have === 'int') || (want === 'text' && have === 'sym');

/** The grammar over the fuzzer's tables. */
export class SqlGen {
  constructor(
    readonly g: Rand,
    readonly skip: ReadonlySet<Feature> = new Set(),
  ) {}

  // ---- literals ----

  literal(kind: Kind): string {
    const g = this.g;
    switch (kind) {
      case 'int':
        return g.weighted([
          [6, () => String(g.int(-20, 100))],
          [1, () => g.pick(['2147483647', '-2147483647', '9223372036854775807L', '0L', '1L', 'null'])],
        ])();
      case 'num':
        return g.weighted([
          [5, () => (g.r() * 200 - 100).toFixed(g.int(0, 4))],
          [1, () => g.pick(['1e300', '-0.0', '1.5E-7', "'NaN'::double", 'null', '0.1', "cast('Infinity' AS DOUBLE)"])],
          [3, () => this.literal('int')],
        ])();
      case 'text':
      case 'sym':
        return `'${g.pick(TEXTS).replace(/'/g, "''")}'`;
      case 'ts':
        return g.pick([
          `'2024-01-0${g.int(1, 9)}T${String(g.int(0, 23)).padStart(2, '0')}:00:00.000000Z'`,
          "'2024-01-03'",
          'now()',
          `cast(${g.int(0, 2e15)} AS TIMESTAMP)`,
          "'1970-01-01'",
          "'2262-01-01'",
          'cast(null AS TIMESTAMP)',
        ]);
      case 'bool':
        return g.pick(['true', 'false', 'null']);
      case 'uuid':
        return g.pick([
          "'11111111-1111-1111-1111-111111111111'",
          "cast('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11' AS UUID)",
          'rnd_uuid4()',
        ]);
      case 'ip':
        return g.pick(["'10.0.0.1'::ipv4", "cast('255.255.255.255' AS IPV4)", "'1.2.3.4'::ipv4"]);
      case 'other':
        return 'null';
    }
  }

  /** A constant argument of a signature code. */
  constArg(code: string): string {
    const g = this.g;
    switch (code) {
      case 'I':
        return g.chance(0.9)
          ? String(g.int(-3, 40))
          : g.pick(['0', '-1', '2147483647', '-2147483648', '100000', 'null']);
      case 'S':
        return `'${g.pick(TEXTS).replace(/'/g, "''")}'`;
      case 'T':
        return g.pick(["'2024-01-01'", "'2024-01-05T12:00:00Z'", "to_timestamp('2015', 'yyyy')", "'1970-01-01'"]);
      case 'D':
        return g.pick(["to_date('2015', 'yyyy')", "to_date('2024', 'yyyy')", "cast('2024-06-01' AS DATE)"]);
      case 'u':
        return `'${g.pick(UNITS)}'`;
      case 'U':
        return `'${g.pick(TRUNC_UNITS)}'`;
      case 'P':
        return `'${g.pick(STRIDES)}'`;
      case 'F':
        return `'${g.pick(FORMATS).replace(/'/g, "''")}'`;
      case 'Z':
        return `'${g.pick(ZONES)}'`;
      case 'R':
        return `'${g.pick(REGEXES).replace(/'/g, "''")}'`;
      default:
        return 'null';
    }
  }

  // ---- expressions ----

  /** An expression of `kind` over `scope`, at most `depth` levels deep. */
  expr(kind: Kind, scope: Scope, depth = 3): string {
    const g = this.g;
    const cols = scope.cols.filter((c) => fits(c.kind, kind));
    if (depth <= 0 || g.chance(0.25)) {
      if (cols.length > 0 && g.chance(0.75)) return g.pick(cols).ref;
      return this.literal(kind);
    }
    const d = depth - 1;
    const options: Array<[number, () => string]> = [
      [3, () => this.call(kind, scope, d)],
      [1, () => this.castTo(kind, scope, d)],
      [1, () => this.caseExpr(kind, scope, d)],
    ];
    switch (kind) {
      case 'num':
      case 'int':
        options.push(
          [4, () => `${this.expr('num', scope, d)} ${g.pick(['+', '-', '*', '/', '%'])} ${this.expr('num', scope, d)}`],
          [1, () => `-${this.expr(kind, scope, d)}`],
          [1, () => `(${this.expr(kind, scope, d)})`],
        );
        break;
      case 'text':
        options.push([
          3,
          () => `${this.expr('text', scope, d)} || ${this.expr(g.pick(['text', 'num', 'ts'] as const), scope, d)}`,
        ]);
        break;
      case 'bool':
        options.push(
          [4, () => this.comparison(scope, d)],
          [2, () => `${this.expr('bool', scope, d)} ${g.pick(['AND', 'OR'])} ${this.expr('bool', scope, d)}`],
          [1, () => `NOT ${this.expr('bool', scope, d)}`],
          [1, () => `${this.expr(g.pick(['num', 'text', 'ts'] as const), scope, d)} IS ${g.pick(['', 'NOT '])}NULL`],
          [
            1,
            () =>
              `${this.expr('num', scope, d)} ${g.pick(['', 'NOT '])}BETWEEN ${this.literal('num')} AND ${this.literal('num')}`,
          ],
          [2, () => this.inList(scope, d)],
          [
            1,
            () =>
              `${this.expr('text', scope, d)} ${g.pick(['LIKE', 'ILIKE', 'NOT LIKE'])} '${g.pick(['%a%', 'A_', '%', '_', 'é%', '%\\%%', 'Ω%'])}'`,
          ],
          [1, () => `${this.expr('text', scope, d)} ${g.pick(['~', '!~'])} ${this.constArg('R')}`],
        );
        break;
      case 'ts':
        options.push([2, () => `dateadd('${g.pick(UNITS)}', ${g.int(-5, 5)}, ${this.expr('ts', scope, d)})`]);
        break;
      default:
        break;
    }
    return g.weighted(options)();
  }

  comparison(scope: Scope, d: number): string {
    const k = this.g.pick(['num', 'num', 'text', 'ts', 'sym', 'uuid', 'ip', 'bool'] as const);
    return `${this.expr(k, scope, d)} ${this.g.pick(['=', '!=', '<', '<=', '>', '>=', '<>'])} ${this.expr(k, scope, d)}`;
  }

  inList(scope: Scope, d: number): string {
    const g = this.g;
    const k = g.pick(['num', 'text', 'sym', 'ts'] as const);
    if (g.chance(0.2)) {
      const sub = g.pick(READ_TABLES);
      const c = sub.cols.find((x) => fits(x.kind, k));
      if (c)
        return `${this.expr(k, scope, d)} ${g.pick(['IN', 'NOT IN'])} (SELECT ${c.name} FROM ${sub.name}${g.chance(0.5) ? ` LIMIT ${g.int(0, 50)}` : ''})`;
    }
    const n = g.int(1, 8);
    return `${this.expr(k, scope, d)} ${g.pick(['IN', 'NOT IN'])} (${Array.from({ length: n }, () => this.literal(k)).join(', ')})`;
  }

  castTo(kind: Kind, scope: Scope, d: number): string {
    const target = this.g.pick(CAST_TYPES);
    const from = this.expr(this.g.pick(['num', 'text', 'ts', 'bool', 'sym', 'uuid', 'ip'] as const), scope, d);
    const c = this.g.chance(0.5) ? `cast(${from} AS ${target})` : `(${from})::${target.toLowerCase()}`;
    // The outer kind is not guaranteed: an ill-typed place gives a 400, which is fine.
    return kind === 'num' || kind === 'int' ? `cast(${c} AS DOUBLE)` : c;
  }

  caseExpr(kind: Kind, scope: Scope, d: number): string {
    const n = this.g.int(1, 3);
    let s = 'CASE';
    for (let k = 0; k < n; k++) s += ` WHEN ${this.expr('bool', scope, d)} THEN ${this.expr(kind, scope, d)}`;
    if (this.g.chance(0.7)) s += ` ELSE ${this.expr(kind, scope, d)}`;
    return `${s} END`;
  }

  /** A call of a registry function whose result fits `kind` (any registry function now and then). */
  call(kind: Kind, scope: Scope, d: number): string {
    const g = this.g;
    if (kind === 'int' && g.chance(0.15)) return `extract(${g.pick(EXTRACT_PARTS)} FROM ${this.expr('ts', scope, d)})`;
    const fitting = CALLED.filter((n) => (SIGNATURES[n] ?? []).some((s) => fits(s.kind, kind)));
    const name = fitting.length > 0 && g.chance(0.85) ? g.pick(fitting) : g.pick(CALLED);
    return this.callOf(name, scope, d, kind);
  }

  callOf(name: string, scope: Scope, d: number, kind?: Kind): string {
    const g = this.g;
    const sigs = SIGNATURES[name];
    if (!sigs) {
      // A registry function this table does not know yet: random arguments (a 400 is a fine answer).
      const n = g.int(0, 3);
      return `${name}(${Array.from({ length: n }, () => this.expr(g.pick(['num', 'text', 'ts'] as const), scope, d)).join(', ')})`;
    }
    const fitting = kind ? sigs.filter((s) => fits(s.kind, kind)) : [];
    const s = fitting.length > 0 ? g.pick(fitting) : g.pick(sigs);
    const args = [...s.args].map((code) => {
      switch (code) {
        case 'n':
          return this.expr('num', scope, d);
        case 'i':
          return this.expr('int', scope, d);
        case 't':
          return this.expr('ts', scope, d);
        case 's':
          return this.expr('text', scope, d);
        case 'b':
          return this.expr('bool', scope, d);
        case 'x':
          return this.expr(g.pick(['num', 'text', 'ts', 'bool'] as const), scope, d);
        default:
          return this.constArg(code);
      }
    });
    return `${name}(${args.join(', ')})`;
  }

  aggregate(scope: Scope, d = 1): string {
    const g = this.g;
    const name = g.pick(AGGREGATES);
    const n = (): string => this.expr('num', scope, d);
    const anyCol = (): string => this.expr(g.pick(['num', 'text', 'ts', 'sym', 'bool', 'uuid'] as const), scope, d);
    switch (name) {
      case 'count':
        return g.pick(['count()', 'count(*)', `count(${anyCol()})`]);
      case 'count_distinct':
        return `count_distinct(${anyCol()})`;
      case 'approx_percentile':
        return `approx_percentile(${n()}, ${g.pick(['0.5', '0.99', '0', '1', '1.5'])}${g.chance(0.3) ? `, ${g.int(0, 5)}` : ''})`;
      case 'percentile_cont':
      case 'percentile_disc':
        return `${name}(${n()}, ${g.pick(['0.5', '0.25', '0', '1.0', '-0.1'])})`;
      case 'vwap':
      case 'weighted_avg':
        return `${name}(${n()}, ${n()})`;
      case 'first':
      case 'last':
      case 'first_not_null':
      case 'last_not_null':
      case 'min':
      case 'max':
        return `${name}(${anyCol()})`;
      default:
        return `${name}(${n()})`;
    }
  }

  // ---- queries ----

  /** A source of rows with its scope: a table (aliased or not), long_sequence, or a subquery. */
  source(): { from: string; scope: Scope; tab?: Tab } {
    const g = this.g;
    return g.weighted<() => { from: string; scope: Scope; tab?: Tab }>([
      [
        8,
        () => {
          const t = g.pick(READ_TABLES);
          return { from: t.name, scope: scopeOf(t), tab: t };
        },
      ],
      [
        2,
        () => ({
          from: `long_sequence(${g.pick([0, 1, 10, 1000, 50000])})`,
          scope: { cols: [{ ref: 'x', kind: 'int' }] },
        }),
      ],
      [
        1,
        () => {
          const t = g.pick(READ_TABLES);
          const cols = t.cols.filter(() => g.chance(0.6));
          const picked = cols.length > 0 ? cols : [t.cols[0]!];
          return {
            from: `(SELECT ${picked.map((c) => c.name).join(', ')} FROM ${t.name} WHERE ${this.expr('bool', scopeOf(t), 2)})`,
            scope: { cols: picked.map((c) => ({ ref: c.name, kind: c.kind })) },
          };
        },
      ],
    ])();
  }

  where(scope: Scope, tab?: Tab): string {
    const g = this.g;
    if (!g.chance(0.6)) return '';
    if (tab?.ts && g.chance(0.35))
      return ` WHERE ${this.intervalFilter(tab.ts)}${g.chance(0.4) ? ` AND ${this.expr('bool', scope, 2)}` : ''}`;
    return ` WHERE ${this.expr('bool', scope, 3)}`;
  }

  intervalFilter(ts: string): string {
    const g = this.g;
    return g.pick([
      () => `${ts} IN '2024-01-0${g.int(1, 9)}'`,
      () =>
        `${ts} IN '2024-01-0${g.int(1, 5)}T${String(g.int(0, 23)).padStart(2, '0')}:00;${g.int(1, 30)}${g.pick(['m', 'h', 'd'])}'`,
      () =>
        `${ts} IN '2024-01-[01..${String(g.int(2, 20)).padStart(2, '0')}]${g.pick(['', '#weekend', '#workday', 'T12;1h'])}'`,
      () => `${ts} BETWEEN '2024-01-0${g.int(1, 4)}' AND '2024-01-0${g.int(4, 9)}'`,
      () => `${ts} ${g.pick(['>', '<', '>=', '<='])} '2024-01-0${g.int(1, 9)}T0${g.int(0, 9)}'`,
      () => `${ts} NOT IN '2024-01-0${g.int(1, 9)}'`,
      () => `${ts} IN '$now - ${g.int(1, 100)}h..$now'`,
      () => `${ts} IN '${g.pick(['20x4', '2024-13', '2024-01-02;1q', '[2024-01-01,', '2024-01-01T25'])}'`,
    ])();
  }

  orderLimit(items: number): string {
    const g = this.g;
    let s = '';
    if (g.chance(0.4) && items > 0)
      s += ` ORDER BY ${Array.from({ length: g.int(1, Math.min(3, items)) }, () => `${g.int(1, items)}${g.pick(['', ' DESC', ' ASC'])}`).join(', ')}`;
    if (g.chance(0.5))
      s += ` LIMIT ${g.pick([String(g.int(0, 100)), `${g.int(-50, 50)}`, `${g.int(0, 20)}, ${g.int(0, 40)}`, '-3'])}`;
    return s;
  }

  simpleSelect(): string {
    const g = this.g;
    const src = this.source();
    const n = g.int(1, 6);
    const items = Array.from({ length: n }, (_, k) => {
      const e =
        g.chance(0.3) && src.scope.cols.length > 0
          ? g.pick(src.scope.cols).ref
          : this.expr(g.pick(['num', 'text', 'ts', 'bool', 'int', 'sym'] as const), src.scope, g.int(1, 4));
      return g.chance(0.5) ? `${e} c${k}` : e;
    });
    const star = g.chance(0.1);
    return `SELECT ${g.chance(0.08) ? 'DISTINCT ' : ''}${star ? '*' : items.join(', ')} FROM ${src.from}${this.where(src.scope, src.tab)}${this.orderLimit(star ? 0 : n)}`;
  }

  groupedSelect(): string {
    const g = this.g;
    const src = this.source();
    const keys = Array.from({ length: g.int(0, 2) }, () =>
      g.chance(0.7) && src.scope.cols.length > 0
        ? g.pick(src.scope.cols).ref
        : this.expr(g.pick(['int', 'text', 'sym', 'bool'] as const), src.scope, 1),
    );
    const aggs = Array.from({ length: g.int(1, 4) }, (_, k) => `${this.aggregate(src.scope)} a${k}`);
    const items = [...keys, ...aggs];
    const explicit = keys.length > 0 && g.chance(0.4) ? ` GROUP BY ${keys.join(', ')}` : '';
    const having = explicit && g.chance(0.3) ? ` HAVING ${this.aggregate(src.scope)} > ${this.literal('num')}` : '';
    return `SELECT ${items.join(', ')} FROM ${src.from}${this.where(src.scope, src.tab)}${explicit}${having}${this.orderLimit(items.length)}`;
  }

  sampleBy(): string {
    const g = this.g;
    const t = g.pick([ALL, QUOTES, IMPORTED, REFERENCE]);
    const sc = scopeOf(t);
    const keys = g.chance(0.4) ? [t.key!] : [];
    const aggs = Array.from({ length: g.int(1, 3) }, (_, k) => `${this.aggregate(sc)} a${k}`);
    const unit = `${g.pick([1, 1, 2, 5, 15, 30, 90])}${g.pick(['s', 'm', 'h', 'd', 'w', 'M', 'y', 'T'])}`;
    let s = `SELECT ${t.ts}, ${[...keys, ...aggs].join(', ')} FROM ${t.name}${this.where(sc, t)} SAMPLE BY ${unit}`;
    if (g.chance(0.3)) s += ` FROM '2024-01-0${g.int(1, 3)}' TO '2024-01-0${g.int(3, 9)}'`;
    if (g.chance(0.6))
      s += ` FILL(${Array.from({ length: aggs.length }, () => g.pick(['NONE', 'NULL', 'PREV', 'LINEAR', '0', '-1.5'])).join(', ')})`;
    if (g.chance(0.3))
      s += g.pick([
        ' ALIGN TO FIRST OBSERVATION',
        ' ALIGN TO CALENDAR',
        " ALIGN TO CALENDAR WITH OFFSET '00:30'",
        " ALIGN TO CALENDAR TIME ZONE 'Europe/Berlin'",
        " ALIGN TO CALENDAR TIME ZONE 'America/New_York' WITH OFFSET '01:00'",
      ]);
    return s + this.orderLimit(1 + keys.length + aggs.length);
  }

  latestOn(): string {
    const g = this.g;
    const t = g.pick([ALL, QUOTES, IMPORTED, REFERENCE]);
    const sc = scopeOf(t);
    const cols = t.cols.filter(() => g.chance(0.5)).map((c) => c.name);
    const by = g.chance(0.8) ? t.key! : g.pick(t.cols).name;
    return g.chance(0.85)
      ? `SELECT ${cols.length > 0 ? cols.join(', ') : '*'} FROM ${t.name}${this.where(sc, t)} LATEST ON ${t.ts} PARTITION BY ${by}${g.chance(0.2) ? `, ${g.pick(t.cols).name}` : ''}${this.orderLimit(cols.length)}`
      : `SELECT * FROM ${t.name} LATEST BY ${by}`;
  }

  join(): string {
    const g = this.g;
    const kind = g.pick([
      'JOIN',
      'INNER JOIN',
      'LEFT JOIN',
      'LEFT OUTER JOIN',
      'CROSS JOIN',
      'ASOF JOIN',
      'LT JOIN',
      'SPLICE JOIN',
    ]);
    const timeJoin = kind === 'ASOF JOIN' || kind === 'LT JOIN' || kind === 'SPLICE JOIN';
    const [ta, tb] = timeJoin
      ? [g.pick([ALL, QUOTES, REFERENCE, IMPORTED]), g.pick([QUOTES, ALL, REFERENCE])]
      : [g.pick(READ_TABLES), g.pick(READ_TABLES)];
    const sc = joinScopes(scopeOf(ta, 'a'), scopeOf(tb, 'b'));
    // Hash and cross joins of two whole tables on a few-valued key are the hostile kind (cross-join): here the
    // right side is the small table or a slice, so the valid mix stays fast; time joins are streaming merges.
    const slice = (t: Tab): string =>
      t === SMALL
        ? t.name
        : `(SELECT * FROM ${t.name}${g.chance(0.5) ? ` WHERE ${this.intervalFilter(t.ts ?? 'ts')}` : ''} LIMIT ${g.int(0, 80)})`;
    const aFrom = kind === 'CROSS JOIN' ? slice(ta) : ta.name;
    const bFrom = timeJoin
      ? g.chance(0.7)
        ? tb.name
        : `(SELECT * FROM ${tb.name} WHERE ${this.intervalFilter(tb.ts!)})`
      : slice(tb);
    let on = '';
    if (kind !== 'CROSS JOIN') {
      on = g.weighted([
        [
          4,
          () =>
            ta.key && tb.key
              ? timeJoin && g.chance(0.5)
                ? ` ON (${ta.key === tb.key ? ta.key : 'sy'})`
                : ` ON a.${ta.key} = b.${tb.key}`
              : ` ON ${this.comparison(sc, 1)}`,
        ],
        [1, () => ` ON ${this.comparison(sc, 1)}`],
        [1, () => (timeJoin ? '' : ` ON a.${g.pick(ta.cols).name} = b.${g.pick(tb.cols).name}`)],
      ])();
    }
    if (timeJoin && g.chance(0.2)) on += ` TOLERANCE ${g.int(1, 90)}${g.pick(['s', 'm', 'h', 'd', 'U'])}`;
    const items = Array.from({ length: g.int(1, 4) }, () =>
      g.chance(0.6) ? g.pick(sc.cols).ref : this.expr(g.pick(['num', 'text', 'ts'] as const), sc, 2),
    );
    const agg = g.chance(0.35);
    const select = agg ? `count() n, ${this.aggregate(sc)} a` : items.join(', ');
    return `SELECT ${select} FROM ${aFrom} a ${kind} ${bFrom} b${on}${g.chance(0.3) ? ` WHERE ${this.expr('bool', sc, 2)}` : ''}${agg ? '' : this.orderLimit(items.length)}${agg ? '' : ` LIMIT ${g.int(0, 500)}`}`;
  }

  setOperation(): string {
    const g = this.g;
    const k = g.pick(['num', 'text', 'ts', 'int'] as const);
    const one = (): string => {
      const t = g.pick(READ_TABLES);
      const sc = scopeOf(t);
      return `SELECT ${this.expr(k, sc, 2)} c, ${this.expr('text', sc, 1)} t FROM ${t.name}${this.where(sc, t)}${g.chance(0.3) ? ` LIMIT ${g.int(0, 100)}` : ''}`;
    };
    const op = g.pick(['UNION', 'UNION ALL', 'EXCEPT', 'INTERSECT', 'EXCEPT ALL', 'INTERSECT ALL']);
    const body = g.chance(0.3)
      ? `${one()} ${op} ${one()} ${g.pick(['UNION', 'EXCEPT'])} ${one()}`
      : `${one()} ${op} ${one()}`;
    return g.chance(0.5)
      ? `SELECT count() n, max(c) m FROM (${body})`
      : `${body}${g.chance(0.5) ? ' ORDER BY 1, 2' : ''}`;
  }

  cte(): string {
    const g = this.g;
    const t = g.pick(READ_TABLES);
    const picked = t.cols.filter(() => g.chance(0.5));
    const cols = picked.length > 0 ? picked : [t.cols[0]!];
    const sc: Scope = { cols: cols.map((c) => ({ ref: c.name, kind: c.kind })) };
    const first = `c1 AS (SELECT ${cols.map((c) => c.name).join(', ')} FROM ${t.name}${this.where(scopeOf(t), t)})`;
    const second = g.chance(0.4) ? `, c2 AS (SELECT count() n FROM c1)` : '';
    const body = g.chance(0.5)
      ? `SELECT ${this.expr(g.pick(['num', 'text', 'bool'] as const), sc, 2)} e FROM c1${g.chance(0.5) ? ` WHERE ${this.expr('bool', sc, 2)}` : ''}${second ? ', c2' : ''} LIMIT ${g.int(0, 200)}`
      : `SELECT ${this.aggregate(sc)} FROM c1`;
    return `WITH ${first}${second} ${body}`;
  }

  subqueries(): string {
    const g = this.g;
    const t = g.pick(READ_TABLES);
    const sc = scopeOf(t);
    const num = t.cols.find((c) => c.kind === 'num' || c.kind === 'int')!;
    return g.pick([
      () => `SELECT ${num.name}, (SELECT max(${num.name}) FROM ${t.name}) m FROM ${t.name} LIMIT ${g.int(0, 50)}`,
      () => `SELECT count() FROM ${t.name} WHERE ${num.name} > (SELECT avg(${num.name}) FROM ${t.name})`,
      () =>
        `SELECT * FROM (SELECT * FROM (SELECT ${t.cols.map((c) => c.name).join(', ')} FROM ${t.name} LIMIT 100) WHERE ${this.expr('bool', sc, 2)}) LIMIT 10`,
      () => `SELECT ${this.expr('num', sc, 2)} FROM ${t.name} WHERE ${this.inList(sc, 1)} LIMIT 100`,
      () => `SELECT (SELECT ${num.name} FROM ${t.name}) FROM long_sequence(2)`,
      () =>
        `SELECT count() FROM ${t.name} t1 WHERE t1.${num.name} IN (SELECT ${num.name} FROM ${t.name} WHERE ${this.expr('bool', sc, 1)})`,
    ])();
  }

  window(): string {
    const g = this.g;
    const t = g.pick(READ_TABLES);
    const sc = scopeOf(t);
    const fns = [
      'row_number()',
      'rank()',
      'dense_rank()',
      'percent_rank()',
      'cume_dist()',
      `ntile(${g.int(-1, 10)})`,
      `lag(${this.expr('num', sc, 1)}${g.chance(0.3) ? `, ${g.int(0, 5)}` : ''})`,
      `lead(${this.expr('text', sc, 1)})`,
      `first_value(${this.expr('num', sc, 1)})`,
      `last_value(${this.expr('num', sc, 1)})`,
      `sum(${this.expr('num', sc, 1)})`,
      `avg(${this.expr('num', sc, 1)})`,
      `min(${this.expr('num', sc, 1)})`,
      `max(${this.expr('ts', sc, 1)})`,
      'count(*)',
      `count(${g.pick(t.cols).name})`,
    ];
    const over = (): string => {
      const parts: string[] = [];
      if (g.chance(0.5)) parts.push(`PARTITION BY ${g.pick(t.cols).name}`);
      if (g.chance(0.7))
        parts.push(`ORDER BY ${t.ts && g.chance(0.6) ? t.ts : g.pick(t.cols).name}${g.pick(['', ' DESC'])}`);
      if (g.chance(0.4)) {
        parts.push(
          g.pick([
            'ROWS UNBOUNDED PRECEDING',
            `ROWS BETWEEN ${g.int(0, 5)} PRECEDING AND ${g.int(0, 5)} FOLLOWING`,
            'ROWS CURRENT ROW',
            `RANGE BETWEEN ${g.int(0, 100)} PRECEDING AND CURRENT ROW`,
            `RANGE BETWEEN '${g.int(1, 9)}' MINUTE PRECEDING AND CURRENT ROW`,
            'ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW EXCLUDE CURRENT ROW',
            'CUMULATIVE',
            'ROWS BETWEEN 3 FOLLOWING AND 1 PRECEDING',
          ]),
        );
      }
      return parts.join(' ');
    };
    const items = Array.from(
      { length: g.int(1, 3) },
      (_, k) => `${g.pick(fns)}${g.chance(0.1) ? ' IGNORE NULLS' : ''} OVER (${over()}) w${k}`,
    );
    return `SELECT ${g.pick(t.cols).name}, ${items.join(', ')} FROM ${t.name}${this.where(sc, t)}${g.chance(0.7) ? ` LIMIT ${g.int(0, 300)}` : ''}`;
  }

  generators(): string {
    const g = this.g;
    const sc: Scope = { cols: [{ ref: 'x', kind: 'int' }] };
    const fns = CALLED.filter((n) => n.startsWith('rnd_') || n === 'timestamp_sequence');
    const items = Array.from({ length: g.int(1, 4) }, () => this.callOf(g.pick(fns), sc, 1));
    return `SELECT x, ${items.join(', ')} FROM long_sequence(${g.pick([1, 5, 100, 5000])})${g.chance(0.3) ? ` WHERE ${this.expr('bool', sc, 1)}` : ''}`;
  }

  metadata(): string {
    const g = this.g;
    const t = g.pick([...READ_TABLES.map((x) => x.name), ...SCRATCH, 'nope']);
    return g.pick([
      'SELECT * FROM tables()',
      `SELECT * FROM table_columns('${t}')`,
      'SHOW TABLES',
      `SHOW COLUMNS FROM ${t}`,
      `SHOW CREATE TABLE ${t}`,
      `EXPLAIN ${this.simpleSelect()}`,
      `SELECT table_name, table_row_count FROM tables() WHERE table_name LIKE 'fz%'`,
    ]);
  }

  /** Every registry function, called over fz_all: the cycle guarantees each is reached in a run. */
  everyFunction(i: number): string {
    const name = CALLED[i % CALLED.length]!;
    const sc = scopeOf(ALL);
    const items = Array.from({ length: 3 }, () => this.callOf(name, sc, this.g.int(1, 2)));
    return `SELECT ${items.join(', ')} FROM ${ALL.name}${this.where(sc, ALL)} LIMIT ${this.g.int(1, 200)}`;
  }

  /** A valid or nearly valid read-only statement. */
  query(): { sql: string; category: string } {
    const g = this.g;
    const kinds: Array<[number, string, () => string]> = [
      [10, 'select', () => this.simpleSelect()],
      [6, 'group', () => this.groupedSelect()],
      [4, 'sample-by', () => this.sampleBy()],
      [3, 'latest-on', () => this.latestOn()],
      [5, 'join', () => this.join()],
      [3, 'set-op', () => this.setOperation()],
      [3, 'cte', () => this.cte()],
      [3, 'subquery', () => this.subqueries()],
      [4, 'window', () => this.window()],
      [2, 'generator', () => this.generators()],
      [2, 'metadata', () => this.metadata()],
    ];
    const [, category, make] = g.weighted(kinds.map(([w, c, f]) => [w, [w, c, f] as const]));
    return { sql: make(), category };
  }

  // ---- DDL / DML on the scratch tables ----

  scratchValue(c: Col): string {
    const g = this.g;
    switch (c.kind) {
      case 'ts':
        return g.chance(0.9)
          ? `'2024-0${g.int(1, 3)}-${String(g.int(1, 28)).padStart(2, '0')}T${String(g.int(0, 23)).padStart(2, '0')}:${String(g.int(0, 59)).padStart(2, '0')}:00Z'`
          : g.pick(["'1970-01-01'", "'2100-01-01'", 'null', "'not a time'"]);
      case 'sym':
        return g.chance(0.9) ? `'${g.pick(SYMBOLS).replace(/'/g, "''")}'` : 'null';
      default:
        return this.literal(c.kind);
    }
  }

  ddl(): { sql: string; category: string } {
    const g = this.g;
    const t = g.pick(SCRATCH);
    const cols = SCRATCH_COLS;
    const sc = { cols: cols.map((c) => ({ ref: c.name, kind: c.kind })) };
    const make: Array<[number, string, () => string]> = [
      [
        3,
        'create',
        () =>
          `CREATE TABLE ${g.chance(0.7) ? 'IF NOT EXISTS ' : ''}${t} (${cols.map((c) => `${c.name} ${c.type}`).join(', ')}) TIMESTAMP(ts) PARTITION BY ${g.pick(['DAY', 'HOUR', 'MONTH', 'YEAR', 'WEEK', 'NONE'])}${g.chance(0.2) ? ' WAL' : ''}`,
      ],
      [
        2,
        'create-as',
        () =>
          `CREATE TABLE ${t} AS (SELECT ts, sy k, d v, l n, v s FROM ${ALL.name}${this.where(scopeOf(ALL), ALL)} LIMIT ${g.int(0, 3000)}) TIMESTAMP(ts) PARTITION BY ${g.pick(['DAY', 'MONTH', 'HOUR'])}`,
      ],
      [
        6,
        'insert',
        () =>
          `INSERT INTO ${t} (${cols.map((c) => c.name).join(', ')}) VALUES ${Array.from({ length: g.int(1, 20) }, () => `(${cols.map((c) => this.scratchValue(c)).join(', ')})`).join(', ')}`,
      ],
      [
        3,
        'insert-select',
        () =>
          `INSERT INTO ${t} SELECT timestamp_sequence('2024-0${g.int(1, 3)}-01', ${g.pick(['1000000L', '60000000L', '3600000000L', '-1000000L'])}), rnd_symbol('a', 'b', 'é'), rnd_double(2), rnd_long(0, 100, 1), rnd_varchar(0, 30, 1) FROM long_sequence(${g.int(0, 5000)})`,
      ],
      [
        3,
        'update',
        () =>
          `UPDATE ${t} SET ${g.pick(['v', 'n', 's', 'k'])} = ${this.expr(g.pick(['num', 'text'] as const), sc, 2)}${g.chance(0.6) ? ` WHERE ${this.expr('bool', sc, 2)}` : ''}`,
      ],
      [
        2,
        'alter',
        () =>
          `ALTER TABLE ${t} ${g.pick([
            `ADD COLUMN c${g.int(0, 5)} ${g.pick(CAST_TYPES)}`,
            `DROP COLUMN c${g.int(0, 5)}`,
            `RENAME COLUMN c${g.int(0, 5)} TO c${g.int(0, 5)}`,
            `DROP PARTITION LIST '2024-0${g.int(1, 3)}-${String(g.int(1, 28)).padStart(2, '0')}'`,
            `ADD COLUMN IF NOT EXISTS s2 VARCHAR`,
            `ALTER COLUMN k ADD INDEX`,
          ])}`,
      ],
      [1, 'rename', () => `RENAME TABLE ${t} TO ${g.pick(SCRATCH)}`],
      [1, 'truncate', () => `TRUNCATE TABLE ${t}`],
      [1, 'drop', () => `DROP TABLE ${g.chance(0.5) ? 'IF EXISTS ' : ''}${t}`],
      [
        2,
        'read-scratch',
        () =>
          `SELECT ${g.chance(0.5) ? '*' : `count(), ${this.aggregate(sc)}`} FROM ${t}${g.chance(0.5) ? ` WHERE ${this.expr('bool', sc, 2)}` : ''} LIMIT 100`,
      ],
      [1, 'conflict', () => `CREATE TABLE ${g.pick(READ_TABLES).name} (x INT)`],
    ];
    const [, category, f] = g.weighted(make.map(([w, c, fn]) => [w, [w, c, fn] as const]));
    return { sql: f(), category: `ddl:${category}` };
  }
}

/** Statements that write (a mutant mentioning the reference table must not be one). */
const WRITES = /\b(insert|update|drop|truncate|alter|rename|copy|vacuum|reindex|into|set)\b/i;

/** Whether `sql` might write to the reference table (never sent: the table must stay intact). */
export function touchesReference(sql: string): boolean {
  return /fz_ref/i.test(sql) && WRITES.test(sql);
}

/** Request `index` of `seed`: the mix of endpoints and kinds the fuzzer sends. */
export function sqlRequest(seed: number, index: number, skip: ReadonlySet<Feature> = new Set()): SqlRequest {
  const g = new Rand(mix(seed, index));
  const gen = new SqlGen(g, skip);
  for (let attempt = 0; ; attempt++) {
    const kind = g.weighted<string>([
      [55, 'query'],
      [10, 'every-function'],
      [15, 'ddl'],
      [15, 'mutant'],
      [4, 'hostile'],
    ]);
    let sql: string;
    let category: string;
    let encodedQuery: string | undefined;
    if (kind === 'query') ({ sql, category } = gen.query());
    else if (kind === 'every-function') {
      sql = gen.everyFunction(index);
      category = `function:${CALLED[index % CALLED.length]}`;
    } else if (kind === 'ddl') {
      if (skip.has('ddl')) continue;
      ({ sql, category } = gen.ddl());
    } else if (kind === 'mutant') {
      if (skip.has('mutant')) continue;
      const base = g.chance(0.8) ? gen.query().sql : gen.ddl().sql;
      ({ sql, category, encodedQuery } = mutate(g, base, skip));
    } else {
      const h = hostileStatement(g, gen, skip);
      if (!h) continue;
      ({ sql, category } = h);
    }
    if (touchesReference(sql) && attempt < 20) continue;
    if (touchesReference(sql)) {
      sql = 'SELECT 1';
      category = 'fallback';
      encodedQuery = undefined;
    }
    const writes = category.startsWith('ddl:') && !category.endsWith('read-scratch') && !category.endsWith('conflict');
    const endpoint: Endpoint =
      writes || encodedQuery !== undefined || category.startsWith('hostile')
        ? g.chance(0.9)
          ? 'exec'
          : 'validate'
        : g.weighted<Endpoint>([
            [76, 'exec'],
            [10, 'exp'],
            [5, 'parquet'],
            [9, 'validate'],
          ]);
    return encodedQuery === undefined
      ? { index, endpoint, sql, category }
      : { index, endpoint, sql, category, encodedQuery };
  }
}
