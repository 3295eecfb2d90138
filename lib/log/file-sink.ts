// An append-only log file written through a LineBuffer with synchronous writes:
// lines reach the OS once per event-loop turn, critical lines at once.
import { closeSync, fstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { LineBuffer } from './line-buffer.js';

export class FileSink {
  readonly path: string;
  #fd: number;
  readonly #buffer: LineBuffer;
  /** Bytes in the file plus bytes buffered. */
  size: number;

  constructor(path: string) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
    this.#fd = openSync(path, 'a');
    this.size = fstatSync(this.#fd).size;
    this.#buffer = new LineBuffer((chunk) => this.#writeOut(chunk));
  }

  /** Appends `text` (one or more whole lines). */
  write(text: string, urgent = false): void {
    if (this.#fd < 0) return;
    const bytes = Buffer.byteLength(text);
    this.size += bytes;
    this.#buffer.add(text, bytes, urgent);
  }

  flush(): void {
    this.#buffer.flush();
  }

  close(): void {
    if (this.#fd < 0) return;
    this.flush();
    closeSync(this.#fd);
    this.#fd = -1;
  }

  #writeOut(chunk: string): void {
    if (this.#fd < 0) return;
    try {
      const buf = Buffer.from(chunk);
      let off = 0;
      while (off < buf.length) off += writeSync(this.#fd, buf, off);
    } catch (e) {
      // The log cannot log its own failure; standard error is the last resort.
      process.stderr.write(`svcdb: cannot write log file ${this.path}: ${(e as Error).message}\n`);
    }
  }
}
