// Collects log lines and hands them to a sink in one write per event-loop turn
// (or at once when asked, or when 64 KiB have piled up). Shared by the file and
// console writers, so a crash loses at most one turn of lines.

const FLUSH_BYTES = 64 * 1024;

export class LineBuffer {
  readonly #sink: (chunk: string) => void;
  #pending: string[] = [];
  #pendingBytes = 0;
  #scheduled = false;

  constructor(sink: (chunk: string) => void) {
    this.#sink = sink;
  }

  /** Queues `text` (whole lines); `urgent` writes it and everything before it now. */
  add(text: string, bytes: number, urgent: boolean): void {
    this.#pending.push(text);
    this.#pendingBytes += bytes;
    if (urgent || this.#pendingBytes >= FLUSH_BYTES) this.flush();
    else if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(() => {
        this.#scheduled = false;
        this.flush();
      }).unref();
    }
  }

  flush(): void {
    if (this.#pending.length === 0) return;
    const chunk = this.#pending.length === 1 ? this.#pending[0]! : this.#pending.join('');
    this.#pending = [];
    this.#pendingBytes = 0;
    this.#sink(chunk);
  }
}
