// The worker-thread pool (shared.worker.count): N helper threads, started as
// work needs them, that run tasks named by a module and an export (a task kind)
// on inputs sent with transferable buffers. Any layer defines its own task
// kinds (export: row formatting, page compression) and submits them here.
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { SvcError, isSvcError, type ErrorCode } from '../errors/svc-error.js';

/**
 * A kind of task: the export `name` of the module at `module` (a file URL, from
 * the defining module's import.meta.url), a TaskHandler run in a pool thread.
 */
export interface TaskKind<I, O> {
  readonly module: string;
  readonly name: string;
  /** Never set: carries the input and output types. */
  readonly types?: (input: I) => O;
}

/** What a task's handler returns: its value and the buffers in it to transfer rather than copy. */
export interface TaskOutput<O> {
  readonly value: O;
  readonly transfer?: readonly ArrayBuffer[];
}

/** A task's code: runs in a pool thread on the input as structured-cloned (transferred buffers moved). */
export type TaskHandler<I, O> = (input: I) => TaskOutput<O> | Promise<TaskOutput<O>>;

/** The modules of every task kind defined so far: what warm() has each thread load. */
const taskModules = new Set<string>();

/** The task kind of the export `name` of the module whose import.meta.url is `moduleUrl`. */
export function taskKind<I, O>(moduleUrl: string | URL, name: string): TaskKind<I, O> {
  taskModules.add(String(moduleUrl));
  return { module: String(moduleUrl), name };
}

/** Main thread -> pool thread: a task, or (no id) modules to load ahead of their tasks. */
export type TaskMessage =
  | { readonly id: number; readonly module: string; readonly name: string; readonly input: unknown }
  | { readonly id?: undefined; readonly load: readonly string[] };

/** An error as it crosses threads: an SvcError keeps its code and position. */
export interface ErrorFields {
  readonly message: string;
  readonly code?: ErrorCode;
  readonly position?: number;
}

/** Pool thread -> main thread. */
export type TaskReply =
  { readonly id: number; readonly value: unknown } | { readonly id: number; readonly error: ErrorFields };

export function errorFields(e: unknown): ErrorFields {
  if (isSvcError(e)) return { message: e.message, code: e.code, position: e.position };
  return { message: e instanceof Error ? e.message : String(e) };
}

function errorFrom(f: ErrorFields): Error {
  return f.code !== undefined ? new SvcError(f.code, f.message, { position: f.position }) : new Error(f.message);
}

/** A thread that failed this many times in a row without finishing a task makes the pool unusable (no restart storm). */
const MAX_FAILED_STARTS = 3;

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  readonly slot: Slot;
  /** Settled early (aborted): the reply is dropped when it comes. */
  settled: boolean;
}

interface Slot {
  worker: Worker;
  /** Tasks sent to it and not answered yet. */
  inFlight: number;
  /** Whether it ever answered (a thread that dies before that counts towards MAX_FAILED_STARTS). */
  answered: boolean;
}

/**
 * N helper threads, none started until a task needs one: a task goes to the
 * thread with the fewest unanswered tasks, and a new thread starts while every
 * started one is busy. A thread that dies (crash, exit) fails its unanswered
 * tasks with an error and is replaced by the next task that needs it; close()
 * fails what is in flight and ends every thread. Idle threads never hold the
 * process open.
 */
export class WorkerPool {
  /** Helper threads at most. */
  readonly threads: number;
  readonly #slots: Slot[] = [];
  readonly #pending = new Map<number, Pending>();
  #next = 1;
  #closed = false;
  #failedStarts = 0;
  #broken = false;

  constructor(threads: number) {
    if (!Number.isInteger(threads) || threads < 1)
      throw new Error(`a worker pool needs 1 or more threads, not ${threads}`);
    this.threads = threads;
  }

  /**
   * The pool for `workerCount` threads of work in all (shared.worker.count):
   * this thread is one of them, so workerCount - 1 helpers; null for 1, when
   * every task runs on the calling thread.
   */
  static forWorkerCount(workerCount: number): WorkerPool | null {
    return workerCount > 1 ? new WorkerPool(workerCount - 1) : null;
  }

  /** False once closed, or once threads could not be started: callers then do the work themselves. */
  get usable(): boolean {
    return !this.#closed && !this.#broken;
  }

  /** Threads running now. */
  get started(): number {
    return this.#slots.length;
  }

  /** Tasks sent and not answered yet. */
  get inFlight(): number {
    return this.#pending.size;
  }

  /**
   * Runs `kind` on `input` in a pool thread; the buffers in `transfer` are
   * moved there (the caller gives them up). Rejects with the task's error (an
   * SvcError keeps its code), when the thread dies, when the pool closes, or
   * with `signal`'s reason when it aborts first.
   */
  run<I, O>(kind: TaskKind<I, O>, input: I, transfer: readonly ArrayBuffer[] = [], signal?: AbortSignal): Promise<O> {
    if (signal?.aborted) return Promise.reject(signal.reason as Error);
    if (!this.usable) return Promise.reject(new SvcError('UNAVAILABLE', 'the worker pool is closed'));
    let slot: Slot;
    try {
      slot = this.#pick();
    } catch (e) {
      return Promise.reject(e);
    }
    const id = this.#next++;
    return new Promise<O>((resolve, reject) => {
      const p: Pending = { resolve: resolve, reject, slot, settled: false };
      if (signal) {
        const onAbort = (): void => {
          if (p.settled) return;
          p.settled = true;
          reject(signal.reason as Error);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        const done = (): void => signal.removeEventListener('abort', onAbort);
        p.resolve = (v) => {
          done();
          resolve(v as O);
        };
        p.reject = (e) => {
          done();
          reject(e);
        };
      }
      this.#pending.set(id, p);
      if (slot.inFlight++ === 0) slot.worker.ref();
      const m: TaskMessage = { id, module: kind.module, name: kind.name, input };
      try {
        slot.worker.postMessage(m, transfer as ArrayBuffer[]);
      } catch (e) {
        this.#settle(id, null, e as Error);
      }
    });
  }

  /**
   * Starts every thread now and has each load the modules of every task kind
   * defined so far, so that the first tasks (a server's first import or
   * query) do not wait for a thread to start and compile its code. A server
   * calls it once it is up; a thread that cannot start leaves the pool as
   * run() would.
   */
  warm(): void {
    if (!this.usable) return;
    const load = [...taskModules];
    try {
      while (this.#slots.length < this.threads) this.#start().worker.postMessage({ load } satisfies TaskMessage);
    } catch {
      /* #start marked the pool broken: callers do the work themselves */
    }
  }

  /** Fails what is in flight and ends every thread; the pool is then unusable. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const slots = this.#slots.splice(0);
    this.#failAll(slots, new SvcError('UNAVAILABLE', 'the worker pool was closed'));
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  /** The least busy thread; a new one while every started one is busy and there is room. */
  #pick(): Slot {
    let best: Slot | null = null;
    for (const s of this.#slots) if (best === null || s.inFlight < best.inFlight) best = s;
    if (best !== null && (best.inFlight === 0 || this.#slots.length >= this.threads)) return best;
    return this.#start();
  }

  #start(): Slot {
    let worker: Worker;
    try {
      worker = new Worker(new URL('./pool-worker.js', import.meta.url));
    } catch (e) {
      this.#broken = true;
      throw new SvcError('UNAVAILABLE', `cannot start a worker thread: ${e instanceof Error ? e.message : String(e)}`);
    }
    worker.unref();
    const slot: Slot = { worker, inFlight: 0, answered: false };
    worker.on('message', (r: TaskReply) => {
      slot.answered = true;
      this.#failedStarts = 0;
      this.#settle(r.id, 'value' in r ? r.value : null, 'error' in r ? errorFrom(r.error) : null);
    });
    let gone = false;
    const lost = (why: string): void => {
      if (gone) return;
      gone = true;
      const i = this.#slots.indexOf(slot);
      if (i < 0) return; // closed: its tasks were failed already
      this.#slots.splice(i, 1);
      if (!slot.answered && ++this.#failedStarts >= MAX_FAILED_STARTS) this.#broken = true;
      this.#failAll([slot], new SvcError('INTERNAL', `a worker thread failed: ${why}`));
      void worker.terminate();
    };
    worker.on('error', (e) => lost(e.message));
    worker.on('exit', (code) => lost(`it exited with code ${code}`));
    this.#slots.push(slot);
    return slot;
  }

  #settle(id: number, value: unknown, error: Error | null): void {
    const p = this.#pending.get(id);
    if (p === undefined) return;
    this.#pending.delete(id);
    if (--p.slot.inFlight === 0) p.slot.worker.unref();
    if (p.settled) return;
    p.settled = true;
    if (error !== null) p.reject(error);
    else p.resolve(value);
  }

  #failAll(slots: readonly Slot[], e: Error): void {
    for (const [id, p] of this.#pending) {
      if (!slots.includes(p.slot)) continue;
      this.#settle(id, null, e);
    }
  }
}

/** shared.worker.count's default: every core. */
export function defaultWorkerCount(): number {
  return availableParallelism();
}

let shared: WorkerPool | null | undefined;

/**
 * The pool of code with no Database to own one (the library's free-standing
 * batchesTo* writers): every core, made on first use; null on one core.
 */
export function sharedWorkerPool(): WorkerPool | null {
  if (shared === undefined) shared = WorkerPool.forWorkerCount(defaultWorkerCount());
  return shared !== null && shared.usable ? shared : null;
}
