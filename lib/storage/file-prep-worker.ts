// The helper thread of file-prep.ts: claims each queued request (unless its
// caller took it back first), creates the folder and files, and publishes the
// descriptors through the request's shared slot.
import { parentPort } from 'node:worker_threads';
import { QUEUED, WORKING, runRequest, type PrepRequest } from './file-prep.js';

parentPort?.on('message', (r: PrepRequest) => {
  const state = new Int32Array(r.slot);
  if (Atomics.compareExchange(state, 0, QUEUED, WORKING) !== QUEUED) return;
  runRequest(r, state);
});
