// Dataset rows (raw /exec JSON arrays from exec-scanner.ts) to their cells:
// numbers with the digits the answer holds (a LONG past 2^53 stays exact, a
// DOUBLE keeps its `.0`), strings as their text, NULL as null, nested arrays
// as compact JSON. The rows go through ExecResultReader, the one reader of
// /exec documents, wrapped as a small document.
import { ExecResultReader, type Cell } from '../../export/exec-result-reader.js';

export type { Cell };

const OPEN = Buffer.from('{"dataset":[');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

/** The cells of each row, in order. */
export function rowCells(rows: readonly Uint8Array[]): Cell[][] {
  const out: Cell[][] = [];
  if (rows.length === 0) return out;
  const reader = new ExecResultReader({ columns: () => undefined, row: (cells) => out.push([...cells]) });
  reader.write(OPEN);
  rows.forEach((r, i) => {
    if (i > 0) reader.write(COMMA);
    reader.write(r);
  });
  reader.write(CLOSE);
  reader.end();
  return out;
}
