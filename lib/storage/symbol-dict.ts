// A table's dictionary for one SYMBOL column: values in key order, kept in
// memory and appended to `<colId>.sym` ([int32 length][UTF-8 bytes] per entry).
// The committed size lives in _txn; readers only use keys below their snapshot's
// count, so appending in place never disturbs them.
import { closeSync, openSync } from 'node:fs';
import { SvcError } from '../errors/svc-error.js';
import { fileSize, readAt, syncFd, syncPath, truncateFd, writeAll, type CommitMode } from './io.js';
import type { SymbolState } from './table-state.js';

const decoder = new TextDecoder('utf-8', { fatal: false });

export class SymbolDict {
  readonly path: string;
  /** Values by key. Replaced (not cleared) by reset(), so old readers keep theirs. */
  values: string[] = [];
  #index = new Map<string, number>();
  #fd: number;
  #bytes = 0;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;

  private constructor(path: string, fd: number) {
    this.path = path;
    this.#fd = fd;
  }

  /** Opens the dictionary at its committed state, dropping uncommitted entries. */
  static open(path: string, committed: SymbolState): SymbolDict {
    const fd = openSync(path, 'a+');
    const d = new SymbolDict(path, fd);
    const size = fileSize(fd);
    if (size < committed.bytes) {
      closeSync(fd);
      throw new SvcError(
        'INTERNAL',
        `symbol dictionary ${path} is truncated: ${size} bytes, ${committed.bytes} committed`,
      );
    }
    const buf = new Uint8Array(committed.bytes);
    readAt(fd, buf, 0, committed.bytes, 0);
    const view = new DataView(buf.buffer);
    let at = 0;
    while (at < buf.length) {
      const len = at + 4 <= buf.length ? view.getInt32(at, true) : -1;
      if (len < 0 || at + 4 + len > buf.length) {
        closeSync(fd);
        throw new SvcError('INTERNAL', `symbol dictionary ${path} is corrupt at byte ${at}`);
      }
      const s = decoder.decode(buf.subarray(at + 4, at + 4 + len));
      d.#index.set(s, d.values.length);
      d.values.push(s);
      at += 4 + len;
    }
    if (d.values.length !== committed.count) {
      closeSync(fd);
      throw new SvcError(
        'INTERNAL',
        `symbol dictionary ${path} holds ${d.values.length} values, ${committed.count} committed`,
      );
    }
    if (size > committed.bytes) truncateFd(fd, committed.bytes);
    d.#bytes = committed.bytes;
    return d;
  }

  /** The key of `s`, adding it if new. */
  intern(s: string): number {
    let k = this.#index.get(s);
    if (k !== undefined) return k;
    k = this.values.length;
    this.values.push(s);
    this.#index.set(s, k);
    const b = Buffer.from(s, 'utf8');
    const entry = new Uint8Array(4 + b.length);
    new DataView(entry.buffer).setInt32(0, b.length, true);
    entry.set(b, 4);
    this.#pending.push(entry);
    this.#pendingBytes += entry.length;
    return k;
  }

  keyOf(s: string): number | undefined {
    return this.#index.get(s);
  }

  /** Writes pending entries to the file. */
  flush(mode: CommitMode): void {
    if (this.#pending.length > 0) {
      writeAll(this.#fd, this.path, Buffer.concat(this.#pending), this.#bytes);
      this.#bytes += this.#pendingBytes;
      this.#pending = [];
      this.#pendingBytes = 0;
    }
    if (mode === 'sync') syncFd(this.#fd, mode);
    else if (mode === 'async') syncPath(this.path, mode);
  }

  state(): SymbolState {
    return { count: this.values.length, bytes: this.#bytes + this.#pendingBytes };
  }

  /** Back to a committed state: later keys are forgotten and the file truncated. */
  truncateTo(s: SymbolState): void {
    for (let k = s.count; k < this.values.length; k++) this.#index.delete(this.values[k]!);
    this.values.length = s.count;
    this.#pending = [];
    this.#pendingBytes = 0;
    truncateFd(this.#fd, s.bytes);
    this.#bytes = s.bytes;
  }

  /** Empties the dictionary for a truncated table; readers keep the old values array. */
  reset(): void {
    this.values = [];
    this.#index = new Map();
    this.#pending = [];
    this.#pendingBytes = 0;
    truncateFd(this.#fd, 0);
    this.#bytes = 0;
  }

  close(): void {
    if (this.#fd >= 0) closeSync(this.#fd);
    this.#fd = -1;
  }
}
