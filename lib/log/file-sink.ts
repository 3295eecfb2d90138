// An append-only log file with a small write buffer: lines are collected and
// written with one synchronous write per event-loop turn (or when the buffer
// fills, or at once for critical lines), so a crash loses at most one turn.
import { closeSync, fstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

const FLUSH_BYTES = 64 * 1024;

export class FileSink {
  readonly path: string;
  #fd: number;
  #pending: string[] = [];
  #pendingBytes = 0;
  #scheduled = false;
  /** Bytes in the file plus bytes buffered. */
  size: number;

  constructor(path: string) {
    this.path = path;
    mkdirSync(dirname(path), { recursive: true });
    this.#fd = openSync(path, 'a');
    this.size = fstatSync(this.#fd).size;
  }

  /** Appends `text` (one or more whole lines). */
  write(text: string, urgent = false): void {
    if (this.#fd < 0) return;
    const bytes = Buffer.byteLength(text);
    this.#pending.push(text);
    this.#pendingBytes += bytes;
    this.size += bytes;
    if (urgent || this.#pendingBytes >= FLUSH_BYTES) this.flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => { this.#scheduled = false; this.flush(); }).unref();
    }
  }

  flush(): void {
    if (this.#pending.length === 0 || this.#fd < 0) return;
    const chunk = this.#pending.length === 1 ? this.#pending[0]! : this.#pending.join('');
    this.#pending = [];
    this.#pendingBytes = 0;
    try {
      const buf = Buffer.from(chunk);
      let off = 0;
      while (off < buf.length) off += writeSync(this.#fd, buf, off);
    } catch (e) {
      // The log cannot log its own failure; standard error is the last resort.
      process.stderr.write(`svcdb: cannot write log file ${this.path}: ${(e as Error).message}\n`);
    }
  }

  close(): void {
    if (this.#fd < 0) return;
    this.flush();
    closeSync(this.#fd);
    this.#fd = -1;
  }
}
