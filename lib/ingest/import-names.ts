// Table and column names from a file: the characters names may not hold
// (storage/names.ts: SPEC.md's white space . ? , : \ / \0 ( ) + - * ~ %,
// quotes, control, format and bidi characters) are removed. `_` stays, unlike
// SPEC.md's list: it is how real headers separate words (trip_distance),
// QuestDB accepts it, and removing it would merge words. Names are not
// shortened: one longer than names may be is refused when the table is
// created, as QuestDB refuses it (`name` at once, before the upload is read).
// Header values become column names as QuestDB makes them (camel case where
// characters were dropped); files without a header get f0, f1, ...
import { SvcError } from '../errors/svc-error.js';
import { REFUSED_IN_COLUMN_NAMES, checkTableName } from '../storage/names.js';

/** Column names refuse every character table names do, and `-`. */
const REMOVED = new RegExp(REFUSED_IN_COLUMN_NAMES, 'gu');
const REFUSED_ONE = new RegExp(`^${REFUSED_IN_COLUMN_NAMES}$`, 'u');
const INVISIBLE = /^[\p{Cc}\p{Cf}]$/u;

function importError(message: string): SvcError {
  return new SvcError('BAD_REQUEST', message);
}

/** A name without the characters names may not hold; `fallback` when nothing is left. */
export function sanitizeName(raw: string, fallback: string): string {
  const s = raw.replace(REMOVED, '');
  return s === '' ? fallback : s;
}

/** The `name` parameter made a table name, or a 400 saying why it cannot be one (too long). */
export function importTableName(raw: string): string {
  const name = sanitizeName(raw, 'import');
  checkTableName(name);
  return name;
}

/** The table name from a file name: without its folders and its .csv/.tsv/.txt (and .gz) extension. */
export function tableNameFromFile(file: string): string {
  const base = file
    .replace(/^.*[\\/]/, '')
    .replace(/\.gz$/i, '')
    .replace(/\.(csv|tsv|txt|psv)$/i, '');
  return sanitizeName(base, 'import');
}

/**
 * A header value made a column name, as QuestDB does: the characters names
 * may not hold are dropped and the letter after them is upper-cased
 * (`first name` -> `firstName`, `price (usd)` -> `priceUsd`), a byte-order
 * mark and control, format and bidi characters are dropped without that, and a name that would start with a digit gets `_` first
 * (`1` -> `_1`). Empty when nothing is left.
 */
export function columnName(raw: string): string {
  let out = '';
  let capNext = false;
  for (const ch of raw) {
    if (ch === '\uFEFF' || INVISIBLE.test(ch)) continue; // control, format and bidi characters (svcdb refuses them, QuestDB keeps them): dropped, no word break
    if (REFUSED_ONE.test(ch)) {
      capNext = true;
      continue;
    }
    if (out === '' && ch >= '0' && ch <= '9') out = '_';
    out += capNext ? ch.toUpperCase() : ch;
    capNext = false;
  }
  return out;
}

/**
 * Column names from the header, or QuestDB's generated f0, f1, ... without
 * one (and for an empty header value: f<index>, with `_` added until it is
 * unique). Two header values naming the same column (case-insensitively)
 * are refused, as QuestDB refuses them.
 */
export function columnNames(header: readonly string[] | null, count: number): string[] {
  const names = Array.from({ length: count }, (_, i) => (header && i < header.length ? columnName(header[i]!) : ''));
  const taken = new Set(names.map((n) => n.toLowerCase()));
  const seen = new Set<string>();
  return names.map((n, i) => {
    let name = n;
    if (name === '') {
      name = `f${i}`;
      if (header) while (taken.has(name.toLowerCase())) name += '_';
      taken.add(name.toLowerCase());
    }
    const key = name.toLowerCase();
    if (seen.has(key)) throw importError(`duplicate column name found [no=${i},name=${name}]`);
    seen.add(key);
    return name;
  });
}
