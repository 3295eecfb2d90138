// The /imp answers as QuestDB writes them. The tabular text: fixed-width
// columns (15, 50, 15, 7 and 12 characters, values right-aligned, a value too
// long for its column shown as `...` and its end), rows of Location (the
// table's name) with the Pattern, Locale and Errors headings, Partition by
// and Timestamp ("From Table" under Errors when the table's own were used),
// Rows handled and Rows imported, then one row per column of the table with
// its index, name, type and error count; CRLF line ends. The JSON (fmt=json):
// status, location, rowsRejected, rowsImported, header, partitionBy, then
// `timestamp` only when the table has one and `warnings` only when there are
// some, then the columns.
import type { ColumnType } from '../core/column-type.js';
import type { ImportResult } from './importer.js';

const W1 = 15,
  W2 = 50,
  W3 = 15,
  W4 = 7,
  W5 = 12;
const EOL = '\r\n';
const RULE = `+${'-'.repeat(W1 + W2 + W3 + W4 + W5 + 14)}+${EOL}`;

/** A type as QuestDB names it in import answers. */
export function importTypeName(t: ColumnType): string {
  return t === 'IPV4' ? 'IPv4' : t;
}

/** `value` right-aligned in `w` characters (its end after `...` when longer), then the cell's border. */
function cell(w: number, value: string): string {
  const chars = [...value];
  const pad = w - chars.length;
  return `${pad >= 0 ? ' '.repeat(pad) + value : `...${chars.slice(-pad + 3).join('')}`}  |`;
}

export function importText(r: ImportResult): string {
  const fromTable = (w: string): string => (r.warnings.includes(w as never) ? 'From Table' : '');
  const out: string[] = [
    RULE,
    `|${cell(W1, 'Location:')}${cell(W2, r.location)}${cell(W3, 'Pattern')}${cell(W4, 'Locale')}${cell(W5, 'Errors')}${EOL}`,
    `|${cell(W1, 'Partition by')}${cell(W2, r.partitionBy)}${cell(W3, '')}${cell(W4, '')}${cell(W5, fromTable('Existing table PartitionBy is used'))}${EOL}`,
    `|${cell(W1, 'Timestamp')}${cell(W2, r.timestamp ?? 'NONE')}${cell(W3, '')}${cell(W4, '')}${cell(W5, fromTable('Existing table timestamp column is used'))}${EOL}`,
    RULE,
    `|${cell(W1, 'Rows handled')}${cell(W2, String(r.rowsImported + r.rowsRejected))}${cell(W3, '')}${cell(W4, '')}${cell(W5, '')}${EOL}`,
    `|${cell(W1, 'Rows imported')}${cell(W2, String(r.rowsImported))}${cell(W3, '')}${cell(W4, '')}${cell(W5, '')}${EOL}`,
    RULE,
  ];
  // One string per column, joined once: a file may have 100,000 columns.
  r.columns.forEach((c, i) => {
    out.push(
      `|${cell(W1, String(i))}${cell(W2, c.name)}${cell(W3 + W4 + 3, importTypeName(c.type))}${cell(W5, String(c.errors))}${EOL}`,
    );
  });
  out.push(RULE);
  return out.join('');
}

export function importJson(r: ImportResult): string {
  return JSON.stringify({
    status: r.status,
    location: r.location,
    rowsRejected: r.rowsRejected,
    rowsImported: r.rowsImported,
    header: r.header,
    partitionBy: r.partitionBy,
    ...(r.timestamp !== null ? { timestamp: r.timestamp } : {}),
    ...(r.warnings.length > 0 ? { warnings: r.warnings } : {}),
    columns: r.columns.map((c) => ({ name: c.name, type: importTypeName(c.type), size: c.size, errors: c.errors })),
  });
}
