// Seeded /imp uploads for the reliability fuzzer (fuzz-csv.test.ts, npm run
// soak): CSV of random widths, delimiters, quoting, line ends, BOMs, broken
// encodings, gzip, huge fields and schema parts, as curl -F sends it or
// deliberately malformed, cut short or abandoned; request i of a seed alone.
import { gzipSync } from 'node:zlib';
import { Rand, mix } from './fuzz-rand.js';

/** How the upload is sent: a whole request, or a raw socket that stops early. */
export type Delivery =
  | { readonly kind: 'whole' }
  /** Sends `bytes` of the body after a head declaring the full length, then destroys the socket. */
  | { readonly kind: 'disconnect'; readonly bytes: number }
  /** Declares `declared` bytes, sends the whole (shorter) body, then ends its side. */
  | { readonly kind: 'short'; readonly declared: number };

/** The tables appends go to, created before the run: name and CREATE statement. */
export const APPEND_TABLES: ReadonlyArray<{
  readonly name: string;
  readonly create: string;
  readonly cols: ReadonlyArray<readonly [string, ColKind]>;
}> = [
  {
    name: 'fzc_app0',
    create:
      'CREATE TABLE fzc_app0 (ts TIMESTAMP, sym SYMBOL, price DOUBLE, qty LONG, note VARCHAR) TIMESTAMP(ts) PARTITION BY DAY',
    cols: [
      ['ts', 'ts'],
      ['sym', 'sym'],
      ['price', 'double'],
      ['qty', 'long'],
      ['note', 'text'],
    ],
  },
  {
    name: 'fzc_app1',
    create: 'CREATE TABLE fzc_app1 (a INT, b VARCHAR, c BOOLEAN)',
    cols: [
      ['a', 'int'],
      ['b', 'text'],
      ['c', 'bool'],
    ],
  },
  {
    name: 'fzc_app2',
    create:
      'CREATE TABLE fzc_app2 (ts TIMESTAMP, v DOUBLE, u UUID, ip IPV4, d DATE, ch CHAR) TIMESTAMP(ts) PARTITION BY HOUR',
    cols: [
      ['ts', 'ts'],
      ['v', 'double'],
      ['u', 'uuid'],
      ['ip', 'ip'],
      ['d', 'date'],
      ['ch', 'text'],
    ],
  },
];

export interface CsvRequest {
  readonly index: number;
  /** What produced it (`new`, `append`, `malformed:no-boundary`, `disconnect` ...), for the failure report. */
  readonly category: string;
  /** The table the import targets (created by it, or one of APPEND_TABLES), or null when the server names it. */
  readonly table: string | null;
  /** Whether the table exists before (an append) or must not exist after a refusal. */
  readonly append: boolean;
  /**
   * The existing table an append may write to, even without a name parameter (the server then
   * names the table from the file, which is usually that table's): uploads to it go one at a time.
   */
  readonly appendTable: string | null;
  readonly params: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly delivery: Delivery;
  /** A short description for the reproduction: the CSV's shape, its parts and the first bytes. */
  readonly describe: string;
}

type ColKind =
  | 'int'
  | 'long'
  | 'double'
  | 'bool'
  | 'ts'
  | 'tsplain'
  | 'dmy'
  | 'text'
  | 'quoted'
  | 'sym'
  | 'uuid'
  | 'ip'
  | 'date'
  | 'empty'
  | 'mixed'
  | 'huge';
const KINDS: ReadonlyArray<readonly [number, ColKind]> = [
  [4, 'int'],
  [3, 'long'],
  [4, 'double'],
  [2, 'bool'],
  [3, 'ts'],
  [1, 'tsplain'],
  [1, 'dmy'],
  [4, 'text'],
  [2, 'quoted'],
  [2, 'sym'],
  [1, 'uuid'],
  [1, 'ip'],
  [1, 'date'],
  [1, 'empty'],
  [2, 'mixed'],
];
const WORDS = [
  'alpha',
  'Zürich',
  'naïve café',
  '日本語テキスト',
  'emoji 🚀',
  'x',
  '',
  'NULL',
  'null',
  'NaN',
  'true',
  '-',
  '1e5',
  'ﬁ',
  'Ωmega',
];

/** One value of a column kind; hostile now and then (numbers past their type, broken timestamps, quotes). */
function value(g: Rand, kind: ColKind, row: number): string {
  if (g.chance(0.03)) return '';
  switch (kind) {
    case 'int':
      return g.chance(0.97)
        ? String(g.int(-100000, 100000))
        : g.pick(['2147483648', '-2147483649', '1.5', 'abc', '0x10', '+7', ' 3 ']);
    case 'long':
      return g.chance(0.97)
        ? String(g.int(-1e9, 1e9) * 1000)
        : g.pick(['9223372036854775808', '-9223372036854775809', '99999999999999999999999', '1e400']);
    case 'double':
      return g.chance(0.95)
        ? (g.r() * 1e6 - 5e5).toFixed(g.int(0, 6))
        : g.pick(['NaN', 'Infinity', '-Infinity', '1e309', '1,5', '.', '-', '1.7976931348623157E308']);
    case 'bool':
      return g.pick(['true', 'false', 'TRUE', 'False', '1', '0', 'yes']);
    case 'ts': {
      const t = Date.UTC(2024, 0, 1) + row * 60_000 + g.int(0, 59_999);
      return g.chance(0.96)
        ? new Date(t).toISOString().replace('Z', g.pick(['Z', '000Z', 'Z']))
        : g.pick([
            '2024-02-30T00:00:00Z',
            '2024-01-01T25:00:00Z',
            '0000-01-01T00:00:00Z',
            '99999-01-01T00:00:00Z',
            'yesterday',
            '1704067200',
          ]);
    }
    case 'tsplain':
      return `2024-0${g.int(1, 9)}-${String(g.int(1, 28)).padStart(2, '0')} ${String(g.int(0, 23)).padStart(2, '0')}:${String(g.int(0, 59)).padStart(2, '0')}:00`;
    case 'dmy':
      return `${String(g.int(1, 28)).padStart(2, '0')}/${String(g.int(1, 12)).padStart(2, '0')}/20${g.int(10, 30)}`;
    case 'date':
      return `2024-0${g.int(1, 9)}-${String(g.int(1, 28)).padStart(2, '0')}`;
    case 'text':
      return g.pick(WORDS);
    case 'quoted':
      return g.pick([
        'say "hi"',
        'a,b,c',
        'line\nbreak',
        'cr\rhere',
        'tab\tin',
        '""',
        '"',
        'trailing\\',
        "it's",
        ' lead',
      ]);
    case 'sym':
      return g.pick(['AAPL', 'MSFT', 'GOOG', 'é', '']);
    case 'uuid':
      return g.chance(0.9) ? '11111111-2222-3333-4444-555555555555' : 'not-a-uuid';
    case 'ip':
      return g.chance(0.9) ? `10.${g.int(0, 255)}.${g.int(0, 255)}.${g.int(0, 255)}` : '300.1.1.1';
    case 'empty':
      return '';
    case 'mixed':
      return g.chance(0.8) ? String(g.int(0, 1000)) : g.pick(WORDS);
    // Huge fields in the first lines only: one long line is the point, not a long upload.
    case 'huge':
      return row > 2 ? 'h' : g.pick(['x', 'é', '"', ',', '\n']).repeat(g.pick([70_000, 300_000, 1_100_000]));
  }
}

/** A field as written: quoted when it must be (or always, or never: broken quoting on purpose). */
function field(v: string, delim: string, quoting: 'minimal' | 'all' | 'never'): string {
  if (quoting === 'never') return v;
  if (quoting === 'all' || v.includes(delim) || /["\r\n]/.test(v) || v.startsWith(' '))
    return `"${v.replace(/"/g, '""')}"`;
  return v;
}

interface Csv {
  readonly bytes: Buffer;
  readonly names: string[];
  readonly rows: number;
  readonly delim: string;
  readonly summary: string;
}

/** A CSV of `cols` columns (names and kinds) and `rows` lines in a random dialect. */
function csv(g: Rand, cols: ReadonlyArray<readonly [string, ColKind]>, rows: number, header: boolean): Csv {
  const delim = g.weighted([
    [6, ','],
    [2, '\t'],
    [1, '|'],
    [1, ';'],
  ]);
  const quoting = g.weighted<'minimal' | 'all' | 'never'>([
    [7, 'minimal'],
    [2, 'all'],
    [1, 'never'],
  ]);
  const eol = g.weighted([
    [6, '\n'],
    [3, '\r\n'],
    [1, '\r'],
    [0.5, 'mixed'],
  ]);
  const lines: string[] = [];
  if (header) lines.push(cols.map(([n]) => field(n, delim, quoting === 'never' ? 'minimal' : quoting)).join(delim));
  const ragged = g.chance(0.1);
  for (let r = 0; r < rows; r++) {
    let vals = cols.map(([, k]) => field(value(g, k, r), delim, quoting));
    if (ragged && g.chance(0.2))
      vals = g.chance(0.5) ? vals.slice(0, g.int(0, vals.length)) : [...vals, 'extra', 'more'];
    lines.push(vals.join(delim));
    if (g.chance(0.01)) lines.push('');
  }
  const sep = (): string => (eol === 'mixed' ? g.pick(['\n', '\r\n', '\r']) : eol);
  let text = '';
  for (let k = 0; k < lines.length; k++) text += lines[k] + (k < lines.length - 1 || g.chance(0.8) ? sep() : '');
  let bytes = Buffer.from(text, 'utf8');
  const damage: string[] = [];
  if (g.chance(0.08)) {
    bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
    damage.push('BOM');
  }
  if (g.chance(0.06)) {
    // Bytes no UTF-8 text has, NULs and a stray quote, at random places.
    const b = Buffer.from(bytes);
    for (let k = 0; k < g.int(1, 6) && b.length > 0; k++)
      b[g.int(0, b.length - 1)] = g.pick([0xff, 0xc3, 0x00, 0x80, 0x22, 0xfe]);
    bytes = b;
    damage.push('bad bytes');
  }
  if (g.chance(0.02)) {
    bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    damage.push('UTF-16LE');
  }
  if (g.chance(0.03)) {
    bytes = bytes.subarray(0, g.int(0, bytes.length));
    damage.push('cut');
  }
  const summary = `${cols.length} col(s) [${[...new Set(cols.map(([, k]) => k))].join(' ')}], ${rows} row(s), ${header ? 'header' : 'no header'}, delimiter ${JSON.stringify(delim)}, quoting ${quoting}, eol ${JSON.stringify(eol)}${ragged ? ', ragged' : ''}${damage.length ? `, ${damage.join(', ')}` : ''}`;
  return { bytes, names: cols.map(([n]) => n), rows, delim, summary };
}

/** Column names: plain, or the kinds a careless file has (duplicates, blanks, symbols, very long, unicode). */
function columnName(g: Rand, k: number): string {
  if (g.chance(0.9)) return `c${k}`;
  return g.pick([
    `c${Math.max(0, k - 1)}`,
    '',
    ' ',
    'a.b',
    'what?',
    'naïve',
    '日本',
    'x'.repeat(300),
    '"q"',
    'ts',
    `c-${k}`,
    '\u202ertl',
  ]);
}

/** The multipart body curl -F sends: parts in order, CRLF framing, the closing boundary. */
export function multipart(
  boundary: string,
  parts: ReadonlyArray<{ name: string; filename?: string; type?: string; data: Buffer }>,
  closing = true,
): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disp = `form-data; name="${p.name}"${p.filename !== undefined ? `; filename="${p.filename}"` : ''}`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: ${disp}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ''}\r\n`,
      ),
      p.data,
      Buffer.from('\r\n'),
    );
  }
  if (closing) chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

function schemaPart(g: Rand, names: readonly string[]): { text: string; label: string } {
  const types = [
    'INT',
    'LONG',
    'DOUBLE',
    'FLOAT',
    'SHORT',
    'BYTE',
    'BOOLEAN',
    'TIMESTAMP',
    'DATE',
    'SYMBOL',
    'STRING',
    'VARCHAR',
    'CHAR',
    'UUID',
    'IPV4',
    'LONG256',
    'BINARY',
  ];
  return g.weighted<() => { text: string; label: string }>([
    [
      6,
      () => {
        const picked = names.filter(() => g.chance(0.4));
        return {
          label: 'schema',
          text: JSON.stringify(
            picked.map((name) => ({
              name,
              type: g.pick(types),
              ...(g.chance(0.2)
                ? {
                    pattern: g.pick([
                      'yyyy-MM-dd HH:mm:ss',
                      'dd/MM/yyyy',
                      'yyyy-MM-ddTHH:mm:ss.SSSUUUZ',
                      'nonsense',
                      '',
                    ]),
                  }
                : {}),
            })),
          ),
        };
      },
    ],
    [
      1,
      () => ({
        label: 'schema:broken-json',
        text: g.pick([
          '[{"name": "c0", "type": ',
          'null',
          '{}',
          '[1, 2]',
          '"x"',
          '[{"name": null}]',
          '[' + '['.repeat(5000),
        ]),
      }),
    ],
    [
      1,
      () => ({
        label: 'schema:unknown',
        text: JSON.stringify([
          { name: g.pick([...names, 'nope']), type: g.pick(['NOPE', 'GEOHASH', 'int(', '', 'DECIMAL']) },
        ]),
      }),
    ],
    [
      0.3,
      () => ({
        label: 'schema:huge',
        text: JSON.stringify(Array.from({ length: 50_000 }, (_, k) => ({ name: `c${k}`, type: 'INT' }))),
      }),
    ],
  ])();
}

function params(
  g: Rand,
  table: string | null,
  names: readonly string[],
  tsCols: readonly string[],
  append: boolean,
): Record<string, string> {
  const p: Record<string, string> = {};
  if (table !== null) p.name = table;
  if (g.chance(0.85)) p.fmt = 'json';
  if (g.chance(0.4))
    p.atomicity = g.weighted([
      [3, 'skipCol'],
      [3, 'skipRow'],
      [3, 'abort'],
      [0.3, 'sometimes'],
    ]);
  if (g.chance(0.3)) p.forceHeader = g.pick(['true', 'false', 'maybe']);
  if (!append && tsCols.length > 0 && g.chance(0.5)) {
    p.timestamp = g.pick(tsCols);
    if (g.chance(0.7))
      p.partitionBy = g.weighted([
        [3, 'DAY'],
        [2, 'MONTH'],
        [1, 'HOUR'],
        [1, 'YEAR'],
        [1, 'WEEK'],
        [1, 'NONE'],
        [0.3, 'WEEKLY'],
      ]);
  } else if (g.chance(0.05)) {
    p.timestamp = g.pick([...names, 'nope']);
    p.partitionBy = 'DAY';
  }
  if (g.chance(0.1)) p.maxUncommittedRows = String(g.pick([1, 10, 1000, -1, 0]));
  if (g.chance(0.05)) p.o3MaxLag = g.pick(['1s', '0', '-5', 'x']);
  if (g.chance(0.1)) p.skipLev = g.pick(['true', 'false']);
  if (g.chance(0.08)) p.delimiter = g.pick([',', '\t', '|', ';', 'ab', '"', '\n']);
  if (append && g.chance(0.1)) p.overwrite = 'true';
  if (g.chance(0.04)) p.create = 'false';
  return p;
}

/** Upload `index` of `seed`. */
export function csvRequest(seed: number, index: number): CsvRequest {
  const g = new Rand(mix(seed ^ 0x00c5f00d, index));
  const boundary = `------------------------${mix(seed, index).toString(16).padStart(8, '0')}${index.toString(16)}`;
  const kind = g.weighted<string>([
    [55, 'new'],
    [25, 'append'],
    [6, 'empty'],
    [7, 'malformed'],
    [4, 'disconnect'],
    [3, 'short'],
  ]);
  const appendTo =
    kind === 'append' || (kind !== 'new' && kind !== 'empty' && g.chance(0.3)) ? g.pick(APPEND_TABLES) : null;
  const table = appendTo ? appendTo.name : `fzc_${seed}_${index}`;

  // Columns: mostly narrow; wide now and then (the issue's item 1 lives past a few thousand).
  let cols: Array<readonly [string, ColKind]>;
  if (appendTo) {
    const own = [...appendTo.cols];
    cols = g.weighted<() => Array<readonly [string, ColKind]>>([
      [5, () => own],
      [2, () => [...own].sort(() => g.r() - 0.5)],
      [1, () => own.filter(() => g.chance(0.6))],
      [1, () => [...own, ['extra', g.weighted(KINDS)] as const]],
      [1, () => own.map(([n]) => [n, g.weighted(KINDS)] as const)],
    ])();
    if (cols.length === 0) cols = own;
  } else {
    const width = g.weighted<() => number>([
      [40, () => g.int(1, 5)],
      [35, () => g.int(6, 30)],
      [15, () => g.int(31, 300)],
      [7, () => g.int(301, 3000)],
      [3, () => g.int(3001, 30_000)],
    ])();
    const wide = width > 300;
    cols = Array.from(
      { length: width },
      (_, k) => [columnName(g, k), wide ? g.pick(['int', 'double', 'text'] as const) : g.weighted(KINDS)] as const,
    );
    // One column of huge fields (70 KB to 1.1 MB) in a few files.
    if (g.chance(0.04)) cols[g.int(0, cols.length - 1)] = [`huge${index}`, 'huge'];
  }
  const wideFile = cols.length > 300;
  // At most ~200,000 fields a file: long files are for narrow tables, wide files have a few lines.
  const rows = wideFile
    ? g.int(1, 4)
    : Math.min(
        Math.floor(200_000 / cols.length),
        g.weighted<() => number>([
          [4, () => g.int(2, 50)],
          [3, () => g.int(50, 500)],
          [1, () => g.int(0, 1)],
          [0.5, () => g.int(500, 30_000)],
        ])(),
      );
  const header = !appendTo || g.chance(0.85) ? g.chance(0.9) : false;
  const tsCols = cols.filter(([, k]) => k === 'ts' || k === 'tsplain').map(([n]) => n);
  const p = params(
    g,
    g.chance(0.97) ? table : null,
    cols.map(([n]) => n),
    tsCols,
    appendTo !== null,
  );
  const headers: Record<string, string> = {};

  const data =
    kind === 'empty'
      ? {
          bytes: g.pick([
            Buffer.alloc(0),
            Buffer.from('a,b\n'),
            Buffer.from('\n\n\n'),
            Buffer.from('x'),
            Buffer.from('\ufeff'),
          ]),
          summary: 'empty or header only',
          names: [],
          rows: 0,
          delim: ',',
        }
      : csv(g, cols, rows, header);
  let bytes = data.bytes;
  let filename = g.weighted([
    [8, `${table}.csv`],
    [1, '../../etc/passwd.csv'],
    [1, 'weird name ü?.csv'],
    [0.5, 'x'.repeat(400) + '.csv'],
    [0.5, ''],
  ]);
  const zipped = g.chance(0.06);
  if (zipped) {
    bytes = gzipSync(bytes);
    if (g.chance(0.5)) filename += '.gz';
    if (g.chance(0.2)) bytes = bytes.subarray(0, g.int(0, bytes.length)); // a truncated gzip stream
  } else if (g.chance(0.01)) {
    filename += '.gz'; // not gzip at all
  }

  const parts: Array<{ name: string; filename?: string; type?: string; data: Buffer }> = [];
  const dataPart = { name: 'data', filename, type: 'application/octet-stream', data: bytes };
  let label = kind;
  if (g.chance(0.25) && kind !== 'empty') {
    const s = schemaPart(g, data.names);
    const sp = { name: 'schema', data: Buffer.from(s.text) };
    // The schema belongs before the data; after it is refused (the issue's item 5 commits it anyway).
    if (g.chance(0.85)) parts.push(sp, dataPart);
    else {
      parts.push(dataPart, sp);
      label += ':schema-after';
    }
    label += `:${s.label}`;
  } else {
    parts.push(dataPart);
  }
  let body = multipart(boundary, parts);
  let contentType = `multipart/form-data; boundary=${boundary}`;
  let delivery: Delivery = { kind: 'whole' };

  if (kind === 'malformed') {
    const m = g.pick([
      'no-boundary',
      'wrong-boundary',
      'no-closing',
      'two-data',
      'no-data',
      'no-name',
      'garbage',
      'not-multipart',
      'empty-body',
      'part-after-data',
      'huge-part-headers',
      'gzip-request',
      'bad-gzip-request',
    ]);
    label = `malformed:${m}`;
    switch (m) {
      case 'no-boundary':
        contentType = 'multipart/form-data';
        break;
      case 'wrong-boundary':
        contentType = 'multipart/form-data; boundary=nope';
        break;
      case 'no-closing':
        body = multipart(boundary, parts, false);
        break;
      case 'two-data':
        body = multipart(boundary, [dataPart, { ...dataPart, data: Buffer.from('z\n1\n2\n') }]);
        break;
      case 'no-data':
        body = multipart(boundary, [{ name: 'schema', data: Buffer.from('[]') }]);
        break;
      case 'no-name':
        body = Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data\r\n\r\n`),
          bytes,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
        break;
      case 'garbage':
        body = Buffer.from(Array.from({ length: g.int(1, 5000) }, () => g.int(0, 255)));
        break;
      case 'not-multipart':
        contentType = g.pick(['text/csv', 'application/json', 'multipart/mixed; boundary=x']);
        body = bytes;
        break;
      case 'empty-body':
        body = Buffer.alloc(0);
        break;
      case 'part-after-data':
        body = multipart(boundary, [
          dataPart,
          { name: g.pick(['junk', 'data2', 'schema']), data: Buffer.from(g.pick(['[{', 'x', '[]'])) },
        ]);
        break;
      case 'huge-part-headers':
        body = Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="data"; filename="${'h'.repeat(200_000)}"\r\n\r\n`,
          ),
          bytes,
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
        break;
      case 'gzip-request':
        body = gzipSync(body);
        headers['Content-Encoding'] = 'gzip';
        break;
      case 'bad-gzip-request':
        headers['Content-Encoding'] = g.pick(['gzip', 'br', 'compress']);
        break;
    }
  } else if (kind === 'disconnect') {
    // Before the data, inside it, or after the data part ended but before the closing boundary.
    const end = body.length - Buffer.byteLength(`--${boundary}--\r\n`);
    delivery = {
      kind: 'disconnect',
      bytes: g.pick([g.int(0, Math.max(0, body.length - 1)), Math.max(0, end - 2), Math.max(0, end)]),
    };
  } else if (kind === 'short') {
    delivery = { kind: 'short', declared: body.length + g.int(1, 100_000) };
    if (g.chance(0.5)) body = body.subarray(0, body.length - Buffer.byteLength(`--${boundary}--\r\n`));
  }
  headers['Content-Type'] = contentType;
  const first = data.bytes.subarray(0, 200).toString('utf8');
  const describe =
    `${label} -> ${p.name ?? '(named from the file)'}: ${data.summary}; ${parts.map((x) => x.name).join('+')} part(s), ${body.length} bytes${zipped ? ' (gzip)' : ''}; ` +
    `params ${JSON.stringify(p)}; delivery ${JSON.stringify(delivery)}; file ${JSON.stringify(filename.slice(0, 60))} begins ${JSON.stringify(first)}`;
  return {
    index,
    category: label,
    table: p.name ?? null,
    append: appendTo !== null,
    appendTable: appendTo !== null ? table : null,
    params: p,
    headers,
    body,
    delivery,
    describe,
  };
}
