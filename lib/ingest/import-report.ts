// The /imp answers: QuestDB's tabular text (Location, Partition by and
// Timestamp with the Pattern, Locale and Errors headings; Rows handled and
// Rows imported; one line per column with index, name, type and errors),
// columns fitted to their content; and the JSON forms (fmt=json). Notes (a
// schema part that came too late) follow the table as lines of their own, and
// are a "notes" array in the JSON only when there are some.
import type { ImportResult } from './importer.js';
import { typeName } from '../storage/column-type.js';

export function importText(r: ImportResult): string {
  const rows: Array<[string, string, string, string, string]> = [
    ['Location:', r.location, 'Pattern', 'Locale', 'Errors'],
    ['Partition by', r.partitionBy, '', '', ''],
    ['Timestamp', r.timestamp ?? 'NONE', '', '', ''],
  ];
  const totals: Array<[string, string, string, string, string]> = [
    ['Rows handled', String(r.rowsImported + r.rowsRejected), '', '', ''],
    ['Rows imported', String(r.rowsImported), '', '', ''],
  ];
  const cols: Array<[string, string, string, string, string]> = r.columns.map((c, i) => [String(i), c.name, typeName(c.type), '', String(c.errors)]);
  const all = [...rows, ...totals, ...cols];
  // reduce, not Math.max(...): one row per column, and a file may have 100,000 columns.
  const w = [0, 1, 2, 3, 4].map((k) => all.reduce((m, row) => Math.max(m, row[k]!.length), 0));
  const line = (row: readonly string[]): string =>
    `| ${row[0]!.padStart(w[0]!)} | ${row[1]!.padEnd(w[1]!)} | ${row[2]!.padEnd(w[2]!)} | ${row[3]!.padEnd(w[3]!)} | ${row[4]!.padStart(w[4]!)} |`;
  const rule = `+${w.map((x) => '-'.repeat(x + 2)).join('+')}+`;
  const notes = (r.notes ?? []).map((n) => `Note: ${n}`);
  return [rule, ...rows.map(line), rule, ...totals.map(line), rule, ...cols.map(line), rule, ...notes, ''].join('\n');
}

export function importJson(r: ImportResult): string {
  return JSON.stringify({
    status: r.status, location: r.location, rowsRejected: r.rowsRejected, rowsImported: r.rowsImported, header: r.header,
    partitionBy: r.partitionBy, timestamp: r.timestamp,
    columns: r.columns.map((c) => ({ name: c.name, type: typeName(c.type), size: c.size, errors: c.errors })),
    ...(r.notes && r.notes.length > 0 ? { notes: r.notes } : {}),
  });
}
