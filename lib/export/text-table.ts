// A query result as an aligned text table for terminals (`svcdb query`):
// a header, a rule, one line per row; numbers right-aligned, text left; NULL
// shown as `null`. Control characters in values are shown escaped so a value
// cannot break the layout.

export interface JsonResult {
  readonly columns: ReadonlyArray<{ readonly name: string; readonly type: string }>;
  readonly dataset: ReadonlyArray<ReadonlyArray<unknown>>;
}

const NUMERIC = new Set(['BYTE', 'SHORT', 'INT', 'LONG', 'FLOAT', 'DOUBLE']);

function cell(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1));
}

/** Display width: one column per code point (wide characters are rare in results; good enough for alignment). */
function width(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

export function textTable(r: JsonResult): string {
  const heads = r.columns.map((c) => c.name);
  const cells = r.dataset.map((row) => row.map(cell));
  const widths = heads.map((h, i) => Math.max(width(h), ...cells.map((row) => width(row[i] ?? ''))));
  const right = r.columns.map((c) => NUMERIC.has(c.type));
  const pad = (s: string, i: number): string => {
    const fill = ' '.repeat(widths[i]! - width(s));
    return right[i] ? fill + s : s + fill;
  };
  const lines = [heads.map(pad).join(' | '), widths.map((w) => '-'.repeat(w)).join('-+-')];
  for (const row of cells) lines.push(row.map(pad).join(' | ').trimEnd());
  lines.push(`(${r.dataset.length} ${r.dataset.length === 1 ? 'row' : 'rows'})`);
  return lines.join('\n') + '\n';
}
