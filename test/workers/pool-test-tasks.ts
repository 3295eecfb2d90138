// Task kinds for test/workers/worker-pool.test.ts, run in the pool's threads:
// an echo that says which thread ran it, a sum over a transferred array, a
// task that throws (an SvcError and a plain Error), one that sleeps, and one
// that ends its thread as a crash would.
import { threadId } from 'node:worker_threads';
import { SvcError } from '../../lib/errors/svc-error.js';
import type { TaskOutput } from '../../lib/workers/worker-pool.js';

export function echo(input: { readonly text: string }): TaskOutput<{ text: string; thread: number }> {
  return { value: { text: input.text, thread: threadId } };
}

/** Sums the array and hands back a doubled copy, transferred. */
export function sumAndDouble(input: Float64Array): TaskOutput<{ sum: number; doubled: Float64Array }> {
  let sum = 0;
  const doubled = new Float64Array(input.length);
  for (let i = 0; i < input.length; i++) {
    sum += input[i]!;
    doubled[i] = input[i]! * 2;
  }
  return { value: { sum, doubled }, transfer: [doubled.buffer] };
}

export function fail(input: { readonly svc: boolean }): TaskOutput<null> {
  if (input.svc) throw new SvcError('LIMIT', 'too much [limit=x.y]', { position: 7 });
  throw new Error('plain failure');
}

export async function sleep(input: { readonly ms: number }): Promise<TaskOutput<number>> {
  await new Promise((r) => setTimeout(r, input.ms));
  return { value: threadId };
}

export function crash(): TaskOutput<null> {
  process.exit(3); // in a worker thread: ends the thread, not the process
}
