// `svcdb import`'s progress on a terminal: one line redrawn in place, as wide
// as the terminal (its width read at each draw, so a resize is followed),
// with human byte counts: a bar and "x MB of y MB" for a file, rows and bytes
// read so far for standard input (whose size is unknown). Nothing is drawn
// when the stream is not a terminal.
import type { Writable } from 'node:stream';

/** Bytes as people read them: 980 B, 12.3 KB, 45.6 MB, 1.2 GB (powers of 1000, as MB/s). */
export function humanBytes(n: number): string {
  if (n < 1000) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let v = n / 1000;
  let u = 0;
  while (v >= 1000 && u < units.length - 1) {
    v /= 1000;
    u++;
  }
  return `${v.toFixed(1)} ${units[u]}`;
}

export interface ProgressStream extends Writable {
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/** A progress line on `out` for `label` (a file of `total` bytes, or 0 when unknown). */
export class ProgressLine {
  readonly #out: ProgressStream;
  readonly #label: string;
  readonly #total: number;
  readonly #started = performance.now();
  #lastDraw = -Infinity;
  #drawn = false;

  constructor(out: ProgressStream, label: string, total: number) {
    this.#out = out;
    this.#label = label;
    this.#total = total;
  }

  /** Draws at most every `everyMs` (the first call draws at once). */
  update(bytes: number, rows: number, everyMs = 100): void {
    const now = performance.now();
    if (now - this.#lastDraw < everyMs) return;
    this.#lastDraw = now;
    const s = Math.max((now - this.#started) / 1000, 1e-3);
    const width = this.#out.columns ?? 80;
    this.#out.write(
      `\r${fit(this.#parts(bytes, rows, s), width - 1, this.#total > 0 ? bytes / this.#total : -1)}\x1b[K`,
    );
    this.#drawn = true;
  }

  /** Removes the line (before the report is printed). */
  clear(): void {
    if (this.#drawn) this.#out.write('\r\x1b[K');
    this.#drawn = false;
  }

  #parts(bytes: number, rows: number, s: number): Parts {
    const done = this.#total > 0 ? Math.min(bytes, this.#total) : bytes;
    return {
      head: `importing ${this.#label}`,
      tail: [
        this.#total > 0 ? `${Math.floor((100 * done) / this.#total)}%` : '',
        `${rows.toLocaleString('en-US')} rows`,
        this.#total > 0 ? `${humanBytes(done)} of ${humanBytes(this.#total)}` : `${humanBytes(done)} read`,
        `${Math.round(rows / s).toLocaleString('en-US')} rows/s`,
        `${humanBytes(Math.round(bytes / s))}/s`,
      ].filter((p) => p !== ''),
    };
  }
}

interface Parts {
  readonly head: string;
  readonly tail: readonly string[];
}

const BAR_MIN = 10;
const BAR_MAX = 40;

/**
 * The line in `width` characters: head, a bar when there is room for one
 * (`fraction` >= 0), then the parts; parts that do not fit are left off from
 * the end, and a head too long is cut.
 */
function fit(p: Parts, width: number, fraction: number): string {
  const tail = [...p.tail];
  for (;;) {
    const text = tail.join('  ');
    const room = width - p.head.length - text.length - 6; // "  [" "]  " around the bar
    if (fraction >= 0 && room >= BAR_MIN) {
      const size = Math.min(room, BAR_MAX);
      const full = Math.min(size, Math.round(size * fraction));
      return `${p.head}  [${'='.repeat(full)}${' '.repeat(size - full)}]  ${text}`;
    }
    const line = `${p.head}  ${text}`;
    if (line.length <= width || tail.length <= 1)
      return line.length <= width ? line : line.slice(0, Math.max(0, width));
    tail.pop();
  }
}
