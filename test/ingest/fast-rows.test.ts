// A segment's plain rows parsed in one pass (ingest/fast-rows.ts, through
// parseSegment) against the same bytes through the tokenizer and the row
// rules alone: the same values in every column, the same counts of rows,
// rejects and errors per column, the same line count, for seeded random
// files mixing plain rows with every kind the one pass leaves to the
// tokenizer (quotes, empty and bad values, exponents, long digit runs, short,
// long and empty lines, lone \r, \r\n, a last line without its end, days a
// month does not have) under each atomicity.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ColumnType } from '../../lib/core/column-type.js';
import type { ColumnInput } from '../../lib/core/column-vector.js';
import { BuilderMemory, columnBuilder } from '../../lib/ingest/column-builders.js';
import { CsvBatcher, type Atomicity, type CsvTarget } from '../../lib/ingest/csv-batcher.js';
import { CsvTokenizer } from '../../lib/ingest/csv-tokenizer.js';
import { RowRules } from '../../lib/ingest/row-rules.js';
import { parseSegment, type SegmentResult } from '../../lib/ingest/segments.js';

const TYPES: ColumnType[] = [
  'TIMESTAMP',
  'DOUBLE',
  'VARCHAR',
  'STRING',
  'LONG',
  'INT',
  'BOOLEAN',
  'SYMBOL',
  'DATE',
  'FLOAT',
  'TIMESTAMP',
];
const PATTERNS = [
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  undefined,
  'yyyy-MM-dd HH:mm:ss',
];
const NAMES = TYPES.map((_, i) => `c${i}`);

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** A value for column c: mostly plain, sometimes one of the forms the one pass does not take. */
function value(c: number, r: () => number, oddness: number): string {
  const odd = r() < oddness;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  if (odd)
    return pick([
      '',
      '""',
      '"quoted, with comma"',
      '"multi\nline"',
      '"esc""aped"',
      'a"b',
      'oops',
      '1e5',
      '-2.5E-3',
      '12345678901234567890',
      '1.000000000000000001',
      ' 42',
      '+7',
      '-0',
      '.5',
      '5.',
      '-',
      '2024-02-30T00:00:00Z',
      '2024-01-01T00:00:00.1234567891Z',
      '2024-01-01 10:00:00',
      '2024-01-01T10:00:00+01:00',
      'true',
      'FALSE',
      '\u00e9t\u00e9',
      'NaN',
      'x\ry',
    ]);
  const day = 1 + Math.floor(r() * 28);
  const iso = `2024-0${1 + Math.floor(r() * 9)}-${String(day).padStart(2, '0')}T${String(Math.floor(r() * 24)).padStart(2, '0')}:${String(Math.floor(r() * 60)).padStart(2, '0')}:0${Math.floor(r() * 10)}${r() < 0.5 ? '.' + String(Math.floor(r() * 1e6)).padStart(6, '0') : ''}${r() < 0.8 ? 'Z' : ''}`;
  switch (TYPES[c]) {
    case 'TIMESTAMP':
      return c === 10 ? iso.slice(0, 19).replace('T', ' ') : iso;
    case 'DATE':
      return iso;
    case 'DOUBLE':
    case 'FLOAT':
      return (
        pick(['', '-', '+']) +
        String(Math.floor(r() * 100000)) +
        (r() < 0.7 ? '.' + String(Math.floor(r() * 10000)) : '')
      );
    case 'LONG':
    case 'INT':
      return String(Math.floor(r() * 2 ** 31) - 2 ** 30);
    case 'BOOLEAN':
      return pick(['true', 'false', 'TRUE']);
    default:
      return pick(['BTC-USD', 'ETH-USD', 'buy', 'sell', 'x', 'a longer piece of text than most']);
  }
}

function file(seed: number, rows: number): Buffer {
  const r = random(seed);
  const oddness = seed % 3 === 0 ? 0.15 : 0.02;
  let out = '';
  for (let i = 0; i < rows; i++) {
    const n = r() < 0.03 ? Math.floor(r() * TYPES.length) : r() < 0.03 ? TYPES.length + 1 : TYPES.length;
    const fields = Array.from({ length: n }, (_, c) => value(c % TYPES.length, r, oddness));
    out += fields.join(',');
    const end = r();
    out += end < 0.03 ? '\r\n' : end < 0.05 ? '\r' : end < 0.07 ? '\n\n' : '\n';
  }
  if (seed % 2 === 1) out = out.replace(/[\r\n]+$/, ''); // the last line without its end
  return Buffer.from(out);
}

/** The bytes through the tokenizer and the row rules only (what parseSegment did before the one pass). */
function tokenized(bytes: Uint8Array, atomicity: Atomicity): SegmentResult {
  const memory = new BuilderMemory(null, 1024, Infinity);
  const builders = TYPES.map((t, i) => columnBuilder(t, PATTERNS[i], memory));
  const target: CsvTarget = { types: TYPES, patterns: PATTERNS, names: NAMES, tsColumn: 0 };
  const tokenizer = new CsvTokenizer({ delimiter: 0x2c, continuesAtLine: 1 });
  const rules = new RowRules(builders, target, { atomicity, skipLev: false }, () => tokenizer.line, false);
  tokenizer.push(bytes, rules);
  tokenizer.end(rules);
  return {
    clean: true,
    lines: tokenizer.line - 1,
    rows: rules.accepted,
    rejected: rules.rejected,
    errors: rules.errors,
    nulled: rules.nulled,
    issues: rules.issues,
    columns: builders.map((b) => b.take()),
  };
}

/** The bytes as one segment, the last of its file (plain rows in one pass). */
function parsed(bytes: Uint8Array, atomicity: Atomicity): SegmentResult {
  return parseSegment({
    bytes,
    delimiter: 0x2c,
    lineBytes: 1 << 20,
    types: TYPES,
    patterns: PATTERNS,
    names: NAMES,
    tsColumn: 0,
    rules: { atomicity, skipLev: false },
    rows: 64,
    final: true,
  });
}

function plain(c: ColumnInput): unknown {
  if (ArrayBuffer.isView(c)) return Array.from(c as Float64Array, (x) => (Object.is(x, -0) ? '-0' : x));
  return c;
}

test('plain rows in one pass give what the tokenizer gives, whatever the rows around them', () => {
  let onePass = 0;
  for (let seed = 1; seed <= 24; seed++) {
    const bytes = file(seed, 400);
    for (const atomicity of ['skipCol', 'skipRow'] as const) {
      const want = tokenized(bytes, atomicity);
      const got = parsed(bytes, atomicity);
      const where = `seed ${seed}, ${atomicity}`;
      assert.equal(got.rows, want.rows, where);
      assert.equal(got.rejected, want.rejected, where);
      assert.deepEqual(got.errors, want.errors, where);
      assert.equal(got.lines, want.lines, where);
      for (let c = 0; c < TYPES.length; c++)
        assert.deepEqual(plain(got.columns[c]!), plain(want.columns[c]!), `${where}, column ${c} (${TYPES[c]})`);
      onePass += got.rows;
    }
  }
  assert.ok(onePass > 1000, String(onePass));
});

test('a failure under atomicity=abort names the same line', () => {
  for (let seed = 1; seed <= 6; seed++) {
    const bytes = file(seed, 300);
    const message = (f: () => unknown): string => {
      try {
        f();
        return 'no error';
      } catch (e) {
        return (e as Error).message;
      }
    };
    const want = message(() => tokenized(bytes, 'abort'));
    const got = message(() => parsed(bytes, 'abort'));
    assert.match(want, /line/);
    assert.equal(got, want, `seed ${seed}`);
  }
});

/** A column's first `rows` values as plain values (text as strings, SYMBOL keys as their text). */
function valuesOf(c: ColumnInput, rows: number): unknown[] {
  const out: unknown[] = [];
  if (ArrayBuffer.isView(c)) {
    const a = c as unknown as ArrayLike<number | bigint>;
    for (let r = 0; r < rows; r++)
      out.push(typeof a[r] === 'bigint' ? String(a[r]) : Object.is(a[r], -0) ? '-0' : a[r]);
    return out;
  }
  const v = c as Exclude<ColumnInput, ArrayBufferView | readonly unknown[]>;
  for (let r = 0; r < rows; r++) {
    if (v.kind === 'var')
      out.push(v.nulls?.[r] ? null : Buffer.from(v.bytes.subarray(v.offsets[r], v.offsets[r + 1])).toString('latin1'));
    else if (v.kind === 'symbol') out.push(v.keys[r]! < 0 ? null : v.dict[v.keys[r]!]);
    else throw new Error(`unexpected ${v.kind}`);
  }
  return out;
}

/** The file (a header, maybe a BOM) through the tokenizer and the row rules alone, header skipped. */
function tokenizedFile(
  bytes: Uint8Array,
  atomicity: Atomicity,
): { rows: number; rejected: number; errors: number[]; values: unknown[][] } {
  const memory = new BuilderMemory(null, 1024, Infinity);
  const builders = TYPES.map((t, i) => columnBuilder(t, PATTERNS[i], memory));
  const target: CsvTarget = { types: TYPES, patterns: PATTERNS, names: NAMES, tsColumn: 0 };
  const tokenizer = new CsvTokenizer({ delimiter: 0x2c });
  const rules = new RowRules(builders, target, { atomicity, skipLev: false }, () => tokenizer.line, true);
  tokenizer.push(bytes, rules);
  tokenizer.end(rules);
  return {
    rows: rules.accepted,
    rejected: rules.rejected,
    errors: rules.errors,
    values: builders.map((b) => valuesOf(b.take(), rules.accepted)),
  };
}

/** The file through CsvBatcher on this thread (no pool), in chunks of random sizes and batches of `batchRows`. */
async function batched(
  bytes: Uint8Array,
  atomicity: Atomicity,
  seed: number,
  batchRows: number,
): Promise<{ rows: number; rejected: number; errors: number[]; values: unknown[][] }> {
  const values: unknown[][] = TYPES.map(() => []);
  const b = new CsvBatcher(
    {
      label: 't',
      atomicity,
      delimiter: 0x2c,
      forceHeader: true,
      skipLev: false,
      schema: [],
      analysisLines: 20,
      batchRows,
    },
    {
      prepare: () => ({ types: TYPES, patterns: PATTERNS, names: NAMES, tsColumn: 0 }),
      batch: (rows, columns) => {
        assert.ok(rows <= batchRows, `a batch of ${rows} rows, more than ${batchRows}`);
        columns.forEach((c, i) => values[i]!.push(...valuesOf(c, rows)));
      },
    },
  );
  const r = random(seed * 7919);
  for (let at = 0; at < bytes.length;) {
    const n = 1 + Math.floor(r() * (r() < 0.5 ? 40 : 3000));
    await b.push(bytes.subarray(at, at + n));
    at += n;
  }
  await b.finish();
  return { rows: b.rowsAccepted, rejected: b.rowsRejected, errors: b.errors, values };
}

test("the import's own thread takes plain rows in one pass too, across chunks and batches, as the tokenizer would", async () => {
  for (let seed = 1; seed <= 12; seed++) {
    const body = file(seed, 500);
    const bytes = Buffer.concat([
      Buffer.from(seed % 4 === 0 ? '\ufeff' : ''),
      Buffer.from(NAMES.join(',') + '\n'),
      body,
    ]);
    for (const atomicity of ['skipCol', 'skipRow'] as const) {
      const want = tokenizedFile(bytes, atomicity);
      const got = await batched(bytes, atomicity, seed, 1 + (seed % 5) * 23);
      const where = `seed ${seed}, ${atomicity}`;
      assert.equal(got.rows, want.rows, where);
      assert.equal(got.rejected, want.rejected, where);
      assert.deepEqual(got.errors, want.errors, where);
      for (let c = 0; c < TYPES.length; c++) assert.deepEqual(got.values[c], want.values[c], `${where}, column ${c}`);
    }
    // atomicity=abort: the same first failure, line included.
    const failure = (f: () => Promise<unknown>): Promise<string> =>
      f().then(
        () => 'no error',
        (e: unknown) => (e as Error).message,
      );
    const want = await failure(async () => tokenizedFile(bytes, 'abort'));
    const got = await failure(() => batched(bytes, 'abort', seed, 50));
    assert.equal(
      got.replace(/; nothing was imported$/, ''),
      want.replace(/; nothing was imported$/, ''),
      `seed ${seed}`,
    );
  }
});

test(
  'a long value that fills a batch, in a row the one pass leaves to the tokenizer, does not stall it',
  { timeout: 20_000 },
  async () => {
    // 30 text columns: a batch is handed over past 8 MiB / 30 of text in a column; the long value
    // fills it, then the quoted value after it sends the row to the tokenizer (fuzz seed 15, #875).
    const names = Array.from({ length: 30 }, (_, i) => `c${i}`);
    const plainRow = names.map((_, i) => `v${i}`).join(',');
    const longRow = ['x'.repeat(400_000), '"quoted"', ...names.slice(2).map(() => 'y')].join(',');
    const csv = [names.join(','), plainRow, longRow, plainRow, longRow, plainRow].join('\n') + '\n';
    const types = names.map((): ColumnType => 'VARCHAR');
    let rows = 0;
    const b = new CsvBatcher(
      {
        label: 't',
        atomicity: 'skipCol',
        delimiter: 0x2c,
        forceHeader: true,
        skipLev: false,
        schema: [],
        analysisLines: 2,
      },
      {
        prepare: () => ({ types, patterns: names.map(() => undefined), names, tsColumn: -1 }),
        batch: (n, columns) => {
          rows += n;
          assert.equal(valuesOf(columns[1]!, n).filter((v) => v === 'quoted').length <= n, true);
        },
      },
    );
    const bytes = Buffer.from(csv);
    for (let at = 0; at < bytes.length; at += 1 << 20) await b.push(bytes.subarray(at, at + (1 << 20)));
    await b.finish();
    assert.equal(rows, 5);
    assert.equal(b.rowsRejected, 0);
  },
);
