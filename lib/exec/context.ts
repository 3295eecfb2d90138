// What running operators need: the catalog, the request's abort signal, the
// memory limit for sorts and hash tables, and cooperative yielding so a long
// scan never starves the event loop (DESIGN.md "Shape").
import { setImmediate as yieldNow } from 'node:timers/promises';
import { SvcError } from '../errors/svc-error.js';
import type { Catalog } from '../storage/catalog.js';
import type { Batch } from '../storage/table-reader.js';

export interface ExecContext {
  readonly catalog: Catalog;
  readonly signal: AbortSignal;
  /** Bytes a sort or hash table may hold before the query fails. */
  readonly memoryLimit: number;
  /** Batches for the plan's `input` nodes, by name (the library's stream operators). */
  readonly inputs?: ReadonlyMap<string, AsyncIterable<Batch>>;
}

const YIELD_EVERY_MS = 8;
let lastYield = performance.now();

/** Checks for abort and yields to the event loop every few milliseconds of work. */
export async function pace(cx: ExecContext): Promise<void> {
  if (cx.signal.aborted) throw abortError(cx.signal);
  const now = performance.now();
  if (now - lastYield >= YIELD_EVERY_MS) {
    lastYield = now;
    await yieldNow();
    if (cx.signal.aborted) throw abortError(cx.signal);
  }
}

function abortError(signal: AbortSignal): Error {
  const r: unknown = signal.reason;
  return r instanceof Error ? r : new SvcError('TIMEOUT', 'query aborted');
}

/** Fails the query once `bytes` pass the memory limit. */
export function checkMemory(cx: ExecContext, bytes: number, what: string): void {
  if (bytes > cx.memoryLimit) {
    throw new SvcError('BAD_REQUEST', `${what} needs more than the memory limit of ${cx.memoryLimit} bytes [limit=query.memory.limit]`);
  }
}

export function vectorBytes(v: { kind: string; data?: ArrayBufferView; keys?: Int32Array; bytes?: Uint8Array; offsets?: Int32Array }): number {
  return (v.data?.byteLength ?? 0) + (v.keys?.byteLength ?? 0) + (v.bytes?.byteLength ?? 0) + (v.offsets?.byteLength ?? 0);
}
