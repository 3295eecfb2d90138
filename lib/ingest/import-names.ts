// Table and column names from a file: the characters names may not hold
// (storage/names.ts: SPEC.md's white space . ? , : \ / \0 ( ) + - * ~ %,
// quotes, control, format and bidi characters) are removed. `_` stays, unlike
// SPEC.md's list: it is how real headers separate words (trip_distance),
// QuestDB accepts it, and removing it would merge words. Names are not
// shortened: one longer than names may be is refused when the table is
// created, as QuestDB refuses it (`name` at once, before the upload is read).
// Files without a header get QuestDB's generated names f0, f1, ...
import { REFUSED_IN_COLUMN_NAMES, checkTableName } from '../storage/names.js';

/** Column names refuse every character table names do, and `-`. */
const REMOVED = new RegExp(REFUSED_IN_COLUMN_NAMES, 'gu');

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
  const base = file.replace(/^.*[\\/]/, '').replace(/\.gz$/i, '').replace(/\.(csv|tsv|txt|psv)$/i, '');
  return sanitizeName(base, 'import');
}

/** Header names sanitized and made distinct case-insensitively (a repeat gets a number: x, x2, x3). */
export function columnNames(header: readonly string[] | null, count: number): string[] {
  const names = Array.from({ length: count }, (_, i) => (header && i < header.length ? sanitizeName(header[i]!, `f${i}`) : `f${i}`));
  const seen = new Set<string>();
  // The next number to try per name: a header of many equal names stays linear.
  const next = new Map<string, number>();
  return names.map((n) => {
    let candidate = n;
    if (seen.has(n.toLowerCase())) {
      let k = next.get(n.toLowerCase()) ?? 2;
      do candidate = `${n}${k++}`; while (seen.has(candidate.toLowerCase()));
      next.set(n.toLowerCase(), k);
    }
    seen.add(candidate.toLowerCase());
    return candidate;
  });
}
