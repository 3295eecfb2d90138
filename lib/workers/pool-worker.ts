// A thread of worker-pool.ts: runs each task it is sent with the handler its
// kind names (the module loaded once per thread), and sends back the value,
// with the buffers the handler lists transferred, or the error.
import { parentPort } from 'node:worker_threads';
import { errorFields, type TaskHandler, type TaskMessage, type TaskReply } from './worker-pool.js';

const modules = new Map<string, Promise<Record<string, unknown>>>();

async function handlerOf(m: TaskMessage): Promise<TaskHandler<unknown, unknown>> {
  let mod = modules.get(m.module);
  if (mod === undefined) {
    mod = import(m.module) as Promise<Record<string, unknown>>;
    modules.set(m.module, mod);
  }
  const fn = (await mod)[m.name];
  if (typeof fn !== 'function') throw new Error(`no task ${m.name} in ${m.module}`);
  return fn as TaskHandler<unknown, unknown>;
}

async function run(m: TaskMessage): Promise<void> {
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
  void run(m);
});
