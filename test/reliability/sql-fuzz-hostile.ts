// The hostile half of the SQL fuzzer: statements a careless or malicious
// client sends (huge lengths and counts, extreme numbers, deep nesting, long
// literals and names, unicode, catastrophic regexes, big joins) and mutants of
// valid statements (tokens deleted, duplicated, swapped, injected; raw bytes).
import type { Rand } from './fuzz-rand.js';
import type { Feature, SqlGen } from './sql-fuzz-gen.js';

/** A hostile statement, or null when its feature is skipped (the caller draws again). */
export function hostileStatement(
  g: Rand,
  gen: SqlGen,
  skip: ReadonlySet<Feature>,
): { sql: string; category: string } | null {
  const kinds: Array<[number, Feature | 'numbers' | 'unicode' | 'names', () => string]> = [
    [3, 'numbers', () => numbers(g)],
    [2, 'unicode', () => unicode(g)],
    [
      2,
      'rpad',
      () =>
        g.pick([
          () =>
            `SELECT ${g.pick(['rpad', 'lpad'])}('a', ${g.pick(['1000000000', '2147483647', '100000000', '10000000'])}, '${g.pick(['b', 'xy', ''])}')`,
          () => `SELECT length(${g.pick(['rpad', 'lpad'])}(v, ${g.pick(['100000', '1000000'])}, 'x')) FROM fz_all`,
          () => `SELECT ${g.pick(['rpad', 'lpad'])}(s, ${g.int(1, 5)} * 100000000, v) FROM fz_all LIMIT 5`,
          () => `SELECT concat(${Array.from({ length: 8 }, () => "rpad('x', 10000000, 'y')").join(', ')})`,
        ])(),
    ],
    [
      2,
      'rnd-str',
      () =>
        g.pick([
          () =>
            `SELECT length(${g.pick(['rnd_str', 'rnd_varchar'])}(1000000, 1000000, 0)) FROM long_sequence(${g.pick([10000, 1000, 100000])})`,
          () => `SELECT ${g.pick(['rnd_str', 'rnd_varchar'])}(2147483647, 2147483647, 0)`,
          () => `SELECT count() FROM (SELECT rnd_str(100000, 200000, 0) s FROM long_sequence(50000))`,
          () => `SELECT max(length(rnd_varchar(500000, 500000, 0))) FROM long_sequence(20000)`,
        ])(),
    ],
    [
      2,
      'cross-join',
      () =>
        g.pick([
          () => 'SELECT count() FROM long_sequence(100000) a CROSS JOIN long_sequence(100000) b WHERE a.x + b.x = 7',
          () => 'SELECT count() FROM fz_all a JOIN fz_all b ON a.sy = b.sy',
          () => 'SELECT count() FROM fz_all a JOIN fz_all b ON a.b = b.b',
          () =>
            'SELECT a.x, b.x FROM long_sequence(1000000) a JOIN long_sequence(1000000) b ON a.x % 3 = b.x % 3 LIMIT 5',
          () => 'SELECT count() FROM fz_all a CROSS JOIN fz_quotes b',
          () => 'SELECT count() FROM fz_all a LEFT JOIN fz_all b ON a.sy = b.sy',
        ])(),
    ],
    [3, 'deep', () => deep(g)],
    [
      1,
      'in-list',
      () =>
        `SELECT count() FROM long_sequence(1000000) WHERE x IN (${Array.from({ length: g.pick([3000, 1000, 10000]) }, (_, k) => k * 7 + 1).join(', ')})`,
    ],
    [2, 'long-name', () => longName(g)],
    [
      2,
      'redos',
      () =>
        g.pick([
          () => `SELECT '${'a'.repeat(g.int(24, 34))}!' ~ '(a+)+$'`,
          () => `SELECT regexp_replace('${'a'.repeat(g.int(24, 34))}!', '(a|aa)+$', 'x')`,
          () => `SELECT count() FROM fz_all WHERE v ~ '(.*a){${g.int(10, 25)}}'`,
          () => `SELECT count() FROM fz_all WHERE rpad(v, 5000, 'a') LIKE '${'%a'.repeat(g.int(8, 20))}%b'`,
        ])(),
    ],
    [
      1,
      'huge-literal',
      () =>
        g.pick([
          () => `SELECT length('${'x'.repeat(g.pick([65536, 500_000, 2_000_000]))}')`,
          () => `SELECT ${'9'.repeat(g.pick([400, 5000, 100_000]))}`,
          () =>
            `SELECT count() FROM fz_all WHERE v IN (${Array.from({ length: g.pick([10_000, 50_000]) }, (_, k) => `'v${k}'`).join(',')})`,
          () => `SELECT 1 ${'-- comment\n'.repeat(g.pick([1000, 50_000]))}`,
          () => `SELECT ${Array.from({ length: g.pick([2000, 10_000]) }, (_, k) => `${k} c${k}`).join(', ')}`,
        ])(),
    ],
    [
      2,
      'heavy',
      () =>
        g.pick([
          () => 'SELECT x FROM long_sequence(50000000) ORDER BY x DESC LIMIT 3',
          () => 'SELECT x, count() FROM long_sequence(100000000) GROUP BY x LIMIT 3',
          () => 'SELECT count_distinct(x) FROM long_sequence(100000000)',
          () => 'SELECT ts, avg(d) FROM fz_all SAMPLE BY 1U FILL(LINEAR)',
          () => "SELECT ts, count() FROM fz_all SAMPLE BY 1s FROM '1970-01-01' TO '2100-01-01' FILL(NULL)",
          () => 'SELECT count() FROM long_sequence(9223372036854775807)',
          () => 'SELECT x, sum(x) OVER (ORDER BY x DESC) FROM long_sequence(20000000) LIMIT 3',
          () => 'SELECT DISTINCT rnd_str(20, 20, 0) FROM long_sequence(30000000) LIMIT 3',
          () => 'SELECT * FROM long_sequence(10000000) a UNION SELECT * FROM long_sequence(10000000) b LIMIT 3',
          () => `SELECT * FROM fz_all ORDER BY ${gen.expr('text', { cols: [{ ref: 'v', kind: 'text' }] }, 1)}`,
        ])(),
    ],
  ];
  const [, feature, make] = g.weighted(kinds.map((k) => [k[0], k] as const));
  if (feature !== 'numbers' && feature !== 'unicode' && feature !== 'names' && skip.has(feature)) return null;
  return { sql: make(), category: `hostile:${feature}` };
}

function numbers(g: Rand): string {
  return g.pick([
    'SELECT 9223372036854775807 + 1',
    'SELECT -9223372036854775808',
    'SELECT -9223372036854775807L - 1',
    'SELECT 1e400, -1e400, 1e-400',
    "SELECT cast('NaN' AS DOUBLE) * 0, cast('Infinity' AS DOUBLE) - cast('Infinity' AS DOUBLE)",
    'SELECT 1 / 0, 1 % 0, -2147483648 / -1, 0.0 / 0',
    'SELECT abs(-9223372036854775807L - 1)',
    "SELECT dateadd('y', 2147483647, now())",
    "SELECT dateadd('u', -9223372036854775807, now())",
    'SELECT cast(1e300 AS TIMESTAMP), cast(-1e300 AS DATE)',
    "SELECT to_str(cast(9223372036854775807 AS TIMESTAMP), 'yyyy-MM-dd')",
    'SELECT round(1.5, 2147483647), round(1.5, -2147483648), round_up(1e308, 400)',
    'SELECT power(10, 1000), exp(1e6), ln(0), sqrt(-1)',
    'SELECT * FROM long_sequence(-1)',
    'SELECT * FROM long_sequence(-9223372036854775808)',
    "SELECT substring('abc', -2147483648, 2147483647)",
    'SELECT left(v, -2147483648), right(v, 2147483647) FROM fz_all LIMIT 3',
    "SELECT split_part('a,b', ',', -2147483648)",
    'SELECT rnd_int(5, 1, 0), rnd_long(9223372036854775807, -9223372036854775807, 0)',
    'SELECT rnd_str(-1, -1, 0)',
    'SELECT rnd_str(5, 1, 0)',
    'SELECT x, ntile(0) OVER () FROM long_sequence(3)',
    'SELECT x, ntile(2147483647) OVER () FROM long_sequence(3)',
    'SELECT x, lag(x, 2147483647) OVER () FROM long_sequence(3)',
    'SELECT x, sum(x) OVER (ROWS BETWEEN 9223372036854775807 PRECEDING AND CURRENT ROW) FROM long_sequence(3)',
    'SELECT * FROM fz_all LIMIT -9223372036854775808',
    'SELECT * FROM fz_all LIMIT 9223372036854775807, 9223372036854775807',
    "SELECT timestamp_floor('0s', ts) FROM fz_all LIMIT 3",
    'SELECT ts, count() FROM fz_all SAMPLE BY 0s',
    'SELECT ts, count() FROM fz_all SAMPLE BY -1h',
    'SELECT ts, count() FROM fz_all SAMPLE BY 99999999999y',
    "SELECT timestamp_sequence('2024-01-01', 9223372036854775807) FROM long_sequence(3)",
    'SELECT rnd_timestamp(cast(-9223372036854775807 AS TIMESTAMP), cast(9223372036854775807 AS TIMESTAMP), 0)',
    "SELECT cast('1' || rpad('0', 400, '0') AS LONG)",
    "SELECT datediff('u', cast(-9223372036854775807 AS TIMESTAMP), cast(9223372036854775807 AS TIMESTAMP))",
    'SELECT approx_percentile(x, 0.5, 2147483647) FROM long_sequence(10)',
    'SELECT cast(x AS BYTE), cast(x * 1e10 AS SHORT), cast(1e20 AS INT), cast(-1e20 AS LONG) FROM long_sequence(3)',
    'SELECT 0x7fffffffffffffffffffffff',
    "SELECT ts FROM fz_all WHERE ts IN '2024-01-01;9999999999y'",
    "SELECT ts FROM fz_all WHERE ts IN '2024-01-01;1h;1s;2147483647'",
  ]);
}

function unicode(g: Rand): string {
  const weird = g.pick([
    '\u202e',
    '\u0000',
    '\ufeff',
    '\u200b',
    'e\u0301',
    '👩‍👩‍👧',
    '\ud835\udd38',
    '\uffff',
    '\u0085',
    '\r\n',
    '\t',
    '\\',
    "''",
    '\u2028',
  ]);
  return g.pick([
    `SELECT '${weird}' s, length('${weird}'), upper('${weird}ß'), lower('İ${weird}')`,
    `SELECT "${weird.replace(/"/g, '')}x" FROM fz_all`,
    `SELECT 1 "${weird.replace(/"/g, '')}"`,
    `SELECT count() FROM fz_all WHERE v = '${weird}' OR sy = '${weird}'`,
    `SELECT rpad('${weird}', 10, '${weird}'), left('${weird}${weird}', 1), substring('${weird}ab', 2, 1), reverse('${weird}')`,
    `SELECT '${weird}'::symbol, cast('${weird}' AS CHAR), cast('${weird}' AS UUID), cast('${weird}' AS IPV4)`,
    `SELECT regexp_replace('${weird}abc', '${weird}|b', '${weird}')`,
    `SELECT * FROM "fz_all${weird}"`,
    `SELECT to_timestamp('2024${weird}', 'yyyy${weird}')`,
  ]);
}

/** Deep nesting at a depth drawn from moderate to the depths of the issue's item 7. */
function deep(g: Rand): string {
  const n = g.pick([20, 100, 300, 1000, 2000, 3500]);
  return g.pick([
    () => `SELECT ${Array.from({ length: n }, () => '1').join(' + ')}`,
    () => `SELECT ${'('.repeat(n)}1${')'.repeat(n)}`,
    () => `SELECT ${'abs('.repeat(n)}x${')'.repeat(n)} FROM long_sequence(2)`,
    () => `SELECT ${'CASE WHEN x > 0 THEN '.repeat(n)}1${' ELSE 0 END'.repeat(n)} FROM long_sequence(2)`,
    () => `SELECT ${'cast('.repeat(n)}x${' AS LONG)'.repeat(n)} FROM long_sequence(2)`,
    () => `SELECT ${'NOT '.repeat(n)}true`,
    () => `SELECT count() FROM fz_all WHERE ${Array.from({ length: n }, (_, k) => `i = ${k}`).join(' OR ')}`,
    () => `SELECT * FROM ${'(SELECT * FROM '.repeat(Math.min(n, 1500))}fz_small${')'.repeat(Math.min(n, 1500))}`,
    () => `SELECT ${'-'.repeat(n)}1`,
    () => `SELECT ${'concat('.repeat(n)}'a'${", 'b')".repeat(n)}`,
    () =>
      `WITH ${Array.from({ length: Math.min(n, 500) }, (_, k) => `c${k} AS (SELECT ${k === 0 ? '1 x' : `x + 1 x FROM c${k - 1}`})`).join(', ')} SELECT x FROM c${Math.min(n, 500) - 1}`,
    () =>
      `SELECT x FROM long_sequence(3) WHERE x IN (${'SELECT x FROM long_sequence(3) WHERE x IN ('.repeat(Math.min(n, 800))}1${')'.repeat(Math.min(n, 800))})`,
    () => `SELECT 1 ${'UNION ALL SELECT 1 '.repeat(n)}`,
    () => `SELECT ${'x::string::long'.repeat(1)}${'::double::long'.repeat(n)} FROM long_sequence(1)`,
  ])();
}

/** Names past the file system's limit (255 bytes), with bidi and control characters, on the fuzzer's own tables. */
function longName(g: Rand): string {
  const unit = g.pick(['a', 'é', '日', '🚀', 'ab\u202e', 'x\u0007']);
  const len = g.pick([60, 100, 200, 300, 1000]);
  const name = `fzh_${unit.repeat(Math.ceil(len / unit.length)).slice(0, len)}`;
  const q = `"${name}"`;
  return g.pick([
    `CREATE TABLE ${q} (ts TIMESTAMP, x INT) TIMESTAMP(ts) PARTITION BY DAY`,
    `INSERT INTO ${q} VALUES ('2024-01-01', 1)`,
    `DROP TABLE ${q}`,
    `RENAME TABLE fz_w${g.int(0, 3)} TO ${q}`,
    `RENAME TABLE ${q} TO fz_w${g.int(0, 3)}`,
    `ALTER TABLE fz_w${g.int(0, 3)} ADD COLUMN ${q} INT`,
    `SELECT * FROM ${q}`,
    `CREATE TABLE fzh_cols (${Array.from({ length: g.pick([10, 2000]) }, (_, k) => `"${unit.repeat(40)}${k}" INT`).join(', ')})`,
    `CREATE TABLE ${q} AS (SELECT x FROM long_sequence(10))`,
  ]);
}

const VOCAB = [
  'SELECT',
  'FROM',
  'WHERE',
  'GROUP',
  'BY',
  'ORDER',
  'LIMIT',
  'JOIN',
  'ON',
  'ASOF',
  'LT',
  'SPLICE',
  'SAMPLE',
  'FILL',
  'LATEST',
  'PARTITION',
  'OVER',
  'UNION',
  'EXCEPT',
  'INTERSECT',
  'WITH',
  'AS',
  'CASE',
  'WHEN',
  'THEN',
  'ELSE',
  'END',
  'NOT',
  'AND',
  'OR',
  'IN',
  'IS',
  'NULL',
  '(',
  ')',
  ',',
  ';',
  '*',
  '+',
  '-',
  '/',
  '%',
  '=',
  '<',
  '>',
  '::',
  "'",
  '"',
  '.',
  '`',
  '[',
  ']',
  '{',
  '}',
  '$',
  '?',
  '@',
  '#',
  '\\',
  'tables()',
  'long_sequence(10)',
  'EXPLAIN',
  'DISTINCT',
  'CAST',
  'TIMESTAMP',
  'ALIGN',
  'TO',
  'CALENDAR',
  'TOLERANCE',
  'ROWS',
  'RANGE',
  'BETWEEN',
  'PRECEDING',
  'FOLLOWING',
  'x',
  'ts',
  'fz_all',
  '1',
  '-1',
  '1e308',
  "'2024-01-01'",
  '9223372036854775808',
  '/*',
  '*/',
  '--',
  '\n',
  '\u0000',
  '\u202e',
  '🚀',
  'NaN',
  'true',
  'count()',
  'sum(',
  'OFFSET',
  'TIME',
  'ZONE',
  'IGNORE',
  'NULLS',
  'CROSS',
  'LEFT',
  'OUTER',
];

/** Raw (percent-encoded) byte sequences no valid UTF-8 text has, and broken escapes. */
const RAW = [
  '%00',
  '%FF',
  '%C3%28',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%C0%AF',
  '%E2%82',
  '%',
  '%G1',
  '%25',
  '%E2%80%AE',
  '%0D%0A',
  '%FE%FF',
  '+',
];

/** SQL text as the query parameter: every byte but the unreserved ones percent-encoded (lone surrogates become U+FFFD). */
export function encodeQuery(sql: string): string {
  const bytes = Buffer.from(sql, 'utf8');
  let out = '';
  for (const b of bytes) {
    out +=
      (b >= 0x30 && b <= 0x39) ||
      (b >= 0x41 && b <= 0x5a) ||
      (b >= 0x61 && b <= 0x7a) ||
      b === 0x2d ||
      b === 0x2e ||
      b === 0x5f ||
      b === 0x7e
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

const TOKEN =
  /'(?:[^']|'')*'?|"(?:[^"]|"")*"?|\d+(?:\.\d+)?(?:[eE][-+]?\d+)?L?|[A-Za-z_][A-Za-z0-9_$]*|::|<=|>=|!=|<>|\|\||\s+|[\s\S]/gu;

/** A valid statement made invalid (or differently valid) for the parser: 1 to 4 token edits, sometimes raw bytes. */
export function mutate(
  g: Rand,
  sql: string,
  skip: ReadonlySet<Feature>,
): { sql: string; category: string; encodedQuery?: string } {
  const tokens = sql.match(TOKEN) ?? [sql];
  const ops: string[] = [];
  const edits = g.int(1, 4);
  for (let e = 0; e < edits; e++) {
    const at = g.int(0, Math.max(0, tokens.length - 1));
    const op = g.pick(['delete', 'duplicate', 'swap', 'insert', 'insert', 'number', 'string', 'truncate', 'case']);
    ops.push(op);
    switch (op) {
      case 'delete':
        tokens.splice(at, 1);
        break;
      case 'duplicate':
        tokens.splice(at, 0, tokens[at] ?? '');
        break;
      case 'swap': {
        const b = g.int(0, Math.max(0, tokens.length - 1));
        const t = tokens[at] ?? '';
        tokens[at] = tokens[b] ?? '';
        tokens[b] = t;
        break;
      }
      case 'insert':
        tokens.splice(at, 0, ` ${g.pick(VOCAB)} `);
        break;
      case 'number': {
        const k = tokens.findIndex((t, j) => j >= at && /^\d/.test(t));
        if (k >= 0)
          tokens[k] = g.pick([
            '0',
            '-0',
            '99999999999999999999999',
            '2147483648',
            '1e309',
            '0.000000000000000000001',
            '-9223372036854775809',
            '1.',
            '.5',
            '1e',
            '0x1F',
          ]);
        break;
      }
      case 'string': {
        const k = tokens.findIndex((t, j) => j >= at && t.startsWith("'"));
        if (k >= 0)
          tokens[k] = g.pick([
            "'",
            "''''",
            `'${'z'.repeat(g.int(1000, 20000))}'`,
            "'\u0000'",
            "'\u202e\ud800'",
            "'%'",
            "'2024-02-30'",
            "E'\\x'",
          ]);
        break;
      }
      case 'truncate':
        tokens.length = Math.max(0, Math.min(tokens.length, at));
        break;
      case 'case':
        tokens[at] = g.chance(0.5) ? (tokens[at] ?? '').toUpperCase() : (tokens[at] ?? '').toLowerCase();
        break;
    }
  }
  let text = tokens.join('');
  // Cut inside a character now and then: a lone surrogate at the end.
  if (g.chance(0.05)) text = text.slice(0, g.int(0, text.length));
  if (!skip.has('bytes') && g.chance(0.15)) {
    const enc = encodeQuery(text);
    const at = g.int(0, enc.length);
    // Only between escapes: never inside an existing %XX.
    const cut = enc.lastIndexOf('%', at) > at - 3 && enc.lastIndexOf('%', at) >= 0 ? enc.lastIndexOf('%', at) : at;
    const raw = g.pick(RAW);
    return {
      sql: `${text} [bytes ${raw} at ${cut}]`,
      category: `mutant:bytes:${ops[0]}`,
      encodedQuery: enc.slice(0, cut) + raw + enc.slice(cut),
    };
  }
  return { sql: text, category: `mutant:${ops[0]}` };
}
