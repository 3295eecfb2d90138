// The SQL fuzzer's tables: their columns (for the grammar), the statements
// that create and fill them, the CSV that /imp turns into fz_imp, and the
// reference table's checksum query (sql-fuzz-gen.ts, fuzz-sql, npm run soak).
import { mulberry32 } from '../helpers/prng.js';

/** Value kinds of the expression grammar: a column or call of the kind fits where the kind is wanted. */
export type Kind = 'num' | 'int' | 'text' | 'ts' | 'bool' | 'sym' | 'uuid' | 'ip' | 'other';

export interface Col {
  readonly name: string;
  readonly type: string;
  readonly kind: Kind;
}
export interface Tab {
  readonly name: string;
  readonly cols: readonly Col[];
  readonly ts?: string;
  readonly key?: string;
}

const col = (name: string, type: string, kind: Kind): Col => ({ name, type, kind });

/** Every column type, a designated timestamp, DAY partitions (10,000 rows: two batches): the main table of the queries. */
export const ALL: Tab = {
  name: 'fz_all',
  ts: 'ts',
  key: 'sy',
  cols: [
    col('b', 'BOOLEAN', 'bool'),
    col('bt', 'BYTE', 'int'),
    col('sh', 'SHORT', 'int'),
    col('ch', 'CHAR', 'text'),
    col('i', 'INT', 'int'),
    col('l', 'LONG', 'int'),
    col('f', 'FLOAT', 'num'),
    col('d', 'DOUBLE', 'num'),
    col('dt', 'DATE', 'ts'),
    col('ts', 'TIMESTAMP', 'ts'),
    col('sy', 'SYMBOL', 'sym'),
    col('s', 'STRING', 'text'),
    col('v', 'VARCHAR', 'text'),
    col('u', 'UUID', 'uuid'),
    col('ip', 'IPV4', 'ip'),
    col('l2', 'LONG256', 'other'),
    col('bin', 'BINARY', 'other'),
  ],
};
/** Quotes for ASOF / LT / SPLICE joins: HOUR partitions, the same symbols. */
export const QUOTES: Tab = {
  name: 'fz_quotes',
  ts: 'ts',
  key: 'sy',
  cols: [
    col('ts', 'TIMESTAMP', 'ts'),
    col('sy', 'SYMBOL', 'sym'),
    col('bid', 'DOUBLE', 'num'),
    col('ask', 'DOUBLE', 'num'),
    col('qty', 'INT', 'int'),
  ],
};
/** A small table without a designated timestamp (join keys, IN subqueries). */
export const SMALL: Tab = {
  name: 'fz_small',
  key: 'sy',
  cols: [col('k', 'INT', 'int'), col('sy', 'SYMBOL', 'sym'), col('name', 'VARCHAR', 'text'), col('w', 'DOUBLE', 'num')],
};
/** Imported through /imp from text as users write it (quotes, commas, unicode, empty fields); MONTH partitions. */
export const IMPORTED: Tab = {
  name: 'fz_imp',
  ts: 'ts',
  key: 'city',
  cols: [
    col('ts', 'TIMESTAMP', 'ts'),
    col('city', 'VARCHAR', 'text'),
    col('note', 'VARCHAR', 'text'),
    col('qty', 'LONG', 'int'),
    col('price', 'DOUBLE', 'num'),
    col('ok', 'BOOLEAN', 'bool'),
  ],
};
/** The reference table: created first, only ever read; its rows and checksum must survive the run. */
export const REFERENCE: Tab = {
  name: 'fz_ref',
  ts: 'ts',
  key: 'sy',
  cols: [
    col('ts', 'TIMESTAMP', 'ts'),
    col('sy', 'SYMBOL', 'sym'),
    col('i', 'INT', 'int'),
    col('l', 'LONG', 'int'),
    col('d', 'DOUBLE', 'num'),
    col('v', 'VARCHAR', 'text'),
    col('u', 'UUID', 'uuid'),
  ],
};
export const READ_TABLES: readonly Tab[] = [ALL, QUOTES, SMALL, IMPORTED, REFERENCE];

/** The scratch tables DDL/DML work on (they may or may not exist at any moment). */
export const SCRATCH = ['fz_w0', 'fz_w1', 'fz_w2', 'fz_w3'];
export const SCRATCH_COLS: readonly Col[] = [
  col('ts', 'TIMESTAMP', 'ts'),
  col('k', 'SYMBOL', 'sym'),
  col('v', 'DOUBLE', 'num'),
  col('n', 'LONG', 'int'),
  col('s', 'VARCHAR', 'text'),
];

export const SYMBOLS = ['AAPL', 'MSFT', 'é-acute', 'z 9', 'Ωmega', '日本', ''];
const T0 = '2024-01-01T00:00:00.000000Z';

/** The statements that create and fill the tables (the CSV of fz_imp is importCsv()). Run in order before fuzzing. */
export function setupStatements(): string[] {
  const syms = SYMBOLS.map((s) => `'${s.replace(/'/g, "''")}'`).join(', ');
  return [
    `CREATE TABLE ${REFERENCE.name} (ts TIMESTAMP, sy SYMBOL, i INT, l LONG, d DOUBLE, v VARCHAR, u UUID) TIMESTAMP(ts) PARTITION BY DAY`,
    `INSERT INTO ${REFERENCE.name} SELECT timestamp_sequence('${T0}', 97000000L), rnd_symbol(${syms}), rnd_int(-1000, 1000, 3), rnd_long(-1000000, 1000000, 3), rnd_double(2), rnd_varchar(0, 24, 2), rnd_uuid4() FROM long_sequence(2000)`,
    `CREATE TABLE ${ALL.name} (${ALL.cols.map((c) => `${c.name} ${c.type}`).join(', ')}) TIMESTAMP(ts) PARTITION BY DAY`,
    `INSERT INTO ${ALL.name} SELECT rnd_boolean(), rnd_byte(), rnd_short(), rnd_char(), rnd_int(-100000, 100000, 5), rnd_long(-9000000000, 9000000000, 5), rnd_float(3), rnd_double(3), ` +
      `rnd_date(to_date('2023', 'yyyy'), to_date('2025', 'yyyy'), 3), timestamp_sequence('${T0}', 60000000L), rnd_symbol(${syms}), rnd_str(0, 16, 3), rnd_varchar(0, 40, 3), ` +
      `rnd_uuid4(), cast(concat('10.0.', rnd_int(0, 255, 0), '.', rnd_int(0, 255, 0)) AS IPV4), cast(null AS LONG256), cast(null AS BINARY) FROM long_sequence(10000)`,
    `CREATE TABLE ${QUOTES.name} (ts TIMESTAMP, sy SYMBOL, bid DOUBLE, ask DOUBLE, qty INT) TIMESTAMP(ts) PARTITION BY HOUR`,
    `INSERT INTO ${QUOTES.name} SELECT timestamp_sequence('${T0}', 17000000L), rnd_symbol(${syms}), rnd_double(1) * 100, rnd_double(1) * 100 + 1, rnd_int(1, 1000, 2) FROM long_sequence(3000)`,
    `CREATE TABLE ${SMALL.name} (k INT, sy SYMBOL, name VARCHAR, w DOUBLE)`,
    `INSERT INTO ${SMALL.name} SELECT cast(x AS INT) % 7, rnd_symbol(${syms}), rnd_varchar('alpha', 'beta', 'γάμμα', '', 'a,b'), x * 1.5 FROM long_sequence(25)`,
  ];
}

/** The /imp upload that creates fz_imp: text as users make it. */
export function importCsv(seed: number): string {
  const r = mulberry32(seed ^ 0x5eed);
  const cities = [
    'Zürich',
    'São Paulo',
    'New York, NY',
    'Kraków',
    '"The" City',
    '東京',
    'Åre',
    '',
    'x'.repeat(300),
    'emoji 🚀 town',
    'tab\there',
    'line\nbreak',
  ];
  const notes = [
    '',
    'ok',
    'said "hi"',
    'a,b,c',
    'ünïcödé',
    '¯\\_(ツ)_/¯',
    'NULL',
    'null',
    '-',
    ' padded ',
    '1e309',
    'ﬃ ligature',
  ];
  const quote = (s: string): string => (/[",\n\t]/.test(s) || s.startsWith(' ') ? `"${s.replace(/"/g, '""')}"` : s);
  const lines = ['ts,city,note,qty,price,ok'];
  let t = Date.UTC(2023, 0, 1);
  for (let k = 0; k < 1500; k++) {
    t += Math.floor(r() * 4 * 3600_000);
    const city = cities[Math.floor(r() * cities.length)]!;
    const note = notes[Math.floor(r() * notes.length)]!;
    const qty = r() < 0.05 ? '' : String(Math.floor(r() * 2e6) - 1e6);
    const price = r() < 0.05 ? '' : (r() * 1000).toFixed(Math.floor(r() * 4));
    lines.push(
      [
        new Date(t).toISOString().replace('Z', '000Z'),
        quote(city),
        quote(note),
        qty,
        price,
        r() < 0.5 ? 'true' : 'false',
      ].join(','),
    );
  }
  return lines.join(r() < 0.5 ? '\n' : '\r\n') + '\n';
}

/** The checksum query of the reference table (with its /exp body's hash, compared before and after the run). */
export const REFERENCE_CHECK = `SELECT count() n, sum(i) si, sum(l) sl, ksum(d) sd, count_distinct(sy) syms, min(ts) lo, max(ts) hi, sum(length(v)) lv, count_distinct(u) us FROM ${REFERENCE.name}`;
