// Creating folders and files ahead of time on a helper thread. Creating a file
// is a metadata operation that costs far more than writing to it on some file
// systems (~0.3 ms here), and a partitioned append creates a folder and a file
// per column for every partition. The table writer asks for the next
// partition's folder early; by the time rows reach it, its files are open.
import { closeSync, mkdirSync, openSync, rmSync } from 'node:fs';
import { Worker } from 'node:worker_threads';

/** Slot states (Int32Array element 0). A ticket is claimed exactly once, by the helper or by the caller. */
export const QUEUED = 0;
export const WORKING = 1;
export const DONE = 2;
export const FAILED = 3;
/** The caller took the request back before the helper started it: nothing was created. */
export const TAKEN_BACK = 4;

/** What the helper is sent: make `dir` (if any), then create `files` (open read-write, truncated). */
export interface PrepRequest {
  readonly dir: string | null;
  readonly files: readonly string[];
  /** Int32Array over a SharedArrayBuffer: [state, fd per file...]. */
  readonly slot: SharedArrayBuffer;
}

/** Does one request where it is claimed (the helper thread, or the caller taking it back). */
export function runRequest(r: PrepRequest, state: Int32Array): void {
  const fds: number[] = [];
  try {
    if (r.dir !== null) mkdirSync(r.dir, { recursive: true });
    for (const f of r.files) fds.push(openSync(f, 'w+'));
    for (let i = 0; i < fds.length; i++) state[1 + i] = fds[i]!;
    Atomics.store(state, 0, DONE);
  } catch {
    // The caller does the same work itself and meets the error there, with its own message.
    for (const fd of fds) closeSync(fd);
    Atomics.store(state, 0, FAILED);
  }
  Atomics.notify(state, 0);
}

/** A request handed to the helper thread. */
export class PrepTicket {
  readonly dir: string | null;
  readonly files: readonly string[];
  readonly #state: Int32Array;
  #settled = false;

  constructor(dir: string | null, files: readonly string[], slot: SharedArrayBuffer) {
    this.dir = dir;
    this.files = files;
    this.#state = new Int32Array(slot);
  }

  /** Whether the helper has finished (or given up on, or the caller taken back) this request. */
  get settled(): boolean {
    const s = Atomics.load(this.#state, 0);
    return s !== QUEUED && s !== WORKING;
  }

  /** Waits until the helper has finished the request (tests: a simulated crash after the helper's work). */
  waitDone(timeoutMs: number): boolean {
    const end = Date.now() + timeoutMs;
    for (let s = Atomics.load(this.#state, 0); s === QUEUED || s === WORKING; s = Atomics.load(this.#state, 0)) {
      const left = end - Date.now();
      if (left <= 0) return false;
      Atomics.wait(this.#state, 0, s, Math.min(left, 50));
    }
    return true;
  }

  /**
   * The open descriptors, one per file (in order), or null when the work was not
   * done: taken back before the helper started (the caller then does it, at the
   * same cost as without a helper) or failed. Waits while the helper is at it.
   */
  take(): number[] | null {
    if (this.#settled) throw new Error('prepared files already taken');
    this.#settled = true;
    const s = this.#await();
    if (s !== DONE) return null;
    return this.files.map((_, i) => this.#state[1 + i]!);
  }

  /** Undoes the request: closes what it opened and removes what it created. */
  cancel(): void {
    if (this.#settled) return;
    this.#settled = true;
    if (this.#await() !== DONE) return;
    for (let i = 0; i < this.files.length; i++) closeSync(this.#state[1 + i]!);
    if (this.dir !== null) rmSync(this.dir, { recursive: true, force: true });
    else for (const f of this.files) rmSync(f, { force: true });
  }

  #await(): number {
    const prev = Atomics.compareExchange(this.#state, 0, QUEUED, TAKEN_BACK);
    if (prev === QUEUED) return TAKEN_BACK;
    // The helper is creating a handful of files: wait for it (bounded, in case it died).
    for (let waited = 0; Atomics.load(this.#state, 0) === WORKING; waited++) {
      if (waited === 100) throw new Error('file preparation thread does not answer');
      Atomics.wait(this.#state, 0, WORKING, 100);
    }
    return Atomics.load(this.#state, 0);
  }
}

let helper: Worker | null = null;
let helperFailed = false;

/** Every file a PrepTicket can hold, plus the state word. */
const MAX_FILES = 1024;

/**
 * Queues the creation of `dir` (null: none) and of `files` on the helper thread.
 * Returns null when no helper can run (the caller just does the work itself).
 */
export function prepare(dir: string | null, files: readonly string[]): PrepTicket | null {
  if (files.length > MAX_FILES) return null;
  const w = helperThread();
  if (w === null) return null;
  const slot = new SharedArrayBuffer(4 * (1 + files.length));
  w.postMessage({ dir, files, slot } satisfies PrepRequest);
  return new PrepTicket(dir, files, slot);
}

function helperThread(): Worker | null {
  if (helper !== null || helperFailed) return helper;
  try {
    // The descriptors belong to the caller's thread: not tracked (or closed at exit) by the helper.
    helper = new Worker(new URL('./file-prep-worker.js', import.meta.url), { trackUnmanagedFds: false });
  } catch {
    helperFailed = true;
    return null;
  }
  // Never keeps the process alive; an unclaimed request is taken back by its caller.
  helper.unref();
  helper.on('error', () => {
    helper = null;
    helperFailed = true;
  });
  return helper;
}
