// One statement's /exec document printed in an output mode: table (aligned;
// the first and last rows of a long result, with a footer), line (one
// `column = value` per line), json (the document itself). Rows are cut out of
// the stream by exec-scanner.ts; only the ones printed are decoded, so a long
// result costs a scan, and memory holds no more than the rows shown (or, with
// no row limit, a spool of the answer on disk, as svcdb query has always done).
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { ByteSpool, type ByteSpoolOptions } from '../../export/byte-spool.js';
import { ExecScanner, type ExecColumnInfo, type ExecSummary } from './exec-scanner.js';
import { rowCells, type Cell } from './row-cells.js';
import { TableLayout, escaped, type TableStyle } from './table-layout.js';

export type OutputMode = 'table' | 'csv' | 'json' | 'line';
export const OUTPUT_MODES: readonly OutputMode[] = ['table', 'csv', 'json', 'line'];

export interface PrintOptions extends TableStyle {
  /** Table mode: rows shown at most (half from the start, half from the end); 0: all. */
  readonly maxRows: number;
  /** With every row shown: where the answer waits between its two reads (default 16 MiB in memory, then a file). */
  readonly spool?: ByteSpoolOptions;
}

/** Rows decoded at a time when every row is printed. */
const BATCH = 512;

/** Writes `text`, waiting while the stream is full. */
export async function put(out: Writable, text: string | Uint8Array): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/** Prints the document; returns its summary (a late `error` member is for the caller to report). */
export async function printDocument(
  body: AsyncIterable<Uint8Array>,
  mode: Exclude<OutputMode, 'csv'>,
  out: Writable,
  o: PrintOptions,
): Promise<ExecSummary> {
  if (mode === 'json') return passThrough(body, out);
  if (mode === 'line') return printLines(body, out, o);
  return o.maxRows > 0 ? printCut(body, out, o) : printAll(body, out, o);
}

async function passThrough(body: AsyncIterable<Uint8Array>, out: Writable): Promise<ExecSummary> {
  const scanner = new ExecScanner(() => undefined);
  for await (const chunk of body) {
    scanner.write(chunk);
    await put(out, chunk);
  }
  await put(out, '\n');
  return scanner.end();
}

/** The first rows, a ring of the last ones: the table of a result of any length in bounded memory. */
async function printCut(body: AsyncIterable<Uint8Array>, out: Writable, o: PrintOptions): Promise<ExecSummary> {
  const headMax = Math.ceil(o.maxRows / 2);
  const tailMax = o.maxRows - headMax;
  const head: Uint8Array[] = [];
  const ring: Uint8Array[] = new Array<Uint8Array>(tailMax);
  let n = 0;
  const scanner = new ExecScanner((row) => {
    if (n < headMax) head.push(row);
    else if (tailMax > 0) ring[(n - headMax) % tailMax] = row;
    n++;
  });
  for await (const chunk of body) scanner.write(chunk);
  const summary = scanner.end();
  if (summary.columns === null || summary.members.error !== undefined) return summary;
  const rest = n - headMax;
  const tail: Uint8Array[] = [];
  if (rest > 0) {
    const kept = Math.min(rest, tailMax);
    const first = rest > tailMax ? rest % tailMax : 0;
    for (let k = 0; k < kept; k++) tail.push(ring[(first + k) % tailMax]!);
  }
  const cut = rest > tailMax;
  const headCells = rowCells(head);
  const tailCells = rowCells(tail);
  const layout = new TableLayout(summary.columns, o);
  for (const r of headCells) layout.measure(r);
  for (const r of tailCells) layout.measure(r);
  layout.plan();
  let text = layout.head();
  for (const r of headCells) text += layout.line(r);
  if (cut) text += layout.gap();
  for (const r of tailCells) text += layout.line(r);
  text += layout.footer(n, headCells.length + tailCells.length);
  await put(out, text);
  return summary;
}

/** Every row: the answer is read twice (widths, then lines), kept in a spool meanwhile. */
async function printAll(body: AsyncIterable<Uint8Array>, out: Writable, o: PrintOptions): Promise<ExecSummary> {
  const spool = new ByteSpool(o.spool);
  try {
    let layout: TableLayout | null = null;
    const pending: Uint8Array[] = [];
    const measure = (): void => {
      for (const r of rowCells(pending)) layout!.measure(r);
      pending.length = 0;
    };
    const measuring = new ExecScanner((row) => {
      pending.push(row);
      if (pending.length >= BATCH) measure();
    });
    measuring.onHead = (h) => {
      layout = new TableLayout(h.columns ?? [], o);
    };
    for await (const chunk of body) {
      spool.write(chunk);
      measuring.write(chunk);
    }
    const summary = measuring.end();
    if (summary.columns === null || summary.members.error !== undefined || layout === null) return summary;
    measure();
    const t = layout as TableLayout;
    t.plan();
    let text = t.head();
    const lines = (): void => {
      for (const r of rowCells(pending)) text += t.line(r);
      pending.length = 0;
    };
    const printing = new ExecScanner((row) => {
      pending.push(row);
      if (pending.length >= BATCH) lines();
    });
    for await (const chunk of spool.read()) {
      printing.write(chunk);
      if (text.length >= 1 << 16) {
        await put(out, text);
        text = '';
      }
    }
    printing.end();
    lines();
    text += t.footer(printing.rows, printing.rows);
    await put(out, text);
    return summary;
  } finally {
    spool.dispose();
  }
}

/** Line mode: `name = value` per column, names right-aligned, a blank line between rows. */
async function printLines(body: AsyncIterable<Uint8Array>, out: Writable, o: PrintOptions): Promise<ExecSummary> {
  let columns: readonly ExecColumnInfo[] = [];
  let labels: string[] = [];
  let first = true;
  let text = '';
  const pending: Uint8Array[] = [];
  const flush = (): void => {
    for (const cells of rowCells(pending)) text += rowText(cells);
    pending.length = 0;
  };
  const rowText = (cells: readonly Cell[]): string => {
    let s = first ? '' : '\n';
    first = false;
    for (let i = 0; i < columns.length; i++) {
      const c = cells[i] ?? null;
      s += `${labels[i]} = ${c === null ? o.nullText : escaped(c)}\n`;
    }
    return s;
  };
  const scanner = new ExecScanner((row) => {
    pending.push(row);
    if (pending.length >= BATCH) flush();
  });
  scanner.onHead = (h) => {
    columns = h.columns ?? [];
    const w = Math.max(0, ...columns.map((c) => c.name.length));
    labels = columns.map((c) => c.name.padStart(w));
  };
  for await (const chunk of body) {
    scanner.write(chunk);
    if (text.length >= 1 << 16) {
      await put(out, text);
      text = '';
    }
  }
  const summary = scanner.end();
  flush();
  await put(out, text);
  return summary;
}
