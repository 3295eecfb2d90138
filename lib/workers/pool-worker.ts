// A thread of worker-pool.ts: runs each task it is sent with the handler its
// kind names (the module loaded once per thread), and sends back the value,
// with the buffers the handler lists transferred, or the error.
import { parentPort } from 'node:worker_threads';
import { errorFields, type TaskHandler, type TaskMessage, type TaskReply } from './worker-pool.js';

const modules = new Map<string, Promise<Record<string, unknown>>>();

function moduleOf(url: string): Promise<Record<string, unknown>> {
  let mod = modules.get(url);
  if (mod === undefined) {
    mod = import(url) as Promise<Record<string, unknown>>;
    modules.set(url, mod);
  }
  return mod;
}

async function handlerOf(m: Extract<TaskMessage, { id: number }>): Promise<TaskHandler<unknown, unknown>> {
  const fn = (await moduleOf(m.module))[m.name];
  if (typeof fn !== 'function') throw new Error(`no task ${m.name} in ${m.module}`);
  return fn as TaskHandler<unknown, unknown>;
}

async function run(m: Extract<TaskMessage, { id: number }>): Promise<void> {
  let reply: TaskReply;
  let transfer: readonly ArrayBuffer[] = [];
  try {
    const out = await (await handlerOf(m))(m.input);
    reply = { id: m.id, value: out.value };
    transfer = out.transfer ?? [];
  } catch (e) {
    reply = { id: m.id, error: errorFields(e) };
  }
  parentPort!.postMessage(reply, transfer as ArrayBuffer[]);
}

parentPort!.on('message', (m: TaskMessage) => {
  if (m.id !== undefined) void run(m);
  // Loaded ahead of their tasks (WorkerPool.warm); a module that fails to load fails its tasks later.
  else for (const url of m.load) moduleOf(url).catch(() => undefined);
});
