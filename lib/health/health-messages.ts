// Messages between the main thread and the health worker thread.
import type { AddressInfo } from 'node:net';
import type { ComponentReport } from '../lifecycle/component-registry.js';

export type ToWorker =
  | { readonly type: 'lifecycle'; readonly components: readonly ComponentReport[] }
  | {
      readonly type: 'metrics-reply';
      readonly id: number;
      readonly contentType?: string;
      readonly body?: string;
      readonly error?: string;
    }
  | { readonly type: 'stop'; readonly graceMs: number };

export type FromWorker =
  | { readonly type: 'listening'; readonly address: AddressInfo }
  | { readonly type: 'start-error'; readonly message: string }
  | { readonly type: 'metrics-request'; readonly id: number }
  | {
      readonly type: 'request';
      readonly endpoint: string;
      readonly method: string;
      readonly status: number;
      readonly seconds: number;
    }
  | { readonly type: 'log'; readonly level: 'error' | 'info'; readonly message: string };
