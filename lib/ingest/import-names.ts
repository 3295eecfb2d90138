// Table and column names from a file: the characters SPEC.md lists are
// removed (white space . ? , : \ / \0 ( ) + - * ~ %, and quotes and control
// characters, which names may not hold either). `_` stays, unlike SPEC.md's
// list: it is how real headers separate words (trip_distance), QuestDB
// accepts it, and removing it would merge words. Files without a header get
// QuestDB's generated names f0, f1, ...
const REMOVED = /[\s.?,:\\/\0()+\-*~%'"\x00-\x1f\x7f\uFEFF]/gu;

/** A name made valid; `fallback` when nothing is left. */
export function sanitizeName(raw: string, fallback: string): string {
  const s = raw.replace(REMOVED, '').slice(0, 127);
  return s === '' ? fallback : s;
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
  return names.map((n) => {
    let candidate = n;
    for (let k = 2; seen.has(candidate.toLowerCase()); k++) candidate = `${n}${k}`;
    seen.add(candidate.toLowerCase());
    return candidate;
  });
}
