// The shape of every library operator: a Duplex that runs an async generator
// over what is written to it. (Node 20's Duplex.from(async generator) was the
// first choice; a stage of it that fails after its input ended, followed by
// another one, leaves stream.pipeline waiting forever, so the bridge is
// written out here.)
//
// Backpressure both ways: a write completes when the generator takes the
// chunk, and the generator waits while the readable side is full. A failure
// in the generator destroys the stream with that error (so pipeline rejects
// with it); destroying the stream (a failure elsewhere, a consumer that
// stops) stops the generator: its pending input read throws the reason and
// its finally blocks run.
import { Duplex } from 'node:stream';

export interface StageModes {
  /** Objects out (RecordBatches) rather than bytes. */
  readonly readableObjectMode: boolean;
  /** Objects in rather than bytes. */
  readonly writableObjectMode: boolean;
}

type Body<I, O> = (input: AsyncIterable<I>, signal: AbortSignal) => AsyncIterable<O>;
type Callback = (error?: Error | null) => void;

export class GeneratorStage<I, O> extends Duplex {
  readonly #body: Body<I, O>;
  readonly #ac = new AbortController();
  #started = false;
  /** The body has finished: later input is taken and dropped. */
  #done = false;
  #chunk: { readonly value: I; readonly cb: Callback } | null = null;
  #ended = false;
  #finalCb: Callback | null = null;
  #wakeInput: (() => void) | null = null;
  #wakeRead: (() => void) | null = null;

  constructor(body: Body<I, O>, modes: StageModes) {
    super({
      readableObjectMode: modes.readableObjectMode,
      writableObjectMode: modes.writableObjectMode,
      // One object waiting each side (a batch can be megabytes); bytes: the defaults.
      ...(modes.readableObjectMode ? { readableHighWaterMark: 1 } : {}),
      ...(modes.writableObjectMode ? { writableHighWaterMark: 1 } : {}),
    });
    this.#body = body;
  }

  override _write(chunk: I, _encoding: BufferEncoding, cb: Callback): void {
    if (this.#done) {
      cb();
      return;
    }
    this.#chunk = { value: chunk, cb };
    this.#start();
    this.#wake();
  }

  override _final(cb: Callback): void {
    if (this.#done) {
      cb();
      return;
    }
    this.#ended = true;
    this.#finalCb = cb;
    this.#start();
    this.#wake();
  }

  override _read(): void {
    this.#start();
    const w = this.#wakeRead;
    this.#wakeRead = null;
    w?.();
  }

  override _destroy(error: Error | null, cb: Callback): void {
    if (!this.#ac.signal.aborted) this.#ac.abort(error ?? new Error('the stream was destroyed'));
    this.#wake();
    const w = this.#wakeRead;
    this.#wakeRead = null;
    w?.();
    cb(error);
  }

  #wake(): void {
    const w = this.#wakeInput;
    this.#wakeInput = null;
    w?.();
  }

  #start(): void {
    if (this.#started) return;
    this.#started = true;
    void this.#pump();
  }

  /** The next written chunk, as the body asks for it. */
  async #next(): Promise<IteratorResult<I>> {
    for (;;) {
      if (this.#ac.signal.aborted) throw this.#ac.signal.reason;
      const c = this.#chunk;
      if (c !== null) {
        this.#chunk = null;
        c.cb(); // the writer may send the next one now
        return { value: c.value, done: false };
      }
      if (this.#ended) return { value: undefined, done: true };
      await new Promise<void>((resolve) => {
        this.#wakeInput = resolve;
      });
    }
  }

  async #pump(): Promise<void> {
    const input: AsyncIterable<I> = { [Symbol.asyncIterator]: () => ({ next: () => this.#next() }) };
    try {
      for await (const out of this.#body(input, this.#ac.signal)) {
        if (this.destroyed) return;
        if (!this.push(out))
          await new Promise<void>((resolve) => {
            this.#wakeRead = resolve;
          });
        if (this.destroyed) return;
      }
      this.#finish();
      if (!this.destroyed) this.push(null);
    } catch (e) {
      this.#done = true;
      this.destroy(e instanceof Error ? e : new Error(String(e)));
    }
  }

  /** The body is over: let the writable side complete whatever it is waiting for. */
  #finish(): void {
    this.#done = true;
    const c = this.#chunk;
    this.#chunk = null;
    c?.cb();
    const f = this.#finalCb;
    this.#finalCb = null;
    f?.();
  }
}
