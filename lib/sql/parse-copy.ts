// COPY statements (QuestDB's import, export and cancel forms) into ast.ts's Copy node, with
// QuestDB's parser errors at its positions: option names and values are checked here; the
// roots, the table and the running imports when the statement is compiled (exec/copy.ts).
import type { Copy, CopyOption, QueryStatement } from './ast.js';
import type { Cursor } from './parse-cursor.js';
import type { Token } from './lexer.js';
import { parseQuery } from './parse-query.js';

/** QuestDB's PARTITION BY units (COPY FROM's `PARTITION BY`, COPY TO's `PARTITION_BY`). */
const UNITS = new Set(['NONE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR']);

/** Characters QuestDB refuses in a column name (besides control characters). */
const NAME_REFUSED = '.?,\'"\\/:)(+*%~';

/** COPY TO's options and the kind of value each takes. */
const EXPORT_OPTIONS: ReadonlyMap<string, 'word' | 'int' | 'bool' | 'string' | 'double' | 'refused'> = new Map([
  ['FORMAT', 'word'],
  ['PARTITION_BY', 'word'],
  ['SIZE_LIMIT', 'refused'],
  ['COMPRESSION_CODEC', 'word'],
  ['COMPRESSION_LEVEL', 'int'],
  ['ROW_GROUP_SIZE', 'int'],
  ['DATA_PAGE_SIZE', 'int'],
  ['RAW_ARRAY_ENCODING', 'bool'],
  ['STATISTICS_ENABLED', 'bool'],
  ['PARQUET_VERSION', 'int'],
  ['BLOOM_FILTER_COLUMNS', 'string'],
  ['BLOOM_FILTER_FPP', 'double'],
]);

/** The codecs QuestDB's COPY TO names, lower case, in its error's order. */
export const COPY_CODECS = ['uncompressed', 'snappy', 'gzip', 'lzo', 'brotli', 'lz4', 'zstd', 'lz4_raw'];
const CODEC_LEVELS: Readonly<Record<string, readonly [string, number, number]>> = {
  ZSTD: ['ZSTD', 1, 22],
  GZIP: ['GZIP', 0, 9],
  BROTLI: ['Brotli', 0, 11],
};

/** Parses COPY at the cursor (on the COPY keyword). */
export function parseCopy(c: Cursor): Copy {
  const copy = c.next();
  const t = c.tok;
  let table: string | null = null;
  let query: QueryStatement | null = null;
  let queryText: string | null = null;
  let targetPos = t.pos;
  if (c.isOp('(')) {
    c.next();
    targetPos = c.tok.pos;
    c.enter('query');
    query = { kind: 'query', pos: c.tok.pos, query: parseQuery(c) };
    c.leave();
    queryText = c.slice(targetPos, c.tok.pos);
    c.expectOp(')');
  } else if (t.kind === 'ident' || t.kind === 'qident' || t.kind === 'string') {
    c.next();
    table = t.text;
  } else throw c.expected('copy source');

  const verb = c.tok;
  if (c.isKw('CANCEL')) {
    c.next();
    if (!c.atEnd() && !c.isOp(';')) throw c.unexpected();
    return { kind: 'copy', mode: 'cancel', pos: copy.pos, id: table ?? queryText ?? '', idPos: targetPos };
  }
  if (!c.isKw('FROM') && !c.isKw('TO')) throw c.expected("'from' or 'to' or 'cancel'");
  c.next();
  const f = c.tok;
  if (f.kind !== 'string' || f.text === '') throw c.error('file name expected', f.pos);
  c.next();
  if (verb.up === 'FROM') {
    if (query !== null) throw c.error('subqueries are not supported for `COPY-FROM`', targetPos);
    const options = importOptions(c);
    return {
      kind: 'copy',
      mode: 'from',
      pos: copy.pos,
      table: table!,
      tablePos: targetPos,
      file: f.text,
      filePos: f.pos,
      options,
    };
  }
  const options = exportOptions(c);
  return {
    kind: 'copy',
    mode: 'to',
    pos: copy.pos,
    table,
    tablePos: targetPos,
    query,
    queryText,
    dir: f.text,
    dirPos: f.pos,
    options,
  };
}

function atStatementEnd(c: Cursor): boolean {
  return c.atEnd() || c.isOp(';');
}

function option(name: Token, value: Token | null): CopyOption {
  return {
    name: name.up,
    namePos: name.pos,
    value: value === null ? '' : value.text,
    valuePos: value === null ? name.pos : value.pos,
    quoted: value !== null && value.kind === 'string',
  };
}

/** A value token of any kind (QuestDB's tok(): whatever comes next), `what` named when the statement ends. */
function value(c: Cursor, what: string): Token {
  if (atStatementEnd(c)) throw c.expected(what);
  return c.next();
}

/** `WITH` and at least one option after it; false when the statement ends instead (no options). */
function openWith(c: Cursor): boolean {
  if (atStatementEnd(c)) return false;
  if (!c.isKw('WITH')) throw c.error("'with' expected", c.tok.pos);
  c.next();
  if (atStatementEnd(c)) throw c.expected('copy option');
  return true;
}

/** COPY FROM's WITH options: HEADER, PARTITION BY, TIMESTAMP, FORMAT, ON ERROR, DELIMITER. */
function importOptions(c: Cursor): CopyOption[] {
  const out: CopyOption[] = [];
  if (!openWith(c)) return out;
  while (!atStatementEnd(c)) {
    const name = c.next();
    switch (name.kind === 'ident' ? name.up : '') {
      case 'HEADER':
        out.push(option(name, value(c, "'true' or 'false'")));
        break;
      case 'PARTITION': {
        if (!c.isKw('BY')) throw c.expected("'by'");
        c.next();
        const unit = value(c, 'year month day hour none');
        if (unit.kind !== 'ident' || !UNITS.has(unit.up))
          throw c.error("'NONE', 'HOUR', 'DAY', 'WEEK', 'MONTH' or 'YEAR' expected", unit.end);
        out.push({ ...option(name, unit), name: 'PARTITION BY' });
        break;
      }
      case 'TIMESTAMP': {
        const col = value(c, 'timestamp column name expected');
        if (col.text === '' || [...col.text].some((ch) => NAME_REFUSED.includes(ch) || ch.charCodeAt(0) < 32))
          throw c.error('timestamp column name contains invalid characters', col.end);
        out.push(option(name, col));
        break;
      }
      case 'FORMAT':
        out.push(option(name, value(c, 'timestamp format expected')));
        break;
      case 'ON': {
        if (!c.isKw('ERROR')) throw c.expected("'error'");
        c.next();
        const v = value(c, 'skip_column skip_row abort');
        if (v.kind !== 'ident' || !['SKIP_COLUMN', 'SKIP_ROW', 'ABORT'].includes(v.up))
          throw c.error("invalid 'on error' copy option found", v.end);
        out.push({ ...option(name, v), name: 'ON ERROR', value: v.up });
        break;
      }
      case 'DELIMITER': {
        const v = value(c, 'timestamp character expected');
        if (v.text.length !== 1) throw c.error('delimiter is empty or contains more than 1 character', v.end);
        if (v.text.charCodeAt(0) > 127) throw c.error('delimiter is not an ascii character', v.end);
        out.push(option(name, v));
        break;
      }
      default:
        throw c.error('unexpected option', name.pos);
    }
  }
  return out;
}

/** COPY TO's WITH options, each value checked as QuestDB's parser checks it. */
function exportOptions(c: Cursor): CopyOption[] {
  const out: CopyOption[] = [];
  if (!openWith(c)) return out;
  while (!atStatementEnd(c)) {
    const name = c.next();
    const kind = EXPORT_OPTIONS.get(name.kind === 'ident' ? name.up : '');
    if (kind === undefined) throw c.error(`unrecognised option [option=${name.text}]`, name.pos);
    if (kind === 'refused') throw c.error('size limit is not yet supported', name.pos);
    const v = value(c, name.up === 'FORMAT' ? "'parquet'" : 'option value');
    const asWritten = c.slice(v.pos, v.end);
    switch (kind) {
      case 'int': {
        const neg = v.kind === 'op' && v.text === '-' && c.tok.kind === 'number' && c.tok.pos === v.end;
        const num = neg ? c.next() : v;
        if (num.kind !== 'number' || !/^\d+$/.test(num.text))
          throw c.error(`found [tok='${asWritten}', len=${asWritten.length}] bad integer`, v.pos);
        const n = Number(num.text) * (neg ? -1 : 1);
        checkInt(c, name.up, n, v, out);
        out.push({ ...option(name, v), value: String(n) });
        continue;
      }
      case 'bool':
        if (v.kind !== 'ident' || (v.up !== 'TRUE' && v.up !== 'FALSE'))
          throw c.error(`unexpected token [${asWritten}]`, v.pos);
        break;
      case 'string':
        if (v.kind !== 'string') throw c.error('quoted string expected', v.pos);
        break;
      case 'double':
        if (v.kind !== 'number' || !(Number(v.text) > 0 && Number(v.text) < 1))
          throw c.error('bloom_filter_fpp must be between 0 and 1 (exclusive)', v.pos);
        break;
      case 'word':
        if (name.up === 'FORMAT' && v.up !== 'PARQUET')
          throw c.error("unsupported format, only 'parquet' is supported", v.pos);
        if (name.up === 'PARTITION_BY' && !UNITS.has(v.up))
          throw c.error(`invalid partition by option: ${v.text}`, v.pos);
        if (name.up === 'COMPRESSION_CODEC' && !COPY_CODECS.includes(v.text.toLowerCase()))
          throw c.error(`invalid compression codec[${v.text}], expected one of: ${COPY_CODECS.join(', ')}`, v.pos);
        break;
    }
    out.push(option(name, v));
  }
  return out;
}

/** COMPRESSION_LEVEL against the codec given before it, PARQUET_VERSION 1 or 2. */
function checkInt(c: Cursor, name: string, n: number, v: Token, before: readonly CopyOption[]): void {
  if (name === 'PARQUET_VERSION' && n !== 1 && n !== 2)
    throw c.error(`invalid parquet version: ${n}, expected 1 or 2`, v.pos);
  if (name === 'COMPRESSION_LEVEL') {
    const codec = [...before]
      .reverse()
      .find((o) => o.name === 'COMPRESSION_CODEC')
      ?.value.toUpperCase();
    const range = codec === undefined ? undefined : CODEC_LEVELS[codec];
    if (range !== undefined && (n < range[1] || n > range[2]))
      throw c.error(`${range[0]} compression level must be between ${range[1]} and ${range[2]}`, v.pos);
  }
}
