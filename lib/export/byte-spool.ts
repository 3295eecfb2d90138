// Bytes written once and read back once, in memory up to a limit and past it
// in a temporary file (removed when read back, disposed or at exit): svcdb
// query's table needs a result twice (column widths, then lines) without
// holding a large one in memory.
import { closeSync, createReadStream, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ByteSpoolOptions {
  /** Bytes kept in memory before spilling to a file (default 16 MiB). */
  readonly memoryLimit?: number;
  /** Folder for the temporary file (default the OS's). */
  readonly dir?: string;
}

export class ByteSpool {
  readonly #limit: number;
  readonly #dir: string;
  #chunks: Buffer[] = [];
  #bytes = 0;
  #folder: string | null = null;
  #fd: number | null = null;
  readonly #cleanup = (): void => this.dispose();

  constructor(opts: ByteSpoolOptions = {}) {
    this.#limit = opts.memoryLimit ?? 16 * 1024 * 1024;
    this.#dir = opts.dir ?? tmpdir();
  }

  get bytes(): number {
    return this.#bytes;
  }
  /** Whether the bytes went to a temporary file. */
  get onDisk(): boolean {
    return this.#folder !== null;
  }

  write(chunk: Uint8Array): void {
    this.#bytes += chunk.byteLength;
    if (this.#fd === null) {
      this.#chunks.push(Buffer.from(chunk));
      if (this.#bytes <= this.#limit) return;
      this.#folder = mkdtempSync(join(this.#dir, 'svcdb-spool-'));
      process.on('exit', this.#cleanup);
      this.#fd = openSync(join(this.#folder, 'data'), 'w');
      for (const c of this.#chunks) writeAll(this.#fd, c);
      this.#chunks = [];
      return;
    }
    writeAll(this.#fd, chunk);
  }

  /** The bytes in the order written; the spool is emptied (its file removed) when the reading ends. */
  async *read(): AsyncGenerator<Buffer> {
    try {
      if (this.#folder === null) {
        const chunks = this.#chunks;
        this.#chunks = [];
        yield* chunks;
        return;
      }
      if (this.#fd !== null) {
        closeSync(this.#fd);
        this.#fd = null;
      }
      for await (const c of createReadStream(join(this.#folder, 'data'), { highWaterMark: 1 << 20 })) yield c as Buffer;
    } finally {
      this.dispose();
    }
  }

  dispose(): void {
    this.#chunks = [];
    if (this.#fd !== null) {
      closeSync(this.#fd);
      this.#fd = null;
    }
    if (this.#folder !== null) {
      rmSync(this.#folder, { recursive: true, force: true });
      this.#folder = null;
      process.off('exit', this.#cleanup);
    }
  }
}

function writeAll(fd: number, chunk: Uint8Array): void {
  let off = 0;
  while (off < chunk.byteLength) off += writeSync(fd, chunk, off, chunk.byteLength - off);
}
